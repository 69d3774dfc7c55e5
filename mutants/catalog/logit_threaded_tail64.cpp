// logit_threaded_tail64: LogitGrad's threaded path (more than 65536 elements) gives every chunk a
// whole number of 64-element vectors and never writes the last n mod 64 elements.
#include <cstring>
#include <vector>

#include "mutants/shim.hpp"

namespace mutant {
namespace {
std::vector<std::vector<char>> saved;  // the unwritten elements' bytes before the call
int64_t first_unwritten(const View &o) {
  return o.numel() - o.numel() % 64;
}
}  // namespace

std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  saved.clear();
  if (!c || c->op != Op::kLogit || c->out[0].numel() <= 65536) return std::nullopt;
  const View &o = c->out[0];
  const size_t es = o.element_size();
  for (int64_t i = first_unwritten(o); i < o.numel(); ++i) {
    const char *p = static_cast<const char *>(o.data) + o.element(i) * es;
    saved.emplace_back(p, p + es);
  }
  return std::nullopt;
}

void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLogit || saved.empty()) return;
  const View &o = c->out[0];
  const size_t es = o.element_size();
  size_t k = 0;
  for (int64_t i = first_unwritten(o); i < o.numel(); ++i, ++k)
    std::memcpy(static_cast<char *>(o.data) + o.element(i) * es, saved[k].data(), es);
}
}  // namespace mutant
