// The two-phase protocol's probes (properties/protocol_probes.hpp): ABI-TWOPHASE-2 (phase one
// refuses NULL workspaceSize or executor, before any op-specific check), ABI-TWOPHASE-3 (phase two
// refuses a NULL executor, a NULL workspace, a workspace too small) and ABI-TWOPHASE-4 (an
// executor runs once, unless made repeatable); every refusal leaves its own message
// (ABI-ERRMSG-1).
#include <fmt/format.h>

#include "properties/call_trace.hpp"
#include "properties/protocol_probes.hpp"

namespace aclnn_conform::protocol_detail {

void probe_null_phase_one(ProbeRun &p) {
  const OpDescriptor &op = p.op;
  const Case &c = p.c;
  const AbiTable &abi = p.abi;
  Staged s(p.sut, c);
  if (!s.ok) return;
  ClauseScope clause("ABI-TWOPHASE-2");
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  std::string before = p.stale();
  const std::string call_a = p.ws_name + "(workspaceSize = NULL)";
  const aclnnStatus a = traced(call_a, [&] { return op.phase_one(abi, c, s.ptrs, nullptr, &ex); });
  if (a != 0) p.message_check(call_a, before, "workspaceSize");
  before = p.stale();
  const std::string call_b = p.ws_name + "(executor = NULL)";
  const aclnnStatus b = traced(call_b, [&] { return op.phase_one(abi, c, s.ptrs, &ws, nullptr); });
  if (b != 0) p.message_check(call_b, before, "executor");
  p.add("ABI-TWOPHASE-2", a == ACLNN_ERR_PARAM_NULLPTR && b == ACLNN_ERR_PARAM_NULLPTR,
        fmt::format("phase one with workspaceSize NULL gave {}, with executor NULL gave {} "
                    "(expected 161001 both)",
                    a, b));
}

namespace {

// ABI-TWOPHASE-3's calls on an executor from a successful phase one: phase two with executor
// NULL, then (with a workspace to give) workspace NULL and workspaceSize - 1. Returns the
// workspace it allocated for them (nullptr if none).
void *probe_second_call_refusals(ProbeRun &p, uint64_t ws, aclOpExecutor *ex) {
  const OpDescriptor &op = p.op;
  std::string before = p.stale();
  const std::string call_null_ex = op.abi_name + "(executor = NULL)";
  const aclnnStatus null_ex = p.second_call(call_null_ex, nullptr, ws, nullptr);
  if (null_ex != 0) p.message_check(call_null_ex, before, "executor");
  void *workspace = nullptr;
  aclnnStatus null_ws = ACLNN_ERR_PARAM_NULLPTR, small_ws = ACLNN_ERR_PARAM_INVALID;
  if (ws > 0) {
    before = p.stale();
    const std::string call_null_ws = op.abi_name + "(workspace = NULL, workspaceSize > 0)";
    null_ws = p.second_call(call_null_ws, nullptr, ws, ex);
    if (null_ws != 0) p.message_check(call_null_ws, before, "workspace");
    workspace = p.allocate_workspace(ws);
    before = p.stale();
    const std::string call_small = op.abi_name + "(workspaceSize - 1)";
    small_ws = p.second_call(call_small, workspace, ws - 1, ex);
    if (small_ws != 0) p.message_check(call_small, before, "workspaceSize");
  }
  p.add("ABI-TWOPHASE-3",
        null_ex == ACLNN_ERR_PARAM_NULLPTR && null_ws == ACLNN_ERR_PARAM_NULLPTR &&
            small_ws == ACLNN_ERR_PARAM_INVALID,
        fmt::format("phase two with executor NULL gave {}, workspace NULL gave {} (161001 "
                    "expected), workspaceSize too small gave {} (161002 expected)",
                    null_ex, null_ws, small_ws));
  return workspace;
}

// ABI-TWOPHASE-4: the executor runs (phase two as it should be called), and once released it
// does not run again.
void probe_executor_runs_once(ProbeRun &p, void *workspace, uint64_t ws, aclOpExecutor *ex) {
  const OpDescriptor &op = p.op;
  const aclnnStatus first = p.second_call(op.abi_name, workspace, ws, ex);
  if (first != 0) return;
  const std::string before = p.stale();
  const std::string call_again = op.abi_name + "(the same executor a second time)";
  const aclnnStatus second = p.second_call(call_again, workspace, ws, ex);
  if (second != 0) p.message_check(call_again, before, "executor");
  p.add("ABI-TWOPHASE-4", second == ACLNN_ERR_PARAM_INVALID,
        fmt::format("running a released executor again gave {} (161002 expected)", second));
}

}  // namespace

void probe_second_call(ProbeRun &p) {
  const OpDescriptor &op = p.op;
  const Case &c = p.c;
  Staged s(p.sut, c);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (!s.ok || traced(p.ws_name, [&] { return op.phase_one(p.abi, c, s.ptrs, &ws, &ex); }) != 0)
    return;
  ClauseScope clause("ABI-TWOPHASE-3");
  void *workspace = probe_second_call_refusals(p, ws, ex);
  ClauseScope twice("ABI-TWOPHASE-4");
  probe_executor_runs_once(p, workspace, ws, ex);
  if (workspace) p.free_workspace(workspace);
}

void probe_nulls_come_first(ProbeRun &p) {
  const OpDescriptor &op = p.op;
  const AbiTable &abi = p.abi;
  // The same NULLs on a call that also breaks an op clause (its first input made DOUBLE, which
  // no op accepts) still give 161001.
  Case bad = p.c;
  TensorArg &first = bad.tensors.front().second;
  if (first.present) first = TensorArg::contiguous(aclnn_ref::DType::kFloat64, first.shape);
  bad.refresh_views();
  if (op.check(bad, {}).status != ACLNN_ERR_PARAM_INVALID) return;
  Staged s(p.sut, bad);
  if (!s.ok) return;
  ClauseScope clause("ABI-TWOPHASE-2");
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const aclnnStatus a = traced(p.ws_name + "(workspaceSize = NULL, a DOUBLE input)",
                               [&] { return op.phase_one(abi, bad, s.ptrs, nullptr, &ex); });
  const aclnnStatus b = traced(p.ws_name + "(executor = NULL, a DOUBLE input)",
                               [&] { return op.phase_one(abi, bad, s.ptrs, &ws, nullptr); });
  p.add("ABI-TWOPHASE-2", a == ACLNN_ERR_PARAM_NULLPTR && b == ACLNN_ERR_PARAM_NULLPTR,
        fmt::format("with a DOUBLE {} as well, phase one with workspaceSize NULL gave {}, with "
                    "executor NULL gave {} (expected 161001 both: the NULL check comes first)",
                    bad.tensors.front().first, a, b));
}

void probe_repeatable_executor(ProbeRun &p) {
  const OpDescriptor &op = p.op;
  const Case &c = p.c;
  const AbiTable &abi = p.abi;
  // Such an executor runs again (where the library exports the call).
  if (!abi.set_repeatable) return;
  Staged s(p.sut, c);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (!s.ok || traced(p.ws_name, [&] { return op.phase_one(abi, c, s.ptrs, &ws, &ex); }) != 0)
    return;
  ClauseScope clause("ABI-TWOPHASE-4");
  const aclnnStatus rep =
      traced("aclSetAclOpExecutorRepeatable", [&] { return abi.set_repeatable(ex); });
  void *workspace = ws > 0 ? p.allocate_workspace(ws) : nullptr;
  aclnnStatus first = -1, second = -1;
  if (rep == 0 && (ws == 0 || workspace)) {
    first = p.second_call(op.abi_name + "(a repeatable executor)", workspace, ws, ex);
    second = p.second_call(op.abi_name + "(a repeatable executor, again)", workspace, ws, ex);
    if (abi.destroy_executor)
      traced("aclDestroyAclOpExecutor", [&] { return abi.destroy_executor(ex); });
  }
  p.add("ABI-TWOPHASE-4", rep == 0 && first == 0 && second == 0,
        fmt::format("aclSetAclOpExecutorRepeatable gave {}; the executor then ran with {} and "
                    "again with {} (0 expected each)",
                    rep, first, second));
  if (workspace) p.free_workspace(workspace);
}

}  // namespace aclnn_conform::protocol_detail
