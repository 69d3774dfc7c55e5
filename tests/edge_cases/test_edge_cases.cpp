// Every edge-case row, as a parameterised test: the built-in library returns the row's status
// and values, and the judge (oracle + invariants) agrees.
#include <gtest/gtest.h>

#include <cmath>

#include "edge_cases/edge_case.hpp"
#include "properties/generic.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"

namespace {
using namespace aclnn_conform;

class EdgeCaseRow : public ::testing::TestWithParam<EdgeCase> {};

TEST_P(EdgeCaseRow, ImplementationAndOracleAgreeWithTheRow) {
  const EdgeCase &row = GetParam();
  const OpDescriptor *op = find_op(row.call.op);
  ASSERT_NE(op, nullptr) << row.call.op;
  // The oracle states the same status as the row.
  const auto verdict = op->check(row.call, {});
  EXPECT_EQ(verdict.status, row.expected_status) << verdict.clause << ": " << verdict.reason;
  if (!verdict.ok()) EXPECT_EQ(verdict.clause, row.clause) << verdict.reason;
  // The literal values of the row, in the oracle...
  if (verdict.ok()) {
    const auto values = op->values(row.call, {});
    for (const auto &e : row.expected) {
      const auto it = std::find_if(values.begin(), values.end(),
                                   [&](const auto &v) { return v.name == e.output; });
      ASSERT_NE(it, values.end()) << e.output;
      const double v = it->values.at(e.index);
      if (std::isnan(e.value))
        EXPECT_TRUE(std::isnan(v)) << e.output << "[" << e.index << "]";
      else
        EXPECT_EQ(v, e.value) << e.output << "[" << e.index << "]";
    }
  }
  // ...and in the implementation, judged with every invariant.
  const Outcome o = run_case(builtin_sut(), *op, row.call);
  EXPECT_EQ(o.status, row.expected_status) << o.message;
  const Judgement j = judge(*op, row.call, o);
  EXPECT_TRUE(j.pass()) << row.call.describe() << "\n" << j.failures();
  // ...and the row's literals as a campaign checks them on any SUT (the workspace size too).
  for (const auto &literal : edge_row_literals(row, o)) EXPECT_TRUE(literal.pass) << literal.detail;
}

std::string row_name(const ::testing::TestParamInfo<EdgeCase> &info) {
  std::string name = info.param.clause + "_" + std::to_string(info.index);
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllOps, EdgeCaseRow, ::testing::ValuesIn(all_edge_cases()), row_name);

}  // namespace
