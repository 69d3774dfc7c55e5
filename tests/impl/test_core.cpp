// Core of the CPU library: tensors and views, runtime, executors, dtype conversions, promotion.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "impl/dtype.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/tensor.hpp"
#include "tests/support/scoped_env.hpp"

namespace {

TEST(AclCreateTensor, AcceptsAStridedViewInsideItsStorage) {
  std::vector<float> storage(12);
  const int64_t dims[] = {2, 3}, strides[] = {6, 2}, sdims[] = {12};
  aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, sdims, 1,
                                 storage.data());
  ASSERT_NE(t, nullptr);  // reaches storage index 1 + 6 + 4 = 11 < 12
  int64_t *shape = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &shape, &n), ACLNN_SUCCESS);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(shape[0], 2);
  EXPECT_EQ(shape[1], 3);
  delete[] shape;
  int64_t off = -1;
  ASSERT_EQ(aclGetViewOffset(t, &off), ACLNN_SUCCESS);
  EXPECT_EQ(off, 1);
  aclDestroyTensor(t);
}

TEST(AclCreateTensor, RejectsInvalidArguments) {
  std::vector<float> storage(12);
  const int64_t dims[] = {2, 3}, strides[] = {6, 2}, sdims[] = {12};
  // The view reaches index 2 + 6 + 4 = 12: outside a 12-element storage.
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 2, ACL_FORMAT_ND, sdims, 1, storage.data()),
            nullptr);
  const int64_t neg_dims[] = {-1, 3};
  EXPECT_EQ(aclCreateTensor(neg_dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, sdims, 1,
                            storage.data()),
            nullptr);
  const int64_t neg_strides[] = {6, -2};
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, neg_strides, 0, ACL_FORMAT_ND, sdims, 1,
                            storage.data()),
            nullptr);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, -1, ACL_FORMAT_ND, sdims, 1, storage.data()),
            nullptr);
  const int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  const int64_t one_strides[] = {1, 1};
  EXPECT_EQ(aclCreateTensor(huge, 2, ACL_FLOAT, one_strides, 0, ACL_FORMAT_ND, huge, 2,
                            storage.data()),
            nullptr);
}

TEST(AclCreateTensor, EmptyViewNeedsNoStorage) {
  const int64_t dims[] = {0, 3}, strides[] = {3, 1}, sdims[] = {0};
  aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT16, strides, 0, ACL_FORMAT_ND, sdims, 1, nullptr);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(aclnn_cpu::numel(*t), 0);
  aclDestroyTensor(t);
}

TEST(Views, InternalOverlapIsDetected) {
  aclTensor t;
  t.dtype = ACL_FLOAT;
  t.view_dims = {2, 3};
  t.strides = {3, 1};
  EXPECT_FALSE(aclnn_cpu::has_internal_overlap(t));
  t.strides = {0, 1};  // expanded rows
  EXPECT_TRUE(aclnn_cpu::has_internal_overlap(t));
  t.strides = {1, 1};  // (0,1) and (1,0) share an element
  EXPECT_TRUE(aclnn_cpu::has_internal_overlap(t));
  t.view_dims = {2, 2};
  t.strides = {3, 2};  // elements 0, 2, 3, 5: interleaved but disjoint
  EXPECT_FALSE(aclnn_cpu::has_internal_overlap(t));
}

TEST(Runtime, MemcpyRejectsCountAboveDestMax) {
  void *p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 32, 0u);
  const char src[65] = {};
  EXPECT_EQ(aclrtMemcpy(p, 64, src, 65, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(p, 64, src, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(p, 64, src, 8, static_cast<aclrtMemcpyKind>(7)), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
}

TEST(Runtime, StreamLifecycle) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

// A chunk that throws on a worker thread would terminate the process: parallel_for runs every
// chunk, rethrows the first exception on the calling thread, and the pool stays usable.
TEST(ParallelFor, RethrowsAChunksExceptionOnTheCaller) {
  const aclnn_test::ScopedEnv threads("ACLNN_CPU_NUM_THREADS", "2");
  std::atomic<int64_t> covered{0};
  EXPECT_THROW(aclnn_cpu::parallel_for(1 << 20, 1024,
                                       [&](int64_t b, int64_t e) {
                                         covered += e - b;
                                         if (b > 0) throw std::bad_alloc();
                                       }),
               std::bad_alloc);
  EXPECT_EQ(covered.load(), int64_t{1} << 20);
  covered = 0;
  aclnn_cpu::parallel_for(1 << 20, 1024, [&](int64_t b, int64_t e) { covered += e - b; });
  EXPECT_EQ(covered.load(), int64_t{1} << 20);
}

// Exit and the pool's workers. Sanitizer builds join them in an exit handler, so that
// LeakSanitizer's check after it has one thread to stop (its tracer sometimes crashes scanning
// more, google/sanitizers#1353); production builds leave them blocked, so exit never waits on a
// job. Seen from an exit handler that runs after the pool's: one thread, or the caller and its
// three workers. The death test re-executes this binary, so the handler is registered before the
// pool exists and therefore runs after the pool's.
int threads_of_this_process() {
  int n = 0;
  if (DIR *d = opendir("/proc/self/task")) {
    while (const dirent *e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

TEST(ParallelForDeathTest, ExitJoinsTheWorkersOnlyInSanitizerBuilds) {
  constexpr int kThreadsAtExit = aclnn_cpu::kJoinWorkersAtExit ? 1 : 4;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::atexit([] { _exit(threads_of_this_process()); });
        setenv("ACLNN_CPU_NUM_THREADS", "4", 1);
        std::atomic<int64_t> covered{0};
        aclnn_cpu::parallel_for(1 << 20, 1024, [&](int64_t b, int64_t e) { covered += e - b; });
        std::exit(covered.load() == (int64_t{1} << 20) ? 0 : 99);
      },
      testing::ExitedWithCode(kThreadsAtExit), "");
}

// An exception in phase two never crosses the C ABI: out of memory and other failures come back
// as ACLNN_ERR_INNER with a message naming the op, and the executor is released.
TEST(Executor, PhaseTwoExceptionsBecomeInnerErrors) {
  for (bool oom : {true, false}) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(aclnn_cpu::publish_executor(
                  "aclnnTestOp", 0,
                  [oom](void *) {
                    if (oom) throw std::bad_alloc();
                    throw std::runtime_error("boom");
                  },
                  &ws, &ex),
              ACLNN_SUCCESS);
    EXPECT_EQ(aclnn_cpu::run_executor("aclnnTestOp", nullptr, 0, ex), ACLNN_ERR_INNER);
    const std::string msg = aclGetRecentErrMsg();
    EXPECT_NE(msg.find("aclnnTestOp"), std::string::npos) << msg;
    EXPECT_NE(msg.find(oom ? "out of memory" : "boom"), std::string::npos) << msg;
    EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_ERR_PARAM_INVALID);  // already released
  }
}

}  // namespace
