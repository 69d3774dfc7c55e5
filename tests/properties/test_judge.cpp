// Meta-tests of the judge: it finds deviations when there are some, so passing properties mean
// something.
#include <gtest/gtest.h>
#include <rapidcheck.h>

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
