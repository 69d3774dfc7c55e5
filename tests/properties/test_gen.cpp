// Meta-tests of the generators: they stay within their limits and reach the cases they promise.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "properties/budget.hpp"
#include "properties/gen.hpp"
#include "reference/dtype.hpp"

namespace {
using namespace aclnn_conform;
using aclnn_ref::DType;

int64_t product(const gen::Shape &s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

ACLNN_PROP_COVERING(GenShape, StaysWithinLimitsAndReachesEdges, 400,
                    ({"rank0", "rank8", "zero-dim", "unit-dim"}), ()) {
  const auto s = *gen::shape({0, 8, 512, true});
  RC_ASSERT(s.size() <= 8u);
  RC_ASSERT(product(s) <= 512);
  for (auto d : s) RC_ASSERT(d >= 0);
  RC_CLASSIFY(s.empty(), "rank0");
  RC_CLASSIFY(s.size() == 8, "rank8");
  RC_CLASSIFY(std::find(s.begin(), s.end(), 0) != s.end(), "zero-dim");
  RC_CLASSIFY(std::find(s.begin(), s.end(), 1) != s.end(), "unit-dim");
}

// The broadcast of the pair is exactly the shape it was made for (ABI-BCAST-1 generators).
ACLNN_PROP_COVERING(GenBroadcast, PairBroadcastsToItsShape, 300,
                    ({"a-stretched", "b-stretched", "rank-differs"}), ()) {
  const auto out = *gen::shape({1, 6, 256, true});
  const auto [a, b] = *gen::broadcast_pair(out);
  const size_t r = std::max(a.size(), b.size());
  RC_ASSERT(r == out.size());
  bool a_stretched = false, b_stretched = false;
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    const int64_t o = out[out.size() - 1 - i];
    RC_ASSERT(da == db || da == 1 || db == 1);
    RC_ASSERT((da == 1 ? db : da) == o);
    a_stretched |= da == 1 && o > 1;
    b_stretched |= db == 1 && o > 1;
  }
  RC_CLASSIFY(a_stretched, "a-stretched");
  RC_CLASSIFY(b_stretched, "b-stretched");
  RC_CLASSIFY(a.size() != b.size(), "rank-differs");
}

// Every view fits its storage and reaches the layouts it promises.
ACLNN_PROP_COVERING(GenLayout, ViewsFitTheirStorage, 400,
                    ({"permuted", "stepped", "offset", "expanded", "contiguous"}), ()) {
  const auto s = *gen::shape({0, 5, 512, true});
  const auto a = *gen::layout(s, DType::kFloat16, {true, true, true, true});
  RC_ASSERT(a.strides.size() == s.size());
  int64_t reach = a.offset;
  bool empty = false, expanded = false, stepped = false, permuted = false;
  for (size_t d = 0; d < s.size(); ++d) {
    RC_ASSERT(a.strides[d] >= 0);
    if (s[d] == 0)
      empty = true;
    else
      reach += (s[d] - 1) * a.strides[d];
    expanded |= s[d] > 1 && a.strides[d] == 0;
    if (d + 1 < s.size() && s[d] > 1 && s[d + 1] > 1 && a.strides[d] < a.strides[d + 1] &&
        a.strides[d] > 0)
      permuted = true;
  }
  if (!empty) RC_ASSERT(reach < a.storage_elements());
  const auto contiguous = aclnn_ref::contiguous_strides(s);
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] > 1 && a.strides[d] != 0 && a.strides[d] % std::max<int64_t>(contiguous[d], 1) == 0 &&
        a.strides[d] > contiguous[d])
      stepped = true;
  RC_CLASSIFY(permuted, "permuted");
  RC_CLASSIFY(stepped, "stepped");
  RC_CLASSIFY(a.offset > 0, "offset");
  RC_CLASSIFY(expanded, "expanded");
  RC_CLASSIFY(a.offset == 0 && a.strides == contiguous, "contiguous");
}

// Values reach every special class of each float dtype, unlike rapidcheck's own generators.
ACLNN_PROP_COVERING(GenValues, ReachSpecialClasses, 1500,
                    ({"nan", "+inf", "-inf", "+0", "-0", "subnormal", "normal"}), ()) {
  const auto t = *rc::gen::element(DType::kFloat16, DType::kBFloat16, DType::kFloat32);
  const uint64_t b = *gen::value_bits(t);
  uint32_t bits32 = static_cast<uint32_t>(b);
  uint16_t bits16 = static_cast<uint16_t>(b);
  const double v =
      t == DType::kFloat32 ? aclnn_ref::decode(&bits32, t) : aclnn_ref::decode(&bits16, t);
  const auto fmt = aclnn_ref::float_format(t);
  RC_CLASSIFY(std::isnan(v), "nan");
  RC_CLASSIFY(v == INFINITY, "+inf");
  RC_CLASSIFY(v == -INFINITY, "-inf");
  RC_CLASSIFY(v == 0 && !std::signbit(v), "+0");
  RC_CLASSIFY(v == 0 && std::signbit(v), "-0");
  RC_CLASSIFY(v != 0 && std::isfinite(v) && std::fabs(v) < std::ldexp(1.0, fmt.emin), "subnormal");
  RC_CLASSIFY(std::isfinite(v) && std::fabs(v) >= std::ldexp(1.0, fmt.emin), "normal");
}

TEST(GenValues, StepUlpsWalksTheNumberLine) {
  const uint64_t one = gen::bits_of(1.0, DType::kFloat16);
  EXPECT_EQ(one, 0x3c00u);
  EXPECT_EQ(gen::step_ulps(one, DType::kFloat16, 1), 0x3c01u);
  EXPECT_EQ(gen::step_ulps(one, DType::kFloat16, -1), 0x3bffu);
  EXPECT_EQ(gen::step_ulps(0x0000, DType::kFloat16, -1), 0x8001u);  // +0 - 1 ulp = -min subnormal
  EXPECT_EQ(gen::step_ulps(0x8001, DType::kFloat16, 1), 0x8000u);
  EXPECT_EQ(gen::step_ulps(0x7bff, DType::kFloat16, 1), 0x7c00u);  // max -> inf
  EXPECT_EQ(gen::step_ulps(0x7c00, DType::kFloat16, 1), 0x7c00u);  // saturates at inf
}

}  // namespace
