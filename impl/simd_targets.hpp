// Which Highway targets the library compiles (every file that uses foreach_target.h includes this
// first, so all of them dispatch over the same set): AVX-512 (AVX3), AVX2 and the portable
// baseline (EMU128). SSSE3/SSE4 are left out (no measurable use on the CPUs this library targets
// and each target costs compile time); AVX3_DL adds no instruction these kernels use.
#pragma once

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4 | HWY_AVX3_DL)
#endif
