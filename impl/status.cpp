#include "impl/status.hpp"

#include "acl/acl_base.h"

namespace aclnn_cpu {
namespace {
thread_local std::string recent_error;
}

void clear_error() { recent_error.clear(); }

aclnnStatus record_error(aclnnStatus code, const char *op, std::string text) {
  recent_error = fmt::format("{}: {} (status {})", op, text, code);
  return code;
}

aclnnStatus record_error_noexcept(aclnnStatus code, const char *op, const char *what) noexcept {
  try {
    record_error(code, op, what);
  } catch (...) {
    recent_error.clear();  // no allocation
  }
  return code;
}

}  // namespace aclnn_cpu

extern "C" const char *aclGetRecentErrMsg(void) { return aclnn_cpu::recent_error.c_str(); }
