// gbag_empty_group_untouched: GroupedBiasAddGrad skips empty groups (equal consecutive offsets)
// and leaves their rows of out unwritten instead of zero.
#include <cstring>
#include <vector>

#include "mutants/shim.hpp"

namespace mutant {
namespace {
std::vector<std::vector<char>> before;  // out's rows as they were, per group
}
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  before.clear();
  if (!c || (c->op != Op::kGbag && c->op != Op::kGbagV2)) return std::nullopt;
  const View &o = c->out[0];
  const int64_t H = o.dims.size() == 2 ? o.dims[1] : 0, G = o.dims.empty() ? 0 : o.dims[0];
  for (int64_t g = 0; g < G; ++g)
    for (int64_t h = 0; h < H; ++h) {
      std::vector<char> e(o.element_size());
      std::memcpy(e.data(), static_cast<char *>(o.data) + o.element(g * H + h) * e.size(),
                  e.size());
      before.push_back(e);
    }
  return std::nullopt;
}
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || before.empty() || !c->in[1].present) return;
  std::vector<int64_t> ends;
  if (!group_ends(*c, ends)) return;
  const View &o = c->out[0];
  const int64_t H = o.dims[1];
  int64_t start = 0;
  for (size_t g = 0; g < ends.size(); ++g) {
    if (ends[g] == start)
      for (int64_t h = 0; h < H; ++h) {
        const auto &e = before[g * H + h];
        std::memcpy(static_cast<char *>(o.data) + o.element(g * H + h) * e.size(), e.data(),
                    e.size());
      }
    start = ends[g];
  }
}
}  // namespace mutant
