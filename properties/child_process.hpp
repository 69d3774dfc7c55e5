// A forked child with a time limit: the one fork/poll/kill every probe that must not take the
// caller down with it shares (the teardown probe, the product-emulation probe, the worker's
// re-runs of a crash).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>

namespace aclnn_conform {

struct ChildOutcome {
  // kNotRun: fork failed, or the child was reaped by someone else (SIGCHLD ignored): no evidence.
  enum class Kind { kNotRun, kExited, kSignalled, kTimedOut } kind = Kind::kNotRun;
  int code = 0;  // the exit code (kExited) or the signal (kSignalled)
};

// Polls the child pid until it ends or `until` passes; then kills (SIGKILL) and reaps it.
ChildOutcome wait_or_kill(pid_t pid, std::chrono::steady_clock::time_point until);

// Forks; the child runs body with stdout and stderr on /dev/null (what a SUT prints stays out of
// the caller's output) and exits with its return value, or 4 if it throws.
ChildOutcome run_quiet_child(const std::function<int()> &body,
                             std::chrono::steady_clock::time_point until);

}  // namespace aclnn_conform
