#include "properties/op.hpp"

namespace aclnn_conform {

const std::vector<const OpDescriptor *> &registry() {
  // One line per op.
  static const std::vector<const OpDescriptor *> ops = {
      &gelu_backward_op(), &selu_backward_op(),         &layer_norm_backward_op(),
      &logit_grad_op(),    &grouped_bias_add_grad_op(), &grouped_bias_add_grad_v2_op(),
  };
  return ops;
}

const OpDescriptor *find_op(std::string_view name) {
  for (const auto *op : registry())
    if (op->name == name) return op;
  return nullptr;
}

}  // namespace aclnn_conform
