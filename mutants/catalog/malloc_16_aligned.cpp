// malloc_16_aligned: aclrtMalloc keeps a 16-byte header in front of each block, so the memory it
// hands out is 16-byte aligned only (32 promised).
#include <mutex>
#include <set>

#include "mutants/shim.hpp"

namespace mutant {
namespace {
std::mutex m;
std::set<void *> shifted;
}  // namespace
std::optional<aclError> before_malloc(void **p, size_t n, aclrtMemMallocPolicy policy) {
  static auto alloc = real<decltype(&aclrtMalloc)>("aclrtMalloc");
  if (!p || n == 0) return std::nullopt;
  void *raw = nullptr;
  const aclError e = alloc(&raw, n + 16, policy);
  if (e != ACL_SUCCESS) return e;
  *p = static_cast<char *>(raw) + 16;
  std::lock_guard lock(m);
  shifted.insert(*p);
  return ACL_SUCCESS;
}
std::optional<aclError> before_free(void *p) {
  static auto release = real<decltype(&aclrtFree)>("aclrtFree");
  std::lock_guard lock(m);
  if (!shifted.erase(p)) return std::nullopt;
  return release(static_cast<char *>(p) - 16);
}
}  // namespace mutant
