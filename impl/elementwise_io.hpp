// Block-wise loads and stores of the elementwise ops (two inputs, one output): the inputs of one
// block as floats holding values of the computation dtype (FLOAT, FLOAT16 or
// BFLOAT16 values are all exact floats), results rounded once to the output dtype. Contiguous
// 16-bit runs go through the vectorised conversions of impl/simd.hpp; strided, broadcast and
// integer inputs through dtype.hpp's scalar ones (the same results). Private to impl/.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace aclnn_cpu::ew {

// Elements per block: the staging buffers stay in L1 and the per-block overhead is negligible.
constexpr int64_t kBlock = 1024;
// Elements below which an elementwise op runs on the calling thread only.
constexpr int64_t kParallelGrain = 65536;

// How a kernel writes its results: doubles (to be stored by store_strided), or rounded once to a
// contiguous FLOAT / FLOAT16 / BFLOAT16 run.
enum class OutKind : int { kF64 = 0, kF32 = 1, kF16 = 2, kBF16 = 3 };
OutKind out_kind(aclDataType t);

// n elements of dtype `src` at p (byte stride; 0 = broadcast) as the computation dtype `comp`'s
// values (ints: the nearest value, ties to even). Returns p itself for a contiguous FLOAT run when
// comp is FLOAT, else buf (kBlock floats).
const float *load_comp(const char *p, int64_t stride, aclDataType src, aclDataType comp, int64_t n,
                       float *buf);

// The two inputs of one block as a kernel takes them: the runs themselves when both are contiguous
// runs of the computation dtype (kind: 1 float, 2 binary16, 3 bfloat16), else floats staged in
// buf_a/buf_b by load_comp (kind 1).
struct BlockInputs {
  const void *a, *b;
  int kind;
};
BlockInputs load_pair(const char *pa, int64_t sa, aclDataType ta, const char *pb, int64_t sb,
                      aclDataType tb, aclDataType comp, int64_t n, float *buf_a, float *buf_b);

// Stores n doubles at p (byte stride) rounded once to dtype t.
void store_strided(char *p, int64_t stride, aclDataType t, int64_t n, const double *v);
// Stores n FLOAT results (rounded already) at p (byte stride) as they are.
void store_strided(char *p, int64_t stride, int64_t n, const float *v);

}  // namespace aclnn_cpu::ew
