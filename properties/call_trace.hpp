// Which call of the SUT is in flight, and which clause a death there belongs to. The campaign
// points the trace at memory shared with its parent process, so that when a worker dies inside the
// SUT (a crash, a hang killed by the parent) the parent knows the call and its clause
// (ABI-TWOPHASE-2's probe, a staging call, phase one of a valid case, ...). Without a sink (unit
// tests, CTest properties) every function here is a no-op.
#pragma once

#include <string_view>

namespace aclnn_conform {

// Fixed-size, trivially copyable: it lives in a MAP_SHARED page and is read after the writer died.
struct CallTrace {
  char clause[64];       // the clause a failure of the call belongs to ("" = the case's own clause)
  char call[192];        // the call, e.g. "aclnnGeluBackwardGetWorkspaceSize(executor = NULL)"
  int in_sut;            // 1 while control is inside the SUT (between enter and leave)
  long long entered_ns;  // CLOCK_MONOTONIC when the call was entered (for hang detection)
  // Set by a worker about to die of something the SUT did to the process (e.g. closed the
  // worker's result pipe): the reason the parent records ("" = none).
  char fatal[256];
  // Set by the worker's fatal-signal handler: the signal, and the process's data segment (what
  // RLIMIT_DATA limits) at that moment, so that running out of memory is told from a crash.
  int death_signal;
  long long data_bytes_at_death;
};

// Called after every return from the SUT (leave_sut) when set: the campaign's worker checks there
// what the SUT may have done to the process (descriptors, signal handlers). nullptr: none.
void set_after_sut_hook(void (*hook)());

// Installs the process's sink (nullptr: tracing off). Not thread-safe: set once per worker.
void set_call_trace(CallTrace *sink);
CallTrace *call_trace();

// Names the clause that calls made in this scope are judged by (innermost scope wins); restores
// the outer clause on exit.
class ClauseScope {
 public:
  explicit ClauseScope(std::string_view clause);
  ~ClauseScope();
  ClauseScope(const ClauseScope &) = delete;
  ClauseScope &operator=(const ClauseScope &) = delete;

 private:
  char saved_[sizeof(CallTrace::clause)] = {};
};

// Marks entry into the SUT for a named call, and the return from it.
void enter_sut(std::string_view call);
void leave_sut();

// Both, around one call expression: `traced("aclrtMalloc", [&] { return abi.malloc(...); })`.
template <typename F>
auto traced(std::string_view call, F &&f) {
  enter_sut(call);
  struct Leave {
    ~Leave() { leave_sut(); }
  } leave;
  return f();
}

}  // namespace aclnn_conform
