// Adaptive scheduling (issue 32): the generated stream's budget flows to the units (op and kind:
// valid, invalid, protocol) that keep producing new outcomes and away from those that have shown
// nothing new for a long time. Index k's task never changes (campaign/task.hpp: a hash of k); the
// schedule only decides whether k runs, by comparing a second hash of k with the acceptance
// probability of its unit. That probability is read from the outcomes of indices below k's horizon,
// k - lag x shards, absorbed in index order once every one of them has completed
// (campaign/frontier.hpp), so that any number of workers runs the same indices for a seed and the
// report is the same. Indices whose second hash is below the floor run without a decision (no
// unit ever gets less than the floor's share); the others wait for their horizon.
//
// What counts as news for a unit: a clause reached with a result (pass or fail) the unit had not
// produced, a crash or hang, an error bucket (a power of two of ulps, per output dtype) above the
// unit's largest, an edge of an instrumented library the unit had not reached. Every unit keeps
// the whole of its share while it is fresh (fewer than kFresh runs since its last news) and while
// any clause of its op that the stream has reached has fewer than 4 x the tier's minimum reaching
// cases; after that its share falls as kFresh / (runs since news), never below the floor.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "campaign/frontier.hpp"
#include "campaign/task.hpp"

namespace aclnn_conform {

struct CampaignResult;

// What one run of a task showed, reduced to what a unit's news is judged on.
struct TaskOutcome {
  std::vector<std::string> reached;     // clauses with a result (the tier's minimum counts them)
  std::vector<std::string> signatures;  // "CLAUSE pass" / "CLAUSE fail" / "crash CLAUSE"
  std::map<std::string, int> error_buckets;  // output dtype -> floor(log2(ulps)) + 64
  std::vector<uint32_t> edges;               // of an instrumented library
};
// From a worker's result record (its "results", "worst" and "edges").
TaskOutcome outcome_of_result(const nlohmann::json &r);

// Per unit, what the schedule did: report.json's "schedule".units[].
struct ScheduleUnit {
  std::string unit;
  int64_t seen = 0;        // generated indices of the unit (climbs included, seed mutations not)
  int64_t run = 0;         // of them run
  int64_t skipped = 0;     // of them not run
  int64_t news = 0;        // absorbed outcomes that were news
  int64_t last_news = -1;  // index of the latest news absorbed
  double share = 1;        // the acceptance probability at the end
};
struct ScheduleUsage {
  bool enabled = false;
  std::string why_off;  // when not enabled
  int64_t lag = 0;
  double floor = 0;
  int64_t fresh = 0, min_reach = 0;
  std::vector<ScheduleUnit> units;
};
nlohmann::json to_json(const ScheduleUsage &u);
ScheduleUsage schedule_usage_from_json(const nlohmann::json &j);
// A merge's "schedule" from its shards' (each shard schedules on its own outcomes): counts add up,
// shares are dropped; null when no shard has one.
void merge_schedule(CampaignResult &merged, const std::vector<CampaignResult> &shards);
// The reports' section "How the budget was spent" ("" for a result without one).
std::string schedule_markdown(const CampaignResult &r);
std::string schedule_html(const CampaignResult &r);

class Schedule {
 public:
  static constexpr double kFloor = 0.25;
  static constexpr int64_t kLag = 1024;
  static constexpr int64_t kFresh = 64;

  // op_clauses: each op's own clause ids (the tier's minimum applies to them); min_reach: the
  // reaching cases each needs before its op's units may lose share (4 x the tier's minimum).
  Schedule(bool enabled, std::string why_off, int shard_count, int64_t lag,
           std::map<std::string, std::vector<std::string>> op_clauses, int64_t min_reach);
  bool enabled() const { return usage_.enabled; }
  static std::string unit_of(const Task &t);

  // Dispatch: every generated index as issued. A generated task that the schedule may drop (not a
  // climb or seed mutation) is offered: run it now, or skip it (it is complete), or the schedule
  // holds it until its horizon has passed.
  void issued(int64_t k) { frontier_.issued(k); }
  enum class Offer { kRun, kSkip, kHold };
  Offer offer(const Task &t);
  bool holding() const { return !held_.empty(); }
  // The next held task to run whose horizon has passed (force: decide the first held one on what
  // has completed: no task is in flight, so no more can complete). Held tasks decided "skip" are
  // passed to skipped and released no further.
  template <typename Skipped>
  std::optional<Task> release(bool force, Skipped skipped) {
    while (!held_.empty() && (force || held_.ready(frontier_))) {
      Task t = held_.take();
      if (decide(t)) return t;
      skipped(t);
      force = false;  // one forced decision at a time: the skip may free the next
    }
    return std::nullopt;
  }
  // Results: a task's outcome (first one counts; a task run again adds nothing), or a task given
  // up without one (an error record: completes it, no news).
  void on_outcome(const Task &t, TaskOutcome o);
  void completed(int64_t index) { frontier_.completed(index); }
  ScheduleUsage usage() const;

 private:
  struct Unit {
    ScheduleUnit u;
    int64_t runs_since_news = 0;
    std::set<std::string> signatures;
    std::map<std::string, int> buckets;
    std::set<uint32_t> edges;
  };
  double share(const std::string &unit, const std::string &op) const;
  bool decide(const Task &t);  // absorbs up to t's horizon, then accept or skip
  void absorb_below(int64_t horizon);
  bool unit_news(Unit &u, const TaskOutcome &o);
  Unit &unit(const std::string &name);

  ScheduleUsage usage_;
  int shards_;
  std::map<std::string, std::vector<std::string>> op_clauses_;
  Frontier frontier_;
  Deferred<Task> held_;
  // Outcomes of completed indices not yet absorbed: index -> (unit, op, outcome).
  struct Pending {
    std::string unit, op;
    TaskOutcome outcome;
  };
  std::map<int64_t, Pending> completed_;
  int64_t absorbed_to_ = std::numeric_limits<int64_t>::min();
  std::map<std::string, Unit> units_;
  std::map<std::string, int64_t> reach_;  // clause -> absorbed reaching cases
};

}  // namespace aclnn_conform
