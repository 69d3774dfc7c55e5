// The device emulation's contract (docs/device-emulation.md): the built-in CPU library (or any
// library with the aclnn ABI, ACLNN_DEVEMU_INNER) behind a runtime that behaves like the vendor's
// device runtime (CANN) wherever a host program can tell the difference.
//
// The ABI is split as CANN splits it: libascendcl.so (runtime.cpp, memory.cpp, stream.cpp,
// executors.cpp: aclInit, aclFinalize, aclrt*, aclGetRecentErrMsg and ALL shared state),
// libnnopbase.so (tensors.cpp: tensors, arrays, getters, executor flags) and libopapi.so
// (ops.cpp: the aclnn ops of ops.def). libaclnn_devemu.so is all of them in one library. The two
// upper libraries reach the shared state through the functions below (namespace devemu, never
// acl-prefixed), which only libascendcl defines.
//
// Behaviours (env ACLNN_DEVEMU, a comma list or `all`; unset or empty: a plain forwarder):
//   memory      aclrtMalloc hands out addresses the host cannot touch (PROT_NONE); aclrtMemcpy
//               is the only way in and out and checks each pointer against its kind; tensors and
//               workspaces are translated to the private backing the kernels use.
//   stream      phase two checks what the host can check, then enqueues the kernel on the
//               stream's worker thread and returns at once; results and kernel failures appear
//               at aclrtSynchronizeStream.
//   thread      aclrtSetDevice binds the device to the calling thread; calls from a thread
//               without one fail with ACL_ERROR_RT_CONTEXT_NULL.
//   fork        a process forked from one that initialised the runtime is refused.
//   devices     ACLNN_DEVEMU_DEVICES devices (default 2); other ids fail.
//   first-call  the first phase one of each op sleeps ACLNN_DEVEMU_FIRST_CALL_MS (kernel load);
//               with ACLNN_DEVEMU_FIRST_CALL_PER=dtype, of each op and tensor dtype list, as a
//               device that loads a binary per dtype does.
// With any behaviour on, aclInit/aclFinalize also keep the real runtime's lifecycle codes.
// Fault injection (independent of ACLNN_DEVEMU): ACLNN_DEVEMU_FAIL_AFTER (+ _FAIL_DEVICE,
// _STATE_DIR), ACLNN_DEVEMU_MEMORY_BYTES, ACLNN_DEVEMU_HANG_AFTER.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"

#ifdef DEVEMU_COMBINED  // libaclnn_devemu.so: one library, nothing but the ABI exported
#define DEVEMU_INTERNAL __attribute__((visibility("hidden")))
#else
#define DEVEMU_INTERNAL __attribute__((visibility("default")))
#endif

namespace devemu {

// ---- Configuration, read once from the environment ----------------------------------------------
struct Config {
  bool memory = false, stream = false, thread = false, fork = false, devices = false,
       first_call = false;
  bool any() const { return memory || stream || thread || fork || devices || first_call; }
  std::string inner;               // ACLNN_DEVEMU_INNER, else the built-in library
  int device_count = 1;            // ACLNN_DEVEMU_DEVICES when `devices` is on (default 2)
  uint64_t kernel_delay_us = 200;  // ACLNN_DEVEMU_KERNEL_DELAY_US
  uint64_t first_call_ms = 300;    // ACLNN_DEVEMU_FIRST_CALL_MS
  uint64_t init_ms = 0;            // ACLNN_DEVEMU_INIT_MS
  int64_t fail_after = -1;         // ACLNN_DEVEMU_FAIL_AFTER (-1: off)
  int fail_device = -1;            // ACLNN_DEVEMU_FAIL_DEVICE (-1: any)
  std::string state_dir;           // ACLNN_DEVEMU_STATE_DIR
  int64_t memory_bytes = -1;       // ACLNN_DEVEMU_MEMORY_BYTES (-1: unlimited)
  int64_t hang_after = -1;         // ACLNN_DEVEMU_HANG_AFTER (-1: off)
};
DEVEMU_INTERNAL const Config &config();

// ---- The inner library --------------------------------------------------------------------------
DEVEMU_INTERNAL void *inner_symbol(const char *name);  // aborts with a message if missing
template <typename F>
F inner(const char *name) {
  return reinterpret_cast<F>(inner_symbol(name));
}

// ---- Recent error message (aclGetRecentErrMsg) --------------------------------------------------
// The emulator's own failures set the calling thread's message; a call forwarded to the inner
// library gives the message back to the inner library's aclGetRecentErrMsg.
DEVEMU_INTERNAL aclError fail(aclError code, const std::string &text);
DEVEMU_INTERNAL void forwarding();

// ---- Gate: every ABI call but aclGetRecentErrMsg passes it
// ---------------------------------------
enum class Need {
  kProcess,  // refused only in a forked child
  kDevice,   // also needs a device on this thread (`thread`); a call on the device (faults)
};
// 0, or the error to return (its message already set). `api` names the call in messages.
DEVEMU_INTERNAL aclError enter(const char *api, Need need);

// ---- Tensors and executors (executors.cpp) ------------------------------------------------------
// aclCreateTensor's data pointer as the inner library must see it (`memory`: the backing of the
// allocation it points into, `allocation` set; else `host_memory` says why not).
DEVEMU_INTERNAL void *tensor_data(void *data, std::shared_ptr<void> *allocation,
                                  std::string *host_memory);
DEVEMU_INTERNAL void tensor_created(const aclTensor *t, std::shared_ptr<void> allocation,
                                    std::string host_memory);
DEVEMU_INTERNAL void tensor_destroyed(const aclTensor *t);

// Phase one's end: the executor made, its op, workspace and the tensors it was given.
DEVEMU_INTERNAL void executor_created(aclOpExecutor *e, const char *op, uint64_t workspace_size,
                                      const std::vector<const aclTensor *> &tensors);
DEVEMU_INTERNAL void executor_repeatable(aclOpExecutor *e);
// aclDestroyAclOpExecutor: `destroy` is the inner one; deferred behind the executor's pending run.
DEVEMU_INTERNAL aclnnStatus executor_destroy(aclOpExecutor *e,
                                             aclnnStatus (*destroy)(aclOpExecutor *));

// Phase two: host-side checks (`stream`), memory translation (`memory`), then the kernel runs now
// or on the stream. Returns what phase two returns.
using PhaseTwo = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
DEVEMU_INTERNAL aclnnStatus launch(const char *op, void *workspace, uint64_t workspaceSize,
                                   aclOpExecutor *executor, aclrtStream stream, PhaseTwo inner);

// The first phase one of each op in the process sleeps (`first-call`); kernels_loaded() counts
// those (for the tests).
DEVEMU_INTERNAL void first_call(const char *op, const std::vector<const aclTensor *> &tensors);
DEVEMU_INTERNAL uint64_t kernels_loaded();

}  // namespace devemu
