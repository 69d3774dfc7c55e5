// Bitwise determinism (VAL-DET-1): every op, reductions included, gives the same bytes with
// ACLNN_CPU_NUM_THREADS = 1, 2 and 8 and on repeated runs (the library reads the variable on every
// call, so one process compares them).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tests/robustness/op_cases.hpp"
#include "tests/support/scoped_env.hpp"

namespace aclnn_robust {
namespace {

class Determinism : public ::testing::TestWithParam<size_t> {};

TEST_P(Determinism, SameBytesFor1_2_8ThreadsAndRepeatedRuns) {
  const OpCase c = all_op_cases()[GetParam()];
  std::optional<std::vector<Bytes>> first;
  for (int threads : {1, 2, 8, 1, 8}) {
    const aclnn_test::ScopedEnv env("ACLNN_CPU_NUM_THREADS", std::to_string(threads).c_str());
    for (int rep = 0; rep < 2; ++rep) {
      auto out = c.fresh_outputs();
      std::string error;
      ASSERT_EQ(c.run(c.inputs, out, error), 0) << error;
      if (!first)
        first = out;
      else
        for (size_t o = 0; o < out.size(); ++o)
          EXPECT_TRUE(out[o] == (*first)[o])
              << c.name << " output " << o << " differs with " << threads << " threads (run "
              << rep + 1 << ") from the 1-thread result";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, Determinism, ::testing::Range<size_t>(0, 5),
                         [](const auto &info) { return all_op_cases()[info.param].name; });

}  // namespace
}  // namespace aclnn_robust
