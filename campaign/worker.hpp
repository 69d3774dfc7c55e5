// The worker side of a campaign: what one forked process does with a batch of tasks. Each task is
// run on the SUT and judged; a deviation is shrunk, fingerprinted against the spec's variants and
// described. Results go to the parent as one JSON line each; the call in flight is kept in a page
// shared with the parent (properties/call_trace.hpp), so a death inside the SUT is attributed to
// that call. A crash or a hang is shrunk too: each candidate runs in a forked grandchild.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/task.hpp"
#include "properties/call_trace.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {

using WorkerClock = std::chrono::steady_clock;

// What the worker needs beyond the tasks.
struct WorkerContext {
  const Sut *sut = nullptr;
  const Sut *competitor = nullptr;  // --competitor: run on every valid case for the ratios
  const CampaignConfig *cfg = nullptr;
  std::set<std::string> saturated;  // clauses with enough kept counterexamples: no shrinking
  WorkerClock::time_point deadline = WorkerClock::time_point::max();  // the budget's wall
};

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

// Runs one task and returns its result line (see worker.cpp for the fields).
nlohmann::json run_task(const Task &t, const WorkerContext &ctx);

// Shrinks a crash or hang: candidates of the task's shrink tree that die the same way in the
// same call, under the same clause, are kept. Returns {"case", "shrink_steps"} of the smallest.
nlohmann::json shrink_crash(const CrashShrink &s, const WorkerContext &ctx);

// The clause a failure of case c belongs to when no call scope names one: the deciding error
// clause of an invalid call; for a valid call the op's empty-tensor clause if the call is empty,
// else ABI-RANK-1 at rank 8, else the op's first value clause.
std::string case_clause(const OpDescriptor &op, const Case &c);

// The address-space limit of a worker (setrlimit RLIMIT_DATA) in GiB: 16 by default,
// ACLNN_CONFORM_MEMORY_GIB overrides, 0 = none (always 0 in sanitizer builds, whose shadow memory
// needs the address space).
double worker_memory_limit_gib();

// The process body of a worker: runs every task (or the crash shrink), writes result lines to
// fd, and exits. trace is the page shared with the parent.
[[noreturn]] void worker_main(int fd, const std::vector<Task> &batch,
                              const std::vector<CrashShrink> &shrinks, const WorkerContext &ctx,
                              CallTrace *trace);

}  // namespace aclnn_conform
