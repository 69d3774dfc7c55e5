// GroupedBiasAddGrad oracle: statuses in the spec's order, and values against an independent
// evaluation (exact rationals with GMP, rounded by MPFR's own IEEE emulation).
#include <gtest/gtest.h>

#include <cstdint>
// clang-format off
#include <mpfr.h>
// clang-format on
#include <boost/multiprecision/gmp.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "reference/grouped_bias_add_grad.hpp"
#include "reference/rounding.hpp"
#include "independent_rounding.hpp"

namespace {
using namespace aclnn_ref;
using Q = boost::multiprecision::mpq_rational;

// The independent single rounding (tests/reference/independent_rounding.hpp) of an exact rational.
uint64_t ieee_round(const Q &q, DType t) {
  return independent::ieee_round(q.backend().data(), t);
}

bool same_value(uint64_t a, uint64_t b, DType t) {
  if (a == b) return true;
  const double x = decode(&a, t), y = decode(&b, t);
  return (x == 0 && y == 0) || (std::isnan(x) && std::isnan(y));
}

HostTensor make(DType t, std::vector<int64_t> shape, const std::vector<double> &v) {
  HostTensor h(t, std::move(shape));
  for (int64_t i = 0; i < h.numel(); ++i)
    h.set_bits(i, bits_from_double(v[static_cast<size_t>(i)], t));
  return h;
}

HostTensor make_idx(DType t, const std::vector<int64_t> &v) {
  HostTensor h(t, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    h.set_bits(static_cast<int64_t>(i), static_cast<uint64_t>(v[i]));
  return h;
}

// Random values of dtype t: mixed signs, magnitudes over 2^-20..2^20 (cancellation-prone).
std::vector<double> random_values(std::mt19937_64 &rng, int64_t n, int spread = 20) {
  std::uniform_real_distribution<double> m(1, 2);
  std::uniform_int_distribution<int> e(-spread, spread), s(0, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto &x : v) x = (s(rng) ? -1 : 1) * std::ldexp(m(rng), e(rng));
  return v;
}

// Independent evaluation of out[g, h] for rows [begin, end) of a rank-2 gradY.
void check_against_rational(const HostTensor &y, const std::vector<int64_t> &ends,
                            const ExpectedOutput &e) {
  const int64_t h = y.shape[1];
  int64_t begin = 0;
  for (size_t g = 0; g < ends.size(); ++g) {
    for (int64_t col = 0; col < h; ++col) {
      Q s = 0, a = 0;
      for (int64_t r = begin; r < ends[g]; ++r) {
        const Q v(y.at(r * h + col));
        s += v;
        a += abs(v);
      }
      const int64_t i = static_cast<int64_t>(g) * h + col;
      ASSERT_TRUE(same_value(e.values.bits(i), ieee_round(s, y.dtype), y.dtype))
          << "group " << g << " col " << col;
      EXPECT_EQ(e.term_count[static_cast<size_t>(i)], ends[g] - begin);
      // error_scale is sum|terms| rounded up to a double.
      EXPECT_GE(Q(e.error_scale[static_cast<size_t>(i)]), a);
      const Q slack = Q(1) + Q(static_cast<double>(ends[g] - begin + 1)) * Q(0x1p-52);
      EXPECT_LE(Q(e.error_scale[static_cast<size_t>(i)]), a * slack);
    }
    begin = ends[g];
  }
}

struct Case {
  HostTensor y, idx, out;
  TensorView yv, iv, ov;
  GroupedBiasAddGradCall call;
  Case(HostTensor y_, HostTensor idx_, std::vector<int64_t> out_shape, bool with_idx = true)
      : y(std::move(y_)), idx(std::move(idx_)), out(y.dtype, std::move(out_shape)) {
    yv = y.view();
    iv = idx.view();
    ov = out.view();
    call.grad_y = &yv;
    call.group_idx = with_idx ? &iv : nullptr;
    call.out = &ov;
  }
  Case(const Case &) = delete;  // the call points into this object
  Case &operator=(const Case &) = delete;
};

TEST(GroupedBiasAddGrad, SeedExampleWithGroupIdxAllDtypes) {
  std::mt19937_64 rng(1);
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (DType it : {DType::kInt64, DType::kInt32}) {
      Case c(make(t, {1000, 30}, random_values(rng, 30000, t == DType::kFloat16 ? 10 : 20)),
             make_idx(it, {400, 600, 1000}), {3, 30});
      ASSERT_TRUE(grouped_bias_add_grad_check(c.call).ok());
      const auto e = grouped_bias_add_grad_values(c.call);
      ASSERT_EQ(e.size(), 1u);
      EXPECT_EQ(e[0].name, "out");
      EXPECT_TRUE(e[0].written);
      check_against_rational(c.y, {400, 600, 1000}, e[0]);
    }
  }
}

TEST(GroupedBiasAddGrad, SeedExampleWithoutGroupIdx) {
  std::mt19937_64 rng(2);
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    const auto v = random_values(rng, 10 * 100 * 30, 10);
    Case c(make(t, {10, 100, 30}, v), HostTensor(), {10, 30}, false);
    ASSERT_TRUE(grouped_bias_add_grad_check(c.call).ok());
    const auto e = grouped_bias_add_grad_values(c.call);
    // gradY[g] is a (100, 30) block: the same sums as a rank-2 gradY with groups of 100 rows.
    HostTensor flat = c.y;
    flat.shape = {1000, 30};
    std::vector<int64_t> ends;
    for (int g = 1; g <= 10; ++g) ends.push_back(100 * g);
    check_against_rational(flat, ends, e[0]);
  }
}

TEST(GroupedBiasAddGrad, Type1SizesEqualType0Offsets) {
  std::mt19937_64 rng(3);
  const auto v = random_values(rng, 50 * 7);
  Case a(make(DType::kFloat32, {50, 7}, v), make_idx(DType::kInt64, {10, 10, 25, 50}), {4, 7});
  Case b(make(DType::kFloat32, {50, 7}, v), make_idx(DType::kInt32, {10, 0, 15, 25}), {4, 7});
  a.call.v2 = b.call.v2 = true;
  b.call.group_idx_type = 1;
  ASSERT_TRUE(grouped_bias_add_grad_check(b.call).ok());
  const auto ea = grouped_bias_add_grad_values(a.call), eb = grouped_bias_add_grad_values(b.call);
  EXPECT_EQ(ea[0].values.bytes, eb[0].values.bytes);
  check_against_rational(b.y, {10, 10, 25, 50}, eb[0]);
}

TEST(GroupedBiasAddGrad, EmptyGroupsAndEmptyGradY) {
  std::mt19937_64 rng(4);
  Case c(make(DType::kFloat16, {6, 3}, random_values(rng, 18, 5)),
         make_idx(DType::kInt64, {0, 2, 2, 6, 6}), {5, 3});
  const auto e = grouped_bias_add_grad_values(c.call);
  for (int g : {0, 2, 4})
    for (int col = 0; col < 3; ++col) {
      EXPECT_EQ(e[0].values.bits(g * 3 + col), 0u);  // +0
      EXPECT_EQ(e[0].term_count[static_cast<size_t>(g * 3 + col)], 0);
    }
  check_against_rational(c.y, {0, 2, 2, 6, 6}, e[0]);

  // C = 0 without groupIdx: rows of +0; empty gradY with groupIdx (0, 0): zeros, written.
  Case z(HostTensor(DType::kFloat32, {4, 0, 5}), HostTensor(), {4, 5}, false);
  ASSERT_TRUE(grouped_bias_add_grad_check(z.call).ok());
  auto ez = grouped_bias_add_grad_values(z.call);
  EXPECT_TRUE(ez[0].written);
  for (int64_t i = 0; i < 20; ++i) EXPECT_EQ(ez[0].values.bits(i), 0u);
  Case z2(HostTensor(DType::kBFloat16, {0, 5}), make_idx(DType::kInt32, {0, 0}), {2, 5});
  ASSERT_TRUE(grouped_bias_add_grad_check(z2.call).ok());
  EXPECT_TRUE(grouped_bias_add_grad_values(z2.call)[0].written);
  // Variant empty-untouched: an empty gradY leaves out unwritten; a non-empty one is written.
  EXPECT_FALSE(grouped_bias_add_grad_values(z.call, {"empty-untouched"})[0].written);
  EXPECT_FALSE(grouped_bias_add_grad_values(z2.call, {"empty-untouched"})[0].written);
  EXPECT_TRUE(grouped_bias_add_grad_values(c.call, {"empty-untouched"})[0].written);
  EXPECT_EQ(grouped_bias_add_grad_variants(), std::vector<std::string_view>{"empty-untouched"});
}

TEST(GroupedBiasAddGrad, CancellationIsExact) {
  // 2^100 + 1 - 2^100 = 1 exactly (a FLOAT accumulation gives 0); 2^-140 survives 2^20 - 2^20.
  Case c(make(DType::kFloat32, {3, 2}, {0x1p100, 0x1p20, 1.0, 0x1p-140, -0x1p100, -0x1p20}),
         make_idx(DType::kInt64, {3}), {1, 2});
  const auto e = grouped_bias_add_grad_values(c.call);
  EXPECT_EQ(e[0].values.at(0), 1.0);
  EXPECT_EQ(e[0].values.at(1), 0x1p-140);
  EXPECT_EQ(e[0].exact_nearest[0], 1.0);
  // 2^101 + 1 is not a double: rounded up, the next double above 2^101.
  EXPECT_EQ(e[0].error_scale[0], std::nextafter(0x1p101, 0x1p102));
  // fp16: 65504 + 16 overflows to +inf only if the exact sum does: 65504 + 15.999 - 15.999.
  Case h(make(DType::kFloat16, {3, 1}, {65504, 16, -16}), make_idx(DType::kInt64, {3}), {1, 1});
  EXPECT_EQ(grouped_bias_add_grad_values(h.call)[0].values.bits(0), 0x7bffu);
  Case o(make(DType::kFloat16, {2, 1}, {65504, 16}), make_idx(DType::kInt64, {2}), {1, 1});
  EXPECT_EQ(grouped_bias_add_grad_values(o.call)[0].values.bits(0), 0x7c00u);  // tie to even: inf
}

TEST(GroupedBiasAddGrad, SpecialsFollowIeee) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Case c(make(DType::kFloat32, {3, 4}, {inf, inf, nan, 1, -inf, 1, 2, 3, 1, 2, 3, -4}),
         make_idx(DType::kInt32, {3}), {1, 4});
  const auto e = grouped_bias_add_grad_values(c.call);
  EXPECT_TRUE(std::isnan(e[0].values.at(0)));  // +inf + -inf
  EXPECT_EQ(e[0].values.at(1), inf);
  EXPECT_TRUE(std::isnan(e[0].values.at(2)));
  EXPECT_EQ(e[0].values.at(3), 0.0);
}

TEST(GroupedBiasAddGrad, StridedGradYMatchesContiguous) {
  std::mt19937_64 rng(5);
  const auto v = random_values(rng, 8 * 6);
  HostTensor y = make(DType::kFloat32, {8, 6}, v);
  // The transposed view of a (6, 8) buffer holding the same elements.
  HostTensor t(DType::kFloat32, {6, 8});
  for (int r = 0; r < 8; ++r)
    for (int col = 0; col < 6; ++col) t.set_bits(col * 8 + r, y.bits(r * 6 + col));
  Case a(y, make_idx(DType::kInt64, {3, 8}), {2, 6});
  Case b(y, make_idx(DType::kInt64, {3, 8}), {2, 6});
  TensorView tv{DType::kFloat32, {8, 6}, {1, 8}, 0, t.bytes.data()};
  b.call.grad_y = &tv;
  EXPECT_EQ(grouped_bias_add_grad_values(a.call)[0].values.bytes,
            grouped_bias_add_grad_values(b.call)[0].values.bytes);
}

// ---- statuses ----

Verdict run(Case &c) {
  return grouped_bias_add_grad_check(c.call);
}

TEST(GroupedBiasAddGrad, ErrorsEveryClause) {
  auto base = [] {
    return Case(make(DType::kFloat32, {4, 3}, std::vector<double>(12, 1.0)),
                make_idx(DType::kInt64, {1, 4}), {2, 3});
  };
  {
    Case c = base();
    EXPECT_TRUE(run(c).ok());
  }
  for (Product p : {Product::kAtlasTraining, Product::kAtlasInference}) {
    Case c = base();
    c.call.product = p;
    const Verdict v = run(c);
    EXPECT_EQ(v.status, 161002);
    EXPECT_EQ(v.clause, "ABI-SOC-1");
  }
  {
    Case c = base();
    c.call.product = Product::kAtlasA3;
    EXPECT_TRUE(run(c).ok());
  }
  const auto expect = [](Case &c, int32_t st, const char *clause) {
    const Verdict v = run(c);
    EXPECT_EQ(v.status, st) << clause << ": " << v.reason;
    EXPECT_EQ(v.clause, clause) << v.reason;
    EXPECT_FALSE(grouped_bias_add_grad_values(c.call)[0].written);
  };
  {
    Case c = base();
    c.call.grad_y = nullptr;
    expect(c, 161001, "GBAG-NULL-1");
  }
  {
    Case c = base();
    c.call.out = nullptr;
    expect(c, 161001, "GBAG-NULL-1");
  }
  {
    Case c = base();
    c.call.group_idx = nullptr;  // groupIdx may be NULL: then rank 3 is needed
    expect(c, 161002, "GBAG-RANK-1");
  }
  {
    Case c = base();
    c.yv.dtype = DType::kFloat64;
    c.ov.dtype = DType::kFloat64;
    expect(c, 161002, "GBAG-DTYPE-1");
  }
  {
    Case c = base();
    c.ov.dtype = DType::kFloat16;
    expect(c, 161002, "GBAG-DTYPE-1");
  }
  {
    Case c = base();
    c.iv.dtype = DType::kUInt64;
    expect(c, 161002, "GBAG-DTYPE-1");
  }
  {
    Case c = base();
    c.iv.shape = {1, 2};
    c.iv.strides = {2, 1};
    expect(c, 161002, "GBAG-RANK-1");
  }
  {
    Case c = base();
    c.ov.shape = {2, 3, 1};
    c.ov.strides = {3, 1, 1};
    expect(c, 161002, "GBAG-RANK-1");
  }
  {
    Case c(make(DType::kFloat32, {4, 3}, std::vector<double>(12, 1.0)),
           make_idx(DType::kInt64, std::vector<int64_t>(2049, 4)), {2049, 3});
    expect(c, 161002, "GBAG-GMAX-1");
    Case ok(make(DType::kFloat32, {4, 3}, std::vector<double>(12, 1.0)),
            make_idx(DType::kInt64, std::vector<int64_t>(2048, 4)), {2048, 3});
    EXPECT_TRUE(run(ok).ok()) << run(ok).reason;
  }
  {
    Case c = base();
    c.ov.shape = {3, 3};
    expect(c, 161002, "GBAG-SHAPE-1");
    c.ov.shape = {2, 4};
    expect(c, 161002, "GBAG-SHAPE-1");
  }
  {
    Case c = base();
    c.call.v2 = true;
    c.call.group_idx_type = 2;
    expect(c, 161002, "GBAG-TYPE-1");
    c.call.v2 = false;  // V1 has no type argument: behaves as type 0
    EXPECT_TRUE(run(c).ok());
  }
  // GBAG-IDX-1: the precondition violations (the implementation reports 161002).
  const auto idx_case = [&](DType it, std::vector<int64_t> idx, int64_t type) {
    Case c(make(DType::kFloat32, {4, 3}, std::vector<double>(12, 1.0)), make_idx(it, idx),
           {static_cast<int64_t>(idx.size()), 3});
    c.call.v2 = true;
    c.call.group_idx_type = type;
    return grouped_bias_add_grad_check(c.call);
  };
  for (auto &&[idx, type] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{3, 1, 4}, 0},                 // decreasing
           {{-1, 4}, 0},                   // negative
           {{1, 3}, 0},                    // last != dim0
           {{}, 0},                        // no groups but 4 rows
           {{1, 1, 1}, 1},                 // sum 3 != 4
           {{5, -1}, 1},                   // negative size
           {{int64_t{1} << 31, 4}, 0}}) {  // > INT32_MAX
    const Verdict v = idx_case(DType::kInt64, idx, type);
    EXPECT_EQ(v.status, 161002) << v.reason << " case of size " << idx.size();
    EXPECT_EQ(v.clause, "GBAG-IDX-1") << v.reason;
  }
  EXPECT_TRUE(idx_case(DType::kInt32, {4, 0}, 1).ok());
  EXPECT_TRUE(idx_case(DType::kInt32, {0, 4, 4}, 0).ok());
}

TEST(GroupedBiasAddGrad, CheckOrderConflicts) {
  // SOC before NULL; NULL before DTYPE; DTYPE before RANK; RANK before GMAX; GMAX before SHAPE;
  // SHAPE before TYPE; TYPE before IDX.
  Case c(make(DType::kFloat32, {4, 3}, std::vector<double>(12, 1.0)),
         make_idx(DType::kInt64, std::vector<int64_t>(2049, 7)), {5, 3});
  c.call.v2 = true;
  c.call.group_idx_type = 9;
  EXPECT_EQ(run(c).clause, "GBAG-GMAX-1");  // also SHAPE, TYPE and IDX
  c.iv.shape = {2, 2049 / 2};
  c.iv.strides = {1, 1};
  EXPECT_EQ(run(c).clause, "GBAG-RANK-1");
  c.ov.dtype = DType::kFloat16;
  EXPECT_EQ(run(c).clause, "GBAG-DTYPE-1");
  c.call.out = nullptr;
  EXPECT_EQ(run(c).clause, "GBAG-NULL-1");
  c.call.product = Product::kAtlasInference;
  EXPECT_EQ(run(c).clause, "ABI-SOC-1");

  Case d(make(DType::kFloat32, {4, 3}, std::vector<double>(12, 1.0)),
         make_idx(DType::kInt64, {3, 1}), {3, 3});
  d.call.v2 = true;
  d.call.group_idx_type = 5;
  EXPECT_EQ(run(d).clause, "GBAG-SHAPE-1");  // also TYPE and IDX
  d.ov.shape = {2, 3};
  EXPECT_EQ(run(d).clause, "GBAG-TYPE-1");  // also IDX
  d.call.group_idx_type = 0;
  EXPECT_EQ(run(d).clause, "GBAG-IDX-1");
}

}  // namespace
