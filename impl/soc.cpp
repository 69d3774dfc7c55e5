#include "impl/soc.hpp"

#include <cstdlib>
#include <string>

namespace aclnn_cpu {

std::optional<Soc> current_soc() {
  const char *s = std::getenv("ACLNN_CPU_SOC");
  if (s == nullptr || *s == '\0') return Soc::kAtlasA2;
  const std::string_view v(s);
  if (v == "ascend910b") return Soc::kAtlasA2;
  if (v == "ascend910_93") return Soc::kAtlasA3;
  if (v == "ascend910") return Soc::kAtlasTraining;
  if (v == "ascend310p") return Soc::kAtlasInference;
  return std::nullopt;
}

std::string_view soc_name(Soc s) {
  switch (s) {
    case Soc::kAtlasA2: return "Atlas A2 (ascend910b)";
    case Soc::kAtlasA3: return "Atlas A3 (ascend910_93)";
    case Soc::kAtlasTraining: return "Atlas training (ascend910)";
    case Soc::kAtlasInference: return "Atlas inference (ascend310p)";
  }
  return "unknown";
}

}  // namespace aclnn_cpu
