// The memory floor's loops for bench_impl: a read (a sum, like a reduction) and the triad
// a = b + 3c (two reads and a write, like a binary elementwise op), with plain or non-temporal
// stores. They use the widest vectors the CPU has, capped by ACLNN_CPU_TARGET as the library's
// dispatch is, with two accumulators, so that the floor is what the memory system gives a loop
// and not a limit of the loop itself: compiled for the x86-64 baseline (16-byte loads), one core
// of an AMD EPYC (Zen 5) VM read 27 GB/s, less than GroupedBiasAddGrad's own kernel (31 GB/s),
// and the ops' ratios to that "floor" were below 1.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aclnn_bench {

// The vectors the floors use: "AVX-512", "AVX2" or "SSE2" (or "scalar" off x86).
const char *floor_isa();

// The sum of p[b..e) (wrapping), read once.
uint32_t floor_read(const uint32_t *p, size_t b, size_t e);

// a[i] = x[i] + 3 y[i] for i in [b, e); stream: the stores are non-temporal (no read for
// ownership of a's lines), as the library writes outputs larger than the last-level cache.
void floor_triad(float *a, const float *x, const float *y, size_t b, size_t e, bool stream);

}  // namespace aclnn_bench
