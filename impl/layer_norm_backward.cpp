// aclnnLayerNormBackward on the CPU (spec layer_norm_backward.md, clauses LN-*).
//
// Values are computed in double from the exact input values and rounded once to the output
// dtype (LN-VALUE-3). Rows are independent for gradInput; gradWeight/gradBias are column sums over
// the M rows, cut into row blocks whose size depends only on the shape: every block keeps its
// partial sums in the caller's workspace and the partials are added in block order, so results
// are bitwise identical for any ACLNN_CPU_NUM_THREADS (VAL-DET-1).
//
// Layout handling: each tensor's dims are split into the leading (row) dims and the normalized
// (column) dims and each part is coalesced on its own. Rows of contiguous FLOAT input/gradOut are
// read in place and a contiguous FLOAT gradInput row is written in place (the fast path); any
// other layout or dtype gathers a row into a contiguous double buffer and scatters gradInput back
// with one rounding. Multi-indices are carried, never recomputed per element.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/soc.hpp"
#include "impl/status.hpp"
#include "impl/tensor.hpp"

// No contraction into FMA: the AVX-512/AVX2 clones below must give the same bits as the baseline.
#pragma GCC optimize("fp-contract=off")
// Functions taking or returning the vector types below are always_inline: a call between an
// AVX-512 clone and a baseline function would pass them differently (the -Wpsabi warning).
#pragma GCC diagnostic ignored "-Wpsabi"

// Baseline only where clones cannot be used: clang (the fuzz build) cannot multiversion templates,
// and under TSan the ifunc resolvers would run, instrumented, before its runtime is up.
#if defined(__clang__) || defined(__SANITIZE_THREAD__)
#define ACLNN_LN_CLONES
#else
#define ACLNN_LN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

namespace aclnn_cpu {

// Conversions used by the row loops, written to vectorize. Not static so that the unit tests can
// compare them with dtype.hpp's reference conversions (hidden outside the library).
namespace layer_norm_detail {

// binary16 bits -> float, exact (normals, subnormals, inf, NaN), branch-free.
float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;
  // Shifting exponent and mantissa into float position and scaling by 2^112 rebiases the
  // exponent; subnormal halves become float subnormals that the (exact) scaling normalizes.
  const float mag = std::bit_cast<float>(em << 13) * 0x1p112f;
  const uint32_t bits = em >= 0x7c00u ? (0x7f800000u | (em << 13)) : std::bit_cast<uint32_t>(mag);
  return std::bit_cast<float>(bits | sign);
}

// double -> binary16 bits, round to nearest even in one step (same results as double_to_half).
uint16_t double_to_half_bits(double d) {
  const uint64_t b = std::bit_cast<uint64_t>(d);
  const uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000u);
  const uint64_t a = b & 0x7fffffffffffffffull;
  const double ad = std::bit_cast<double>(a);
  // Subnormal range (< 2^-14): round to a multiple of 2^-24 by adding 2^28 (ulp there: 2^-24).
  const double as = ad < 0x1p-14 ? ad : 0.0;  // keeps the conversion below in range
  const double sub = (as + 0x1p28) - 0x1p28;
  const uint16_t sub_bits = static_cast<uint16_t>(static_cast<int32_t>(sub * 0x1p24));
  // Normal range: round the 52-bit mantissa to 10 bits on the integer representation; a carry
  // out of the mantissa correctly bumps the exponent.
  const uint64_t r = (a + ((uint64_t{1} << 41) - 1) + ((a >> 42) & 1)) >> 42;
  const uint16_t norm_bits = static_cast<uint16_t>(r - (uint64_t{1008} << 10));
  uint16_t out = ad < 0x1p-14 ? sub_bits : norm_bits;
  out = ad >= 65520.0 ? uint16_t{0x7c00} : out;
  out = a > 0x7ff0000000000000ull ? uint16_t{0x7e00} : out;
  return sign | out;
}

// double -> bfloat16 bits, round to nearest even in one step (same results as double_to_bf16
// for every non-NaN; NaN gives a quiet NaN).
uint16_t double_to_bf16_bits(double d) {
  const uint64_t b = std::bit_cast<uint64_t>(d);
  const uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000u);
  const uint64_t a = b & 0x7fffffffffffffffull;
  const double ad = std::bit_cast<double>(a);
  const double as = ad < 0x1p-126 ? ad : 0.0;
  const double sub = (as + 0x1p-81) - 0x1p-81;  // multiple of 2^-133 (bf16 subnormal quantum)
  const uint16_t sub_bits = static_cast<uint16_t>(static_cast<int32_t>(sub * 0x1p133));
  const uint64_t r = (a + ((uint64_t{1} << 44) - 1) + ((a >> 45) & 1)) >> 45;
  const uint16_t norm_bits = static_cast<uint16_t>(r - (uint64_t{896} << 7));
  uint16_t out = ad < 0x1p-126 ? sub_bits : norm_bits;
  out = ad >= 0x1.ffp127 ? uint16_t{0x7f80} : out;
  out = a > 0x7ff0000000000000ull ? uint16_t{0x7fc0} : out;
  return sign | out;
}

// Contiguous runs, eight at a time with explicit vectors (same results as the scalar functions
// above, element for element), the tail by the scalar functions.
typedef uint16_t V8u16 __attribute__((vector_size(16)));
typedef uint32_t V8u32 __attribute__((vector_size(32)));
typedef uint64_t V8u64 __attribute__((vector_size(64)));
typedef int64_t V8i64 __attribute__((vector_size(64)));
typedef float V8f32 __attribute__((vector_size(32)));
typedef double V8f64 __attribute__((vector_size(64)));

ACLNN_LN_CLONES void half_run_to_double(const uint16_t *__restrict p, int64_t n,
                                        double *__restrict out) {
  const int64_t n8 = n / 8 * 8;
  for (int64_t j = 0; j < n8; j += 8) {
    V8u16 h;
    std::memcpy(&h, p + j, sizeof h);
    const V8u32 u = __builtin_convertvector(h, V8u32);
    const V8u32 sign = (u & 0x8000u) << 16;
    const V8u32 em = u & 0x7fffu;
    const V8f32 mag = std::bit_cast<V8f32>(em << 13) * 0x1p112f;
    const V8u32 bits = em >= 0x7c00u ? ((em << 13) | 0x7f800000u) : std::bit_cast<V8u32>(mag);
    const V8u32 fb = bits | sign;
    const V8f64 d = __builtin_convertvector(std::bit_cast<V8f32>(fb), V8f64);
    std::memcpy(out + j, &d, sizeof d);
  }
  for (int64_t j = n8; j < n; ++j) out[j] = half_bits_to_float(p[j]);
}

ACLNN_LN_CLONES void bf16_run_to_double(const uint16_t *__restrict p, int64_t n,
                                        double *__restrict out) {
  const int64_t n8 = n / 8 * 8;
  for (int64_t j = 0; j < n8; j += 8) {
    V8u16 h;
    std::memcpy(&h, p + j, sizeof h);
    const V8u32 u = __builtin_convertvector(h, V8u32) << 16;
    const V8f64 d = __builtin_convertvector(std::bit_cast<V8f32>(u), V8f64);
    std::memcpy(out + j, &d, sizeof d);
  }
  for (int64_t j = n8; j < n; ++j) out[j] = std::bit_cast<float>(static_cast<uint32_t>(p[j]) << 16);
}

// Rounds eight doubles to 16-bit formats: mant_bits (10 or 7) fraction bits, exponent rebias,
// subnormal quantum 2^sub_exp, overflow threshold, canonical NaN.
template <int kFrac, int64_t kRebias, int kSubExp, uint16_t kNan>
__attribute__((always_inline)) inline V8u16 round8(V8f64 d, double min_normal, double overflow) {
  const V8u64 b = std::bit_cast<V8u64>(d);
  const V8u64 sign = (b >> 48) & 0x8000u;
  const V8u64 a = b & 0x7fffffffffffffffull;
  const V8f64 ad = std::bit_cast<V8f64>(a);
  const V8f64 zero = {};
  const V8f64 as = ad < min_normal ? ad : zero;
  const double big = std::ldexp(1.0, 52 + kSubExp);
  // as + big lies in [big, 2 big) where the ulp is the subnormal quantum: the addition rounds to
  // it (ties to even) and the low bits of the sum are the subnormal's integer mantissa.
  const V8u64 sub_bits = std::bit_cast<V8u64>(as + big) - std::bit_cast<uint64_t>(big);
  constexpr int kShift = 52 - kFrac;
  const V8u64 r = (a + ((uint64_t{1} << (kShift - 1)) - 1) + ((a >> kShift) & 1)) >> kShift;
  const V8u64 norm_bits = r - static_cast<uint64_t>(kRebias << kFrac);
  V8u64 out = ad < min_normal ? sub_bits : norm_bits;
  const uint64_t inf = kFrac == 10 ? 0x7c00u : 0x7f80u;
  out = ad >= overflow ? inf + V8u64{} : out;
  out = a > 0x7ff0000000000000ull ? kNan + V8u64{} : out;
  return __builtin_convertvector((out & 0xffffu) | sign, V8u16);
}

ACLNN_LN_CLONES void double_run_to_half(const double *__restrict in, int64_t n,
                                        uint16_t *__restrict p) {
  const int64_t n8 = n / 8 * 8;
  for (int64_t j = 0; j < n8; j += 8) {
    V8f64 d;
    std::memcpy(&d, in + j, sizeof d);
    const V8u16 h = round8<10, 1008, -24, 0x7e00>(d, 0x1p-14, 65520.0);
    std::memcpy(p + j, &h, sizeof h);
  }
  for (int64_t j = n8; j < n; ++j) p[j] = double_to_half_bits(in[j]);
}

ACLNN_LN_CLONES void double_run_to_bf16(const double *__restrict in, int64_t n,
                                        uint16_t *__restrict p) {
  const int64_t n8 = n / 8 * 8;
  for (int64_t j = 0; j < n8; j += 8) {
    V8f64 d;
    std::memcpy(&d, in + j, sizeof d);
    const V8u16 h = round8<7, 896, -133, 0x7fc0>(d, 0x1p-126, 0x1.ffp127);
    std::memcpy(p + j, &h, sizeof h);
  }
  for (int64_t j = n8; j < n; ++j) p[j] = double_to_bf16_bits(in[j]);
}

}  // namespace layer_norm_detail

namespace {

using layer_norm_detail::double_to_bf16_bits;
using layer_norm_detail::double_to_half_bits;
using layer_norm_detail::half_bits_to_float;

constexpr const char *kOp = "aclnnLayerNormBackward";

// ---- views ---------------------------------------------------------------------------------

// Coalesced dims (outermost first), strides in elements; n == 0 means a single element.
struct Dims {
  int n = 0;
  std::array<int64_t, kMaxRank> size{};
  std::array<int64_t, kMaxRank> stride{};
};

Dims coalesce(const int64_t *sizes, const int64_t *strides, int count) {
  Dims d;
  for (int i = 0; i < count; ++i) {
    if (sizes[i] == 1) continue;
    if (d.n > 0 && d.stride[d.n - 1] == strides[i] * sizes[i]) {
      d.size[d.n - 1] *= sizes[i];
      d.stride[d.n - 1] = strides[i];
    } else {
      d.size[d.n] = sizes[i];
      d.stride[d.n] = strides[i];
      ++d.n;
    }
  }
  return d;
}

// Calls f(offset, len, stride) for each innermost run of the dims, in row-major order, starting at
// base (elements). The multi-index is carried from run to run.
template <typename F>
void for_each_run(const Dims &d, int64_t base, F &&f) {
  if (d.n == 0) {
    f(base, int64_t{1}, int64_t{0});
    return;
  }
  const int last = d.n - 1;
  std::array<int64_t, kMaxRank> idx{};
  int64_t off = base;
  for (;;) {
    f(off, d.size[last], d.stride[last]);
    int k = last - 1;
    for (; k >= 0; --k) {
      off += d.stride[k];
      if (++idx[k] < d.size[k]) break;
      off -= d.size[k] * d.stride[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

// Offset (elements) of the first element of each row over the leading dims, carried row to row.
struct RowCursor {
  const Dims *outer = nullptr;
  std::array<int64_t, kMaxRank> idx{};
  int64_t off = 0;

  void seek(const Dims &o, int64_t base, int64_t row) {  // once per chunk
    outer = &o;
    off = base;
    for (int k = o.n - 1; k >= 0; --k) {
      idx[k] = row % o.size[k];
      row /= o.size[k];
      off += idx[k] * o.stride[k];
    }
  }
  void next() {
    for (int k = outer->n - 1; k >= 0; --k) {
      off += outer->stride[k];
      if (++idx[k] < outer->size[k]) return;
      off -= outer->size[k] * outer->stride[k];
      idx[k] = 0;
    }
  }
};

// A tensor as the run needs it (captured by value in the executor).
struct RowView {
  char *data = nullptr;  // storage start
  int64_t offset = 0;    // elements
  aclDataType dtype = ACL_FLOAT;
  Dims outer, inner;
};

RowView make_row_view(const aclTensor &t, int lead) {
  RowView v;
  v.data = static_cast<char *>(t.data);
  v.offset = t.offset;
  v.dtype = t.dtype;
  const int r = rank(t);
  v.outer = coalesce(t.view_dims.data(), t.strides.data(), lead);
  v.inner = coalesce(t.view_dims.data() + lead, t.strides.data() + lead, r - lead);
  return v;
}

// ---- loads and stores ----------------------------------------------------------------------

template <typename T>
inline double to_double(T v);
template <>
inline double to_double<float>(float v) {
  return v;
}
struct Half {
  uint16_t bits;
};
struct Bf16 {
  uint16_t bits;
};
template <>
inline double to_double<Half>(Half v) {
  return half_bits_to_float(v.bits);
}
template <>
inline double to_double<Bf16>(Bf16 v) {
  return std::bit_cast<float>(static_cast<uint32_t>(v.bits) << 16);
}

template <typename T>
ACLNN_LN_CLONES void load_run(const T *__restrict p, int64_t len, int64_t st,
                              double *__restrict out) {
  if constexpr (std::is_same_v<T, Half>) {
    if (st == 1) return layer_norm_detail::half_run_to_double(&p->bits, len, out);
  }
  if constexpr (std::is_same_v<T, Bf16>) {
    if (st == 1) return layer_norm_detail::bf16_run_to_double(&p->bits, len, out);
  }
  if (st == 1) {
    for (int64_t j = 0; j < len; ++j) out[j] = to_double(p[j]);
  } else {
    for (int64_t j = 0; j < len; ++j) out[j] = to_double(p[j * st]);
  }
}

template <typename T>
inline T from_double(double v);
template <>
inline float from_double<float>(double v) {
  return static_cast<float>(v);
}
template <>
inline Half from_double<Half>(double v) {
  return Half{double_to_half_bits(v)};
}
template <>
inline Bf16 from_double<Bf16>(double v) {
  return Bf16{double_to_bf16_bits(v)};
}

template <typename T>
ACLNN_LN_CLONES void store_run(T *__restrict p, int64_t len, int64_t st,
                               const double *__restrict in) {
  if constexpr (std::is_same_v<T, Half>) {
    if (st == 1) return layer_norm_detail::double_run_to_half(in, len, &p->bits);
  }
  if constexpr (std::is_same_v<T, Bf16>) {
    if (st == 1) return layer_norm_detail::double_run_to_bf16(in, len, &p->bits);
  }
  if (st == 1) {
    for (int64_t j = 0; j < len; ++j) p[j] = from_double<T>(in[j]);
  } else {
    for (int64_t j = 0; j < len; ++j) p[j * st] = from_double<T>(in[j]);
  }
}

// Loads the elements of dims d at element offset base of data, in row-major order, into out.
template <typename T>
void gather_t(const char *data, const Dims &d, int64_t base, double *out) {
  const T *p = reinterpret_cast<const T *>(data);
  for_each_run(d, base, [&](int64_t off, int64_t len, int64_t st) {
    load_run<T>(p + off, len, st, out);
    out += len;
  });
}
void gather(const char *data, aclDataType t, const Dims &d, int64_t base, double *out) {
  switch (t) {
    case ACL_FLOAT16:
      return gather_t<Half>(data, d, base, out);
    case ACL_BF16:
      return gather_t<Bf16>(data, d, base, out);
    default:
      return gather_t<float>(data, d, base, out);
  }
}

template <typename T>
void scatter_t(char *data, const Dims &d, int64_t base, const double *in) {
  T *p = reinterpret_cast<T *>(data);
  for_each_run(d, base, [&](int64_t off, int64_t len, int64_t st) {
    store_run<T>(p + off, len, st, in);
    in += len;
  });
}
void scatter(char *data, aclDataType t, const Dims &d, int64_t base, const double *in) {
  switch (t) {
    case ACL_FLOAT16:
      return scatter_t<Half>(data, d, base, in);
    case ACL_BF16:
      return scatter_t<Bf16>(data, d, base, in);
    default:
      return scatter_t<float>(data, d, base, in);
  }
}

// ---- the row kernel ------------------------------------------------------------------------

// Eight doubles, one per lane: lane l of a row sum accumulates the elements j = l (mod 8). The
// lanes are a fixed part of the arithmetic (not the compiler's choice), so every ISA clone gives
// the same bits.
typedef double V8d __attribute__((vector_size(64)));
typedef float V8f __attribute__((vector_size(32)));

template <typename T>
__attribute__((always_inline)) inline V8d load8(const T *p) {
  if constexpr (std::is_same_v<T, double>) {
    V8d v;
    std::memcpy(&v, p, sizeof v);
    return v;
  } else {
    V8f f;
    std::memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, V8d);
  }
}
template <typename T>
__attribute__((always_inline)) inline void store8(T *p, V8d v) {
  if constexpr (std::is_same_v<T, double>) {
    std::memcpy(p, &v, sizeof v);
  } else {
    const V8f f = __builtin_convertvector(v, V8f);  // one rounding, to nearest even
    std::memcpy(p, &f, sizeof f);
  }
}

// One row. TIn: float (the row read in place, contiguous FLOAT) or double (a gathered row); TOut:
// float (gradInput written in place) or double (a buffer scattered afterwards). w is the weight as
// doubles (kW). With kGI writes gradInput (LN-VALUE-1); pw/pb, when not null, receive dy*xhat and
// dy added into the block's column partials (LN-VALUE-2).
template <typename TIn, typename TOut, bool kW, bool kGI>
ACLNN_LN_CLONES void row_kernel(int64_t n, const TIn *__restrict x, const TIn *__restrict dy,
                                const double *__restrict w, double mean, double rstd,
                                TOut *__restrict gi, double *__restrict pw, double *__restrict pb) {
  const V8d vm = mean + V8d{}, vr = rstd + V8d{};
  const int64_t n8 = n / 8 * 8;
  double c1 = 0.0, c2 = 0.0;
  if constexpr (kGI) {
    V8d a1 = {}, a2 = {};
    for (int64_t j = 0; j < n8; j += 8) {
      const V8d d = load8(dy + j);
      const V8d g = kW ? d * load8(w + j) : d;
      const V8d xh = (load8(x + j) - vm) * vr;
      a1 += g;
      a2 += g * xh;
    }
    double s1 = ((a1[0] + a1[4]) + (a1[2] + a1[6])) + ((a1[1] + a1[5]) + (a1[3] + a1[7]));
    double s2 = ((a2[0] + a2[4]) + (a2[2] + a2[6])) + ((a2[1] + a2[5]) + (a2[3] + a2[7]));
    for (int64_t j = n8; j < n; ++j) {
      const double d = dy[j];
      const double g = kW ? d * w[j] : d;
      const double xh = (static_cast<double>(x[j]) - mean) * rstd;
      s1 += g;
      s2 += g * xh;
    }
    const double dn = static_cast<double>(n);
    c1 = s1 / dn;
    c2 = s2 / dn;
  }
  const V8d vc1 = c1 + V8d{}, vc2 = c2 + V8d{};
  for (int64_t j = 0; j < n8; j += 8) {
    const V8d d = load8(dy + j);
    const V8d xh = (load8(x + j) - vm) * vr;
    if constexpr (kGI) {
      const V8d g = kW ? d * load8(w + j) : d;
      store8(gi + j, vr * ((g - vc1) - xh * vc2));
    }
    if (pw) store8(pw + j, load8(pw + j) + d * xh);
    if (pb) store8(pb + j, load8(pb + j) + d);
  }
  for (int64_t j = n8; j < n; ++j) {
    const double d = dy[j];
    const double xh = (static_cast<double>(x[j]) - mean) * rstd;
    if constexpr (kGI) {
      const double g = kW ? d * w[j] : d;
      gi[j] = static_cast<TOut>(rstd * ((g - c1) - xh * c2));
    }
    if (pw) pw[j] += d * xh;
    if (pb) pb[j] += d;
  }
}

template <typename TIn, typename TOut>
using RowKernel = void (*)(int64_t, const TIn *, const TIn *, const double *, double, double,
                           TOut *, double *, double *);

template <typename TIn, typename TOut>
RowKernel<TIn, TOut> pick_kernel(bool w, bool gi) {
  if (w) return gi ? &row_kernel<TIn, TOut, true, true> : &row_kernel<TIn, TOut, true, false>;
  return gi ? &row_kernel<TIn, TOut, false, true> : &row_kernel<TIn, TOut, false, false>;
}

// A row of this view is one contiguous run of FLOAT: read or written in place.
bool row_is_dense_float(const RowView &v) {
  return v.dtype == ACL_FLOAT && (v.inner.n == 0 || (v.inner.n == 1 && v.inner.stride[0] == 1));
}

// ---- the plan ------------------------------------------------------------------------------

// Rows per block of the column sums: a function of the shape only (VAL-DET-1). At least 8 rows a
// block (the workspace, blocks * N * 16 bytes, stays at most 2 bytes per input element) and at most
// ~128 blocks (the final reduction reads blocks * N partials).
int64_t rows_per_block(int64_t m) {
  return std::max<int64_t>(8, (m + 127) / 128);
}
constexpr int64_t kAlign = 64;  // bytes; the workspace pointer is aligned up inside
// Doubles per partial, a multiple of 8 so that each partial starts 64-byte aligned.
int64_t padded(int64_t n) {
  return (n + 7) / 8 * 8;
}

struct Plan {
  int64_t m = 0, n = 0;
  bool has_w = false, gi = false, gw = false, gb = false;
  RowView x, dy, out_gi;
  // mean/rstd (flat row order over their own dims), weight (over its dims), gradWeight/gradBias.
  RowView mean, rstd, w, out_gw, out_gb;
  int64_t block_rows = 0, blocks = 0, parts = 0;
};

uint64_t workspace_bytes(const Plan &p) {
  if (!(p.gw || p.gb) || p.m == 0 || p.n == 0) return 0;
  return static_cast<uint64_t>(kAlign + p.blocks * p.parts * padded(p.n) * 8);
}

void fill_zero(const RowView &v, int64_t n) {
  std::vector<double> z(static_cast<size_t>(n), 0.0);
  scatter(v.data, v.dtype, v.inner, v.offset, z.data());
}

void run_plan(const Plan &p, void *workspace) {
  if (!(p.gi || p.gw || p.gb)) return;  // LN-MASK-2: all three false, nothing runs
  if (p.n == 0) return;                 // every requested output is empty
  if (p.m == 0) {                       // LN-EMPTY-1
    if (p.gw) fill_zero(p.out_gw, p.n);
    if (p.gb) fill_zero(p.out_gb, p.n);
    return;
  }
  const int64_t m = p.m, n = p.n;
  std::vector<double> mean(static_cast<size_t>(m)), rstd(static_cast<size_t>(m)), w;
  gather(p.mean.data, p.mean.dtype, p.mean.inner, p.mean.offset, mean.data());
  gather(p.rstd.data, p.rstd.dtype, p.rstd.inner, p.rstd.offset, rstd.data());
  if (p.has_w) {
    w.resize(static_cast<size_t>(n));
    gather(p.w.data, p.w.dtype, p.w.inner, p.w.offset, w.data());
  }
  // Fast path: rows of input and gradOut (and gradInput) contiguous FLOAT are read (written) in
  // place; otherwise rows are gathered to (scattered from) double buffers.
  const bool in_place = row_is_dense_float(p.x) && row_is_dense_float(p.dy);
  const bool out_place = p.gi && row_is_dense_float(p.out_gi);
  const auto k_ff = pick_kernel<float, float>(p.has_w, p.gi);
  const auto k_fd = pick_kernel<float, double>(p.has_w, p.gi);
  const auto k_df = pick_kernel<double, float>(p.has_w, p.gi);
  const auto k_dd = pick_kernel<double, double>(p.has_w, p.gi);

  // Rows [r0, r1): gather, kernel, scatter; pw/pb may be null.
  const auto do_rows = [&](int64_t r0, int64_t r1, double *pw, double *pb) {
    // Row buffers only where a row is gathered or scattered (uninitialized: always written first).
    const int64_t bufs = (in_place ? 0 : 2) + (p.gi && !out_place ? 1 : 0);
    std::unique_ptr<double[]> buf(bufs ? new double[static_cast<size_t>(bufs * padded(n))]
                                       : nullptr);
    double *xb = buf.get(), *db = in_place ? nullptr : xb + padded(n);
    double *gb = in_place ? xb : db + padded(n);
    RowCursor cx, cd, cg;
    cx.seek(p.x.outer, p.x.offset, r0);
    cd.seek(p.dy.outer, p.dy.offset, r0);
    if (p.gi) cg.seek(p.out_gi.outer, p.out_gi.offset, r0);
    for (int64_t r = r0; r < r1; ++r) {
      float *go = out_place ? reinterpret_cast<float *>(p.out_gi.data) + cg.off : nullptr;
      if (in_place) {
        const float *xf = reinterpret_cast<const float *>(p.x.data) + cx.off;
        const float *df = reinterpret_cast<const float *>(p.dy.data) + cd.off;
        if (go)
          k_ff(n, xf, df, w.data(), mean[r], rstd[r], go, pw, pb);
        else
          k_fd(n, xf, df, w.data(), mean[r], rstd[r], gb, pw, pb);
      } else {
        gather(p.x.data, p.x.dtype, p.x.inner, cx.off, xb);
        gather(p.dy.data, p.dy.dtype, p.dy.inner, cd.off, db);
        if (go)
          k_df(n, xb, db, w.data(), mean[r], rstd[r], go, pw, pb);
        else
          k_dd(n, xb, db, w.data(), mean[r], rstd[r], gb, pw, pb);
      }
      if (p.gi) {
        if (!go) scatter(p.out_gi.data, p.out_gi.dtype, p.out_gi.inner, cg.off, gb);
        cg.next();
      }
      cx.next();
      cd.next();
    }
  };

  if (!(p.gw || p.gb)) {  // gradInput only: rows in parallel, no reduction
    parallel_for(m, std::max<int64_t>(1, 16384 / n),
                 [&](int64_t r0, int64_t r1) { do_rows(r0, r1, nullptr, nullptr); });
    return;
  }

  auto base = reinterpret_cast<uintptr_t>(workspace);
  base = (base + kAlign - 1) / kAlign * kAlign;
  double *ws = reinterpret_cast<double *>(base);
  const int64_t stride = padded(n);
  const auto part = [&](int64_t block, int64_t k) { return ws + (block * p.parts + k) * stride; };
  // Which partial slot each requested sum uses.
  const int64_t kw = 0, kb = p.gw ? 1 : 0;

  parallel_for(p.blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      double *pw = p.gw ? part(b, kw) : nullptr;
      double *pb = p.gb ? part(b, kb) : nullptr;
      if (pw) std::fill(pw, pw + n, 0.0);
      if (pb) std::fill(pb, pb + n, 0.0);
      do_rows(b * p.block_rows, std::min(m, (b + 1) * p.block_rows), pw, pb);
    }
  });
  // Column totals: partials added in block order into block 0's slots, columns in parallel.
  parallel_for(n, 2048, [&](int64_t j0, int64_t j1) {
    for (int64_t k = 0; k < p.parts; ++k) {
      double *acc = part(0, k);
      for (int64_t b = 1; b < p.blocks; ++b) {
        const double *src = part(b, k);
        for (int64_t j = j0; j < j1; ++j) acc[j] += src[j];
      }
    }
  });
  if (p.gw) scatter(p.out_gw.data, p.out_gw.dtype, p.out_gw.inner, p.out_gw.offset, part(0, kw));
  if (p.gb) scatter(p.out_gb.data, p.out_gb.dtype, p.out_gb.inner, p.out_gb.offset, part(0, kb));
}

// ---- checks --------------------------------------------------------------------------------

bool is_ln_float(aclDataType t, Soc soc) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || (t == ACL_BF16 && soc_has_bf16(soc));
}

aclnnStatus check_float_dtype(const char *name, const aclTensor *t, Soc soc) {
  if (t == nullptr || is_ln_float(t->dtype, soc)) return ACLNN_SUCCESS;
  if (t->dtype == ACL_BF16)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "{} dtype BFLOAT16 is not supported on {}; BFLOAT16 needs Atlas A2/A3 "
                "(LN-DTYPE-1)",
                name, soc_name(soc));
  return fail(ACLNN_ERR_PARAM_INVALID, kOp,
              "{} dtype {} is not supported; it must be FLOAT, FLOAT16 or BFLOAT16 (LN-DTYPE-1)",
              name, dtype_name(t->dtype));
}

}  // namespace
}  // namespace aclnn_cpu

using namespace aclnn_cpu;

extern "C" aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  ACLNN_CHECK(check_phase_one_outputs(kOp, workspaceSize, executor));  // ABI-TWOPHASE-2
  Soc soc;
  ACLNN_CHECK(check_soc(kOp, soc));

  // LN-NULL-1
  const std::pair<const char *, const void *> required[] = {
      {"gradOut", gradOut}, {"input", input}, {"normalizedShape", normalizedShape},
      {"mean", mean},       {"rstd", rstd},   {"outputMask", outputMask}};
  for (auto [name, ptr] : required)
    if (ptr == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, kOp, "{} is NULL; it is required (LN-NULL-1)", name);

  // LN-MASK-1
  if (outputMask->values.size() != 3)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "outputMask has length {}; it must be 3 (LN-MASK-1)",
                outputMask->values.size());
  const bool want_gi = outputMask->values[0], want_gw = outputMask->values[1],
             want_gb = outputMask->values[2];

  // LN-NULL-2
  const struct {
    const char *name;
    const aclTensor *t;
    bool wanted;
    int bit;
  } outs[] = {{"gradInputOut", gradInputOut, want_gi, 0},
              {"gradWeightOut", gradWeightOut, want_gw, 1},
              {"gradBiasOut", gradBiasOut, want_gb, 2}};
  for (const auto &o : outs)
    if (o.wanted && o.t == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, kOp, "{} is NULL but outputMask[{}] is true (LN-NULL-2)",
                  o.name, o.bit);

  // LN-DTYPE-1: each input's dtype in signature order, then the relations between them.
  const std::pair<const char *, const aclTensor *> float_inputs[] = {
      {"gradOut", gradOut},
      {"input", input},
      {"mean", mean},
      {"rstd", rstd},
      {"weightOptional", weightOptional},
      {"biasOptional", biasOptional}};
  for (auto [name, t] : float_inputs) ACLNN_CHECK(check_float_dtype(name, t, soc));
  if (gradOut->dtype != input->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradOut dtype {} != input dtype {}; they must be equal (LN-DTYPE-1)",
                dtype_name(gradOut->dtype), dtype_name(input->dtype));
  if (mean->dtype != rstd->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "mean dtype {} != rstd dtype {}; they must be equal (LN-DTYPE-1)",
                dtype_name(mean->dtype), dtype_name(rstd->dtype));
  if (weightOptional && weightOptional->dtype != input->dtype && weightOptional->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "weightOptional dtype {} is neither input's dtype {} nor FLOAT (LN-DTYPE-1)",
                dtype_name(weightOptional->dtype), dtype_name(input->dtype));
  if (weightOptional && biasOptional && biasOptional->dtype != weightOptional->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "biasOptional dtype {} != weightOptional dtype {}; they must be equal "
                "(LN-DTYPE-1)",
                dtype_name(biasOptional->dtype), dtype_name(weightOptional->dtype));

  // LN-DTYPE-2 (requested outputs; an output whose mask bit is false is not looked at).
  if (want_gi && gradInputOut->dtype != input->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradInputOut dtype {} != input dtype {}; they must be equal (LN-DTYPE-2)",
                dtype_name(gradInputOut->dtype), dtype_name(input->dtype));
  if (want_gw && gradWeightOut->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradWeightOut dtype {} is not FLOAT (LN-DTYPE-2)",
                dtype_name(gradWeightOut->dtype));
  if (want_gb && gradBiasOut->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradBiasOut dtype {} is not FLOAT (LN-DTYPE-2)",
                dtype_name(gradBiasOut->dtype));

  // LN-SHAPE-1
  const std::vector<int64_t> &ns = normalizedShape->values;
  const int in_rank = rank(*input);
  const int ns_len = static_cast<int>(ns.size());
  if (ns_len < 1)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "normalizedShape is empty; its length must be at least 1 (LN-SHAPE-1)");
  if (in_rank > kMaxRank)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "input has rank {} (shape {}); at most 8 (LN-SHAPE-1)", in_rank,
                shape_str(input->view_dims));
  if (ns_len > in_rank)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "normalizedShape {} has length {} > input rank {} (input shape {}) (LN-SHAPE-1)",
                shape_str(ns), ns_len, in_rank, shape_str(input->view_dims));
  const int lead = in_rank - ns_len;
  if (!std::equal(ns.begin(), ns.end(), input->view_dims.begin() + lead))
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "input shape {} does not end with normalizedShape {} (LN-SHAPE-1)",
                shape_str(input->view_dims), shape_str(ns));
  int64_t m = 1, n = 1;
  for (int i = 0; i < lead; ++i) m *= input->view_dims[i];
  for (int64_t v : ns) n *= v;

  // LN-SHAPE-2
  if (gradOut->view_dims != input->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradOut shape {} != input shape {} (LN-SHAPE-2)",
                shape_str(gradOut->view_dims), shape_str(input->view_dims));
  if (weightOptional && weightOptional->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "weightOptional shape {} != normalizedShape {} (LN-SHAPE-2)",
                shape_str(weightOptional->view_dims), shape_str(ns));
  if (biasOptional && biasOptional->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "biasOptional shape {} != normalizedShape {} (LN-SHAPE-2)",
                shape_str(biasOptional->view_dims), shape_str(ns));

  // LN-SHAPE-3
  if (mean->view_dims != rstd->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "mean shape {} != rstd shape {} (LN-SHAPE-3)",
                shape_str(mean->view_dims), shape_str(rstd->view_dims));
  if (numel(*mean) != m)
    return fail(
        ACLNN_ERR_PARAM_INVALID, kOp,
        "mean numel {} != M = {} (the product of input's leading dims {}) (LN-SHAPE-3)",
        numel(*mean), m,
        shape_str(std::vector<int64_t>(input->view_dims.begin(), input->view_dims.begin() + lead)));

  // LN-SHAPE-4
  if (want_gi && gradInputOut->view_dims != input->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradInputOut shape {} != input shape {} (LN-SHAPE-4)",
                shape_str(gradInputOut->view_dims), shape_str(input->view_dims));
  if (want_gw && gradWeightOut->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradWeightOut shape {} != normalizedShape {} (LN-SHAPE-4)",
                shape_str(gradWeightOut->view_dims), shape_str(ns));
  if (want_gb && gradBiasOut->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradBiasOut shape {} != normalizedShape {} (LN-SHAPE-4)",
                shape_str(gradBiasOut->view_dims), shape_str(ns));

  // LN-RANK-1: every tensor present, in signature order.
  const std::pair<const char *, const aclTensor *> all[] = {{"gradOut", gradOut},
                                                            {"input", input},
                                                            {"mean", mean},
                                                            {"rstd", rstd},
                                                            {"weightOptional", weightOptional},
                                                            {"biasOptional", biasOptional},
                                                            {"gradInputOut", gradInputOut},
                                                            {"gradWeightOut", gradWeightOut},
                                                            {"gradBiasOut", gradBiasOut}};
  for (auto [name, t] : all) {
    if (t == nullptr) continue;
    if (rank(*t) < 1 || rank(*t) > kMaxRank)
      return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                  "{} has rank {} (shape {}); it must be 1 to 8 (LN-RANK-1)", name, rank(*t),
                  shape_str(t->view_dims));
  }

  // Project checks: storage present for non-empty views; outputs do not overlap anything.
  for (auto [name, t] : all)
    if (t != nullptr) ACLNN_CHECK(check_data(kOp, name, *t));
  const aclTensor *req_gi = want_gi ? gradInputOut : nullptr;
  const aclTensor *req_gw = want_gw ? gradWeightOut : nullptr;
  const aclTensor *req_gb = want_gb ? gradBiasOut : nullptr;
  if (req_gi)
    ACLNN_CHECK(check_output(kOp, "gradInputOut", *req_gi,
                             {{"gradOut", gradOut},
                              {"input", input},
                              {"mean", mean},
                              {"rstd", rstd},
                              {"weightOptional", weightOptional},
                              {"biasOptional", biasOptional},
                              {"gradWeightOut", req_gw},
                              {"gradBiasOut", req_gb}},
                             false));
  if (req_gw)
    ACLNN_CHECK(check_output(kOp, "gradWeightOut", *req_gw,
                             {{"gradOut", gradOut},
                              {"input", input},
                              {"mean", mean},
                              {"rstd", rstd},
                              {"weightOptional", weightOptional},
                              {"biasOptional", biasOptional},
                              {"gradInputOut", req_gi},
                              {"gradBiasOut", req_gb}},
                             false));
  if (req_gb)
    ACLNN_CHECK(check_output(kOp, "gradBiasOut", *req_gb,
                             {{"gradOut", gradOut},
                              {"input", input},
                              {"mean", mean},
                              {"rstd", rstd},
                              {"weightOptional", weightOptional},
                              {"biasOptional", biasOptional},
                              {"gradInputOut", req_gi},
                              {"gradWeightOut", req_gw}},
                             false));

  // Plan. bias is validated above and takes no part in the values (LN-BIAS-1).
  Plan p;
  p.m = m;
  p.n = n;
  p.has_w = weightOptional != nullptr;
  p.gi = want_gi;
  p.gw = want_gw;
  p.gb = want_gb;
  if (m > 0 && n > 0) {
    p.x = make_row_view(*input, lead);
    p.dy = make_row_view(*gradOut, lead);
    if (p.gi) p.out_gi = make_row_view(*gradInputOut, lead);
    p.mean = make_row_view(*mean, 0);
    p.rstd = make_row_view(*rstd, 0);
    if (p.has_w) p.w = make_row_view(*weightOptional, 0);
  }
  if (p.gw) p.out_gw = make_row_view(*gradWeightOut, 0);
  if (p.gb) p.out_gb = make_row_view(*gradBiasOut, 0);
  p.parts = (p.gw ? 1 : 0) + (p.gb ? 1 : 0);
  p.block_rows = rows_per_block(m);
  p.blocks = m > 0 ? (m + p.block_rows - 1) / p.block_rows : 0;
  const uint64_t ws = workspace_bytes(p);
  return publish_executor(
      kOp, ws, [p](void *workspace) { run_plan(p, workspace); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream) {
  (void)stream;
  return run_executor(kOp, workspace, workspaceSize, executor);
}
