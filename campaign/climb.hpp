// Targeted search for accuracy (issue 32), as Hypothesis' target(): a share of the generated
// valid indices are climb tasks, which start from the worst case recorded for their op (by max
// ulp error against the oracle, ties by relative error) and run a short local search in the
// worker, each call judged like any valid case. The campaign keeps, per op and output dtype, the
// records that are prefix maxima by index; a climb at index k reads only records of indices below
// its horizon k - kClimbLag * shards and is dispatched once all of those have completed
// (campaign/frontier.hpp), so the same seed gives the same climbs with any number of workers.
// The report's worst-input table (per op and dtype: the element's inputs, got vs exact) comes
// from every valid call's worst element.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "campaign/frontier.hpp"
#include "campaign/task.hpp"
#include "properties/case.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {

struct CampaignResult;

// Generated indices a climb's start lags behind it (per shard), and SUT calls per climb task.
constexpr int64_t kClimbLag = 256;
constexpr int kClimbCalls = 32;
// Elements of a climb start made from a value sweep's worst element (each a probe of a climb call).
constexpr int64_t kSweepStartElements = 256;

// One input element of a worst element (the same flat index in an input of the output's shape).
struct WorstInputValue {
  std::string name, dtype;
  uint64_t bits = 0;
  double value = 0;
};

// The worst element of one output dtype on one call. ulps: |got - exact| / ulp(exact) in the
// output dtype (sums: in ulps of sum|terms|, the scale their bound is stated in); rel: |got -
// exact| / (|exact| + 1e-7).
struct WorstInput {
  std::string op, dtype, output;
  int64_t element = -1;  // row-major index in the output
  double got = 0, exact = 0, ulps = 0, rel = 0;
  bool sum = false;
  std::vector<WorstInputValue> inputs;
  std::string origin;  // the task's origin (a climbed case: its start and the climb)
  int64_t index = 0;   // the task's index (tie-break: the lower one)
  bool climbed = false;
  nlohmann::json call;  // climbed: the case itself (Case JSON), to replay; else null
  bool beats(const WorstInput &o) const;  // larger ulps, then rel, then lower index
};
nlohmann::json to_json(const WorstInput &w);
WorstInput worst_input_from_json(const nlohmann::json &j);

// How much of the run climbing took.
struct ClimbUsage {
  bool enabled = false;
  int64_t tasks = 0;     // climb tasks run
  int64_t calls = 0;     // SUT calls they made
  int64_t improved = 0;  // climb tasks that ended above their start
  // Starts kept: per op and dtype, the results that beat every result of a lower index (the same
  // set whatever order results arrived in).
  int64_t records = 0;
  // Value sweeps run (properties/sweep.hpp) and the element values they probed. Their worst
  // elements are starts too (a case of kSweepStartElements copies of the element).
  int64_t sweeps = 0;
  int64_t sweep_elements = 0;
};
nlohmann::json to_json(const ClimbUsage &u);
ClimbUsage climb_usage_from_json(const nlohmann::json &j);
// Shards: the larger worst input per op and dtype; usage adds up.
void merge_worst(std::vector<WorstInput> &into, const std::vector<WorstInput> &from);
// A merge's worst_inputs and climb from its shards' (null when no shard has them).
void merge_climb(CampaignResult &merged, const std::vector<CampaignResult> &shards);

// The reports' worst-input section (campaign/report_worst.cpp): "" for a result without one.
std::string worst_inputs_markdown(const CampaignResult &r);
std::string worst_inputs_html(const CampaignResult &r);

// ---- In the worker ----

// Per floating output dtype of a call that ran: its worst element (none when nothing finite).
std::vector<WorstInput> worst_elements(const OpDescriptor &op, const Case &c, const Outcome &o,
                                       const std::vector<aclnn_ref::ExpectedOutput> &expected);

struct ClimbEval {
  bool deviates = false;  // the call failed a clause: the climb stops on it
  std::vector<WorstInput> worst;
};
struct ClimbOutcome {
  Case best;
  int calls = 0;
  bool deviated = false;  // best is the call that deviated
  double start_ulps = 0, best_ulps = 0;
};
// A local search from start: up to `calls` calls of eval, each a mutant of the best so far
// (elementwise ops: every element a probe at a log-uniform distance, in ulps of its dtype, from
// the worst element's inputs; other ops: 1-3 elements moved by +-2^j ulps), kept when the
// objective in `dtype` ("": any) grows. Stops at the first deviating call, or when stop() holds.
ClimbOutcome climb(const OpDescriptor &op, Case start, const std::string &dtype, uint64_t seed,
                   int calls, const std::function<ClimbEval(const Case &)> &eval,
                   const std::function<bool()> &stop);

// ---- In the campaign ----

class ClimbBook {
 public:
  ClimbBook(bool enabled, int shard_count) : enabled_(enabled), shards_(shard_count) {
    usage_.enabled = enabled;
  }
  bool enabled() const { return enabled_; }
  // Dispatch: every generated index as issued; climb tasks held until their horizon.
  void issued(int64_t k) { frontier_.issued(k); }
  void hold(Task t);
  bool holding() const { return !held_.empty(); }
  // The next held climb whose horizon has passed (force: the first held one, whatever the
  // frontier: no task is in flight, so none can complete), with its start filled in.
  std::optional<Task> release(bool force = false);
  // Results: a task's result, or a task given up (a crash recorded).
  void on_result(const Task &t, const nlohmann::json &r);
  void completed(int64_t index) { frontier_.completed(index); }
  std::vector<WorstInput> worst() const;
  ClimbUsage usage() const;

 private:
  struct Record {
    double ulps = 0, rel = 0;
    Task start;
    bool climbed = false;  // start.stored is a climbed case (else a sweep's element, or generated)
  };
  void offer_record(const std::string &op, const std::string &dtype, int64_t index, Record r);
  bool enabled_;
  int shards_;
  Frontier frontier_;
  Deferred<Task> held_;
  // (op, dtype) -> index -> record: only prefix maxima by index, so the best start below a
  // horizon is the last entry before it, whatever order results arrived in.
  std::map<std::pair<std::string, std::string>, std::map<int64_t, Record>> records_;
  std::map<std::pair<std::string, std::string>, WorstInput> worst_;
  ClimbUsage usage_;
};

}  // namespace aclnn_conform
