// The op registry: each entry ties together what every layer needs of one op - its name and
// clauses, its generators of valid and invalid cases, the call through the ABI, and the oracle.
// Adding an op is one file under properties/ that defines a descriptor, plus one line in
// registry.cpp.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <string>
#include <vector>

#include "properties/case.hpp"
#include "properties/sut.hpp"
#include "reference/spec.hpp"

namespace aclnn_conform {

struct OpDescriptor {
  std::string name;                  // "GeluBackward"
  std::string abi_name;              // "aclnnGeluBackward"
  std::vector<std::string> outputs;  // tensor names the op writes
  // Every clause this op's properties and edge cases enforce (op clauses and shared ones).
  std::vector<std::string> clauses;
  std::vector<std::string> variants;  // as the oracle names them

  // True if the SUT exports the op's two entry points.
  std::function<bool(const AbiTable &)> available;
  // Phase one through the ABI: tensors staged in the case's order (nullptr for NULL arguments).
  std::function<aclnnStatus(const AbiTable &, const Case &, const std::vector<aclTensor *> &,
                            uint64_t *, aclOpExecutor **)>
      phase_one;
  std::function<aclnnStatus(const AbiTable &, void *, uint64_t, aclOpExecutor *, aclrtStream)>
      phase_two;

  // Oracle: the expected status (clause that decides it) and the values of record.
  std::function<aclnn_ref::Verdict(const Case &, const aclnn_ref::VariantSet &)> check;
  std::function<std::vector<aclnn_ref::ExpectedOutput>(const Case &, const aclnn_ref::VariantSet &)>
      values;
  // The clauses a valid case exercises (for per-clause counts), and the value clause that governs
  // one output element of a valid case (to attribute a mismatch).
  std::function<std::vector<std::string>(const Case &)> reached;
  std::function<std::string(const Case &, const std::string &output, int64_t index)> value_clause;

  // For standalone repro programs: the op's header ("aclnnop/aclnn_gelu_backward.h"), the name
  // of its second-phase function, and the C++ statements of its first-phase call given the
  // variable names of the staged tensors (in the case's order; "nullptr" for NULL ones). The
  // statements assign `ret` (aclnnStatus), `workspaceSize` and `executor`, creating and
  // destroying any aclIntArray/aclBoolArray they need.
  std::string header;
  std::string phase_two_name;
  std::function<std::string(const Case &, const std::vector<std::string> &tensor_vars)>
      repro_phase_one;

  // Generators: valid calls, and calls that break exactly one error clause (or several, to test
  // the check order).
  std::function<rc::Gen<Case>(Product)> gen_valid;
  std::function<rc::Gen<Case>(Product)> gen_invalid;
  // Large valid calls (tens of thousands of elements and more: threaded paths, workspaces), drawn
  // now and then by a campaign; empty if the op has none.
  std::function<rc::Gen<Case>(Product)> gen_large;

  // ---- per-op hooks (campaign helper)
  // Error clauses that state preconditions the caller must guarantee: a call breaking one may
  // return any status but must not crash or write outside its outputs (repro programs accept any
  // status for them, as properties/judge.cpp judges them).
  std::vector<std::string> caller_precondition_clauses;
  // The op whose documentation page (ops/<name>.md, campaign/docs.cpp) lists this descriptor's
  // ABI, when it is another form of that op (a V2 entry point); "" for the op's own page.
  std::string docs_page_op;
};

// All ops, in the spec's order.
const std::vector<const OpDescriptor *> &registry();
const OpDescriptor *find_op(std::string_view name);

// Per-op descriptors (one file each under properties/).
const OpDescriptor &gelu_backward_op();
const OpDescriptor &selu_backward_op();
const OpDescriptor &layer_norm_backward_op();
const OpDescriptor &logit_grad_op();
const OpDescriptor &grouped_bias_add_grad_op();     // aclnnGroupedBiasAddGrad (V1)
const OpDescriptor &grouped_bias_add_grad_v2_op();  // aclnnGroupedBiasAddGradV2

}  // namespace aclnn_conform
