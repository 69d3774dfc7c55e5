// Shrinking a crash or a hang: every candidate runs in a worker, because a candidate may kill the
// process that runs it, and no process that called into the library may fork a copy that calls it
// again (a device runtime does not survive fork(): docs/device.md). The campaign drives the walk
// of the task's rapidcheck shrink tree one candidate at a time: a candidate that dies the same way
// (crash or hang), in the same call, under the same clause, is kept.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "campaign/campaign.hpp"
#include "campaign/task.hpp"
#include "properties/call_trace.hpp"

namespace aclnn_conform {

// A crash or hang to shrink: the task and the call it died in.
struct CrashShrink {
  Task task;
  std::string kind;  // "crash" or "timeout"
  std::string call;  // the call in flight when it died
  // The clause it is recorded against: the trace's, or else case_clause() of the original case;
  // a smaller candidate must keep it.
  std::string clause;
  bool clause_from_trace = false;
};

// How a candidate's run ended: "ok" (it survived, or died some other way or outside the SUT),
// "crash" (a signal inside the SUT) or "timeout" (no return within the limit), and the call in
// flight with its clause.
struct CandidateDeath {
  std::string how = "ok";
  std::string call, clause;
};

// A death as the campaign saw it: the worker's exit and its trace page. A death outside the
// candidate's own calls (the worker's start or warm-up) is "ok": it says nothing of the candidate.
CandidateDeath candidate_death(bool timed_out, int wait_status, const CallTrace &trace);

class CrashShrinker {
 public:
  using Clock = std::chrono::steady_clock;
  CrashShrinker(CrashShrink s, const CampaignConfig &cfg, Clock::time_point deadline);

  // Candidates that hang cost seconds each (a kill and a restart): a shrink stops after this many.
  // A count, not a wall-clock limit (there was one of 20 s): the same seed shrinks a hang to the
  // same case whatever the machine's load, and shards merge to the single run's report.
  static constexpr int kMaxHungCandidates = 32;

  // The next candidate to run; nullopt once the walk is over (no smaller candidate fails, the
  // attempts or the hung candidates are spent, or the budget's deadline passed).
  std::optional<Case> next();
  // How the candidate next() gave ended.
  void report(const CandidateDeath &death);

  const CrashShrink &crash() const { return crash_; }
  const Case &smallest() const { return smallest_; }
  int steps() const { return steps_; }
  // The limit a candidate of a hang runs under: a candidate that takes this long hangs too.
  double candidate_timeout(double case_timeout) const;

 private:
  CrashShrink crash_;
  CampaignConfig cfg_;
  Clock::time_point deadline_;
  rc::Shrinkable<Case> current_;
  rc::Seq<rc::Shrinkable<Case>> shrinks_;
  std::optional<rc::Shrinkable<Case>> candidate_;
  Case candidate_case_;
  Case smallest_;
  int steps_ = 0, attempts_ = 0, hung_ = 0;
  bool done_ = false;
};

}  // namespace aclnn_conform
