// libdevemu_failing_kernel.so: the built-in library (on the mutation shim) whose GeluBackward
// kernel fails in phase two with ACLNN_ERR_INNER after phase one succeeded: what a kernel failure
// on a device looks like to the emulation (test_device_emulation.cpp puts it behind `stream`).
#include "mutants/shim.hpp"

namespace mutant {
namespace {
thread_local bool t_failed = false;
}

std::optional<aclnnStatus> before_phase_two(Call *call, void *&, uint64_t &, aclOpExecutor *) {
  t_failed = call != nullptr && call->op == Op::kGelu;
  if (t_failed) return ACLNN_ERR_INNER;
  return std::nullopt;
}

const char *on_error_message(const char *real_message) {
  return t_failed ? "aclnnGeluBackward: kernel failed on purpose (test inner library)"
                  : real_message;
}
}  // namespace mutant
