// Fuzz target: the ABI's non-op entry points - aclCreateTensor and its accessors (through the
// harness's decoder, which checks every accepted tensor), int/bool arrays, the executor API on
// pointers that are not executors, and the host runtime (aclrtMemcpy kinds and sizes, aclrtMalloc,
// streams, devices).
#include <cstring>
#include <memory>

#include "acl/acl.h"
#include "fuzz/abi_harness.hpp"

using aclnn_fuzz::require;

namespace {

void fuzz_arrays(FuzzedDataProvider &fdp) {
  const uint64_t n = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<uint64_t>(0, 16)
                                       : fdp.ConsumeIntegral<uint64_t>();
  const bool null_values = fdp.ConsumeBool();
  std::vector<int64_t> ints(n <= 16 ? n : 0);
  for (auto &v : ints) v = fdp.ConsumeIntegral<int64_t>();
  std::unique_ptr<bool[]> bools(new bool[16]());
  if (null_values || n > 16) {
    // Only a NULL value pointer can be paired with a count larger than the array: the library must
    // refuse it without reading.
    require(n == 0 || aclCreateIntArray(nullptr, n) == nullptr, "int array from NULL values");
    require(n == 0 || aclCreateBoolArray(nullptr, n) == nullptr, "bool array from NULL values");
    return;
  }
  aclIntArray *ia = aclCreateIntArray(ints.empty() ? nullptr : ints.data(), n);
  aclBoolArray *ba = aclCreateBoolArray(bools.get(), n);
  require(ia != nullptr && ba != nullptr, "valid arrays refused");
  uint64_t got = ~0ull;
  require(aclGetIntArraySize(ia, &got) == ACLNN_SUCCESS && got == n, "aclGetIntArraySize");
  require(aclGetBoolArraySize(ba, &got) == ACLNN_SUCCESS && got == n, "aclGetBoolArraySize");
  require(aclGetIntArraySize(ia, nullptr) == ACLNN_ERR_PARAM_NULLPTR, "size out-param NULL");
  require(aclGetIntArraySize(nullptr, &got) == ACLNN_ERR_PARAM_NULLPTR, "array NULL");
  aclDestroyIntArray(ia);
  aclDestroyBoolArray(ba);
}

void fuzz_executor_api(FuzzedDataProvider &fdp) {
  // Pointers that are not live executors: refused by address, never dereferenced.
  int not_an_executor = 0;
  aclOpExecutor *bogus =
      fdp.ConsumeBool() ? nullptr : reinterpret_cast<aclOpExecutor *>(&not_an_executor);
  require(aclSetAclOpExecutorRepeatable(bogus) == ACLNN_ERR_PARAM_INVALID, "repeatable on bogus");
  require(aclDestroyAclOpExecutor(bogus) == ACLNN_ERR_PARAM_INVALID, "destroy bogus");
}

void fuzz_runtime(FuzzedDataProvider &fdp) {
  // aclrtMemcpy: dst and src are 32-byte guarded buffers; the declared sizes and kind are fuzzed.
  constexpr size_t kCap = 32, kGuard = 16;
  uint8_t dst[kCap + 2 * kGuard], src[kCap];
  std::memset(dst, 0xA5, sizeof dst);
  for (size_t i = 0; i < kCap; ++i) src[i] = static_cast<uint8_t>(i * 7 + 1);
  const size_t dest_max = fdp.ConsumeIntegralInRange<size_t>(0, kCap + 8);
  const size_t count = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<size_t>(0, kCap + 8)
                                         : fdp.ConsumeIntegral<size_t>();
  const int kind = fdp.ConsumeIntegralInRange<int>(-2, 6);
  const bool null_dst = fdp.ConsumeIntegral<uint8_t>() >= 0xf0;
  const bool null_src = fdp.ConsumeIntegral<uint8_t>() >= 0xf0;
  // A caller may only declare a destMax its buffer has: keep the call honest when it could succeed.
  const bool honest = dest_max <= kCap;
  if (honest) {
    uint8_t before[sizeof dst];
    std::memcpy(before, dst, sizeof dst);
    const aclError st =
        aclrtMemcpy(null_dst ? nullptr : dst + kGuard, dest_max, null_src ? nullptr : src, count,
                    static_cast<aclrtMemcpyKind>(kind));
    const bool valid =
        kind >= 0 && kind <= 3 && count <= dest_max && (count == 0 || (!null_dst && !null_src));
    require(st == (valid ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM), "aclrtMemcpy status");
    for (size_t i = 0; i < sizeof dst; ++i) {
      const bool copied = st == ACL_SUCCESS && i >= kGuard && i < kGuard + count;
      require(dst[i] == (copied ? src[i - kGuard] : before[i]), "aclrtMemcpy touched other bytes");
    }
  }
  // aclrtMalloc: size 0, bad policies, sizes whose rounding overflows. (Sizes between are left
  // out: libFuzzer treats a multi-GB malloc as an out-of-memory finding.)
  void *p = nullptr;
  const size_t size = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<size_t>(0, 4096)
                                        : SIZE_MAX - fdp.ConsumeIntegralInRange<size_t>(0, 127);
  const int policy = fdp.ConsumeIntegralInRange<int>(-1, 4);
  const aclError st = aclrtMalloc(&p, size, static_cast<aclrtMemMallocPolicy>(policy));
  require(st == ACL_SUCCESS || st == ACL_ERROR_INVALID_PARAM || st == ACL_ERROR_BAD_ALLOC,
          "aclrtMalloc status");
  if (st == ACL_SUCCESS) {
    require(p != nullptr && reinterpret_cast<uintptr_t>(p) % 32 == 0, "aclrtMalloc alignment");
    static_cast<volatile uint8_t *>(p)[0] = 1;  // both ends are usable (ASan checks the bounds)
    static_cast<volatile uint8_t *>(p)[size - 1] = 1;
    require(aclrtFree(p) == ACL_SUCCESS, "aclrtFree");
  } else {
    require(size == 0 || policy < 0 || policy > 2 || st == ACL_ERROR_BAD_ALLOC,
            "aclrtMalloc refused a valid request");
  }
  require(aclrtMalloc(nullptr, 8, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_ERROR_INVALID_PARAM,
          "aclrtMalloc NULL out-param");
  require(aclrtFree(nullptr) == ACL_ERROR_INVALID_PARAM, "aclrtFree(NULL)");
  // Streams and devices.
  aclrtStream s = nullptr;
  require(aclrtCreateStream(&s) == ACL_SUCCESS, "aclrtCreateStream");
  require(aclrtDestroyStream(s) == ACL_SUCCESS, "aclrtDestroyStream");
  require(aclrtDestroyStream(s) == ACL_ERROR_INVALID_PARAM, "a stream destroyed twice");
  require(aclrtCreateStream(nullptr) == ACL_ERROR_INVALID_PARAM, "aclrtCreateStream(NULL)");
  const int32_t dev = fdp.ConsumeIntegral<int32_t>();
  // The runtime's code for a bad device ID (rt_error_codes.h), as the vendor runtime returns.
  require(aclrtSetDevice(dev) == (dev == 0 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID),
          "aclrtSetDevice");
  require(aclrtResetDevice(dev) == (dev == 0 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID),
          "aclrtResetDevice");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  aclnn_fuzz::Harness h(data, size);
  auto &fdp = h.fdp();
  const int tensors = fdp.ConsumeIntegralInRange(1, 4);
  for (int i = 0; i < tensors; ++i) {
    std::vector<int64_t> shape(fdp.ConsumeIntegralInRange(0, 4));
    for (auto &d : shape) d = fdp.ConsumeIntegralInRange(0, 5);
    h.tensor({shape, ACL_FLOAT});
  }
  fuzz_arrays(fdp);
  fuzz_executor_api(fdp);
  fuzz_runtime(fdp);
  return 0;
}
