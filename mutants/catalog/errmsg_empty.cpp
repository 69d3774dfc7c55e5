// errmsg_empty: aclGetRecentErrMsg always returns an empty text, also after a failing call.
#include "mutants/shim.hpp"

namespace mutant {
const char *on_error_message(const char *) {
  return "";
}
}  // namespace mutant
