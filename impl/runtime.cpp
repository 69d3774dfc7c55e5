// The host runtime of the call examples on the CPU (spec ABI-RUNTIME-1): "device" memory is host
// memory, streams are tokens and every op has finished when its run call returns.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "acl/acl.h"
#include "impl/status.hpp"
#include "impl/tensor.hpp"

namespace {
std::mutex &stream_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_set<void *> &streams() {
  static std::unordered_set<void *> s;
  return s;
}
constexpr size_t kAlignment = 32;  // aclrtMalloc's promise; 64 keeps AVX-512 loads aligned too
}  // namespace

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
  void *token = std::malloc(1);
  if (token == nullptr) return ACL_ERROR_BAD_ALLOC;
  std::lock_guard lock(stream_mutex());
  streams().insert(token);
  *stream = token;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  std::lock_guard lock(stream_mutex());
  if (streams().erase(stream) == 0) return ACL_ERROR_INVALID_PARAM;
  std::free(stream);
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  using aclnn_cpu::fail;
  const int32_t p_bits = aclnn_cpu::enum_bits(policy);
  if (devPtr == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "devPtr is NULL");
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "size is 0");
  if (p_bits < ACL_MEM_MALLOC_HUGE_FIRST || p_bits > ACL_MEM_MALLOC_NORMAL_ONLY)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc", "policy {} is not an aclrtMemMallocPolicy",
                p_bits);
  if (size > SIZE_MAX - 63)  // rounding up would wrap around
    return fail(ACL_ERROR_BAD_ALLOC, "aclrtMalloc", "size {} cannot be allocated", size);
  const size_t rounded = (size + 63) / 64 * 64;
  void *p = std::aligned_alloc(64 > kAlignment ? 64 : kAlignment, rounded);
  if (p == nullptr)
    return fail(ACL_ERROR_BAD_ALLOC, "aclrtMalloc", "size {} cannot be allocated", size);
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
  using aclnn_cpu::fail;
  const int32_t k_bits = aclnn_cpu::enum_bits(kind);
  if (k_bits < ACL_MEMCPY_HOST_TO_HOST || k_bits > ACL_MEMCPY_DEVICE_TO_DEVICE)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy", "kind {} is not an aclrtMemcpyKind (0..3)",
                k_bits);
  if (count > destMax)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy", "count {} is larger than destMax {}", count,
                destMax);
  if (count == 0) return ACL_SUCCESS;
  if (dst == nullptr || src == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy", "{} is NULL but count is {}",
                dst == nullptr ? "dst" : "src", count);
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

}  // extern "C"
