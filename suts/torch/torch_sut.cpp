// libaclnn_torch.so: the aclnn ABI (vendor names and signatures, include/) implemented with
// PyTorch's CPU kernels, as a real third-party system under test for aclnn-conform.
//
// Nothing here reimplements the specification's checks. The library owns only what the ABI needs
// and PyTorch lacks: tensor/array objects, a host runtime, executors, NULL pointers (161001) and
// the mapping of vendor dtypes onto PyTorch's. Everything else is PyTorch's: phase one runs the
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

// ---------------------------------------------------------------------------------------------
// Objects of the ABI.

struct aclTensor {
  std::vector<int64_t> dims, strides, storage_dims;
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  void *data = nullptr;
};
struct aclIntArray {
  std::vector<int64_t> v;
};
struct aclBoolArray {
  std::vector<bool> v;
};
struct aclOpExecutor {
  const char *op = "";
  std::function<void()> run;  // phase two: kernel, then copy into the outputs
  bool repeatable = false;
};

namespace {

thread_local std::string g_error;

aclnnStatus fail(aclnnStatus code, const char *op, const std::string &what) {
  g_error = std::string(op) + ": " + what;
  return code;
}

// Element size of a vendor dtype (0: unknown enum value). Sizes exist for dtypes PyTorch lacks
// (UINT16/32/64): such tensors can be created, and the ops refuse them.
size_t esize(aclDataType t) {
  switch (t) {
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: case ACL_COMPLEX32: return 4;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
  }
}

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
    return at::from_blob(base, t.dims, t.strides, at::TensorOptions().dtype(*st));
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

// Live executors: running a released one is reported, not a use after free.
std::mutex g_mutex;
std::unordered_set<aclOpExecutor *> g_live;

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
  auto *e = new aclOpExecutor;
  e->op = op;
  e->run = [body = std::move(body)] { body(false); };
  {
    std::lock_guard lock(g_mutex);
    g_live.insert(e);
  }
  *workspaceSize = 0;
  *executor = e;
  return ACLNN_SUCCESS;
}

aclnnStatus run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) {
  if (executor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "executor is NULL");
  if (workspaceSize > 0 && workspace == nullptr)
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, "workspace is NULL but workspaceSize > 0");
  std::function<void()> body;
  {
    std::lock_guard lock(g_mutex);
    if (g_live.count(executor) == 0)
      return fail(ACLNN_ERR_PARAM_INVALID, op, "executor is not live (already run or destroyed)");
    if (std::strcmp(executor->op, op) != 0)
      return fail(ACLNN_ERR_PARAM_INVALID, op,
                  std::string("executor was built by ") + executor->op);
    if (executor->repeatable) {
      body = executor->run;
    } else {
      body = std::move(executor->run);
      g_live.erase(executor);
      delete executor;
    }
  }
  try {
    c10::InferenceMode guard;
    body();
  } catch (const NoTorchDtype &e) {
    return fail(ACLNN_ERR_PARAM_INVALID, op, e.message);
  } catch (const c10::Error &e) {
    return fail(ACLNN_ERR_PARAM_INVALID, op, e.what_without_backtrace());
  } catch (const std::exception &e) {
    return fail(ACLNN_ERR_INNER, op, e.what());
  }
  return ACLNN_SUCCESS;
}

// out.copy_(result), or on the probe in phase one.
void store(const View &out, const at::Tensor &result, bool probe) {
  at::Tensor dst = probe ? out.probe() : out.torch();
  dst.copy_(result);
}

bool mul_overflows(int64_t a, int64_t b, int64_t &r) { return __builtin_mul_overflow(a, b, &r); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Runtime: "device" memory is host memory, streams are tokens, ops finish before they return.

extern "C" {

aclError aclInit(const char *) { return ACL_SUCCESS; }
aclError aclFinalize(void) { return ACL_SUCCESS; }
aclError aclrtSetDevice(int32_t deviceId) {
  return deviceId == 0 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID;
}
aclError aclrtResetDevice(int32_t deviceId) {
  return deviceId == 0 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID;
}
aclError aclrtCreateStream(aclrtStream *stream) {
  if (stream == nullptr) return ACL_ERROR_INVALID_PARAM;
  *stream = new char(0);
  return ACL_SUCCESS;
}
aclError aclrtDestroyStream(aclrtStream stream) {
  if (stream == nullptr) return ACL_ERROR_INVALID_PARAM;
  delete static_cast<char *>(stream);
  return ACL_SUCCESS;
}
aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (devPtr == nullptr || policy < ACL_MEM_MALLOC_HUGE_FIRST ||
      policy > ACL_MEM_MALLOC_NORMAL_ONLY)
    return ACL_ERROR_INVALID_PARAM;
  const size_t rounded = (size + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (p == nullptr) return ACL_ERROR_BAD_ALLOC;
  *devPtr = p;
  return ACL_SUCCESS;
}
aclError aclrtFree(void *devPtr) {
  if (devPtr == nullptr) return ACL_ERROR_INVALID_PARAM;
  std::free(devPtr);
  return ACL_SUCCESS;
}
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind) {
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE)
    return ACL_ERROR_INVALID_PARAM;
  if (count > destMax) return ACL_ERROR_INVALID_PARAM;
  if (count == 0) return ACL_SUCCESS;
  if (dst == nullptr || src == nullptr) return ACL_ERROR_INVALID_PARAM;
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

const char *aclGetRecentErrMsg(void) { return g_error.c_str(); }

// ---------------------------------------------------------------------------------------------
// Tensors and arrays. A tensor must describe memory it may touch (non-negative dims, strides and
// offset, a view inside its storage): from_blob trusts it, so a bad one would be read out of
// bounds. This is the tensor object's own invariant, not an op check.

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
  if ((viewDimsNum > 0 && (viewDims == nullptr || stride == nullptr)) ||
      (storageDimsNum > 0 && storageDims == nullptr) || offset < 0 || esize(dataType) == 0 ||
      viewDimsNum > 64 || storageDimsNum > 64)
    return nullptr;
  int64_t view_n = 1, storage_n = 1, last = offset;
  for (uint64_t i = 0; i < viewDimsNum; ++i)
    if (viewDims[i] < 0 || stride[i] < 0 || mul_overflows(view_n, viewDims[i], view_n))
      return nullptr;
  for (uint64_t i = 0; i < storageDimsNum; ++i)
    if (storageDims[i] < 0 || mul_overflows(storage_n, storageDims[i], storage_n)) return nullptr;
  if (view_n > 0) {
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
      int64_t step;
      if (mul_overflows(viewDims[i] - 1, stride[i], step) ||
          __builtin_add_overflow(last, step, &last))
        return nullptr;
    }
    if (last >= storage_n) return nullptr;
  }
  int64_t bytes;
  if (mul_overflows(storage_n, static_cast<int64_t>(esize(dataType)), bytes)) return nullptr;
  auto *t = new (std::nothrow) aclTensor;
  if (t == nullptr) return nullptr;
  t->dims.assign(viewDims, viewDims + viewDimsNum);
  t->strides.assign(stride, stride + viewDimsNum);
  t->storage_dims.assign(storageDims, storageDims + storageDimsNum);
  t->offset = offset;
  t->dtype = dataType;
  t->format = format;
  t->data = tensorData;
  return t;
}
aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
  if (size > 0 && value == nullptr) return nullptr;
  auto *a = new aclIntArray;
  a->v.assign(value, value + size);
  return a;
}
aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}
aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
  if (size > 0 && value == nullptr) return nullptr;
  auto *a = new aclBoolArray;
  a->v.assign(value, value + size);
  return a;
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}

namespace {
aclnnStatus copy_out(const std::vector<int64_t> &v, int64_t **out, uint64_t *n) {
  if (out == nullptr || n == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *out = new int64_t[v.empty() ? 1 : v.size()];
  std::copy(v.begin(), v.end(), *out);
  *n = v.size();
  return ACLNN_SUCCESS;
}
}  // namespace

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
  if (tensor == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  return copy_out(tensor->dims, viewDims, viewDimsNum);
}
aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                              uint64_t *stridesNum) {
  if (tensor == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  return copy_out(tensor->strides, stridesValue, stridesNum);
}
aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
  if (tensor == nullptr || offset == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                               uint64_t *storageDimsNum) {
  if (tensor == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  return copy_out(tensor->storage_dims, storageDims, storageDimsNum);
}
aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
  if (tensor == nullptr || format == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *format = tensor->format;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
  if (tensor == nullptr || dataType == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *dataType = tensor->dtype;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size) {
  if (array == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->v.size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size) {
  if (array == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->v.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
  std::lock_guard lock(g_mutex);
  if (executor == nullptr || g_live.count(executor) == 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable",
                "executor is NULL or not live");
  executor->repeatable = true;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
  std::lock_guard lock(g_mutex);
  if (executor == nullptr || g_live.count(executor) == 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor",
                "executor is NULL or not live");
  g_live.erase(executor);
  delete executor;
  return ACLNN_SUCCESS;
}

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
  if (outputMask->v.size() != 3)
    return fail(ACLNN_ERR_PARAM_INVALID, op, "outputMask must have 3 elements (PyTorch's bool[3])");
  const std::array<bool, 3> mask{outputMask->v[0], outputMask->v[1], outputMask->v[2]};
  const aclTensor *outs[3] = {gradInputOut, gradWeightOut, gradBiasOut};
  for (int i = 0; i < 3; ++i)
    if (mask[i] && outs[i] == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, op,
                  "an output requested by outputMask is NULL (" +
                      std::string(i == 0 ? "gradInputOut" : i == 1 ? "gradWeightOut"
                                                                   : "gradBiasOut") +
                      ")");
  auto body = [dy = View{*gradOut}, x = View{*input}, ns = normalizedShape->v, mu = View{*mean},
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
