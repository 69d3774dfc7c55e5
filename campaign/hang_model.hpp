// When a call counts as hung. After kMinCalls timed calls, a call is suspected of hanging once it
// has run kFactor times longer than this run's usual slowest rate (the 99.9th percentile of its
// calls' nanoseconds per byte of case, so that one stall of a loaded machine does not set it)
// predicts for its case, and at least kFloorSeconds. A suspect is killed and its task run once
// more (first in the queue, on another worker) with kConfirmFactor times that allowance; only a
// second overrun is a hang. The configured case timeout stays the ceiling. So a hang costs a few
// seconds instead of the whole case timeout, and a call that is merely slow once, or was starved by
// the machine, is not called hung (docs/decisions.md, "Hang threshold").
// Calls of a kernel new to their worker (a device may load it for seconds) are timed apart: after
// kMinNewKernelCalls of them completed, one is suspected once it runs longer than any other call
// of its case's size may, plus kNewKernelFactor times the slowest of them, at least kFloorSeconds;
// its second run gets the whole case timeout, so that only a load slower than the case timeout can
// be called a hang, as before, while a hang there costs seconds, not the timeout.
#pragma once

#include <array>
#include <map>

#include "properties/call_trace.hpp"

namespace aclnn_conform {

class HangModel {
 public:
  static constexpr long long kMinCalls = 200;    // timed calls before the threshold adapts
  static constexpr long long kStallsPer = 1000;  // one call in this many may be slower
  static constexpr double kQuantile = 1 - 1.0 / kStallsPer;
  static constexpr double kFactor = 50;
  static constexpr double kFloorSeconds = 0.5;
  static constexpr double kConfirmFactor = 3;
  static constexpr long long kMinNewKernelCalls = 16;
  static constexpr double kNewKernelFactor = 20;

  // Takes in a worker's counters (its trace page; they only grow while the worker lives).
  void observe(int worker_id, const CallTrace &trace);
  bool ready() const { return calls_ >= kMinCalls; }
  long long calls() const { return calls_; }
  // The usual slowest rate: kQuantile of the calls were faster (the bucket's upper bound).
  double usual_ns_per_byte() const;

  // The seconds a call of a case of `case_bytes` may take before it is suspected of hanging
  // (confirming: on the suspect's second run), never more than `ceiling`; `ceiling` itself
  // until the model is ready.
  double allowance(long long case_bytes, double ceiling, bool confirming) const;
  // What the model predicts for a case of `case_bytes` (0 until ready).
  double predicted_seconds(long long case_bytes) const;

  // Calls of a kernel new to their worker (CallTrace::new_kernel_calls): how many completed, the
  // slowest one's seconds, and the seconds one may take before it is suspected (`ceiling` until
  // kMinNewKernelCalls completed). A suspect's second run gets `ceiling` (the caller's rule).
  long long new_kernel_calls() const { return new_kernel_calls_; }
  double slowest_new_kernel_seconds() const { return new_kernel_max_ns_ * 1e-9; }
  double new_kernel_allowance(long long case_bytes, double ceiling) const;

 private:
  using Counts = std::array<long long, kRateBuckets>;
  std::map<int, Counts> seen_by_worker_;
  Counts total_{};
  long long calls_ = 0;
  std::map<int, long long> new_kernel_seen_by_worker_;
  long long new_kernel_calls_ = 0;
  long long new_kernel_max_ns_ = 0;
};

}  // namespace aclnn_conform
