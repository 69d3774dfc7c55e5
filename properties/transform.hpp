// Value-level transforms for metamorphic properties: they build a related case from a case.
#pragma once

#include <functional>
#include <vector>

#include "properties/staging.hpp"

namespace aclnn_conform {

// A contiguous tensor of shape `to` holding a's elements broadcast to it (ABI-BCAST-1).
TensorArg materialise(const TensorArg &a, const std::vector<int64_t> &to);

// a with every element of its view replaced by f(value) rounded once to a's dtype.
TensorArg map_values(const TensorArg &a, const std::function<double(double)> &f);

// The output view's elements as doubles, from storage bytes read back after a run.
std::vector<double> view_values(const TensorArg &layout, const std::vector<std::byte> &storage);

}  // namespace aclnn_conform
