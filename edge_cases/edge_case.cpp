#include "edge_cases/edge_case.hpp"

#include <algorithm>
#include <stdexcept>

#include "properties/gen.hpp"

namespace aclnn_conform {

TensorArg values_tensor(DType dtype, std::vector<int64_t> shape,
                        const std::vector<double> &values) {
  TensorArg t = TensorArg::contiguous(dtype, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.numel())
    throw std::logic_error("edge case: value count does not match the shape");
  for (int64_t i = 0; i < t.numel(); ++i)
    t.set_bits_at(i, gen::bits_of(values[static_cast<size_t>(i)], dtype));
  return t;
}

TensorArg output_tensor(DType dtype, std::vector<int64_t> shape) {
  TensorArg t = TensorArg::contiguous(dtype, std::move(shape));
  std::fill(t.storage.begin(), t.storage.end(), kCanary);
  return t;
}

std::vector<EdgeCase> all_edge_cases() {
  std::vector<EdgeCase> all;
  for (auto table : {gelu_backward_edge_cases, selu_backward_edge_cases,
                     layer_norm_backward_edge_cases, logit_grad_edge_cases,
                     grouped_bias_add_grad_edge_cases}) {
    auto rows = table();
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

}  // namespace aclnn_conform
