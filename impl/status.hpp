// Error state of the aclnn ABI: the thread's most recent failure text (spec ABI-ERRMSG-1).
#pragma once

#include <fmt/format.h>

#include <exception>
#include <new>
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

// record_error that cannot throw (for use in a catch block): if even the message cannot be
// stored, the recent error is left empty.
aclnnStatus record_error_noexcept(aclnnStatus code, const char *op, const char *what) noexcept;

// f() (an aclnnStatus) with no exception crossing the C ABI: out of memory and any other
// exception come back as ACLNN_ERR_INNER naming `op`. Every aclnn phase-one entry point and
// run_executor run their bodies through it; the ABI's object constructors, which return pointers,
// catch bad_alloc themselves.
template <typename F>
aclnnStatus guard_abi(const char *op, F &&f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc &) {
    return record_error_noexcept(ACLNN_ERR_INNER, op, "out of memory");
  } catch (const std::exception &e) {
    return record_error_noexcept(ACLNN_ERR_INNER, op, e.what());
  } catch (...) {
    return record_error_noexcept(ACLNN_ERR_INNER, op, "unknown exception");
  }
}

}  // namespace aclnn_cpu
