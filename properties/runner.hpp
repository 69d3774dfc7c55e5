// Runs one Case on a SUT through the ABI: stage every tensor in guarded device memory, phase one,
// workspace, phase two, synchronise, copy everything back.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "properties/case.hpp"
#include "properties/op.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {

struct Outcome {
  // The harness could not set the call up (e.g. aclCreateTensor refused a valid view, or memory);
  // then nothing else is meaningful. Such a refusal of a valid view is itself a deviation
  // (ABI-TENSOR-1), judged as such.
  bool harness_error = false;
  std::string harness_message;
  // The status of the runtime call that failed the set-up or the copy back (aclrtMalloc,
  // aclrtMemcpy), 0 if none: out of device memory is the device's condition, not the op's.
  int harness_status = 0;

  int32_t status = 0;   // the first non-zero status, or 0
  // 1 or 2: the call that returned status (0 when both succeeded). A failure that
  // aclrtSynchronizeStream returns after the second call succeeded is the second call's outcome
  // (a device runs the op asynchronously): phase 2, with sync_failed set.
  int phase = 0;
  bool sync_failed = false;
  std::string message;  // aclGetRecentErrMsg() after a failure
  // aclGetRecentErrMsg() read just before phase one (what earlier calls left; now stale).
  std::string message_before;
  uint64_t workspace_size = 0;
  // Per tensor, in the case's order: storage bytes after the call, and whether both guards held.
  std::vector<std::vector<std::byte>> storage_after;
  std::vector<bool> guards_intact;
  // Whether the guard regions around the workspace held (a kernel used no more than it asked).
  bool workspace_guards_intact = true;
  // Per tensor, when the late-write check is on (set_late_write_check): the first storage byte
  // that changed between the copy back after the call and a second copy a moment later (a thread
  // the SUT left running writes into it), or -1.
  std::vector<int64_t> changed_after_return;
};

// The late-write check: on an armed call (arm_late_write_check: the next run_case that succeeds),
// run_case copies every storage back a second time, this many microseconds after the first copy,
// and records what changed in between. 0 (the default): off. The campaign's workers turn it on
// and arm each task's first call (and each shrink candidate's); it costs the wait and a second
// copy on the calls it checks.
void set_late_write_check(int microseconds);
void arm_late_write_check();

struct RunOptions {
  aclFormat format = ACL_FORMAT_ND;  // the storage format every tensor is created with
};

// The storage of each of the op's outputs after the run, in the case's tensor order: what bitwise
// comparisons of two runs (determinism, formats) compare.
std::vector<std::vector<std::byte>> output_storage(const OpDescriptor &op, const Case &c,
                                                   const Outcome &o);

Outcome run_case(const Sut &sut, const OpDescriptor &op, const Case &c,
                 const RunOptions &options = {});

// Whether the SUT's device still answers: a small aclrtMalloc, copies both ways, a synchronize
// and aclrtFree. "" if it does, else the call that failed and its status. out_of_memory is set
// when only the allocation failed, with an out-of-memory status (the device is full, not dead).
std::string device_health_check(const Sut &sut, bool &out_of_memory);

// Statuses with which aclrtMalloc says the device is out of memory (ACL_ERROR_BAD_ALLOC,
// ACL_ERROR_RT_MEMORY_ALLOCATION, ...).
bool is_out_of_memory_status(int status);

}  // namespace aclnn_conform
