// libascendcl: device memory. With `memory`, aclrtMalloc reserves an address range the host cannot
// touch (PROT_NONE, so a host dereference faults) and a private read-write backing that the
// kernels and aclrtMemcpy use; without it, the inner library's allocator (ACLNN_DEVEMU_MEMORY_BYTES
// applies either way).
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <unordered_map>

#include "tests/device/state.hpp"

namespace devemu {
namespace {

std::map<const char *, std::shared_ptr<Allocation>> &live() {  // by device address, state_mutex
  static auto *m = new std::map<const char *, std::shared_ptr<Allocation>>;
  return *m;
}
std::unordered_map<void *, size_t> &forwarded() {  // the inner library's, for the capacity
  static auto *m = new std::unordered_map<void *, size_t>;
  return *m;
}
int64_t g_in_use = 0;  // bytes, state_mutex

size_t page_size() {
  static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return p;
}
size_t round_up(size_t n, size_t to) {
  return (n + to - 1) / to * to;
}

// ACLNN_DEVEMU_MEMORY_BYTES: whether `size` more bytes fit (state_mutex held).
aclError check_capacity(size_t size) {
  const int64_t cap = config().memory_bytes;
  if (cap >= 0 &&
      (size > static_cast<uint64_t>(cap) || g_in_use > cap - static_cast<int64_t>(size)))
    return fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                fmt::format("aclrtMalloc: {} bytes do not fit in the device's memory ({} bytes, "
                            "{} in use) (ACL_ERROR_RT_MEMORY_ALLOCATION {})",
                            size, cap, g_in_use, ACL_ERROR_RT_MEMORY_ALLOCATION));
  return 0;
}

const char *kind_name(aclrtMemcpyKind kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE:
      return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST:
      return "ACL_MEMCPY_DEVICE_TO_HOST";
    default:
      return "ACL_MEMCPY_DEVICE_TO_DEVICE";
  }
}

// One side of a copy: where its bytes really are, or the failure (message set).
aclError resolve(const char *side, const void *p, size_t count, bool want_device,
                 aclrtMemcpyKind kind, char **where, std::shared_ptr<Allocation> *keep) {
  auto a = find_allocation_locked(p);
  if (!want_device) {
    if (a)
      return fail(ACL_ERROR_RT_PARAM_INVALID,
                  fmt::format("aclrtMemcpy: {} needs {} in host memory, but {} {} is device memory "
                              "(from aclrtMalloc) (ACL_ERROR_RT_PARAM_INVALID {})",
                              kind_name(kind), side, side, p, ACL_ERROR_RT_PARAM_INVALID));
    *where = const_cast<char *>(static_cast<const char *>(p));
    return 0;
  }
  if (!a)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                fmt::format("aclrtMemcpy: {} needs {} in device memory, but {} {} is not inside a "
                            "live aclrtMalloc allocation (ACL_ERROR_RT_PARAM_INVALID {})",
                            kind_name(kind), side, side, p, ACL_ERROR_RT_PARAM_INVALID));
  const size_t offset = static_cast<size_t>(static_cast<const char *>(p) - a->device);
  if (count > a->size - offset)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                fmt::format("aclrtMemcpy: {} bytes at {} {} run past the end of its {}-byte "
                            "allocation (offset {}) (ACL_ERROR_RT_PARAM_INVALID {})",
                            count, side, p, a->size, offset, ACL_ERROR_RT_PARAM_INVALID));
  *where = a->backing + offset;
  *keep = a;
  return 0;
}

}  // namespace

Allocation::~Allocation() {
  if (device != nullptr) munmap(device, reserved);
  if (backing != nullptr) munmap(backing, backing_size);
}

std::shared_ptr<Allocation> find_allocation_locked(const void *p) {
  const char *c = static_cast<const char *>(p);
  auto it = live().upper_bound(c);
  if (it == live().begin()) return nullptr;
  --it;
  const auto &a = it->second;
  return c <= a->device + a->size ? a : nullptr;
}

void *tensor_data(void *data, std::shared_ptr<void> *allocation, std::string *host_memory) {
  if (!config().memory || data == nullptr) return data;
  std::lock_guard lock(state_mutex());
  auto a = find_allocation_locked(data);
  if (!a) {
    *host_memory = fmt::format("tensor data {} is host memory, not from aclrtMalloc", data);
    return data;  // as the real aclCreateTensor: not checked here; the kernel faults on it
  }
  *allocation = a;
  return a->backing + (static_cast<char *>(data) - a->device);
}

}  // namespace devemu

using namespace devemu;

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  static const auto real = inner<decltype(&aclrtMalloc)>("aclrtMalloc");
  if (aclError e = enter("aclrtMalloc", Need::kDevice)) return e;
  if (!config().memory) {
    std::lock_guard lock(state_mutex());
    if (aclError e = check_capacity(size)) return e;
    forwarding();
    const aclError e = real(devPtr, size, policy);
    if (e == ACL_SUCCESS && config().memory_bytes >= 0) {
      forwarded()[*devPtr] = size;
      g_in_use += static_cast<int64_t>(size);
    }
    return e;
  }
  // The built-in library's argument checks and codes, then device memory of our own.
  if (devPtr == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr is NULL (status 100000)");
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: size is 0 (status 100000)");
  const int p = static_cast<int>(policy);
  if (p < ACL_MEM_MALLOC_HUGE_FIRST || p > ACL_MEM_MALLOC_NORMAL_ONLY)
    return fail(
        ACL_ERROR_INVALID_PARAM,
        fmt::format("aclrtMalloc: policy {} is not an aclrtMemMallocPolicy (status 100000)", p));
  std::lock_guard lock(state_mutex());
  if (aclError e = check_capacity(size)) return e;
  auto a = std::make_shared<Allocation>();
  a->size = size;
  a->backing_size = round_up(size, page_size());
  a->reserved = a->backing_size + page_size();  // a guard page: the end of one is no other's
  void *dev =
      mmap(nullptr, a->reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *back = dev == MAP_FAILED ? MAP_FAILED
                                 : mmap(nullptr, a->backing_size, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (dev != MAP_FAILED) a->device = static_cast<char *>(dev);
  if (back == MAP_FAILED)
    return fail(
        ACL_ERROR_RT_MEMORY_ALLOCATION,
        fmt::format("aclrtMalloc: {} bytes cannot be mapped (ACL_ERROR_RT_MEMORY_ALLOCATION "
                    "{})",
                    size, ACL_ERROR_RT_MEMORY_ALLOCATION));
  a->backing = static_cast<char *>(back);
  live()[a->device] = a;
  g_in_use += static_cast<int64_t>(size);
  *devPtr = a->device;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr) {
  static const auto real = inner<decltype(&aclrtFree)>("aclrtFree");
  if (aclError e = enter("aclrtFree", Need::kDevice)) return e;
  if (!config().memory) {
    std::lock_guard lock(state_mutex());
    forwarding();
    const aclError e = real(devPtr);
    if (e == ACL_SUCCESS) {
      if (auto it = forwarded().find(devPtr); it != forwarded().end()) {
        g_in_use -= static_cast<int64_t>(it->second);
        forwarded().erase(it);
      }
    }
    return e;
  }
  if (devPtr == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is NULL");
  std::lock_guard lock(state_mutex());
  auto it = live().find(static_cast<const char *>(devPtr));
  if (it == live().end())
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                fmt::format("aclrtFree: {} is not the start of a live aclrtMalloc allocation "
                            "(ACL_ERROR_RT_PARAM_INVALID {})",
                            devPtr, ACL_ERROR_RT_PARAM_INVALID));
  it->second->freed = true;  // tensors and pending kernels still holding it see it freed
  g_in_use -= static_cast<int64_t>(it->second->size);
  live().erase(it);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind) {
  static const auto real = inner<decltype(&aclrtMemcpy)>("aclrtMemcpy");
  if (aclError e = enter("aclrtMemcpy", Need::kDevice)) return e;
  if (!config().memory) {
    forwarding();
    return real(dst, destMax, src, count, kind);
  }
  // The argument checks first, with the vendor runtime's code: a bad kind or cnt > destMax is
  // RT_ERROR_INVALID_VALUE, ACL_ERROR_RT_PARAM_INVALID 107000 (ApiImpl::MemCopySync; the CPU
  // library answers 100000, and ABI-STATUS-1 takes either).
  const int k = static_cast<int>(kind);
  if (k < ACL_MEMCPY_HOST_TO_HOST || k > ACL_MEMCPY_DEVICE_TO_DEVICE)
    return fail(
        ACL_ERROR_RT_PARAM_INVALID,
        fmt::format("aclrtMemcpy: kind {} is not an aclrtMemcpyKind (0..3) (status 107000)", k));
  if (count > destMax)
    return fail(ACL_ERROR_RT_PARAM_INVALID,
                fmt::format("aclrtMemcpy: count {} is larger than destMax {} (status 107000)",
                            count, destMax));
  if (count == 0) return ACL_SUCCESS;
  if (dst == nullptr || src == nullptr)
    return fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("aclrtMemcpy: {} is NULL but count is {} (status 100000)",
                            dst == nullptr ? "dst" : "src", count));
  // Then what device memory adds: each pointer must be of the kind's side, inside its allocation.
  const bool dst_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool src_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  char *to = nullptr, *from = nullptr;
  std::shared_ptr<Allocation> keep_dst, keep_src;  // alive through the copy, without the lock
  {
    std::lock_guard lock(state_mutex());
    if (aclError e = resolve("dst", dst, count, dst_device, kind, &to, &keep_dst)) return e;
    if (aclError e = resolve("src", src, count, src_device, kind, &from, &keep_src)) return e;
  }
  std::memmove(to, from, count);
  return ACL_SUCCESS;
}

}  // extern "C"
