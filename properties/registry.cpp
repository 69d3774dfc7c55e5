#include <algorithm>

#include "properties/clauses.hpp"
#include "properties/op.hpp"

namespace aclnn_conform {

// The accessors the descriptor files (properties/<op>.cpp) define, declared here so that a new
// op's registry entry is in this file alone (op.hpp declares the first ops' for their own tests;
// a new op's tests can use find_op).
const OpDescriptor &gelu_backward_op();
const OpDescriptor &selu_backward_op();
const OpDescriptor &layer_norm_backward_op();
const OpDescriptor &logit_grad_op();
const OpDescriptor &grouped_bias_add_grad_op();
const OpDescriptor &grouped_bias_add_grad_v2_op();

const std::vector<const OpDescriptor *> &registry() {
  // One entry per op, in the spec's order.
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

std::vector<std::string> clauses_from_catalogue(const OpDescriptor &op) {
  const auto &other = op.clauses_of_other_variants;
  std::vector<std::string> out;
  for (const auto &c : clause_catalog())
    if (c.op == op.catalogue_op && std::find(other.begin(), other.end(), c.id) == other.end())
      out.push_back(c.id);
  out.insert(out.end(), op.shared_clauses.begin(), op.shared_clauses.end());
  return out;
}

std::vector<std::string> abi_symbols(const OpDescriptor &op) {
  return {op.abi_name + "GetWorkspaceSize", op.abi_name};
}

std::function<bool(const AbiTable &)> two_phase_available(const std::string &abi_name) {
  return [abi_name](const AbiTable &a) {
    return a.symbol(abi_name + "GetWorkspaceSize") != nullptr && a.symbol(abi_name) != nullptr;
  };
}

std::string property_test_name(const OpDescriptor &op, const std::string &property) {
  return op.name + "Property." + property;
}

}  // namespace aclnn_conform
