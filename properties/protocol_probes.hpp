// The protocol probes' parts (properties/protocol.hpp), internal to aclnn::properties: the state
// one protocol_probe shares with its rules, and one function per probed rule, called in this order:
//   protocol.cpp           protocol_probe, ProbeRun's helpers, VAL-DET-1 and ABI-FORMAT-1, the
//                          teardown
//   protocol_twophase.cpp  ABI-TWOPHASE-2, -3 and -4: NULL arguments, the second call's checks,
//                          executors that run once (or again, when repeatable)
//   protocol_runtime.cpp   ABI-TENSOR-1 (invalid views refused) and ABI-RUNTIME-1 (memory, copies,
//                          streams; ABI-STATUS-1 of a refused copy)
// Every call a probe makes is traced (properties/call_trace.hpp) under its rule's ClauseScope, so a
// death in it is charged to that call and rule.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "properties/case.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"
#include "properties/staging.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform::protocol_detail {

// The case's tensors staged on the SUT, for calls the runner does not make.
struct Staged {
  std::vector<std::unique_ptr<StagedTensor>> tensors;
  std::vector<aclTensor *> ptrs;
  bool ok = true;
  Staged(const Sut &sut, const Case &c);
};

// The stream after a second call made outside run_case: on a device the op may still be running.
// Traced as part of the call it waits for: a stream that never completes is that call's hang.
aclError synchronize(const Sut &sut, const std::string &call);

// One protocol_probe: the SUT, the op and its valid case, and the results so far.
struct ProbeRun {
  const Sut &sut;
  const OpDescriptor &op;
  const Case &c;
  const AbiTable &abi;
  const std::string ws_name;  // the op's phase one: aclnnXGetWorkspaceSize
  std::vector<ClauseResult> r;

  ProbeRun(const Sut &sut_, const OpDescriptor &op_, const Case &c_);

  void add(const char *clause, bool pass, std::string detail);
  // Every failing probe call must leave its own message (ABI-ERRMSG-1, judged per call): the
  // message read before the call is stale, the one after it must name `param`.
  void message_check(const std::string &call, const std::string &before, const char *param);
  // aclGetRecentErrMsg() before a call: what earlier calls left.
  std::string stale();
  // A second call and, if it was taken, the synchronize after it: on a device some of the call's
  // errors appear only at aclrtSynchronizeStream, and those are the call's outcome too; and
  // nothing may run on a workspace once it is freed, nor overlap the next call. A refused call
  // is not followed by anything before its message is read (ABI-ERRMSG-1).
  aclnnStatus second_call(const std::string &call, void *workspace, uint64_t size,
                          aclOpExecutor *executor);
  // A workspace of ws bytes (aclrtMalloc, under ABI-RUNTIME-1); nullptr if refused.
  void *allocate_workspace(uint64_t ws);
  // Frees a workspace once whatever was queued on it has ended (under ABI-RUNTIME-1).
  void free_workspace(void *workspace);
};

// ---- The rules, in the order protocol_probe checks them ----

// VAL-DET-1: the same call twice gives the same bits, and so across thread counts. Returns the
// first of those calls' outcome, which the format runs compare against (protocol.cpp).
Outcome probe_determinism(ProbeRun &p);
// ABI-FORMAT-1: the call with every tensor created as NCHW or NHWC gives the same bits.
void probe_formats(ProbeRun &p, const Outcome &a);
// ABI-TWOPHASE-2: NULL workspaceSize or executor in phase one (protocol_twophase.cpp).
void probe_null_phase_one(ProbeRun &p);
// ABI-TWOPHASE-3 and -4: the second call's checks, and an executor that runs once.
void probe_second_call(ProbeRun &p);
// ABI-TWOPHASE-2, "before any op-specific check": the NULLs on a call that also breaks an op
// clause.
void probe_nulls_come_first(ProbeRun &p);
// ABI-TWOPHASE-4, "unless aclSetAclOpExecutorRepeatable was called on it".
void probe_repeatable_executor(ProbeRun &p);
// ABI-TENSOR-1: invalid views and arrays are refused with NULL (protocol_runtime.cpp).
void probe_invalid_views(ProbeRun &p);
// ABI-RUNTIME-1 (and ABI-STATUS-1): aligned memory, copies, streams.
void probe_runtime(ProbeRun &p);

}  // namespace aclnn_conform::protocol_detail
