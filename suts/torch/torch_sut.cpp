// libaclnn_torch.so: the aclnn ABI (vendor names and signatures, include/) implemented with
// PyTorch's CPU kernels, as a real third-party system under test for aclnn-conform.
//
// Nothing here reimplements the specification's checks. The tensor/array objects, the host runtime,
// the executors and the recent error text are the project's one implementation of them (impl/'s
// host runtime objects, linked in); this file owns only what PyTorch lacks: NULL pointers
// (161001) and the mapping of vendor dtypes onto PyTorch's. Everything else is PyTorch's: phase one runs the
// kernel once on the staged data (the result is discarded, and the copy into the output is tried
// on a scratch tensor of the output's layout), so whatever PyTorch refuses is refused in phase one
// as 161002 with PyTorch's message; phase two runs the kernel again and copies the result into
// the output view with Tensor::copy_.
//
// Kernels:  GeluBackward        at::gelu_backward(dy, x, "none")
//           SeluBackward        at::elu_backward(dy, alpha=α, scale=λ, input_scale=1,
//                                                is_result=true, y)
//           LayerNormBackward   at::native_layer_norm_backward (mean/rstd reshaped to the
//                               [A1..Ai, 1..1] shape PyTorch's forward produces)
//           LogitGrad           at::logit_backward(dy, x, eps) (eps always passed; eps < 0 is
//                               PyTorch's "no clamping")
//           GroupedBiasAddGrad  with groupIdx: at::segment_reduce(gradY, "sum", axis 0) with
//                               offsets = [0, groupIdx...] (type 0) or lengths = groupIdx (type 1);
//                               without: at::sum(gradY, {1}).
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "impl/dtype.hpp"
#include "impl/executor.hpp"
#include "impl/status.hpp"
#include "impl/tensor.hpp"

namespace {

// The message recorded for aclGetRecentErrMsg() (impl/status.hpp), and code.
aclnnStatus fail(aclnnStatus code, const char *op, const std::string &what) {
  return aclnn_cpu::fail(code, op, "{}", what);
}

// Element size of a vendor dtype (0: one the host runtime does not hold).
size_t esize(aclDataType t) { return aclnn_cpu::dtype_size(t); }

std::optional<at::ScalarType> scalar_type(aclDataType t) {
  switch (t) {
    case ACL_FLOAT: return at::kFloat;
    case ACL_FLOAT16: return at::kHalf;
    case ACL_BF16: return at::kBFloat16;
    case ACL_DOUBLE: return at::kDouble;
    case ACL_INT8: return at::kChar;
    case ACL_UINT8: return at::kByte;
    case ACL_INT16: return at::kShort;
    case ACL_INT32: return at::kInt;
    case ACL_INT64: return at::kLong;
    case ACL_BOOL: return at::kBool;
    case ACL_COMPLEX32: return at::kComplexHalf;
    case ACL_COMPLEX64: return at::kComplexFloat;
    case ACL_COMPLEX128: return at::kComplexDouble;
    default: return std::nullopt;  // UINT16/32/64, STRING, INT4, UINT1: no PyTorch dtype
  }
}

// Thrown where a vendor dtype has no PyTorch equivalent (reported as 161002).
struct NoTorchDtype {
  std::string message;
};

// A copy of a tensor's description, taken in phase one (callers may destroy their aclTensor
// objects before phase two).
struct View {
  aclTensor t;
  // The tensor as PyTorch sees it: exactly the given view over the caller's memory.
  at::Tensor torch() const {
    const auto st = scalar_type(t.dtype);
    if (!st)
      throw NoTorchDtype{"dtype " + std::to_string(static_cast<int>(t.dtype)) +
                         " has no PyTorch equivalent"};
    char *base = static_cast<char *>(t.data) + t.offset * static_cast<int64_t>(esize(t.dtype));
    return at::from_blob(base, t.view_dims, t.strides, at::TensorOptions().dtype(*st));
  }
  // Phase one: a scratch tensor with the output's layout, so that copy_ is tried (broadcast,
  // casting, internal-overlap checks) without writing the caller's output.
  at::Tensor probe() const {
    const at::Tensor real = torch();
    return at::empty_strided(real.sizes(), real.strides(), real.options());
  }
};

std::optional<View> view_of(const aclTensor *t) {
  if (t == nullptr) return std::nullopt;
  return View{*t};
}

// Phase one's common end: tries the plan once (probe = true), maps PyTorch's refusal to 161002,
// and publishes an executor whose phase two runs it for real.
aclnnStatus plan(const char *op, std::function<void(bool probe)> body, uint64_t *workspaceSize,
                 aclOpExecutor **executor) {
  try {
    c10::InferenceMode guard;
    body(true);
  } catch (const NoTorchDtype &e) {
    return fail(ACLNN_ERR_PARAM_INVALID, op, e.message);
  } catch (const c10::Error &e) {
    return fail(ACLNN_ERR_PARAM_INVALID, op, e.what_without_backtrace());
  } catch (const std::bad_alloc &) {
    return fail(ACLNN_ERR_INNER, op, "out of memory");
  } catch (const std::exception &e) {
    return fail(ACLNN_ERR_PARAM_INVALID, op, e.what());
  }
  // Phase two runs the plan for real, PyTorch's refusals mapped as in phase one.
  return aclnn_cpu::publish_executor_with_status(
      op, 0,
      [op, body = std::move(body)](void *) -> aclnnStatus {
        try {
          c10::InferenceMode guard;
          body(false);
        } catch (const NoTorchDtype &e) {
          return fail(ACLNN_ERR_PARAM_INVALID, op, e.message);
        } catch (const c10::Error &e) {
          return fail(ACLNN_ERR_PARAM_INVALID, op, e.what_without_backtrace());
        } catch (const std::exception &e) {
          return fail(ACLNN_ERR_INNER, op, e.what());
        }
        return ACLNN_SUCCESS;
      },
      workspaceSize, executor);
}

aclnnStatus run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) {
  return aclnn_cpu::run_executor(op, workspace, workspaceSize, executor);
}

// out.copy_(result), or on the probe in phase one.
void store(const View &out, const at::Tensor &result, bool probe) {
  at::Tensor dst = probe ? out.probe() : out.torch();
  dst.copy_(result);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The host runtime, tensors, arrays, executors and aclGetRecentErrMsg: impl/'s host runtime
// objects (runtime.cpp, tensor.cpp, executor.cpp, status.cpp), linked in.

extern "C" {

// ---------------------------------------------------------------------------------------------
// Ops.

#define TORCH_SUT_NULL_OUTPUTS(op)                                                      \
  if (workspaceSize == nullptr || executor == nullptr)                                  \
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, "workspaceSize or executor is NULL");

aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *gradInput,
                                              uint64_t *workspaceSize, aclOpExecutor **executor) {
  static const char *op = "aclnnGeluBackward";
  TORCH_SUT_NULL_OUTPUTS(op)
  if (!gradOutput || !self || !gradInput)
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, "gradOutput, self or gradInput is NULL");
  auto body = [dy = View{*gradOutput}, x = View{*self}, out = View{*gradInput}](bool probe) {
    store(out, at::gelu_backward(dy.torch(), x.torch(), "none"), probe);
  };
  return plan(op, body, workspaceSize, executor);
}
aclnnStatus aclnnGeluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              aclrtStream) {
  return run("aclnnGeluBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *result,
                                              aclTensor *gradInput, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
  static const char *op = "aclnnSeluBackward";
  TORCH_SUT_NULL_OUTPUTS(op)
  if (!gradOutput || !result || !gradInput)
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, "gradOutput, result or gradInput is NULL");
  auto body = [dy = View{*gradOutput}, y = View{*result}, out = View{*gradInput}](bool probe) {
    // torch.nn.functional.selu's constants, as in PyTorch's own selu derivative.
    constexpr double kAlpha = 1.6732632423543772848170429916717;
    constexpr double kScale = 1.0507009873554804934193349852946;
    store(out, at::elu_backward(dy.torch(), kAlpha, kScale, 1.0, /*is_result=*/true, y.torch()),
          probe);
  };
  return plan(op, body, workspaceSize, executor);
}
aclnnStatus aclnnSeluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              aclrtStream) {
  return run("aclnnSeluBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  static const char *op = "aclnnLayerNormBackward";
  TORCH_SUT_NULL_OUTPUTS(op)
  if (!gradOut || !input || !normalizedShape || !mean || !rstd || !outputMask)
    return fail(ACLNN_ERR_PARAM_NULLPTR, op,
                "gradOut, input, normalizedShape, mean, rstd or outputMask is NULL");
  // PyTorch's output_mask is a bool[3]: nothing else can be passed on.
  if (outputMask->values.size() != 3)
    return fail(ACLNN_ERR_PARAM_INVALID, op, "outputMask must have 3 elements (PyTorch's bool[3])");
  const std::array<bool, 3> mask{outputMask->values[0], outputMask->values[1], outputMask->values[2]};
  const aclTensor *outs[3] = {gradInputOut, gradWeightOut, gradBiasOut};
  for (int i = 0; i < 3; ++i)
    if (mask[i] && outs[i] == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, op,
                  "an output requested by outputMask is NULL (" +
                      std::string(i == 0 ? "gradInputOut" : i == 1 ? "gradWeightOut"
                                                                   : "gradBiasOut") +
                      ")");
  auto body = [dy = View{*gradOut}, x = View{*input}, ns = normalizedShape->values, mu = View{*mean},
               rs = View{*rstd}, w = view_of(weightOptional), b = view_of(biasOptional), mask,
               o0 = view_of(gradInputOut), o1 = view_of(gradWeightOut),
               o2 = view_of(gradBiasOut)](bool probe) {
    const at::Tensor xt = x.torch();
    at::Tensor mean_t = mu.torch(), rstd_t = rs.torch();
    // PyTorch's forward returns mean/rstd of shape [A1..Ai, 1..1] (contiguous); its backward
    // reads them as such. Where the normalized dims do not fit input, PyTorch's own check fires
    // first and the statistics are passed unchanged.
    const int64_t axis = xt.dim() - static_cast<int64_t>(ns.size());
    if (axis >= 0) {
      std::vector<int64_t> stat(xt.sizes().begin(), xt.sizes().begin() + axis);
      stat.resize(static_cast<size_t>(xt.dim()), 1);
      mean_t = mean_t.reshape(stat).contiguous();
      rstd_t = rstd_t.reshape(stat).contiguous();
    }
    c10::optional<at::Tensor> wt, bt;
    if (w) wt = w->torch();
    if (b) bt = b->torch();
    // PyTorch's autograd never asks for a gradient of an absent weight or bias, and the kernel
    // allocates those gradients like the parameter (empty_like(weight/bias)): an absent one is
    // "tensor does not have a device". The adapter passes the neutral parameter instead (weight
    // ones: the values are those without weight; bias takes no part in any value).
    const auto param_options = wt ? wt->options() : xt.options();
    if (mask[1] && !wt) wt = at::ones(ns, param_options);
    if (mask[2] && !bt) bt = at::zeros(ns, param_options);
    auto [gx, gw, gb] = at::native_layer_norm_backward(dy.torch(), xt, ns, mean_t, rstd_t, wt, bt,
                                                       mask);
    if (mask[0]) store(*o0, gx, probe);
    if (mask[1]) store(*o1, gw, probe);
    if (mask[2]) store(*o2, gb, probe);
  };
  return plan(op, body, workspaceSize, executor);
}
aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize,
                                   aclOpExecutor *executor, aclrtStream) {
  return run("aclnnLayerNormBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x, const aclTensor *dy, double eps,
                                           const aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
  static const char *op = "aclnnLogitGrad";
  TORCH_SUT_NULL_OUTPUTS(op)
  if (!x || !dy || !out) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "x, dy or out is NULL");
  auto body = [xv = View{*x}, dyv = View{*dy}, eps, o = View{*out}](bool probe) {
    store(o, at::logit_backward(dyv.torch(), xv.torch(), c10::optional<double>(eps)), probe);
  };
  return plan(op, body, workspaceSize, executor);
}
aclnnStatus aclnnLogitGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                           aclrtStream) {
  return run("aclnnLogitGrad", workspace, workspaceSize, executor);
}

namespace {
aclnnStatus grouped_bias_add_grad(const char *op, const aclTensor *gradY,
                                  const aclTensor *groupIdxOptional, int64_t groupIdxType,
                                  aclTensor *out, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
  TORCH_SUT_NULL_OUTPUTS(op)
  if (!gradY || !out) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "gradY or out is NULL");
  // No PyTorch notion to map another value to.
  if (groupIdxOptional && groupIdxType != 0 && groupIdxType != 1)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "groupIdxType " + std::to_string(groupIdxType) + " is neither 0 nor 1");
  auto body = [g = View{*gradY}, idx = view_of(groupIdxOptional), groupIdxType,
               o = View{*out}](bool probe) {
    const at::Tensor gy = g.torch();
    if (!idx) {
      store(o, at::sum(gy, {1}), probe);
      return;
    }
    const at::Tensor gi = idx->torch();
    at::Tensor result;
    if (groupIdxType == 0) {
      const at::Tensor offsets = at::cat({at::zeros({1}, gi.options()), gi});
      result = at::segment_reduce(gy, "sum", c10::nullopt, c10::nullopt, offsets, 0);
    } else {
      result = at::segment_reduce(gy, "sum", gi, c10::nullopt, c10::nullopt, 0);
    }
    store(o, result, probe);
  };
  return plan(op, body, workspaceSize, executor);
}
}  // namespace

aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(const aclTensor *gradY,
                                                    const aclTensor *groupIdxOptional,
                                                    aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor) {
  return grouped_bias_add_grad("aclnnGroupedBiasAddGrad", gradY, groupIdxOptional, 0, out,
                               workspaceSize, executor);
}
aclnnStatus aclnnGroupedBiasAddGrad(void *workspace, uint64_t workspaceSize,
                                    aclOpExecutor *executor, aclrtStream) {
  return run("aclnnGroupedBiasAddGrad", workspace, workspaceSize, executor);
}
aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(const aclTensor *gradY,
                                                      const aclTensor *groupIdxOptional,
                                                      int64_t groupIdxType, aclTensor *out,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor) {
  return grouped_bias_add_grad("aclnnGroupedBiasAddGradV2", gradY, groupIdxOptional,
                               groupIdxType, out, workspaceSize, executor);
}
aclnnStatus aclnnGroupedBiasAddGradV2(void *workspace, uint64_t workspaceSize,
                                      aclOpExecutor *executor, aclrtStream) {
  return run("aclnnGroupedBiasAddGradV2", workspace, workspaceSize, executor);
}

}  // extern "C"
