// GeluBackward edge cases: every error clause and the documented special values.
#include "edge_cases/edge_case.hpp"

namespace aclnn_conform {
namespace {

using aclnn_ref::DType;
constexpr auto F32 = DType::kFloat32, F16 = DType::kFloat16, BF16 = DType::kBFloat16;

Case gelu(TensorArg dy, TensorArg x, TensorArg out, Product p = Product::kAtlasA2) {
  Case c;
  c.op = "GeluBackward";
  c.product = p;
  c.tensors = {
      {"gradOutput", std::move(dy)}, {"self", std::move(x)}, {"gradInput", std::move(out)}};
  return c;
}

}  // namespace

std::vector<EdgeCase> gelu_backward_edge_cases() {
  const double phi0 = 0.5;  // g(0) = 1/2 exactly
  std::vector<EdgeCase> rows;
  // Errors, in the spec's check order.
  rows.push_back({"GELU-NULL-1", "gradOutput NULL",
                  gelu(TensorArg::null(), values_tensor(F32, {2}, {0, 1}), output_tensor(F32, {2})),
                  161001});
  rows.push_back({"GELU-NULL-1", "self NULL",
                  gelu(values_tensor(F32, {2}, {1, 1}), TensorArg::null(), output_tensor(F32, {2})),
                  161001});
  rows.push_back(
      {"GELU-NULL-1", "gradInput NULL",
       gelu(values_tensor(F32, {2}, {1, 1}), values_tensor(F32, {2}, {0, 1}), TensorArg::null()),
       161001});
  rows.push_back({"GELU-DTYPE-1", "DOUBLE with FLOAT promotes to DOUBLE: rejected",
                  gelu(values_tensor(DType::kFloat64, {2}, {1, 1}), values_tensor(F32, {2}, {0, 1}),
                       output_tensor(DType::kFloat64, {2})),
                  161002});
  rows.push_back(
      {"GELU-DTYPE-1", "INT32 with INT32 promotes to INT32: rejected",
       gelu(values_tensor(DType::kInt32, {2}, {1, 1}), values_tensor(DType::kInt32, {2}, {0, 1}),
            output_tensor(DType::kInt32, {2})),
       161002});
  rows.push_back({"GELU-DTYPE-1", "BFLOAT16 on Atlas training: rejected",
                  gelu(values_tensor(BF16, {2}, {1, 1}), values_tensor(BF16, {2}, {0, 1}),
                       output_tensor(BF16, {2}), Product::kAtlasTraining),
                  161002});
  rows.push_back({"GELU-DTYPE-1",
                  "INT32 gradOutput with FLOAT self is legal (promotes to FLOAT)",
                  gelu(values_tensor(DType::kInt32, {2}, {2, 2}), values_tensor(F32, {2}, {0, 0}),
                       output_tensor(F32, {2})),
                  0,
                  {{"gradInput", 0, 2 * phi0}, {"gradInput", 1, 2 * phi0}}});
  rows.push_back({"GELU-DTYPE-2", "gradInput FLOAT16 where FLOAT is promoted",
                  gelu(values_tensor(F32, {2}, {1, 1}), values_tensor(F32, {2}, {0, 1}),
                       output_tensor(F16, {2})),
                  161002});
  rows.push_back(
      {"GELU-RANK-1", "rank 9 self",
       gelu(values_tensor(F32, {1}, {1}), values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {0}),
            output_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 1})),
       161002});
  rows.push_back(
      {"GELU-RANK-1",
       "rank 0 is legal",
       gelu(values_tensor(F32, {}, {3}), values_tensor(F32, {}, {0}), output_tensor(F32, {})),
       0,
       {{"gradInput", 0, 1.5}}});
  rows.push_back(
      {"GELU-BCAST-1", "[2,3] with [4,3] do not broadcast",
       gelu(values_tensor(F32, {2, 3}, {1, 1, 1, 1, 1, 1}),
            values_tensor(F32, {4, 3}, std::vector<double>(12, 0.0)), output_tensor(F32, {4, 3})),
       161002});
  rows.push_back(
      {"GELU-BCAST-2", "gradInput [2,3] where the broadcast shape is [4,3]",
       gelu(values_tensor(F32, {1, 3}, {1, 1, 1}),
            values_tensor(F32, {4, 3}, std::vector<double>(12, 0.0)), output_tensor(F32, {2, 3})),
       161002});
  rows.push_back({"GELU-BCAST-1",
                  "[4,1] with [3] broadcast both ways to [4,3]",
                  gelu(values_tensor(F32, {4, 1}, {1, 2, 3, 4}), values_tensor(F32, {3}, {0, 0, 0}),
                       output_tensor(F32, {4, 3})),
                  0,
                  {{"gradInput", 0, 0.5}, {"gradInput", 5, 1.0}, {"gradInput", 11, 2.0}}});
  rows.push_back({"GELU-EMPTY-1", "empty broadcast shape: success, nothing written",
                  gelu(values_tensor(F32, {0, 3}, {}), values_tensor(F32, {3}, {0, 0, 0}),
                       output_tensor(F32, {0, 3})),
                  0});
  rows.back().expected_workspace = 0;  // the clause: "workspace 0"
  // Sub-rules the generators of the default product (A2) do not produce, so that every campaign
  // checks them on its SUT (docs/spec/audit.md).
  rows.push_back({"GELU-DTYPE-1",
                  "UINT64 gradOutput with FLOAT self: u64 promotes only with itself",
                  gelu(values_tensor(DType::kUInt64, {2}, {1, 1}), values_tensor(F32, {2}, {0, 1}),
                       output_tensor(F32, {2})),
                  161002});
  rows.push_back({"GELU-DTYPE-1",
                  "FLOAT16 gradOutput with UINT32 self: u32 promotes only with itself",
                  gelu(values_tensor(F16, {2}, {1, 1}), values_tensor(DType::kUInt32, {2}, {0, 1}),
                       output_tensor(F16, {2})),
                  161002});
  rows.push_back({"GELU-DTYPE-1", "BFLOAT16 on Atlas inference: rejected",
                  gelu(values_tensor(BF16, {2}, {1, 1}), values_tensor(BF16, {2}, {0, 1}),
                       output_tensor(BF16, {2}), Product::kAtlasInference),
                  161002});
  rows.push_back({"GELU-DTYPE-1",
                  "BFLOAT16 on Atlas A3 is legal",
                  gelu(values_tensor(BF16, {2}, {2, -3}), values_tensor(BF16, {2}, {0, 0}),
                       output_tensor(BF16, {2}), Product::kAtlasA3),
                  0,
                  {{"gradInput", 0, 1.0}, {"gradInput", 1, -1.5}}});
  rows.push_back({"ABI-SOC-1",
                  "Atlas inference has GeluBackward: FLOAT16 is legal",
                  gelu(values_tensor(F16, {2}, {2, -3}), values_tensor(F16, {2}, {0, 0}),
                       output_tensor(F16, {2}), Product::kAtlasInference),
                  0,
                  {{"gradInput", 0, 1.0}, {"gradInput", 1, -1.5}}});
  rows.push_back({"ABI-PROMOTE-1",
                  "FLOAT16 gradOutput with FLOAT self promotes to FLOAT",
                  gelu(values_tensor(F16, {2}, {2, -3}), values_tensor(F32, {2}, {0, 0}),
                       output_tensor(F32, {2})),
                  0,
                  {{"gradInput", 0, 1.0}, {"gradInput", 1, -1.5}}});
  rows.push_back({"ABI-PROMOTE-1",
                  "FLOAT gradOutput with BFLOAT16 self promotes to FLOAT",
                  gelu(values_tensor(F32, {2}, {2, -3}), values_tensor(BF16, {2}, {0, 0}),
                       output_tensor(F32, {2})),
                  0,
                  {{"gradInput", 0, 1.0}, {"gradInput", 1, -1.5}}});
  rows.push_back({"ABI-PROMOTE-1",
                  "BFLOAT16 gradOutput with FLOAT16 self promotes to FLOAT",
                  gelu(values_tensor(BF16, {2}, {2, -3}), values_tensor(F16, {2}, {0, 0}),
                       output_tensor(F32, {2})),
                  0,
                  {{"gradInput", 0, 1.0}, {"gradInput", 1, -1.5}}});
  rows.push_back({"ABI-PROMOTE-1",
                  "INT8 gradOutput with FLOAT16 self stays FLOAT16",
                  gelu(values_tensor(DType::kInt8, {2}, {2, -3}), values_tensor(F16, {2}, {0, 0}),
                       output_tensor(F16, {2})),
                  0,
                  {{"gradInput", 0, 1.0}, {"gradInput", 1, -1.5}}});
  // Complex types are in the ABI's enum but out of the promotion table: no promotion, 161002.
  rows.push_back(
      {"GELU-DTYPE-1",
       "COMPLEX64 gradOutput with FLOAT self: complex types do not promote (ABI-PROMOTE-1)",
       gelu(values_tensor(DType::kComplex64, {2}, {2, -3}), values_tensor(F32, {2}, {0, 0}),
            output_tensor(F32, {2})),
       161002});
  rows.push_back(
      {"GELU-DTYPE-1", "COMPLEX128 with COMPLEX128: rejected",
       gelu(values_tensor(DType::kComplex128, {2}, {2, -3}),
            values_tensor(DType::kComplex128, {2}, {0, 0}), output_tensor(DType::kComplex128, {2})),
       161002});
  rows.push_back({"GELU-DTYPE-2", "gradInput FLOAT where INT8 with FLOAT16 promotes to FLOAT16",
                  gelu(values_tensor(DType::kInt8, {2}, {2, -3}), values_tensor(F16, {2}, {0, 0}),
                       output_tensor(F32, {2})),
                  161002});
  rows.push_back({"GELU-RANK-1", "rank 9 gradOutput (self and gradInput of rank 1)",
                  gelu(values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1}),
                       values_tensor(F32, {1}, {0}), output_tensor(F32, {1})),
                  161002});
  rows.push_back({"GELU-RANK-1",
                  "rank 9 gradInput (inputs of rank 1): GELU-RANK-1 before GELU-BCAST-2",
                  gelu(values_tensor(F32, {1}, {1}), values_tensor(F32, {1}, {0}),
                       output_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 1})),
                  161002});
  rows.push_back(
      {"GELU-RANK-1",
       "rank 8 is legal",
       gelu(values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 2}, {2, 2}), values_tensor(F32, {2}, {0, 0}),
            output_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 2})),
       0,
       {{"gradInput", 0, 1.0}, {"gradInput", 1, 1.0}}});
  // Values.
  rows.push_back({"GELU-VALUE-1",
                  "g(0) = 1/2 exactly, in every float dtype",
                  gelu(values_tensor(F16, {2}, {1, -3}), values_tensor(F16, {2}, {0, 0}),
                       output_tensor(F16, {2})),
                  0,
                  {{"gradInput", 0, 0.5}, {"gradInput", 1, -1.5}}});
  rows.push_back({"GELU-SPECIAL-1",
                  "g(+inf) = 1, g(-inf) = 0, g(NaN) = NaN",
                  gelu(values_tensor(F32, {3}, {2, 2, 2}),
                       values_tensor(F32, {3}, {kInf, -kInf, kNaN}), output_tensor(F32, {3})),
                  0,
                  {{"gradInput", 0, 2.0}, {"gradInput", 1, 0.0}, {"gradInput", 2, kNaN}}});
  rows.push_back({"GELU-SPECIAL-1",
                  "dy = inf with x = -inf gives NaN (inf * 0); dy = NaN gives NaN",
                  gelu(values_tensor(BF16, {2}, {kInf, kNaN}), values_tensor(BF16, {2}, {-kInf, 1}),
                       output_tensor(BF16, {2})),
                  0,
                  {{"gradInput", 0, kNaN}, {"gradInput", 1, kNaN}}});
  rows.push_back({"GELU-SPECIAL-1",
                  "dy = -inf with x = -inf gives NaN (-inf * 0)",
                  gelu(values_tensor(F32, {2}, {-kInf, -kInf}), values_tensor(F32, {2}, {-kInf, 0}),
                       output_tensor(F32, {2})),
                  0,
                  {{"gradInput", 0, kNaN}, {"gradInput", 1, -kInf}}});
  rows.push_back({"GELU-SPECIAL-2", "g changes sign at its root near -0.75179",
                  gelu(values_tensor(F32, {2}, {1, 1}), values_tensor(F32, {2}, {-0.7, -0.8}),
                       output_tensor(F32, {2})),
                  0});
  // The float nearest the root, 0xbf407569 (g = -5.2e-9: the three terms cancel to 8 digits), and
  // its neighbours two ulps either way, with dy = 1 and an odd dy.
  rows.push_back(
      {"GELU-SPECIAL-2", "the float at g's root (0xbf407569, g about -5.2e-9) and its neighbours",
       gelu(values_tensor(F32, {10}, {1, 1, 1, 1, 1, 3, 3, 3, 3, 3}),
            values_tensor(
                F32, {10},
                {-0x1.80eacep-1, -0x1.80ead0p-1, -0x1.80ead2p-1, -0x1.80ead4p-1, -0x1.80ead6p-1,
                 -0x1.80eacep-1, -0x1.80ead0p-1, -0x1.80ead2p-1, -0x1.80ead4p-1, -0x1.80ead6p-1}),
            output_tensor(F32, {10})),
       0});
  rows.push_back({"GELU-SPECIAL-2",
                  "g underflows towards -0 for large negative x",
                  gelu(values_tensor(F32, {2}, {1, 1}), values_tensor(F32, {2}, {-20, -60}),
                       output_tensor(F32, {2})),
                  0,
                  {{"gradInput", 1, 0.0}}});
  rows.push_back(
      {"ABI-INPUT-1",
       "gradInput: an output view whose rows overlap (stride 0 on dim 0) is rejected",
       gelu(values_tensor(F32, {2, 3}, {1, 1, 1, 1, 1, 1}),
            values_tensor(F32, {2, 3}, {0, 1, 2, 3, 4, 5}), overlapping_output(F32, {2, 3})),
       161002});
  return rows;
}

}  // namespace aclnn_conform
