// SeluBackward edge cases: every error clause and the documented special values. The literal
// values are the spec's formula evaluated exactly on the inputs and rounded once (computed
// offline with exact rational arithmetic): λ = 1.0507009873554804934193349852946,
// λα = 1.7580993408473768599402175208123.
#include "edge_cases/edge_case.hpp"

namespace aclnn_conform {
namespace {

using aclnn_ref::DType;
constexpr auto F32 = DType::kFloat32, F16 = DType::kFloat16, BF16 = DType::kBFloat16;
constexpr auto I8 = DType::kInt8, I32 = DType::kInt32;

Case selu(TensorArg dy, TensorArg y, TensorArg out, Product p = Product::kAtlasA2) {
  Case c;
  c.op = "SeluBackward";
  c.product = p;
  c.tensors = {
      {"gradOutput", std::move(dy)}, {"result", std::move(y)}, {"gradInput", std::move(out)}};
  return c;
}

// All three tensors of one dtype and shape [2].
Case selu2(DType t, Product p = Product::kAtlasA2) {
  return selu(values_tensor(t, {2}, {1, 1}), values_tensor(t, {2}, {1, 0}), output_tensor(t, {2}),
              p);
}

}  // namespace

std::vector<EdgeCase> selu_backward_edge_cases() {
  // λ rounded once to each float dtype.
  constexpr double kLambdaF32 = 0x1.0cfabep+0, kLambdaF16 = 0x1.0dp+0, kLambdaBF16 = 0x1.0cp+0;
  std::vector<EdgeCase> rows;
  // Errors, in the spec's check order.
  rows.push_back({"SELU-NULL-1",
                  "gradOutput NULL",
                  selu(TensorArg::null(), values_tensor(F32, {2}, {1, 0}), output_tensor(F32, {2})),
                  161001,
                  {}});
  rows.push_back({"SELU-NULL-1",
                  "result NULL",
                  selu(values_tensor(F32, {2}, {1, 1}), TensorArg::null(), output_tensor(F32, {2})),
                  161001,
                  {}});
  rows.push_back(
      {"SELU-NULL-1",
       "gradInput NULL",
       selu(values_tensor(F32, {2}, {1, 1}), values_tensor(F32, {2}, {1, 0}), TensorArg::null()),
       161001,
       {}});
  rows.push_back({"SELU-NULL-1",
                  "NULL is reported before a bad dtype",
                  selu(TensorArg::null(), values_tensor(DType::kFloat64, {2}, {1, 0}),
                       output_tensor(DType::kFloat64, {2})),
                  161001,
                  {}});
  rows.push_back({"SELU-DTYPE-1", "UINT8 is not supported", selu2(DType::kUInt8), 161002, {}});
  rows.push_back({"SELU-DTYPE-1", "INT16 is not supported", selu2(DType::kInt16), 161002, {}});
  rows.push_back({"SELU-DTYPE-1", "INT64 is not supported", selu2(DType::kInt64), 161002, {}});
  rows.push_back({"SELU-DTYPE-1", "DOUBLE is not supported", selu2(DType::kFloat64), 161002, {}});
  rows.push_back({"SELU-DTYPE-1", "BOOL is not supported", selu2(DType::kBool), 161002, {}});
  rows.push_back(
      {"SELU-DTYPE-1", "COMPLEX64 is not supported", selu2(DType::kComplex64), 161002, {}});
  rows.push_back(
      {"SELU-DTYPE-1", "COMPLEX128 is not supported", selu2(DType::kComplex128), 161002, {}});
  rows.push_back({"SELU-DTYPE-1",
                  "an unsupported dtype on gradInput alone",
                  selu(values_tensor(F32, {2}, {1, 1}), values_tensor(F32, {2}, {1, 0}),
                       output_tensor(DType::kFloat64, {2})),
                  161002,
                  {}});
  rows.push_back({"SELU-DTYPE-1",
                  "BFLOAT16 on Atlas training: rejected",
                  selu2(BF16, Product::kAtlasTraining),
                  161002,
                  {}});
  rows.push_back({"SELU-DTYPE-1",
                  "BFLOAT16 on Atlas inference: rejected",
                  selu2(BF16, Product::kAtlasInference),
                  161002,
                  {}});
  rows.push_back({"SELU-DTYPE-1",
                  "BFLOAT16 on Atlas A3 is legal: dy·λ rounded once to bf16",
                  selu2(BF16, Product::kAtlasA3),
                  0,
                  {{"gradInput", 0, kLambdaBF16}, {"gradInput", 1, kLambdaBF16}}});
  rows.push_back({"SELU-DTYPE-1",
                  "INT32 on Atlas inference is legal",
                  selu2(I32, Product::kAtlasInference),
                  0,
                  {{"gradInput", 0, 1}, {"gradInput", 1, 1}}});
  rows.push_back({"SELU-DTYPE-2",
                  "result FLOAT16 with gradOutput FLOAT (no promotion)",
                  selu(values_tensor(F32, {2}, {1, 1}), values_tensor(F16, {2}, {1, 0}),
                       output_tensor(F32, {2})),
                  161002,
                  {}});
  rows.push_back({"SELU-DTYPE-2",
                  "gradInput INT32 with FLOAT inputs",
                  selu(values_tensor(F32, {2}, {1, 1}), values_tensor(F32, {2}, {1, 0}),
                       output_tensor(I32, {2})),
                  161002,
                  {}});
  rows.push_back({"SELU-DTYPE-2",
                  "a dtype mismatch is reported before a shape mismatch",
                  selu(values_tensor(I8, {2}, {1, 1}), values_tensor(I32, {3}, {1, 0, 1}),
                       output_tensor(I8, {2})),
                  161002,
                  {}});
  rows.push_back({"SELU-SHAPE-1",
                  "result [3] with gradOutput [2,3]: no broadcasting",
                  selu(values_tensor(F32, {2, 3}, {1, 1, 1, 1, 1, 1}),
                       values_tensor(F32, {3}, {1, 0, -1}), output_tensor(F32, {2, 3})),
                  161002,
                  {}});
  rows.push_back(
      {"SELU-SHAPE-1",
       "gradInput [3,2] where the inputs are [2,3]",
       selu(values_tensor(F32, {2, 3}, {1, 1, 1, 1, 1, 1}),
            values_tensor(F32, {2, 3}, {1, 0, -1, 1, 0, -1}), output_tensor(F32, {3, 2})),
       161002,
       {}});
  rows.push_back(
      {"SELU-SHAPE-1",
       "a shape mismatch is reported before a bad rank",
       selu(values_tensor(F32, {}, {1}), values_tensor(F32, {1}, {1}), output_tensor(F32, {})),
       161002,
       {}});
  rows.push_back(
      {"SELU-RANK-1",
       "rank 0 is invalid for this op",
       selu(values_tensor(F32, {}, {1}), values_tensor(F32, {}, {1}), output_tensor(F32, {})),
       161002,
       {}});
  rows.push_back({"SELU-RANK-1",
                  "rank 9 is invalid",
                  selu(values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 2}, {1, 1}),
                       values_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 2}, {1, 0}),
                       output_tensor(F32, {1, 1, 1, 1, 1, 1, 1, 1, 2})),
                  161002,
                  {}});
  rows.push_back({"SELU-RANK-1",
                  "rank 8 is legal",
                  selu(values_tensor(F16, {1, 1, 1, 1, 1, 1, 1, 1}, {1}),
                       values_tensor(F16, {1, 1, 1, 1, 1, 1, 1, 1}, {2}),
                       output_tensor(F16, {1, 1, 1, 1, 1, 1, 1, 1})),
                  0,
                  {{"gradInput", 0, kLambdaF16}}});
  rows.push_back({"SELU-EMPTY-1",
                  "empty tensors: success, nothing written",
                  selu(values_tensor(F32, {0, 3}, {}), values_tensor(F32, {0, 3}, {}),
                       output_tensor(F32, {0, 3})),
                  0,
                  {}});
  rows.back().expected_workspace = 0;  // the clause: "workspace 0"
  // Sub-rules the generators of the default product (A2) do not produce (docs/spec/audit.md).
  rows.push_back({"SELU-DTYPE-1", "UINT64 is not supported", selu2(DType::kUInt64), 161002, {}});
  rows.push_back({"SELU-DTYPE-1", "UINT32 is not supported", selu2(DType::kUInt32), 161002, {}});
  rows.push_back({"SELU-DTYPE-1", "UINT16 is not supported", selu2(DType::kUInt16), 161002, {}});
  rows.push_back({"SELU-DTYPE-1",
                  "FLOAT16 on Atlas training is legal: dy·λ rounded once to fp16",
                  selu2(F16, Product::kAtlasTraining),
                  0,
                  {{"gradInput", 0, kLambdaF16}, {"gradInput", 1, kLambdaF16}}});
  rows.push_back({"SELU-DTYPE-1",
                  "INT8 on Atlas inference is legal",
                  selu2(I8, Product::kAtlasInference),
                  0,
                  {{"gradInput", 0, 1}, {"gradInput", 1, 1}}});
  // Values.
  rows.push_back({"SELU-VALUE-1",
                  "y > 0: dy·λ (the seed's formula omits λ; the value of record has it)",
                  selu(values_tensor(F32, {3}, {1, 3, -1}), values_tensor(F32, {3}, {0.5, 1, 100}),
                       output_tensor(F32, {3})),
                  0,
                  {{"gradInput", 0, kLambdaF32},
                   {"gradInput", 1, 0x1.93781cp+1},
                   {"gradInput", 2, -kLambdaF32}}});
  rows.push_back({"SELU-VALUE-1",
                  "y < 0: dy·(y + λα); y = -1 gives λα - 1, y = -0.5 with dy = 2 gives 2λα - 1",
                  selu(values_tensor(F32, {2}, {1, 2}), values_tensor(F32, {2}, {-1, -0.5}),
                       output_tensor(F32, {2})),
                  0,
                  {{"gradInput", 0, 0x1.842598p-1}, {"gradInput", 1, 0x1.4212ccp+1}}});
  rows.push_back({"SELU-VALUE-1",
                  "y < -λα (not an output of selu, a legal input): the factor y + λα is negative",
                  selu(values_tensor(F16, {2}, {1, -1}), values_tensor(F16, {2}, {-2, -2}),
                       output_tensor(F16, {2})),
                  0,
                  {{"gradInput", 0, -0x1.ef8p-3}, {"gradInput", 1, 0x1.ef8p-3}}});
  rows.push_back({"SELU-VALUE-1",
                  "y = +inf takes the λ branch; y = -inf gives the factor -inf (VAL-IEEE-1)",
                  selu(values_tensor(F32, {3}, {1, 1, -2}),
                       values_tensor(F32, {3}, {kInf, -kInf, -kInf}), output_tensor(F32, {3})),
                  0,
                  {{"gradInput", 0, kLambdaF32}, {"gradInput", 1, -kInf}, {"gradInput", 2, kInf}}});
  // Found by exhaustive search over fp16 y: the exact value lies just off an fp16 midpoint, so
  // rounding it to FLOAT first lands on the midpoint and then ties the other way.
  rows.push_back(
      {"VAL-EXACT-1",
       "FLOAT16 rounded once, never through FLOAT: 3·(y + λα) at y = -0x1.ebcp-11 is "
       "5.2714842 -> 5.26953125 (through FLOAT: 5.2734375); 5·(y + λα) at y = "
       "-0x1.23p-7 is 8.7460936 -> 8.7421875 (through FLOAT: 8.75)",
       selu(values_tensor(F16, {2}, {3, 5}), values_tensor(F16, {2}, {-0x1.ebcp-11, -0x1.23p-7}),
            output_tensor(F16, {2})),
       0,
       {{"gradInput", 0, 0x1.514p+2}, {"gradInput", 1, 0x1.17cp+3}}});
  rows.push_back({"SELU-ZERO-1",
                  "y = +0 and y = -0 take the y >= 0 branch: dy·λ (not dy·λα, variant le-zero)",
                  selu(values_tensor(F16, {4}, {1, 1, 3, -3}),
                       values_tensor(F16, {4}, {0.0, -0.0, 0.0, -0.0}), output_tensor(F16, {4})),
                  0,
                  {{"gradInput", 0, kLambdaF16},
                   {"gradInput", 1, kLambdaF16},
                   {"gradInput", 2, 0x1.938p+1},
                   {"gradInput", 3, -0x1.938p+1}}});
  rows.push_back({"SELU-ZERO-1",
                  "y = ±0 in BFLOAT16: dy·λ",
                  selu(values_tensor(BF16, {2}, {1, 1}), values_tensor(BF16, {2}, {0.0, -0.0}),
                       output_tensor(BF16, {2})),
                  0,
                  {{"gradInput", 0, kLambdaBF16}, {"gradInput", 1, kLambdaBF16}}});
  rows.push_back({"SELU-NAN-1",
                  "y = NaN gives NaN (not dy·λ, variant select-lt); dy = NaN gives NaN",
                  selu(values_tensor(F32, {3}, {1, -1, kNaN}),
                       values_tensor(F32, {3}, {kNaN, kNaN, 1}), output_tensor(F32, {3})),
                  0,
                  {{"gradInput", 0, kNaN}, {"gradInput", 1, kNaN}, {"gradInput", 2, kNaN}}});
  rows.push_back({"SELU-INT-1",
                  "INT8 saturates: 127·λ -> 127, -128·λ -> -128, 100·(-128 + λα) -> -128",
                  selu(values_tensor(I8, {3}, {127, -128, 100}),
                       values_tensor(I8, {3}, {1, 0, -128}), output_tensor(I8, {3})),
                  0,
                  {{"gradInput", 0, 127}, {"gradInput", 1, -128}, {"gradInput", 2, -128}}});
  rows.push_back({"SELU-INT-1",
                  "INT8 saturation threshold: 121·λ = 127.13 -> 127, 122·λ = 128.19 -> 127, "
                  "-122·λ = -128.19 -> -128",
                  selu(values_tensor(I8, {3}, {121, 122, -122}), values_tensor(I8, {3}, {1, 1, 0}),
                       output_tensor(I8, {3})),
                  0,
                  {{"gradInput", 0, 127}, {"gradInput", 1, 127}, {"gradInput", 2, -128}}});
  rows.push_back({"SELU-INT-1",
                  "INT8 rounds to nearest near ties: 69·λ = 72.498 -> 72, 89·λ = 93.512 -> 94, "
                  "49·λ = 51.484 -> 51, 10·λ = 10.507 -> 11, -10·λ -> -11",
                  selu(values_tensor(I8, {5}, {69, 89, 49, 10, -10}),
                       values_tensor(I8, {5}, {1, 7, 0, 1, 5}), output_tensor(I8, {5})),
                  0,
                  {{"gradInput", 0, 72},
                   {"gradInput", 1, 94},
                   {"gradInput", 2, 51},
                   {"gradInput", 3, 11},
                   {"gradInput", 4, -11}}});
  rows.push_back({"SELU-INT-1",
                  "INT8 y < 0: 4·(λα - 1) = 3.03 -> 3, 100·(λα - 2) = -24.19 -> -24",
                  selu(values_tensor(I8, {2}, {4, 100}), values_tensor(I8, {2}, {-1, -2}),
                       output_tensor(I8, {2})),
                  0,
                  {{"gradInput", 0, 3}, {"gradInput", 1, -24}}});
  rows.push_back({"SELU-INT-1",
                  "INT32: 1e9·λ -> 1050700987 (exact beyond fp16's range, not variant via-fp16), "
                  "(2^31-1)·λ and -2^31·λ saturate, 1000·(λα - 2) = -241.9 -> -242",
                  selu(values_tensor(I32, {4}, {1e9, 2147483647.0, -2147483648.0, 1000}),
                       values_tensor(I32, {4}, {3, 1, 1, -2}), output_tensor(I32, {4})),
                  0,
                  {{"gradInput", 0, 1050700987},
                   {"gradInput", 1, 2147483647},
                   {"gradInput", 2, -2147483648.0},
                   {"gradInput", 3, -242}}});
  rows.push_back(
      {"ABI-INPUT-1",
       "gradInput: an output view whose rows overlap (stride 0 on dim 0) is rejected",
       selu(values_tensor(F32, {2, 3}, {1, 1, 1, 1, 1, 1}),
            values_tensor(F32, {2, 3}, {0, 1, -1, 2, -2, 3}), overlapping_output(F32, {2, 3})),
       161002});
  return rows;
}

}  // namespace aclnn_conform
