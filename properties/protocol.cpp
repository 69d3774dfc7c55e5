#include "properties/protocol.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>

#include "properties/call_trace.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {
namespace {

// The case's tensors staged on the SUT, for calls the runner does not make.
struct Staged {
  std::vector<std::unique_ptr<StagedTensor>> tensors;
  std::vector<aclTensor *> ptrs;
  bool ok = true;
  Staged(const Sut &sut, const Case &c) {
    for (const auto &[name, t] : c.tensors) {
      tensors.push_back(std::make_unique<StagedTensor>(sut, t));
      ok = ok && tensors.back()->ok();
      ptrs.push_back(tensors.back()->tensor());
    }
  }
};

std::vector<std::vector<std::byte>> outputs_of(const OpDescriptor &op, const Case &c,
                                               const Outcome &o) {
  std::vector<std::vector<std::byte>> out;
  for (size_t i = 0; i < c.tensors.size(); ++i)
    for (const auto &name : op.outputs)
      if (c.tensors[i].first == name) out.push_back(o.storage_after[i]);
  return out;
}

}  // namespace

std::vector<ClauseResult> protocol_probe(const Sut &sut, const OpDescriptor &op, const Case &c) {
  std::vector<ClauseResult> r;
  const auto add = [&](const char *clause, bool pass, std::string detail) {
    r.push_back({clause, pass, pass ? "" : std::move(detail)});
  };
  const AbiTable &abi = sut.abi();
  setenv("ACLNN_CPU_SOC", std::string(product_name(c.product)).c_str(), 1);
  const std::string ws_name = op.abi_name + "GetWorkspaceSize";
  // Every failing probe call must leave its own message (ABI-ERRMSG-1, judged per call): the
  // message read before the call is stale, the one after it must name `param`.
  const auto message_check = [&](const std::string &call, const std::string &before,
                                 const char *param) {
    ClauseScope clause("ABI-ERRMSG-1");
    const std::string after = traced("aclGetRecentErrMsg", [&] { return sut.recent_error(); });
    const bool names = after.find(param) != std::string::npos;
    add("ABI-ERRMSG-1", names,
        fmt::format(
            "after {} failed, aclGetRecentErrMsg() {} (it must name {}){}", call,
            after.empty() ? "is empty" : "is \"" + after + "\"", param,
            !after.empty() && after == before ? "; it is the message an earlier call left" : ""));
  };
  const auto stale = [&] {
    return traced("aclGetRecentErrMsg", [&] { return sut.recent_error(); });
  };

  // VAL-DET-1: the same call twice gives the same bits; ABI-FORMAT-1: and so does the call with
  // every tensor created as NCHW or NHWC (formats are not checked, all treated as ND).
  {
    // A death in these plain runs belongs to the case's own clause; only the format runs differ
    // from an ordinary call.
    const Outcome a = run_case(sut, op, c), b = run_case(sut, op, c);
    if (a.status == 0 && b.status == 0 && !a.harness_error && !b.harness_error)
      add("VAL-DET-1", outputs_of(op, c, a) == outputs_of(op, c, b),
          "the same call twice gave different output bits");
    ClauseScope format_clause("ABI-FORMAT-1");
    for (aclFormat f : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
      const Outcome other = run_case(sut, op, c, RunOptions{f});
      if (a.status != 0 || a.harness_error) continue;
      if (other.harness_error)  // e.g. aclCreateTensor refused the format for this rank
        add("ABI-FORMAT-1", false,
            fmt::format("with format {} the call could not be made: {}", static_cast<int>(f),
                        other.harness_message));
      else
        add("ABI-FORMAT-1", other.status == 0 && outputs_of(op, c, other) == outputs_of(op, c, a),
            fmt::format("with format {} the call gave status {} or other output bits",
                        static_cast<int>(f), other.status));
    }
  }
  // ABI-TWOPHASE-2: NULL workspaceSize or executor in phase one, each with its own message.
  {
    Staged s(sut, c);
    if (s.ok) {
      ClauseScope clause("ABI-TWOPHASE-2");
      uint64_t ws = 0;
      aclOpExecutor *ex = nullptr;
      std::string before = stale();
      const std::string call_a = ws_name + "(workspaceSize = NULL)";
      const aclnnStatus a =
          traced(call_a, [&] { return op.phase_one(abi, c, s.ptrs, nullptr, &ex); });
      if (a != 0) message_check(call_a, before, "workspaceSize");
      before = stale();
      const std::string call_b = ws_name + "(executor = NULL)";
      const aclnnStatus b =
          traced(call_b, [&] { return op.phase_one(abi, c, s.ptrs, &ws, nullptr); });
      if (b != 0) message_check(call_b, before, "executor");
      add("ABI-TWOPHASE-2", a == ACLNN_ERR_PARAM_NULLPTR && b == ACLNN_ERR_PARAM_NULLPTR,
          fmt::format("phase one with workspaceSize NULL gave {}, with executor NULL gave {} "
                      "(expected 161001 both)",
                      a, b));
    }
  }
  // ABI-TWOPHASE-3 and -4: the second call's checks, and an executor that runs once.
  {
    Staged s(sut, c);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    if (s.ok && traced(ws_name, [&] { return op.phase_one(abi, c, s.ptrs, &ws, &ex); }) == 0) {
      ClauseScope clause("ABI-TWOPHASE-3");
      std::string before = stale();
      const std::string call_null_ex = op.abi_name + "(executor = NULL)";
      const aclnnStatus null_ex = traced(
          call_null_ex, [&] { return op.phase_two(abi, nullptr, ws, nullptr, sut.stream()); });
      if (null_ex != 0) message_check(call_null_ex, before, "executor");
      void *workspace = nullptr;
      aclnnStatus null_ws = ACLNN_ERR_PARAM_NULLPTR, small_ws = ACLNN_ERR_PARAM_INVALID;
      if (ws > 0) {
        before = stale();
        const std::string call_null_ws = op.abi_name + "(workspace = NULL, workspaceSize > 0)";
        null_ws =
            traced(call_null_ws, [&] { return op.phase_two(abi, nullptr, ws, ex, sut.stream()); });
        if (null_ws != 0) message_check(call_null_ws, before, "workspace");
        {
          ClauseScope runtime("ABI-RUNTIME-1");
          traced("aclrtMalloc(workspace)",
                 [&] { return abi.malloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST); });
        }
        before = stale();
        const std::string call_small = op.abi_name + "(workspaceSize - 1)";
        small_ws = traced(call_small,
                          [&] { return op.phase_two(abi, workspace, ws - 1, ex, sut.stream()); });
        if (small_ws != 0) message_check(call_small, before, "workspaceSize");
      }
      add("ABI-TWOPHASE-3",
          null_ex == ACLNN_ERR_PARAM_NULLPTR && null_ws == ACLNN_ERR_PARAM_NULLPTR &&
              small_ws == ACLNN_ERR_PARAM_INVALID,
          fmt::format("phase two with executor NULL gave {}, workspace NULL gave {} (161001 "
                      "expected), workspaceSize too small gave {} (161002 expected)",
                      null_ex, null_ws, small_ws));
      ClauseScope twice("ABI-TWOPHASE-4");
      const aclnnStatus first =
          traced(op.abi_name, [&] { return op.phase_two(abi, workspace, ws, ex, sut.stream()); });
      if (first == 0) {
        before = stale();
        const std::string call_again = op.abi_name + "(the same executor a second time)";
        const aclnnStatus second =
            traced(call_again, [&] { return op.phase_two(abi, workspace, ws, ex, sut.stream()); });
        if (second != 0) message_check(call_again, before, "executor");
        add("ABI-TWOPHASE-4", second == ACLNN_ERR_PARAM_INVALID,
            fmt::format("running a released executor again gave {} (161002 expected)", second));
      }
      if (workspace) {
        ClauseScope runtime("ABI-RUNTIME-1");
        traced("aclrtFree(workspace)", [&] { return abi.free(workspace); });
      }
    }
  }
  // ABI-TENSOR-1: invalid views are refused with NULL (a negative dim, a negative stride, a
  // negative offset, a view past its storage, an element count that overflows int64).
  {
    ClauseScope clause("ABI-TENSOR-1");
    float storage[4] = {};
    const int64_t dims[] = {2, 2}, strides[] = {2, 1}, neg[] = {2, -1}, sdims[] = {4};
    const int64_t neg_strides[] = {-2, 1}, huge[] = {INT64_C(1) << 40, INT64_C(1) << 40},
                  huge_sdims[] = {INT64_MAX};
    struct Bad {
      const char *what;
      const int64_t *dims, *strides;
      int64_t offset;
      const int64_t *sdims;
    };
    const Bad bad[] = {{"a negative dim", neg, strides, 0, sdims},
                       {"a negative stride", dims, neg_strides, 2, sdims},
                       {"a negative offset", dims, strides, -1, sdims},
                       {"a view past its storage", dims, strides, 1, sdims},
                       {"an element count that overflows int64", huge, strides, 0, huge_sdims}};
    std::string refused_not;
    for (const auto &b : bad) {
      aclTensor *t = traced(std::string("aclCreateTensor(") + b.what + ")", [&] {
        return abi.create_tensor(b.dims, 2, ACL_FLOAT, b.strides, b.offset, ACL_FORMAT_ND, b.sdims,
                                 1, storage);
      });
      if (t) {
        refused_not += refused_not.empty() ? b.what : std::string(", ") + b.what;
        traced("aclDestroyTensor", [&] { return abi.destroy_tensor(t); });
      }
    }
    add("ABI-TENSOR-1", refused_not.empty(), "aclCreateTensor accepted " + refused_not);
  }
  // ABI-RUNTIME-1: aligned memory, a refused over-long copy.
  {
    ClauseScope clause("ABI-RUNTIME-1");
    void *p = nullptr;
    const bool alloc =
        traced("aclrtMalloc", [&] { return abi.malloc(&p, 96, ACL_MEM_MALLOC_HUGE_FIRST); }) ==
            ACL_SUCCESS &&
        p;
    char host[128] = {};
    const bool aligned = alloc && reinterpret_cast<uintptr_t>(p) % 32 == 0;
    const bool refused = alloc && traced("aclrtMemcpy(count > destMax)", [&] {
                                    return abi.memcpy(p, 96, host, 128, ACL_MEMCPY_HOST_TO_DEVICE);
                                  }) != ACL_SUCCESS;
    add("ABI-RUNTIME-1", alloc && aligned && refused,
        "aclrtMalloc failed or was not 32-byte aligned, or aclrtMemcpy accepted count > destMax");
    if (p) traced("aclrtFree", [&] { return abi.free(p); });
  }
  return r;
}

}  // namespace aclnn_conform
