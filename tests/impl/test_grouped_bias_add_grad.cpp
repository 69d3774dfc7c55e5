// aclnnGroupedBiasAddGrad and V2 through the ABI (spec grouped_bias_add_grad.md): every error
// clause in order, GBAG-IDX-1 violations, the two-phase rules with a real workspace, product
// gates, the seed's examples against exact MPFR sums with the condition-aware bound (VAL-TOL-1),
// empty groups and empty gradY, IEEE specials, views, and thread-count determinism.
#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "impl/dtype.hpp"
#include "impl/kernels/grouped_bias_add_grad.hpp"
#include "tests/support/abi_expect.hpp"
#include "tests/support/host_tensor.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/simd_targets.hpp"

namespace {

using aclnn_cpu::bf16_to_float;
using aclnn_cpu::double_to_bf16;
using aclnn_cpu::double_to_half;
using aclnn_cpu::half_to_float;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Host tensors with canary storage: tests/support/host_tensor.hpp.
using HostTensor = aclnn_test::GuardedTensor;
using aclnn_test::all_canary;
using aclnn_test::errmsg;
using aclnn_test::kCanary;
using aclnn_test::make;
using aclnn_test::ScopedEnv;

void make_idx(HostTensor &h, const std::vector<int64_t> &v, aclDataType dt = ACL_INT64) {
  make(h, {static_cast<int64_t>(v.size())}, dt);
  for (size_t i = 0; i < v.size(); ++i) h.set_i64(i, v[i]);
}

// version 1: V1; 2: V2 with `type`.
aclnnStatus run(const aclTensor *gy, const aclTensor *gi, aclTensor *out, int version = 1,
                int64_t type = 0, uint64_t *ws_out = nullptr) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const aclnnStatus s =
      version == 1 ? aclnnGroupedBiasAddGradGetWorkspaceSize(gy, gi, out, &ws, &ex)
                   : aclnnGroupedBiasAddGradV2GetWorkspaceSize(gy, gi, type, out, &ws, &ex);
  if (ws_out) *ws_out = ws;
  if (s != ACLNN_SUCCESS) return s;
  void *w = nullptr;
  if (ws > 0) {
    EXPECT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  const aclnnStatus r = version == 1 ? aclnnGroupedBiasAddGrad(w, ws, ex, nullptr)
                                     : aclnnGroupedBiasAddGradV2(w, ws, ex, nullptr);
  if (w) aclrtFree(w);
  return r;
}

void expect_fail(aclnnStatus code, const aclTensor *gy, const aclTensor *gi, aclTensor *out,
                 const HostTensor &out_storage, const std::string &needle, int version = 1,
                 int64_t type = 0) {
  const aclnnStatus got = run(gy, gi, out, version, type);
  aclnn_test::expect_failure(got, code, needle, "", all_canary(out_storage));
}

void fill_random(HostTensor &h, uint32_t seed, double scale = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-scale, scale);
  for (size_t i = 0; i < h.elems(); ++i) h.set(i, d(rng));
}

// ---- exact oracle: MPFR sums and the condition-aware bound of VAL-TOL-1 --------------------
struct Format {
  int p, emin;
  double overflow;
};
Format format_of(aclDataType dt) {
  if (dt == ACL_FLOAT16) return {11, -14, 65520.0};
  if (dt == ACL_BF16) return {8, -126, 0x1.ffp127};
  return {24, -126, 0x1.ffffffp127};
}

// got vs the exact sum of terms: |got - exact| <= 0.5 ulp_out(exact) + c sum|terms|, the
// implementation's design bound, far inside VAL-TOL-1's k 2^-24 sum|terms|: c = k 2^-53 with
// k = ceil(log2 n) + 2 (sums in double), plus 3 2^-24 (1 + 2^-22) for 16-bit rows (eight-row
// float trees of depth three before the double sums).
::testing::AssertionResult within_bound(const std::vector<double> &terms, double got,
                                        aclDataType dt) {
  const Format f = format_of(dt);
  mpfr_t s, a, t;
  mpfr_inits2(1200, s, a, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_zero(s, 1);
  mpfr_set_zero(a, 1);
  for (double v : terms) {
    mpfr_add_d(s, s, v, MPFR_RNDN);  // exact at 1200 bits
    mpfr_set_d(t, std::fabs(v), MPFR_RNDN);
    mpfr_add(a, a, t, MPFR_RNDN);
  }
  ::testing::AssertionResult res = ::testing::AssertionSuccess();
  mpfr_abs(t, s, MPFR_RNDN);
  const bool overflows = mpfr_cmp_d(t, f.overflow) >= 0;
  if (overflows || std::isinf(got) || std::isnan(got)) {
    if (!(overflows && std::isinf(got) && (got > 0) == (mpfr_sgn(s) > 0)))
      res = ::testing::AssertionFailure()
            << "got " << got << ", exact " << mpfr_get_d(s, MPFR_RNDN);
  } else {
    const size_t n = std::max<size_t>(terms.size(), 1);
    const int k = static_cast<int>(std::ceil(std::log2(static_cast<double>(n)))) + 2;
    const long e = mpfr_zero_p(s) ? f.emin : std::max<long>(mpfr_get_exp(s) - 1, f.emin);
    // bound = 2^(e - p) + c sum|terms|
    const double tree = dt == ACL_FLOAT ? 0.0 : 3 * 0x1p-24 * (1 + 0x1p-22);
    mpfr_mul_d(a, a, k * 0x1p-53 + tree, MPFR_RNDU);
    mpfr_set_ui_2exp(t, 1, e - f.p, MPFR_RNDN);
    mpfr_add(a, a, t, MPFR_RNDU);
    mpfr_sub_d(t, s, got, MPFR_RNDN);
    mpfr_abs(t, t, MPFR_RNDN);
    if (mpfr_cmp(t, a) > 0)
      res = ::testing::AssertionFailure()
            << "got " << got << ", exact " << mpfr_get_d(s, MPFR_RNDN) << ", error "
            << mpfr_get_d(t, MPFR_RNDN) << " > bound " << mpfr_get_d(a, MPFR_RNDN);
  }
  mpfr_clears(s, a, t, static_cast<mpfr_ptr>(nullptr));
  return res;
}

// Checks out [G, H] (contiguous) against gradY rows [starts[g], starts[g]+counts[g]) of a 2-D
// contiguous gradY.
void check_groups_2d(const HostTensor &gy, int64_t H, const std::vector<int64_t> &ends,
                     const HostTensor &out) {
  int64_t start = 0;
  int bad = 0;
  for (size_t g = 0; g < ends.size(); ++g) {
    for (int64_t h = 0; h < H; ++h) {
      std::vector<double> terms;
      for (int64_t r = start; r < ends[g]; ++r) terms.push_back(gy.get(r * H + h));
      const auto ok = within_bound(terms, out.get(g * H + h), out.dtype);
      if (!ok && bad++ < 5) ADD_FAILURE() << "group " << g << " h " << h << ": " << ok.message();
    }
    start = ends[g];
  }
  EXPECT_EQ(bad, 0);
}

// ---- errors, in the spec's order -------------------------------------------------------------

struct Seed1 {  // gradY (1000, 30), groupIdx (400, 600, 1000), out (3, 30)
  HostTensor gy, gi, out;
  explicit Seed1(aclDataType dt = ACL_FLOAT, aclDataType it = ACL_INT64) {
    make(gy, {1000, 30}, dt);
    fill_random(gy, 1);
    make_idx(gi, {400, 600, 1000}, it);
    make(out, {3, 30}, dt);
  }
};

TEST(GroupedBiasAddGrad, TwoPhase2NullOutputsFirst) {  // ABI-TWOPHASE-2
  Seed1 a;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_EQ(aclnnGroupedBiasAddGradGetWorkspaceSize(nullptr, a.gi.t, a.out.t, nullptr, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("workspaceSize"), std::string::npos);
  EXPECT_EQ(aclnnGroupedBiasAddGradV2GetWorkspaceSize(a.gy.t, a.gi.t, 7, a.out.t, &ws, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("executor"), std::string::npos);
  EXPECT_TRUE(all_canary(a.out));
}

// One group of 1300 rows of H = 512: several row blocks, so phase one asks for a workspace.
struct Big {
  HostTensor gy, gi, out;
  Big() {
    make(gy, {1300, 512}, ACL_FLOAT);
    fill_random(gy, 2);
    make_idx(gi, {1300});
    make(out, {1, 512}, ACL_FLOAT);
  }
};

TEST(GroupedBiasAddGrad, TwoPhase3WorkspaceChecks) {  // ABI-TWOPHASE-3
  EXPECT_EQ(aclnnGroupedBiasAddGrad(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnGroupedBiasAddGradV2(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("executor"), std::string::npos);
  Big b;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnGroupedBiasAddGradGetWorkspaceSize(b.gy.t, b.gi.t, b.out.t, &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_GT(ws, 0u);
  // NULL workspace with a positive size: 161001.
  EXPECT_EQ(aclnnGroupedBiasAddGrad(nullptr, ws, ex, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("workspace"), std::string::npos);
  // A smaller workspaceSize than phase one returned: 161002 (project).
  std::vector<double> w(ws / sizeof(double) + 1);
  EXPECT_EQ(aclnnGroupedBiasAddGrad(w.data(), ws - 8, ex, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(errmsg().find("workspaceSize"), std::string::npos);
  EXPECT_TRUE(all_canary(b.out));
  // An executor built by V1 is not run by V2.
  EXPECT_EQ(aclnnGroupedBiasAddGradV2(w.data(), ws, ex, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclnnGroupedBiasAddGrad(w.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  check_groups_2d(b.gy, 512, {1300}, b.out);
}

TEST(GroupedBiasAddGrad, TwoPhase4RunsOnceUnlessRepeatable) {  // ABI-TWOPHASE-4
  Big b;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnGroupedBiasAddGradV2GetWorkspaceSize(b.gy.t, b.gi.t, 1, b.out.t, &ws, &ex),
            ACLNN_SUCCESS);
  std::vector<double> w(ws / sizeof(double) + 1);
  EXPECT_EQ(aclnnGroupedBiasAddGradV2(w.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnGroupedBiasAddGradV2(w.data(), ws, ex, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_FALSE(errmsg().empty());

  Big c;
  ASSERT_EQ(aclnnGroupedBiasAddGradGetWorkspaceSize(c.gy.t, c.gi.t, c.out.t, &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnGroupedBiasAddGrad(w.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  const std::vector<unsigned char> first = c.out.storage;
  std::fill(w.begin(), w.end(), 12345.0);  // stale workspace content must not matter
  EXPECT_EQ(aclnnGroupedBiasAddGrad(w.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(c.out.storage, first);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
}

TEST(GroupedBiasAddGrad, ProductGateTrainingAndInference) {  // ABI-SOC-1: A2/A3 only
  for (const char *soc : {"ascend910", "ascend310p"}) {
    ScopedEnv env("ACLNN_CPU_SOC", soc);
    Seed1 a;
    expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, a.out.t, a.out, soc, 1);
    EXPECT_NE(errmsg().find("not supported"), std::string::npos);
    expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, a.out.t, a.out, soc, 2);
  }
  for (const char *soc : {"ascend910b", "ascend910_93"}) {
    ScopedEnv env("ACLNN_CPU_SOC", soc);
    Seed1 a;
    EXPECT_EQ(run(a.gy.t, a.gi.t, a.out.t), ACLNN_SUCCESS) << soc << errmsg();
  }
}

TEST(GroupedBiasAddGrad, Null1) {  // GBAG-NULL-1 (groupIdxOptional may be NULL)
  Seed1 a;
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, nullptr, a.gi.t, a.out.t, a.out, "gradY");
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, a.gy.t, a.gi.t, nullptr, a.out, "out");
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, a.gy.t, nullptr, nullptr, a.out, "out", 2, 5);
  // NULL before DTYPE.
  HostTensor bad;
  make(bad, {1000, 30}, ACL_INT32);
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, bad.t, a.gi.t, nullptr, a.out, "out");
}

TEST(GroupedBiasAddGrad, Dtype1) {  // GBAG-DTYPE-1, signature order gradY, groupIdx, out
  Seed1 a;
  HostTensor gy_i, gi_f, gi_i16, out_h, out_d;
  make(gy_i, {1000, 30}, ACL_INT32);
  make(gi_f, {3}, ACL_FLOAT);
  make(gi_i16, {3}, ACL_INT16);
  make(out_h, {3, 30}, ACL_FLOAT16);
  make(out_d, {3, 30}, ACL_INT32);
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy_i.t, a.gi.t, a.out.t, a.out, "gradY has dtype INT32");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, gi_f.t, a.out.t, a.out,
              "groupIdxOptional has dtype FLOAT");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, gi_i16.t, a.out.t, a.out,
              "groupIdxOptional has dtype INT16");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, out_h.t, out_h, "out has dtype FLOAT16");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, out_d.t, out_d, "GBAG-DTYPE-1");
  // gradY before groupIdx: both bad reports gradY.
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy_i.t, gi_f.t, a.out.t, a.out, "gradY has dtype");
  // DTYPE before RANK: a rank-1 gradY with a bad out dtype reports the dtype.
  HostTensor gy1;
  make(gy1, {30}, ACL_FLOAT);
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy1.t, a.gi.t, out_h.t, out_h, "out has dtype");
}

TEST(GroupedBiasAddGrad, Rank1) {  // GBAG-RANK-1
  Seed1 a;
  HostTensor gy3, gy2, gi2, out3;
  make(gy3, {3, 10, 30}, ACL_FLOAT);
  make(gy2, {10, 30}, ACL_FLOAT);
  make(gi2, {3, 1}, ACL_INT64);
  make(out3, {3, 30, 1}, ACL_FLOAT);
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy3.t, a.gi.t, a.out.t, a.out, "gradY has rank 3");
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy2.t, nullptr, a.out.t, a.out, "gradY has rank 2");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, gi2.t, a.out.t, a.out,
              "groupIdxOptional has rank 2");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, out3.t, out3, "out has rank 3");
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy3.t, nullptr, out3.t, out3, "GBAG-RANK-1");
}

TEST(GroupedBiasAddGrad, Gmax1At2048And2049) {  // GBAG-GMAX-1
  for (int64_t G : {2048, 2049}) {
    HostTensor gy, gi, out;
    make(gy, {G, 4}, ACL_FLOAT);
    for (size_t i = 0; i < gy.elems(); ++i) gy.set(i, static_cast<double>(i));
    std::vector<int64_t> ends(G);
    for (int64_t j = 0; j < G; ++j) ends[j] = j + 1;
    make_idx(gi, ends, ACL_INT32);
    make(out, {G, 4}, ACL_FLOAT);
    if (G == 2048) {
      ASSERT_EQ(run(gy.t, gi.t, out.t), ACLNN_SUCCESS) << errmsg();
      for (size_t i = 0; i < out.elems(); ++i) ASSERT_EQ(out.get(i), static_cast<double>(i));
    } else {
      expect_fail(ACLNN_ERR_PARAM_INVALID, gy.t, gi.t, out.t, out, "2049 elements");
      EXPECT_NE(errmsg().find("GBAG-GMAX-1"), std::string::npos);
    }
  }
}

TEST(GroupedBiasAddGrad, Shape1) {  // GBAG-SHAPE-1
  Seed1 a;
  HostTensor o1, o2, o3, gy3;
  make(o1, {3, 31}, ACL_FLOAT);
  make(o2, {4, 30}, ACL_FLOAT);
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, o1.t, o1, "out shape [3,31] != [3,30]");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, o2.t, o2, "GBAG-SHAPE-1");
  make(gy3, {10, 100, 30}, ACL_FLOAT);
  make(o3, {100, 30}, ACL_FLOAT);
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy3.t, nullptr, o3.t, o3, "out shape [100,30] != [10,30]");
}

TEST(GroupedBiasAddGrad, Type1OnlyZeroOrOneAfterShape) {  // GBAG-TYPE-1 (V2)
  Seed1 a;
  for (int64_t t : {-1, 2, 1000}) {
    expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, a.out.t, a.out, "groupIdxType is", 2, t);
    EXPECT_NE(errmsg().find("GBAG-TYPE-1"), std::string::npos);
  }
  HostTensor gy3, o3;
  make(gy3, {10, 100, 30}, ACL_FLOAT);
  make(o3, {10, 30}, ACL_FLOAT);
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy3.t, nullptr, o3.t, o3, "groupIdxType is 2", 2, 2);
  // Checked after the shape: a bad shape and a bad type report the shape.
  HostTensor o1;
  make(o1, {3, 31}, ACL_FLOAT);
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, o1.t, o1, "GBAG-SHAPE-1", 2, 2);
}

TEST(GroupedBiasAddGrad, Idx1ViolationsNameTheIndex) {  // GBAG-IDX-1 (project: phase one)
  struct V {
    std::vector<int64_t> idx;
    aclDataType dt;
    int64_t type;
    const char *needle;
  };
  const std::vector<V> cases = {
      {{400, 300, 1000}, ACL_INT64, 0, "groupIdxOptional[1] = 300"},  // decreasing
      {{400, 300, 1000}, ACL_INT32, 0, "non-decreasing"},
      {{-1, 600, 1000}, ACL_INT32, 0, "groupIdxOptional[0] = -1"},  // negative
      {{400, -5, 1000}, ACL_INT64, 1, "groupIdxOptional[1] = -5"},
      {{400, int64_t{1} << 31, 1000}, ACL_INT64, 0, "groupIdxOptional[1] = 2147483648"},
      {{int64_t{1} << 31, 0, 0}, ACL_INT64, 1, "groupIdxOptional[0]"},  // > INT32_MAX
      {{400, 600, 999}, ACL_INT64, 0, "groupIdxOptional[2] = 999"},     // last != dim0
      {{400, 600, 1001}, ACL_INT32, 0, "groupIdxOptional[2] = 1001"},
      {{400, 1200, 1200}, ACL_INT64, 0, "groupIdxOptional[1] = 1200"},  // beyond dim0
      {{400, 200, 300}, ACL_INT64, 1, "groupIdxOptional[2] = 300"},     // sum != dim0
      {{400, 700, 0}, ACL_INT32, 1, "groupIdxOptional[1] = 700"},       // sum passes dim0
  };
  for (const V &c : cases) {
    HostTensor gy, gi, out;
    make(gy, {1000, 30}, ACL_FLOAT);
    make_idx(gi, c.idx, c.dt);
    make(out, {3, 30}, ACL_FLOAT);
    const std::vector<unsigned char> gi_before = gi.storage;
    for (int version : {1, 2}) {
      if (version == 1 && c.type == 1) continue;
      SCOPED_TRACE(c.needle);
      expect_fail(ACLNN_ERR_PARAM_INVALID, gy.t, gi.t, out.t, out, c.needle, version, c.type);
      EXPECT_NE(errmsg().find("GBAG-IDX-1"), std::string::npos);
    }
    EXPECT_EQ(gi.storage, gi_before);
  }
  // Empty groupIdx with rows to cover.
  HostTensor gy, gi, out;
  make(gy, {5, 3}, ACL_FLOAT);
  make(gi, {0}, ACL_INT64);
  make(out, {0, 3}, ACL_FLOAT);
  expect_fail(ACLNN_ERR_PARAM_INVALID, gy.t, gi.t, out.t, out, "groupIdxOptional is empty");
}

TEST(GroupedBiasAddGrad, ProjectChecksDataAndOverlap) {  // check_data, ABI-INPUT-1
  Seed1 a;
  const int64_t d[] = {1000, 30}, s[] = {30, 1}, sd[] = {30000};
  aclTensor *nodata = aclCreateTensor(d, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, sd, 1, nullptr);
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, nodata, a.gi.t, a.out.t, a.out, "gradY has 30000 elements");
  aclDestroyTensor(nodata);
  const int64_t di[] = {3}, si[] = {1}, sdi[] = {3};
  aclTensor *gi_nodata = aclCreateTensor(di, 1, ACL_INT64, si, 0, ACL_FORMAT_ND, sdi, 1, nullptr);
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, a.gy.t, gi_nodata, a.out.t, a.out, "groupIdxOptional");
  aclDestroyTensor(gi_nodata);
  // out with zero stride (rows share elements).
  HostTensor zo;
  make(zo, {3, 30}, ACL_FLOAT, {0, 1});
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.gy.t, a.gi.t, zo.t, zo, "out");
  // out inside gradY's storage: even the exact first rows are rejected (no in-place).
  const int64_t od[] = {3, 30}, os[] = {30, 1}, osd[] = {30000};
  aclTensor *alias =
      aclCreateTensor(od, 2, ACL_FLOAT, os, 0, ACL_FORMAT_ND, osd, 1, a.gy.storage.data());
  const std::vector<unsigned char> before = a.gy.storage;
  EXPECT_EQ(run(a.gy.t, a.gi.t, alias), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(errmsg().find("out overlaps gradY"), std::string::npos) << errmsg();
  EXPECT_EQ(a.gy.storage, before);
  aclDestroyTensor(alias);
}

// ---- values ----------------------------------------------------------------------------------

TEST(GroupedBiasAddGrad, Value1SeedExampleAllDtypes) {  // GBAG-VALUE-1, GBAG-VALUE-3
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (aclDataType it : {ACL_INT32, ACL_INT64}) {
      Seed1 a(dt, it);
      ASSERT_EQ(run(a.gy.t, a.gi.t, a.out.t), ACLNN_SUCCESS) << errmsg();
      check_groups_2d(a.gy, 30, {400, 600, 1000}, a.out);
    }
  }
}

TEST(GroupedBiasAddGrad, Value1RowCountsOfTheSeedExample) {  // GBAG-VALUE-1: 400, 200, 400 rows
  HostTensor gy, gi, out;
  make(gy, {1000, 30}, ACL_FLOAT);
  for (size_t i = 0; i < gy.elems(); ++i) gy.set(i, 1.0);
  make_idx(gi, {400, 600, 1000});
  make(out, {3, 30}, ACL_FLOAT);
  ASSERT_EQ(run(gy.t, gi.t, out.t), ACLNN_SUCCESS);
  for (int h = 0; h < 30; ++h) {
    EXPECT_EQ(out.get(h), 400.0);
    EXPECT_EQ(out.get(30 + h), 200.0);
    EXPECT_EQ(out.get(60 + h), 400.0);
  }
}

TEST(GroupedBiasAddGrad, Value2ThreeDimensionalSeedExample) {  // GBAG-VALUE-2: (10,100,30)
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    HostTensor gy, out;
    make(gy, {10, 100, 30}, dt);
    fill_random(gy, 3, 10.0);
    make(out, {10, 30}, dt);
    ASSERT_EQ(run(gy.t, nullptr, out.t), ACLNN_SUCCESS) << errmsg();
    for (int g = 0; g < 10; ++g)
      for (int h = 0; h < 30; ++h) {
        std::vector<double> terms;
        for (int c = 0; c < 100; ++c) terms.push_back(gy.get((g * 100 + c) * 30 + h));
        EXPECT_TRUE(within_bound(terms, out.get(g * 30 + h), dt)) << g << "," << h;
      }
  }
}

TEST(GroupedBiasAddGrad, V1EqualsV2Type0AndType1Sizes) {  // GBAG-VALUE-1, GBAG-TYPE-1
  Seed1 a, b, c;
  HostTensor sizes;
  make_idx(sizes, {400, 200, 400}, ACL_INT32);
  ASSERT_EQ(run(a.gy.t, a.gi.t, a.out.t, 1), ACLNN_SUCCESS);
  ASSERT_EQ(run(b.gy.t, b.gi.t, b.out.t, 2, 0), ACLNN_SUCCESS);
  ASSERT_EQ(run(c.gy.t, sizes.t, c.out.t, 2, 1), ACLNN_SUCCESS) << errmsg();
  EXPECT_EQ(a.out.storage, b.out.storage);
  EXPECT_EQ(a.out.storage, c.out.storage);
}

TEST(GroupedBiasAddGrad, Empty1EmptyGroupsAreZeroRows) {  // GBAG-EMPTY-1
  HostTensor gy, gi, out, sizes, out1;
  make(gy, {1000, 30}, ACL_FLOAT16);
  fill_random(gy, 4);
  make_idx(gi, {0, 400, 400, 1000, 1000});
  make(out, {5, 30}, ACL_FLOAT16);
  ASSERT_EQ(run(gy.t, gi.t, out.t), ACLNN_SUCCESS) << errmsg();
  for (int h = 0; h < 30; ++h) {
    EXPECT_EQ(out.get(h), 0.0);
    EXPECT_EQ(out.get(60 + h), 0.0);
    EXPECT_EQ(out.get(120 + h), 0.0);
  }
  check_groups_2d(gy, 30, {0, 400, 400, 1000, 1000}, out);
  // The same groups as sizes (type 1).
  make_idx(sizes, {0, 400, 0, 600, 0}, ACL_INT32);
  make(out1, {5, 30}, ACL_FLOAT16);
  ASSERT_EQ(run(gy.t, sizes.t, out1.t, 2, 1), ACLNN_SUCCESS) << errmsg();
  EXPECT_EQ(out.storage, out1.storage);
}

TEST(GroupedBiasAddGrad, Empty1EmptyGradYFillsOutWithZeros) {  // GBAG-EMPTY-1 (not empty-untouched)
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    HostTensor gy, gi, out;
    make(gy, {0, 30}, dt);
    make_idx(gi, {0, 0});
    make(out, {2, 30}, dt);
    ASSERT_EQ(run(gy.t, gi.t, out.t), ACLNN_SUCCESS) << errmsg();
    for (size_t i = 0; i < 60; ++i) EXPECT_EQ(out.get(i), 0.0) << i;
    // Without groupIdx: C = 0.
    HostTensor gy3, out3;
    make(gy3, {4, 0, 30}, dt);
    make(out3, {4, 30}, dt);
    ASSERT_EQ(run(gy3.t, nullptr, out3.t), ACLNN_SUCCESS) << errmsg();
    for (size_t i = 0; i < 120; ++i) EXPECT_EQ(out3.get(i), 0.0) << i;
  }
  // Empty gradY with NULL data, and an empty out (H = 0): success, nothing written.
  const int64_t d[] = {0, 30}, s[] = {30, 1}, sd[] = {0};
  aclTensor *gy = aclCreateTensor(d, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, sd, 1, nullptr);
  HostTensor gi, gi2, out, gyh, outh;
  make_idx(gi, {0});
  make(out, {1, 30}, ACL_FLOAT);
  ASSERT_EQ(run(gy, gi.t, out.t), ACLNN_SUCCESS) << errmsg();
  EXPECT_EQ(out.get(29), 0.0);
  aclDestroyTensor(gy);
  make(gyh, {5, 0}, ACL_FLOAT);
  make(outh, {2, 0}, ACL_FLOAT, {}, 0, 4);
  make_idx(gi2, {2, 5});
  uint64_t ws = 9;
  ASSERT_EQ(run(gyh.t, gi2.t, outh.t, 1, 0, &ws), ACLNN_SUCCESS) << errmsg();
  EXPECT_EQ(ws, 0u);
  EXPECT_TRUE(all_canary(outh));
}

TEST(GroupedBiasAddGrad, Special1InfAndNanPropagate) {  // GBAG-SPECIAL-1, VAL-OVERFLOW-1
  HostTensor gy, gi, out;
  make(gy, {6, 5}, ACL_FLOAT16);
  for (size_t i = 0; i < gy.elems(); ++i) gy.set(i, 1.0);
  // group 0: rows 0..2, group 1: rows 3..5
  gy.set(0 * 5 + 0, kInf);                              // inf + finite = inf
  gy.set(0 * 5 + 1, kInf), gy.set(1 * 5 + 1, -kInf);    // inf - inf = NaN
  gy.set(2 * 5 + 2, kNan);                              // NaN
  gy.set(0 * 5 + 3, -kInf), gy.set(1 * 5 + 3, -kInf);   // -inf
  gy.set(3 * 5 + 4, 65504), gy.set(4 * 5 + 4, 65504);   // overflows fp16: +inf
  gy.set(3 * 5 + 0, 65504), gy.set(4 * 5 + 0, -65504);  // exact cancellation: 1
  make_idx(gi, {3, 6});
  make(out, {2, 5}, ACL_FLOAT16);
  ASSERT_EQ(run(gy.t, gi.t, out.t), ACLNN_SUCCESS);
  EXPECT_EQ(out.get(0), kInf);
  EXPECT_TRUE(std::isnan(out.get(1)));
  EXPECT_TRUE(std::isnan(out.get(2)));
  EXPECT_EQ(out.get(3), -kInf);
  EXPECT_EQ(out.get(4), 3.0);
  EXPECT_EQ(out.get(5), 1.0);
  EXPECT_EQ(out.get(9), kInf);
}

TEST(GroupedBiasAddGrad, StridedGradYEqualsContiguousBitwise) {  // ABI-TENSOR-2
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
    // gradY (1000, 30) as the transpose of a (30, 1000) storage, with offset 3.
    HostTensor gyc, gyt, gi, outc, outt;
    make(gyc, {1000, 30}, dt);
    fill_random(gyc, 5);
    make(gyt, {1000, 30}, dt, {1, 1000}, 3, 30003);
    for (int64_t r = 0; r < 1000; ++r)
      for (int64_t h = 0; h < 30; ++h) gyt.set(3 + r + 1000 * h, gyc.get(r * 30 + h));
    make_idx(gi, {400, 600, 1000});
    make(outc, {3, 30}, dt);
    make(outt, {3, 30}, dt);
    ASSERT_EQ(run(gyc.t, gi.t, outc.t), ACLNN_SUCCESS);
    ASSERT_EQ(run(gyt.t, gi.t, outt.t), ACLNN_SUCCESS) << errmsg();
    EXPECT_EQ(outc.storage, outt.storage);  // same additions in the same order
    // 3-D: (10, 100, 30) as a permuted view of a (100, 10, 30) storage, rows with a gap.
    HostTensor g3c, g3p, o3c, o3p;
    make(g3c, {10, 100, 30}, dt);
    fill_random(g3c, 6);
    make(g3p, {10, 100, 30}, dt, {32, 320, 1}, 0, 32000);
    for (int g = 0; g < 10; ++g)
      for (int c = 0; c < 100; ++c)
        for (int h = 0; h < 30; ++h) g3p.set(g * 32 + c * 320 + h, g3c.get((g * 100 + c) * 30 + h));
    make(o3c, {10, 30}, dt);
    make(o3p, {10, 30}, dt);
    ASSERT_EQ(run(g3c.t, nullptr, o3c.t), ACLNN_SUCCESS);
    ASSERT_EQ(run(g3p.t, nullptr, o3p.t), ACLNN_SUCCESS) << errmsg();
    EXPECT_EQ(o3c.storage, o3p.storage);
  }
}

// 16-bit rows are summed eight at a time in float as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) +
// (r6 + r7)) (simd::accumulate_rows_f64); other views must add in the same order. Three bfloat16
// columns whose exact sums lie just above the midpoint 1 + 2^-8 tell the orders apart. Column 0
// loses its 2^-24 in the tree (a float tie, to even) and rounds down to 1, where a double sum
// rounds up. Columns 1 and 2 keep 3 2^-26 + 3 2^-26 as one float addition, which moves 1 + 2^-8
// up a float ulp, and round up, where adding them one at a time in float loses both and rounds
// down (column 1: the left subtree, column 2: the right). All are within the bound.
TEST(GroupedBiasAddGrad, SixteenBitRowsSumInFloatTreesInEveryLayout) {  // ABI-TENSOR-2, VAL-TOL-1
  const std::vector<std::vector<double>> cols = {{1, 0x1p-8, 0x1p-25, 0x1p-25, 0, 0, 0, -0x1p-26},
                                                 {1, 0x1p-8, 0x3p-26, 0x3p-26, 0, 0, 0, 0},
                                                 {0, 0, 0, 0, 1, 0x1p-8, 0x3p-26, 0x3p-26}};
  HostTensor gyc, gyt, gi, outc, outt;
  make(gyc, {8, 3}, ACL_BF16);
  make(gyt, {8, 3}, ACL_BF16, {1, 8}, 0, 24);  // the transpose of a (3, 8) storage
  for (int r = 0; r < 8; ++r) {
    for (int h = 0; h < 3; ++h) {
      gyc.set(r * 3 + h, cols[h][r]);
      gyt.set(r + 8 * h, cols[h][r]);
    }
  }
  make_idx(gi, {8});
  make(outc, {1, 3}, ACL_BF16);
  make(outt, {1, 3}, ACL_BF16);
  ASSERT_EQ(run(gyc.t, gi.t, outc.t), ACLNN_SUCCESS) << errmsg();
  ASSERT_EQ(run(gyt.t, gi.t, outt.t), ACLNN_SUCCESS) << errmsg();
  EXPECT_EQ(outc.get(0), 1.0);
  EXPECT_EQ(outc.get(1), 1.0 + 0x1p-7);
  EXPECT_EQ(outc.get(2), 1.0 + 0x1p-7);
  EXPECT_EQ(outc.storage, outt.storage);
  for (int h = 0; h < 3; ++h) {
    std::vector<double> terms;
    for (int r = 0; r < 8; ++r) terms.push_back(gyc.get(r * 3 + h));
    EXPECT_TRUE(within_bound(terms, outc.get(h), ACL_BF16)) << h;
  }
}

// ACLNN_CPU_GBAG_FLOAT=0: 16-bit rows one at a time in double. fp16 values are multiples of
// 2^-24 below 2^16, so sums of up to 8192 of them are exact in double and every output is the
// correctly rounded exact sum; the columns of the test above then round as the exact sums do.
TEST(GroupedBiasAddGrad, SixteenBitRowsInDoubleOnRequest) {  // VAL-TOL-1
  ScopedEnv env("ACLNN_CPU_GBAG_FLOAT", "0");
  HostTensor gy, gi, out;
  make(gy, {3000, 7}, ACL_FLOAT16);
  std::mt19937 rng(12);
  for (size_t i = 0; i < gy.elems(); ++i) {  // significands and exponents over fp16's range
    const double m = std::uniform_real_distribution<double>(-1, 1)(rng);
    gy.set(i, std::ldexp(m, static_cast<int>(rng() % 36) - 24));  // rounded to fp16
  }
  make_idx(gi, {1000, 3000});
  make(out, {2, 7}, ACL_FLOAT16);
  ASSERT_EQ(run(gy.t, gi.t, out.t), ACLNN_SUCCESS) << errmsg();
  for (int g = 0; g < 2; ++g)
    for (int h = 0; h < 7; ++h) {
      double exact = 0;  // exact: integers times 2^-24 below 2^53
      for (int r = g == 0 ? 0 : 1000; r < (g == 0 ? 1000 : 3000); ++r) exact += gy.get(r * 7 + h);
      HostTensor want;
      make(want, {1}, ACL_FLOAT16);
      want.set(0, exact);  // one rounding to fp16
      EXPECT_EQ(out.get(g * 7 + h), want.get(0)) << "group " << g << " column " << h;
    }
  // The bfloat16 column that the float tree rounds down: in double it rounds up, in both layouts.
  HostTensor bc, bt, b1, ob, obt;
  const std::vector<double> col = {1, 0x1p-8, 0x1p-25, 0x1p-25, 0, 0, 0, -0x1p-26};
  make(bc, {8, 2}, ACL_BF16);
  make(bt, {8, 2}, ACL_BF16, {1, 8}, 0, 16);  // the transpose of a (2, 8) storage
  for (int r = 0; r < 8; ++r)
    for (int h = 0; h < 2; ++h) bc.set(2 * r + h, col[r]), bt.set(r + 8 * h, col[r]);
  make_idx(b1, {8});
  make(ob, {1, 2}, ACL_BF16);
  make(obt, {1, 2}, ACL_BF16);
  ASSERT_EQ(run(bc.t, b1.t, ob.t), ACLNN_SUCCESS) << errmsg();
  ASSERT_EQ(run(bt.t, b1.t, obt.t), ACLNN_SUCCESS) << errmsg();
  for (int h = 0; h < 2; ++h) {
    EXPECT_EQ(ob.get(h), 1.0 + 0x1p-7);
    EXPECT_EQ(obt.get(h), 1.0 + 0x1p-7);
  }
}

TEST(GroupedBiasAddGrad, StorageAroundOutViewUnchanged) {  // ABI-INPUT-1
  Seed1 a;
  HostTensor out;
  // out (3, 30) with row stride 37 and offset 5 inside a 3 x 37 + 10 storage.
  make(out, {3, 30}, ACL_FLOAT, {37, 1}, 5, 3 * 37 + 10);
  const std::vector<unsigned char> before = out.storage;
  ASSERT_EQ(run(a.gy.t, a.gi.t, out.t), ACLNN_SUCCESS) << errmsg();
  for (size_t e = 0; e < out.elems(); ++e) {
    const bool inside = e >= 5 && (e - 5) / 37 < 3 && (e - 5) % 37 < 30;
    if (!inside) {
      for (size_t b = 0; b < 4; ++b)
        ASSERT_EQ(out.storage[4 * e + b], before[4 * e + b]) << "element " << e;
    }
  }
  EXPECT_EQ(out.storage.back(), kCanary);
  HostTensor ref;
  make(ref, {3, 30}, ACL_FLOAT);
  ASSERT_EQ(run(a.gy.t, a.gi.t, ref.t), ACLNN_SUCCESS);
  for (int g = 0; g < 3; ++g)
    for (int h = 0; h < 30; ++h) EXPECT_EQ(out.get(5 + 37 * g + h), ref.get(30 * g + h));
}

// Many rows per group, several blocks, a workspace: exact bound and bitwise equality across
// thread counts (VAL-DET-1).
TEST(GroupedBiasAddGrad, DeterministicAcrossThreadCounts) {  // VAL-DET-1, GBAG-VALUE-3
  HostTensor gy, gi, g3;
  make(gy, {6000, 600}, ACL_FLOAT);
  fill_random(gy, 7, 100.0);
  make_idx(gi, {10, 3000, 3000, 6000});
  make(g3, {3, 2100, 40}, ACL_BF16);
  fill_random(g3, 8);
  std::vector<std::vector<unsigned char>> r2, r3;
  for (const char *threads : {"1", "2", "5"}) {
    ScopedEnv env("ACLNN_CPU_NUM_THREADS", threads);
    HostTensor out, out3;
    make(out, {4, 600}, ACL_FLOAT);
    uint64_t ws = 0;
    ASSERT_EQ(run(gy.t, gi.t, out.t, 1, 0, &ws), ACLNN_SUCCESS);
    EXPECT_GT(ws, 0u);  // several blocks per group
    r2.push_back(out.storage);
    make(out3, {3, 40}, ACL_BF16);
    ASSERT_EQ(run(g3.t, nullptr, out3.t), ACLNN_SUCCESS);
    r3.push_back(out3.storage);
    if (r2.size() == 1) {
      check_groups_2d(gy, 600, {10, 3000, 3000, 6000}, out);
      for (int g = 0; g < 3; ++g)
        for (int h = 0; h < 40; ++h) {
          std::vector<double> terms;
          for (int c = 0; c < 2100; ++c) terms.push_back(g3.get((g * 2100 + c) * 40 + h));
          EXPECT_TRUE(within_bound(terms, out3.get(g * 40 + h), ACL_BF16));
        }
    }
  }
  EXPECT_EQ(r2[0], r2[1]);
  EXPECT_EQ(r2[0], r2[2]);
  EXPECT_EQ(r3[0], r3[1]);
  EXPECT_EQ(r3[0], r3[2]);
}

TEST(GroupedBiasAddGrad, CancellationIsExactEnough) {  // VAL-TOL-1 condition-aware bound
  // Large terms that cancel: the exact sum is small; float accumulation would lose it.
  HostTensor gy, gi, out;
  make(gy, {4001, 2}, ACL_FLOAT);
  for (int r = 0; r < 4000; ++r) {
    gy.set(2 * r, (r % 2 ? -1.0 : 1.0) * 3.0e7);
    gy.set(2 * r + 1, (r % 2 ? -1.0 : 1.0) * (1 + r * 0x1p-20));
  }
  gy.set(8000, 0.375);
  gy.set(8001, 1e-3);
  make_idx(gi, {4001});
  make(out, {1, 2}, ACL_FLOAT);
  ASSERT_EQ(run(gy.t, gi.t, out.t), ACLNN_SUCCESS);
  EXPECT_EQ(out.get(0), 0.375);
  double exact = 0;  // -2000 * 2^-20 + 1e-3f, exact in double
  for (int r = 0; r < 4000; ++r) exact += (r % 2 ? -1.0 : 1.0) * (1 + r * 0x1p-20);
  exact += static_cast<double>(1e-3f);
  EXPECT_EQ(out.get(1), static_cast<double>(static_cast<float>(exact)));
}

// ---- the row accumulation on every SIMD target ---------------------------------------------
// impl/kernels/grouped_bias_add_grad-inl.hpp's AccumulateF64 and AccumulateRowsF64, reached through
// the dispatching functions of impl/grouped_bias_add_grad.cpp (declared here: no header names
// them).
class GroupedBiasAddGradRows : public aclnn_test::SimdTargetTest {};
ACLNN_INSTANTIATE_SIMD_TARGETS(GroupedBiasAddGradRows);

// acc += widened src, element by element, one rounded double addition each (as the scalar loop).
TEST_P(GroupedBiasAddGradRows, AccumulateLikeTheScalarLoop) {
  std::mt19937_64 rng(7);
  for (size_t n : {size_t{1}, size_t{7}, size_t{37}, size_t{1000}}) {
    std::vector<float> f(n);
    std::vector<uint16_t> h(n), b(n);
    std::vector<double> acc0(n);
    for (size_t i = 0; i < n; ++i) {
      f[i] = std::bit_cast<float>(static_cast<uint32_t>(rng()) & 0xbfffffffu);  // finite
      h[i] = static_cast<uint16_t>(rng());
      b[i] = static_cast<uint16_t>(rng());
      acc0[i] = std::ldexp(static_cast<double>(rng() >> 11), -40);
    }
    std::vector<double> a1 = acc0, a2 = acc0, a3 = acc0;
    aclnn_cpu::gbag::accumulate_f64(1, f.data(), a1.data(), n);
    aclnn_cpu::gbag::accumulate_f64(2, h.data(), a2.data(), n);
    aclnn_cpu::gbag::accumulate_f64(3, b.data(), a3.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const auto same = [](double x, double y) {
        return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y) ||
               (std::isnan(x) && std::isnan(y));
      };
      ASSERT_TRUE(same(a1[i], acc0[i] + static_cast<double>(f[i]))) << i;
      ASSERT_TRUE(same(a2[i], acc0[i] + static_cast<double>(half_to_float(h[i])))) << i;
      ASSERT_TRUE(same(a3[i], acc0[i] + static_cast<double>(bf16_to_float(b[i])))) << i;
    }
  }
}

// The row accumulation's documented order (impl/kernels/grouped_bias_add_grad-inl.hpp), written out
// element by element: FLOAT rows one after the other; 16-bit rows in blocks of eight from the
// first, each column's block summed in float as
// ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) (its sequential double sum where that is not
// finite), rows after the last block one at a time.
std::vector<double> accumulate_rows_model(int kind, const unsigned char *src, size_t stride,
                                          size_t rows, std::vector<double> acc) {
  const size_t n = acc.size();
  const auto value = [&](size_t r, size_t i) {
    const unsigned char *e = src + r * stride + i * (kind == 1 ? 4 : 2);
    if (kind == 1) {
      float f;
      std::memcpy(&f, e, 4);
      return f;
    }
    uint16_t h;
    std::memcpy(&h, e, 2);
    return kind == 2 ? half_to_float(h) : bf16_to_float(h);
  };
  size_t r = 0;
  if (kind != 1)
    for (; r + 8 <= rows; r += 8)
      for (size_t i = 0; i < n; ++i) {
        float v[8];
        for (size_t k = 0; k < 8; ++k) v[k] = value(r + k, i);
        const float t = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
        double q = v[0];
        for (size_t k = 1; k < 8; ++k) q += v[k];
        acc[i] += std::isfinite(t) ? static_cast<double>(t) : q;
      }
  for (; r < rows; ++r)
    for (size_t i = 0; i < n; ++i) acc[i] += value(r, i);
  return acc;
}

// Several rows at once give the bits of the model above (FLOAT: of one row after the other), for
// row counts below, at and above a multiple of the pass and a partial last vector, with and
// without prefetching, as eight streams and as one; rows are read at the given byte stride only
// (the gaps hold NaN patterns). bfloat16 rows include values near float's largest, whose float sums
// overflow where the exact sum need not (the lane then takes the double sum).
TEST_P(GroupedBiasAddGradRows, AccumulateInTheDocumentedOrder) {
  std::mt19937_64 rng(11);
  for (int kind : {1, 2, 3}) {
    const size_t es = kind == 1 ? 4 : 2;
    for (size_t n : {size_t{1}, size_t{7}, size_t{37}, size_t{1000}}) {
      for (size_t rows : {0, 1, 3, 4, 5, 7, 8, 9, 16, 19, 24}) {
        const size_t stride = (n + 3) * es;  // gaps between rows, filled with NaN patterns
        std::vector<unsigned char> src(rows * stride + 8, 0xff);
        for (size_t r = 0; r < rows; ++r)
          for (size_t i = 0; i < n; ++i) {
            unsigned char *e = src.data() + r * stride + i * es;
            if (kind == 1) {
              const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()) & 0xbfffffffu);
              std::memcpy(e, &f, 4);
            } else {
              auto h = static_cast<uint16_t>(rng() & 0xbfff);  // finite, below 2
              if (kind == 3 && rng() % 4 == 0)  // [2^127, 2^128): finite, two overflow float
                h = static_cast<uint16_t>((h & 0x807f) | 0x7f00);
              std::memcpy(e, &h, 2);
            }
          }
        std::vector<double> acc0(n);
        for (auto &a : acc0) a = std::ldexp(static_cast<double>(rng() >> 11), -40);
        const std::vector<double> want =
            accumulate_rows_model(kind, src.data(), stride, rows, acc0);
        if (kind == 1) {  // and the model is one row after the other
          std::vector<double> one = acc0;
          for (size_t r = 0; r < rows; ++r)
            aclnn_cpu::gbag::accumulate_f64(kind, src.data() + r * stride, one.data(), n);
          ASSERT_EQ(one, want);
        }
        // In cache; from memory as eight streams; from memory as one stream, the next row or
        // (alone) 8 KB ahead.
        for (aclnn_cpu::gbag::RowRead read :
             {aclnn_cpu::gbag::kInCache, aclnn_cpu::gbag::kEightStreams,
              aclnn_cpu::gbag::kOneStream, aclnn_cpu::gbag::kOneStreamAlone}) {
          std::vector<double> batched = acc0;
          aclnn_cpu::gbag::accumulate_rows_f64(kind, src.data(), static_cast<ptrdiff_t>(stride),
                                               rows, batched.data(), n, read);
          for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(std::bit_cast<uint64_t>(want[i]), std::bit_cast<uint64_t>(batched[i]))
                << "kind " << kind << " n " << n << " rows " << rows << " i " << i << " read "
                << read << ": " << want[i] << " against " << batched[i];
        }
      }
    }
  }
}

}  // namespace
