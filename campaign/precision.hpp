// The precision standards Ascend users work to, measured in the same run as the judge of record
// (--policy): per op and output dtype, bounded tallies of every compared element (error counts,
// sums of squares, relative errors, small-value and inf/NaN handling), a bounded sample of
// per-element errors for the report's pictures, and, with --competitor, the same tallies for a
// second library on the same inputs against the same exact values. Everything here is reported;
// only --policy decides the verdict. docs/report-format.md states each standard.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "campaign/kit_tally.hpp"
#include "properties/case.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"
#include "reference/dtype.hpp"

namespace aclnn_conform {

// |exact| below this is a small value, judged by absolute error (2^-11 fp16, 2^-8 bf16, 2^-14
// fp32 and anything else).
double small_value_threshold(aclnn_ref::DType t);
// A small value is an error when |got - exact| exceeds this (2^-16 fp16 and bf16, 2^-30 fp32).
double small_value_atol(aclnn_ref::DType t);

// Counts and sums over compared elements of one library's outputs; exact to merge (sums, maxima).
struct ErrorTally {
  int64_t elements = 0;             // every compared element
  int64_t nonfinite_expected = 0;   // elements whose value of record is inf or NaN
  int64_t class_mismatches = 0;     // got's class (NaN, +inf, -inf, finite) differs from record's
  int64_t finite = 0;               // all finite: the numeric statistics below are over these
  double sum_sq_err = 0;            // RMSE = sqrt(sum_sq_err / finite)
  double sum_rel = 0, max_rel = 0;  // rel = |got - exact| / (|exact| + 1e-7) (VAL-TOL-1 part 1)
  int64_t normal = 0;               // finite with |exact| >= small_value_threshold
  int64_t rel_over_1e3 = 0, rel_over_1e4 = 0;  // of those: |got - exact| / |exact| > 1e-3, 1e-4
  int64_t small = 0, small_errors = 0;         // |exact| below the threshold; |err| > atol

  // record: the value of record (exact rounded once to t). Classes are judged against it, so an
  // exact value beyond the dtype's range is due as inf; errors are measured against exact.
  void add(double got, double exact, double record, aclnn_ref::DType t);
  void add(double got, double exact, aclnn_ref::DType t) { add(got, exact, exact, t); }
  void merge(const ErrorTally &o);
  double rmse() const;
  double mere() const;
};

// One element's error for the pictures: x is the input value (elementwise ops) or the condition
// number sum|terms| / |exact| (sums); key orders the sample (a hash, so merging is deterministic).
struct ErrorSample {
  double x = 0;
  double ulps = 0;  // |got - exact| / ulp(exact) in the output dtype
  uint64_t key = 0;
};

struct PrecisionStats {
  std::string op, dtype;
  std::string axis;  // what ErrorSample::x is: "input <name>", "condition number" or "" (none)
  int64_t cases = 0;
  ErrorTally sut;
  // --competitor: the cases on which both libraries returned success, element for element.
  std::string competitor;  // as given on the command line ("" without one)
  int64_t paired_cases = 0;
  int64_t competitor_failed_cases = 0;  // the SUT succeeded, the competitor did not
  ErrorTally paired_sut, paired_competitor;
  std::vector<ErrorSample> samples;  // up to kSamples with the smallest keys
  std::vector<ErrorSample> worst;    // up to kWorst with the largest ulps
  // The vendor kits' standards, one tally per standard (kit_tally.hpp): cases judged and passed,
  // the worst case. Every standard of reference/kit_standards.hpp, in its order.
  std::vector<KitTally> kits;

  static constexpr size_t kSamples = 256, kWorst = 16;
  void merge(const PrecisionStats &o);  // same op and dtype
};

nlohmann::json to_json(const PrecisionStats &p);
PrecisionStats precision_from_json(const nlohmann::json &j);

// The per-dtype precision statistics of one valid call that both libraries ran: got is the
// SUT's outcome, competitor (may be null) the second library's on the same case. seed_key makes
// the sample keys differ between cases; origin names the case in the kits' tallies (their worst
// case). Returns one entry per output dtype, with every kit standard judged on the case.
std::vector<PrecisionStats> collect_precision(
    const OpDescriptor &op, const Case &c, const Outcome &got, const Outcome *competitor,
    const std::string &competitor_name, uint64_t seed_key, const std::string &origin = "",
    const std::vector<aclnn_ref::ExpectedOutput> *record_values = nullptr);

// One precision standard's result on a PrecisionStats row, for the reports.
struct StandardResult {
  std::string id;          // "ulp", "ascend", "double-thousandth", ...
  std::string name;        // e.g. "Ascend MERE/MARE"
  std::string thresholds;  // the rule, with this dtype's numbers
  std::string measured;    // what was measured
  // kNotJudged: the standard needs what the run did not give (a reference device: --competitor).
  enum class Outcome { kPass, kFail, kInfo, kNotExercised, kNotJudged } outcome = Outcome::kInfo;
  bool decides = false;  // the judge of record (--policy)
  std::string needs;     // what the standard asks for, e.g. ">= 1000 elements"
  bool enough = true;    // the run gave it that much
  std::string kit;       // "TTK" or "msprobe" for a vendor kit's standard, "" for the project's
  std::string source;    // where the rule is written (kit standards: repository, file, commit)
};
// "pass", "fail", "info", "not exercised", "not judged"
std::string outcome_name(StandardResult::Outcome o);

// The standards on one row. ulp_pass: the ulp judge's result on the row (VAL-TOL-1 part 2) with
// its measured text; mere/mare: the judge's own Ascend metrics; policy "ulp", "ascend" or a kit
// standard's id (the one that decides); min_cases: what the tier asks of each clause. The
// project's standards come first, then every vendor kit standard (kit != "").
struct UlpRow {
  bool known = false;
  bool pass = true;
  std::string measured;
  double mere = 0, mare = 0;
};
std::vector<StandardResult> precision_standards(const PrecisionStats &p, const UlpRow &ulp,
                                                const std::string &policy, int64_t min_cases);

}  // namespace aclnn_conform
