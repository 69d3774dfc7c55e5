// libascendcl: what the upper libraries record of tensors and executors, phase two's host-side
// checks (`stream`: the spec's ABI-TWOPHASE-3/4 codes) and the kernel's hand-off, first calls.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "tests/device/state.hpp"

namespace devemu {
namespace {

struct TensorInfo {
  std::shared_ptr<void> allocation;
  std::string host_memory;
};
struct ExecutorInfo {
  std::string op;
  uint64_t workspace_size = 0;
  bool repeatable = false;
  std::vector<std::shared_ptr<void>> keep;  // the tensors' allocations
  std::string host_memory;                  // a tensor on host memory, described
  bool queued = false;                      // it ran on a stream (`stream`)...
  aclrtStream last_stream = nullptr;        // ...this one (NULL: the default stream)
};

// Registries, under state_mutex; never destroyed.
std::unordered_map<const aclTensor *, TensorInfo> &tensors() {
  static auto *m = new std::unordered_map<const aclTensor *, TensorInfo>;
  return *m;
}
std::unordered_map<aclOpExecutor *, ExecutorInfo> &executors() {
  static auto *m = new std::unordered_map<aclOpExecutor *, ExecutorInfo>;
  return *m;
}
// Executors that ran once (not repeatable) or were destroyed, bounded like the built-in's
// quarantine: running one again is 161002, not "unknown".
struct Spent {
  std::unordered_set<aclOpExecutor *> set;
  std::deque<aclOpExecutor *> order;
  void add(aclOpExecutor *e) {
    if (!set.insert(e).second) return;
    order.push_back(e);
    if (order.size() > 4096) {
      set.erase(order.front());
      order.pop_front();
    }
  }
};
Spent &spent() {
  static auto *s = new Spent;
  return *s;
}

}  // namespace

void tensor_created(const aclTensor *t, std::shared_ptr<void> allocation, std::string host_memory) {
  if (t == nullptr || (!allocation && host_memory.empty())) return;
  std::lock_guard lock(state_mutex());
  tensors()[t] = TensorInfo{std::move(allocation), std::move(host_memory)};
}

void tensor_destroyed(const aclTensor *t) {
  std::lock_guard lock(state_mutex());
  tensors().erase(t);
}

void executor_created(aclOpExecutor *e, const char *op, uint64_t workspace_size,
                      const std::vector<const aclTensor *> &args) {
  ExecutorInfo info;
  info.op = op;
  info.workspace_size = workspace_size;
  std::lock_guard lock(state_mutex());
  for (const aclTensor *t : args) {
    auto it = t != nullptr ? tensors().find(t) : tensors().end();
    if (it == tensors().end()) continue;
    if (it->second.allocation) info.keep.push_back(it->second.allocation);
    if (info.host_memory.empty()) info.host_memory = it->second.host_memory;
  }
  spent().set.erase(e);  // the inner library reused the address
  executors()[e] = std::move(info);
}

void executor_repeatable(aclOpExecutor *e) {
  std::lock_guard lock(state_mutex());
  if (auto it = executors().find(e); it != executors().end()) it->second.repeatable = true;
}

aclnnStatus executor_destroy(aclOpExecutor *e, aclnnStatus (*destroy)(aclOpExecutor *)) {
  bool queued = false;
  aclrtStream pending = nullptr;
  {
    std::lock_guard lock(state_mutex());
    if (auto it = executors().find(e); it != executors().end()) {
      queued = it->second.queued;
      pending = it->second.last_stream;
      executors().erase(it);
      spent().add(e);
    }
  }
  // `stream`: a run of it may still be queued; the destroy goes behind it, as on a device.
  if (queued && enqueue_host_task(pending, [e, destroy] { destroy(e); })) return ACLNN_SUCCESS;
  forwarding();
  return destroy(e);
}

aclnnStatus launch(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                   aclrtStream stream, PhaseTwo inner_phase_two) {
  if (aclError e = enter(op, Need::kDevice)) return e;
  const Config &c = config();
  Kernel k;
  k.op = op;
  if (c.stream) {
    // What the host can check before anything is queued (ABI-TWOPHASE-3/4).
    if (aclError e = check_stream(stream, op)) return e;
    std::lock_guard lock(state_mutex());
    if (executor == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR,
                  fmt::format("{}: executor is NULL (status {})", op, ACLNN_ERR_PARAM_NULLPTR));
    if (spent().set.count(executor))
      return fail(ACLNN_ERR_PARAM_INVALID,
                  fmt::format("{}: executor is not live: it has already run (and was not made "
                              "repeatable) or was destroyed (status {})",
                              op, ACLNN_ERR_PARAM_INVALID));
    auto it = executors().find(executor);
    if (it == executors().end())
      return fail(ACLNN_ERR_PARAM_NULLPTR,
                  fmt::format("{}: executor {} was not made by a phase one (status {})", op,
                              static_cast<void *>(executor), ACLNN_ERR_PARAM_NULLPTR));
    ExecutorInfo &info = it->second;
    if (info.op != op)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  fmt::format("{}: executor was built by {}, not by {} (status {})", op, info.op,
                              op, ACLNN_ERR_PARAM_INVALID));
    if (workspaceSize < info.workspace_size)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  fmt::format("{}: workspaceSize {} is smaller than the {} bytes phase one asked "
                              "for (status {})",
                              op, workspaceSize, info.workspace_size, ACLNN_ERR_PARAM_INVALID));
    if (workspaceSize > 0 && workspace == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR,
                  fmt::format("{}: workspace is NULL but workspaceSize is {} (status {})", op,
                              workspaceSize, ACLNN_ERR_PARAM_NULLPTR));
    k.keep = info.keep;
    k.host_memory = info.host_memory;
    if (info.repeatable) {
      info.queued = true;
      info.last_stream = stream;
    } else {
      executors().erase(it);
      spent().add(executor);
    }
  } else {
    std::lock_guard lock(state_mutex());
    if (auto it = executors().find(executor); it != executors().end()) {
      k.keep = it->second.keep;
      k.host_memory = it->second.host_memory;
    }
  }
  void *ws = workspace;
  if (c.memory && workspace != nullptr) {
    std::shared_ptr<void> a;
    std::string host;
    ws = tensor_data(workspace, &a, &host);
    if (a) k.keep.push_back(std::move(a));
    if (!host.empty() && k.host_memory.empty())
      k.host_memory = fmt::format("workspace {} is host memory, not from aclrtMalloc", workspace);
  }
  void *inner_s = inner_stream(stream);
  k.run = [=] { return inner_phase_two(ws, workspaceSize, executor, inner_s); };
  const aclnnStatus status = submit(stream, std::move(k));
  if (!c.stream && status == ACLNN_SUCCESS) {
    std::lock_guard lock(state_mutex());
    if (auto it = executors().find(executor); it != executors().end() && !it->second.repeatable)
      executors().erase(it);
  }
  return status;
}

namespace {
std::mutex &load_mutex() {
  static auto *m = new std::mutex;
  return *m;
}
std::set<std::string> &loaded() {  // under load_mutex
  static auto *s = new std::set<std::string>;
  return *s;
}
}  // namespace

void first_call(const char *op, const std::vector<const aclTensor *> &tensors) {
  const Config &c = config();
  if (!c.first_call) return;
  // Per op (default), or per op and dtype list: a kernel binary per dtype, loaded on first use.
  static const bool per_dtype = [] {
    const char *per = std::getenv("ACLNN_DEVEMU_FIRST_CALL_PER");
    return per != nullptr && std::string(per) == "dtype";
  }();
  std::string kernel = op;
  if (per_dtype)
    for (const aclTensor *t : tensors) {
      // The inner library's getter: the handles are its own (libascendcl does not link nnopbase).
      static const auto get_dtype = inner<decltype(&aclGetDataType)>("aclGetDataType");
      aclDataType dtype = ACL_DT_UNDEFINED;
      if (t != nullptr) get_dtype(t, &dtype);
      kernel += " " + std::to_string(t != nullptr ? static_cast<int>(dtype) : -1);
    }
  std::lock_guard lock(load_mutex());  // a second caller waits for the load, as for a kernel
  if (loaded().insert(kernel).second && c.first_call_ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(c.first_call_ms));
}

uint64_t kernels_loaded() {
  std::lock_guard lock(load_mutex());
  return loaded().size();
}

}  // namespace devemu
