// The precision standards of the two vendor kits, by the names the kits give them, on one output
// tensor: hicann/ops-test-kit ("TTK": mixed, stat_rel_err, close, cosine, binary, cross_check
// L0/L1/L2) and msprobe's API accuracy checker (Ascend/mstt: benchmark, absolute_threshold,
// ulp_compare, binary_consistency, thousandth_threshold, and run_ut's pre-check on cosine
// similarity and maximum absolute error). Pure comparison maths: no ABI, no campaign.
//
// Each standard is the kit's code as users' runs apply it (docs/standards.md gives every rule,
// threshold and source file with its commit, and where msprobe's documents say otherwise):
// - Where a kit computes its golden in higher precision than the output, the golden is the
//   oracle's exact value (ExpectedOutput::exact_nearest), which such a golden approximates: TTK's
//   cross_check (golden_mode Promote), and msprobe's bench everywhere (run_ut raises fp16/bf16 to
//   fp32 and fp32 to fp64), cast to the output dtype where msprobe casts it (finite masks, error
//   balance). Where the kit's golden is cast back to the output's dtype (TTK's mixed,
//   stat_rel_err, close, cosine, binary), it is the value of record - the exact value rounded
//   once to the output dtype, the best such golden.
// - The bitwise standards (ttk-binary, msprobe-binary_consistency) compare with the value of
//   record, the only golden a result can equal.
// - Standards that compare with another device (ttk-cross_check-*, msprobe-benchmark, and
//   msprobe-ulp_compare's fallback ratio) take that device's result on the same inputs
//   (KitOutput::reference, --competitor); without one they are kNotJudged, never guessed.
// - An output with no elements is kNotJudged by every standard (TTK passes two empty tensors,
//   msprobe skips a zero shape; neither says anything about values).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/dtype.hpp"

namespace aclnn_ref {
struct ExpectedOutput;
struct TensorView;
}  // namespace aclnn_ref

namespace aclnn_ref::kits {

// One output tensor as the kits see it: element i of each span is the same element.
struct KitOutput {
  DType dtype = DType::kFloat32;
  std::span<const double> got;        // the system under test's values
  std::span<const double> exact;      // the exact value (nearest double; may exceed the dtype)
  std::span<const double> record;     // the exact value rounded once to dtype
  std::span<const double> reference;  // another device's values on the same inputs (empty: none)
};

// The element values of an output: got and (if given) the reference device's from their views,
// exact and record from the oracle's expectation (the value of record stands in for a missing
// exact value). The spans of view() point into this object.
struct KitValues {
  DType dtype = DType::kFloat32;
  std::vector<double> got, exact, record, reference;
  KitOutput view() const { return {dtype, got, exact, record, reference}; }
};
KitValues kit_values(const ExpectedOutput &e, const TensorView &got, const TensorView *reference);

enum class Verdict { kPass, kFail, kNotJudged };
const char *verdict_name(Verdict v);  // "pass", "fail", "not judged"

struct StandardOutcome {
  Verdict verdict = Verdict::kNotJudged;
  // Orders outcomes of one standard, larger is worse (a failing outcome is always worse than a
  // passing one when tallies compare them): the largest measure over its limit where a standard
  // has limits (about 1 at the threshold), else a share of failing elements.
  double score = 0;
  std::string measured;      // the measures, one line
  int64_t worst_index = -1;  // the element that weighs most in a failure (-1: none)
  bool warning = false;      // msprobe-precheck's WARNING (counted as not passing, as msprobe does)
  std::string note;          // kNotJudged: why
};

struct StandardInfo {
  std::string id;                // "ttk-mixed", "msprobe-benchmark", ...
  std::string kit;               // "TTK" or "msprobe"
  std::string name;              // the kit's own name of the standard
  bool needs_reference = false;  // always compares with another device's result
  bool uses_reference = false;   // may need one (msprobe-ulp_compare's fallback ratio)
  std::string source;            // repository, file and commit of the rule
};
// Every standard, TTK's then msprobe's, in the order the reports list them.
const std::vector<StandardInfo> &standards();
const StandardInfo *find_standard(std::string_view id);  // nullptr if unknown
// The rule with dtype t's thresholds, one line.
std::string thresholds(std::string_view id, DType t);
// The standard on one output. Throws std::invalid_argument for an unknown id.
StandardOutcome evaluate(std::string_view id, const KitOutput &o);

// Per-dtype constants, exposed for the known-answer tests and the reports.
struct MixedTolerance {
  double rtol, atol, max_abs_error_limit;
};
MixedTolerance ttk_mixed_tolerance(DType t);
double ttk_stat_rel_err_threshold(DType t);
struct CrossCheckLevel {
  double mare, mere, rmse;
};
CrossCheckLevel ttk_cross_check_level(int level);  // 0, 1, 2

}  // namespace aclnn_ref::kits
