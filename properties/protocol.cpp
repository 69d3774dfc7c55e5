#include "properties/protocol.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
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

// The stream after a second call made outside run_case: on a device the op may still be running.
// Traced as part of the call it waits for: a stream that never completes is that call's hang.
aclError synchronize(const Sut &sut, const std::string &call) {
  if (!sut.abi().synchronize_stream) return ACL_SUCCESS;
  return traced(call + " (aclrtSynchronizeStream)",
                [&] { return sut.abi().synchronize_stream(sut.stream()); });
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
  // A second call and, if it was taken, the synchronize after it: on a device some of the call's
  // errors appear only at aclrtSynchronizeStream, and those are the call's outcome too; and
  // nothing may run on a workspace once it is freed, nor overlap the next call. A refused call
  // is not followed by anything before its message is read (ABI-ERRMSG-1).
  const auto second_call = [&](const std::string &call, void *workspace, uint64_t size,
                               aclOpExecutor *executor) -> aclnnStatus {
    const aclnnStatus status = traced(
        call, [&] { return op.phase_two(abi, workspace, size, executor, sut.stream()); });
    return status != 0 ? status : static_cast<aclnnStatus>(synchronize(sut, call));
  };

  // VAL-DET-1: the same call twice gives the same bits; ABI-FORMAT-1: and so does the call with
  // every tensor created as NCHW or NHWC (formats are not checked, all treated as ND).
  {
    // A death in these plain runs belongs to the case's own clause; only the format runs differ
    // from an ordinary call.
    const Outcome a = run_case(sut, op, c), b = run_case(sut, op, c);
    if (a.status == 0 && b.status == 0 && !a.harness_error && !b.harness_error)
      add("VAL-DET-1", output_storage(op, c, a) == output_storage(op, c, b),
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
          add("VAL-DET-1", t.status == 0 && output_storage(op, c, t) == output_storage(op, c, a),
              fmt::format("with ACLNN_CPU_NUM_THREADS={} the call gave status {} or other output "
                          "bits",
                          threads, t.status));
      }
      if (saved)
        setenv("ACLNN_CPU_NUM_THREADS", restore.c_str(), 1);
      else
        unsetenv("ACLNN_CPU_NUM_THREADS");
    }
    ClauseScope format_clause("ABI-FORMAT-1");
    for (aclFormat f : {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
      const Outcome other = run_case(sut, op, c, RunOptions{f});
      if (a.status != 0 || a.harness_error) continue;
      if (other.harness_error)  // e.g. aclCreateTensor refused the format for this rank
        add("ABI-FORMAT-1", false,
            fmt::format("with format {} the call could not be made: {}", static_cast<int>(f),
                        other.harness_message));
      else
        add("ABI-FORMAT-1",
            other.status == 0 && output_storage(op, c, other) == output_storage(op, c, a),
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
      const aclnnStatus null_ex = second_call(call_null_ex, nullptr, ws, nullptr);
      if (null_ex != 0) message_check(call_null_ex, before, "executor");
      void *workspace = nullptr;
      aclnnStatus null_ws = ACLNN_ERR_PARAM_NULLPTR, small_ws = ACLNN_ERR_PARAM_INVALID;
      if (ws > 0) {
        before = stale();
        const std::string call_null_ws = op.abi_name + "(workspace = NULL, workspaceSize > 0)";
        null_ws = second_call(call_null_ws, nullptr, ws, ex);
        if (null_ws != 0) message_check(call_null_ws, before, "workspace");
        {
          ClauseScope runtime("ABI-RUNTIME-1");
          traced("aclrtMalloc(workspace)",
                 [&] { return abi.malloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST); });
        }
        before = stale();
        const std::string call_small = op.abi_name + "(workspaceSize - 1)";
        small_ws = second_call(call_small, workspace, ws - 1, ex);
        if (small_ws != 0) message_check(call_small, before, "workspaceSize");
      }
      add("ABI-TWOPHASE-3",
          null_ex == ACLNN_ERR_PARAM_NULLPTR && null_ws == ACLNN_ERR_PARAM_NULLPTR &&
              small_ws == ACLNN_ERR_PARAM_INVALID,
          fmt::format("phase two with executor NULL gave {}, workspace NULL gave {} (161001 "
                      "expected), workspaceSize too small gave {} (161002 expected)",
                      null_ex, null_ws, small_ws));
      ClauseScope twice("ABI-TWOPHASE-4");
      const aclnnStatus first = second_call(op.abi_name, workspace, ws, ex);
      if (first == 0) {
        before = stale();
        const std::string call_again = op.abi_name + "(the same executor a second time)";
        const aclnnStatus second = second_call(call_again, workspace, ws, ex);
        if (second != 0) message_check(call_again, before, "executor");
        add("ABI-TWOPHASE-4", second == ACLNN_ERR_PARAM_INVALID,
            fmt::format("running a released executor again gave {} (161002 expected)", second));
      }
      if (workspace) {
        synchronize(sut, op.abi_name);  // whatever was queued on it has ended
        ClauseScope runtime("ABI-RUNTIME-1");
        traced("aclrtFree(workspace)", [&] { return abi.free(workspace); });
      }
    }
  }
  // ABI-TWOPHASE-2, "before any op-specific check": the same NULLs on a call that also breaks
  // an op clause (its first input made DOUBLE, which no op accepts) still give 161001.
  {
    Case bad = c;
    TensorArg &first = bad.tensors.front().second;
    if (first.present) first = TensorArg::contiguous(aclnn_ref::DType::kFloat64, first.shape);
    bad.refresh_views();
    if (op.check(bad, {}).status == ACLNN_ERR_PARAM_INVALID) {
      Staged s(sut, bad);
      if (s.ok) {
        ClauseScope clause("ABI-TWOPHASE-2");
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        const aclnnStatus a = traced(ws_name + "(workspaceSize = NULL, a DOUBLE input)",
                                     [&] { return op.phase_one(abi, bad, s.ptrs, nullptr, &ex); });
        const aclnnStatus b = traced(ws_name + "(executor = NULL, a DOUBLE input)",
                                     [&] { return op.phase_one(abi, bad, s.ptrs, &ws, nullptr); });
        add("ABI-TWOPHASE-2", a == ACLNN_ERR_PARAM_NULLPTR && b == ACLNN_ERR_PARAM_NULLPTR,
            fmt::format("with a DOUBLE {} as well, phase one with workspaceSize NULL gave {}, with "
                        "executor NULL gave {} (expected 161001 both: the NULL check comes first)",
                        bad.tensors.front().first, a, b));
      }
    }
  }
  // ABI-TWOPHASE-4, "unless aclSetAclOpExecutorRepeatable was called on it": such an executor
  // runs again (where the library exports the call).
  if (abi.set_repeatable) {
    Staged s(sut, c);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    if (s.ok && traced(ws_name, [&] { return op.phase_one(abi, c, s.ptrs, &ws, &ex); }) == 0) {
      ClauseScope clause("ABI-TWOPHASE-4");
      const aclnnStatus rep =
          traced("aclSetAclOpExecutorRepeatable", [&] { return abi.set_repeatable(ex); });
      void *workspace = nullptr;
      if (ws > 0) {
        ClauseScope runtime("ABI-RUNTIME-1");
        traced("aclrtMalloc(workspace)",
               [&] { return abi.malloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST); });
      }
      aclnnStatus first = -1, second = -1;
      if (rep == 0 && (ws == 0 || workspace)) {
        first = second_call(op.abi_name + "(a repeatable executor)", workspace, ws, ex);
        second = second_call(op.abi_name + "(a repeatable executor, again)", workspace, ws, ex);
        if (abi.destroy_executor)
          traced("aclDestroyAclOpExecutor", [&] { return abi.destroy_executor(ex); });
      }
      add("ABI-TWOPHASE-4", rep == 0 && first == 0 && second == 0,
          fmt::format("aclSetAclOpExecutorRepeatable gave {}; the executor then ran with {} and "
                      "again with {} (0 expected each)",
                      rep, first, second));
      if (workspace) {
        synchronize(sut, op.abi_name);  // whatever was queued on it has ended
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
    // "Likewise aclCreateIntArray/aclCreateBoolArray": NULL values for a non-empty array.
    if (traced("aclCreateIntArray(NULL, 3)", [&] { return abi.create_int_array(nullptr, 3); }))
      refused_not += std::string(refused_not.empty() ? "" : ", ") + "aclCreateIntArray(NULL, 3)";
    if (traced("aclCreateBoolArray(NULL, 3)", [&] { return abi.create_bool_array(nullptr, 3); }))
      refused_not += std::string(refused_not.empty() ? "" : ", ") + "aclCreateBoolArray(NULL, 3)";
    add("ABI-TENSOR-1", refused_not.empty(), "accepted " + refused_not);
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
    const aclError over =
        alloc ? traced("aclrtMemcpy(count > destMax)",
                       [&] { return abi.memcpy(p, 96, host, 128, ACL_MEMCPY_HOST_TO_DEVICE); })
              : ACL_SUCCESS;
    add("ABI-RUNTIME-1", alloc && aligned && over != ACL_SUCCESS,
        "aclrtMalloc failed or was not 32-byte aligned, or aclrtMemcpy accepted count > destMax");
    // ABI-STATUS-1: that failure is ACL_ERROR_INVALID_PARAM (100000).
    if (alloc && over != ACL_SUCCESS)
      add("ABI-STATUS-1", over == ACL_ERROR_INVALID_PARAM,
          fmt::format("aclrtMemcpy with count > destMax gave {} (ACL_ERROR_INVALID_PARAM 100000 "
                      "expected)",
                      over));
    // All four copy kinds: host -> device -> device -> host -> host gives the bytes back.
    void *q = nullptr;
    if (alloc &&
        traced("aclrtMalloc", [&] { return abi.malloc(&q, 96, ACL_MEM_MALLOC_HUGE_FIRST); }) ==
            ACL_SUCCESS &&
        q) {
      char src[96], mid[96] = {}, dst[96] = {};
      for (int i = 0; i < 96; ++i) src[i] = static_cast<char>(i * 7 + 1);
      const aclError k1 = traced("aclrtMemcpy(HOST_TO_DEVICE)", [&] {
        return abi.memcpy(p, 96, src, 96, ACL_MEMCPY_HOST_TO_DEVICE);
      });
      const aclError k3 = traced("aclrtMemcpy(DEVICE_TO_DEVICE)", [&] {
        return abi.memcpy(q, 96, p, 96, ACL_MEMCPY_DEVICE_TO_DEVICE);
      });
      const aclError k2 = traced("aclrtMemcpy(DEVICE_TO_HOST)", [&] {
        return abi.memcpy(mid, 96, q, 96, ACL_MEMCPY_DEVICE_TO_HOST);
      });
      const aclError k0 = traced("aclrtMemcpy(HOST_TO_HOST)", [&] {
        return abi.memcpy(dst, 96, mid, 96, ACL_MEMCPY_HOST_TO_HOST);
      });
      add("ABI-RUNTIME-1",
          k0 == ACL_SUCCESS && k1 == ACL_SUCCESS && k2 == ACL_SUCCESS && k3 == ACL_SUCCESS &&
              std::memcmp(src, dst, sizeof src) == 0,
          fmt::format("aclrtMemcpy host->device {}, device->device {}, device->host {}, "
                      "host->host {} (0 expected each), or the bytes did not come back",
                      k1, k3, k2, k0));
      traced("aclrtFree", [&] { return abi.free(q); });
    }
    // A stream of its own: created, synchronised and destroyed with ACL_SUCCESS.
    aclrtStream stream = nullptr;
    const aclError created =
        traced("aclrtCreateStream", [&] { return abi.create_stream(&stream); });
    const aclError synced =
        created == ACL_SUCCESS && abi.synchronize_stream
            ? traced("aclrtSynchronizeStream", [&] { return abi.synchronize_stream(stream); })
            : created;
    const aclError destroyed =
        created == ACL_SUCCESS && abi.destroy_stream
            ? traced("aclrtDestroyStream", [&] { return abi.destroy_stream(stream); })
            : created;
    add("ABI-RUNTIME-1",
        created == ACL_SUCCESS && synced == ACL_SUCCESS && destroyed == ACL_SUCCESS &&
            abi.synchronize_stream && abi.destroy_stream,
        fmt::format("aclrtCreateStream gave {}, aclrtSynchronizeStream {}, aclrtDestroyStream {} "
                    "(0 expected each; a missing entry point counts as a failure)",
                    created, synced, destroyed));
    if (p) {
      const aclError freed = traced("aclrtFree", [&] { return abi.free(p); });
      add("ABI-RUNTIME-1", freed == ACL_SUCCESS,
          fmt::format("aclrtFree of a block from aclrtMalloc gave {}", freed));
    }
  }
  return r;
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
  for (const auto &[call, status] : {std::pair<std::string, aclError>{"aclrtDestroyStream", destroyed},
                                     {reset_call, reset},
                                     {"aclFinalize()", finalized}})
    if (status != ACL_SUCCESS)
      failed += fmt::format("{}{} failed with {}", failed.empty() ? "" : ", ", call, status);
  return {{"ABI-RUNTIME-1", failed.empty(),
           failed.empty() ? ""
                          : failed + " (the call examples' teardown: aclrtDestroyStream, "
                                     "aclrtResetDevice, aclFinalize; ACL_SUCCESS expected of each)"}};
}

}  // namespace aclnn_conform
