#include "impl/executor.hpp"

#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_set>

#include "impl/status.hpp"

namespace aclnn_cpu {
namespace {

// Live executors. Released ones are parked (payload freed) in a bounded quarantine before their
// memory is returned, so that running a released executor again is reported, not a crash
// (ABI-TWOPHASE-4): its address cannot belong to a new executor while it is parked.
struct Registry {
  std::mutex mutex;
  std::unordered_set<aclOpExecutor *> live;
  std::deque<aclOpExecutor *> quarantine;
  static constexpr size_t kQuarantine = 4096;

  void release(aclOpExecutor *e) {  // called with mutex held
    live.erase(e);
    e->run = nullptr;
    quarantine.push_back(e);
    if (quarantine.size() > kQuarantine) {
      delete quarantine.front();
      quarantine.pop_front();
    }
  }
};
Registry &registry() {
  static Registry *r = new Registry;  // never destroyed: executors may outlive static teardown
  return *r;
}

}  // namespace

aclnnStatus publish_executor_with_status(const char *op, uint64_t workspace_size,
                                         std::function<aclnnStatus(void *)> run,
                                         uint64_t *workspaceSize, aclOpExecutor **executor) {
  std::unique_ptr<aclOpExecutor> e;
  try {
    e = std::make_unique<aclOpExecutor>();
  } catch (const std::bad_alloc &) {
    return fail(ACLNN_ERR_INNER_CREATE_EXECUTOR, op, "out of memory creating the executor");
  }
  e->run = std::move(run);
  e->workspace_size = workspace_size;
  e->op = op;
  auto &r = registry();
  {
    std::lock_guard lock(r.mutex);
    r.live.insert(e.get());
  }
  *workspaceSize = workspace_size;
  *executor = e.release();
  return ACLNN_SUCCESS;
}

aclnnStatus publish_executor(const char *op, uint64_t workspace_size,
                             std::function<void(void *)> run, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
  return publish_executor_with_status(
      op, workspace_size,
      [run = std::move(run)](void *workspace) {
        run(workspace);
        return ACLNN_SUCCESS;
      },
      workspaceSize, executor);
}

aclnnStatus run_executor(const char *op, void *workspace, uint64_t workspaceSize,
                         aclOpExecutor *executor) {
  // Out of memory (copying the plan, a plan's buffers, a table built at first use; parallel_for
  // rethrows a worker's exception here) comes back as an inner error.
  return guard_abi(op, [&] {
    if (executor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "executor is NULL");
    auto &r = registry();
    std::function<aclnnStatus(void *)> run;
    {
      std::lock_guard lock(r.mutex);
      if (r.live.count(executor) == 0)
        return fail(ACLNN_ERR_PARAM_INVALID, op,
                    "executor is not live: it has already run (and was not made repeatable) or "
                    "was destroyed");
      if (std::string_view(executor->op) != op)
        return fail(ACLNN_ERR_PARAM_INVALID, op, "executor was built by {}, not by {}",
                    executor->op, op);
      if (workspaceSize < executor->workspace_size)
        return fail(ACLNN_ERR_PARAM_INVALID, op,
                    "workspaceSize {} is smaller than the {} bytes phase one asked for",
                    workspaceSize, executor->workspace_size);
      if (workspaceSize > 0 && workspace == nullptr)
        return fail(ACLNN_ERR_PARAM_NULLPTR, op, "workspace is NULL but workspaceSize is {}",
                    workspaceSize);
      run = executor->repeatable ? executor->run : std::move(executor->run);
      if (!executor->repeatable) r.release(executor);
    }
    return run(workspace);
  });
}

}  // namespace aclnn_cpu

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
  auto &r = aclnn_cpu::registry();
  std::lock_guard lock(r.mutex);
  if (executor == nullptr || r.live.count(executor) == 0)
    return aclnn_cpu::fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable",
                           "executor is NULL or not live");
  executor->repeatable = true;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
  auto &r = aclnn_cpu::registry();
  std::lock_guard lock(r.mutex);
  if (executor == nullptr || r.live.count(executor) == 0)
    return aclnn_cpu::fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor",
                           "executor is NULL or not live");
  r.release(executor);
  return ACLNN_SUCCESS;
}

}  // extern "C"
