// memcpy_no_bound: aclrtMemcpy copies min(count, destMax) bytes and reports success when count
// exceeds destMax (it must fail).
#include <cstring>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclError> before_memcpy(void *dst, size_t dest_max, const void *src, size_t count,
                                      aclrtMemcpyKind) {
  if (!dst || !src || count <= dest_max) return std::nullopt;
  std::memmove(dst, src, dest_max);
  return ACL_SUCCESS;
}
}  // namespace mutant
