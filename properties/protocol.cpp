// Protocol probes (properties/protocol.hpp): protocol_probe runs one function per probed rule
// (properties/protocol_probes.hpp lists them and their files) on one valid case; this file has the
// state they share, VAL-DET-1 and ABI-FORMAT-1, and the teardown of the call examples.
#include "properties/protocol.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "properties/call_trace.hpp"
#include "properties/protocol_probes.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {

namespace protocol_detail {

Staged::Staged(const Sut &sut, const Case &c) {
  for (const auto &[name, t] : c.tensors) {
    tensors.push_back(std::make_unique<StagedTensor>(sut, t));
    ok = ok && tensors.back()->ok();
    ptrs.push_back(tensors.back()->tensor());
  }
}

aclError synchronize(const Sut &sut, const std::string &call) {
  if (!sut.abi().synchronize_stream) return ACL_SUCCESS;
  return traced(call + " (aclrtSynchronizeStream)",
                [&] { return sut.abi().synchronize_stream(sut.stream()); });
}

ProbeRun::ProbeRun(const Sut &sut_, const OpDescriptor &op_, const Case &c_)
    : sut(sut_), op(op_), c(c_), abi(sut_.abi()), ws_name(op_.abi_name + "GetWorkspaceSize") {}

void ProbeRun::add(const char *clause, bool pass, std::string detail) {
  r.push_back({clause, pass, pass ? "" : std::move(detail)});
}

void ProbeRun::message_check(const std::string &call, const std::string &before,
                             const char *param) {
  ClauseScope clause("ABI-ERRMSG-1");
  const std::string after = traced("aclGetRecentErrMsg", [&] { return sut.recent_error(); });
  const bool names = after.find(param) != std::string::npos;
  add("ABI-ERRMSG-1", names,
      fmt::format(
          "after {} failed, aclGetRecentErrMsg() {} (it must name {}){}", call,
          after.empty() ? "is empty" : "is \"" + after + "\"", param,
          !after.empty() && after == before ? "; it is the message an earlier call left" : ""));
}

std::string ProbeRun::stale() {
  return traced("aclGetRecentErrMsg", [&] { return sut.recent_error(); });
}

aclnnStatus ProbeRun::second_call(const std::string &call, void *workspace, uint64_t size,
                                  aclOpExecutor *executor) {
  const aclnnStatus status =
      traced(call, [&] { return op.phase_two(abi, workspace, size, executor, sut.stream()); });
  return status != 0 ? status : static_cast<aclnnStatus>(synchronize(sut, call));
}

void *ProbeRun::allocate_workspace(uint64_t ws) {
  void *workspace = nullptr;
  ClauseScope runtime("ABI-RUNTIME-1");
  traced("aclrtMalloc(workspace)",
         [&] { return abi.malloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST); });
  return workspace;
}

void ProbeRun::free_workspace(void *workspace) {
  synchronize(sut, op.abi_name);  // whatever was queued on it has ended
  ClauseScope runtime("ABI-RUNTIME-1");
  traced("aclrtFree(workspace)", [&] { return abi.free(workspace); });
}

Outcome probe_determinism(ProbeRun &p) {
  const Sut &sut = p.sut;
  const OpDescriptor &op = p.op;
  const Case &c = p.c;
  // A death in these plain runs belongs to the case's own clause; only the format runs differ
  // from an ordinary call.
  const Outcome a = run_case(sut, op, c), b = run_case(sut, op, c);
  if (a.status == 0 && b.status == 0 && !a.harness_error && !b.harness_error)
    p.add("VAL-DET-1", output_storage(op, c, a) == output_storage(op, c, b),
          "the same call twice gave different output bits");
  // ...and across thread counts (VAL-DET-1, LN-VALUE-3, GBAG-VALUE-3): the built-in library
  // and libraries built from it read ACLNN_CPU_NUM_THREADS per call; others ignore it.
  if (a.status == 0 && !a.harness_error) {
    const char *saved = std::getenv("ACLNN_CPU_NUM_THREADS");
    const std::string restore = saved ? saved : "";
    for (const char *threads : {"1", "3"}) {
      setenv("ACLNN_CPU_NUM_THREADS", threads, 1);
      const Outcome t = run_case(sut, op, c);
      if (!t.harness_error)
        p.add("VAL-DET-1", t.status == 0 && output_storage(op, c, t) == output_storage(op, c, a),
              fmt::format("with ACLNN_CPU_NUM_THREADS={} the call gave status {} or other output "
                          "bits",
                          threads, t.status));
    }
    if (saved)
      setenv("ACLNN_CPU_NUM_THREADS", restore.c_str(), 1);
    else
      unsetenv("ACLNN_CPU_NUM_THREADS");
  }
  return a;
}

void probe_formats(ProbeRun &p, const Outcome &a) {
  ClauseScope format_clause("ABI-FORMAT-1");
  for (aclFormat f : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
    const Outcome other = run_case(p.sut, p.op, p.c, RunOptions{f});
    if (a.status != 0 || a.harness_error) continue;
    if (other.harness_error)  // e.g. aclCreateTensor refused the format for this rank
      p.add("ABI-FORMAT-1", false,
            fmt::format("with format {} the call could not be made: {}", static_cast<int>(f),
                        other.harness_message));
    else
      p.add("ABI-FORMAT-1",
            other.status == 0 && output_storage(p.op, p.c, other) == output_storage(p.op, p.c, a),
            fmt::format("with format {} the call gave status {} or other output bits",
                        static_cast<int>(f), other.status));
  }
}

}  // namespace protocol_detail

std::vector<ClauseResult> protocol_probe(const Sut &sut, const OpDescriptor &op, const Case &c) {
  using namespace protocol_detail;
  setenv("ACLNN_CPU_SOC", std::string(product_name(c.product)).c_str(), 1);
  ProbeRun p(sut, op, c);
  // VAL-DET-1: the same call twice gives the same bits; ABI-FORMAT-1: and so does the call with
  // every tensor created as NCHW or NHWC (formats are not checked, all treated as ND).
  probe_formats(p, probe_determinism(p));
  probe_null_phase_one(p);       // ABI-TWOPHASE-2
  probe_second_call(p);          // ABI-TWOPHASE-3 and -4
  probe_nulls_come_first(p);     // ABI-TWOPHASE-2 before any op-specific check
  probe_repeatable_executor(p);  // ABI-TWOPHASE-4 unless repeatable
  probe_invalid_views(p);        // ABI-TENSOR-1
  probe_runtime(p);              // ABI-RUNTIME-1, ABI-STATUS-1
  return std::move(p.r);
}

std::vector<ClauseResult> teardown_probe(Sut &sut) {
  const AbiTable &abi = sut.abi();
  ClauseScope clause("ABI-RUNTIME-1");
  if (!abi.reset_device || !abi.finalize || !abi.destroy_stream)
    return {{"ABI-RUNTIME-1", false,
             "aclrtDestroyStream, aclrtResetDevice or aclFinalize is not exported"}};
  const int device = sut.device();
  const aclError destroyed =
      traced("aclrtDestroyStream", [&] { return abi.destroy_stream(sut.release_stream()); });
  const std::string reset_call = fmt::format("aclrtResetDevice({})", device);
  const aclError reset = traced(reset_call, [&] { return abi.reset_device(device); });
  const aclError finalized = traced("aclFinalize", [&] { return abi.finalize(); });
  sut.mark_torn_down();
  std::string failed;
  for (const auto &[call, status] :
       {std::pair<std::string, aclError>{"aclrtDestroyStream", destroyed},
        {reset_call, reset},
        {"aclFinalize()", finalized}})
    if (status != ACL_SUCCESS)
      failed += fmt::format("{}{} failed with {}", failed.empty() ? "" : ", ", call, status);
  return {{"ABI-RUNTIME-1", failed.empty(),
           failed.empty()
               ? ""
               : failed + " (the call examples' teardown: aclrtDestroyStream, "
                          "aclrtResetDevice, aclFinalize; ACL_SUCCESS expected of each)"}};
}

}  // namespace aclnn_conform
