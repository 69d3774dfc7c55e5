// LayerNormBackward's target-independent part: the arguments the plan
// (impl/layer_norm_backward.cpp) hands to the row kernels
// (impl/kernels/layer_norm_backward-inl.hpp, compiled once per target).
#ifndef ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_HPP_
#define ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_HPP_

#include <cstdint>

namespace aclnn_cpu {

// What every row of a call shares. w/wf: the weight as doubles / floats (wf where rows may be
// float rows), or null; wmax: the largest |wf| (1 without a weight); float_kind: gradInput's kind
// (1 FLOAT, 2 FLOAT16, 3 BFLOAT16) where rows may be float rows, else 0; pw/pb: the block's column
// partials of dy * xhat and dy, or null.
struct LnShared {
  int64_t n = 0;  // elements per row
  const double *w = nullptr;
  const float *wf = nullptr;
  float wmax = 1.0f;
  int float_kind = 0;
  double *pw = nullptr, *pb = nullptr;
  bool pairs = false;  // rows in place in pairs (LnRowPairsT) where they can be
};

// One row for LnRow: x, dy and gi (in place, or double buffers), its mean and rstd, and the next
// row's x and dy to prefetch (in-place rows; else null).
struct LnRowArgs {
  const void *x = nullptr, *dy = nullptr;
  void *gi = nullptr;
  double mean = 0, rstd = 0;
  const char *next_x = nullptr, *next_dy = nullptr;
};

// Consecutive rows for LnRowsPipelined, in place: row r at x[r], dy[r], gi[r], mean[r], rstd[r];
// stream: 64-byte aligned gradInput rows are written with non-temporal stores.
struct LnRowsArgs {
  int64_t rows = 0;
  const void *const *x = nullptr, *const *dy = nullptr;
  void *const *gi = nullptr;
  const double *mean = nullptr, *rstd = nullptr;
  bool stream = false;
};

}  // namespace aclnn_cpu

#endif  // ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_HPP_
