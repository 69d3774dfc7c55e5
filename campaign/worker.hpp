// The worker side of a campaign: a process of its own, started fresh (fork and exec of
// aclnn-conform-worker, never a fork of a process that called into a library), that loads the SUT,
// starts its device and stream itself, and runs what the campaign sends it (commands and records:
// campaign/worker_protocol.hpp). Each task is run on the SUT and judged; a deviation is shrunk in
// the worker, fingerprinted against the spec's variants and described. The call in flight is kept
// in a page shared with the campaign (properties/call_trace.hpp), so a death or a hang inside the
// SUT is attributed to that call; crashes and hangs are shrunk by the campaign, each candidate in
// a worker (campaign/crash_shrink.hpp). Why: a device runtime does not survive fork()
// (docs/device.md).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/task.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {

using WorkerClock = std::chrono::steady_clock;

// What a task needs beyond itself.
struct WorkerContext {
  const Sut *sut = nullptr;
  const Sut *competitor = nullptr;  // --competitor: run on every valid case for the ratios
  const CampaignConfig *cfg = nullptr;
  std::set<std::string> saturated;  // clauses with enough kept counterexamples: no shrinking
  WorkerClock::time_point deadline = WorkerClock::time_point::max();  // the budget's wall
  // Called with the clause when a task's case is seen to deviate, before it is shrunk (the
  // campaign times the deviation from then: a shrink can take seconds).
  std::function<void(const std::string &clause)> on_found;
  // The (op, tensor dtype signature) pairs this worker has run (null: not tracked): the first call
  // of each is marked a new kernel in the call trace (CallTrace::new_kernel).
  std::set<std::string> *kernels = nullptr;
};

// Runs one task and returns its result record (see worker.cpp for the fields).
nlohmann::json run_task(const Task &t, const WorkerContext &ctx);

// How far a deviation's shrink may go: candidates tried, and their elements (each costs its call
// and its oracle, about a microsecond per element). Counted, not timed, so that the same seed
// shrinks to the same case on a loaded machine as on an idle one; the budget's deadline still
// ends it.
struct ShrinkLimits {
  int attempts = 0;
  int64_t elements = int64_t{1} << 24;  // about 17 s at the oracle's 1 M elements per second

  // The configured attempts (CampaignConfig::shrink_attempts) and the element bound.
  static ShrinkLimits of(const CampaignConfig &cfg) { return {cfg.shrink_attempts}; }
};

// Walks t's rapidcheck shrink tree from its case c, keeping a candidate whenever still_fails says
// it fails the same way (a candidate it throws on is not kept); adds the kept steps to `steps` and
// returns the smallest case found.
Case shrink_case(const Task &t, Case c, const std::function<bool(const Case &)> &still_fails,
                 const WorkerContext &ctx, const ShrinkLimits &limits, int &steps);

// Runs a crash or hang's shrink candidate unjudged: what matters is whether the process survives.
void run_candidate(const Task &t, const Case &candidate, const WorkerContext &ctx);

// The clause a failure of case c belongs to when no call scope names one: the deciding error
// clause of an invalid call; for a valid call the op's empty-tensor clause if the call is empty,
// else ABI-RANK-1 at rank 8, else the op's first value clause.
std::string case_clause(const OpDescriptor &op, const Case &c);

// The data limit of a worker (setrlimit RLIMIT_DATA), beyond what it holds once its SUT has
// started, in GiB: 16 by default,
// ACLNN_CONFORM_MEMORY_GIB overrides, 0 = none (always 0 in sanitizer builds, whose shadow memory
// needs the address space).
double worker_memory_limit_gib();

// The descriptors a worker process is started with: commands in, records out, the call-trace page
// (a memfd). Its stdout and stderr go to the campaign, which keeps what the SUT prints.
constexpr int kWorkerCommandFd = 3;
constexpr int kWorkerResultFd = 4;
constexpr int kWorkerTraceFd = 5;

// The worker process's main (aclnn-conform-worker): reads commands until end of file, then exits.
int worker_process_main(int argc, char **argv);

// The path of aclnn-conform-worker: $ACLNN_CONFORM_WORKER, the build tree's, one installed beside
// the running program, or the install prefix's. Throws std::runtime_error saying where it looked.
std::string worker_executable();

}  // namespace aclnn_conform
