#include "campaign/crash_shrink.hpp"

#include <sys/wait.h>

#include <algorithm>

#include "campaign/worker.hpp"

namespace aclnn_conform {

CandidateDeath candidate_death(bool timed_out, int wait_status, const CallTrace &trace) {
  CandidateDeath d;
  if (!trace.in_sut || trace.activity[0]) return d;
  if (timed_out)
    d.how = "timeout";
  else if (wait_status >= 0 && WIFSIGNALED(wait_status))
    d.how = "crash";
  d.call = trace.call;
  d.clause = trace.clause;
  return d;
}

CrashShrinker::CrashShrinker(CrashShrink s, const CampaignConfig &cfg, Clock::time_point deadline)
    : crash_(std::move(s)),
      cfg_(cfg),
      // A shrink never runs past the budget; within it, it is bounded by counts (attempts, hung
      // candidates), not seconds, so that a seed's shrunk case does not depend on timing.
      deadline_(deadline),
      current_(task_shrinkable(crash_.task, cfg_)),
      shrinks_(current_.shrinks()),
      smallest_(current_.value()) {}

std::optional<Case> CrashShrinker::next() {
  while (!done_) {
    if (++attempts_ > cfg_.shrink_attempts || hung_ >= kMaxHungCandidates ||
        Clock::now() >= deadline_)
      break;
    auto next = shrinks_.next();
    if (!next) break;
    try {
      candidate_case_ = next->value();
    } catch (const std::exception &) {
      continue;  // the generator cannot make this candidate: not a smaller counterexample
    }
    candidate_ = std::move(*next);
    return candidate_case_;
  }
  done_ = true;
  return std::nullopt;
}

void CrashShrinker::report(const CandidateDeath &death) {
  if (!candidate_) return;
  hung_ += death.how == "timeout";
  bool same = death.how == crash_.kind && death.call == crash_.call;
  if (same)
    same = crash_.clause_from_trace
               ? death.clause == crash_.clause
               : death.clause.empty() &&
                     case_clause(*crash_.task.op, candidate_case_) == crash_.clause;
  if (same) {
    current_ = std::move(*candidate_);
    smallest_ = candidate_case_;
    shrinks_ = current_.shrinks();
    ++steps_;
  }
  candidate_.reset();
}

double CrashShrinker::candidate_timeout(double case_timeout) const {
  return crash_.kind == "timeout" ? std::min(case_timeout, 2.0) : case_timeout;
}

}  // namespace aclnn_conform
