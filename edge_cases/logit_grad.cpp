// LogitGrad edge cases: the product gate, every error clause, each specific value clause in the
// spec's order and the general rule. Literal values are dy / (x (1 - x)) evaluated exactly and
// rounded once (16/3 in fp32 is 0x1.555556p+2).
#include <cmath>

#include "edge_cases/edge_case.hpp"

namespace aclnn_conform {
namespace {

using aclnn_ref::DType;
constexpr auto F32 = DType::kFloat32, F16 = DType::kFloat16, BF16 = DType::kBFloat16;

Case logit(TensorArg x, TensorArg dy, double eps, TensorArg out, Product p = Product::kAtlasA2) {
  Case c;
  c.op = "LogitGrad";
  c.product = p;
  c.tensors = {{"x", std::move(x)}, {"dy", std::move(dy)}, {"out", std::move(out)}};
  c.attrs = {{"eps", eps}};
  return c;
}

// x and dy of one dtype and values, out of the same dtype and shape [n].
Case logit_n(DType t, const std::vector<double> &x, const std::vector<double> &dy, double eps,
             Product p = Product::kAtlasA2) {
  const auto n = static_cast<int64_t>(x.size());
  return logit(values_tensor(t, {n}, x), values_tensor(t, {n}, dy), eps, output_tensor(t, {n}), p);
}

}  // namespace

std::vector<EdgeCase> logit_grad_edge_cases() {
  constexpr double k16_3 = 0x1.555556p+2;  // 16/3 rounded to fp32
  const double below_quarter = std::nextafter(0.25f, 0.0f);
  const double above_three_quarters = std::nextafter(0.75f, 1.0f);
  std::vector<EdgeCase> rows;
  // Errors, in the oracle's check order: the product gate, then the spec's.
  rows.push_back({"ABI-SOC-1",
                  "Atlas training lacks the op",
                  logit_n(F32, {0.5}, {1}, 0.1, Product::kAtlasTraining),
                  161002,
                  {}});
  rows.push_back({"ABI-SOC-1",
                  "Atlas inference lacks the op",
                  logit_n(F16, {0.5}, {1}, 0.1, Product::kAtlasInference),
                  161002,
                  {}});
  rows.push_back({"ABI-SOC-1",
                  "Atlas A3 has the op",
                  logit_n(F32, {0.5}, {1}, -1, Product::kAtlasA3),
                  0,
                  {{"out", 0, 4}}});
  rows.push_back(
      {"LOGIT-NULL-1",
       "x NULL",
       logit(TensorArg::null(), values_tensor(F32, {1}, {1}), 0.1, output_tensor(F32, {1})),
       161001,
       {}});
  rows.push_back(
      {"LOGIT-NULL-1",
       "dy NULL",
       logit(values_tensor(F32, {1}, {0.5}), TensorArg::null(), 0.1, output_tensor(F32, {1})),
       161001,
       {}});
  rows.push_back(
      {"LOGIT-NULL-1",
       "out NULL",
       logit(values_tensor(F32, {1}, {0.5}), values_tensor(F32, {1}, {1}), 0.1, TensorArg::null()),
       161001,
       {}});
  rows.push_back({"LOGIT-DTYPE-1",
                  "INT32 is not a float dtype",
                  logit_n(DType::kInt32, {0, 1}, {1, 1}, 0.1),
                  161002,
                  {}});
  rows.push_back({"LOGIT-DTYPE-1",
                  "DOUBLE is not supported",
                  logit_n(DType::kFloat64, {0.5, 0.25}, {1, 1}, 0.1),
                  161002,
                  {}});
  rows.push_back({"LOGIT-DTYPE-1",
                  "COMPLEX64 is not supported",
                  logit_n(DType::kComplex64, {0.5, 0.25}, {1, 1}, 0.1),
                  161002,
                  {}});
  rows.push_back({"LOGIT-DTYPE-1",
                  "COMPLEX128 is not supported",
                  logit_n(DType::kComplex128, {0.5, 0.25}, {1, 1}, 0.1),
                  161002,
                  {}});
  rows.push_back({"LOGIT-DTYPE-1",
                  "dy FLOAT16 with x FLOAT: one dtype for all three",
                  logit(values_tensor(F32, {1}, {0.5}), values_tensor(F16, {1}, {1}), 0.1,
                        output_tensor(F32, {1})),
                  161002,
                  {}});
  rows.push_back({"LOGIT-DTYPE-1",
                  "out BFLOAT16 with FLOAT inputs",
                  logit(values_tensor(F32, {1}, {0.5}), values_tensor(F32, {1}, {1}), 0.1,
                        output_tensor(BF16, {1})),
                  161002,
                  {}});
  rows.push_back({"LOGIT-SHAPE-1",
                  "dy [2] with x [2,2]: no broadcasting",
                  logit(values_tensor(F32, {2, 2}, {0.5, 0.5, 0.5, 0.5}),
                        values_tensor(F32, {2}, {1, 1}), 0.1, output_tensor(F32, {2, 2})),
                  161002,
                  {}});
  rows.push_back({"LOGIT-SHAPE-1",
                  "out [4] with x and dy [2,2] (same element count)",
                  logit(values_tensor(F32, {2, 2}, {0.5, 0.5, 0.5, 0.5}),
                        values_tensor(F32, {2, 2}, {1, 1, 1, 1}), 0.1, output_tensor(F32, {4})),
                  161002,
                  {}});
  rows.push_back({"LOGIT-RANK-1",
                  "rank 9",
                  logit(values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {0.5}),
                        values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1}), 0.1,
                        output_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 1})),
                  161002,
                  {}});
  rows.push_back({"LOGIT-RANK-1",
                  "rank 0 is legal",
                  logit(values_tensor(F32, {}, {0.5}), values_tensor(F32, {}, {1}), 0.1,
                        output_tensor(F32, {})),
                  0,
                  {{"out", 0, 4}}});
  rows.push_back({"LOGIT-EMPTY-1",
                  "empty tensors: success, nothing written",
                  logit(values_tensor(F32, {0, 2}, {}), values_tensor(F32, {0, 2}, {}), 0.1,
                        output_tensor(F32, {0, 2})),
                  0,
                  {}});
  rows.back().expected_workspace = 0;  // the clause: "workspace 0"
  rows.push_back({"LOGIT-RANK-1",
                  "rank 8 is legal",
                  logit(values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 2}, {0.5, 0.25}),
                        values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 2}, {1, 3}), 0.1,
                        output_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 2})),
                  0,
                  {{"out", 0, 4}, {"out", 1, 16}}});
  // The specific value clauses, in the spec's order.
  rows.push_back({"LOGIT-EPS-NAN-1",
                  "eps NaN: every element NaN",
                  logit_n(F32, {0.5, 2, 0.25}, {1, 1, 0}, kNaN),
                  0,
                  {{"out", 0, kNaN}, {"out", 1, kNaN}, {"out", 2, kNaN}}});
  rows.push_back({"LOGIT-EPS-INF-1",
                  "eps +inf: every element 0, even for NaN/inf x and dy",
                  logit_n(F32, {0.5, kNaN, kInf, 0.5}, {1, kNaN, 1, -kInf}, kInf),
                  0,
                  {{"out", 0, 0}, {"out", 1, 0}, {"out", 2, 0}, {"out", 3, 0}}});
  rows.push_back({"LOGIT-EPS-GT1-1",
                  "eps 1.5: every element NaN (variant range-rule: 0)",
                  logit_n(F32, {0.5, 0.25, 3}, {1, 0, 1}, 1.5),
                  0,
                  {{"out", 0, kNaN}, {"out", 1, kNaN}, {"out", 2, kNaN}}});
  rows.push_back({"LOGIT-EPS-GT1-1",
                  "eps the double just above 1: every element NaN",
                  logit_n(F16, {0.5}, {1}, 0x1.0000000000001p0),
                  0,
                  {{"out", 0, kNaN}}});
  rows.push_back({"LOGIT-EPS-EQ1-1",
                  "eps 1: dy/0 for every x: +-inf by dy's sign, NaN for dy = 0 or NaN",
                  logit_n(F32, {0.5, 0.5, 0.5, 0.5, 2, kNaN}, {1, -2, 0, kNaN, 3, -1}, 1.0),
                  0,
                  {{"out", 0, kInf},
                   {"out", 1, -kInf},
                   {"out", 2, kNaN},
                   {"out", 3, kNaN},
                   {"out", 4, kInf},
                   {"out", 5, -kInf}}});
  rows.push_back(
      {"LOGIT-X-NONFINITE-1",
       "x NaN or +-inf: NaN, with eps >= 0 too (variant range-rule: 0 for inf x)",
       logit_n(F32, {kNaN, kInf, -kInf, kNaN, kInf}, {1, 1, 1, 0, 0}, 0.25),
       0,
       {{"out", 0, kNaN}, {"out", 1, kNaN}, {"out", 2, kNaN}, {"out", 3, kNaN}, {"out", 4, kNaN}}});
  rows.push_back({"LOGIT-X-NONFINITE-1",
                  "x NaN or +-inf with eps < 0: NaN",
                  logit_n(BF16, {kNaN, kInf, -kInf}, {1, 1, 1}, -1),
                  0,
                  {{"out", 0, kNaN}, {"out", 1, kNaN}, {"out", 2, kNaN}}});
  rows.push_back({"LOGIT-DY-NONFINITE-1",
                  "dy +-inf inside the range: dy/(x(1-x)) = +-inf; dy NaN inside: NaN",
                  logit_n(F32, {0.5, 0.25, 0.5}, {kInf, -kInf, kNaN}, 0.1),
                  0,
                  {{"out", 0, kInf}, {"out", 1, -kInf}, {"out", 2, kNaN}}});
  rows.push_back({"LOGIT-DY-NONFINITE-1",
                  "dy +-inf or NaN outside the range: NaN (the general rule alone would give 0)",
                  logit_n(F32, {0.05, 2, 0.95}, {kInf, -kInf, kNaN}, 0.1),
                  0,
                  {{"out", 0, kNaN}, {"out", 1, kNaN}, {"out", 2, kNaN}}});
  rows.push_back({"LOGIT-DY-NONFINITE-1",
                  "dy inf outside [0, 1] with eps < 0: NaN",
                  logit_n(F16, {2, -1}, {kInf, -kInf}, -1),
                  0,
                  {{"out", 0, kNaN}, {"out", 1, kNaN}}});
  // The general rule.
  rows.push_back({"LOGIT-VALUE-1",
                  "eps < 0: x outside [0, 1] gives NaN, inside dy/(x(1-x))",
                  logit_n(F32, {-0.5, 1.5, 0.5, 0.25}, {1, 1, 1, 3}, -1),
                  0,
                  {{"out", 0, kNaN}, {"out", 1, kNaN}, {"out", 2, 4}, {"out", 3, 16}}});
  rows.push_back({"LOGIT-VALUE-1",
                  "eps >= 0: x outside [eps, 1 - eps] gives 0 (x < 0 and x > 1 too)",
                  logit_n(F32, {0.125, 0.875, -0.5, 2, 0.5}, {1, 1, 1, -1, 1}, 0.25),
                  0,
                  {{"out", 0, 0}, {"out", 1, 0}, {"out", 2, 0}, {"out", 3, 0}, {"out", 4, 4}}});
  rows.push_back(
      {"LOGIT-VALUE-1",
       "the range is inclusive: x = eps and 1 - eps use the formula, one ulp outside "
       "gives 0",
       logit_n(F32, {0.25, 0.75, below_quarter, above_three_quarters}, {1, 1, 1, 1}, 0.25),
       0,
       {{"out", 0, k16_3}, {"out", 1, k16_3}, {"out", 2, 0}, {"out", 3, 0}}});
  rows.push_back({"LOGIT-VALUE-1",
                  "eps = 0: x < 0 gives 0, not NaN",
                  logit_n(F16, {-0.5, 1.5, 0.5}, {1, 1, 1}, 0.0),
                  0,
                  {{"out", 0, 0}, {"out", 1, 0}, {"out", 2, 4}}});
  rows.push_back({"LOGIT-VALUE-1",
                  "eps = 0.5: only x = 0.5 is inside",
                  logit_n(F32, {0.5, 0.25, 0.75}, {1, 1, 1}, 0.5),
                  0,
                  {{"out", 0, 4}, {"out", 1, 0}, {"out", 2, 0}}});
  rows.push_back({"LOGIT-VALUE-1",
                  "eps in (0.5, 1): the range is empty, every element 0",
                  logit_n(F32, {0.5, 0.25, 0.75}, {1, 1, 1}, 0.75),
                  0,
                  {{"out", 0, 0}, {"out", 1, 0}, {"out", 2, 0}}});
  rows.push_back({"LOGIT-VALUE-1",
                  "plain interior values: x = 0.5, dy = 1 gives 4 exactly, x = 0.25, dy = 3 gives "
                  "16, in every float dtype",
                  logit_n(F16, {0.5, 0.25}, {1, 3}, 0.1),
                  0,
                  {{"out", 0, 4}, {"out", 1, 16}}});
  rows.push_back({"LOGIT-VALUE-1",
                  "plain interior values in BFLOAT16",
                  logit_n(BF16, {0.5, 0.25}, {1, 3}, 0.1),
                  0,
                  {{"out", 0, 4}, {"out", 1, 16}}});
  rows.push_back(
      {"LOGIT-X01-1",
       "x = 0 and 1 inside the range (eps < 0): dy/0, +-inf by dy's sign, NaN for dy = 0",
       logit_n(F32, {0, 1, 0, 1, -0.0}, {2, -3, 0, 0, 1}, -1),
       0,
       {{"out", 0, kInf},
        {"out", 1, -kInf},
        {"out", 2, kNaN},
        {"out", 3, kNaN},
        {"out", 4, kInf}}});
  rows.push_back({"LOGIT-X01-1",
                  "x = 0 and 1 inside the range (eps = 0)",
                  logit_n(F16, {0, 1, 1}, {-1, 1, -0.0}, 0.0),
                  0,
                  {{"out", 0, -kInf}, {"out", 1, kInf}, {"out", 2, kNaN}}});
  rows.push_back({"LOGIT-X01-1",
                  "x = 0 and 1 outside the range (eps > 0): 0",
                  logit_n(F32, {0, 1}, {1, 1}, 0x1p-10),
                  0,
                  {{"out", 0, 0}, {"out", 1, 0}}});
  rows.push_back(
      {"ABI-INPUT-1", "out: an output view whose rows overlap (stride 0 on dim 0) is rejected",
       logit(values_tensor(F32, {2, 3}, {0.5, 0.25, 0.75, 0.5, 0.25, 0.75}),
             values_tensor(F32, {2, 3}, {1, 1, 1, 1, 1, 1}), 0.1, overlapping_output(F32, {2, 3})),
       161002});
  return rows;
}

}  // namespace aclnn_conform
