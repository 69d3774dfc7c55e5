#include "properties/call_trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>

namespace aclnn_conform {
namespace {

CallTrace *g_sink = nullptr;
void (*g_after_sut)() = nullptr;

template <size_t N>
void copy_text(char (&dst)[N], std::string_view s) {
  const size_t n = std::min(s.size(), N - 1);
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

}  // namespace

void set_call_trace(CallTrace *sink) {
  g_sink = sink;
}
CallTrace *call_trace() {
  return g_sink;
}
void set_after_sut_hook(void (*hook)()) {
  g_after_sut = hook;
}

ClauseScope::ClauseScope(std::string_view clause) {
  if (!g_sink) return;
  std::memcpy(saved_, g_sink->clause, sizeof saved_);
  copy_text(g_sink->clause, clause);
}

ClauseScope::~ClauseScope() {
  if (g_sink) std::memcpy(g_sink->clause, saved_, sizeof saved_);
}

ActivityScope::ActivityScope(std::string_view activity) {
  if (!g_sink) return;
  std::memcpy(saved_, g_sink->activity, sizeof saved_);
  copy_text(g_sink->activity, activity);
}

ActivityScope::~ActivityScope() {
  if (g_sink) std::memcpy(g_sink->activity, saved_, sizeof saved_);
}

FirstCallScope::FirstCallScope(bool first) {
  if (!g_sink) return;
  saved_ = g_sink->first_call;
  if (first) g_sink->first_call = 1;
}

FirstCallScope::~FirstCallScope() {
  if (g_sink) g_sink->first_call = saved_;
}

NewKernelScope::NewKernelScope(bool fresh) {
  if (!g_sink) return;
  saved_ = g_sink->new_kernel;
  if (fresh) g_sink->new_kernel = 1;
}

NewKernelScope::~NewKernelScope() {
  if (g_sink) g_sink->new_kernel = saved_;
}

long long monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}

void enter_sut(std::string_view call) {
  if (!g_sink) return;
  copy_text(g_sink->call, call);
  g_sink->entered_ns = monotonic_ns();
  __atomic_store_n(&g_sink->in_sut, 1, __ATOMIC_SEQ_CST);
}

// Bucket k: rates in [2^k, 2^(k+1)) ns per KiB (the first also below, the last also above).
int rate_bucket(long long ns, long long case_bytes) {
  const double ns_per_kib = 1024.0 * static_cast<double>(std::max(ns, 1LL)) /
                            static_cast<double>(std::max(case_bytes, kTimedMinBytes));
  return std::clamp(std::ilogb(std::max(ns_per_kib, 1.0)), 0, kRateBuckets - 1);
}

double rate_bucket_limit_ns_per_byte(int bucket) {
  return std::ldexp(1.0, bucket + 1) / 1024.0;
}

void set_case_bytes(long long bytes) {
  if (g_sink) g_sink->case_bytes = bytes;
}

void leave_sut() {
  if (g_sink) {
    __atomic_store_n(&g_sink->in_sut, 0, __ATOMIC_SEQ_CST);
    // Not timed: first calls and the worker's own activities. Calls of a kernel new to the worker
    // (a load, not the kernel's speed) are timed apart.
    if (!g_sink->first_call && g_sink->activity[0] == '\0') {
      const long long ns = monotonic_ns() - g_sink->entered_ns;
      if (g_sink->new_kernel) {
        ++g_sink->new_kernel_calls;
        g_sink->new_kernel_max_ns = std::max(g_sink->new_kernel_max_ns, ns);
      } else {
        ++g_sink->calls_by_rate[rate_bucket(ns, g_sink->case_bytes)];
      }
    }
  }
  if (g_after_sut) g_after_sut();
}

void note_call_result(int status) {
  if (!g_sink || status == kNeutralCall) return;
  const std::string_view call = g_sink->call;
  for (const std::string_view host_side :
       {"aclCreate", "aclDestroy", "aclGetRecentErrMsg", "aclSetAclOpExecutorRepeatable"})
    if (call.substr(0, host_side.size()) == host_side) return;
  if (status == 0) {
    copy_text(g_sink->last_ok_call, g_sink->call);
    copy_text(g_sink->last_ok_clause, g_sink->clause);
    g_sink->failures_since_ok = 0;
    ++g_sink->ok_calls;
    return;
  }
  if (g_sink->failures_since_ok++ == 0) {
    copy_text(g_sink->first_failed_call, g_sink->call);
    g_sink->first_failed_status = status;
  }
}

void reset_call_log() {
  if (!g_sink) return;
  g_sink->last_ok_call[0] = g_sink->last_ok_clause[0] = g_sink->first_failed_call[0] = '\0';
  g_sink->first_failed_status = 0;
  g_sink->failures_since_ok = 0;
}

}  // namespace aclnn_conform
