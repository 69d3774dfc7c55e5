// libopapi: the aclnn ops of ops.def. Phase one is the inner library's (after the gate and the
// first-call delay), and what it made is recorded; phase two goes through devemu::launch.
#include <utility>
#include <vector>

#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "tests/device/devemu.hpp"

namespace {

// The tensors among a phase one's arguments (what its kernel will read and write).
using Tensors = std::vector<const aclTensor *>;
void add(Tensors &v, const aclTensor *t) {
  v.push_back(t);
}
void add(Tensors &v, aclTensor *t) {
  v.push_back(t);
}
template <typename T>
void add(Tensors &, const T &) {}
template <typename... A>
Tensors tensor_args(const A &...a) {
  Tensors v;
  (add(v, a), ...);
  return v;
}

template <typename Forward>
aclnnStatus phase_one(const char *op, const char *api, Forward forward, const Tensors &tensors,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
  if (aclError e = devemu::enter(api, devemu::Need::kDevice)) return e;
  devemu::first_call(op, tensors);
  devemu::forwarding();
  const aclnnStatus s = forward();
  if (s == ACLNN_SUCCESS && executor != nullptr && *executor != nullptr)
    devemu::executor_created(*executor, op, workspaceSize != nullptr ? *workspaceSize : 0, tensors);
  return s;
}

}  // namespace

extern "C" {

#define DEVEMU_OP(Name, Params, Args)                                                              \
  ACLNN_API aclnnStatus aclnn##Name##GetWorkspaceSize Params {                                     \
    static const auto real =                                                                       \
        devemu::inner<decltype(&aclnn##Name##GetWorkspaceSize)>("aclnn" #Name "GetWorkspaceSize"); \
    return phase_one(                                                                              \
        "aclnn" #Name, "aclnn" #Name "GetWorkspaceSize", [&] { return real Args; },                \
        tensor_args Args, workspaceSize, executor);                                                \
  }                                                                                                \
  ACLNN_API aclnnStatus aclnn##Name(void *workspace, uint64_t workspaceSize,                       \
                                    aclOpExecutor *executor, aclrtStream stream) {                 \
    static const auto real = devemu::inner<decltype(&aclnn##Name)>("aclnn" #Name);                 \
    return devemu::launch("aclnn" #Name, workspace, workspaceSize, executor, stream, real);        \
  }
#include "tests/device/ops.def"
#undef DEVEMU_OP

}  // extern "C"
