// Index arithmetic the properties need on host tensors (not on a hot path).
#pragma once

#include <cstdint>
#include <vector>

namespace aclnn_conform {

// The flat (row-major) index, within an input of shape in_shape, of the element that broadcasts
// (ABI-BCAST-1) to flat index out_flat of out_shape.
inline int64_t broadcast_source(const std::vector<int64_t> &in_shape,
                                const std::vector<int64_t> &out_shape, int64_t out_flat) {
  const size_t r = out_shape.size(), ri = in_shape.size();
  int64_t in_flat = 0, in_stride = 1;
  for (size_t k = 0; k < r; ++k) {
    const size_t d = r - 1 - k;
    const int64_t i = out_flat % out_shape[d];
    out_flat /= out_shape[d];
    if (k < ri) {
      const int64_t di = in_shape[ri - 1 - k];
      in_flat += (di == 1 ? 0 : i) * in_stride;
      in_stride *= di;
    }
  }
  return in_flat;
}

inline int64_t shape_numel(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

}  // namespace aclnn_conform
