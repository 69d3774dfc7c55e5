// Value sweeps (properties/sweep.hpp): what a sweep holds, how it shrinks, and the climb start made
// from one of its elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "properties/splitmix.hpp"
#include "properties/sweep.hpp"
#include "reference/dtype.hpp"

namespace {
using namespace aclnn_conform;
using aclnn_ref::DType;

const OpDescriptor &op_named(const std::string &name) {
  const OpDescriptor *op = find_op(name);
  if (!op) throw std::logic_error("no op " + name);
  return *op;
}

TEST(ValueSweep, ElementwiseSweepsForRangeLimitsRefilledLargeCallsForTheOthers) {
  std::set<std::string> elementwise, all;
  for (const auto *op : registry()) {
    if (has_elementwise_sweeps(*op)) elementwise.insert(op->name);
    if (has_value_sweeps(*op)) all.insert(op->name);
  }
  EXPECT_EQ(elementwise, (std::set<std::string>{"GeluBackward", "SeluBackward", "LogitGrad"}));
  EXPECT_EQ(all.size(), registry().size());
  EXPECT_THROW(value_sweep_case(op_named("LayerNormBackward"), Product::kAtlasA2, 1),
               std::logic_error);
}

// A refilled large call is still a valid call of its op; its float inputs are all finite (NaN
// and infinities replaced), keep their sign bits and mostly lie in [1/16, 16); integers and
// outputs stay.
TEST(ValueSweep, RefilledLargeCallsAreFiniteKeepSignsAndValidity) {
  int64_t specials_seen = 0;
  for (const char *name : {"LayerNormBackward", "GroupedBiasAddGrad", "GroupedBiasAddGradV2"}) {
    const OpDescriptor &op = op_named(name);
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      const Case before = op.gen_large(Product::kAtlasA2)(rc::Random(seed), 50).value();
      Case after = before;
      refill_values(op, after, seed);
      EXPECT_TRUE(op.check(after, {}).ok()) << name << ": " << after.describe();
      ASSERT_EQ(before.tensors.size(), after.tensors.size());
      int64_t finite = 0, typical = 0, changed = 0, specials = 0;
      for (size_t k = 0; k < before.tensors.size(); ++k) {
        const TensorArg &b = before.tensors[k].second, &a = after.tensors[k].second;
        ASSERT_EQ(b.shape, a.shape);
        const bool output = std::find(op.outputs.begin(), op.outputs.end(),
                                      before.tensors[k].first) != op.outputs.end();
        if (!b.present || output || !aclnn_ref::is_floating(b.dtype)) {
          EXPECT_EQ(b.storage, a.storage) << name << " " << before.tensors[k].first;
          continue;
        }
        for (int64_t i = 0; i < b.numel(); ++i) {
          const double vb = b.view().at(i), va = a.view().at(i);
          EXPECT_TRUE(std::isfinite(va))
              << name << " " << before.tensors[k].first << "[" << i << "] = " << va;
          EXPECT_EQ(std::signbit(va), std::signbit(vb));
          typical += std::fabs(va) >= 1.0 / 16 && std::fabs(va) < 16;
          if (!std::isfinite(vb)) {
            ++specials;
            continue;
          }
          ++finite;
          changed += a.bits_at(i) != b.bits_at(i);
        }
      }
      if (finite + specials == 0) continue;  // an empty large call (a group of no rows)
      EXPECT_GT(changed, finite * 9 / 10) << name;
      EXPECT_GT(typical, (finite + specials) / 2) << name;
      specials_seen += specials;
    }
  }
  EXPECT_GT(specials_seen, 0) << "no large call held a NaN or infinity to replace";
}

// A row sweep is a refilled large call, valid and the same for the same seed; half of them (by
// the seed) are FLOAT calls, where a window of a few hundred ulps is rare, and the others of any
// float dtype.
TEST(ValueSweep, RowSweepsAreValidAndFloatCallsInHalfOfThem) {
  for (const char *name : {"LayerNormBackward", "GroupedBiasAddGrad", "GroupedBiasAddGradV2"}) {
    const OpDescriptor &op = op_named(name);
    int float_calls = 0;
    std::set<DType> dtypes;
    constexpr int kSeeds = 24;
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      const Case c = value_sweep_shrinkable(op, Product::kAtlasA2, seed, 50).value();
      EXPECT_EQ(to_json(c),
                to_json(value_sweep_shrinkable(op, Product::kAtlasA2, seed, 50).value()));
      EXPECT_TRUE(op.check(c, {}).ok()) << name << ": " << c.describe();
      const DType t = widest_float_input(op, c);
      dtypes.insert(t);
      float_calls += t == DType::kFloat32;
      if (splitmix64(seed) & 1) EXPECT_EQ(t, DType::kFloat32) << name << " seed " << seed;
      if (const AttrValue *mask = c.attr("outputMask"))
        EXPECT_EQ(std::get<std::vector<bool>>(*mask), std::vector<bool>(3, true))
            << name << ": a sweep requests every output";
    }
    EXPECT_GE(float_calls, kSeeds / 2) << name;
    EXPECT_LT(float_calls, kSeeds) << name;
    EXPECT_GE(dtypes.size(), 2u) << name;
  }
}

TEST(ValueSweep, EveryDtypeIsAValidCallTheSameForTheSameSeed) {
  for (const char *name : {"GeluBackward", "SeluBackward", "LogitGrad"}) {
    const OpDescriptor &op = op_named(name);
    std::set<DType> dtypes;
    for (uint64_t seed = 1; seed <= 12 && dtypes.size() < 3; ++seed) {
      const Case c = value_sweep_case(op, Product::kAtlasA2, seed);
      EXPECT_TRUE(op.check(c, {}).ok()) << name << " seed " << seed << ": " << c.describe();
      for (const auto &[n, t] : c.tensors) EXPECT_EQ(t.numel(), kSweepElements) << n;
      EXPECT_EQ(to_json(c), to_json(value_sweep_case(op, Product::kAtlasA2, seed)));
      dtypes.insert(c.tensors.front().second.dtype);
    }
    EXPECT_EQ(dtypes.size(), 3u) << name << ": fp32, fp16 and bf16 sweeps";
  }
}

// LogitGrad's sweeps take eps across its regimes (LOGIT-VALUE-1, LOGIT-EPS-*), 0.001 in about a
// third; every one a valid call.
TEST(ValueSweep, LogitGradSweepsTakeEpsAcrossItsRegimes) {
  const OpDescriptor &op = op_named("LogitGrad");
  std::map<double, int> eps;
  constexpr int kSeeds = 96;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const Case c = value_sweep_case(op, Product::kAtlasA2, seed);
    EXPECT_TRUE(op.check(c, {}).ok()) << "seed " << seed << ": " << c.describe();
    const AttrValue *a = c.attr("eps");
    ASSERT_NE(a, nullptr);
    ++eps[std::get<double>(*a)];
  }
  EXPECT_GT(eps[0.001], kSeeds / 5);
  for (const double e : {-1.0, 0.0, 0.3, 0.5, 1.0, 2.0}) EXPECT_GT(eps[e], 0) << "eps " << e;
}

// A quarter of the sweeps are mixed-dtype calls where the op accepts one (GeluBackward: dy and the
// output in other float dtypes than x, promoted); SeluBackward and LogitGrad take one dtype.
TEST(ValueSweep, MixedDtypeSweepsWhereTheOpAcceptsThem) {
  constexpr int kSeeds = 64;
  for (const char *name : {"GeluBackward", "SeluBackward", "LogitGrad"}) {
    const OpDescriptor &op = op_named(name);
    int mixed = 0;
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      const Case c = value_sweep_case(op, Product::kAtlasA2, seed);
      EXPECT_TRUE(op.check(c, {}).ok()) << name << " seed " << seed << ": " << c.describe();
      mixed += c.tensor(op.range_limits.x)->dtype != c.tensor(op.range_limits.dy)->dtype;
    }
    if (std::string(name) == "GeluBackward") {
      EXPECT_GT(mixed, kSeeds / 8) << name;
      EXPECT_LT(mixed, kSeeds / 2) << name;
    } else {
      EXPECT_EQ(mixed, 0) << name;
    }
  }
}

// Half the elementwise sweeps are FLOAT (a 16-bit sweep holds every x pattern already).
TEST(ValueSweep, HalfTheElementwiseSweepsAreFloat) {
  const OpDescriptor &op = op_named("GeluBackward");
  std::map<DType, int> count;
  constexpr int kSeeds = 64;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed)
    ++count[value_sweep_case(op, Product::kAtlasA2, seed).tensor(op.range_limits.x)->dtype];
  EXPECT_GT(count[DType::kFloat32], kSeeds * 3 / 8);
  EXPECT_GT(count[DType::kFloat16], kSeeds / 8);
  EXPECT_GT(count[DType::kBFloat16], kSeeds / 8);
}

TEST(ValueSweep, SixteenBitXTakesEveryPatternAndFp32XLiesMostlyWhereValuesUsuallyLie) {
  const OpDescriptor &op = op_named("GeluBackward");
  const std::string x = op.range_limits.x;
  bool seen16 = false, seen32 = false;
  for (uint64_t seed = 1; seed <= 12 && !(seen16 && seen32); ++seed) {
    const Case c = value_sweep_case(op, Product::kAtlasA2, seed);
    const TensorArg &t = *c.tensor(x);
    if (t.dtype == DType::kFloat32) {
      seen32 = true;
      std::set<uint64_t> distinct;
      int64_t typical = 0;
      for (int64_t i = 0; i < t.numel(); ++i) {
        distinct.insert(t.bits_at(i));
        const double v = std::fabs(t.view().at(i));
        typical += v >= 1.0 / 16 && v < 16;
      }
      // Half drawn in [1/16, 16), plus what the wider draws put there.
      EXPECT_GT(typical, kSweepElements / 2);
      EXPECT_GT(static_cast<int64_t>(distinct.size()), kSweepElements * 9 / 10);
    } else {
      seen16 = true;
      std::set<uint64_t> patterns;
      for (int64_t i = 0; i < t.numel(); ++i) patterns.insert(t.bits_at(i));
      EXPECT_EQ(static_cast<int64_t>(patterns.size()), int64_t{65536});
    }
  }
  EXPECT_TRUE(seen16 && seen32);
}

TEST(ValueSweep, HalvingShrinksToTheOneElementThatFails) {
  const OpDescriptor &op = op_named("SeluBackward");
  const Case c = value_sweep_case(op, Product::kAtlasA2, 3);
  const std::string x = op.range_limits.x;
  const int64_t target = 40000;
  const uint64_t bits = c.tensor(x)->bits_at(target);
  const auto fails = [&](const Case &k) {
    const TensorArg &t = *k.tensor(x);
    for (int64_t i = 0; i < t.numel(); ++i)
      if (t.bits_at(i) == bits) return true;
    return false;
  };
  auto current = halving_shrinkable(c);
  int steps = 0;
  for (bool progress = true; progress;) {
    progress = false;
    auto shrinks = current.shrinks();
    int candidates = 0;
    while (auto next = shrinks.next()) {
      ++candidates;
      if (!fails(next->value())) continue;
      current = *next;
      ++steps;
      progress = true;
      break;
    }
    EXPECT_LE(candidates, 2);
  }
  const Case small = current.value();
  EXPECT_EQ(steps, 16);
  for (const auto &[n, t] : small.tensors) {
    ASSERT_EQ(t.numel(), 1) << n;
    EXPECT_EQ(t.bits_at(0), c.tensor(n)->bits_at(target)) << n;
  }
  EXPECT_TRUE(op.check(small, {}).ok());
}

TEST(ValueSweep, ElementCopiesRepeatTheInputsAndLeaveTheOutputACanary) {
  const OpDescriptor &op = op_named("LogitGrad");
  const Case c = value_sweep_case(op, Product::kAtlasA2, 5);
  const Case s = element_copies(op, c, 1234, 256);
  for (const auto &[n, t] : s.tensors) {
    ASSERT_EQ(t.numel(), 256) << n;
    const bool output = n == op.outputs[0];
    for (int64_t i = 0; i < 256; ++i) {
      if (output)
        EXPECT_EQ(t.storage[static_cast<size_t>(i)], kCanary);
      else
        EXPECT_EQ(t.bits_at(i), c.tensor(n)->bits_at(1234)) << n;
    }
  }
  EXPECT_TRUE(op.check(s, {}).ok());
}

}  // namespace
