// The mutant shim's scalar helpers (see shim.hpp): element access of the views it records,
// rounding to a dtype (the 16-bit formats through the library's own scalar conversions,
// impl/dtype.hpp, so there is one implementation of them), and the ops in plain scalar code for
// mutants, and test libraries built on the shim, that redo an output with one fault.
#include <cmath>
#include <cstring>
#include <limits>

#include "impl/dtype.hpp"
#include "mutants/shim.hpp"

namespace mutant {

// ---- Views ------------------------------------------------------------------------------------
int64_t View::numel() const {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}
int64_t View::storage_numel() const {
  int64_t n = 1;
  for (auto d : storage_dims) n *= d;
  return n;
}
size_t View::element_size() const {
  switch (dtype) {
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_UINT64:
      return 8;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
      return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    default:
      return 1;
  }
}
bool View::contiguous() const {
  int64_t expect = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    if (dims[k] != 1 && strides[k] != expect) return false;
    expect *= dims[k];
  }
  return true;
}
int64_t View::element(const std::vector<int64_t> &shape, int64_t flat) const {
  int64_t pos = offset;
  const size_t r = shape.size(), rv = dims.size();
  for (size_t k = 0; k < r; ++k) {
    const size_t d = r - 1 - k;
    const int64_t i = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
    if (k < rv && dims[rv - 1 - k] != 1) pos += i * strides[rv - 1 - k];
  }
  return pos;
}

namespace {

template <typename T>
T get(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void put(void *p, T v) {
  std::memcpy(p, &v, sizeof v);
}

template <typename I>
I saturate(long double r) {
  if (std::isnan(r)) return 0;
  if (r <= static_cast<long double>(std::numeric_limits<I>::min()))
    return std::numeric_limits<I>::min();
  if (r >= static_cast<long double>(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
template <typename I>
I wrap(long double r) {
  if (std::isnan(r) || std::isinf(r)) return 0;
  const long double m = std::fmod(r, 18446744073709551616.0L);  // 2^64
  const auto u = static_cast<uint64_t>(
      static_cast<int64_t>(m >= 9223372036854775808.0L ? m - 18446744073709551616.0L : m));
  return static_cast<I>(u);
}

// The 16-bit formats through the library's scalar conversions (impl/dtype.hpp): a value rounded
// once to nearest even from its double (the values the mutants store come from doubles or are
// within a double's precision of one), and back exactly.
uint16_t to_bits16(aclDataType t, long double v) {
  const auto d = static_cast<double>(v);
  return t == ACL_BF16 ? aclnn_cpu::double_to_bf16(d) : aclnn_cpu::double_to_half(d);
}
long double from_bits16(aclDataType t, uint16_t b) {
  return t == ACL_BF16 ? aclnn_cpu::bf16_to_float(b) : aclnn_cpu::half_to_float(b);
}
// A 16-bit pattern whose exponent field is zero and significand is not: a subnormal.
bool subnormal16(aclDataType t, uint16_t b) {
  const uint16_t exp = t == ACL_BF16 ? 0x7f80 : 0x7c00;
  return (b & exp) == 0 && (b & 0x7fff) != 0;
}

}  // namespace

bool is_float(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}

long double load(const View &v, int64_t element) {
  const char *p = static_cast<const char *>(v.data) + element * v.element_size();
  switch (v.dtype) {
    case ACL_FLOAT:
      return get<float>(p);
    case ACL_DOUBLE:
      return get<double>(p);
    case ACL_FLOAT16:
    case ACL_BF16:
      return from_bits16(v.dtype, get<uint16_t>(p));
    case ACL_INT8:
      return get<int8_t>(p);
    case ACL_UINT8:
      return get<uint8_t>(p);
    case ACL_BOOL:
      return get<uint8_t>(p) != 0;
    case ACL_INT16:
      return get<int16_t>(p);
    case ACL_UINT16:
      return get<uint16_t>(p);
    case ACL_INT32:
      return get<int32_t>(p);
    case ACL_UINT32:
      return get<uint32_t>(p);
    case ACL_INT64:
      return static_cast<long double>(get<int64_t>(p));
    case ACL_UINT64:
      return static_cast<long double>(get<uint64_t>(p));
    default:
      return 0;
  }
}

long double round_to(aclDataType t, long double v) {
  switch (t) {
    case ACL_FLOAT:
      return static_cast<float>(v);
    case ACL_DOUBLE:
      return static_cast<double>(v);
    case ACL_FLOAT16:
    case ACL_BF16:
      return from_bits16(t, to_bits16(t, v));
    case ACL_INT8:
      return saturate<int8_t>(std::nearbyint(v));
    case ACL_UINT8:
      return saturate<uint8_t>(std::nearbyint(v));
    case ACL_INT16:
      return saturate<int16_t>(std::nearbyint(v));
    case ACL_INT32:
      return saturate<int32_t>(std::nearbyint(v));
    case ACL_INT64:
      return static_cast<long double>(saturate<int64_t>(std::nearbyint(v)));
    case ACL_BOOL:
      return v != 0;
    default:
      return v;
  }
}

int64_t float_place(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : static_cast<int64_t>(i);
}

long double ulp_of(aclDataType t, long double v) {
  int p = 24, emin = -126;
  switch (t) {
    case ACL_FLOAT16:
      p = 11, emin = -14;
      break;
    case ACL_BF16:
      p = 8, emin = -126;
      break;
    case ACL_DOUBLE:
      p = 53, emin = -1022;
      break;
    case ACL_FLOAT:
      break;
    default:
      return 1;
  }
  int e;
  std::frexp(std::fabs(v), &e);
  int E = v == 0 ? emin : e - 1;
  if (E < emin) E = emin;
  return std::ldexp(1.0L, E - (p - 1));
}

void store(const View &v, int64_t element, long double value, Rounding r) {
  char *p = static_cast<char *>(v.data) + element * v.element_size();
  long double x = value;
  if (r == Rounding::kTwiceViaFloat || r == Rounding::kTruncateBf16) x = static_cast<float>(value);
  switch (v.dtype) {
    case ACL_FLOAT:
      x = static_cast<float>(x);
      if (r == Rounding::kFlushSubnormal && std::fabs(x) < 0x1p-126L) x = std::copysign(0.0L, x);
      put<float>(p, static_cast<float>(x));
      return;
    case ACL_DOUBLE:
      put<double>(p, static_cast<double>(x));
      return;
    case ACL_FLOAT16:
    case ACL_BF16: {
      uint16_t b;
      if (v.dtype == ACL_BF16 && r == Rounding::kTruncateBf16) {
        const float f = static_cast<float>(x);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if (std::isnan(f)) u |= 0x00400000;  // keep a NaN a NaN
        b = static_cast<uint16_t>(u >> 16);
      } else {
        b = to_bits16(v.dtype, x);
        if (r == Rounding::kFlushSubnormal && subnormal16(v.dtype, b))
          b = static_cast<uint16_t>(b & 0x8000);
      }
      put<uint16_t>(p, b);
      return;
    }
    default:
      break;
  }
  // Integers.
  const long double n = r == Rounding::kTruncateInt ? std::trunc(x) : std::nearbyint(x);
  const bool w = r == Rounding::kWrapInt;
  switch (v.dtype) {
    case ACL_INT8:
      put<int8_t>(p, w ? wrap<int8_t>(n) : saturate<int8_t>(n));
      return;
    case ACL_UINT8:
      put<uint8_t>(p, w ? wrap<uint8_t>(n) : saturate<uint8_t>(n));
      return;
    case ACL_INT16:
      put<int16_t>(p, w ? wrap<int16_t>(n) : saturate<int16_t>(n));
      return;
    case ACL_INT32:
      put<int32_t>(p, w ? wrap<int32_t>(n) : saturate<int32_t>(n));
      return;
    case ACL_INT64:
      put<int64_t>(p, w ? wrap<int64_t>(n) : saturate<int64_t>(n));
      return;
    case ACL_BOOL:
      put<uint8_t>(p, n != 0);
      return;
    default:
      return;
  }
}

std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t> &a,
                                              const std::vector<int64_t> &b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t k = 0; k < r; ++k) {
    const int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[r - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

// ---- Op formulas --------------------------------------------------------------------------------
long double gelu_grad_erf(long double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? 1 : 0;
  const long double inv_sqrt2 = 0.70710678118654752440084436210484903928L;
  const long double inv_sqrt2pi = 0.39894228040143267793994605993438186848L;
  return 0.5L + 0.5L * std::erf(x * inv_sqrt2) + x * inv_sqrt2pi * std::exp(-x * x / 2);
}

double gelu_grad_tanh_formula(double x) {
  const double c = std::sqrt(2.0 / M_PI), u = c * (x + 0.044715 * x * x * x), t = std::tanh(u);
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
}

long double gelu_grad_tanh(long double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? 1 : 0;
  return gelu_grad_tanh_formula(static_cast<double>(x));
}

long double selu_grad(long double dy, long double y) {
  if (std::isnan(y)) return NAN;
  return y >= 0 ? dy * kSeluLambda : dy * (y + kSeluLambdaAlpha);
}

long double logit_grad(long double x, long double dy, double eps) {
  if (std::isnan(eps)) return NAN;
  if (std::isinf(eps) && eps > 0) return 0;
  if (eps > 1) return NAN;
  if (eps == 1) return dy / 0.0L;
  if (std::isnan(x) || std::isinf(x)) return NAN;
  if (std::isnan(dy)) return NAN;
  const long double lo = eps < 0 ? 0.0L : static_cast<long double>(eps);
  const long double hi = eps < 0 ? 1.0L : 1.0L - static_cast<long double>(eps);
  const bool inside = x >= lo && x <= hi;
  if (!inside) return std::isinf(dy) || eps < 0 ? NAN : 0;
  long double d = x * (1 - x);
  if (d == 0) d = 0.0L;  // a signed zero x is a zero: the sign comes from dy
  return dy / d;
}

// ---- LayerNormBackward -------------------------------------------------------------------------
void layer_norm_backward(const Call &c, const LayerNormFaults &f) {
  const View &dy = c.in[0], &x = c.in[1], &mean = c.in[2], &rstd = c.in[3], &w = c.in[4];
  const View &gi = c.out[0], &gw = c.out[1], &gb = c.out[2];
  const size_t j = c.normalized_shape.size();
  int64_t N = 1;
  for (auto d : c.normalized_shape) N *= d;
  const int64_t total = x.numel(), M = N ? total / N : 0;
  const bool want_gi = gi.present && (c.mask[0] || f.write_masked);
  const bool want_gw = gw.present && (c.mask[1] || f.write_masked);
  const bool want_gb = gb.present && (c.mask[2] || f.write_masked);
  std::vector<long double> sum_w(N, 0), sum_b(N, 0);
  std::vector<float> sum_wf(N, 0), sum_bf(N, 0);
  // Rows in the order Σ_rows visits them.
  std::vector<int64_t> rows(M);
  for (int64_t r = 0; r < M; ++r) rows[r] = f.alternate_order ? M - 1 - r : r;
  const auto acc = [&](long double s, long double t) {
    if (f.skip_nan && std::isnan(t)) return s;
    const long double r = s + t;
    return f.accumulate_half ? round_to(ACL_FLOAT16, r) : r;
  };
  std::vector<long double> xv(N), dv(N), wv(N), xhat(N);
  for (int64_t r : rows) {
    for (int64_t n = 0; n < N; ++n) {
      xv[n] = load(x, x.element(r * N + n));
      dv[n] = load(dy, dy.element(r * N + n));
      wv[n] = w.present && !f.ignore_weight ? load(w, w.element(n)) : 1;
    }
    long double mu = load(mean, mean.element(r)), rs = load(rstd, rstd.element(r));
    if (f.recompute_stats && N > 0) {
      long double s = 0, q = 0;
      for (auto v : xv) s += v;
      mu = s / N;
      for (auto v : xv) q += (v - mu) * (v - mu);
      rs = 1 / std::sqrt(q / N + 1e-5L);
    }
    for (int64_t n = 0; n < N; ++n) xhat[n] = (xv[n] - mu) * rs;
    if (want_gi) {
      // Σ_row groups: the whole row, or (wrong axis) the elements sharing the last index.
      const int64_t inner = f.wrong_axis && j == 2 ? c.normalized_shape[1] : 0;
      const int64_t groups = inner ? inner : 1, per = inner ? N / inner : N;
      for (int64_t g = 0; g < groups; ++g) {
        long double s1 = 0, s2 = 0;
        for (int64_t k = 0; k < per; ++k) {
          const int64_t n = inner ? k * inner + g : k;
          s1 = acc(s1, dv[n] * wv[n]);
          s2 = acc(s2, dv[n] * wv[n] * xhat[n]);
        }
        for (int64_t k = 0; k < per; ++k) {
          const int64_t n = inner ? k * inner + g : k;
          long double v = rs * (dv[n] * wv[n] - s1 / per - xhat[n] * s2 / per);
          if (f.n1_zero && N == 1) v = 0;
          store(gi, gi.element(r * N + n), v);
        }
      }
    }
    for (int64_t n = 0; n < N; ++n) {
      const long double tw = M == 1 && f.m1_no_xhat ? dv[n] : dv[n] * xhat[n];
      sum_w[n] = acc(sum_w[n], tw);
      sum_b[n] = acc(sum_b[n], dv[n]);
      sum_wf[n] = static_cast<float>(sum_wf[n] + static_cast<float>(tw));
      sum_bf[n] = static_cast<float>(sum_bf[n] + static_cast<float>(dv[n]));
    }
  }
  for (int64_t n = 0; n < N; ++n) {
    if (want_gw) store(gw, gw.element(n), f.alternate_order ? sum_wf[n] : sum_w[n]);
    if (want_gb) store(gb, gb.element(n), f.alternate_order ? sum_bf[n] : sum_b[n]);
  }
}

// ---- GroupedBiasAddGrad ------------------------------------------------------------------------
bool group_ends(const Call &c, std::vector<int64_t> &ends) {
  const View &gy = c.in[0], &idx = c.in[1];
  ends.clear();
  if (!idx.present) return false;
  const int64_t rows = gy.dims.empty() ? 0 : gy.dims[0];
  int64_t prev = 0, sum = 0;
  for (int64_t g = 0; g < idx.numel(); ++g) {
    const long double v = load(idx, idx.element(g));
    if (v < 0 || v > 2147483647.0L) return false;
    const auto k = static_cast<int64_t>(v);
    if (c.group_idx_type == 1) {
      sum += k;
      ends.push_back(sum);
    } else {
      if (k < prev) return false;
      prev = k;
      ends.push_back(k);
    }
  }
  return !ends.empty() && ends.back() == rows;
}

void grouped_bias_add_grad(const Call &c, const GbagFaults &f) {
  const View &gy = c.in[0], &out = c.out[0];
  const int64_t H = gy.dims.empty() ? 0 : gy.dims.back();
  std::vector<std::pair<int64_t, int64_t>> ranges;  // rows of each group (2-D) or g (3-D)
  const bool three_d = !c.in[1].present;
  if (three_d) {
    const int64_t C = gy.dims.size() == 3 ? gy.dims[1] : 0;
    for (int64_t g = 0; g < gy.dims[0]; ++g)
      ranges.push_back({0, f.drop_last_row && C > 0 ? C - 1 : C});
  } else {
    std::vector<int64_t> ends;
    if (!group_ends(c, ends)) return;
    int64_t start = 0;
    for (int64_t e : ends) {
      const int64_t end = f.boundary_inclusive ? std::min(e + 1, gy.dims[0]) : e;
      ranges.push_back({start, std::max(start, end)});
      start = e;
    }
  }
  for (size_t g = 0; g < ranges.size(); ++g)
    for (int64_t h = 0; h < H; ++h) {
      const auto row = [&](int64_t i) {
        return three_d ? load(gy, gy.element((static_cast<int64_t>(g) * gy.dims[1] + i) * H + h))
                       : load(gy, gy.element(i * H + h));
      };
      const auto [a, b] = ranges[g];
      long double s = 0;
      if (f.split_halves > 1) {
        float total = 0;
        const int64_t n = b - a, k = f.split_halves, chunk = (n + k - 1) / k;
        for (int64_t p = 0; p < k; ++p) {
          float part = 0;
          for (int64_t i = a + p * chunk; i < std::min(b, a + (p + 1) * chunk); ++i)
            part += static_cast<float>(row(i));
          total += part;
        }
        s = total;
      } else {
        for (int64_t i = a; i < b; ++i) {
          s += row(i);
          if (f.accumulate_bf16) s = round_to(ACL_BF16, s);
        }
      }
      store(out, out.element(static_cast<int64_t>(g) * H + h), s);
    }
}

}  // namespace mutant
