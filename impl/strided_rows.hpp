// Views split into rows: a tensor's dims cut into leading (row) dims and trailing (column) dims,
// each part coalesced on its own, and the gather and scatter of one row between a strided view of
// a float dtype (FLOAT, FLOAT16, BFLOAT16) and a contiguous double buffer, exact on the way in and
// rounded once on the way out. Contiguous runs go through the SIMD layer's conversions; the
// multi-indices are carried from run to run and row to row, never recomputed per element. For ops
// that reduce over the trailing dims. Private to impl/.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "impl/dtype.hpp"
#include "impl/simd.hpp"
#include "impl/tensor.hpp"

namespace aclnn_cpu::rowview {
// Internal linkage, as where these were first written (one file's helpers): the compiler's
// inlining of them and of their callees stays what the kernels were measured with.
namespace {

// Coalesced dims (outermost first), strides in elements; n == 0 means a single element.
struct Dims {
  int n = 0;
  std::array<int64_t, kMaxRank> size{};
  std::array<int64_t, kMaxRank> stride{};
};

inline Dims coalesce(const int64_t *sizes, const int64_t *strides, int count) {
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

// A tensor as a plan needs it (captured by value in the executor): its storage, offset, dtype and
// its dims split into rows (outer) and columns (inner).
struct RowView {
  char *data = nullptr;  // storage start
  int64_t offset = 0;    // elements
  aclDataType dtype = ACL_FLOAT;
  Dims outer, inner;
};

// The first `lead` dims of t are its rows.
inline RowView make_row_view(const aclTensor &t, int lead) {
  RowView v;
  v.data = static_cast<char *>(t.data);
  v.offset = t.offset;
  v.dtype = t.dtype;
  const int r = rank(t);
  v.outer = coalesce(t.view_dims.data(), t.strides.data(), lead);
  v.inner = coalesce(t.view_dims.data() + lead, t.strides.data() + lead, r - lead);
  return v;
}

// A row of this view is one contiguous run: read or written in place.
inline bool row_is_dense(const RowView &v) {
  return v.inner.n == 0 || (v.inner.n == 1 && v.inner.stride[0] == 1);
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
  return half_to_float(v.bits);
}
template <>
inline double to_double<Bf16>(Bf16 v) {
  return std::bit_cast<float>(static_cast<uint32_t>(v.bits) << 16);
}

template <typename T>
void load_run(const T *__restrict p, int64_t len, int64_t st, double *__restrict out) {
  if constexpr (std::is_same_v<T, float>) {
    if (st == 1) return simd::f32_to_f64(p, out, static_cast<size_t>(len));
  }
  if constexpr (std::is_same_v<T, Half>) {
    if (st == 1) return simd::f16_to_f64(&p->bits, out, static_cast<size_t>(len));
  }
  if constexpr (std::is_same_v<T, Bf16>) {
    if (st == 1) return simd::bf16_to_f64(&p->bits, out, static_cast<size_t>(len));
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
  return Half{double_to_half(v)};
}
template <>
inline Bf16 from_double<Bf16>(double v) {
  return Bf16{double_to_bf16(v)};
}

template <typename T>
void store_run(T *__restrict p, int64_t len, int64_t st, const double *__restrict in) {
  if constexpr (std::is_same_v<T, float>) {
    if (st == 1) return simd::f64_to_f32(in, p, static_cast<size_t>(len));
  }
  if constexpr (std::is_same_v<T, Half>) {
    if (st == 1) return simd::f64_to_f16(in, &p->bits, static_cast<size_t>(len));
  }
  if constexpr (std::is_same_v<T, Bf16>) {
    if (st == 1) return simd::f64_to_bf16(in, &p->bits, static_cast<size_t>(len));
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
inline void gather(const char *data, aclDataType t, const Dims &d, int64_t base, double *out) {
  switch (t) {
    case ACL_FLOAT16:
      return gather_t<Half>(data, d, base, out);
    case ACL_BF16:
      return gather_t<Bf16>(data, d, base, out);
    default:
      return gather_t<float>(data, d, base, out);
  }
}

// Stores the doubles at in, rounded once, into the elements of dims d at element offset base.
template <typename T>
void scatter_t(char *data, const Dims &d, int64_t base, const double *in) {
  T *p = reinterpret_cast<T *>(data);
  for_each_run(d, base, [&](int64_t off, int64_t len, int64_t st) {
    store_run<T>(p + off, len, st, in);
    in += len;
  });
}
inline void scatter(char *data, aclDataType t, const Dims &d, int64_t base, const double *in) {
  switch (t) {
    case ACL_FLOAT16:
      return scatter_t<Half>(data, d, base, in);
    case ACL_BF16:
      return scatter_t<Bf16>(data, d, base, in);
    default:
      return scatter_t<float>(data, d, base, in);
  }
}

}  // namespace
}  // namespace aclnn_cpu::rowview
