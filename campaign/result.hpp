// The result of a conformance campaign: what ran, a verdict per clause, the deviations with their
// minimal counterexamples, and accuracy statistics per op and dtype. Serialises to the versioned
// report.json schema (kSchemaVersion) and back, so shard reports can be merged.
#pragma once

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "properties/case.hpp"
#include "reference/compare.hpp"

namespace aclnn_conform {

constexpr int kSchemaVersion = 1;

// One deviation: a shrunk counterexample and what is wrong with it.
struct Deviation {
  std::string op;
  std::string clause;        // the first failing clause
  std::string detail;        // judge's text for that clause
  std::string all_failures;  // every failing clause with details, one per line
  Case minimal;              // after shrinking
  std::string origin;        // "seed 0x...:valid:size 40" or "corpus FILE"
  int shrink_steps = 0;
  std::string kind;                   // "deviation", "crash", "timeout"
  std::vector<std::string> variants;  // spec variants under which the case conforms (strictly)
  // Variants the case does not contradict: it conforms under them by the Ascend precision
  // standard (e.g. a result of 0 where the variant's exact value is 1e-23).
  std::vector<std::string> consistent_variants;
  // Values of record and what came, for the first mismatching elements (for reports and repros).
  std::string expected_status;  // e.g. "161002 (GELU-BCAST-2)" or "0"
  int32_t got_status = 0;
  std::string repro_file;  // relative to the output directory, once written
  std::string corpus_file;
};

enum class ClauseStatus { kConforms, kDeviates, kNotReached, kSkipped, kExpectedFailure };
std::string clause_status_name(ClauseStatus s);  // "conforms", "deviates", "not reached", ...

struct ClauseVerdict {
  std::string id;
  std::string op;          // "common" for shared clauses
  int64_t reached = 0;     // cases that exercised the clause
  int64_t deviations = 0;  // cases where it failed
  ClauseStatus status = ClauseStatus::kNotReached;
  // The fingerprint: variants that strictly explain at least one kept counterexample of the
  // clause and that no kept counterexample contradicts (see Deviation::consistent_variants).
  std::vector<std::string> variants;
  std::string first_detail;  // the first deviation's text
};

// ULP histogram and Ascend metrics of one op's outputs of one dtype.
struct AccuracyStats {
  std::string op;
  std::string dtype;
  int64_t elements = 0;
  std::array<int64_t, aclnn_ref::kBucketCount> histogram{};
  double max_ulps = 0;
  double mere_weighted_sum = 0;  // sum of MERE * elements, over compared outputs
  double mare = 0;
  double mere() const { return elements ? mere_weighted_sum / elements : 0; }
};

struct CampaignResult {
  int schema = kSchemaVersion;
  std::string sut;
  std::string product;  // ascend910b, ...
  std::string tier;     // smoke, ci, nightly
  std::string policy;   // ulp, ascend
  uint64_t seed = 0;
  std::string shard = "0/1";
  // Where the shard came from: "flag", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "default".
  std::string shard_source;
  std::vector<std::string> ops;
  int64_t cases = 0;
  double seconds = 0;
  std::vector<ClauseVerdict> clauses;  // every clause of the specification, in spec order
  std::vector<Deviation> deviations;
  std::vector<AccuracyStats> accuracy;
  std::vector<std::string> warnings;  // e.g. a skip entry that matched nothing
  std::vector<std::string> skipped;   // clause IDs or property names skipped by request
  std::vector<std::string> xfails;

  bool conformant() const;  // no clause deviates (expected failures excepted)
  ClauseVerdict *clause(const std::string &id);
};

// JSON has no inf or NaN (nlohmann writes null): report numbers that may be non-finite travel
// through these, as the strings "inf", "-inf", "nan".
nlohmann::json json_number(double v);
double number_from_json(const nlohmann::json &j);

nlohmann::json to_json(const CampaignResult &r);
CampaignResult result_from_json(const nlohmann::json &j);  // throws on a schema it cannot read

// Merges shard results of one campaign (same SUT, product, seed): counts add up, statuses are
// recomputed, deviations and accuracy are combined.
CampaignResult merge_results(const std::vector<CampaignResult> &shards);

// Recomputes each clause's status from its counts, skips and expected failures, and its variant
// fingerprint from the kept counterexamples.
void finalize_statuses(CampaignResult &r);

}  // namespace aclnn_conform
