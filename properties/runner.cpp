#include "properties/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "properties/call_trace.hpp"

namespace aclnn_conform {

namespace {

int g_late_write_us = 0;
// The next successful call is checked (arm_late_write_check): a campaign arms each task's first
// call, so which calls are checked follows the tasks, not how they are spread over processes.
bool g_armed = false;

std::string recent_error_traced(const Sut &sut) {
  ClauseScope clause("ABI-ERRMSG-1");
  return traced("aclGetRecentErrMsg", [&] { return sut.recent_error(); });
}

// Out of memory on a device: ACL_ERROR_BAD_ALLOC (acl_base.h), the runtime's
// ACL_ERROR_RT_MEMORY_ALLOCATION (207001) and ACL_ERROR_RT_DEVIDE_OOM (207018, "device oom", the
// vendor's spelling; rt_error_codes.h) and ACL_ERROR_STORAGE_OVER_LIMIT.
constexpr int kRtDeviceOom = 207018;

}  // namespace

bool is_out_of_memory_status(int status) {
  return status == ACL_ERROR_BAD_ALLOC || status == ACL_ERROR_RT_MEMORY_ALLOCATION ||
         status == kRtDeviceOom || status == ACL_ERROR_STORAGE_OVER_LIMIT;
}

std::string device_health_check(const Sut &sut, bool &out_of_memory) {
  out_of_memory = false;
  const AbiTable &abi = sut.abi();
  // Not a clause's call: a death here is the device's (the campaign reads the call's name).
  ClauseScope clause("");
  void *p = nullptr;
  const aclError allocated = traced("device health check: aclrtMalloc",
                                    [&] { return abi.malloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST); });
  if (allocated != ACL_SUCCESS || !p) {
    out_of_memory = is_out_of_memory_status(allocated);
    return "aclrtMalloc(64 bytes) gave " + std::to_string(allocated);
  }
  unsigned char in[64], back[64] = {};
  for (int i = 0; i < 64; ++i) in[i] = static_cast<unsigned char>(i * 5 + 3);
  std::string problem;
  const aclError up = traced("device health check: aclrtMemcpy(host to device)",
                             [&] { return abi.memcpy(p, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE); });
  const aclError synced = abi.synchronize_stream
                              ? traced("device health check: aclrtSynchronizeStream",
                                       [&] { return abi.synchronize_stream(sut.stream()); })
                              : ACL_SUCCESS;
  const aclError down = traced("device health check: aclrtMemcpy(device to host)", [&] {
    return abi.memcpy(back, 64, p, 64, ACL_MEMCPY_DEVICE_TO_HOST);
  });
  if (up != ACL_SUCCESS)
    problem = "aclrtMemcpy host to device gave " + std::to_string(up);
  else if (synced != ACL_SUCCESS)
    problem = "aclrtSynchronizeStream gave " + std::to_string(synced);
  else if (down != ACL_SUCCESS)
    problem = "aclrtMemcpy device to host gave " + std::to_string(down);
  else if (std::memcmp(in, back, sizeof in) != 0)
    problem = "64 bytes copied to the device and back came back different";
  traced("device health check: aclrtFree", [&] { return abi.free(p); });
  return problem;
}

void set_late_write_check(int microseconds) {
  g_late_write_us = microseconds;
}

void arm_late_write_check() {
  g_armed = true;
}

std::vector<std::vector<std::byte>> output_storage(const OpDescriptor &op, const Case &c,
                                                   const Outcome &o) {
  std::vector<std::vector<std::byte>> out;
  for (size_t i = 0; i < c.tensors.size(); ++i)
    for (const auto &name : op.outputs)
      if (c.tensors[i].first == name) out.push_back(o.storage_after[i]);
  return out;
}

Outcome run_case(const Sut &sut, const OpDescriptor &op, const Case &c, const RunOptions &options) {
  Outcome out;
  // The built-in library emulates the product named by ACLNN_CPU_SOC; other SUTs ignore it.
  setenv("ACLNN_CPU_SOC", std::string(product_name(c.product)).c_str(), 1);
  long long case_bytes = 0;
  for (const auto &[name, t] : c.tensors) case_bytes += static_cast<long long>(t.storage.size());
  set_case_bytes(case_bytes);
  std::vector<std::unique_ptr<StagedTensor>> staged;
  std::vector<aclTensor *> tensors;
  for (const auto &[name, t] : c.tensors) {
    const Alias *alias = c.alias_of(name);
    size_t base = 0;
    while (alias && base < staged.size() && c.tensors[base].first != alias->input) ++base;
    if (alias && base < staged.size())  // in-place: the output is the staged input's view
      staged.push_back(std::make_unique<StagedTensor>(sut, *staged[base], t, options.format,
                                                      alias->same_handle));
    else
      staged.push_back(std::make_unique<StagedTensor>(sut, t, options.format));
    if (!staged.back()->ok()) {
      out.harness_error = true;
      out.harness_message = name + ": " + staged.back()->error();
      out.harness_status = staged.back()->runtime_status();
      return out;
    }
    tensors.push_back(staged.back()->tensor());
  }
  uint64_t workspace_size = 0;
  aclOpExecutor *executor = nullptr;
  // ABI-ERRMSG-1 is judged per call: reading the message now makes whatever an earlier call left
  // stale, so a message after this call's failure must be its own (see judge.cpp).
  out.message_before = recent_error_traced(sut);
  out.status = traced(op.abi_name + "GetWorkspaceSize", [&] {
    return op.phase_one(sut.abi(), c, tensors, &workspace_size, &executor);
  });
  if (out.status != 0) {
    out.phase = 1;
    out.message = recent_error_traced(sut);
  } else {
    out.workspace_size = workspace_size;
    // The workspace gets guard regions too: a kernel that uses more than it asked for is caught
    // (ABI-INPUT-1), not left to damage the heap quietly.
    void *block = nullptr, *workspace = nullptr;
    // The guard after the workspace is as large as the workspace (up to 64 MiB) plus kGuardBytes:
    // a kernel that uses up to twice what it asked for writes into the guard, where it is seen,
    // not into the heap's own records (which would crash the worker at free, blaming the runtime).
    const size_t back_guard = kGuardBytes + std::min<size_t>(workspace_size, size_t{1} << 26);
    const size_t guarded = workspace_size > 0 ? workspace_size + kGuardBytes + back_guard : 0;
    if (workspace_size > 0) {
      ClauseScope runtime_clause("ABI-RUNTIME-1");
      const std::vector<std::byte> canary(back_guard, kCanary);
      const aclError allocated = traced("aclrtMalloc(workspace)", [&] {
        return sut.abi().malloc(&block, guarded, ACL_MEM_MALLOC_HUGE_FIRST);
      });
      if (allocated != ACL_SUCCESS || !block) {
        out.harness_error = true;
        out.harness_message =
            "aclrtMalloc of the workspace failed with " + std::to_string(allocated);
        out.harness_status = allocated != ACL_SUCCESS ? allocated : -1;
        return out;
      }
      workspace = static_cast<std::byte *>(block) + kGuardBytes;
      traced("aclrtMemcpy(workspace guards)", [&] {
        sut.abi().memcpy(block, kGuardBytes, canary.data(), kGuardBytes, ACL_MEMCPY_HOST_TO_DEVICE);
        return sut.abi().memcpy(static_cast<std::byte *>(workspace) + workspace_size, back_guard,
                                canary.data(), back_guard, ACL_MEMCPY_HOST_TO_DEVICE);
      });
    }
    out.status = traced(op.abi_name, [&] {
      return op.phase_two(sut.abi(), workspace, workspace_size, executor, sut.stream());
    });
    if (out.status != 0) {
      out.phase = 2;
      out.message = recent_error_traced(sut);
    }
    // On a device the second call only enqueues the op: outputs, guards and some errors appear
    // at the synchronize, which belongs to the op's call (its hang is the op's hang).
    if (sut.abi().synchronize_stream) {
      const aclError synced = traced(op.abi_name + " (aclrtSynchronizeStream)",
                                     [&] { return sut.abi().synchronize_stream(sut.stream()); });
      if (synced != ACL_SUCCESS && out.status == 0) {
        out.status = synced;
        out.phase = 2;
        out.sync_failed = true;
        out.message = recent_error_traced(sut);
      }
    }
    if (block) {
      ClauseScope runtime_clause("ABI-RUNTIME-1");
      std::vector<std::byte> front(kGuardBytes), back(back_guard);
      traced("aclrtMemcpy(workspace guards back)", [&] {
        sut.abi().memcpy(front.data(), kGuardBytes, block, kGuardBytes, ACL_MEMCPY_DEVICE_TO_HOST);
        return sut.abi().memcpy(back.data(), back_guard,
                                static_cast<std::byte *>(workspace) + workspace_size, back_guard,
                                ACL_MEMCPY_DEVICE_TO_HOST);
      });
      for (size_t i = 0; i < kGuardBytes; ++i)
        if (front[i] != kCanary) out.workspace_guards_intact = false;
      for (size_t i = 0; i < back_guard; ++i)
        if (back[i] != kCanary) out.workspace_guards_intact = false;
      traced("aclrtFree(workspace)", [&] { return sut.abi().free(block); });
    }
  }
  for (const auto &s : staged) {
    bool intact = true;
    int copied = 0;
    out.storage_after.push_back(s->read_storage(intact, copied));
    out.guards_intact.push_back(intact);
    if (copied != ACL_SUCCESS && !out.harness_error) {
      out.harness_error = true;
      out.harness_message = "aclrtMemcpy device to host failed with " + std::to_string(copied);
      out.harness_status = copied;
    }
  }
  const bool checked = g_armed && out.status == 0 && out.phase == 0 && !out.harness_error;
  if (checked) g_armed = false;
  if (g_late_write_us > 0 && checked) {
    // The call has returned and the stream is synchronised: nothing may change any more.
    std::this_thread::sleep_for(std::chrono::microseconds(g_late_write_us));
    for (size_t i = 0; i < staged.size(); ++i) {
      bool intact = true;
      int copied = 0;
      const auto again = staged[i]->read_storage(intact, copied);
      const auto &first = out.storage_after[i];
      int64_t changed = -1;
      for (size_t b = 0; b < std::min(again.size(), first.size()) && changed < 0; ++b)
        if (again[b] != first[b]) changed = static_cast<int64_t>(b);
      if (changed < 0 && intact != out.guards_intact[i]) changed = 0;
      out.changed_after_return.push_back(changed);
    }
  }
  return out;
}

}  // namespace aclnn_conform
