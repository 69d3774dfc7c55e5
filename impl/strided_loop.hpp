// Iteration over K views that share one (broadcast) shape. Dims are coalesced where every operand
// allows it, so a contiguous or row-broadcast case becomes one long inner run; the multi-index is
// computed from scratch once per chunk and then carried, never per element.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "impl/dtype.hpp"
#include "impl/tensor.hpp"

namespace aclnn_cpu {

template <int K>
struct StridedLoop {
  int rank = 0;                            // >= 1 after make()
  std::array<int64_t, kMaxRank> sizes{};   // outermost first
  std::array<std::array<int64_t, kMaxRank>, K> strides{};  // bytes; 0 where broadcast
  std::array<char *, K> base{};
  int64_t numel = 0;

  // ops[k] must broadcast to shape (ABI-BCAST-1): checked by the caller.
  static StridedLoop make(const std::vector<int64_t> &shape, const std::array<const aclTensor *, K> &ops) {
    StridedLoop l;
    l.numel = aclnn_cpu::numel(shape);
    const int r = static_cast<int>(shape.size());
    // Per dim (outer to inner), each operand's byte stride, 0 where it broadcasts.
    std::array<std::array<int64_t, kMaxRank>, K> st{};
    for (int k = 0; k < K; ++k) {
      const aclTensor &t = *ops[k];
      const int tr = static_cast<int>(t.view_dims.size());
      const auto es = static_cast<int64_t>(dtype_size(t.dtype));
      for (int d = 0; d < r; ++d) {
        const int td = d - (r - tr);
        st[k][d] = (td < 0 || t.view_dims[td] == 1) ? 0 : t.strides[td] * es;
      }
      l.base[k] = view_base(t);
    }
    // Drop size-1 dims and merge neighbours (outer d0, inner d1) when stride[d0] = stride[d1]*size[d1].
    int out = 0;
    for (int d = 0; d < r; ++d) {
      if (shape[d] == 1) continue;
      bool merge = out > 0;
      for (int k = 0; k < K && merge; ++k)
        merge = l.strides[k][out - 1] == st[k][d] * shape[d];
      if (merge) {
        l.sizes[out - 1] *= shape[d];
        for (int k = 0; k < K; ++k) l.strides[k][out - 1] = st[k][d];
      } else {
        l.sizes[out] = shape[d];
        for (int k = 0; k < K; ++k) l.strides[k][out] = st[k][d];
        ++out;
      }
    }
    if (out == 0) {  // rank 0 or all ones: one element
      l.sizes[0] = 1;
      for (int k = 0; k < K; ++k) l.strides[k][0] = 0;
      out = 1;
    }
    l.rank = out;
    return l;
  }

  // Inner-dim stride (bytes) of operand k.
  int64_t inner_stride(int k) const { return strides[k][rank - 1]; }

  // Calls inner(ptrs, inner_strides, n) over runs of the innermost dim that cover the flat
  // (row-major) indices [begin, end).
  template <typename F>
  void for_range(int64_t begin, int64_t end, F &&inner) const {
    if (begin >= end) return;
    std::array<int64_t, kMaxRank> idx{};
    int64_t rem = begin;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
    }
    std::array<char *, K> p;
    for (int k = 0; k < K; ++k) {
      p[k] = base[k];
      for (int d = 0; d < rank; ++d) p[k] += idx[d] * strides[k][d];
    }
    std::array<int64_t, K> is;
    for (int k = 0; k < K; ++k) is[k] = strides[k][rank - 1];
    int64_t pos = begin;
    const int last = rank - 1;
    while (pos < end) {
      const int64_t n = std::min(sizes[last] - idx[last], end - pos);
      inner(p, is, n);
      pos += n;
      idx[last] += n;
      for (int k = 0; k < K; ++k) p[k] += n * is[k];
      // Carry into outer dims, moving each pointer back by the finished dim's extent.
      for (int d = last; d > 0 && idx[d] == sizes[d]; --d) {
        idx[d] = 0;
        ++idx[d - 1];
        for (int k = 0; k < K; ++k) p[k] += strides[k][d - 1] - sizes[d] * strides[k][d];
      }
    }
  }
};

}  // namespace aclnn_cpu
