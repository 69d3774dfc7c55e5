// GroupedBiasAddGrad's row accumulation on the best target (impl/grouped_bias_add_grad.cpp
// dispatches to impl/kernels/grouped_bias_add_grad-inl.hpp); declared here for the op and for the
// impl tests, which run them on every target.
#ifndef ACLNN_IMPL_KERNELS_GROUPED_BIAS_ADD_GRAD_HPP_
#define ACLNN_IMPL_KERNELS_GROUPED_BIAS_ADD_GRAD_HPP_

#include <cstddef>

namespace aclnn_cpu::gbag {

// How accumulate_rows_f64 reads its rows. In cache. From memory as eight FLOAT rows side by side,
// the next eight requested into L2 and each row's next lines into L1 (the default: on the Intel
// Xeon VM eight rows per pass measured faster than four). From memory as FLOAT rows one after the
// other, the next row requested into L2 (one stream: faster than eight on the AMD Zen 5 VM, not
// measured on other machines), or where the call runs on one thread the line 8 KB further along
// the rows (one core's outstanding requests, not memory's bandwidth, limit it then). 16-bit rows
// are eight-row trees in every mode, the next block requested into L2 from memory. The same bits in
// every mode.
enum RowRead : int { kInCache = 0, kEightStreams = 1, kOneStream = 2, kOneStreamAlone = 3 };

// acc[i] += src[i] for i < n, src of `kind` (1 FLOAT, 2 FLOAT16, 3 BFLOAT16).
void accumulate_f64(int kind, const void *src, double *acc, size_t n);
// acc += `rows` rows at src + r * row_stride bytes, in the kernel's order (the -inl.hpp's
// AccumulateRowsF64).
void accumulate_rows_f64(int kind, const void *src, ptrdiff_t row_stride, size_t rows, double *acc,
                         size_t n, RowRead read);
// The read from memory for this machine: ACLNN_CPU_GBAG_STREAMS=1 or 8 where set, else one
// stream on AMD family 1Ah (Zen 5) and eight streams elsewhere.
RowRead memory_row_read();

}  // namespace aclnn_cpu::gbag

#endif  // ACLNN_IMPL_KERNELS_GROUPED_BIAS_ADD_GRAD_HPP_
