// libnnopbase: tensors, arrays, their getters and the executor flags, forwarded to the inner
// library. aclCreateTensor hands the inner library the backing of device memory (`memory`).
#include <optional>

#include "mutants/forward.hpp"
#include "tests/device/devemu.hpp"

using devemu::enter;
using devemu::inner;
using devemu::Need;

namespace {
// A getter or destroyer: refused in a forked child, else the inner library's.
std::optional<aclError> process_gate(const char *api) {
  if (aclError e = enter(api, Need::kProcess)) return e;
  devemu::forwarding();
  return std::nullopt;
}
}  // namespace

#define DEVEMU_FORWARD(ret, name, params, args) \
  ACLNN_FORWARD(inner, process_gate, ret, name, params, args)

extern "C" {

ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride,
                                               int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData) {
  static const auto real = inner<decltype(&aclCreateTensor)>("aclCreateTensor");
  if (enter("aclCreateTensor", Need::kDevice) != 0) return nullptr;
  std::shared_ptr<void> allocation;
  std::string host_memory;
  void *data = devemu::tensor_data(tensorData, &allocation, &host_memory);
  devemu::forwarding();
  aclTensor *t = real(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                      storageDimsNum, data);
  devemu::tensor_created(t, std::move(allocation), std::move(host_memory));
  return t;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
  static const auto real = inner<decltype(&aclDestroyTensor)>("aclDestroyTensor");
  if (aclError e = enter("aclDestroyTensor", Need::kProcess)) return e;
  devemu::tensor_destroyed(tensor);
  devemu::forwarding();
  return real(tensor);
}

ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
  static const auto real = inner<decltype(&aclCreateIntArray)>("aclCreateIntArray");
  if (enter("aclCreateIntArray", Need::kDevice) != 0) return nullptr;
  devemu::forwarding();
  return real(value, size);
}

ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
  static const auto real = inner<decltype(&aclCreateBoolArray)>("aclCreateBoolArray");
  if (enter("aclCreateBoolArray", Need::kDevice) != 0) return nullptr;
  devemu::forwarding();
  return real(value, size);
}

DEVEMU_FORWARD(aclnnStatus, aclDestroyIntArray, (const aclIntArray *array), (array))
DEVEMU_FORWARD(aclnnStatus, aclDestroyBoolArray, (const aclBoolArray *array), (array))
DEVEMU_FORWARD(aclnnStatus, aclGetViewShape,
               (const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum),
               (tensor, viewDims, viewDimsNum))
DEVEMU_FORWARD(aclnnStatus, aclGetViewStrides,
               (const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum),
               (tensor, stridesValue, stridesNum))
DEVEMU_FORWARD(aclnnStatus, aclGetViewOffset, (const aclTensor *tensor, int64_t *offset),
               (tensor, offset))
DEVEMU_FORWARD(aclnnStatus, aclGetStorageShape,
               (const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum),
               (tensor, storageDims, storageDimsNum))
DEVEMU_FORWARD(aclnnStatus, aclGetFormat, (const aclTensor *tensor, aclFormat *format),
               (tensor, format))
DEVEMU_FORWARD(aclnnStatus, aclGetDataType, (const aclTensor *tensor, aclDataType *dataType),
               (tensor, dataType))
DEVEMU_FORWARD(aclnnStatus, aclGetIntArraySize, (const aclIntArray *array, uint64_t *size),
               (array, size))
DEVEMU_FORWARD(aclnnStatus, aclGetBoolArraySize, (const aclBoolArray *array, uint64_t *size),
               (array, size))

ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
  static const auto real =
      inner<decltype(&aclSetAclOpExecutorRepeatable)>("aclSetAclOpExecutorRepeatable");
  if (aclError e = enter("aclSetAclOpExecutorRepeatable", Need::kProcess)) return e;
  devemu::forwarding();
  const aclnnStatus s = real(executor);
  if (s == ACLNN_SUCCESS) devemu::executor_repeatable(executor);
  return s;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
  static const auto real = inner<decltype(&aclDestroyAclOpExecutor)>("aclDestroyAclOpExecutor");
  if (aclError e = enter("aclDestroyAclOpExecutor", Need::kProcess)) return e;
  return devemu::executor_destroy(executor, real);
}

}  // extern "C"
