// A small fork-safe thread pool. Work is split by a fixed rule so results never depend on the
// number of threads: callers that reduce must cut their work into blocks whose size does not
// depend on num_threads() (VAL-DET-1).
#pragma once

#include <cstdint>
#include <functional>

namespace aclnn_cpu {

// Threads an op may use: ACLNN_CPU_NUM_THREADS if set (>= 1), else the hardware's count. Read on
// every call so a test can compare 1 thread with several in one process.
int num_threads();

// Runs body(begin, end) over [0, n) in contiguous chunks of at least `grain` items, in parallel.
// Returns when every chunk is done. Chunks never overlap; their order of execution is unspecified.
// If a chunk throws, the other chunks still run and the first exception is rethrown to the caller.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &body);

// Whether exit joins the pool's workers: in AddressSanitizer builds only, so that LeakSanitizer's
// check at exit has one thread to stop (its tracer sometimes crashes scanning more,
// google/sanitizers#1353); production builds leave them blocked, so exit never waits on a job.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kJoinWorkersAtExit = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kJoinWorkersAtExit = true;
#else
inline constexpr bool kJoinWorkersAtExit = false;
#endif
#else
inline constexpr bool kJoinWorkersAtExit = false;
#endif

}  // namespace aclnn_cpu
