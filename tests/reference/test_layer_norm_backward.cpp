// LayerNormBackward oracle and the exact dyadic helpers under it: statuses in the spec's order,
// and values against an independent evaluation (the spec's formula in exact rationals with GMP,
// rounded by MPFR's own IEEE emulation: emin/emax + mpfr_subnormalize).
#include <gtest/gtest.h>

#include <cstdint>
// clang-format off
#include <mpfr.h>
// clang-format on
#include <boost/multiprecision/gmp.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>

#include "reference/exact_sum.hpp"
#include "reference/layer_norm_backward.hpp"
#include "reference/rounding.hpp"
#include "independent_rounding.hpp"

namespace {
using namespace aclnn_ref;
using Q = boost::multiprecision::mpq_rational;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The independent single rounding (tests/reference/independent_rounding.hpp) of an exact rational.
uint64_t ieee_round(const Q &q, DType t) {
  return independent::ieee_round(q.backend().data(), t);
}

Q to_q(mpfr_srcptr x) {
  Q q;
  mpfr_get_q(q.backend().data(), x);
  return q;
}

double nearest_double(const Q &q) {
  mpfr_t r;
  mpfr_init2(r, 53);
  mpfr_set_q(r, q.backend().data(), MPFR_RNDN);
  const double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  return d;
}

bool same_value(uint64_t a, uint64_t b, DType t) {
  if (a == b) return true;
  const double x = decode(&a, t), y = decode(&b, t);
  return (x == 0 && y == 0) || (std::isnan(x) && std::isnan(y));
}

int64_t prod(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

enum class MeanForm { kKeepDims, kLeading, kFlat };

// One LayerNormBackward call with owned tensors. Not copyable: the call points into it.
struct LnCase {
  DType t;
  std::vector<int64_t> shape, ns;
  HostTensor dy, x, mean, rstd, w, b, gi, gw, gb;
  TensorView dyv, xv, meanv, rstdv, wv, bv, giv, gwv, gbv;
  std::vector<bool> mask{true, true, true};
  LayerNormBackwardCall call;
  int64_t m = 0, n = 0;

  LnCase(DType t_, std::vector<int64_t> shape_, std::vector<int64_t> ns_,
         std::optional<DType> wt = std::nullopt, MeanForm form = MeanForm::kKeepDims,
         DType stat_t = DType::kFloat32, DType grad_t = DType::kFloat32)
      : t(t_), shape(std::move(shape_)), ns(std::move(ns_)) {
    n = prod(ns);
    m = prod(shape) / std::max<int64_t>(n, 1);
    if (n == 0) m = prod(std::vector<int64_t>(shape.begin(), shape.end() - ns.size()));
    const size_t lead = shape.size() - ns.size();
    std::vector<int64_t> ms;
    if (form == MeanForm::kFlat) {
      ms = {m};
    } else {
      ms.assign(shape.begin(), shape.begin() + lead);
      if (form == MeanForm::kKeepDims) ms.resize(shape.size(), 1);
    }
    dy = HostTensor(t, shape);
    x = HostTensor(t, shape);
    mean = HostTensor(stat_t, ms);
    rstd = HostTensor(stat_t, ms);
    if (wt) {
      w = HostTensor(*wt, ns);
      b = HostTensor(*wt, ns);
    }
    gi = HostTensor(t, shape);
    gw = HostTensor(grad_t, ns);
    gb = HostTensor(grad_t, ns);
    bind(wt.has_value());
  }
  LnCase(const LnCase &) = delete;
  LnCase &operator=(const LnCase &) = delete;

  void bind(bool with_weight) {
    dyv = dy.view();
    xv = x.view();
    meanv = mean.view();
    rstdv = rstd.view();
    wv = w.view();
    bv = b.view();
    giv = gi.view();
    gwv = gw.view();
    gbv = gb.view();
    call = LayerNormBackwardCall{
        &dyv,  &xv,  &ns,  &meanv, &rstdv, with_weight ? &wv : nullptr, with_weight ? &bv : nullptr,
        &mask, &giv, &gwv, &gbv};
  }
  void set(HostTensor &h, int64_t i, double v) { h.set_bits(i, bits_from_double(v, h.dtype)); }

  // Random data; `cancel` makes x hug the mean and dy cancel within each row.
  void fill(std::mt19937_64 &rng, bool cancel = false) {
    std::uniform_real_distribution<double> u(-1, 1), pos(0.25, 4);
    std::uniform_int_distribution<int> e(-6, 6);
    for (int64_t i = 0; i < m; ++i) {
      const double mu = u(rng) * 8;
      set(mean, i, mu);
      set(rstd, i, pos(rng));
      for (int64_t j = 0; j < n; ++j) {
        const int64_t f = i * n + j;
        if (cancel) {
          set(x, f, mean.at(i) * (1 + std::ldexp(u(rng), -9)));
          set(dy, f, (j % 2 ? -1 : 1) * 1024.0 + std::ldexp(u(rng), -8));
        } else {
          set(x, f, std::ldexp(u(rng), e(rng)) + mu);
          set(dy, f, std::ldexp(u(rng), e(rng)));
        }
      }
    }
    for (int64_t j = 0; j < (w.bytes.empty() ? 0 : w.numel()); ++j) {
      set(w, j, cancel ? 1 + std::ldexp(u(rng), -10) : u(rng) * 2);
      set(b, j, u(rng));
    }
  }

  std::vector<ExpectedOutput> values(const VariantSet &v = {}) {
    return layer_norm_backward_values(call, v);
  }
};

// The spec's formula (LN-VALUE-1/2) in exact rationals, rounded once; compared bit for bit.
void check_against_rational(const LnCase &c, const std::vector<ExpectedOutput> &e) {
  ASSERT_EQ(e.size(), 3u);
  const int64_t m = c.m, n = c.n;
  std::vector<Q> gw(static_cast<size_t>(n)), gb(static_cast<size_t>(n));
  const bool has_w = c.call.weight != nullptr;
  for (int64_t i = 0; i < m; ++i) {
    const Q mu(c.mean.at(i)), rs(c.rstd.at(i));
    std::vector<Q> dyw(static_cast<size_t>(n)), xhat(static_cast<size_t>(n));
    Q s1 = 0, s2 = 0;
    for (int64_t j = 0; j < n; ++j) {
      const Q dy(c.dy.at(i * n + j)), x(c.x.at(i * n + j));
      const Q w = has_w ? Q(c.w.at(j)) : Q(1);
      xhat[j] = (x - mu) * rs;
      dyw[j] = dy * w;
      s1 += dyw[j];
      s2 += dyw[j] * xhat[j];
      gw[j] += dy * xhat[j];
      gb[j] += dy;
    }
    if (!c.mask[0]) continue;
    for (int64_t j = 0; j < n; ++j) {
      const Q g = rs * (dyw[j] - s1 / n - xhat[j] * s2 / n);
      const uint64_t want = ieee_round(g, c.gi.dtype), got = e[0].values.bits(i * n + j);
      ASSERT_TRUE(same_value(got, want, c.gi.dtype))
          << "gradInput row " << i << " col " << j << " got " << std::hex << got << " want "
          << want;
      ASSERT_EQ(e[0].term_count[static_cast<size_t>(i * n + j)], n);
    }
  }
  for (int k = 1; k < 3; ++k) {
    if (!c.mask[k]) continue;
    const DType t = e[k].values.dtype;
    for (int64_t j = 0; j < n; ++j) {
      const uint64_t want = ieee_round(k == 1 ? gw[j] : gb[j], t), got = e[k].values.bits(j);
      ASSERT_TRUE(same_value(got, want, t)) << e[k].name << " col " << j;
      ASSERT_EQ(e[k].term_count[static_cast<size_t>(j)], m);
    }
  }
}

std::vector<int64_t> random_shape(std::mt19937_64 &rng, int rank, int max_dim) {
  std::uniform_int_distribution<int64_t> d(1, max_dim);
  std::vector<int64_t> s(static_cast<size_t>(rank));
  for (auto &v : s) v = d(rng);
  return s;
}

TEST(LayerNormBackward, RandomShapesMatchRational) {
  std::mt19937_64 rng(11);
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (int trial = 0; trial < 24; ++trial) {
      const int rank = 1 + trial % 4;
      const int nsl = 1 + static_cast<int>(rng() % rank);
      auto shape = random_shape(rng, rank, rank <= 2 ? 9 : 4);
      std::vector<int64_t> ns(shape.end() - nsl, shape.end());
      std::optional<DType> wt;
      if (trial % 3 == 1) wt = t;
      if (trial % 3 == 2) wt = DType::kFloat32;
      MeanForm form = static_cast<MeanForm>(trial % 3);
      if (form == MeanForm::kLeading && nsl == rank) form = MeanForm::kFlat;  // rank 0 is illegal
      const DType stat_t = trial % 2 ? t : DType::kFloat32;
      LnCase c(t, shape, ns, wt, form, stat_t);
      c.fill(rng, trial % 4 == 3);
      const Verdict v = layer_norm_backward_check(c.call);
      ASSERT_TRUE(v.ok()) << v.clause << " " << v.reason;
      const auto e = c.values();
      EXPECT_EQ(e[0].name, "gradInputOut");
      EXPECT_EQ(e[1].name, "gradWeightOut");
      EXPECT_EQ(e[2].name, "gradBiasOut");
      check_against_rational(c, e);
    }
  }
}

TEST(LayerNormBackward, CancellationHeavyMatchesRational) {
  std::mt19937_64 rng(12);
  // Power-of-two row lengths (where quotient ties can occur) and others.
  for (int64_t n : {2, 3, 4, 7, 8, 16, 33, 64}) {
    for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      LnCase c(t, {3, n}, {n}, DType::kFloat32);
      c.fill(rng, true);
      check_against_rational(c, c.values());
    }
  }
}

TEST(LayerNormBackward, WideExponentRangeFp32) {
  // Elements from 2^-149 to 2^100 in one row: exact sums need hundreds of bits.
  std::mt19937_64 rng(13);
  LnCase c(DType::kFloat32, {4, 6}, {6}, DType::kFloat32);
  const double vals[] = {0x1p-149, -0x1p100, 3.0, 0x1p-126, -0x1.fffffep-1, 0x1p60};
  for (int64_t i = 0; i < 4; ++i) {
    c.set(c.mean, i, i == 0 ? 0x1p-140 : 1.5);
    c.set(c.rstd, i, i == 1 ? 0x1p-20 : 3.0);
    for (int64_t j = 0; j < 6; ++j) {
      c.set(c.x, i * 6 + j, vals[(i + j) % 6]);
      c.set(c.dy, i * 6 + j, vals[(2 * i + j + 1) % 6]);
    }
  }
  for (int64_t j = 0; j < 6; ++j) c.set(c.w, j, vals[(j + 3) % 6]);
  check_against_rational(c, c.values());
}

TEST(LayerNormBackward, MeanRstdShapeForms) {
  std::mt19937_64 rng(14);
  LnCase a(DType::kFloat32, {2, 3, 5}, {5}, std::nullopt, MeanForm::kKeepDims);
  a.fill(rng);
  std::vector<std::vector<std::byte>> got;
  for (MeanForm f : {MeanForm::kKeepDims, MeanForm::kLeading, MeanForm::kFlat}) {
    LnCase c(DType::kFloat32, {2, 3, 5}, {5}, std::nullopt, f);
    c.dy = a.dy;
    c.x = a.x;
    c.mean.bytes = a.mean.bytes;
    c.rstd.bytes = a.rstd.bytes;
    c.bind(false);
    EXPECT_EQ(c.meanv.shape.size(), f == MeanForm::kKeepDims  ? 3u
                                    : f == MeanForm::kLeading ? 2u
                                                              : 1u);
    ASSERT_TRUE(layer_norm_backward_check(c.call).ok());
    const auto e = c.values();
    check_against_rational(c, e);
    got.push_back(e[0].values.bytes);
  }
  EXPECT_EQ(got[0], got[1]);
  EXPECT_EQ(got[0], got[2]);
}

TEST(LayerNormBackward, MasksLeaveOutputsUnwritten) {
  std::mt19937_64 rng(15);
  LnCase full(DType::kFloat16, {4, 6}, {6}, DType::kFloat16);
  full.fill(rng);
  const auto all = full.values();
  for (int bits = 0; bits < 8; ++bits) {
    LnCase c(DType::kFloat16, {4, 6}, {6}, DType::kFloat16);
    c.dy = full.dy;
    c.x = full.x;
    c.mean = full.mean;
    c.rstd = full.rstd;
    c.w = full.w;
    c.b = full.b;
    c.bind(true);
    c.mask = {bool(bits & 1), bool(bits & 2), bool(bits & 4)};
    // An output whose mask bit is false may be NULL.
    if (!c.mask[0]) c.call.grad_input = nullptr;
    if (!c.mask[2]) c.call.grad_bias = nullptr;
    ASSERT_TRUE(layer_norm_backward_check(c.call).ok());
    const auto e = c.values();
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(e[k].written, c.mask[k]) << bits << " " << k;
      if (c.mask[k]) EXPECT_EQ(e[k].values.bytes, all[k].values.bytes);
    }
  }
}

TEST(LayerNormBackward, SpecialsPropagate) {
  std::mt19937_64 rng(16);
  LnCase c(DType::kFloat32, {3, 4}, {4}, DType::kFloat32);
  c.fill(rng);
  LnCase d(DType::kFloat32, {3, 4}, {4}, DType::kFloat32);
  d.dy = c.dy;
  d.x = c.x;
  d.mean = c.mean;
  d.rstd = c.rstd;
  d.w = c.w;
  d.b = c.b;
  d.bind(true);
  c.set(c.x, 1 * 4 + 2, std::nan(""));  // NaN in row 1, column 2
  const auto e = c.values(), f = d.values();
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      const double g = e[0].values.at(i * 4 + j);
      if (i == 1)
        EXPECT_TRUE(std::isnan(g)) << j;
      else
        EXPECT_EQ(e[0].values.bits(i * 4 + j), f[0].values.bits(i * 4 + j));
    }
  for (int64_t j = 0; j < 4; ++j) {
    if (j == 2)
      EXPECT_TRUE(std::isnan(e[1].values.at(j)));
    else
      EXPECT_EQ(e[1].values.bits(j), f[1].values.bits(j));
    EXPECT_EQ(e[2].values.bits(j), f[2].values.bits(j));  // gradBias does not see x
  }

  // +inf in dy(0, 0): gradBias[0] = +inf, row 0 of gradInput all non-finite, rows 1-2 as before.
  LnCase g(DType::kFloat16, {3, 4}, {4});
  g.fill(rng);
  g.set(g.dy, 0, kInf);
  g.set(g.x, 0, g.mean.at(0) + 1);  // xhat(0,0) != 0: dy*xhat = inf, not NaN
  const auto h = g.values();
  EXPECT_EQ(h[2].values.at(0), kInf);
  EXPECT_TRUE(std::isinf(h[1].values.at(0)));
  for (int64_t j = 0; j < 4; ++j) EXPECT_FALSE(std::isfinite(h[0].values.at(j))) << j;
  EXPECT_TRUE(std::isnan(h[0].values.at(0)));  // rstd*(inf - inf/N - ...) = NaN at the inf
  // -inf rstd in row 2: xhat = +-inf or NaN; every element of row 2 non-finite.
  g.set(g.rstd, 2, -kInf);
  const auto k = g.values();
  for (int64_t j = 0; j < 4; ++j) EXPECT_FALSE(std::isfinite(k[0].values.at(8 + j))) << j;
}

TEST(LayerNormBackward, EmptyInputs) {
  LnCase c(DType::kFloat32, {0, 4}, {4}, DType::kFloat32, MeanForm::kFlat);
  ASSERT_TRUE(layer_norm_backward_check(c.call).ok());
  const auto e = c.values();
  EXPECT_TRUE(e[0].written);
  EXPECT_EQ(e[0].values.numel(), 0);
  for (int k = 1; k < 3; ++k) {
    EXPECT_TRUE(e[k].written);
    ASSERT_EQ(e[k].values.numel(), 4);
    for (int64_t j = 0; j < 4; ++j) {
      EXPECT_EQ(e[k].values.bits(j), 0u);  // +0
      EXPECT_EQ(e[k].term_count[static_cast<size_t>(j)], 0);
    }
  }
  LnCase z(DType::kBFloat16, {3, 0}, {0}, std::nullopt, MeanForm::kFlat);
  ASSERT_TRUE(layer_norm_backward_check(z.call).ok());
  for (const auto &o : z.values()) EXPECT_EQ(o.values.numel(), 0);
}

TEST(LayerNormBackward, VariantAnyFloatGrads) {
  std::mt19937_64 rng(17);
  for (DType gt : {DType::kFloat16, DType::kBFloat16}) {
    LnCase c(DType::kFloat32, {5, 7}, {7}, DType::kFloat32, MeanForm::kKeepDims, DType::kFloat32,
             gt);
    c.fill(rng);
    const Verdict v = layer_norm_backward_check(c.call);
    EXPECT_EQ(v.status, 161002);
    EXPECT_EQ(v.clause, "LN-DTYPE-2");
    ASSERT_TRUE(layer_norm_backward_check(c.call, {"any-float-grads"}).ok());
    check_against_rational(c, c.values({"any-float-grads"}));  // rounded once to gt
    c.call.product = Product::kAtlasTraining;                  // no bf16 there
    EXPECT_EQ(layer_norm_backward_check(c.call, {"any-float-grads"}).ok(), gt == DType::kFloat16);
  }
  EXPECT_EQ(layer_norm_backward_variants(), std::vector<std::string_view>{"any-float-grads"});
}

TEST(LayerNormBackward, StridedViewsMatchContiguous) {
  std::mt19937_64 rng(18);
  LnCase c(DType::kFloat32, {4, 5}, {5}, DType::kFloat32);
  c.fill(rng);
  const auto e = c.values();
  // x stored transposed in a (5, 4) buffer; dy broadcast-free but with a storage offset.
  HostTensor xt(DType::kFloat32, {5, 4});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) xt.set_bits(j * 4 + i, c.x.bits(i * 5 + j));
  HostTensor dyo(DType::kFloat32, {23});
  for (int i = 0; i < 20; ++i) dyo.set_bits(3 + i, c.dy.bits(i));
  TensorView xv{DType::kFloat32, {4, 5}, {1, 4}, 0, xt.bytes.data()};
  TensorView dyv{DType::kFloat32, {4, 5}, {5, 1}, 3, dyo.bytes.data()};
  c.call.input = &xv;
  c.call.grad_out = &dyv;
  const auto f = c.values();
  for (int k = 0; k < 3; ++k) EXPECT_EQ(e[k].values.bytes, f[k].values.bytes);
}

TEST(LayerNormBackward, ErrorScalesAndExactValues) {
  std::mt19937_64 rng(19);
  LnCase c(DType::kFloat32, {6, 9}, {9}, DType::kFloat32);
  c.fill(rng);
  const auto e = c.values();
  for (int64_t j = 0; j < 9; ++j) {
    Q sb = 0, sw = 0, eb = 0;
    for (int64_t i = 0; i < 6; ++i) {
      const Q dy(c.dy.at(i * 9 + j));
      sb += abs(dy);
      sw += abs(dy * (Q(c.x.at(i * 9 + j)) - Q(c.mean.at(i))) * Q(c.rstd.at(i)));
      eb += dy;
    }
    const Q slack = Q(1) + Q(8) * Q(0x1p-52);
    EXPECT_GE(Q(e[2].error_scale[j]), sb);
    EXPECT_LE(Q(e[2].error_scale[j]), sb * slack);
    EXPECT_GE(Q(e[1].error_scale[j]), sw);
    EXPECT_LE(Q(e[1].error_scale[j]), sw * slack);
    EXPECT_EQ(e[2].exact_nearest[j], nearest_double(eb));
  }
  // gradInput: |rstd| (|dy w| + sum|dy w|/N + |xhat| sum|dy w xhat|/N), rounded up.
  for (int64_t i = 0; i < 6; ++i) {
    const Q rs(c.rstd.at(i)), mu(c.mean.at(i));
    Q a1 = 0, a2 = 0;
    for (int64_t j = 0; j < 9; ++j) {
      const Q dyw = Q(c.dy.at(i * 9 + j)) * Q(c.w.at(j));
      a1 += abs(dyw);
      a2 += abs(dyw * (Q(c.x.at(i * 9 + j)) - mu) * rs);
    }
    for (int64_t j = 0; j < 9; ++j) {
      const Q dyw = Q(c.dy.at(i * 9 + j)) * Q(c.w.at(j));
      const Q xh = (Q(c.x.at(i * 9 + j)) - mu) * rs;
      const Q want = abs(rs) * (abs(dyw) + a1 / 9 + abs(xh) * a2 / 9);
      const Q got(e[0].error_scale[static_cast<size_t>(i * 9 + j)]);
      EXPECT_GE(got, want);
      EXPECT_LE(got, want * Q(1 + 0x1p-45));
    }
  }
}

// ---- statuses ----

struct Expect {
  int32_t status;
  const char *clause;
};
void expect_at(int line, LnCase &c, Expect x, const VariantSet &v = {}) {
  SCOPED_TRACE(line);
  const Verdict got = layer_norm_backward_check(c.call, v);
  EXPECT_EQ(got.status, x.status) << x.clause << ": " << got.clause << " " << got.reason;
  EXPECT_EQ(got.clause, x.clause) << got.reason;
  if (!got.ok()) {
    EXPECT_FALSE(got.reason.empty());
    for (const auto &o : layer_norm_backward_values(c.call, v)) EXPECT_FALSE(o.written);
  }
}

#define expect(...) expect_at(__LINE__, __VA_ARGS__)
#define LN_CASE(c) LnCase c(DType::kFloat16, {2, 3, 4}, {4}, DType::kFloat16, MeanForm::kKeepDims)

TEST(LayerNormBackward, ErrorsEveryClause) {
  const Expect null1{161001, "LN-NULL-1"}, mask1{161002, "LN-MASK-1"}, null2{161001, "LN-NULL-2"},
      dt1{161002, "LN-DTYPE-1"}, dt2{161002, "LN-DTYPE-2"}, sh1{161002, "LN-SHAPE-1"},
      sh2{161002, "LN-SHAPE-2"}, sh3{161002, "LN-SHAPE-3"}, sh4{161002, "LN-SHAPE-4"},
      rk1{161002, "LN-RANK-1"}, ok{0, "LN-VALUE-1"};
  {
    LN_CASE(c);
    expect(c, ok);
  }
  for (int which = 0; which < 6; ++which) {
    LN_CASE(c);
    switch (which) {
      case 0:
        c.call.grad_out = nullptr;
        break;
      case 1:
        c.call.input = nullptr;
        break;
      case 2:
        c.call.normalized_shape = nullptr;
        break;
      case 3:
        c.call.mean = nullptr;
        break;
      case 4:
        c.call.rstd = nullptr;
        break;
      case 5:
        c.call.output_mask = nullptr;
        break;
    }
    expect(c, null1);
  }
  {
    LN_CASE(c);
    c.call.weight = c.call.bias = nullptr;  // optional
    expect(c, ok);
    c.mask = {true, true};
    expect(c, mask1);
    c.mask = {true, true, true, true};
    expect(c, mask1);
  }
  for (int k = 0; k < 3; ++k) {
    LN_CASE(c);
    const TensorView **outs[] = {&c.call.grad_input, &c.call.grad_weight, &c.call.grad_bias};
    *outs[k] = nullptr;
    expect(c, null2);
    c.mask[static_cast<size_t>(k)] = false;
    expect(c, ok);
  }
  // LN-DTYPE-1
  {
    LN_CASE(c);
    c.xv.dtype = c.dyv.dtype = c.giv.dtype = DType::kFloat64;
    expect(c, dt1);
  }
  {
    LN_CASE(c);
    c.meanv.dtype = c.rstdv.dtype = DType::kInt32;
    expect(c, dt1);
  }
  {
    LN_CASE(c);
    c.dyv.dtype = DType::kFloat32;
    expect(c, dt1);
  }
  {
    LN_CASE(c);
    c.wv.dtype = c.bv.dtype = DType::kBFloat16;  // neither input's (fp16) nor fp32
    expect(c, dt1);
    c.wv.dtype = c.bv.dtype = DType::kFloat32;
    expect(c, ok);
    c.bv.dtype = DType::kFloat16;
    expect(c, dt1);
    c.call.weight = nullptr;  // bias alone: only the float-set rule
    expect(c, ok);
  }
  {
    LN_CASE(c);
    c.rstdv.dtype = DType::kFloat16;  // mean is fp32
    expect(c, dt1);
  }
  {
    // BF16 only on A2/A3 (LN exists on every product).
    LnCase c(DType::kBFloat16, {2, 4}, {4}, DType::kBFloat16);
    expect(c, ok);
    c.call.product = Product::kAtlasA3;
    expect(c, ok);
    c.call.product = Product::kAtlasInference;
    expect(c, dt1);
    LN_CASE(d);
    d.call.product = Product::kAtlasTraining;
    expect(d, ok);
  }
  // LN-DTYPE-2 (only outputs whose mask bit is true)
  for (int k = 0; k < 3; ++k) {
    LN_CASE(c);
    TensorView *outs[] = {&c.giv, &c.gwv, &c.gbv};
    outs[k]->dtype = k == 0 ? DType::kFloat32 : DType::kFloat16;
    expect(c, dt2);
    c.mask[static_cast<size_t>(k)] = false;
    expect(c, ok);
  }
  {
    LN_CASE(c);
    c.gwv.dtype = DType::kFloat16;
    expect(c, dt2);
    expect(c, ok, {"any-float-grads"});
    c.gwv.dtype = DType::kInt32;
    expect(c, dt2, {"any-float-grads"});
  }
  {
    LN_CASE(c);
    c.gbv.dtype = DType::kBFloat16;
    expect(c, dt2);
  }
  // LN-SHAPE-1
  {
    LN_CASE(c);
    c.ns = {};
    expect(c, sh1);
    c.ns = {1, 2, 3, 4};
    expect(c, sh1);
    c.ns = {5};
    expect(c, sh1);
  }
  {
    // rank(input) 9 > 8: LN-SHAPE-1 (before LN-RANK-1).
    LnCase c(DType::kFloat32, {1, 1, 1, 1, 1, 1, 1, 2, 3}, {3}, std::nullopt, MeanForm::kFlat);
    expect(c, sh1);
  }
  // LN-SHAPE-2
  {
    LN_CASE(c);
    c.dyv.shape = {2, 4, 3};
    expect(c, sh2);
  }
  {
    LN_CASE(c);
    c.wv.shape = {2, 2};
    c.wv.strides = {2, 1};
    expect(c, sh2);
  }
  {
    LN_CASE(c);
    c.bv.shape = {5};
    expect(c, sh2);
  }
  // LN-SHAPE-3
  {
    LN_CASE(c);
    c.rstdv.shape = {6, 1};
    c.rstdv.strides = {1, 1};
    expect(c, sh3);
  }
  {
    LN_CASE(c);
    c.meanv.shape = c.rstdv.shape = {2, 4, 1};
    expect(c, sh3);
    c.meanv.shape = c.rstdv.shape = {3, 2};  // numel 6 = M: accepted
    expect(c, ok);
  }
  // LN-SHAPE-4 (only outputs whose mask bit is true)
  for (int k = 0; k < 3; ++k) {
    LN_CASE(c);
    TensorView *outs[] = {&c.giv, &c.gwv, &c.gbv};
    outs[k]->shape = {7};
    outs[k]->strides = {1};
    expect(c, sh4);
    c.mask[static_cast<size_t>(k)] = false;
    expect(c, ok);
  }
  // LN-RANK-1: a rank-0 mean (numel 1 = M) and a masked-off rank-9 output.
  {
    LnCase c(DType::kFloat32, {3, 4}, {3, 4}, std::nullopt, MeanForm::kFlat);
    expect(c, ok);
    c.meanv.shape = c.rstdv.shape = {};
    c.meanv.strides = c.rstdv.strides = {};
    expect(c, rk1);
  }
  {
    LN_CASE(c);
    c.mask[1] = false;
    c.gwv.shape = std::vector<int64_t>(9, 1);
    c.gwv.strides = std::vector<int64_t>(9, 1);
    expect(c, rk1);
  }
}

TEST(LayerNormBackward, CheckOrderConflicts) {
  LN_CASE(c);
  // Every later violation at once, then peel them off from the front.
  c.rstdv.shape = {9};               // SHAPE-3
  c.wv.shape = {9};                  // SHAPE-2
  c.ns = {9};                        // SHAPE-1
  c.gwv.dtype = DType::kFloat16;     // DTYPE-2
  c.meanv.dtype = DType::kBFloat16;  // DTYPE-1 (mean != rstd)
  c.call.grad_bias = nullptr;        // NULL-2
  c.mask = {true, true};             // MASK-1
  c.call.rstd = nullptr;             // NULL-1
  expect(c, {161001, "LN-NULL-1"});
  c.call.rstd = &c.rstdv;
  expect(c, {161002, "LN-MASK-1"});
  c.mask = {true, true, true};
  expect(c, {161001, "LN-NULL-2"});
  c.call.grad_bias = &c.gbv;
  expect(c, {161002, "LN-DTYPE-1"});
  c.meanv.dtype = DType::kFloat32;
  c.rstdv.dtype = DType::kFloat32;
  expect(c, {161002, "LN-DTYPE-2"});
  c.gwv.dtype = DType::kFloat32;
  expect(c, {161002, "LN-SHAPE-1"});
  c.ns = {4};
  expect(c, {161002, "LN-SHAPE-2"});
  c.wv.shape = {4};
  expect(c, {161002, "LN-SHAPE-3"});
  c.rstdv.shape = c.meanv.shape;
  c.gbv.shape = {3};
  expect(c, {161002, "LN-SHAPE-4"});
  c.gbv.shape = {4};
  c.giv.shape = std::vector<int64_t>(9, 1);  // SHAPE-4 too (mask true): SHAPE-4 first
  c.giv.strides = std::vector<int64_t>(9, 1);
  expect(c, {161002, "LN-SHAPE-4"});
  c.mask[0] = false;
  expect(c, {161002, "LN-RANK-1"});
}

// ---- the exact helpers ----

TEST(LayerNormExactSum, HelpersAreExactAtExtremeExponents) {
  using exact::Real;
  Real a, b, r;
  exact::set(a, 0x1.fffffep127);
  exact::set(b, -0x1p-149);
  exact::sub(r, exact::ptr(a), exact::ptr(b));
  EXPECT_EQ(to_q(exact::ptr(r)), Q(0x1.fffffep127) + Q(0x1p-149));
  exact::mul(r, exact::ptr(a), exact::ptr(b));
  EXPECT_EQ(to_q(exact::ptr(r)), Q(0x1.fffffep127) * Q(-0x1p-149));
  exact::mul_int(r, exact::ptr(a), 1000003);
  EXPECT_EQ(to_q(exact::ptr(r)), Q(0x1.fffffep127) * 1000003);
  std::vector<Real> t(5);
  const double v[] = {0x1p127, 0x1p-149, -0x1p127, 3.0, -0x1p-100};
  std::vector<mpfr_srcptr> p;
  Q want = 0;
  exact::Accumulator acc;
  for (int i = 0; i < 5; ++i) {
    exact::set(t[i], v[i]);
    p.push_back(exact::ptr(t[i]));
    want += Q(v[i]);
    acc.add(v[i]);
  }
  exact::sum(r, p);
  EXPECT_EQ(to_q(exact::ptr(r)), want);
  EXPECT_EQ(to_q(acc.value()), want);
  EXPECT_EQ(acc.count(), 5);
  EXPECT_THROW(exact::require_exact(1, "test"), std::logic_error);
  EXPECT_NO_THROW(exact::require_exact(0, "test"));
  // IEEE specials through the accumulator.
  exact::Accumulator s;
  s.add(kInf);
  s.add(1.0);
  EXPECT_TRUE(mpfr_inf_p(s.value()));
  s.add(-kInf);
  EXPECT_TRUE(mpfr_nan_p(s.value()));
}

TEST(LayerNormExactSum, RoundQuotientMatchesRational) {
  // a / n rounded once, incl. ties (n with a power-of-two part), subnormal results and overflow.
  std::mt19937_64 rng(21);
  std::uniform_int_distribution<int64_t> sig(1, (int64_t{1} << 40) - 1);
  std::uniform_int_distribution<int> ex(-200, 160);
  std::uniform_int_distribution<int64_t> nn(1, 2000);
  exact::Real a;
  for (int trial = 0; trial < 30000; ++trial) {
    int64_t n = trial % 5 == 0 ? int64_t{1} << (trial % 13) : nn(rng);
    // Multiples of n make exact quotients (and, with few bits, ties) frequent.
    int64_t s = trial % 3 == 0 ? (sig(rng) % 4096) * n : sig(rng);
    if (trial % 2) s = -s;
    const int e = trial % 4 == 0 ? ex(rng) / 8 : ex(rng);
    mpfr_set_prec(exact::ptr(a), 64);
    mpfr_set_si_2exp(exact::ptr(a), static_cast<long>(s), e, MPFR_RNDN);  // exact
    const Q q = Q(s) *
                (e >= 0 ? Q(boost::multiprecision::mpz_int(1) << e)
                        : Q(1) / Q(boost::multiprecision::mpz_int(1) << -e)) /
                Q(n);
    for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      const uint64_t got = exact::round_quotient(exact::ptr(a), n, t), want = ieee_round(q, t);
      ASSERT_EQ(got, want) << "s=" << s << " e=" << e << " n=" << n << " " << dtype_name(t);
    }
  }
  // Explicit ties: 2049 / 1 and (3 * 2049) / 3 are fp16 ties (2048 or 2050): to even, 2048;
  // 2051 / 1 rounds to 2052; 4097 * 2^-1 / 2 = 1024.25 is exact in fp32.
  const auto rq = [&](double v, int64_t n, DType t) {
    mpfr_set_prec(exact::ptr(a), 64);
    mpfr_set_d(exact::ptr(a), v, MPFR_RNDN);
    return exact::round_quotient(exact::ptr(a), n, t);
  };
  EXPECT_EQ(rq(2049, 1, DType::kFloat16), bits_from_double(2048, DType::kFloat16));
  EXPECT_EQ(rq(3 * 2049, 3, DType::kFloat16), bits_from_double(2048, DType::kFloat16));
  EXPECT_EQ(rq(4 * 2051, 4, DType::kFloat16), bits_from_double(2052, DType::kFloat16));
  EXPECT_EQ(rq(2048.5, 2, DType::kFloat32), bits_from_double(1024.25, DType::kFloat32));
  // Just above a tie: (3 * 2049 + 2^-30) / 3 is not a tie and rounds up to 2050.
  EXPECT_EQ(rq(3 * 2049 + 0x1p-30, 3, DType::kFloat16), bits_from_double(2050, DType::kFloat16));
}

}  // namespace
