// Which call of the SUT is in flight, and which clause a death there belongs to. The campaign
// points the trace at memory shared with its parent process, so that when a worker dies inside the
// SUT (a crash, a hang killed by the parent) the parent knows the call and its clause
// (ABI-TWOPHASE-2's probe, a staging call, phase one of a valid case, ...). Without a sink (unit
// tests, CTest properties) every function here is a no-op.
#pragma once

#include <string_view>
#include <type_traits>

namespace aclnn_conform {

// Cases smaller than this are timed as if they were this large (CallTrace::calls_by_rate).
inline constexpr long long kTimedMinBytes = 64 << 10;
inline constexpr int kRateBuckets = 48;

// The bucket of CallTrace::calls_by_rate that a call of `ns` nanoseconds on a case of
// `case_bytes` falls in, and the rate (ns per byte) below which a bucket's calls all were.
int rate_bucket(long long ns, long long case_bytes);
// CLOCK_MONOTONIC in nanoseconds: the clock of CallTrace::entered_ns, read by the campaign too.
long long monotonic_ns();
double rate_bucket_limit_ns_per_byte(int bucket);

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
  // The data segment when the worker had started (the SUT loaded, its device and stream up): the
  // memory limit counts from there, so that a runtime that maps a large device arena at start
  // is not taken for a runaway allocation. Set once, not reset per task.
  long long data_bytes_after_start;
  // 1 while the call in flight is a first call (loading the library, starting the device, the
  // warm-up call of an op: a device loads its kernels then): the parent gives it the first-call
  // allowance instead of the case timeout.
  int first_call;
  // 1 while a task's call runs an op with a tensor dtype signature this worker has not run before:
  // a device may load (or compile) that kernel now, as real NPUs do per dtype. The parent allows
  // it what this run's completed new-kernel calls took (new_kernel_calls, new_kernel_max_ns; the
  // adaptive hang threshold, campaign/hang_model.hpp, learns only from the other calls), and a
  // suspect's second run the whole case timeout, so that a slow load is never called a hang.
  int new_kernel;
  // What the worker is doing apart from a task's own calls: "start", "warm-up <op>",
  // "health check", "teardown" ("" while it runs a task).
  char activity[64];
  // Where a device stopped answering: the last call that succeeded before the current run of
  // failed calls (its clause), and the first failed call of that run with its status. Reset per
  // task (reset_call_log); a dead device leaves a run of failures up to the end.
  char last_ok_call[192];
  char last_ok_clause[64];
  char first_failed_call[192];
  int first_failed_status;
  int failures_since_ok;  // calls that failed since last_ok_call
  long long ok_calls;     // calls that succeeded so far (tells whose call last_ok_call was)
  // How long calls normally take, for the campaign's adaptive hang threshold
  // (campaign/hang_model.hpp): the bytes of the case in flight (its tensors' storages, set by
  // run_case), and over this worker's completed calls that were no first calls and ran no
  // activity apart from a task, how many took each rate in nanoseconds per byte of case (a case
  // under kTimedMinBytes counted as that large, so that fixed costs do not look fast): bucket
  // k holds rates below 2^(k+1) ns per KiB, the last one everything slower.
  long long case_bytes;
  long long calls_by_rate[kRateBuckets];
  // This worker's completed calls made while new_kernel was set (no first calls, no activities):
  // how many, and the slowest one's nanoseconds. Like calls_by_rate, they only grow.
  long long new_kernel_calls;
  long long new_kernel_max_ns;
};

// The bytes of the case about to run (CallTrace::case_bytes).
void set_case_bytes(long long bytes);

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

// Names what the worker does in this scope (CallTrace::activity); restores the outer one.
class ActivityScope {
 public:
  explicit ActivityScope(std::string_view activity);
  ~ActivityScope();
  ActivityScope(const ActivityScope &) = delete;
  ActivityScope &operator=(const ActivityScope &) = delete;

 private:
  char saved_[sizeof(CallTrace::activity)] = {};
};

// Calls made in this scope are first calls (CallTrace::first_call) when `first` is true.
class FirstCallScope {
 public:
  explicit FirstCallScope(bool first);
  ~FirstCallScope();
  FirstCallScope(const FirstCallScope &) = delete;
  FirstCallScope &operator=(const FirstCallScope &) = delete;

 private:
  int saved_ = 0;
};

// Calls made in this scope run a kernel new to this worker (CallTrace::new_kernel) when `fresh`.
class NewKernelScope {
 public:
  explicit NewKernelScope(bool fresh);
  ~NewKernelScope();
  NewKernelScope(const NewKernelScope &) = delete;
  NewKernelScope &operator=(const NewKernelScope &) = delete;

 private:
  int saved_ = 0;
};

// Marks entry into the SUT for a named call, and the return from it.
void enter_sut(std::string_view call);
void leave_sut();
// Records how the call that just returned went, for the device-failure attribution
// (CallTrace::last_ok_call). status: 0 for success, kNeutralCall for no evidence. Host-side calls
// (tensor and array objects, executors, the error message) are no evidence either: a device that
// stopped answering still lets them succeed.
void note_call_result(int status);
// Forgets the calls of the previous task.
void reset_call_log();

// A call whose result says nothing about the device (a message string, void).
constexpr int kNeutralCall = -2147483647 - 1;
// How a call's return value says it failed: a status other than 0, a NULL handle.
template <typename R>
int call_status(const R &r) {
  if constexpr (std::is_integral_v<R> || std::is_enum_v<R>)
    return static_cast<int>(r);
  else if constexpr (std::is_pointer_v<R>)
    return r == nullptr ? -1 : 0;
  else
    return kNeutralCall;
}

// Both, around one call expression: `traced("aclrtMalloc", [&] { return abi.malloc(...); })`.
template <typename F>
auto traced(std::string_view call, F &&f) {
  enter_sut(call);
  struct Leave {
    ~Leave() { leave_sut(); }
  } leave;
  if constexpr (std::is_void_v<decltype(f())>) {
    f();
    note_call_result(kNeutralCall);
  } else {
    auto r = f();
    note_call_result(call_status(r));
    return r;
  }
}

}  // namespace aclnn_conform
