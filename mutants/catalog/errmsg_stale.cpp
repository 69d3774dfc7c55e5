// errmsg_stale: aclGetRecentErrMsg keeps returning the first error text ever recorded (a cached
// buffer that is never refreshed).
#include <string>

#include "mutants/shim.hpp"

namespace mutant {
const char *on_error_message(const char *real_message) {
  static std::string first;
  if (first.empty() && real_message && *real_message) first = real_message;
  return first.empty() ? real_message : first.c_str();
}
}  // namespace mutant
