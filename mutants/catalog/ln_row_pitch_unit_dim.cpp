// ln_row_pitch_unit_dim: LayerNormBackward flattens gradInputOut's leading dims into rows and takes
// the stride of the innermost leading dim as the row pitch, also when that dim has size 1 (its
// stride is then never used and may be anything): rows are written at the wrong places.
#include <cstring>
#include <vector>

#include "mutants/shim.hpp"

namespace mutant {
namespace {
std::vector<char> before;  // gradInputOut's storage before the call
bool applies(const Call &c) {
  if (c.op != Op::kLayerNorm || c.out.empty() || !c.out[0].present) return false;
  if (!c.mask.empty() && !c.mask[0]) return false;
  const View &o = c.out[0];
  const size_t k = c.normalized_shape.size(), r = o.dims.size();
  if (k == 0 || r < k + 2 || o.numel() == 0) return false;
  return o.dims[r - k - 1] == 1;  // a leading dim of size 1 innermost, another before it
}
}  // namespace

std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  before.clear();
  if (c && applies(*c)) {
    const View &o = c->out[0];
    const char *p = static_cast<const char *>(o.data);
    before.assign(p, p + o.storage_numel() * o.element_size());
  }
  return std::nullopt;
}

void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || before.empty() || !applies(*c)) return;
  const View &o = c->out[0];
  const size_t k = c->normalized_shape.size(), r = o.dims.size(), lead = r - k;
  int64_t n = 1;
  for (size_t d = lead; d < r; ++d) n *= o.dims[d];
  const int64_t pitch = o.strides[lead - 1], total = o.numel();
  // Where the library writes element `flat`: row flat / n at flat / n * pitch.
  std::vector<int64_t> wrong(static_cast<size_t>(total));
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t pos = o.offset + flat / n * pitch, j = flat % n;
    for (size_t d = r; d-- > lead;) {
      pos += j % o.dims[d] * o.strides[d];
      j /= o.dims[d];
    }
    if (pos < 0 || pos >= o.storage_numel()) return;  // (a real kernel would write out of bounds)
    wrong[static_cast<size_t>(flat)] = pos;
  }
  const size_t es = o.element_size();
  char *p = static_cast<char *>(o.data);
  std::vector<char> values(static_cast<size_t>(total) * es);
  for (int64_t flat = 0; flat < total; ++flat)
    std::memcpy(values.data() + flat * es, p + o.element(flat) * es, es);
  std::memcpy(p, before.data(), before.size());
  for (int64_t flat = 0; flat < total; ++flat)
    std::memcpy(p + wrong[static_cast<size_t>(flat)] * es, values.data() + flat * es, es);
}
}  // namespace mutant
