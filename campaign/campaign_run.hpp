// The Campaign class: one run of a campaign (run_campaign, replay_cases: campaign/campaign.hpp),
// internal to aclnn::campaign. Its state is declared here; its jobs are defined one file each:
//   campaign.cpp           the run loop (queueing the first tasks, pumping until done), the tiers,
//                          run_campaign and replay_cases
//   campaign_setup.cpp     set-up: the first worker's exports and product emulation, every device
//                          started, workers started and their failed starts
//   campaign_dispatch.cpp  dispatch: batches of tasks to workers; crash shrinking's driver
//   campaign_records.cpp   records from workers: tallies, deviations kept, the result's assembly
//   campaign_deaths.cpp    workers that died or hung, device faults: crashes charged to calls
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/climb.hpp"
#include "campaign/coverage.hpp"
#include "campaign/crash_shrink.hpp"
#include "campaign/devices.hpp"
#include "campaign/hang_model.hpp"
#include "campaign/schedule.hpp"
#include "campaign/task.hpp"
#include "campaign/worker.hpp"
#include "campaign/worker_pool.hpp"
#include "properties/op.hpp"

namespace aclnn_conform::campaign_detail {

using Clock = WorkerClock;

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A crash or hang waiting for its shrink: recorded when the shrink ends (or the run does).
struct PendingCrash {
  Task task;
  std::string kind, call, clause, what;
  int device = -1;
  // When the crash or hang was seen: a deviation is found then, however long shrinking takes.
  double found_at_seconds = 0;
  int64_t found_at_case = 0;
};

// Tasks sent to a worker at a time, and the most a worker runs before it is replaced by a fresh
// one (whatever state a SUT accumulates in a process stays bounded; ACLNN_CONFORM_WORKER_TASKS).
constexpr size_t kBatch = 8;
int64_t worker_task_limit();

class Campaign {
 public:
  Campaign(const CampaignConfig &cfg, std::ostream &log);

  // The run: corpus tasks first, then (generate) the edge rows, the protocol probes and the seed
  // space until the budget or the case count; then the result (campaign.cpp).
  CampaignResult run(std::deque<Task> corpus, bool generate);

 private:
  // Time after the deadline for workers to send what they have before they are stopped.
  static constexpr auto kGrace = std::chrono::milliseconds(1500);

  bool stop_requested() const { return cfg_.stop_requested && *cfg_.stop_requested; }
  bool past_deadline() const { return Clock::now() >= deadline_; }

  // A hang must be seen within the budget: with a budget, a call that takes longer than a sixth
  // of it (at least 2 s) counts as hung, if that is shorter than the configured timeout.
  double case_timeout() const {
    if (cfg_.budget_seconds <= 0) return cfg_.case_timeout_seconds;
    return std::min(cfg_.case_timeout_seconds, std::max(2.0, cfg_.budget_seconds / 6));
  }

  // The seconds a worker may spend in the call its trace shows: first calls (a worker's start,
  // an op's warm-up) get the first-call allowance, the rest the case timeout (or the shrink's).
  // Other calls of a task or candidate: what the hang model allows for its case's size (more on a
  // suspect's second run), with the case timeout (or the shrink's) as the ceiling; the model stays
  // out while too little budget is left to confirm a suspicion. A call of a kernel new to its
  // worker gets what the model allows new-kernel calls, and on a suspect's second run the whole
  // ceiling (a slow load is never called a hang below it). A hang's shrink candidates get the
  // suspect's allowance: the hang itself is confirmed, and each candidate that hangs costs it.
  // Reads only: the pump feeds the hang model (observe) before it asks.
  double allowance(const WorkerProcess &w, const CallTrace &t) const {
    const double base = w.timeout_override > 0 ? w.timeout_override : case_timeout();
    if (t.first_call) return std::max(base, cfg_.first_call_timeout_seconds);
    if (!cfg_.adaptive_hang_timeout || t.activity[0] != '\0') return base;
    const bool confirming = !w.shrinking && suspect_in_flight(w);
    // A new kernel's load on a suspect's second run, or in a shrink candidate: the whole ceiling.
    if (t.new_kernel && (confirming || w.shrinking)) return base;
    // A crash's candidates: one that runs past what would confirm a hang is a hang, not the crash.
    if (w.shrinking && !(shrinker_ && shrinker_->crash().kind == "timeout"))
      return hang_model_.allowance(t.case_bytes, base, true);
    const double a = t.new_kernel ? hang_model_.new_kernel_allowance(t.case_bytes, base)
                                  : hang_model_.allowance(t.case_bytes, base, confirming);
    // What a suspicion costs to confirm: the second run's allowance, and some slack.
    const double confirm = t.new_kernel ? base : HangModel::kConfirmFactor * a;
    if (cfg_.budget_seconds > 0 && !confirming &&
        deadline_ - Clock::now() < std::chrono::duration<double>(a + confirm + 5))
      return base;
    return a;
  }
  // The worker runs a task whose call was suspected of hanging on an earlier worker.
  bool suspect_in_flight(const WorkerProcess &w) const {
    return !w.outstanding.empty() && w.outstanding.front().kind == WorkItem::Kind::kTask &&
           hang_suspects_.count(w.outstanding.front().task.index) != 0;
  }

  // Pumps until done() holds, the run is interrupted or the budget's wall passes.
  template <typename Done>
  void wait_until(Done done) {
    while (!done() && !stop_requested() &&
           !(cfg_.budget_seconds > 0 && Clock::now() >= deadline_ + kGrace)) {
      if (pool_.empty()) break;
      pump();
    }
  }

  // ---- Set-up (campaign_setup.cpp) ----
  void setup();
  void describe_run();
  bool worker_ready(int id) const;
  WorkerProcess *find_worker(int id);
  void probe_emulation(int worker_id);
  WorkerProcess &start_worker(int device);
  void start_failed(const WorkerProcess &w, const std::string &why);

  // ---- Dispatch and crash shrinking (campaign_dispatch.cpp) ----
  bool has_work() const;
  std::vector<Task> next_batch(bool &teardown);
  void fill();
  long long deadline_ns() const;
  bool emulating() const { return cfg_.product_emulation == ProductEmulation::kOn; }
  bool has_shrink_worker() const;
  void manage_shrink();
  void finish_shrink(bool shrunk);

  // ---- Records and the result (campaign_records.cpp) ----
  void pump();
  void handle_line(WorkerProcess &w, const std::string &line);
  TimingStats &timing(const std::string &what);
  void add_warning(std::string w);
  void tally(const std::string &clause, bool pass, const std::string &detail,
             const std::string &explained_by, double seconds);
  void record(const Task &t, const nlohmann::json &r, int device);
  void add_deviation(Deviation d);
  void finish_result();
  void progress();

  // ---- Deaths, hangs and device faults (campaign_deaths.cpp) ----
  void device_fault(WorkerProcess &w, const Task &t, const nlohmann::json &j);
  void stop_all(const char *why);
  std::string death_text(const WorkerProcess &w, const WorkerExit &exit) const;
  void finish(WorkerProcess &w, const WorkerExit &exit);
  void warm_up_died(const WorkerProcess &w, const WorkerExit &exit, const Task &waiting,
                    const std::string &op_name);
  void kernel_load_died(const WorkerProcess &w, const WorkerExit &exit, Task suspect);
  void fixed_call_died(const WorkerProcess &w, const WorkerExit &exit, const Task &task,
                       const std::string &where);
  std::string memory_note() const;
  void record_crash(const PendingCrash &p, const Case *shrunk, int steps);

  CampaignConfig cfg_;  // a copy: the run resolves product_emulation
  std::ostream &log_;
  Clock::time_point start_;
  Clock::time_point deadline_ = Clock::time_point::max();
  std::vector<std::string> files_, competitor_files_;  // the SUT's and the competitor's files
  std::vector<const OpDescriptor *> ops_;
  std::vector<std::string> exported_;  // the ops the first worker found exported
  std::string emulation_evidence_;     // why product emulation is on or off
  std::optional<nlohmann::json> emulation_answer_;
  std::string emulation_death_;
  int probing_worker_ = -1;
  bool setup_done_ = false;
  std::string start_error_;  // a device that could not be started during set-up
  std::map<int, int> start_failures_;
  DevicePool devices_;
  std::vector<TimingStats> timings_;
  std::set<std::string> no_warm_up_;  // ops whose warm-up killed a worker
  std::set<int64_t> retried_;         // tasks run again after a device fault
  HangModel hang_model_;              // fed by pump(), which sees every call in flight
  // Tasks killed below the case timeout and run once more, and how that second run ended.
  enum class SecondRun { kPending, kOverran, kReturned };
  std::map<int64_t, SecondRun> hang_suspects_;
  // Tasks whose deviation a worker has seen and is shrinking: when, and after how many cases.
  std::map<int64_t, std::pair<double, int64_t>> found_at_;
  std::deque<Task> pending_;
  std::deque<CrashShrink> crash_queue_;
  std::optional<CrashShrinker> shrinker_;
  bool candidate_in_flight_ = false;
  std::map<int64_t, PendingCrash> pending_crashes_;
  bool generate_ = true;
  int64_t next_k_ = 0;
  int64_t generated_ = 0;
  int stopped_in_flight_ = 0;
  WorkerPool pool_;
  std::set<std::string> saturated_;
  // The seed-space positions (seed_space_position) of the tasks not yet completed: a clause whose
  // kept counterexamples are all below every one of them can get no earlier one, and saturates.
  std::multiset<int64_t> open_positions_;
  void task_opened(const Task &t) { open_positions_.insert(seed_space_position(t.origin)); }
  void task_completed(const Task &t);
  void update_saturation(const std::string &clause);
  CampaignResult result_;
  CoverageTracker coverage_{cfg_};  // edges the SUT's calls reached, seeds, seed mutations
  // Targeted search for accuracy: climb tasks held until their horizon, starts, worst inputs.
  ClimbBook climb_{cfg_.climb, cfg_.shard_count};
  // Adaptive scheduling: built once set-up knows the clauses (campaign_setup.cpp).
  std::optional<Schedule> schedule_;
  void skip_scheduled(const Task &t);  // a generated index the schedule decided not to run
  void run_generated(Task t, std::vector<Task> &batch);
};

}  // namespace aclnn_conform::campaign_detail
