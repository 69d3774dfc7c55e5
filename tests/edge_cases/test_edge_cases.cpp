// Every edge-case row, as a parameterised test: the built-in library returns the row's status
// and values, and the judge (oracle + invariants) agrees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "edge_cases/edge_case.hpp"
#include "properties/gen.hpp"
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

// The range-limit rows reach results deep in the subnormal range of every float dtype: the
// values of record pass the judge's comparison, and the same values flushed to zero fail it on
// every row. (Their pairs at the overflow threshold and the smallest normal catch a second
// rounding or a truncation on the rows where such pairs exist: the mutation catalog's
// selu_f16_double_round and logit_bf16_truncate are killed by them, docs/mutation.md.)
TEST(RangeLimitRows, EveryRowCatchesAFlushToZero) {
  int rows = 0;
  for (const OpDescriptor *op : registry()) {
    for (const EdgeCase &row : range_limit_rows(*op)) {
      ++rows;
      const auto values = op->values(row.call, {});
      const auto it = std::find_if(values.begin(), values.end(),
                                   [&](const auto &v) { return v.name == op->outputs[0]; });
      ASSERT_NE(it, values.end()) << row.title;
      const aclnn_ref::ExpectedOutput &e = *it;
      const DType t = e.values.dtype;
      const int64_t n = e.values.numel();
      const double min_normal = std::ldexp(1.0, aclnn_ref::float_format(t).emin);
      const auto passes = [&](bool flush) {
        TensorArg out = TensorArg::contiguous(t, {n});
        for (int64_t i = 0; i < n; ++i) {
          const double v = e.values.at(i);
          const bool sub = v != 0 && std::fabs(v) < min_normal;
          out.set_bits_at(i, gen::bits_of(flush && sub ? std::copysign(0.0, v) : v, t));
        }
        const aclnn_ref::TensorView got{t, {n}, {1}, 0, out.storage.data()};
        return aclnn_ref::compare_output(e, got, aclnn_ref::Tolerance::ulp()).pass;
      };
      EXPECT_TRUE(passes(false)) << row.title;
      EXPECT_FALSE(passes(true)) << row.title;
    }
  }
  EXPECT_EQ(rows, 9);  // GELU, SELU and LogitGrad, each in fp16, bf16 and fp32
}

// Every tensor of every op, input or output, is laid out in each legal view its shapes allow: at
// least an offset and doubled strides on a call of four or more elements, and every output also
// in a transposed order and with two interleaved dims (a library that refuses a legal output view,
// or writes it as if it were contiguous, fails one of these rows before any generated case).
TEST(LayoutRows, EveryTensorOfEveryOpInEveryView) {
  for (const OpDescriptor *op : registry()) {
    const auto rows = layout_rows(*op);
    ASSERT_FALSE(rows.empty()) << op->name;
    std::map<std::string, std::set<std::string>> views;  // tensor -> views it was given
    for (const EdgeCase &row : rows) {
      EXPECT_EQ(row.clause, "ABI-TENSOR-2");
      EXPECT_EQ(row.expected_status, 0);
      EXPECT_TRUE(op->check(row.call, {}).ok()) << row.title;
      const auto colon = row.title.find(": ");
      const auto words = row.title.substr(0, colon);
      const auto tensor = words.substr(words.find(' ', op->name.size() + 1) + 1);
      views[tensor.substr(0, tensor.find(' '))].insert(row.title.substr(colon + 2, 12));
    }
    for (const auto &[name, t] : rows.front().call.tensors) {
      if (!t.present) continue;
      const bool output =
          std::find(op->outputs.begin(), op->outputs.end(), name) != op->outputs.end();
      const auto &v = views[name];
      EXPECT_TRUE(v.count("offset 37 el")) << op->name << " " << name;
      EXPECT_TRUE(v.count("every stride")) << op->name << " " << name;
      if (output) {
        EXPECT_TRUE(v.count("dims in reve")) << op->name << " " << name;
        EXPECT_TRUE(v.count("two dims int")) << op->name << " " << name;
        EXPECT_TRUE(v.count("stride 0 on ")) << op->name << " " << name;
      }
    }
  }
}
