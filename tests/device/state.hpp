// libascendcl's own internals, shared by runtime.cpp, memory.cpp, stream.cpp and executors.cpp
// (not exported: nothing outside libascendcl uses them).
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/device/devemu.hpp"

namespace devemu {

// The one lock of the registries (allocations, tensors, executors, streams). Held across fork()
// (pthread_atfork) so that a child never inherits it locked.
std::mutex &state_mutex();

constexpr int kMaxDevices = 64;
int current_device();          // this thread's device (`thread`), else the process's, else 0
bool device_dead(int device);  // in this process, or recorded in ACLNN_DEVEMU_STATE_DIR
// The runtime's device-failure error for `api` on a dead device, message set.
aclError dead_device_error(const char *api, int device);

// Codes of the real runtime (include/acl/error_codes/rt_error_codes.h).
constexpr aclError kDeviceLost = ACL_ERROR_RT_LOST_HEARTBEAT;
constexpr aclError kKernelFault = ACL_ERROR_RT_AICORE_EXCEPTION;

// ---- Device memory (`memory`)
// ---------------------------------------------------------------------
struct Allocation {
  char *device = nullptr;   // handed out; PROT_NONE
  size_t size = 0;          // as asked
  size_t reserved = 0;      // mapped at `device` (page multiple, with a guard page)
  char *backing = nullptr;  // read-write, what the kernels use
  size_t backing_size = 0;
  bool freed = false;  // under state_mutex
  ~Allocation();
};
// The live allocation holding [p, p + count] (end included), under state_mutex.
std::shared_ptr<Allocation> find_allocation_locked(const void *p);

// ---- Kernels and streams
// ---------------------------------------------------------------------------
struct Kernel {
  std::string op;                           // "aclnnGeluBackward"
  std::function<aclnnStatus()> run;         // the inner phase two
  std::vector<std::shared_ptr<void>> keep;  // allocations it uses, alive until it ran
  std::string host_memory;                  // non-empty: it would touch host memory
  int device = 0;
  bool hang = false;  // ACLNN_DEVEMU_HANG_AFTER picked this one
};
struct Result {
  aclnnStatus status = 0;
  std::string message;
};
// Runs a kernel where it would run: now in this thread (`stream` off) or on the stream's worker
// (`stream` on; NULL: the device's default stream). Returns phase two's status.
aclnnStatus submit(aclrtStream stream, Kernel kernel);
// `stream`: 0 if phase two may queue on `stream` (live, of this thread's device), else the error.
aclError check_stream(aclrtStream stream, const char *api);
// Enqueues a host task (an executor's deferred destroy) behind the stream's pending work; false if
// `stream` is not a live stream.
bool enqueue_host_task(aclrtStream stream, std::function<void()> task);
void *inner_stream(aclrtStream stream);  // the inner library's handle of a stream
void streams_after_fork_child();         // the child of fork() has no worker threads

}  // namespace devemu
