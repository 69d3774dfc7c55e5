#include "properties/runner.hpp"

#include <cstdlib>
#include <memory>

namespace aclnn_conform {

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
  out.status = op.phase_one(sut.abi(), c, tensors, &workspace_size, &executor);
  if (out.status != 0) {
    out.phase = 1;
    out.message = sut.recent_error();
  } else {
    out.workspace_size = workspace_size;
    void *workspace = nullptr;
    if (workspace_size > 0 &&
        sut.abi().malloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      out.harness_error = true;
      out.harness_message = "aclrtMalloc of the workspace failed";
      return out;
    }
    out.status = op.phase_two(sut.abi(), workspace, workspace_size, executor, sut.stream());
    if (out.status != 0) {
      out.phase = 2;
      out.message = sut.recent_error();
    }
    if (sut.abi().synchronize_stream) sut.abi().synchronize_stream(sut.stream());
    if (workspace) sut.abi().free(workspace);
  }
  for (const auto &s : staged) {
    bool intact = true;
    out.storage_after.push_back(s->read_storage(intact));
    out.guards_intact.push_back(intact);
  }
  return out;
}

}  // namespace aclnn_conform
