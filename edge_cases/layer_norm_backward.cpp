// LayerNormBackward edge cases: every error clause (with check-order conflicts), the three
// mean/rstd shapes, weight absent, LN-BIAS-1, LN-MASK-2, LN-EMPTY-1, LN-SPECIAL-1 and small
// hand-computed values.
//
// The hand-computed base case: input [2,4], normalizedShape [4] (M = 2, N = 4),
//   x    = [[1,2,3,4], [0,0,0,0]], mean = [2.5, 0], rstd = [2, 1] -> xhat = [[-3,-1,1,3], [0,..]]
//   dy   = [[1,0,0,0], [1,2,3,4]], weight = [2,1,1,1]
// Row 0: dy*w = [2,0,0,0], S1 = 2, S2 = sum(dy*w*xhat) = -6,
//   gradInput = 2*(dy*w - 2/4 + xhat*6/4) = [-6,-4,2,8].
// Row 1: xhat = 0, dy*w = [2,2,3,4], S1 = 11, gradInput = dy*w - 11/4 = [-0.75,-0.75,0.25,1.25].
// gradWeight = sum_rows dy*xhat = [-3,0,0,0]; gradBias = sum_rows dy = [2,2,3,4].
// Without weight (ones): row 0 [-3,-2,1,4], row 1 [-1.5,-0.5,0.5,1.5].
#include "edge_cases/edge_case.hpp"

namespace aclnn_conform {
namespace {

using aclnn_ref::DType;
constexpr auto F32 = DType::kFloat32, F16 = DType::kFloat16, BF16 = DType::kBFloat16;

struct Ln {
  TensorArg dy, x, mean, rstd, w, b, gi, gw, gb;
  AttrValue ns, mask;
  Product p = Product::kAtlasA2;

  Case call() const {
    Case c;
    c.op = "LayerNormBackward";
    c.product = p;
    c.tensors = {{"gradOut", dy},      {"input", x},          {"mean", mean},
                 {"rstd", rstd},       {"weightOptional", w}, {"biasOptional", b},
                 {"gradInputOut", gi}, {"gradWeightOut", gw}, {"gradBiasOut", gb}};
    c.attrs = {{"normalizedShape", ns}, {"outputMask", mask}};
    return c;
  }
};

const std::vector<double> kX = {1, 2, 3, 4, 0, 0, 0, 0}, kDy = {1, 0, 0, 0, 1, 2, 3, 4};

// The base case in dtype t (FLOAT grads), every output requested.
Ln base(DType t = F32, DType wt = F32) {
  Ln a;
  a.dy = values_tensor(t, {2, 4}, kDy);
  a.x = values_tensor(t, {2, 4}, kX);
  a.mean = values_tensor(t, {2, 1}, {2.5, 0});
  a.rstd = values_tensor(t, {2, 1}, {2, 1});
  a.w = values_tensor(wt == F32 && t != F32 ? F32 : t, {4}, {2, 1, 1, 1});
  a.b = values_tensor(a.w.dtype, {4}, {5, 5, 5, 5});
  a.gi = output_tensor(t, {2, 4});
  a.gw = output_tensor(F32, {4});
  a.gb = output_tensor(F32, {4});
  a.ns = std::vector<int64_t>{4};
  a.mask = std::vector<bool>{true, true, true};
  return a;
}

std::vector<ExpectedElement> gi_values(const std::vector<double> &v) {
  std::vector<ExpectedElement> e;
  for (size_t i = 0; i < v.size(); ++i)
    e.push_back({"gradInputOut", static_cast<int64_t>(i), v[i]});
  return e;
}
std::vector<ExpectedElement> all_values(const std::vector<double> &gi) {
  auto e = gi_values(gi);
  const double gw[] = {-3, 0, 0, 0}, gb[] = {2, 2, 3, 4};
  for (int64_t j = 0; j < 4; ++j) {
    e.push_back({"gradWeightOut", j, gw[j]});
    e.push_back({"gradBiasOut", j, gb[j]});
  }
  return e;
}
const std::vector<double> kGi = {-6, -4, 2, 8, -0.75, -0.75, 0.25, 1.25};
const std::vector<double> kGiNoWeight = {-3, -2, 1, 4, -1.5, -0.5, 0.5, 1.5};

template <typename F>
Case with(F f, Ln a = base()) {
  f(a);
  return a.call();
}

}  // namespace

std::vector<EdgeCase> layer_norm_backward_edge_cases() {
  constexpr int32_t kNull = 161001, kBad = 161002;
  std::vector<EdgeCase> rows;
  const auto add = [&](const char *clause, const char *title, Case c, int32_t status,
                       std::vector<ExpectedElement> e = {}) {
    rows.push_back({clause, title, std::move(c), status, std::move(e)});
  };
  // LN-NULL-1, in signature order.
  add("LN-NULL-1", "gradOut NULL", with([](Ln &a) { a.dy = TensorArg::null(); }), kNull);
  add("LN-NULL-1", "input NULL", with([](Ln &a) { a.x = TensorArg::null(); }), kNull);
  add("LN-NULL-1", "normalizedShape NULL", with([](Ln &a) { a.ns = std::monostate{}; }), kNull);
  add("LN-NULL-1", "mean NULL", with([](Ln &a) { a.mean = TensorArg::null(); }), kNull);
  add("LN-NULL-1", "rstd NULL", with([](Ln &a) { a.rstd = TensorArg::null(); }), kNull);
  add("LN-NULL-1", "outputMask NULL", with([](Ln &a) { a.mask = std::monostate{}; }), kNull);
  add("LN-NULL-1", "rstd NULL with a mask of length 2: LN-NULL-1 comes first", with([](Ln &a) {
        a.rstd = TensorArg::null();
        a.mask = std::vector<bool>{true, true};
      }),
      kNull);
  // LN-MASK-1.
  add("LN-MASK-1", "outputMask of length 2", with([](Ln &a) {
        a.mask = std::vector<bool>{true, true};
      }),
      kBad);
  add("LN-MASK-1", "outputMask of length 4", with([](Ln &a) {
        a.mask = std::vector<bool>{true, true, true, true};
      }),
      kBad);
  add("LN-MASK-1", "outputMask of length 0", with([](Ln &a) { a.mask = std::vector<bool>{}; }),
      kBad);
  add("LN-MASK-1", "length 2 with gradInputOut NULL: LN-MASK-1 is checked before LN-NULL-2",
      with([](Ln &a) {
        a.mask = std::vector<bool>{true, true};
        a.gi = TensorArg::null();
      }),
      kBad);
  // LN-NULL-2.
  add("LN-NULL-2", "outputMask[0] true, gradInputOut NULL",
      with([](Ln &a) { a.gi = TensorArg::null(); }), kNull);
  add("LN-NULL-2", "outputMask[1] true, gradWeightOut NULL",
      with([](Ln &a) { a.gw = TensorArg::null(); }), kNull);
  add("LN-NULL-2", "outputMask[2] true, gradBiasOut NULL",
      with([](Ln &a) { a.gb = TensorArg::null(); }), kNull);
  add("LN-NULL-2", "gradBiasOut NULL with an input of DOUBLE: LN-NULL-2 before LN-DTYPE-1",
      with([](Ln &a) {
        a.gb = TensorArg::null();
        a.x = values_tensor(DType::kFloat64, {2, 4}, kX);
      }),
      kNull);
  add("LN-NULL-2", "outputs whose mask bit is false may be NULL (mask [1,0,0])", with([](Ln &a) {
        a.mask = std::vector<bool>{true, false, false};
        a.gw = TensorArg::null();
        a.gb = TensorArg::null();
      }),
      0, gi_values(kGi));
  // LN-DTYPE-1.
  add("LN-DTYPE-1", "input and gradOut DOUBLE", with([](Ln &a) {
        a.x = values_tensor(DType::kFloat64, {2, 4}, kX);
        a.dy = values_tensor(DType::kFloat64, {2, 4}, kDy);
        a.gi = output_tensor(DType::kFloat64, {2, 4});
      }),
      kBad);
  add("LN-DTYPE-1", "input and gradOut COMPLEX64", with([](Ln &a) {
        a.x = values_tensor(DType::kComplex64, {2, 4}, kX);
        a.dy = values_tensor(DType::kComplex64, {2, 4}, kDy);
        a.gi = output_tensor(DType::kComplex64, {2, 4});
      }),
      kBad);
  add("LN-DTYPE-1", "weight COMPLEX128", with([](Ln &a) {
        a.w = values_tensor(DType::kComplex128, {4}, {1, 1, 1, 1});
      }),
      kBad);
  add("LN-DTYPE-1", "mean INT32", with([](Ln &a) {
        a.mean = values_tensor(DType::kInt32, {2, 1}, {2, 0});
        a.rstd = values_tensor(DType::kInt32, {2, 1}, {2, 1});
      }),
      kBad);
  add("LN-DTYPE-1", "gradOut FLOAT16 with input FLOAT", with([](Ln &a) {
        a.dy = values_tensor(F16, {2, 4}, kDy);
      }),
      kBad);
  add("LN-DTYPE-1", "mean FLOAT16 with rstd FLOAT", with([](Ln &a) {
        a.mean = values_tensor(F16, {2, 1}, {2.5, 0});
      }),
      kBad);
  add("LN-DTYPE-1", "weight FLOAT16 with input BFLOAT16 (neither input's dtype nor FLOAT)",
      with(
          [](Ln &a) {
            a.w = values_tensor(F16, {4}, {2, 1, 1, 1});
            a.b = values_tensor(F16, {4}, {5, 5, 5, 5});
          },
          base(BF16)),
      kBad);
  add("LN-DTYPE-1", "bias FLOAT16 with weight FLOAT", with([](Ln &a) {
        a.b = values_tensor(F16, {4}, {5, 5, 5, 5});
      }),
      kBad);
  add("LN-DTYPE-1", "BFLOAT16 on Atlas inference (ABI-SOC-1)",
      with([](Ln &a) { a.p = Product::kAtlasInference; }, base(BF16)), kBad);
  add("LN-DTYPE-1", "input DOUBLE with gradOut of another shape: LN-DTYPE-1 before LN-SHAPE-2",
      with([](Ln &a) {
        a.x = values_tensor(DType::kFloat64, {2, 4}, kX);
        a.dy = values_tensor(DType::kFloat64, {4, 2}, kDy);
        a.gi = output_tensor(DType::kFloat64, {2, 4});
      }),
      kBad);
  add("LN-DTYPE-1", "input FLOAT16 with weight and bias FLOAT is legal", base(F16, F32).call(), 0,
      all_values(kGi));
  add("LN-DTYPE-1", "input BFLOAT16 with mean/rstd FLOAT is legal",
      with(
          [](Ln &a) {
            a.mean = values_tensor(F32, {2, 1}, {2.5, 0});
            a.rstd = values_tensor(F32, {2, 1}, {2, 1});
          },
          base(BF16, BF16)),
      0, all_values(kGi));
  add("LN-DTYPE-1", "BFLOAT16 on Atlas training (ABI-SOC-1)",
      with([](Ln &a) { a.p = Product::kAtlasTraining; }, base(BF16)), kBad);
  add("LN-DTYPE-1", "BFLOAT16 on Atlas A3 is legal (ABI-SOC-1)",
      with([](Ln &a) { a.p = Product::kAtlasA3; }, base(BF16, BF16)), 0, all_values(kGi));
  add("LN-DTYPE-1", "weight DOUBLE (bias absent)", with([](Ln &a) {
        a.w = values_tensor(DType::kFloat64, {4}, {2, 1, 1, 1});
        a.b = TensorArg::null();
      }),
      kBad);
  add("LN-DTYPE-1", "bias INT32 (weight absent)", with([](Ln &a) {
        a.w = TensorArg::null();
        a.b = values_tensor(DType::kInt32, {4}, {5, 5, 5, 5});
      }),
      kBad);
  add("LN-DTYPE-1", "rstd DOUBLE with mean FLOAT", with([](Ln &a) {
        a.rstd = values_tensor(DType::kFloat64, {2, 1}, {2, 1});
      }),
      kBad);
  add("LN-DTYPE-1", "FLOAT16 on Atlas training is legal (ABI-SOC-1)",
      with([](Ln &a) { a.p = Product::kAtlasTraining; }, base(F16, F16)), 0, all_values(kGi));
  // LN-DTYPE-2.
  add("LN-DTYPE-2", "gradInputOut FLOAT16 with input FLOAT", with([](Ln &a) {
        a.gi = output_tensor(F16, {2, 4});
      }),
      kBad);
  add("LN-DTYPE-2", "gradWeightOut FLOAT16 (the seed: FLOAT only)",
      with([](Ln &a) { a.gw = output_tensor(F16, {4}); }), kBad);
  add("LN-DTYPE-2", "gradBiasOut FLOAT16 with input FLOAT16",
      with([](Ln &a) { a.gb = output_tensor(F16, {4}); }, base(F16, F16)), kBad);
  add("LN-DTYPE-2",
      "an unrequested gradWeightOut of FLOAT16 is not looked at (project reading: mask [1,0,1])",
      with([](Ln &a) {
        a.gw = output_tensor(F16, {4});
        a.mask = std::vector<bool>{true, false, true};
      }),
      0, gi_values(kGi));
  // LN-SHAPE-1.
  add("LN-SHAPE-1", "normalizedShape empty", with([](Ln &a) { a.ns = std::vector<int64_t>{}; }),
      kBad);
  add("LN-SHAPE-1", "len(normalizedShape) 3 > rank(input) 2", with([](Ln &a) {
        a.ns = std::vector<int64_t>{1, 2, 4};
      }),
      kBad);
  add("LN-SHAPE-1", "input [2,4] does not end with normalizedShape [2]",
      with([](Ln &a) { a.ns = std::vector<int64_t>{2}; }), kBad);
  add("LN-SHAPE-1", "input of rank 9 (rank(input) <= 8 is LN-SHAPE-1, before LN-RANK-1)",
      with([](Ln &a) {
        const std::vector<int64_t> s9 = {1, 1, 1, 1, 1, 1, 1, 2, 4};
        a.x = values_tensor(F32, s9, kX);
        a.dy = values_tensor(F32, s9, kDy);
        a.gi = output_tensor(F32, s9);
      }),
      kBad);
  add("LN-SHAPE-1", "input of rank 0: len(normalizedShape) 1 > rank 0", with([](Ln &a) {
        a.x = values_tensor(F32, {}, {1});
        a.dy = values_tensor(F32, {}, {1});
        a.gi = output_tensor(F32, {});
        a.ns = std::vector<int64_t>{1};
      }),
      kBad);
  // LN-SHAPE-2.
  add("LN-SHAPE-2", "gradOut [4,2] with input [2,4]", with([](Ln &a) {
        a.dy = values_tensor(F32, {4, 2}, kDy);
      }),
      kBad);
  add("LN-SHAPE-2", "weight [3] with normalizedShape [4]", with([](Ln &a) {
        a.w = values_tensor(F32, {3}, {2, 1, 1});
      }),
      kBad);
  add("LN-SHAPE-2", "bias [4,1] with normalizedShape [4]", with([](Ln &a) {
        a.b = values_tensor(F32, {4, 1}, {5, 5, 5, 5});
      }),
      kBad);
  // LN-SHAPE-3.
  add("LN-SHAPE-3", "mean [2,1] with rstd [2]", with([](Ln &a) {
        a.rstd = values_tensor(F32, {2}, {2, 1});
      }),
      kBad);
  add("LN-SHAPE-3", "numel(mean) 3 != M 2", with([](Ln &a) {
        a.mean = values_tensor(F32, {3}, {2.5, 0, 0});
        a.rstd = values_tensor(F32, {3}, {2, 1, 1});
      }),
      kBad);
  add("LN-SHAPE-3", "mean/rstd [1,2,1] (the [A..,1..1] form) with input [1,2,4]", with([](Ln &a) {
        a.x = values_tensor(F32, {1, 2, 4}, kX);
        a.dy = values_tensor(F32, {1, 2, 4}, kDy);
        a.gi = output_tensor(F32, {1, 2, 4});
        a.mean = values_tensor(F32, {1, 2, 1}, {2.5, 0});
        a.rstd = values_tensor(F32, {1, 2, 1}, {2, 1});
      }),
      0, all_values(kGi));
  add("LN-SHAPE-3", "mean/rstd [1,2] (the [A..] form) with input [1,2,4]", with([](Ln &a) {
        a.x = values_tensor(F32, {1, 2, 4}, kX);
        a.dy = values_tensor(F32, {1, 2, 4}, kDy);
        a.gi = output_tensor(F32, {1, 2, 4});
        a.mean = values_tensor(F32, {1, 2}, {2.5, 0});
        a.rstd = values_tensor(F32, {1, 2}, {2, 1});
      }),
      0, all_values(kGi));
  add("LN-SHAPE-3", "mean/rstd [2] (the [M] form) with input [1,2,4]", with([](Ln &a) {
        a.x = values_tensor(F32, {1, 2, 4}, kX);
        a.dy = values_tensor(F32, {1, 2, 4}, kDy);
        a.gi = output_tensor(F32, {1, 2, 4});
        a.mean = values_tensor(F32, {2}, {2.5, 0});
        a.rstd = values_tensor(F32, {2}, {2, 1});
      }),
      0, all_values(kGi));
  // LN-SHAPE-4.
  add("LN-SHAPE-4", "gradInputOut [4,2] with input [2,4]", with([](Ln &a) {
        a.gi = output_tensor(F32, {4, 2});
      }),
      kBad);
  add("LN-SHAPE-4", "gradWeightOut [4,1] with normalizedShape [4]", with([](Ln &a) {
        a.gw = output_tensor(F32, {4, 1});
      }),
      kBad);
  add("LN-SHAPE-4", "gradBiasOut [5] with normalizedShape [4]",
      with([](Ln &a) { a.gb = output_tensor(F32, {5}); }), kBad);
  add("LN-SHAPE-4", "an unrequested gradInputOut of another shape is not checked (mask [0,1,1])",
      with([](Ln &a) {
        a.gi = output_tensor(F32, {3, 3});
        a.mask = std::vector<bool>{false, true, true};
      }),
      0);
  // LN-RANK-1.
  add("LN-RANK-1", "mean and rstd of rank 9 (numel M)", with([](Ln &a) {
        const std::vector<int64_t> s9 = {2, 1, 1, 1, 1, 1, 1, 1, 1};
        a.mean = values_tensor(F32, s9, {2.5, 0});
        a.rstd = values_tensor(F32, s9, {2, 1});
      }),
      kBad);
  add("LN-RANK-1", "mean and rstd of rank 0 (M = 1)", with([](Ln &a) {
        a.x = values_tensor(F32, {4}, {1, 2, 3, 4});
        a.dy = values_tensor(F32, {4}, {1, 0, 0, 0});
        a.gi = output_tensor(F32, {4});
        a.mean = values_tensor(F32, {}, {2.5});
        a.rstd = values_tensor(F32, {}, {2});
      }),
      kBad);
  add("LN-RANK-1", "an unrequested gradWeightOut of rank 0 is still a tensor present",
      with([](Ln &a) {
        a.gw = output_tensor(F32, {});
        a.mask = std::vector<bool>{true, false, true};
      }),
      kBad);
  // Values.
  add("LN-VALUE-1", "hand-computed gradInput (weight [2,1,1,1])", base().call(), 0, gi_values(kGi));
  add("LN-VALUE-2", "hand-computed gradWeight [-3,0,0,0] and gradBias [2,2,3,4]", base().call(), 0,
      all_values(kGi));
  add("LN-VALUE-1", "weight absent: w = ones", with([](Ln &a) {
        a.w = TensorArg::null();
        a.b = TensorArg::null();
      }),
      0, gi_values(kGiNoWeight));
  add("LN-VALUE-1", "mean and rstd as given, never recomputed: mean 0, rstd 1 on [1,2,3,4]",
      with([](Ln &a) {
        a.x = values_tensor(F32, {1, 4}, {1, 2, 3, 4});
        a.dy = values_tensor(F32, {1, 4}, {1, 1, 1, 1});
        a.gi = output_tensor(F32, {1, 4});
        a.mean = values_tensor(F32, {1, 1}, {0});
        a.rstd = values_tensor(F32, {1, 1}, {1});
        a.w = TensorArg::null();
        a.b = TensorArg::null();
      }),
      // S1 = 4, S2 = 10: gradInput = 1 - 1 - x*10/4 = [-2.5, -5, -7.5, -10]
      0,
      {{"gradInputOut", 0, -2.5},
       {"gradInputOut", 3, -10},
       {"gradWeightOut", 0, 1},
       {"gradWeightOut", 3, 4},
       {"gradBiasOut", 2, 1}});
  add("LN-VALUE-3", "FLOAT16 input, FLOAT16 weight, FLOAT grads: the same exact values",
      base(F16, F16).call(), 0, all_values(kGi));
  // LN-BIAS-1.
  add("LN-BIAS-1", "bias NaN/inf changes nothing", with([](Ln &a) {
        a.b = values_tensor(F32, {4}, {kNaN, kInf, -kInf, 1e30});
      }),
      0, all_values(kGi));
  add("LN-BIAS-1", "weight present, bias absent: the same values",
      with([](Ln &a) { a.b = TensorArg::null(); }), 0, all_values(kGi));
  // LN-MASK-2.
  add("LN-MASK-2", "mask [0,1,0]: gradInputOut and gradBiasOut present and left untouched",
      with([](Ln &a) {
        a.mask = std::vector<bool>{false, true, false};
      }),
      0, {{"gradWeightOut", 0, -3}, {"gradWeightOut", 1, 0}});
  add("LN-MASK-2", "mask [0,0,0]: success, every output present and untouched", with([](Ln &a) {
        a.mask = std::vector<bool>{false, false, false};
      }),
      0);
  add("LN-MASK-2", "mask [0,0,0] with every output NULL: success", with([](Ln &a) {
        a.mask = std::vector<bool>{false, false, false};
        a.gi = a.gw = a.gb = TensorArg::null();
      }),
      0);
  // LN-EMPTY-1.
  add("LN-EMPTY-1", "M = 0: gradWeight and gradBias zero-filled", with([](Ln &a) {
        a.x = values_tensor(F32, {0, 4}, {});
        a.dy = values_tensor(F32, {0, 4}, {});
        a.gi = output_tensor(F32, {0, 4});
        a.mean = values_tensor(F32, {0, 1}, {});
        a.rstd = values_tensor(F32, {0, 1}, {});
      }),
      0,
      {{"gradWeightOut", 0, 0},
       {"gradWeightOut", 3, 0},
       {"gradBiasOut", 0, 0},
       {"gradBiasOut", 3, 0}});
  add("LN-EMPTY-1", "M = 0, mask [0,0,1]: only gradBias zero-filled, gradWeightOut untouched",
      with([](Ln &a) {
        a.x = values_tensor(F32, {0, 4}, {});
        a.dy = values_tensor(F32, {0, 4}, {});
        a.gi = output_tensor(F32, {0, 4});
        a.mean = values_tensor(F32, {0}, {});
        a.rstd = values_tensor(F32, {0}, {});
        a.mask = std::vector<bool>{false, false, true};
      }),
      0, {{"gradBiasOut", 1, 0}, {"gradBiasOut", 2, 0}});
  add("LN-EMPTY-1", "N = 0: success, nothing to write", with([](Ln &a) {
        a.x = values_tensor(F32, {2, 0}, {});
        a.dy = values_tensor(F32, {2, 0}, {});
        a.gi = output_tensor(F32, {2, 0});
        a.w = values_tensor(F32, {0}, {});
        a.b = values_tensor(F32, {0}, {});
        a.gw = output_tensor(F32, {0});
        a.gb = output_tensor(F32, {0});
        a.ns = std::vector<int64_t>{0};
      }),
      0);
  // LN-SPECIAL-1.
  add("LN-SPECIAL-1", "NaN in input[0,1]: row 0 of gradInput NaN, gradWeight[1] NaN",
      with([](Ln &a) {
        a.x = values_tensor(F32, {2, 4}, {1, kNaN, 3, 4, 0, 0, 0, 0});
      }),
      0,
      {{"gradInputOut", 0, kNaN},
       {"gradInputOut", 3, kNaN},
       {"gradInputOut", 4, -0.75},
       {"gradInputOut", 7, 1.25},
       {"gradWeightOut", 0, -3},
       {"gradWeightOut", 1, kNaN},
       {"gradBiasOut", 1, 2}});
  add("LN-SPECIAL-1", "rstd inf on a row with x == mean: xhat = 0*inf = NaN for the row",
      with([](Ln &a) {
        a.rstd = values_tensor(F32, {2, 1}, {2, kInf});
      }),
      0,
      {{"gradInputOut", 0, -6},
       {"gradInputOut", 4, kNaN},
       {"gradWeightOut", 0, kNaN},
       {"gradWeightOut", 3, kNaN},
       {"gradBiasOut", 0, 2}});
  add("LN-SPECIAL-1", "rstd 0: xhat = 0 and gradInput = 0 on that row", with([](Ln &a) {
        a.rstd = values_tensor(F32, {2, 1}, {0, 1});
      }),
      0,
      {{"gradInputOut", 0, 0},
       {"gradInputOut", 3, 0},
       {"gradInputOut", 7, 1.25},
       {"gradWeightOut", 0, 0},
       {"gradBiasOut", 3, 4}});
  add("LN-SPECIAL-1", "gradOut[0,0] = inf: inf - inf = NaN, -inf, and inf in the column sums",
      with([](Ln &a) {
        a.dy = values_tensor(F32, {2, 4}, {kInf, 0, 0, 0, 1, 2, 3, 4});
      }),
      0,
      {{"gradInputOut", 0, kNaN},
       {"gradInputOut", 1, -kInf},
       {"gradInputOut", 2, kNaN},
       {"gradInputOut", 4, -0.75},
       {"gradWeightOut", 0, -kInf},
       {"gradBiasOut", 0, kInf}});
  add("ABI-INPUT-1",
      "gradInputOut: an output view whose rows overlap (stride 0 on dim 0) is rejected",
      with([](Ln &a) {
        a.gi = overlapping_output(F32, {2, 4});
      }),
      161002);
  return rows;
}

}  // namespace aclnn_conform
