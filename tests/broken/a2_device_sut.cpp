// libaclnn_a2_device.so: the built-in library as a library bound to one device would behave, an
// Atlas A2: it ignores the product the campaign names in ACLNN_CPU_SOC (a vendor library takes
// the product from the hardware). Conformant on A2; the campaign must not judge it by another
// product's gates (campaign/product_emulation.hpp).
#include <cstdlib>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &) {
  setenv("ACLNN_CPU_SOC", "ascend910b", 1);
  return std::nullopt;
}
}  // namespace mutant
