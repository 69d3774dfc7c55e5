// ABI-PROMOTE-1 type promotion for the oracle's DType (no ABI types).
#pragma once

#include <optional>

#include "reference/dtype.hpp"

namespace aclnn_ref {

// The promoted dtype of a and b per the ABI-PROMOTE-1 table, or nullopt where the table says x:
// u16, u32 and u64 promote only with themselves, complex types are out of scope.
std::optional<DType> promote_types(DType a, DType b);

}  // namespace aclnn_ref
