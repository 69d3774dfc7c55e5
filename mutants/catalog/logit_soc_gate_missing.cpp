// logit_soc_gate_missing: LogitGrad does not check the product: it runs on Atlas training and
// inference products, which lack it (161002 expected there).
#include <cstdlib>
#include <string>

#include "mutants/shim.hpp"

namespace mutant {
namespace {
std::string saved;
}
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kLogit) return std::nullopt;
  const char *soc = std::getenv("ACLNN_CPU_SOC");
  saved.clear();
  if (soc && (std::string(soc) == "ascend910" || std::string(soc) == "ascend310p")) {
    saved = soc;
    setenv("ACLNN_CPU_SOC", "ascend910b", 1);  // the real library checks as if on A2
  }
  return std::nullopt;
}
void after_phase_one(Call &c, aclnnStatus &, uint64_t *, aclOpExecutor **) {
  if (c.op == Op::kLogit && !saved.empty()) setenv("ACLNN_CPU_SOC", saved.c_str(), 1);
}
}  // namespace mutant
