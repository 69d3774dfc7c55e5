// Error state of the aclnn ABI: the thread's most recent failure text (spec ABI-ERRMSG-1).
#pragma once

#include <fmt/format.h>

#include <string>
#include <utility>

#include "aclnn/aclnn_base.h"

namespace aclnn_cpu {

// Forgets the previous failure; called at the start of every phase-one call so that a message
// always belongs to the call that failed last.
void clear_error();

// Records "op: text" as the recent error and returns code, so checks read `return fail(...)`.
aclnnStatus record_error(aclnnStatus code, const char *op, std::string text);

template <typename... Args>
aclnnStatus fail(aclnnStatus code, const char *op, fmt::format_string<Args...> f, Args &&...args) {
  return record_error(code, op, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace aclnn_cpu
