// gbag_thread_dependent: GroupedBiasAddGrad splits each group's rows into one float partial sum
// per thread and adds the partials: the result bits depend on ACLNN_CPU_NUM_THREADS.
#include <cstdlib>
#include <thread>

#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || (c->op != Op::kGbag && c->op != Op::kGbagV2)) return;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  if (const char *s = std::getenv("ACLNN_CPU_NUM_THREADS")) threads = std::atoi(s);
  if (threads <= 1) return;  // one thread: the library's own (deterministic) result
  GbagFaults f;
  f.split_halves = threads;
  grouped_bias_add_grad(*c, f);
}
}  // namespace mutant
