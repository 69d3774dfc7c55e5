// The library's one SIMD layer (Google Highway): vectorised conversions between float, double and
// the 16-bit formats (and one array addition), written once (impl/simd-inl.hpp) and compiled for
// every target in impl/simd_targets.hpp; Highway picks the best one for the CPU at run time. Every
// conversion is exact or one rounding to nearest even, and gives the same bits as dtype.hpp's
// scalar reference on every target (tests/impl/test_simd.cpp runs each compiled target). Private to
// impl/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aclnn_cpu::simd {

// binary16 / bfloat16 -> float or double: exact (NaN payloads kept; a binary16 NaN made quiet).
void f16_to_f32(const uint16_t *src, float *dst, size_t n);
void bf16_to_f32(const uint16_t *src, float *dst, size_t n);
void f16_to_f64(const uint16_t *src, double *dst, size_t n);
void bf16_to_f64(const uint16_t *src, double *dst, size_t n);
void f32_to_f64(const float *src, double *dst, size_t n);
// float -> 16-bit, round to nearest even (NaN: quieted, the payload's top bits kept).
void f32_to_f16(const float *src, uint16_t *dst, size_t n);
void f32_to_bf16(const float *src, uint16_t *dst, size_t n);
// double -> narrower, one rounding to nearest even (no double rounding through float); NaN gives
// sign | 0x7e00 | the payload's top 9 bits (fp16, as through float), sign | 0x7fc0 (bf16).
void f64_to_f32(const double *src, float *dst, size_t n);
void f64_to_f16(const double *src, uint16_t *dst, size_t n);
void f64_to_bf16(const double *src, uint16_t *dst, size_t n);
// f64_to_f16's bits by another route (F16FromF64ViaOdd in simd-inl.hpp: round to odd at float's
// precision, then to binary16), which the kernels use where it is cheaper; tested against it on
// every target.
void f64_to_f16_via_odd(const double *src, uint16_t *dst, size_t n);
// acc[i] += src[i] for n doubles (the arrays do not overlap): the same bits as the scalar loop.
void add_f64(double *acc, const double *src, size_t n);

// An ACLNN_CPU_* switch read now: 0 or 1 as set, -1 when unset or anything else (the default).
int env_switch(const char *name);

// ---- non-temporal stores ------------------------------------------------------------------------
// Whether a call that touches `bytes` of memory writes its contiguous output with non-temporal
// stores: only when the bytes exceed streaming_threshold_bytes() (a quarter of the last-level
// cache), so the output would be evicted before anyone reads it, and streaming saves the
// read-for-ownership of every output line (a quarter of an elementwise op's memory traffic). The
// same bits either way. ACLNN_CPU_STREAM_STORES=0 or 1 in the environment turns it off or on for
// every size (for benchmarks and tests). A compute-bound loop (its arithmetic, not its memory
// traffic, sets its time) does not stream on any CPU: measured slower or no faster on Zen 5 VMs
// and up to 8.5x slower on an Ice Lake Xeon (docs/kernels.md#non-temporal-stores). A loop that
// assembles each output line in a buffer and streams it from there streams only where one vector
// is the whole line: with 32-byte vectors such lines measured slower streamed on Zen 4 and an Ice
// Lake Xeon.
enum class LoopKind { memory_bound, compute_bound, assembled_lines };
bool stream_output(int64_t bytes, LoopKind kind = LoopKind::memory_bound);
// The bytes of one vector of the dispatched target (64 on AVX-512, 32 on AVX2).
size_t vector_bytes();
// The family of an AMD x86 CPU (CPUID's base plus extended family: 0x19 Zen 3/4, 0x1a Zen 5), 0 on
// any other CPU; for choices measured on one family only.
unsigned amd_family();
// The last-level cache's size in bytes (read once), and the share of it above which a call's data
// counts as not staying cached: stream_output's threshold, and the kernels' for prefetching.
int64_t last_level_cache_bytes();
int64_t streaming_threshold_bytes();
// The level-1 data cache's size in bytes (read once), and how far ahead of its loads a streaming
// loop requests its inputs with prefetchnta: on AMD CPUs 8 KB with an L1 of 48 KB or more, 2 KB
// with less; elsewhere 0, no request (ACLNN_CPU_INPUT_PREFETCH=<bytes, at most 1 MiB> overrides).
int64_t l1_data_cache_bytes();
int64_t input_prefetch_bytes();
// Makes the non-temporal stores of the calling thread visible before it signals completion; every
// worker calls it at the end of its range.
void flush_streams();
// The length of the block that starts at out (contiguous elements of es bytes), at most m: when
// streaming into a run that is not 64-byte aligned, the elements up to the next 64-byte boundary,
// so every later block is aligned and streams (an unaligned block is stored normally).
int64_t stream_block(bool stream, const char *out, int64_t es, int64_t m);

// Whether the AVX-512 target may narrow float to bfloat16 with AVX512_BF16's VCVTNEPS2BF16 where
// the CPU has it (the same bits as without; see simd-inl.hpp). On unless ACLNN_CPU_BF16_INSN=0 at
// start-up; allow_bf16_insn sets it (tests and benchmarks compare both ways).
bool bf16_insn_allowed();
void allow_bf16_insn(bool allowed);
// Whether this build has that code (GCC on x86-64) and this CPU the instruction (read once).
bool bf16_insn_available();
// bf16_insn_available() and bf16_insn_allowed(): whether the AVX-512 target uses it now.
bool use_bf16_insn();
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ACLNN_SIMD_BF16_INSN_BUILT 1
#else
#define ACLNN_SIMD_BF16_INSN_BUILT 0
#endif

// For tests and benchmarks: the Highway targets compiled into the library that this CPU can run
// (bit flags, best first), the name of one, and the target in use now.
std::vector<int64_t> runnable_targets();
std::string target_name(int64_t target);
std::string current_target_name();
// Restricts dispatch to `target` (one flag from runnable_targets()); 0 restores the default (all
// runnable targets, or those ACLNN_CPU_TARGET allows).
// Not thread-safe: for tests and benchmarks only.
void force_target(int64_t target);

}  // namespace aclnn_cpu::simd
