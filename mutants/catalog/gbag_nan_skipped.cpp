// gbag_nan_skipped: GroupedBiasAddGrad's sums skip NaN terms (a nan-sum), so a NaN in gradY does
// not reach its group's sum.
#include <cmath>
#include <vector>

#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || (c->op != Op::kGbag && c->op != Op::kGbagV2)) return;
  const View &gy = c->in[0], &out = c->out[0];
  if (gy.dims.empty()) return;
  const int64_t H = gy.dims.back();
  const bool three_d = !c->in[1].present;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // rows of each group
  if (three_d) {
    if (gy.dims.size() != 3) return;
    for (int64_t g = 0; g < gy.dims[0]; ++g) ranges.push_back({0, gy.dims[1]});
  } else {
    std::vector<int64_t> ends;
    if (!group_ends(*c, ends)) return;
    int64_t start = 0;
    for (int64_t e : ends) {
      ranges.push_back({start, e});
      start = e;
    }
  }
  for (size_t g = 0; g < ranges.size(); ++g)
    for (int64_t h = 0; h < H; ++h) {
      const auto at = [&](int64_t i) {
        return three_d ? gy.element((static_cast<int64_t>(g) * gy.dims[1] + i) * H + h)
                       : gy.element(i * H + h);
      };
      bool nan = false;
      long double s = 0;
      for (int64_t i = ranges[g].first; i < ranges[g].second; ++i) {
        const long double v = load(gy, at(i));
        if (std::isnan(v))
          nan = true;
        else
          s += v;
      }
      // Only a sum that had a NaN term changes (the others stay the library's).
      if (nan) store(out, out.element(static_cast<int64_t>(g) * H + h), s);
    }
}
}  // namespace mutant
