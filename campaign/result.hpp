// The result of a conformance campaign: what ran, a verdict per clause, the deviations with their
// minimal counterexamples, and accuracy statistics per op and dtype. Serialises to the versioned
// report.json schema (kSchemaVersion) and back, so shard reports can be merged.
#pragma once

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "campaign/precision.hpp"
#include "properties/case.hpp"
#include "reference/compare.hpp"

namespace aclnn_conform {

// 2: typed statuses (expected_status is an int, expected_clause its clause), non-finite numbers
// as null plus a "<field>_nonfinite" string, the verdict, the SUT's identity, coverage minimums.
// 3: cause groups ("causes", "cause_count", "deviating_clause_count"), the precision standards'
// tallies and error samples per accuracy row ("precision"), the competitor ("competitor").
// 4: device stacks: every SUT file ("sut_files"), devices ("devices"), first calls
// ("first_calls"), "aborted", a deviation's "device", the kind "device-fault"; the vendor kits'
// standards (TTK, msprobe): per accuracy row "precision"."kits", one tally per standard;
// "policy" may name one of them (docs/standards.md).
constexpr int kSchemaVersion = 4;

// aclnn-conform's version: the CMake project version, recorded in every report.
std::string conform_version();

// Which library a result is about: enough to tell two builds apart (docs/report-format.md).
struct SutIdentity {
  std::string path;    // absolute path of the file that was loaded ("builtin" resolved)
  std::string soname;  // DT_SONAME of its ELF dynamic section, "" if it has none
  int64_t size = 0;    // bytes
  std::string sha256;  // lowercase hex of the file's contents
};

// Identifies the library at `path` ("builtin": the built-in library). Throws std::runtime_error
// naming the path if the file cannot be read.
SutIdentity identify_sut(const std::string &path);

// The files a --sut names, in load order: "builtin"; "cann" (the vendor's libascendcl.so,
// libnnopbase.so and libopapi.so under $ASCEND_HOME_PATH/lib64); "a.so:b.so:..." (a library split
// over several files); or one path. Throws std::runtime_error naming what is missing.
// "python:MODULE" (a Python module that defines the ops as functions, docs/python.md) names the
// adapter library libaclnn_python_sut.so, found beside aclnn-conform-worker (installed) or in the
// build tree's python/ (ACLNN_PYTHON_SUT_ADAPTER names another); MODULE travels to the workers in
// the environment variable ACLNN_PYTHON_SUT_MODULE, which this call sets.
std::vector<std::string> sut_files(const std::string &spec);

// True for a --sut "python:MODULE".
bool is_python_sut(const std::string &spec);
// The clauses a python: SUT cannot be judged on: what the adapter answers itself (the C ABI's
// runtime, tensor descriptors, executors and the two-phase protocol), not the module. A campaign
// marks them skipped, as not applicable (CampaignResult::not_applicable), never as conforming.
const std::vector<std::string> &python_sut_not_applicable();
constexpr const char *kPythonSutNotApplicableReason = "not applicable to a python: SUT";

// One device of the run (--devices) and what happened on it.
struct DeviceUsage {
  int id = 0;
  int64_t cases = 0;      // task results that came from its workers
  int workers = 0;        // worker processes started on it
  int device_faults = 0;  // times it stopped answering in the middle of a task
  int out_of_memory = 0;  // allocations it refused for want of memory
  bool retired = false;   // no more workers were started on it
  std::string note;       // why it was retired
};

// How long something took, over a run: an op's warm-up (its first call in a worker, when a device
// loads its kernels), or a worker's start (loading the library, aclInit, aclrtSetDevice, stream).
struct TimingStats {
  std::string what;  // "start" or the op's name
  int64_t count = 0;
  double total_seconds = 0, max_seconds = 0;
  void add(double seconds);
  void merge(const TimingStats &o);
  double mean_seconds() const { return count ? total_seconds / static_cast<double>(count) : 0; }
};

nlohmann::json to_json(const SutIdentity &s);
SutIdentity sut_identity_from_json(const nlohmann::json &j);

// One deviation: a shrunk counterexample and what is wrong with it.
struct Deviation {
  std::string op;
  std::string clause;        // the first failing clause
  std::string detail;        // judge's text for that clause
  std::string all_failures;  // every failing clause with details, one per line
  Case minimal;              // after shrinking
  std::string origin;        // "seed 0x...:valid:size 40" or "corpus FILE"
  int shrink_steps = 0;
  // "deviation", "crash", "timeout", or "device-fault" (the device stopped answering after
  // `call`: every call after it failed, and a health check did too).
  std::string kind;
  std::vector<std::string> variants;  // spec variants under which the case conforms (strictly)
  // Variants the case does not contradict: it conforms under them by the Ascend precision
  // standard (e.g. a result of 0 where the variant's exact value is 1e-23).
  std::vector<std::string> consistent_variants;
  // The status of record and the status that came.
  int32_t expected_status = 0;  // e.g. 161002
  std::string expected_clause;  // the clause that demands expected_status ("" for success)
  int32_t got_status = 0;
  std::string repro_file;  // relative to the output directory, once written
  std::string corpus_file;
  // The ABI call in flight when the SUT deviated, crashed or hung, e.g.
  // "aclnnGeluBackwardGetWorkspaceSize" or "protocol: second run of the executor".
  std::string call;
  double found_at_seconds = 0;   // time into the run when it was first found
  int64_t found_at_case = 0;     // cases run before it was first found
  std::string case_id;           // stable id of its corpus entry (the file stem): replay --case ID
  std::string summary;           // the shrunk case in words, one line
  std::string expected_variant;  // the expected variant (--expect-variant) that explains it
  int device = -1;               // the device it ran on (-1: not recorded)
};

enum class ClauseStatus {
  kConforms,
  kDeviates,
  kNotReached,  // no case reached it
  kSkipped,     // skipped by request or not selected by the clause pattern
  kExpectedFailure,
  kUnderTested,        // reached by fewer than min_cases cases (but by some)
  kConformsToVariant,  // every deviation is explained by an expected variant
};
// "conforms", "deviates", "not reached", "skipped", "expected failure", "under-tested",
// "conforms to variant".
std::string clause_status_name(ClauseStatus s);

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
  int64_t min_cases = 0;     // reaching cases the tier demands (0: no minimum)
  double seconds = 0;        // wall time of the cases that reached it (JUnit time)
  std::vector<std::string> expected_variants_matched;  // expected variants that explain it
  // Cases that deviate from the record but conform under the expected variants (judged per case
  // by the engine, so no unexplained case hides behind an explained one).
  int64_t explained_by_variant = 0;
};

// The run's verdict, in order of precedence; each has its own exit code (cli/main.cpp).
enum class Verdict { kConformant, kDeviations, kIncomplete, kInterrupted };
std::string verdict_name(Verdict v);  // "CONFORMANT", "DEVIATIONS", "INCOMPLETE", "INTERRUPTED"

// ULP histogram and Ascend metrics of one op's outputs of one dtype.
struct AccuracyStats {
  std::string op;
  std::string dtype;
  int64_t elements = 0;
  std::array<int64_t, aclnn_ref::kBucketCount> histogram{};
  double max_ulps = 0;
  double mere_weighted_sum = 0;  // sum of MERE * elements, over compared outputs
  double mare = 0;
  // The tolerance rules that judged these outputs: "ulp", "sum" (condition-aware sum bound),
  // "ascend" (MERE/MARE), "exact" (set by the campaign; empty: unknown).
  std::vector<std::string> rules{};
  double max_bound_ratio = 0;  // "sum": the largest |got - exact| / bound (<= 1 passes)
  // The precision standards' tallies and error samples (precision.hpp); cases == 0: none.
  PrecisionStats precision;
  double mere() const { return elements ? mere_weighted_sum / elements : 0; }
};

// The row of rows for op and dtype, appended (empty) if there is none yet.
AccuracyStats &accuracy_row(std::vector<AccuracyStats> &rows, const std::string &op,
                            const std::string &dtype);
// Adds from's tallies into into (same op and dtype): counts and sums add, maxima combine, rules
// and precision tallies merge. The one merge of accuracy, for a worker's comparisons as for shards.
void merge_accuracy(AccuracyStats &into, const AccuracyStats &from);

// A deviation as JSON: the one serialisation of a failure record, written by a worker to the
// campaign's pipe and by report.json, and read back from both by deviation_from_json.
nlohmann::json to_json(const Deviation &d);
Deviation deviation_from_json(const nlohmann::json &j);

struct CampaignResult {
  int schema = kSchemaVersion;
  std::string sut;  // as given: "builtin", "cann", a path, or paths joined by ':'
  // The file holding the ops (the last of sut_files: the vendor's libopapi.so), and every file
  // loaded, in load order.
  SutIdentity sut_identity;
  std::vector<SutIdentity> sut_files;
  std::vector<DeviceUsage> devices;      // --devices, each with its counts
  std::vector<TimingStats> first_calls;  // worker starts ("start") and each op's warm-up
  // Workers could not go on (every device was retired): the run covers only what ran, and its
  // verdict is never better than INCOMPLETE.
  std::string aborted;
  // Calls of the SUT a stop (the budget's wall, a signal) cut off a second or more into them:
  // neither judged nor confirmed as hangs (a hang looks like this). Each named; a run with any
  // is never better than INCOMPLETE, whatever --allow-incomplete says.
  std::vector<std::string> unresolved_calls;
  std::string competitor;    // --competitor: the second library, as given ("" without one)
  std::string tool_version;  // aclnn-conform's version (the CMake project version)
  std::string product;       // ascend910b, ...
  std::string tier;          // smoke, ci, nightly
  std::string policy;        // ulp, ascend, or a kit standard's id (ttk-mixed, ...)
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
  // Clauses skipped because they do not apply to this kind of SUT (a python: SUT's adapter
  // answers them, not the module): status skipped, never counted as conforming or towards the
  // verdict, listed with not_applicable_reason in every report.
  std::vector<std::string> not_applicable;
  std::string not_applicable_reason;
  std::vector<std::string> xfails;
  std::vector<std::string> expected_variants;  // --expect-variant: variants the SUT follows
  std::string clause_pattern;     // ECMAScript regex; clauses it does not match are not selected
  bool allow_incomplete = false;  // unreached / under-tested clauses do not make it INCOMPLETE
  bool interrupted = false;       // stopped by SIGINT/SIGTERM: covers only what ran
  // Coverage guidance (campaign/coverage.hpp): report.json's "coverage"; null in a result that
  // has none (a replay, a merge, a report from before it).
  nlohmann::json coverage;
  // Targeted search (campaign/climb.hpp): report.json's "worst_inputs" (per op and output dtype,
  // the worst element found) and "climb" (the budget climbing used); null in a replay, a merge or
  // an older report.
  nlohmann::json worst_inputs, climb;
  // Adaptive scheduling (campaign/schedule.hpp): report.json's "schedule" (per unit: indices seen,
  // run, skipped, news); null in a replay or an older report; a merge adds its shards' counts.
  nlohmann::json schedule;

  // interrupted -> kInterrupted; else a deviating clause -> kDeviations; else aborted, an
  // unresolved call, or a clause not reached or under-tested (unless allow_incomplete) ->
  // kIncomplete; else kConformant.
  Verdict verdict() const;
  bool conformant() const;  // no clause deviates (expected failures excepted); see verdict()
  ClauseVerdict *clause(const std::string &id);
  const ClauseVerdict *clause(const std::string &id) const;
};

// JSON has no inf or NaN (nlohmann writes null). The engine's worker pipe carries such numbers
// as the strings "inf", "-inf", "nan" through these two.
nlohmann::json json_number(double v);
double number_from_json(const nlohmann::json &j);

// report.json's encoding of a number that may be non-finite: j[key] is the number, or null with
// j[key + "_nonfinite"] = "inf", "-inf" or "nan" (docs/report.schema.json, "$defs/nonfinite").
void put_number(nlohmann::json &j, const std::string &key, double v);
double get_number(const nlohmann::json &j, const std::string &key);

nlohmann::json to_json(const CampaignResult &r);
CampaignResult result_from_json(const nlohmann::json &j);  // throws on a schema it cannot read
// report.json's text: invalid UTF-8 in strings (a SUT's error message can hold any bytes)
// becomes U+FFFD rather than an exception.
std::string report_json_text(const CampaignResult &r);

// Where a task (by its origin, as a deviation carries it) lies in the seed space, in the order a
// process runs them: the replayed corpus, edge rows in table order, other fixed cases (-1), then
// generated ones by index. A clause keeps the counterexamples with the smallest positions, in one
// process as in a merge of shards.
int64_t seed_space_position(const std::string &origin);
// The order counterexamples are kept and listed in: their position, then their origin, so that
// fixed cases that share a position (the protocol probes' fixed calls) keep one order whatever
// order they arrived in.
bool seed_space_before(const Deviation &a, const Deviation &b);

// Merges shard results of one campaign (same SUT, product, seed): counts add up, statuses are
// recomputed, deviations and accuracy are combined.
CampaignResult merge_results(const std::vector<CampaignResult> &shards);

// Recomputes each clause's status from its counts, minimum, skips, clause pattern, expected
// failures and expected variants, and its variant fingerprint from the kept counterexamples;
// marks each kept deviation an expected variant explains (Deviation::expected_variant).
void finalize_statuses(CampaignResult &r);

}  // namespace aclnn_conform
