#include "campaign/hang_model.hpp"

#include <algorithm>

namespace aclnn_conform {

void HangModel::observe(int worker_id, const CallTrace &trace) {
  auto [it, fresh] = seen_by_worker_.try_emplace(worker_id);
  Counts &seen = it->second;
  if (fresh) seen.fill(0);
  for (int k = 0; k < kRateBuckets; ++k)
    if (trace.calls_by_rate[k] > seen[k]) {
      total_[k] += trace.calls_by_rate[k] - seen[k];
      calls_ += trace.calls_by_rate[k] - seen[k];
      seen[k] = trace.calls_by_rate[k];
    }
  long long &nk_seen = new_kernel_seen_by_worker_[worker_id];
  if (trace.new_kernel_calls > nk_seen) {
    new_kernel_calls_ += trace.new_kernel_calls - nk_seen;
    nk_seen = trace.new_kernel_calls;
  }
  new_kernel_max_ns_ = std::max(new_kernel_max_ns_, trace.new_kernel_max_ns);
}

double HangModel::usual_ns_per_byte() const {
  if (calls_ == 0) return 0;
  const long long faster = calls_ - calls_ / kStallsPer;  // at least this many below the rate
  long long below = 0;
  int k = 0;
  for (; k < kRateBuckets - 1; ++k) {
    below += total_[k];
    if (below >= faster) break;
  }
  return rate_bucket_limit_ns_per_byte(k);
}

double HangModel::predicted_seconds(long long case_bytes) const {
  if (!ready()) return 0;
  return usual_ns_per_byte() * static_cast<double>(std::max(case_bytes, kTimedMinBytes)) * 1e-9;
}

double HangModel::allowance(long long case_bytes, double ceiling, bool confirming) const {
  if (!ready()) return ceiling;
  const double suspect = std::max(kFloorSeconds, kFactor * predicted_seconds(case_bytes));
  return std::min(ceiling, confirming ? kConfirmFactor * suspect : suspect);
}

double HangModel::new_kernel_allowance(long long case_bytes, double ceiling) const {
  if (new_kernel_calls_ < kMinNewKernelCalls) return ceiling;
  // The call does its case's work (what any call is allowed) and loads its kernel.
  const double suspect =
      std::max(kFloorSeconds, kFactor * predicted_seconds(case_bytes) +
                                  kNewKernelFactor * slowest_new_kernel_seconds());
  return std::min(ceiling, suspect);
}

}  // namespace aclnn_conform
