// Product emulation (spec ABI-SOC-1): which product's gates apply, from ACLNN_CPU_SOC.
#pragma once

#include <optional>
#include <string_view>

namespace aclnn_cpu {

enum class Soc { kAtlasA2, kAtlasA3, kAtlasTraining, kAtlasInference };

// The product selected by ACLNN_CPU_SOC (ascend910b, ascend910_93, ascend910, ascend310p; unset or
// empty: Atlas A2). nullopt for an unknown name; ops then fail with ACLNN_ERR_RUNTIME_ERROR.
std::optional<Soc> current_soc();
std::string_view soc_name(Soc s);
inline bool soc_has_bf16(Soc s) { return s == Soc::kAtlasA2 || s == Soc::kAtlasA3; }

}  // namespace aclnn_cpu
