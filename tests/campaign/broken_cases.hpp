// Calls on which the deliberately broken test SUT (tests/broken/broken_sut.cpp) misbehaves.
#pragma once

#include <cstdint>
#include <vector>

#include "edge_cases/edge_case.hpp"

namespace aclnn_conform::test {

// LayerNormBackward on one row of n ones (gradInput only): the broken SUT crashes for n = 3 and
// hangs for n = 5.
inline Case layer_norm_row(int64_t n) {
  Case c;
  c.op = "LayerNormBackward";
  const std::vector<double> ones(static_cast<size_t>(n), 1.0);
  c.tensors = {{"gradOut", values_tensor(DType::kFloat32, {1, n}, ones)},
               {"input", values_tensor(DType::kFloat32, {1, n}, ones)},
               {"mean", values_tensor(DType::kFloat32, {1}, {0.5})},
               {"rstd", values_tensor(DType::kFloat32, {1}, {2.0})},
               {"weightOptional", TensorArg::null()},
               {"biasOptional", TensorArg::null()},
               {"gradInputOut", output_tensor(DType::kFloat32, {1, n})},
               {"gradWeightOut", TensorArg::null()},
               {"gradBiasOut", TensorArg::null()}};
  c.attrs = {{"normalizedShape", std::vector<int64_t>{n}},
             {"outputMask", std::vector<bool>{true, false, false}}};
  return c;
}

// GeluBackward on n float32 values: the call the hostile modes (ACLNN_BROKEN_HOSTILE) act in.
inline Case gelu_row(int64_t n) {
  Case c;
  c.op = "GeluBackward";
  const std::vector<double> xs(static_cast<size_t>(n), 0.5);
  c.tensors = {{"gradOutput", values_tensor(DType::kFloat32, {n}, xs)},
               {"self", values_tensor(DType::kFloat32, {n}, xs)},
               {"gradInput", output_tensor(DType::kFloat32, {n})}};
  return c;
}

}  // namespace aclnn_conform::test
