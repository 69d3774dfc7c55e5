// The op registry: each entry ties together what every layer needs of one op - its name and
// clauses, its generators of valid and invalid cases, the call through the ABI, and the oracle.
// Every other layer learns the ops from registry(); adding an op: docs/adding-an-op.md.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "properties/case.hpp"
#include "properties/sut.hpp"
#include "reference/spec.hpp"

namespace aclnn_conform {

struct EdgeCase;  // edge_cases/edge_case.hpp

struct OpDescriptor {
  std::string name;                  // "GeluBackward"
  std::string abi_name;              // "aclnnGeluBackward" (and "...GetWorkspaceSize")
  std::vector<std::string> outputs;  // tensor names the op writes
  // Every clause this op's properties and edge cases enforce: derived from the clause catalogue
  // by clauses_from_catalogue() (the hooks at the end say how), never listed by hand.
  std::vector<std::string> clauses;
  std::vector<std::string> variants;  // as the oracle names them

  // True if the SUT exports the op's two entry points (abi_symbols()) and whatever else the op
  // calls; two_phase_available() unless the op needs more.
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
  // The large call a row sweep refills (properties/sweep.hpp); empty: gen_large's. An op whose
  // outputs a call may leave unrequested (LayerNormBackward's outputMask) requests them all here,
  // so that every refilled element is judged in every output it reaches.
  std::function<rc::Gen<Case>(Product)> gen_sweep;

  // ---- per-op hooks
  // The op its clauses carry in spec/clauses.json (V1 and V2 of GroupedBiasAddGrad share one).
  std::string catalogue_op;
  // Clauses of catalogue_op that belong to another variant, not to this op (GBAG-TYPE-1 is V2's).
  std::vector<std::string> clauses_of_other_variants;
  // "common" clauses this op's own properties and edge rows enforce, listed in `clauses` after
  // the op's (GroupedBiasAddGrad: ABI-SOC-1).
  std::vector<std::string> shared_clauses;
  // Error clauses that state a precondition the caller must guarantee (GBAG-IDX-1): on a call
  // that breaks one, any status is the SUT's right; the judge checks only memory safety.
  std::vector<std::string> caller_precondition_clauses;
  // Shared clauses whose registry-wide enforcer is one of this op's tests: (clause, property),
  // the test being "<name>Property.<property>" (GeluBackward stands for ABI-BCAST-1, ...).
  std::vector<std::pair<std::string, std::string>> shared_clause_enforcers;
  // The op's edge-case table (edge_cases/<op>.cpp); null where another op's table holds its rows
  // (GroupedBiasAddGradV2's are in GroupedBiasAddGrad's, in the order the campaign runs them).
  std::vector<EdgeCase> (*edge_cases)() = nullptr;
  // The op whose documentation page (ops/<name>.md, campaign/docs.cpp) lists this descriptor's
  // ABI, when it is another form of that op (a V2 entry point); "" for the op's own page.
  std::string docs_page_op;
  // The input an elementwise op's error depends on (where GELU's root or logit's 0 and 1 are):
  // the precision tallies' axis (campaign/precision.cpp); "" where the error has no such input.
  std::string error_axis_input;
  // An elementwise op whose result is dy times an exact factor of one input x: the factor (NaN
  // where an element should not be placed), and a valid contiguous call of one float dtype with
  // `tensors` (in the call's order; x, dy and outputs[0] among them) and `attrs`. The edge rows
  // put (x, dy) pairs at the limits of each float output dtype's range with it
  // (edge_cases/edge_case.cpp, range_limit_rows). factor empty: the op has none.
  struct RangeLimits {
    std::function<long double(long double)> factor;
    std::vector<std::string> tensors;
    std::string x, dy;
    std::vector<std::pair<std::string, double>> attrs;
    // The attribute sets a value sweep (properties/sweep.hpp) takes one of, by its seed; empty:
    // attrs.
    std::vector<std::vector<std::pair<std::string, double>>> sweep_attrs;
  };
  RangeLimits range_limits;
};

// The op's clauses: catalogue_op's in the catalogue's order, less clauses_of_other_variants, then
// shared_clauses. Each descriptor sets `clauses` from this.
std::vector<std::string> clauses_from_catalogue(const OpDescriptor &op);
// The ABI symbols of the op: "<abi_name>GetWorkspaceSize" and "<abi_name>".
std::vector<std::string> abi_symbols(const OpDescriptor &op);
// `available` for an op that needs only its two entry points.
std::function<bool(const AbiTable &)> two_phase_available(const std::string &abi_name);
// The GoogleTest name of one of the op's own properties: "GeluBackwardProperty.ZeroDyGivesZeroDx".
std::string property_test_name(const OpDescriptor &op, const std::string &property);

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
