// aclnnLayerNormBackward through the ABI (spec layer_norm_backward.md): every error clause in its
// order with outputs left untouched, the two-phase protocol, masks, dtypes, shapes of mean/rstd,
// empty inputs, special values, views, thread-count determinism and accuracy against exact MPFR
// sums (VAL-TOL-1).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "impl/dtype.hpp"
#include "impl/simd.hpp"
#include "impl/tensor.hpp"
#include "tests/support/abi_expect.hpp"
#include "tests/support/host_tensor.hpp"
#include "tests/support/scoped_env.hpp"

namespace {

using aclnn_cpu::dtype_size;
using aclnn_cpu::load_as_double;
using aclnn_cpu::store_from_double;

// ---- host tensors (tests/support/host_tensor.hpp) -------------------------------------------

using HostTensor = aclnn_test::ViewTensor;
using TensorPtr = std::unique_ptr<HostTensor>;

using aclnn_test::make_view;  // canary-filled storage, values written in
using aclnn_test::ScopedEnv;

// ---- a complete call -----------------------------------------------------------------------

struct Args {
  const aclTensor *dy = nullptr, *x = nullptr;
  const aclIntArray *ns = nullptr;
  const aclTensor *mean = nullptr, *rstd = nullptr, *w = nullptr, *b = nullptr;
  const aclBoolArray *mask = nullptr;
  aclTensor *gi = nullptr, *gw = nullptr, *gb = nullptr;
};

aclnnStatus phase_one(const Args &a, uint64_t *ws, aclOpExecutor **ex) {
  return aclnnLayerNormBackwardGetWorkspaceSize(a.dy, a.x, a.ns, a.mean, a.rstd, a.w, a.b, a.mask,
                                                a.gi, a.gw, a.gb, ws, ex);
}

// Both phases; the workspace is allocated as the vendor's examples do.
aclnnStatus run_op(const Args &a, uint64_t *ws_out = nullptr) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const aclnnStatus st = phase_one(a, &ws, &ex);
  if (ws_out) *ws_out = ws;
  if (st != ACLNN_SUCCESS) return st;
  void *mem = nullptr;
  if (ws > 0 && aclrtMalloc(&mem, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
  const aclnnStatus st2 = aclnnLayerNormBackward(mem, ws, ex, nullptr);
  if (mem) aclrtFree(mem);
  return st2;
}

struct Case {
  std::vector<int64_t> lead, ns;
  int64_t m = 1, n = 1;
  TensorPtr dy, x, mean, rstd, w, b, gi, gw, gb;
  aclIntArray *ns_arr = nullptr;
  aclBoolArray *mask_arr = nullptr;

  Case() = default;
  Case(const Case &) = delete;
  ~Case() {
    if (ns_arr) aclDestroyIntArray(ns_arr);
    if (mask_arr) aclDestroyBoolArray(mask_arr);
  }
  std::vector<int64_t> in_dims() const {
    std::vector<int64_t> d = lead;
    d.insert(d.end(), ns.begin(), ns.end());
    return d;
  }
  void set_mask(std::vector<bool> m3) {
    if (mask_arr) aclDestroyBoolArray(mask_arr);
    bool v[8];
    for (size_t i = 0; i < m3.size(); ++i) v[i] = m3[i];
    mask_arr = aclCreateBoolArray(v, m3.size());
  }
  Args args() const {
    Args a;
    a.dy = dy ? dy->t : nullptr;
    a.x = x ? x->t : nullptr;
    a.ns = ns_arr;
    a.mean = mean ? mean->t : nullptr;
    a.rstd = rstd ? rstd->t : nullptr;
    a.w = w ? w->t : nullptr;
    a.b = b ? b->t : nullptr;
    a.mask = mask_arr;
    a.gi = gi ? gi->t : nullptr;
    a.gw = gw ? gw->t : nullptr;
    a.gb = gb ? gb->t : nullptr;
    return a;
  }
  // Output storages (canary and values), to prove an output untouched.
  std::vector<std::vector<unsigned char>> snapshot() const {
    std::vector<std::vector<unsigned char>> s;
    for (const TensorPtr *o : {&gi, &gw, &gb})
      s.push_back(*o ? (*o)->storage : std::vector<unsigned char>{});
    return s;
  }
};

struct CaseOptions {
  aclDataType dtype = ACL_FLOAT;                   // gradOut, input, gradInputOut
  aclDataType stat_dtype = ACL_FLOAT;              // mean, rstd
  std::optional<aclDataType> w_dtype = ACL_FLOAT;  // nullopt: no weight
  std::optional<aclDataType> b_dtype = std::nullopt;
  bool cancel = false;  // cancellation-heavy rows: large values that nearly cancel
  uint64_t seed = 1;
  std::vector<int64_t> stat_dims;  // default: [lead..., 1...]
};

double round_to(aclDataType t, double v) {
  unsigned char buf[8];
  store_from_double(buf, t, v);
  return load_as_double(buf, t);
}

// A valid case with random data; mean and rstd are near the rows' statistics (rounded to their
// dtype: the op uses them as given); outputs canary-filled.
std::unique_ptr<Case> make_case(std::vector<int64_t> lead, std::vector<int64_t> ns,
                                const CaseOptions &o = {}) {
  auto c = std::make_unique<Case>();
  c->lead = lead;
  c->ns = ns;
  c->m = aclnn_cpu::numel(lead);
  c->n = aclnn_cpu::numel(ns);
  const int64_t m = c->m, n = c->n;
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(m * n), dy(m * n), mean(m), rstd(m);
  for (int64_t r = 0; r < m; ++r) {
    // fp16 keeps its cancellation cases inside its range (max 65504).
    const bool h = o.dtype == ACL_FLOAT16;
    const double center = o.cancel ? (h ? 200.0 : 1000.0) * (1 + (r % 3)) : 3 * u(rng);
    const double scale = o.cancel ? (h ? 0.5 : 1e-2) : 1.0 + 2 * std::fabs(u(rng));
    const double big = h ? 30.0 : 1e3;
    double sum = 0, sq = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double v = round_to(o.dtype, center + scale * u(rng));
      x[r * n + j] = v;
      sum += v;
    }
    const double mu = n ? sum / n : 0;
    for (int64_t j = 0; j < n; ++j) sq += (x[r * n + j] - mu) * (x[r * n + j] - mu);
    mean[r] = round_to(o.stat_dtype, mu);
    rstd[r] = round_to(o.stat_dtype, 1.0 / std::sqrt((n ? sq / n : 0) + 1e-5));
    for (int64_t j = 0; j < n; ++j) {
      // Cancellation: large dy of alternating sign, so row and column sums nearly cancel.
      const double v = o.cancel ? ((j + r) % 2 ? big : -big) + u(rng) : 2 * u(rng);
      dy[r * n + j] = round_to(o.dtype, v);
    }
  }
  const std::vector<int64_t> in = c->in_dims();
  c->x = make_view(in, o.dtype, x);
  c->dy = make_view(in, o.dtype, dy);
  std::vector<int64_t> sd = o.stat_dims;
  if (sd.empty()) {
    sd = lead;
    sd.insert(sd.end(), ns.size(), 1);
  }
  c->mean = make_view(sd, o.stat_dtype, mean);
  c->rstd = make_view(sd, o.stat_dtype, rstd);
  if (o.w_dtype) {
    std::vector<double> w(n);
    for (auto &v : w) v = round_to(*o.w_dtype, 1.0 + 0.5 * u(rng));
    c->w = make_view(ns, *o.w_dtype, w);
  }
  if (o.b_dtype) {
    std::vector<double> b(n);
    for (auto &v : b) v = round_to(*o.b_dtype, u(rng));
    c->b = make_view(ns, *o.b_dtype, b);
  }
  c->gi = make_view(in, o.dtype);
  c->gw = make_view(ns, ACL_FLOAT);
  c->gb = make_view(ns, ACL_FLOAT);
  c->ns_arr = aclCreateIntArray(ns.data(), ns.size());
  c->set_mask({true, true, true});
  return c;
}

bool bits_equal(const std::vector<unsigned char> &a, const std::vector<unsigned char> &b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// ---- expectations for failing calls --------------------------------------------------------

// The call fails with `code`; no output storage changed; the message names `param` and `clause`.
void expect_phase_one_fails(const Case &c, const Args &a, aclnnStatus code,
                            const std::string &param, const std::string &clause) {
  const auto before = c.snapshot();
  uint64_t ws = 12345;
  aclOpExecutor *ex = nullptr;
  const aclnnStatus got = phase_one(a, &ws, &ex);
  EXPECT_EQ(ex, nullptr);
  const auto after = c.snapshot();
  bool untouched = before.size() == after.size();
  for (size_t i = 0; untouched && i < before.size(); ++i)
    untouched = bits_equal(before[i], after[i]);
  aclnn_test::expect_failure(got, code, param, clause, untouched);
}

// ---- an independent reference in long double (for hand-checkable cases) -------------------

struct Expected {
  std::vector<long double> gi, gw, gb;
};
Expected reference(const Case &c) {
  const int64_t m = c.m, n = c.n;
  Expected e;
  e.gi.assign(m * n, 0);
  e.gw.assign(n, 0);
  e.gb.assign(n, 0);
  for (int64_t r = 0; r < m; ++r) {
    const long double mu = c.mean->get(r), rs = c.rstd->get(r);
    long double s1 = 0, s2 = 0;
    for (int64_t j = 0; j < n; ++j) {
      const long double w = c.w ? c.w->get(j) : 1.0L;
      const long double g = c.dy->get(r * n + j) * w, xh = (c.x->get(r * n + j) - mu) * rs;
      s1 += g;
      s2 += g * xh;
    }
    for (int64_t j = 0; j < n; ++j) {
      const long double w = c.w ? c.w->get(j) : 1.0L;
      const long double dy = c.dy->get(r * n + j), xh = (c.x->get(r * n + j) - mu) * rs;
      e.gi[r * n + j] = rs * (dy * w - s1 / n - xh * s2 / n);
      e.gw[j] += dy * xh;
      e.gb[j] += dy;
    }
  }
  return e;
}

// Close to the long double reference: within a few output ulps plus a cancellation allowance.
void expect_near_reference(const Case &c, const Expected &e, bool gi, bool gw, bool gb) {
  const double rel = c.gi->dtype == ACL_FLOAT     ? 0x1p-22
                     : c.gi->dtype == ACL_FLOAT16 ? 0x1p-9
                                                  : 0x1p-6;
  if (gi)
    for (int64_t i = 0; i < c.m * c.n; ++i)
      ASSERT_NEAR(c.gi->get(i), static_cast<double>(e.gi[i]),
                  rel * std::fabs(static_cast<double>(e.gi[i])) + 1e-6)
          << i;
  for (int64_t j = 0; j < c.n; ++j) {
    if (gw)
      ASSERT_NEAR(c.gw->get(j), static_cast<double>(e.gw[j]),
                  0x1p-22 * std::fabs(static_cast<double>(e.gw[j])) + 1e-6)
          << j;
    if (gb)
      ASSERT_NEAR(c.gb->get(j), static_cast<double>(e.gb[j]),
                  0x1p-22 * std::fabs(static_cast<double>(e.gb[j])) + 1e-6)
          << j;
  }
}

// =============================================================================================
// Values
// =============================================================================================

// LN-VALUE-1/2 on a case computed by hand. Row 0: x [1,2,3], mean 2, rstd 1 -> xhat [-1,0,1],
// dy [1,0,0]: sums 1 and -1, gradInput = dy - 1/3 + xhat/3 = [1/3, -1/3, 0]. Row 1: x [0,0,4],
// mean 1, rstd 0.5 -> xhat [-0.5,-0.5,1.5], dy [2,2,2]: sums 6 and 1, gradInput = -xhat/6 =
// [1/12, 1/12, -1/4]. gradWeight = [-1,0,0] + [-1,-1,3]; gradBias = [1,0,0] + [2,2,2].
TEST(LayerNormBackward, KnownValuesByHand_LN_VALUE_1_2) {
  auto c = make_case({2}, {3});
  for (int i = 0; i < 6; ++i) {
    c->x->set(i, std::vector<double>{1, 2, 3, 0, 0, 4}[i]);
    c->dy->set(i, std::vector<double>{1, 0, 0, 2, 2, 2}[i]);
  }
  c->mean->set(0, 2);
  c->mean->set(1, 1);
  c->rstd->set(0, 1);
  c->rstd->set(1, 0.5);
  c->w.reset();
  ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
  const std::vector<float> gi = {1.0f / 3, -1.0f / 3, 0.0f, 1.0f / 12, 1.0f / 12, -0.25f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c->gi->get(i), gi[i]) << i;
  const std::vector<double> gw = {-2, -1, 3}, gb = {3, 2, 2};
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(c->gw->get(j), gw[j]);
    EXPECT_EQ(c->gb->get(j), gb[j]);
  }
}

// Weight [1, 2, 0.5] on the same data: row 0: dy*w = [1,0,0] as before; row 1: dy*w = [2,4,1],
// sums 7 and -1 + -2 + 1.5 = -1.5: gradInput = 0.5 * (dy*w - 7/3 + xhat/2).
TEST(LayerNormBackward, KnownValuesWithWeight_LN_VALUE_1) {
  auto c = make_case({2}, {3});
  for (int i = 0; i < 6; ++i) {
    c->x->set(i, std::vector<double>{1, 2, 3, 0, 0, 4}[i]);
    c->dy->set(i, std::vector<double>{1, 0, 0, 2, 2, 2}[i]);
  }
  c->mean->set(0, 2);
  c->mean->set(1, 1);
  c->rstd->set(0, 1);
  c->rstd->set(1, 0.5);
  for (int j = 0; j < 3; ++j) c->w->set(j, std::vector<double>{1, 2, 0.5}[j]);
  ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
  const long double xh1[] = {-0.5L, -0.5L, 1.5L}, g1[] = {2, 4, 1};
  for (int j = 0; j < 3; ++j)
    EXPECT_EQ(c->gi->get(3 + j), static_cast<float>(0.5L * (g1[j] - 7.0L / 3 + xh1[j] / 2))) << j;
  // gradWeight and gradBias do not involve the weight (LN-VALUE-2).
  EXPECT_EQ(c->gw->get(2), 3.0);
  EXPECT_EQ(c->gb->get(0), 3.0);
}

TEST(LayerNormBackward, RandomFp32MatchesLongDoubleReference_LN_VALUE_1_2) {
  auto c = make_case({3, 5}, {4, 7});
  ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
  expect_near_reference(*c, reference(*c), true, true, true);
}

// Weight absent (ones) and present; fp16 input with a FLOAT weight; bf16; mean/rstd in another
// float dtype than the input (LN-DTYPE-1 allows it).
TEST(LayerNormBackward, WeightAbsentAndPresentAcrossDtypes_LN_DTYPE_1) {
  struct V {
    aclDataType dt, st;
    std::optional<aclDataType> w;
  };
  for (const V &v : {V{ACL_FLOAT, ACL_FLOAT, std::nullopt}, V{ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT},
                     V{ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT16},
                     V{ACL_FLOAT16, ACL_FLOAT, std::nullopt}, V{ACL_BF16, ACL_BF16, ACL_FLOAT},
                     V{ACL_BF16, ACL_FLOAT, ACL_BF16}, V{ACL_FLOAT, ACL_FLOAT16, ACL_FLOAT}}) {
    CaseOptions o;
    o.dtype = v.dt;
    o.stat_dtype = v.st;
    o.w_dtype = v.w;
    o.b_dtype = v.w;
    auto c = make_case({6}, {33}, o);
    ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    expect_near_reference(*c, reference(*c), true, true, true);
  }
}

// LN-BIAS-1: bias takes no part in the values.
TEST(LayerNormBackward, BiasDoesNotChangeValues_LN_BIAS_1) {
  CaseOptions o;
  o.b_dtype = ACL_FLOAT;
  auto c1 = make_case({4}, {20}, o);
  auto c2 = make_case({4}, {20}, o);
  for (int j = 0; j < 20; ++j) c2->b->set(j, 1000.0 + j);
  ASSERT_EQ(run_op(c1->args()), ACLNN_SUCCESS);
  ASSERT_EQ(run_op(c2->args()), ACLNN_SUCCESS);
  EXPECT_TRUE(bits_equal(c1->gi->storage, c2->gi->storage));
  EXPECT_TRUE(bits_equal(c1->gw->storage, c2->gw->storage));
  EXPECT_TRUE(bits_equal(c1->gb->storage, c2->gb->storage));
}

// LN-SHAPE-3: mean/rstd as [A1..Ai,1..1], [A1..Ai] and [M] give the same bits.
TEST(LayerNormBackward, MeanRstdShapeForms_LN_SHAPE_3) {
  std::vector<std::vector<unsigned char>> first;
  for (const std::vector<int64_t> &sd :
       {std::vector<int64_t>{3, 4, 1, 1}, std::vector<int64_t>{3, 4}, std::vector<int64_t>{12}}) {
    CaseOptions o;
    o.stat_dims = sd;
    auto c = make_case({3, 4}, {5, 6}, o);
    ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    if (first.empty())
      first = c->snapshot();
    else
      for (int i = 0; i < 3; ++i) EXPECT_TRUE(bits_equal(first[i], c->snapshot()[i])) << i;
  }
}

// LN-MASK-2: all eight masks; requested outputs equal the full run bitwise, unrequested ones are
// never written (canary intact) and may be NULL; workspace only when a column sum is requested.
TEST(LayerNormBackward, AllEightMasks_LN_MASK_2) {
  auto full = make_case({9}, {17});
  ASSERT_EQ(run_op(full->args()), ACLNN_SUCCESS);
  const auto want = full->snapshot();
  for (int bits = 0; bits < 8; ++bits) {
    const std::vector<bool> mask = {bool(bits & 1), bool(bits & 2), bool(bits & 4)};
    for (bool null_unrequested : {false, true}) {
      auto c = make_case({9}, {17});
      c->set_mask(mask);
      const auto canary = c->snapshot();
      Args a = c->args();
      if (null_unrequested) {
        if (!mask[0]) a.gi = nullptr;
        if (!mask[1]) a.gw = nullptr;
        if (!mask[2]) a.gb = nullptr;
      }
      uint64_t ws = 0;
      ASSERT_EQ(run_op(a, &ws), ACLNN_SUCCESS) << bits << aclGetRecentErrMsg();
      EXPECT_EQ(ws > 0, mask[1] || mask[2]) << bits;
      const auto got = c->snapshot();
      for (int k = 0; k < 3; ++k)
        EXPECT_TRUE(bits_equal(got[k], mask[k] ? want[k] : canary[k])) << bits << " output " << k;
    }
  }
}

// LN-EMPTY-1: M = 0 -> requested gradWeight/gradBias filled with 0, nothing else written.
TEST(LayerNormBackward, EmptyRowsZeroFillColumnSums_LN_EMPTY_1) {
  CaseOptions o;
  o.stat_dims = {0};
  auto c = make_case({0, 3}, {5}, o);
  // Storage around the (empty) gradInput view stays as it was.
  c->gi = make_view({0, 3, 5}, ACL_FLOAT, {}, std::nullopt, 2, 4);
  const auto before = c->snapshot();
  uint64_t ws = 99;
  ASSERT_EQ(run_op(c->args(), &ws), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u);
  for (int j = 0; j < 5; ++j) {
    EXPECT_EQ(c->gw->get(j), 0.0);
    EXPECT_EQ(c->gb->get(j), 0.0);
  }
  EXPECT_TRUE(bits_equal(c->gi->storage, before[0]));
  // Mask without gradBias: gradBias untouched.
  auto c2 = make_case({0}, {5}, o);
  c2->set_mask({true, true, false});
  const auto before2 = c2->snapshot();
  ASSERT_EQ(run_op(c2->args()), ACLNN_SUCCESS);
  EXPECT_EQ(c2->gw->get(4), 0.0);
  EXPECT_TRUE(bits_equal(c2->gb->storage, before2[2]));
}

// ABI-EMPTY-1 with N = 0: success, workspace 0, nothing written.
TEST(LayerNormBackward, EmptyRowsOfZeroLength_ABI_EMPTY_1) {
  auto c = make_case({3}, {0});
  c->gi = make_view({3, 0}, ACL_FLOAT, {}, std::nullopt, 1, 3);
  c->gw = make_view({0}, ACL_FLOAT, {}, std::nullopt, 1, 3);
  const auto before = c->snapshot();
  uint64_t ws = 99;
  ASSERT_EQ(run_op(c->args(), &ws), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u);
  const auto after = c->snapshot();
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(bits_equal(before[k], after[k]));
}

// LN-SPECIAL-1: one NaN in x makes its row's gradInput NaN and its column's gradWeight NaN; other
// rows, other columns and gradBias stay finite. An inf in dy does the same for gradBias.
TEST(LayerNormBackward, NanAndInfPropagate_LN_SPECIAL_1) {
  auto c = make_case({4}, {6});
  c->x->set(2 * 6 + 3, NAN);
  c->dy->set(1 * 6 + 5, INFINITY);
  ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t j = 0; j < 6; ++j) {
      const double v = c->gi->get(r * 6 + j);
      if (r == 2 || r == 1)
        EXPECT_TRUE(std::isnan(v) || std::isinf(v)) << r << "," << j << " " << v;
      else
        EXPECT_TRUE(std::isfinite(v)) << r << "," << j;
    }
  for (int j = 0; j < 6; ++j) EXPECT_TRUE(std::isnan(c->gi->get(2 * 6 + j))) << j;
  for (int64_t j = 0; j < 6; ++j) {
    if (j == 3)
      EXPECT_TRUE(std::isnan(c->gw->get(j)));
    else if (j == 5)
      EXPECT_TRUE(std::isinf(c->gw->get(j)) || std::isnan(c->gw->get(j)));
    else
      EXPECT_TRUE(std::isfinite(c->gw->get(j))) << j;
    if (j == 5)
      EXPECT_EQ(c->gb->get(j), INFINITY);
    else
      EXPECT_TRUE(std::isfinite(c->gb->get(j))) << j;
  }
}

// ABI-TENSOR-2 / ABI-INPUT-1: non-contiguous views, a zero-stride (expanded) gradOut, storage
// offsets and strided outputs give the bits of the contiguous call, and storage around the output
// views stays as it was.
TEST(LayerNormBackward, StridedOffsetAndExpandedViews_ABI_TENSOR_2) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    CaseOptions o;
    o.dtype = dt;
    auto c = make_case({4, 3}, {5, 8}, o);
    // gradOut rows repeat (stride 0 over the first dim): give the contiguous case the same data.
    for (int64_t i = 0; i < 4 * 3 * 40; ++i) c->dy->set(i, c->dy->get(i % 120));
    ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
    const auto want = c->snapshot();

    auto v = make_case({4, 3}, {5, 8}, o);
    const std::vector<int64_t> in = {4, 3, 5, 8};
    // input: a permuted layout (dims stored as [8,5,3,4] reversed) at offset 7.
    auto x = make_view(in, dt, {}, std::vector<int64_t>{1, 4, 12, 60}, 7, 5);
    for (int64_t i = 0; i < 480; ++i) x->set(i, c->x->get(i));
    // gradOut: expanded over dim 0, inner dims with a gap (row stride 2 elements per column).
    auto dy = make_view(in, dt, {}, std::vector<int64_t>{0, 100, 20, 2}, 3, 1);
    for (int64_t i = 0; i < 120; ++i) dy->set(i, c->dy->get(i));
    // mean/rstd [4,3,1,1] transposed in storage; weight with stride 3.
    auto mean = make_view({4, 3, 1, 1}, ACL_FLOAT, {}, std::vector<int64_t>{1, 4, 1, 1}, 2, 2);
    auto rstd = make_view({4, 3, 1, 1}, ACL_FLOAT, {}, std::vector<int64_t>{1, 4, 1, 1}, 0, 0);
    for (int64_t i = 0; i < 12; ++i) {
      mean->set(i, c->mean->get(i));
      rstd->set(i, c->rstd->get(i));
    }
    auto w = make_view({5, 8}, ACL_FLOAT, {}, std::vector<int64_t>{24, 3}, 1, 2);
    for (int64_t i = 0; i < 40; ++i) w->set(i, c->w->get(i));
    // Outputs: strided with offsets inside canary storage.
    auto gi = make_view(in, dt, {}, std::vector<int64_t>{400, 100, 20, 2}, 9, 11);
    auto gw = make_view({5, 8}, ACL_FLOAT, {}, std::vector<int64_t>{1, 5}, 4, 6);
    auto gb = make_view({5, 8}, ACL_FLOAT, {}, std::vector<int64_t>{16, 2}, 1, 3);
    Args a = c->args();
    a.x = x->t;
    a.dy = dy->t;
    a.mean = mean->t;
    a.rstd = rstd->t;
    a.w = w->t;
    a.gi = gi->t;
    a.gw = gw->t;
    a.gb = gb->t;
    const auto gi0 = gi->storage, gw0 = gw->storage, gb0 = gb->storage;
    ASSERT_EQ(run_op(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    for (int64_t i = 0; i < 480; ++i)
      ASSERT_TRUE(std::memcmp(&gi->storage[gi->pos(i) * gi->esize()],
                              &c->gi->storage[i * gi->esize()], gi->esize()) == 0)
          << i;
    for (int64_t i = 0; i < 40; ++i) {
      ASSERT_EQ(gw->get(i), c->gw->get(i)) << i;
      ASSERT_EQ(gb->get(i), c->gb->get(i)) << i;
    }
    // Every storage element outside the views is unchanged.
    const auto outside_unchanged = [](const HostTensor &t,
                                      const std::vector<unsigned char> &before) {
      std::vector<bool> in_view(before.size() / t.esize(), false);
      for (int64_t i = 0; i < t.numel(); ++i) in_view[t.pos(i)] = true;
      for (size_t e = 0; e < in_view.size(); ++e)
        if (!in_view[e] &&
            std::memcmp(&t.storage[e * t.esize()], &before[e * t.esize()], t.esize()) != 0)
          return false;
      return true;
    };
    EXPECT_TRUE(outside_unchanged(*gi, gi0));
    EXPECT_TRUE(outside_unchanged(*gw, gw0));
    EXPECT_TRUE(outside_unchanged(*gb, gb0));
  }
}

// Makes c's FLOAT column sums depend on how their terms are grouped: in each column, 32 pairs of
// rows at random get dy = +B and -B (B near 2^60, a different B per pair). The exact sums are those
// of the small terms, but in double a small term added while a B is outstanding is lost (its ulp
// is 256), and which ones are lost depends on where the row blocks begin: a block layout that
// changed with the thread count would change gradWeight and gradBias far beyond their float ulp.
void add_cancelling_pairs(Case &c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> row(0, c.m - 1);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  for (int64_t j = 0; j < c.n; ++j)
    for (int k = 0; k < 32; ++k) {
      const double big = static_cast<float>(0x1p60 * u(rng));
      c.dy->set(row(rng) * c.n + j, big);
      c.dy->set(row(rng) * c.n + j, -big);  // a pair whose rows collide leaves one B: also fine
    }
}

// VAL-DET-1 / LN-VALUE-3: 1, 2, 3 and 7 threads give the same bits, on a shape with many row
// blocks.
TEST(LayerNormBackward, BitwiseIdenticalForAnyThreadCount_VAL_DET_1) {
  // 4800 rows of 257: 38 blocks of 128 rows for the column sums (a block holds at least 8 rows and
  // 32768 elements). FLOAT takes the in-place path, FLOAT16 the gather/scatter path; gradInput
  // alone takes the row-parallel path without workspace. FLOAT's data make the column sums
  // sensitive to the grouping of their terms (add_cancelling_pairs; FLOAT16's products and sums
  // are exact in double for most data, so its rounded sums are not).
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (bool gi_only : {false, true}) {
      std::vector<std::vector<unsigned char>> first;
      for (const char *threads : {"1", "2", "3", "7"}) {
        ScopedEnv env("ACLNN_CPU_NUM_THREADS", threads);
        CaseOptions o;
        o.dtype = dt;
        o.cancel = true;
        auto c = make_case({4800}, {257}, o);
        if (dt == ACL_FLOAT) add_cancelling_pairs(*c, 7);
        if (gi_only) c->set_mask({true, false, false});
        ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
        if (first.empty())
          first = c->snapshot();
        else
          for (int k = 0; k < 3; ++k)
            EXPECT_TRUE(bits_equal(first[k], c->snapshot()[k])) << threads << " dtype " << dt;
      }
    }
  }
}

// =============================================================================================
// Accuracy against exact sums (VAL-TOL-1): |got - exact| <= 0.5 ulp_out(exact) + c sum|terms|.
// The library's design bounds, stricter than the spec's c = k u (k = ceil(log2 n) + 2, u = 2^-24
// for FLOAT accumulation):
// - double evaluation (gradWeight, gradBias, and gradInput rows below the float rows' sizes):
//   c = k 2^-53;
// - float gradInput rows (N >= 32 for FLOAT, N > 256 for 16-bit outputs): c = 5 u for FLOAT,
//   10 u for 16-bit outputs (the error analysis in impl/layer_norm_backward.cpp), which is below
//   the spec's k u for those N.
// Exact values by MPFR at 600 bits (every product and sum of these inputs is exact at that
// precision; only the division by N rounds, at 2^-600).
// =============================================================================================

struct Mp {
  mpfr_t v;
  Mp() { mpfr_init2(v, 600); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp &) = delete;
};

double ulp_out(aclDataType t, const mpfr_t exact) {
  const int mant = t == ACL_FLOAT ? 24 : t == ACL_FLOAT16 ? 11 : 8;
  const int emin = t == ACL_FLOAT ? -126 : t == ACL_FLOAT16 ? -14 : -126;
  if (mpfr_zero_p(exact)) return std::ldexp(1.0, emin - mant + 1);
  const long e = std::max<long>(mpfr_get_exp(exact) - 1, emin);  // floor(log2|exact|)
  return std::ldexp(1.0, static_cast<int>(e) - mant + 1);
}

int k_of(int64_t n) {
  return static_cast<int>(std::ceil(std::log2(std::max<int64_t>(n, 1)))) + 2;
}

// got within the bound of exact; returns the error in units of the bound for reporting.
// The design bound's c (above) for an output of n terms in dtype t; grad_input: gradInput, with
// float rows allowed (not under ACLNN_CPU_LN_FLOAT=0).
double coef_of(int64_t n, aclDataType t, bool grad_input) {
  if (grad_input && n >= (t == ACL_FLOAT ? 32 : 257)) return (t == ACL_FLOAT ? 5 : 10) * 0x1p-24;
  return k_of(n) * 0x1p-53;
}

::testing::AssertionResult within(double got, const mpfr_t exact, double sum_abs_terms, double coef,
                                  aclDataType t) {
  Mp diff;
  mpfr_set_d(diff.v, got, MPFR_RNDN);
  mpfr_sub(diff.v, diff.v, exact, MPFR_RNDN);
  mpfr_abs(diff.v, diff.v, MPFR_RNDN);
  // VAL-OVERFLOW-1: an exact value at or beyond max + half an ulp rounds to inf.
  const double overflow = t == ACL_FLOAT ? 0x1.ffffffp127 : t == ACL_FLOAT16 ? 65520.0 : 0x1.ffp127;
  if (mpfr_cmpabs_ui(exact, 0) > 0 && std::fabs(mpfr_get_d(exact, MPFR_RNDZ)) >= overflow) {
    if (std::isinf(got) && std::signbit(got) == (mpfr_sgn(exact) < 0))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << " for an exact value beyond range";
  }
  const double d = mpfr_get_d(diff.v, MPFR_RNDU);
  const double bound = 0.5 * ulp_out(t, exact) + coef * sum_abs_terms * (1 + 0x1p-20);
  if (std::isfinite(got) && d <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << " exact " << mpfr_get_d(exact, MPFR_RNDN)
                                       << " |diff| " << d << " > bound " << bound;
}

// float_rows: gradInput may have float rows (else every row is held to the double bound).
void check_accuracy(const Case &c, bool float_rows = true) {
  const int64_t m = c.m, n = c.n;
  Mp s1, s2, a1, a2, xh, g, t, e;
  std::vector<std::unique_ptr<Mp>> gw(n), gb(n);
  std::vector<double> gw_abs(n, 0), gb_abs(n, 0);
  for (int64_t j = 0; j < n; ++j) {
    gw[j] = std::make_unique<Mp>();
    gb[j] = std::make_unique<Mp>();
    mpfr_set_zero(gw[j]->v, 1);
    mpfr_set_zero(gb[j]->v, 1);
  }
  for (int64_t r = 0; r < m; ++r) {
    const double mu = c.mean->get(r), rs = c.rstd->get(r);
    mpfr_set_zero(s1.v, 1);
    mpfr_set_zero(s2.v, 1);
    mpfr_set_zero(a1.v, 1);
    mpfr_set_zero(a2.v, 1);
    for (int64_t j = 0; j < n; ++j) {
      const double dy = c.dy->get(r * n + j), w = c.w ? c.w->get(j) : 1.0;
      mpfr_set_d(xh.v, c.x->get(r * n + j), MPFR_RNDN);
      mpfr_sub_d(xh.v, xh.v, mu, MPFR_RNDN);
      mpfr_mul_d(xh.v, xh.v, rs, MPFR_RNDN);
      mpfr_set_d(g.v, dy, MPFR_RNDN);
      mpfr_mul_d(g.v, g.v, w, MPFR_RNDN);
      mpfr_add(s1.v, s1.v, g.v, MPFR_RNDN);
      mpfr_mul(t.v, g.v, xh.v, MPFR_RNDN);
      mpfr_add(s2.v, s2.v, t.v, MPFR_RNDN);
      mpfr_abs(t.v, t.v, MPFR_RNDN);
      mpfr_add(a2.v, a2.v, t.v, MPFR_RNDN);
      mpfr_abs(t.v, g.v, MPFR_RNDN);
      mpfr_add(a1.v, a1.v, t.v, MPFR_RNDN);
      // Column sums.
      mpfr_mul_d(t.v, xh.v, dy, MPFR_RNDN);
      mpfr_add(gw[j]->v, gw[j]->v, t.v, MPFR_RNDN);
      gw_abs[j] += std::fabs(mpfr_get_d(t.v, MPFR_RNDU));
      mpfr_add_d(gb[j]->v, gb[j]->v, dy, MPFR_RNDN);
      gb_abs[j] += std::fabs(dy);
    }
    const double abs1 = mpfr_get_d(a1.v, MPFR_RNDU) / n, abs2 = mpfr_get_d(a2.v, MPFR_RNDU) / n;
    for (int64_t j = 0; j < n; ++j) {
      const double dy = c.dy->get(r * n + j), w = c.w ? c.w->get(j) : 1.0;
      mpfr_set_d(xh.v, c.x->get(r * n + j), MPFR_RNDN);
      mpfr_sub_d(xh.v, xh.v, mu, MPFR_RNDN);
      mpfr_mul_d(xh.v, xh.v, rs, MPFR_RNDN);
      // exact = rs * (dy*w - s1/N - xhat*s2/N)
      mpfr_set_d(e.v, dy, MPFR_RNDN);
      mpfr_mul_d(e.v, e.v, w, MPFR_RNDN);
      mpfr_div_si(t.v, s1.v, static_cast<long>(n), MPFR_RNDN);
      mpfr_sub(e.v, e.v, t.v, MPFR_RNDN);
      mpfr_mul(t.v, xh.v, s2.v, MPFR_RNDN);
      mpfr_div_si(t.v, t.v, static_cast<long>(n), MPFR_RNDN);
      mpfr_sub(e.v, e.v, t.v, MPFR_RNDN);
      mpfr_mul_d(e.v, e.v, rs, MPFR_RNDN);
      const double terms = std::fabs(rs) * (std::fabs(dy * w) + abs1 +
                                            std::fabs(mpfr_get_d(xh.v, MPFR_RNDU)) * abs2);
      ASSERT_TRUE(within(c.gi->get(r * n + j), e.v, terms, coef_of(n, c.gi->dtype, float_rows),
                         c.gi->dtype))
          << "gradInput row " << r << " col " << j;
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    const double coef = coef_of(m, ACL_FLOAT, false);
    ASSERT_TRUE(within(c.gw->get(j), gw[j]->v, gw_abs[j], coef, ACL_FLOAT)) << "gradWeight " << j;
    ASSERT_TRUE(within(c.gb->get(j), gb[j]->v, gb_abs[j], coef, ACL_FLOAT)) << "gradBias " << j;
  }
}

TEST(LayerNormBackward, AccuracyAgainstExactSums_VAL_TOL_1) {
  struct V {
    aclDataType dt;
    bool cancel;
    std::vector<int64_t> lead, ns;
  };
  // FLOAT rows of 129, 201 and 24 elements (float, float, double gradInput); 16-bit rows of 64,
  // 100, 77 and 50 elements (double) and 300, 520 and 257 (float).
  for (const V &v : {V{ACL_FLOAT, false, {37}, {129}}, V{ACL_FLOAT, true, {7, 11}, {3, 67}},
                     V{ACL_FLOAT, true, {9}, {24}}, V{ACL_FLOAT16, false, {40}, {64}},
                     V{ACL_FLOAT16, true, {25}, {100}}, V{ACL_FLOAT16, true, {9}, {300}},
                     V{ACL_BF16, false, {19}, {77}}, V{ACL_BF16, true, {33}, {50}},
                     V{ACL_BF16, true, {5}, {520}}, V{ACL_BF16, false, {6}, {257}}}) {
    for (bool with_w : {false, true}) {
      CaseOptions o;
      o.dtype = v.dt;
      o.w_dtype = with_w ? std::optional<aclDataType>(ACL_FLOAT) : std::nullopt;
      o.cancel = v.cancel;
      o.seed = 7 + v.ns[0];
      auto c = make_case(v.lead, v.ns, o);
      ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
      SCOPED_TRACE(testing::Message()
                   << "dtype " << v.dt << " cancel " << v.cancel << " w " << with_w);
      check_accuracy(*c);
    }
  }
}

// ACLNN_CPU_LN_FLOAT=0: every gradInput row in double, held to the double bound (k 2^-53 S),
// which the float rows (errors near 5u S) do not meet.
TEST(LayerNormBackward, DoubleGradInputOnRequest_VAL_TOL_1) {
  ScopedEnv env("ACLNN_CPU_LN_FLOAT", "0");
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    CaseOptions o;
    o.dtype = dt;
    o.cancel = true;
    o.seed = 31;
    auto c = make_case({6}, {dt == ACL_FLOAT ? 129 : 300}, o);
    ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
    SCOPED_TRACE(testing::Message() << "dtype " << dt);
    check_accuracy(*c, false);
  }
}

// Float gradInput rows at the edges of float's range: a lane whose float intermediates overflow
// (dy * w = 1e40 with every input a finite float) must be recomputed in double, and lanes with
// subnormal products, in rows with a tiny c1 or a large rstd, must stay within the design bound.
// Without the lane fallback the overflowing lane is inf. FLOAT16: dy is at most 65504, so the
// product overflows through a FLOAT weight of 1e35, and rstd = 1e-36 brings the result back into
// binary16's range (the non-finite test that binary16 rows skip where their bound allows must
// stay for this row: without it the lane is inf).
TEST(LayerNormBackward, FloatRowsAtTheEdgesOfFloatRange_VAL_TOL_1) {
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16, ACL_FLOAT16}) {
    CaseOptions o;
    o.dtype = dt;
    o.seed = 99;
    const int64_t n = dt == ACL_FLOAT ? 64 : 300;
    auto c = make_case({4}, {n}, o);
    // Row 0: element 5 has dy * w = 1e40 (6.6e39 for FLOAT16; above float's range); x = mean
    // there, so xhat = 0 and c2 stays small; c1 = dy * w / n is a normal float, so the row is a
    // float row.
    const bool half = dt == ACL_FLOAT16;
    c->w->set(5, round_to(ACL_FLOAT, half ? 1e35 : 1e20));
    c->dy->set(5, round_to(dt, half ? 65504 : 1e20));
    c->x->set(5, c->mean->get(0));
    c->rstd->set(0, round_to(ACL_FLOAT, half ? 1e-36 : 1e-20));
    for (int64_t r = 1; r < 4; ++r) c->dy->set(r * n + 5, 0.0);  // other rows: dy * w = 0
    if (!half) {  // rows 1-3 need values beyond binary16's range
      // Row 1: subnormal dy (products below 2^-126) next to normal ones, rstd = 2^60.
      for (int64_t j = 0; j < n; j += 3) c->dy->set(n + j, round_to(dt, 0x1p-140 * (1 + j % 5)));
      c->rstd->set(1, 0x1p60);
      // Row 2: every dy tiny but normal (c1 about 2^-120, near the row condition's threshold).
      for (int64_t j = 0; j < n; ++j)
        c->dy->set(2 * n + j, round_to(dt, 0x1p-120 * ((j % 7) - 3.25)));
      c->rstd->set(2, 0x1p40);
      // Row 3: x - mean subnormal for some lanes (x next to mean), rstd = 2^-30.
      for (int64_t j = 0; j < n; j += 4) c->x->set(3 * n + j, c->mean->get(3));
      c->rstd->set(3, 0x1p-30);
    }
    ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
    EXPECT_TRUE(std::isfinite(c->gi->get(5))) << c->gi->get(5);
    SCOPED_TRACE(testing::Message() << "dtype " << dt);
    check_accuracy(*c);
  }
}

// =============================================================================================
// The two-phase protocol (ABI-TWOPHASE-2/3/4)
// =============================================================================================

TEST(LayerNormBackwardAbi, NullWorkspaceSizeOrExecutor_ABI_TWOPHASE_2) {
  auto c = make_case({4}, {8});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const auto before = c->snapshot();
  EXPECT_EQ(phase_one(c->args(), nullptr, &ex), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("workspaceSize"), std::string::npos);
  EXPECT_EQ(phase_one(c->args(), &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("executor"), std::string::npos);
  // Before any op-specific check: with gradOut also NULL, the executor is reported.
  Args a = c->args();
  a.dy = nullptr;
  EXPECT_EQ(phase_one(a, &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("executor"), std::string::npos);
  EXPECT_TRUE(bits_equal(before[0], c->snapshot()[0]));
}

TEST(LayerNormBackwardAbi, SecondPhaseChecks_ABI_TWOPHASE_3_4) {
  auto c = make_case({40}, {16});
  const auto before = c->snapshot();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(phase_one(c->args(), &ws, &ex), ACLNN_SUCCESS);
  ASSERT_GT(ws, 0u);  // column sums requested: block partials live in the workspace
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, ws, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, ws, ex, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  std::vector<double> mem(ws / 8 + 1);
  EXPECT_EQ(aclnnLayerNormBackward(mem.data(), ws - 1, ex, nullptr), ACLNN_ERR_PARAM_INVALID);
  // Nothing ran yet.
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(bits_equal(before[k], c->snapshot()[k]));
  EXPECT_EQ(aclnnLayerNormBackward(mem.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  const auto once = c->snapshot();
  EXPECT_EQ(aclnnLayerNormBackward(mem.data(), ws, ex, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_FALSE(std::string(aclGetRecentErrMsg()).empty());

  // A repeatable executor runs again with the same result, over a dirty workspace too.
  auto c2 = make_case({40}, {16});
  ASSERT_EQ(phase_one(c2->args(), &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  std::fill(mem.begin(), mem.end(), NAN);
  ASSERT_EQ(aclnnLayerNormBackward(mem.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(bits_equal(once[k], c2->snapshot()[k]));
  std::fill(mem.begin(), mem.end(), 12345.0);
  ASSERT_EQ(aclnnLayerNormBackward(mem.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(bits_equal(once[k], c2->snapshot()[k]));
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);

  // A misaligned workspace of the announced size works too.
  auto c3 = make_case({40}, {16});
  ASSERT_EQ(phase_one(c3->args(), &ws, &ex), ACLNN_SUCCESS);
  std::vector<unsigned char> raw(ws + 8);
  ASSERT_EQ(aclnnLayerNormBackward(raw.data() + 3, ws, ex, nullptr), ACLNN_SUCCESS);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(bits_equal(once[k], c3->snapshot()[k]));
}

// Phase one captures the views: the caller may destroy its tensors before phase two.
TEST(LayerNormBackwardAbi, ExecutorOutlivesTensorObjects_ABI_TWOPHASE_1) {
  auto ref = make_case({5}, {9});
  ASSERT_EQ(run_op(ref->args()), ACLNN_SUCCESS);
  auto c = make_case({5}, {9});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(phase_one(c->args(), &ws, &ex), ACLNN_SUCCESS);
  for (TensorPtr *t : {&c->dy, &c->x, &c->mean, &c->rstd, &c->w, &c->gi, &c->gw, &c->gb}) {
    aclDestroyTensor((*t)->t);
    (*t)->t = nullptr;
  }
  std::vector<double> mem(ws / 8 + 1);
  ASSERT_EQ(aclnnLayerNormBackward(mem.data(), ws, ex, nullptr), ACLNN_SUCCESS);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(bits_equal(ref->snapshot()[k], c->snapshot()[k]));
}

// =============================================================================================
// Errors, each clause in its order, outputs untouched, messages naming parameter and clause
// =============================================================================================

TEST(LayerNormBackwardErrors, RequiredNull_LN_NULL_1) {
  auto c = make_case({2}, {3});
  const char *names[] = {"gradOut", "input", "normalizedShape", "mean", "rstd", "outputMask"};
  for (int i = 0; i < 6; ++i) {
    Args a = c->args();
    switch (i) {
      case 0:
        a.dy = nullptr;
        break;
      case 1:
        a.x = nullptr;
        break;
      case 2:
        a.ns = nullptr;
        break;
      case 3:
        a.mean = nullptr;
        break;
      case 4:
        a.rstd = nullptr;
        break;
      default:
        a.mask = nullptr;
        break;
    }
    expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_NULLPTR, names[i], "LN-NULL-1");
  }
  // Weight and bias are optional; so are all outputs when the mask is all false.
  Args a = c->args();
  a.w = nullptr;
  a.b = nullptr;
  EXPECT_EQ(run_op(a), ACLNN_SUCCESS);
  // Signature order within the clause: input NULL and mean NULL -> input.
  a = c->args();
  a.x = nullptr;
  a.mean = nullptr;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_NULLPTR, "input", "LN-NULL-1");
}

TEST(LayerNormBackwardErrors, MaskLengthNotThree_LN_MASK_1) {
  auto c = make_case({2}, {3});
  for (size_t len : {0u, 1u, 2u, 4u}) {
    c->set_mask(std::vector<bool>(len, true));
    expect_phase_one_fails(*c, c->args(), ACLNN_ERR_PARAM_INVALID, "outputMask", "LN-MASK-1");
  }
  // LN-MASK-1 before LN-NULL-2: mask of length 2 and gradInputOut NULL -> 161002.
  c->set_mask({true, true});
  Args a = c->args();
  a.gi = nullptr;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "outputMask", "LN-MASK-1");
  // LN-NULL-1 before LN-MASK-1: rstd NULL and a mask of length 2 -> 161001.
  a = c->args();
  a.rstd = nullptr;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_NULLPTR, "rstd", "LN-NULL-1");
}

TEST(LayerNormBackwardErrors, RequestedOutputNull_LN_NULL_2) {
  auto c = make_case({2}, {3});
  const char *names[] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  for (int k = 0; k < 3; ++k) {
    Args a = c->args();
    (k == 0 ? a.gi : k == 1 ? a.gw : a.gb) = nullptr;
    expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_NULLPTR, names[k], "LN-NULL-2");
  }
  // LN-NULL-2 before LN-DTYPE-1: gradBiasOut NULL and an INT32 input -> 161001.
  auto bad = make_case({2}, {3});
  auto xi = make_view({2, 3}, ACL_INT32, {1, 2, 3, 4, 5, 6});
  Args a = bad->args();
  a.x = xi->t;
  a.gb = nullptr;
  expect_phase_one_fails(*bad, a, ACLNN_ERR_PARAM_NULLPTR, "gradBiasOut", "LN-NULL-2");
}

TEST(LayerNormBackwardErrors, InputDtypes_LN_DTYPE_1) {
  auto c = make_case({2}, {3});
  // Unsupported dtypes, each input in turn.
  auto i32 = make_view({2, 3}, ACL_INT32, {});
  auto f64 = make_view({2, 1}, ACL_DOUBLE, {});
  auto w_i8 = make_view({3}, ACL_INT8, {});
  {
    Args a = c->args();
    a.dy = i32->t;
    expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradOut", "LN-DTYPE-1");
    a = c->args();
    a.mean = f64->t;
    expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "mean", "LN-DTYPE-1");
    a = c->args();
    a.w = w_i8->t;
    expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "weightOptional", "LN-DTYPE-1");
    a = c->args();
    a.b = w_i8->t;
    expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "biasOptional", "LN-DTYPE-1");
  }
  // gradOut's dtype must equal input's.
  auto dy16 = make_view({2, 3}, ACL_FLOAT16, {});
  Args a = c->args();
  a.dy = dy16->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradOut", "LN-DTYPE-1");
  // mean's dtype must equal rstd's.
  auto mean16 = make_view({2, 1}, ACL_FLOAT16, {0, 0});
  a = c->args();
  a.mean = mean16->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "mean", "LN-DTYPE-1");
  // weight FLOAT16 with a FLOAT input: neither input's dtype nor FLOAT.
  auto w16 = make_view({3}, ACL_FLOAT16, {1, 1, 1});
  a = c->args();
  a.w = w16->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "weightOptional", "LN-DTYPE-1");
  // weight and bias present with different dtypes.
  CaseOptions o;
  o.dtype = ACL_FLOAT16;
  o.stat_dtype = ACL_FLOAT16;
  o.w_dtype = ACL_FLOAT;
  o.b_dtype = ACL_FLOAT16;
  auto h = make_case({2}, {3}, o);
  expect_phase_one_fails(*h, h->args(), ACLNN_ERR_PARAM_INVALID, "biasOptional", "LN-DTYPE-1");
  // Bias alone may be any supported float dtype.
  o.w_dtype = std::nullopt;
  auto h2 = make_case({2}, {3}, o);
  EXPECT_EQ(run_op(h2->args()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  // LN-DTYPE-1 before LN-DTYPE-2 and LN-SHAPE-*: an INT32 gradOut of the wrong shape together
  // with a FLOAT16 gradWeightOut -> the gradOut dtype is reported.
  auto i32_bad_shape = make_view({5, 5}, ACL_INT32, {});
  auto gw16 = make_view({3}, ACL_FLOAT16, {});
  a = c->args();
  a.dy = i32_bad_shape->t;
  a.gw = gw16->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradOut", "LN-DTYPE-1");
}

// ABI-SOC-1 / LN-DTYPE-1: BFLOAT16 only on Atlas A2 and A3.
TEST(LayerNormBackwardErrors, Bf16OnlyOnA2A3_LN_DTYPE_1) {
  CaseOptions o;
  o.dtype = ACL_BF16;
  o.stat_dtype = ACL_FLOAT;
  auto c = make_case({3}, {8}, o);
  for (const char *soc : {"ascend910", "ascend310p"}) {
    ScopedEnv env("ACLNN_CPU_SOC", soc);
    expect_phase_one_fails(*c, c->args(), ACLNN_ERR_PARAM_INVALID, "gradOut", "LN-DTYPE-1");
  }
  for (const char *soc : {"ascend910b", "ascend910_93"}) {
    ScopedEnv env("ACLNN_CPU_SOC", soc);
    EXPECT_EQ(run_op(c->args()), ACLNN_SUCCESS) << soc << aclGetRecentErrMsg();
  }
  // BF16 mean/rstd alone are rejected on the training product too; fp16 and fp32 run there.
  {
    CaseOptions o2;
    o2.stat_dtype = ACL_BF16;
    auto c2 = make_case({3}, {8}, o2);
    ScopedEnv env("ACLNN_CPU_SOC", "ascend910");
    expect_phase_one_fails(*c2, c2->args(), ACLNN_ERR_PARAM_INVALID, "mean", "LN-DTYPE-1");
    CaseOptions o3;
    o3.dtype = ACL_FLOAT16;
    auto c3 = make_case({3}, {8}, o3);
    EXPECT_EQ(run_op(c3->args()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  }
}

TEST(LayerNormBackwardErrors, OutputDtypes_LN_DTYPE_2) {
  auto c = make_case({2}, {3});
  auto gi16 = make_view({2, 3}, ACL_FLOAT16, {});
  auto gw16 = make_view({3}, ACL_FLOAT16, {});
  auto gbbf = make_view({3}, ACL_BF16, {});
  Args a = c->args();
  a.gi = gi16->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradInputOut", "LN-DTYPE-2");
  // The any-float-grads variant is not followed: gradWeightOut/gradBiasOut must be FLOAT.
  a = c->args();
  a.gw = gw16->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradWeightOut", "LN-DTYPE-2");
  a = c->args();
  a.gb = gbbf->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradBiasOut", "LN-DTYPE-2");
  // Also with an fp16 input: grads must still be FLOAT.
  CaseOptions o;
  o.dtype = ACL_FLOAT16;
  auto h = make_case({2}, {3}, o);
  a = h->args();
  a.gw = gw16->t;
  expect_phase_one_fails(*h, a, ACLNN_ERR_PARAM_INVALID, "gradWeightOut", "LN-DTYPE-2");
  // LN-DTYPE-2 before LN-SHAPE-1: wrong gradInputOut dtype and normalizedShape too long.
  const int64_t long_ns[] = {1, 2, 3};
  aclIntArray *ns3 = aclCreateIntArray(long_ns, 3);
  a = c->args();
  a.gi = gi16->t;
  a.ns = ns3;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradInputOut", "LN-DTYPE-2");
  aclDestroyIntArray(ns3);
}

TEST(LayerNormBackwardErrors, NormalizedShape_LN_SHAPE_1) {
  auto c = make_case({2}, {3});
  const auto with_ns = [&](std::vector<int64_t> ns, const char *param) {
    aclIntArray *arr = aclCreateIntArray(ns.data(), ns.size());
    Args a = c->args();
    a.ns = arr;
    expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, param, "LN-SHAPE-1");
    aclDestroyIntArray(arr);
  };
  with_ns({}, "normalizedShape");         // length 0
  with_ns({1, 2, 3}, "normalizedShape");  // longer than input's rank
  with_ns({4}, "normalizedShape");        // trailing dim mismatch
  with_ns({2}, "normalizedShape");
  // Input of rank 9.
  std::vector<int64_t> d9(9, 1);
  d9[8] = 3;
  auto x9 = make_view(d9, ACL_FLOAT, {});
  Args a = c->args();
  a.x = x9->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "input", "LN-SHAPE-1");
  // LN-SHAPE-1 before LN-SHAPE-2: a bad normalizedShape and a gradOut of another shape.
  auto dy_bad = make_view({7, 3}, ACL_FLOAT, {});
  const int64_t four[] = {4};
  aclIntArray *ns4 = aclCreateIntArray(four, 1);
  a = c->args();
  a.ns = ns4;
  a.dy = dy_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "normalizedShape", "LN-SHAPE-1");
  aclDestroyIntArray(ns4);
}

TEST(LayerNormBackwardErrors, GradOutWeightBiasShapes_LN_SHAPE_2) {
  CaseOptions o;
  o.b_dtype = ACL_FLOAT;
  auto c = make_case({2}, {3}, o);
  auto dy_bad = make_view({3, 3}, ACL_FLOAT, {});
  auto w_bad = make_view({1, 3}, ACL_FLOAT, {});
  auto b_bad = make_view({4}, ACL_FLOAT, {});
  Args a = c->args();
  a.dy = dy_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradOut", "LN-SHAPE-2");
  a = c->args();
  a.w = w_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "weightOptional", "LN-SHAPE-2");
  a = c->args();
  a.b = b_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "biasOptional", "LN-SHAPE-2");
  // LN-SHAPE-2 before LN-SHAPE-3: bad weight and bad mean -> weight.
  auto mean_bad = make_view({5}, ACL_FLOAT, {});
  a = c->args();
  a.w = w_bad->t;
  a.mean = mean_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "weightOptional", "LN-SHAPE-2");
}

TEST(LayerNormBackwardErrors, MeanRstdShapes_LN_SHAPE_3) {
  auto c = make_case({2, 2}, {3});
  auto mean_other = make_view({4}, ACL_FLOAT, {});  // numel ok, shape differs from rstd's
  Args a = c->args();
  a.mean = mean_other->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "mean", "LN-SHAPE-3");
  auto m6 = make_view({6}, ACL_FLOAT, {});
  auto r6 = make_view({6}, ACL_FLOAT, {});
  a = c->args();
  a.mean = m6->t;
  a.rstd = r6->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "mean numel 6 != M = 4", "LN-SHAPE-3");
  // LN-SHAPE-3 before LN-SHAPE-4.
  auto gi_bad = make_view({4, 3}, ACL_FLOAT, {});
  a.gi = gi_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "mean", "LN-SHAPE-3");
}

TEST(LayerNormBackwardErrors, OutputShapes_LN_SHAPE_4) {
  auto c = make_case({2}, {3});
  auto gi_bad = make_view({3, 2}, ACL_FLOAT, {});
  auto gw_bad = make_view({1, 3}, ACL_FLOAT, {});
  auto gb_bad = make_view({2}, ACL_FLOAT, {});
  Args a = c->args();
  a.gi = gi_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradInputOut", "LN-SHAPE-4");
  a = c->args();
  a.gw = gw_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradWeightOut", "LN-SHAPE-4");
  a = c->args();
  a.gb = gb_bad->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradBiasOut", "LN-SHAPE-4");
  // Not requested: shape and dtype are not looked at, and nothing is written.
  auto gw_bad16 = make_view({7}, ACL_FLOAT16, {});
  c->set_mask({true, false, true});
  a = c->args();
  a.gw = gw_bad16->t;
  const auto before = gw_bad16->storage;
  EXPECT_EQ(run_op(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(bits_equal(before, gw_bad16->storage));
}

TEST(LayerNormBackwardErrors, TensorRanks_LN_RANK_1) {
  // input [3], normalizedShape [3]: M = 1, so a rank-0 mean has the right numel.
  auto c = make_case({}, {3});
  c->mean = make_view({}, ACL_FLOAT, {0.5});
  c->rstd = make_view({}, ACL_FLOAT, {2.0});
  expect_phase_one_fails(*c, c->args(), ACLNN_ERR_PARAM_INVALID, "mean", "LN-RANK-1");
  // Rank 9 of ones.
  c->mean = make_view(std::vector<int64_t>(9, 1), ACL_FLOAT, {0.5});
  c->rstd = make_view(std::vector<int64_t>(9, 1), ACL_FLOAT, {2.0});
  expect_phase_one_fails(*c, c->args(), ACLNN_ERR_PARAM_INVALID, "mean", "LN-RANK-1");
  // Rank 1 works.
  c->mean = make_view({1}, ACL_FLOAT, {0.5});
  c->rstd = make_view({1}, ACL_FLOAT, {2.0});
  EXPECT_EQ(run_op(c->args()), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  // An output present but not requested still counts as a tensor present.
  auto gw0 = make_view({}, ACL_FLOAT, {});
  c->set_mask({true, false, true});
  Args a = c->args();
  a.gw = gw0->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradWeightOut", "LN-RANK-1");
}

// Project checks after the clauses: storage for non-empty views (161001) and ABI-INPUT-1 overlap
// rules for requested outputs (161002).
TEST(LayerNormBackwardErrors, DataAndOverlap_ABI_INPUT_1) {
  auto c = make_case({4}, {6});
  // Non-empty input with NULL data.
  const int64_t dims[] = {4, 6}, strides[] = {6, 1}, sd[] = {24};
  aclTensor *null_x =
      aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, sd, 1, nullptr);
  ASSERT_NE(null_x, nullptr);
  Args a = c->args();
  a.x = null_x;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_NULLPTR, "input", "");
  aclDestroyTensor(null_x);
  // gradInputOut over input's storage (in-place is not accepted by this op).
  a = c->args();
  aclTensor *alias =
      aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, sd, 1, c->x->storage.data());
  a.gi = alias;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradInputOut", "");
  aclDestroyTensor(alias);
  // gradWeightOut with a zero stride (one element for all columns).
  auto gw_self = make_view({6}, ACL_FLOAT, {}, std::vector<int64_t>{0});
  a = c->args();
  a.gw = gw_self->t;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradWeightOut", "");
  // gradBiasOut sharing gradWeightOut's storage.
  const int64_t d6[] = {6}, s1[] = {1}, sd6[] = {6};
  aclTensor *gb_alias =
      aclCreateTensor(d6, 1, ACL_FLOAT, s1, 0, ACL_FORMAT_ND, sd6, 1, c->gw->storage.data());
  a = c->args();
  a.gb = gb_alias;
  expect_phase_one_fails(*c, a, ACLNN_ERR_PARAM_INVALID, "gradBiasOut", "");
  // Unrequested, the same alias is harmless.
  c->set_mask({true, true, false});
  a = c->args();
  a.gb = gb_alias;
  EXPECT_EQ(run_op(a), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  aclDestroyTensor(gb_alias);
}

// A larger random case through every dtype and a big shape, against the exact sums.
TEST(LayerNormBackwardSlow, AccuracyLargeShapes_VAL_TOL_1) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (bool cancel : {false, true}) {
      CaseOptions o;
      o.dtype = dt;
      o.cancel = cancel;
      o.seed = 99;
      auto c = make_case({257}, {1031}, o);
      ASSERT_EQ(run_op(c->args()), ACLNN_SUCCESS);
      check_accuracy(*c);
    }
  }
}

}  // namespace
