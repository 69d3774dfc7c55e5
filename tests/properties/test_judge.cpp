// Meta-tests of the judge: it finds deviations when there are some, so passing properties mean
// something.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <set>

#include "properties/generic.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"

namespace {
using namespace aclnn_conform;

Case sample_valid(const OpDescriptor &op, uint64_t seed) {
  for (;; ++seed) {
    Case c = op.gen_valid(Product::kAtlasA2)(rc::Random(seed), 50).value();
    if (op.check(c, {}).ok() && c.tensor(op.outputs[0])->numel() > 8) return c;
  }
}

// The built-in library follows GELU-VALUE-1; judged against the tanh-approx variant it deviates.
TEST(Judge, FindsTheVariantTheImplementationDoesNotFollow) {
  const auto &op = gelu_backward_op();
  int deviating = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Case c = sample_valid(op, seed * 7919);
    const Outcome o = run_case(builtin_sut(), op, c);
    ASSERT_EQ(o.status, 0) << c.describe();
    EXPECT_TRUE(judge(op, c, o).pass()) << c.describe();
    JudgePolicy tanh;
    tanh.variants.add("tanh-approx");
    const Judgement j = judge(op, c, o, tanh);
    if (!j.pass()) {
      ++deviating;
      EXPECT_NE(j.failures().find("GELU-"), std::string::npos) << j.failures();
    }
  }
  EXPECT_GT(deviating, 10);
}

// A corrupted output element, a write outside the view, a modified input and a wrong status are
// each reported against the right clause.
TEST(Judge, ReportsCorruptionsAgainstTheirClauses) {
  const auto &op = gelu_backward_op();
  const Case c = sample_valid(op, 4242);
  const Outcome good = run_case(builtin_sut(), op, c);
  ASSERT_TRUE(judge(op, c, good).pass());
  const size_t out = 2;  // gradInput

  Outcome bad_value = good;
  const TensorArg &t = c.tensors[out].second;
  const size_t es = aclnn_ref::dtype_size(t.dtype);
  // Flip the low bits of the element at the view's first position... twice, to be well off.
  bad_value.storage_after[out][t.offset * es] ^= std::byte{0x5};
  bad_value.storage_after[out][t.offset * es + es - 1] ^= std::byte{0x40};
  EXPECT_FALSE(judge(op, c, bad_value).pass());

  Outcome bad_input = good;
  bad_input.storage_after[1][0] ^= std::byte{1};
  const auto j_input = judge(op, c, bad_input);
  EXPECT_FALSE(j_input.pass());
  EXPECT_NE(j_input.failures().find("ABI-INPUT-1"), std::string::npos) << j_input.failures();

  Outcome bad_guard = good;
  bad_guard.guards_intact[out] = false;
  EXPECT_NE(judge(op, c, bad_guard).failures().find("ABI-INPUT-1"), std::string::npos);

  Outcome rejected = good;
  rejected.status = 161002;
  rejected.phase = 1;
  EXPECT_FALSE(judge(op, c, rejected).pass());
}

}  // namespace

namespace {
using namespace aclnn_conform;

// VAL-TOL-1 and SELU-INT-1, clause by clause: for every op and output dtype, an element moved to
// exactly the bound of its clause conforms, and one unit (ulp) further is a deviation reported
// against that element's value clause. Float bounds are at the exact value: the moves go towards
// the exact value's side of the value of record, and the same number of steps on the far side is
// already a deviation when the exact value is not representable. Integers are exact: one unit off
// is a deviation. Outputs judged by the condition-aware sum bound (error_scale) are covered by the
// compare tests.
TEST(Judge, EachToleranceIsTheClausesAndNoWider) {
  int checked = 0;
  std::set<std::string> seen;  // op/dtype pairs
  for (const auto *op : registry()) {
    for (uint64_t seed = 1; seed <= 400; ++seed) {
      Case c = op->gen_valid(Product::kAtlasA2)(rc::Random(seed * 104729), 20).value();
      if (!op->check(c, {}).ok()) continue;
      const auto expected = op->values(c, {});
      for (const auto &e : expected) {
        if (!e.written || !e.error_scale.empty()) continue;
        size_t i = 0;
        while (i < c.tensors.size() && c.tensors[i].first != e.name) ++i;
        if (i == c.tensors.size() || !c.tensors[i].second.present) continue;
        const TensorArg &t = c.tensors[i].second;
        const std::string key = op->name + "/" + std::string(aclnn_ref::dtype_name(t.dtype));
        if (seen.count(key)) continue;
        const bool integer = t.dtype == DType::kInt8 || t.dtype == DType::kInt32;
        const double bound = aclnn_ref::Tolerance::ulp().ulp_bound(t.dtype);
        if (integer) EXPECT_EQ(bound, 0) << key;
        const size_t bits = aclnn_ref::dtype_size(t.dtype) * 8;
        // An element with a finite, non-zero value of record away from its binade's top (so
        // that bound + 1 steps up stay in the binade) or, for integers, below the maximum.
        int64_t k = -1;
        for (int64_t n = 0; n < e.values.numel() && k < 0; ++n) {
          const double v = e.values.at(n);
          if (!std::isfinite(v) || v == 0) continue;
          const uint64_t b = e.values.bits(n);
          if (integer) {
            if (std::fabs(v) < 100) k = n;
            continue;
          }
          const int mant = t.dtype == DType::kFloat32 ? 23 : t.dtype == DType::kFloat16 ? 10 : 7;
          const uint64_t m = b & ((uint64_t{1} << mant) - 1);
          if (m + static_cast<uint64_t>(bound) + 2 < (uint64_t{1} << mant) &&
              m > static_cast<uint64_t>(bound) + 2)
            k = n;
        }
        if (k < 0) continue;
        seen.insert(key);
        const Outcome good = run_case(builtin_sut(), *op, c);
        ASSERT_EQ(good.status, 0) << c.describe();
        // Which side of the value of record the exact value lies on (+1: larger magnitude).
        int exact_side = 0;
        if (!integer) {
          ASSERT_EQ(e.exact_nearest.size(), static_cast<size_t>(e.values.numel())) << key;
          const double ex = std::fabs(e.exact_nearest[static_cast<size_t>(k)]);
          const double rec = std::fabs(e.values.at(k));
          exact_side = ex > rec ? 1 : ex < rec ? -1 : 0;
        }
        const auto moved = [&](uint64_t steps, int side) {
          Outcome o = good;
          TensorArg after = t;
          after.storage = o.storage_after[i];
          uint64_t b = e.values.bits(k);
          if (integer) {
            const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
            b = (b + steps) & mask;
          } else {
            // Sign-magnitude: adding moves away from zero by `steps` ulps.
            b = side >= 0 ? b + steps : b - steps;
          }
          after.set_bits_at(k, b);
          o.storage_after[i] = after.storage;
          return judge(*op, c, o);
        };
        const std::string clause = op->value_clause(c, e.name, k);
        const Judgement at_bound = moved(static_cast<uint64_t>(bound), exact_side);
        EXPECT_TRUE(at_bound.pass()) << key << " at " << bound << " ulps\n" << at_bound.failures();
        if (exact_side != 0) {
          const Judgement far = moved(static_cast<uint64_t>(bound), -exact_side);
          EXPECT_FALSE(far.pass()) << key << ": " << bound << " steps away from the exact value";
        }
        const Judgement beyond = moved(static_cast<uint64_t>(bound) + 1, exact_side);
        EXPECT_FALSE(beyond.pass()) << key << " at " << bound + 1 << " ulps";
        EXPECT_NE(beyond.failures().find(clause + ":"), std::string::npos)
            << key << ": expected a deviation of " << clause << "\n"
            << beyond.failures();
        ++checked;
      }
    }
  }
  // GELU, SELU and LogitGrad in fp32/fp16/bf16, SELU in int8/int32 (LayerNorm and GBAG are sums).
  EXPECT_GE(checked, 11) << fmt::format("{}", fmt::join(seen, ", "));
  for (const char *must :
       {"SeluBackward/int8", "SeluBackward/int32", "GeluBackward/fp16", "LogitGrad/bf16"})
    EXPECT_TRUE(seen.count(must)) << must << " not covered; covered: "
                                  << fmt::format("{}", fmt::join(seen, ", "));
}

}  // namespace

namespace {
using namespace aclnn_conform;

// ABI-ERRMSG-1, "names the parameter and the rule broken", on rejected calls of every op: the
// built-in library's own message conforms; the same call with an empty message, with a message
// naming the parameter but not the kind of rule (for NULL, dtype, rank, shape and broadcast
// rules), or with the message left from before the call, deviates.
TEST(Judge, ErrorMessagesNameTheParameterAndTheRule) {
  int rule_words_checked = 0, checked = 0;
  for (const auto *op : registry()) {
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      const Case c = op->gen_invalid(Product::kAtlasA2)(rc::Random(seed * 7717), 20).value();
      const auto verdict = op->check(c, {});
      if (verdict.ok() || verdict.clause == "GBAG-IDX-1") continue;
      const Outcome good = run_case(builtin_sut(), *op, c);
      ASSERT_EQ(good.status, verdict.status) << c.describe();
      const auto errmsg_ok = [&](const Outcome &o) {
        return judge(*op, c, o).failures().find("ABI-ERRMSG-1") == std::string::npos;
      };
      ASSERT_TRUE(errmsg_ok(good)) << c.describe() << "\n" << judge(*op, c, good).failures();
      Outcome empty = good;
      empty.message.clear();
      EXPECT_FALSE(errmsg_ok(empty)) << c.describe();
      // A bare "<parameter>: invalid" names the parameter only.
      std::string named;
      for (const auto &[name, t] : c.tensors)
        if (verdict.reason.find(name) != std::string::npos) named = name;
      // A message left from before the call, naming none of its parameters. (Where the rule
      // names no parameter, e.g. a product gate, two calls may fairly leave the same text.)
      Outcome stale = good;
      stale.message = stale.message_before = "aclnnOther: someParameter has the wrong rank";
      if (!named.empty()) EXPECT_FALSE(errmsg_ok(stale)) << c.describe();
      const std::string token = verdict.clause.substr(verdict.clause.find('-') + 1);
      const bool has_words = token.starts_with("NULL") || token.starts_with("DTYPE") ||
                             token.starts_with("RANK") || token.starts_with("SHAPE") ||
                             token.starts_with("BCAST") || token.starts_with("PROMOTE");
      if (!named.empty()) {
        Outcome bare = good;
        bare.message = named + ": invalid";
        EXPECT_EQ(errmsg_ok(bare), !has_words) << verdict.clause << ": " << verdict.reason;
        rule_words_checked += has_words;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(rule_words_checked, 30);
}

}  // namespace
