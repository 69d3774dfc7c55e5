#include "properties/runner.hpp"

#include <cstdlib>
#include <memory>

#include "properties/call_trace.hpp"

namespace aclnn_conform {

namespace {

std::string recent_error_traced(const Sut &sut) {
  ClauseScope clause("ABI-ERRMSG-1");
  return traced("aclGetRecentErrMsg", [&] { return sut.recent_error(); });
}

}  // namespace

Outcome run_case(const Sut &sut, const OpDescriptor &op, const Case &c, const RunOptions &options) {
  Outcome out;
  // The built-in library emulates the product named by ACLNN_CPU_SOC; other SUTs ignore it.
  setenv("ACLNN_CPU_SOC", std::string(product_name(c.product)).c_str(), 1);
  std::vector<std::unique_ptr<StagedTensor>> staged;
  std::vector<aclTensor *> tensors;
  for (const auto &[name, t] : c.tensors) {
    staged.push_back(std::make_unique<StagedTensor>(sut, t, options.format));
    if (!staged.back()->ok()) {
      out.harness_error = true;
      out.harness_message = name + ": " + staged.back()->error();
      return out;
    }
    tensors.push_back(staged.back()->tensor());
  }
  uint64_t workspace_size = 0;
  aclOpExecutor *executor = nullptr;
  // ABI-ERRMSG-1 is judged per call: reading the message now makes whatever an earlier call left
  // stale, so a message after this call's failure must be its own (see judge.cpp).
  out.message_before = recent_error_traced(sut);
  out.status = traced(op.abi_name + "GetWorkspaceSize",
                      [&] { return op.phase_one(sut.abi(), c, tensors, &workspace_size, &executor); });
  if (out.status != 0) {
    out.phase = 1;
    out.message = recent_error_traced(sut);
  } else {
    out.workspace_size = workspace_size;
    void *workspace = nullptr;
    if (workspace_size > 0) {
      ClauseScope runtime_clause("ABI-RUNTIME-1");
      if (traced("aclrtMalloc(workspace)", [&] {
            return sut.abi().malloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
          }) != ACL_SUCCESS) {
        out.harness_error = true;
        out.harness_message = "aclrtMalloc of the workspace failed";
        return out;
      }
    }
    out.status = traced(op.abi_name, [&] {
      return op.phase_two(sut.abi(), workspace, workspace_size, executor, sut.stream());
    });
    if (out.status != 0) {
      out.phase = 2;
      out.message = recent_error_traced(sut);
    }
    if (sut.abi().synchronize_stream)
      traced("aclrtSynchronizeStream",
             [&] { return sut.abi().synchronize_stream(sut.stream()); });
    if (workspace) {
      ClauseScope runtime_clause("ABI-RUNTIME-1");
      traced("aclrtFree(workspace)", [&] { return sut.abi().free(workspace); });
    }
  }
  for (const auto &s : staged) {
    bool intact = true;
    out.storage_after.push_back(s->read_storage(intact));
    out.guards_intact.push_back(intact);
  }
  return out;
}

}  // namespace aclnn_conform
