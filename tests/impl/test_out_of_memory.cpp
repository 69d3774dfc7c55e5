// Out of memory never crosses the C ABI. This binary replaces the global operator new with one
// that can be told to fail the k-th allocation from now on (on any thread); each op's two phases
// then run with k = 0, 1, 2, ... until a run makes fewer than k allocations. Every run must end
// in success or ACLNN_ERR_INNER (ACLNN_ERR_INNER_CREATE_EXECUTOR when the executor itself could not
// be made) with an "out of memory" message naming the op: never an escaped
// exception (std::terminate), a crash or a leak (the sanitizer job runs this too).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "tests/support/scoped_env.hpp"

namespace {
// Allocations left before one fails; negative: none fails.
std::atomic<long> g_countdown{-1};
}  // namespace

void *operator new(std::size_t n) {
  if (g_countdown.load(std::memory_order_relaxed) >= 0 && g_countdown.fetch_sub(1) == 0)
    throw std::bad_alloc();
  if (void *p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// Every unaligned form, nothrow ones included, allocates with malloc and frees with free: under
// ASan a form left to the sanitizer would pair its allocation with this file's free (a reported
// alloc-dealloc mismatch). The aligned forms stay the sanitizer's, new and delete alike.
void *operator new[](std::size_t n) {
  return ::operator new(n);
}
void *operator new(std::size_t n, const std::nothrow_t &) noexcept {
  try {
    return ::operator new(n);
  } catch (const std::bad_alloc &) {
    return nullptr;
  }
}
void *operator new[](std::size_t n, const std::nothrow_t &t) noexcept {
  return ::operator new(n, t);
}
void operator delete(void *p) noexcept {
  std::free(p);
}
void operator delete[](void *p) noexcept {
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
  std::free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept {
  std::free(p);
}

namespace {

struct Buffer {
  std::vector<unsigned char> bytes;
  explicit Buffer(size_t n) : bytes(n, 0) {}
};

aclTensor *tensor(Buffer &b, const std::vector<int64_t> &dims, aclDataType dt) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), 0, ACL_FORMAT_ND, &n, 1,
                         b.bytes.data());
}

// Runs both phases of one call with the k-th allocation failing; returns whether the failure was
// reached (false: the call made fewer than k + 1 allocations and must have succeeded).
using GetWs = std::function<aclnnStatus(uint64_t *, aclOpExecutor **)>;
using Run = std::function<aclnnStatus(void *, uint64_t, aclOpExecutor *)>;
bool run_failing_at(long k, const char *op, const GetWs &get_ws, const Run &run) {
  static std::vector<unsigned char> workspace(1 << 20);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  g_countdown = k;
  aclnnStatus st = get_ws(&ws, &ex);
  if (st == ACLNN_SUCCESS) st = run(workspace.data(), ws, ex);
  const bool hit = g_countdown.exchange(-1) < 0;
  SCOPED_TRACE(std::string(op) + ", allocation " + std::to_string(k));
  if (!hit) {
    EXPECT_EQ(st, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    return false;
  }
  if (st != ACLNN_SUCCESS) {  // the failure may also hit a buffer whose loss is recoverable
    EXPECT_TRUE(st == ACLNN_ERR_INNER || st == ACLNN_ERR_INNER_CREATE_EXECUTOR)
        << aclGetRecentErrMsg();
    const std::string msg = aclGetRecentErrMsg();
    EXPECT_NE(msg.find(op), std::string::npos) << msg;
    EXPECT_NE(msg.find("out of memory"), std::string::npos) << msg;
  }
  return true;
}

void every_allocation_fails_once(const char *op, const GetWs &get_ws, const Run &run) {
  long k = 0;
  while (run_failing_at(k, op, get_ws, run)) {
    ASSERT_LT(k, 2000) << "more allocations than expected";
    ++k;
  }
  EXPECT_GT(k, 0) << op << " made no allocation at all: the test reaches nothing";
}

TEST(OutOfMemory, EveryAllocationOfEveryOpFailsCleanly) {
  // Pool threads allocate too (LayerNorm's rows).
  const aclnn_test::ScopedEnv threads("ACLNN_CPU_NUM_THREADS", "2");
  const int64_t m = 70, n = 1100;  // 77 000 elements: above the parallel grain
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    const size_t es = dt == ACL_FLOAT ? 4 : 2;
    Buffer a(m * n * es), b(m * n * es), out(m * n * es), mean(m * 4), rstd(m * 4), w(n * 4),
        gw(n * 4), gb(n * 4), idx(2 * 8);
    aclTensor *ta = tensor(a, {m, n}, dt), *tb = tensor(b, {m, n}, dt),
              *to = tensor(out, {m, n}, dt), *tmean = tensor(mean, {m, 1}, ACL_FLOAT),
              *trstd = tensor(rstd, {m, 1}, ACL_FLOAT), *tw = tensor(w, {n}, ACL_FLOAT),
              *tgw = tensor(gw, {n}, ACL_FLOAT), *tgb = tensor(gb, {n}, ACL_FLOAT);
    Buffer gout(2 * n * es);
    aclTensor *tgout = tensor(gout, {2, n}, dt);
    const int64_t ends[] = {30, m};
    std::memcpy(idx.bytes.data(), ends, sizeof ends);
    aclTensor *tidx = tensor(idx, {2}, ACL_INT64);
    const int64_t ns[] = {n};
    aclIntArray *nsa = aclCreateIntArray(ns, 1);
    const bool mask[] = {true, true, true};
    aclBoolArray *ma = aclCreateBoolArray(mask, 3);
    ASSERT_NE(tidx, nullptr);

    every_allocation_fails_once(
        "aclnnGeluBackward",
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnGeluBackwardGetWorkspaceSize(ta, tb, to, ws, e);
        },
        [](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnGeluBackward(p, ws, e, nullptr);
        });
    every_allocation_fails_once(
        "aclnnSeluBackward",
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnSeluBackwardGetWorkspaceSize(ta, tb, to, ws, e);
        },
        [](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnSeluBackward(p, ws, e, nullptr);
        });
    every_allocation_fails_once(
        "aclnnLogitGrad",
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnLogitGradGetWorkspaceSize(ta, tb, 0.01, to, ws, e);
        },
        [](void *p, uint64_t ws, aclOpExecutor *e) { return aclnnLogitGrad(p, ws, e, nullptr); });
    every_allocation_fails_once(
        "aclnnLayerNormBackward",
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnLayerNormBackwardGetWorkspaceSize(tb, ta, nsa, tmean, trstd, tw, nullptr, ma,
                                                        to, tgw, tgb, ws, e);
        },
        [](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnLayerNormBackward(p, ws, e, nullptr);
        });
    every_allocation_fails_once(
        "aclnnGroupedBiasAddGrad",
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnGroupedBiasAddGradGetWorkspaceSize(ta, tidx, tgout, ws, e);
        },
        [](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnGroupedBiasAddGrad(p, ws, e, nullptr);
        });
    every_allocation_fails_once(
        "aclnnGroupedBiasAddGradV2",
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnGroupedBiasAddGradV2GetWorkspaceSize(ta, tidx, 0, tgout, ws, e);
        },
        [](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnGroupedBiasAddGradV2(p, ws, e, nullptr);
        });
    for (aclTensor *t : {ta, tb, to, tmean, trstd, tw, tgw, tgb, tgout, tidx}) aclDestroyTensor(t);
    aclDestroyIntArray(nsa);
    aclDestroyBoolArray(ma);
  }
}

// The ABI's object constructors and shape getters refuse (NULL or an inner error, with the reason)
// instead of throwing.
TEST(OutOfMemory, ObjectConstructorsReturnNull) {
  const int64_t dims[] = {2, 3}, strides[] = {3, 1}, storage[] = {6};
  std::vector<float> data(6);
  for (long k = 0; k < 4; ++k) {
    g_countdown = k;
    aclTensor *t =
        aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, data.data());
    const bool hit = g_countdown.exchange(-1) < 0;
    if (hit) {
      EXPECT_EQ(t, nullptr);
      EXPECT_NE(std::string(aclGetRecentErrMsg()).find("out of memory"), std::string::npos);
    } else {
      EXPECT_NE(t, nullptr);
    }
    aclDestroyTensor(t);
    g_countdown = k;
    aclIntArray *ia = aclCreateIntArray(dims, 2);
    const bool hit_ia = g_countdown.exchange(-1) < 0;
    EXPECT_EQ(ia == nullptr, hit_ia);
    aclDestroyIntArray(ia);
  }
  // The shape getters' copies: an inner error with the reason, nothing returned.
  aclTensor *t =
      aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, data.data());
  ASSERT_NE(t, nullptr);
  int64_t *shape = nullptr;
  uint64_t rank = 0;
  g_countdown = 0;
  const aclnnStatus st = aclGetViewShape(t, &shape, &rank);
  g_countdown = -1;
  EXPECT_EQ(st, ACLNN_ERR_INNER);
  EXPECT_EQ(shape, nullptr);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclGetViewShape: out of memory"),
            std::string::npos)
      << aclGetRecentErrMsg();
  aclDestroyTensor(t);
}

}  // namespace
