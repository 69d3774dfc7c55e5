// The mutant shim (see shim.hpp): the exported ABI, forwarding to the real library, with the
// hooks' weak defaults, and the scalar helpers mutants use to redo an output with a fault.
#include "mutants/shim.hpp"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#define MUTANT_WEAK __attribute__((weak))

namespace mutant {

// ---- Hook defaults: forward unchanged ---------------------------------------------------------
MUTANT_WEAK std::optional<aclnnStatus> before_phase_one(Call &) {
  return std::nullopt;
}
MUTANT_WEAK void after_phase_one(Call &, aclnnStatus &, uint64_t *, aclOpExecutor **) {}
MUTANT_WEAK std::optional<aclnnStatus> before_phase_two(Call *, void *&, uint64_t &,
                                                        aclOpExecutor *) {
  return std::nullopt;
}
MUTANT_WEAK void after_phase_two(Call *, aclnnStatus &, void *, uint64_t) {}
MUTANT_WEAK aclTensor *on_create_tensor(const View &, aclTensor *made) {
  return made;
}
MUTANT_WEAK const char *on_error_message(const char *real_message) {
  return real_message;
}
MUTANT_WEAK std::optional<aclError> before_malloc(void **, size_t, aclrtMemMallocPolicy) {
  return std::nullopt;
}
MUTANT_WEAK std::optional<aclError> before_free(void *) {
  return std::nullopt;
}
MUTANT_WEAK std::optional<aclError> before_memcpy(void *, size_t, const void *, size_t,
                                                  aclrtMemcpyKind) {
  return std::nullopt;
}

// ---- The real library -------------------------------------------------------------------------
void *real_symbol(const char *name) {
  // RTLD_DEEPBIND: the real library binds to its own acl* symbols, never back to the shim's.
  // The sanitizer runtimes refuse RTLD_DEEPBIND (google/sanitizers#611): sanitizer builds (the
  // a2-device test SUT is built there) load it without.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  static void *handle = dlopen(ACLNN_REAL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
#else
  static void *handle = dlopen(ACLNN_REAL_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
#endif
  if (!handle) abort();
  void *f = dlsym(handle, name);
  if (!f) abort();
  return f;
}

void release_executor(aclOpExecutor *executor) {
  static auto destroy = real<decltype(&aclDestroyAclOpExecutor)>("aclDestroyAclOpExecutor");
  if (executor) destroy(executor);
}

aclTensor *real_tensor(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                       int64_t offset, aclDataType dtype, const std::vector<int64_t> &storage,
                       void *data) {
  static auto create = real<decltype(&aclCreateTensor)>("aclCreateTensor");
  return create(dims.data(), dims.size(), dtype, strides.data(), offset, ACL_FORMAT_ND,
                storage.data(), storage.size(), data);
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t> &dims) {
  std::vector<int64_t> s(dims.size());
  int64_t k = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    s[i] = k;
    k *= dims[i] ? dims[i] : 1;
  }
  return s;
}

aclOpExecutor *token_executor() {
  static float a = 0, b = 0, out = 0;
  static aclTensor *ta = real_tensor({1}, {1}, 0, ACL_FLOAT, {1}, &a);
  static aclTensor *tb = real_tensor({1}, {1}, 0, ACL_FLOAT, {1}, &b);
  static aclTensor *to = real_tensor({1}, {1}, 0, ACL_FLOAT, {1}, &out);
  static auto phase_one =
      real<decltype(&aclnnGeluBackwardGetWorkspaceSize)>("aclnnGeluBackwardGetWorkspaceSize");
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (phase_one(ta, tb, to, &ws, &ex) != ACLNN_SUCCESS) abort();
  return ex;
}

const char *op_name(Op op) {
  switch (op) {
    case Op::kGelu:
      return "GeluBackward";
    case Op::kSelu:
      return "SeluBackward";
    case Op::kLayerNorm:
      return "LayerNormBackward";
    case Op::kLogit:
      return "LogitGrad";
    case Op::kGbag:
      return "GroupedBiasAddGrad";
    case Op::kGbagV2:
      return "GroupedBiasAddGradV2";
  }
  return "?";
}

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

std::mutex mutex;
std::map<const aclTensor *, View> tensors;
std::map<const aclIntArray *, std::vector<int64_t>> int_arrays;
std::map<const aclBoolArray *, std::vector<bool>> bool_arrays;
std::map<aclOpExecutor *, Call> calls;

View view_of(const aclTensor *t) {
  if (!t) return {};
  std::lock_guard lock(mutex);
  auto it = tensors.find(t);
  return it == tensors.end() ? View{} : it->second;
}

void fill_views(Call &c) {
  c.in.clear();
  c.out.clear();
  for (auto *t : c.in_args) c.in.push_back(view_of(t));
  for (auto *t : c.out_args) c.out.push_back(view_of(t));
  std::lock_guard lock(mutex);
  c.normalized_shape.clear();
  c.mask.clear();
  if (auto it = int_arrays.find(c.normalized_shape_arg); it != int_arrays.end())
    c.normalized_shape = it->second;
  if (auto it = bool_arrays.find(c.mask_arg); it != bool_arrays.end()) c.mask = it->second;
}

template <typename Forward>
aclnnStatus phase_one(Call &c, uint64_t *ws, aclOpExecutor **ex, Forward forward) {
  fill_views(c);
  aclnnStatus status;
  if (auto s = before_phase_one(c))
    status = *s;
  else
    status = forward(c);
  after_phase_one(c, status, ws, ex);
  if (status == ACLNN_SUCCESS && ex && *ex) {
    c.workspace_size = ws ? *ws : 0;
    c.runs = 0;
    std::lock_guard lock(mutex);
    calls[*ex] = c;
  }
  return status;
}

template <typename Real>
aclnnStatus phase_two(void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s, Real real_fn) {
  Call *c = nullptr;
  {
    std::lock_guard lock(mutex);
    auto it = calls.find(ex);
    if (it != calls.end()) c = &it->second;  // std::map nodes are stable
  }
  if (c) {
    c->in_snapshots.clear();
    for (auto &v : c->in) {
      bool aliased = false;
      for (const auto &o : c->out) aliased |= v.present && o.present && o.data == v.data;
      if (!aliased || !v.data) continue;
      const char *p = static_cast<const char *>(v.data);
      c->in_snapshots.emplace_back(p, p + v.storage_numel() * v.element_size());
      v.data = c->in_snapshots.back().data();
    }
  }
  aclnnStatus status;
  if (auto st = before_phase_two(c, w, n, ex)) {
    status = *st;
  } else if (c && c->token) {
    static auto gelu = real<decltype(&aclnnGeluBackward)>("aclnnGeluBackward");
    status = gelu(w, n, ex, s);
    if (status == ACLNN_SUCCESS) ++c->runs;
  } else {
    status = real_fn(w, n, ex, s);
    if (c && status == ACLNN_SUCCESS) ++c->runs;
  }
  after_phase_two(c, status, w, n);
  return status;
}

// ---- Small floats ------------------------------------------------------------------------------
// Rounds |a| to a binary format of precision p with minimum normal exponent emin and maximum
// exponent emax, to nearest-even (the current rounding mode); inf on overflow.
long double round_format(long double a, int p, int emin, int emax) {
  if (std::isnan(a) || std::isinf(a) || a == 0) return a;
  const long double m = std::fabs(a);
  int e;
  std::frexp(m, &e);
  int E = e - 1;
  if (E < emin) E = emin;
  const long double q = std::ldexp(1.0L, E - (p - 1));
  long double r = std::nearbyint(m / q) * q;
  if (r >= std::ldexp(1.0L, emax + 1)) r = INFINITY;
  return std::copysign(r, a);
}

// Bits of a value already representable in the format (mantissa bits mb, exponent bias).
uint16_t encode_small(long double v, int mb, int bias) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const uint16_t exp_all = static_cast<uint16_t>(((1 << (15 - mb)) - 1) << mb);
  if (std::isnan(v)) return static_cast<uint16_t>(exp_all | (1u << (mb - 1)));
  const long double a = std::fabs(v);
  if (std::isinf(a)) return sign | exp_all;
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  const int E = e - 1, emin = 1 - bias;
  if (E < emin) return sign | static_cast<uint16_t>(std::ldexp(a, -(emin - mb)));  // subnormal
  const auto mant = static_cast<uint16_t>((std::ldexp(a, -E) - 1) * (1 << mb));
  return sign | static_cast<uint16_t>((E + bias) << mb) | mant;
}

long double decode_small(uint16_t b, int mb, int bias) {
  const bool neg = b & 0x8000;
  const int ebits = 15 - mb, e = (b >> mb) & ((1 << ebits) - 1);
  const int mant = b & ((1 << mb) - 1);
  long double v;
  if (e == (1 << ebits) - 1)
    v = mant ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(static_cast<long double>(mant), 1 - bias - mb);
  else
    v = std::ldexp(1.0L + std::ldexp(static_cast<long double>(mant), -mb), e - bias);
  return neg ? -v : v;
}

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
      return decode_small(get<uint16_t>(p), 10, 15);
    case ACL_BF16:
      return decode_small(get<uint16_t>(p), 7, 127);
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
      return round_format(v, 11, -14, 15);
    case ACL_BF16:
      return round_format(v, 8, -126, 127);
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
      x = round_format(x, 11, -14, 15);
      if (r == Rounding::kFlushSubnormal && std::fabs(x) < 0x1p-14L) x = std::copysign(0.0L, x);
      put<uint16_t>(p, encode_small(x, 10, 15));
      return;
    case ACL_BF16: {
      if (r == Rounding::kTruncateBf16) {
        const float f = static_cast<float>(x);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        if (std::isnan(f)) b |= 0x00400000;  // keep a NaN a NaN
        put<uint16_t>(p, static_cast<uint16_t>(b >> 16));
        return;
      }
      x = round_format(x, 8, -126, 127);
      if (r == Rounding::kFlushSubnormal && std::fabs(x) < 0x1p-126L) x = std::copysign(0.0L, x);
      put<uint16_t>(p, encode_small(x, 7, 127));
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

long double gelu_grad_tanh(long double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? 1 : 0;
  const long double c = 0.79788456080286535587989211986876373695L;  // sqrt(2/pi)
  const long double u = c * (x + 0.044715L * x * x * x), t = std::tanh(u);
  return 0.5L * (1 + t) + 0.5L * x * (1 - t * t) * c * (1 + 3 * 0.044715L * x * x);
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

// ---- The exported ABI -------------------------------------------------------------------------
using namespace mutant;

extern "C" {

#define FORWARD(ret, name, params, args)              \
  ACL_FUNC_VISIBILITY ret name params {               \
    static auto real_fn = real<ret(*) params>(#name); \
    return real_fn args;                              \
  }

FORWARD(aclError, aclInit, (const char *p), (p))
FORWARD(aclError, aclFinalize, (void), ())
FORWARD(aclError, aclrtSetDevice, (int32_t d), (d))
FORWARD(aclError, aclrtResetDevice, (int32_t d), (d))
FORWARD(aclError, aclrtCreateStream, (aclrtStream * s), (s))
FORWARD(aclError, aclrtDestroyStream, (aclrtStream s), (s))
FORWARD(aclError, aclrtSynchronizeStream, (aclrtStream s), (s))
FORWARD(aclnnStatus, aclSetAclOpExecutorRepeatable, (aclOpExecutor * e), (e))
FORWARD(aclnnStatus, aclGetViewShape, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetViewStrides, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetViewOffset, (const aclTensor *t, int64_t *o), (t, o))
FORWARD(aclnnStatus, aclGetStorageShape, (const aclTensor *t, int64_t **d, uint64_t *n), (t, d, n))
FORWARD(aclnnStatus, aclGetFormat, (const aclTensor *t, aclFormat *f), (t, f))
FORWARD(aclnnStatus, aclGetDataType, (const aclTensor *t, aclDataType *d), (t, d))
FORWARD(aclnnStatus, aclGetIntArraySize, (const aclIntArray *a, uint64_t *n), (a, n))
FORWARD(aclnnStatus, aclGetBoolArraySize, (const aclBoolArray *a, uint64_t *n), (a, n))

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **p, size_t n, aclrtMemMallocPolicy m) {
  static auto f = real<decltype(&aclrtMalloc)>("aclrtMalloc");
  if (auto s = before_malloc(p, n, m)) return *s;
  return f(p, n, m);
}
ACL_FUNC_VISIBILITY aclError aclrtFree(void *p) {
  static auto f = real<decltype(&aclrtFree)>("aclrtFree");
  if (auto s = before_free(p)) return *s;
  return f(p);
}
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *d, size_t m, const void *s, size_t c,
                                         aclrtMemcpyKind k) {
  static auto f = real<decltype(&aclrtMemcpy)>("aclrtMemcpy");
  if (auto r = before_memcpy(d, m, s, c, k)) return *r;
  return f(d, m, s, c, k);
}

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void) {
  static auto f = real<decltype(&aclGetRecentErrMsg)>("aclGetRecentErrMsg");
  return on_error_message(f());
}

ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride,
                                               int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData) {
  static auto f = real<decltype(&aclCreateTensor)>("aclCreateTensor");
  aclTensor *made = f(viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                      storageDimsNum, tensorData);
  View v;
  v.present = true;
  if (viewDims) v.dims.assign(viewDims, viewDims + viewDimsNum);
  if (stride) v.strides.assign(stride, stride + viewDimsNum);
  if (storageDims) v.storage_dims.assign(storageDims, storageDims + storageDimsNum);
  v.offset = offset;
  v.dtype = dataType;
  v.format = format;
  v.data = tensorData;
  aclTensor *t = on_create_tensor(v, made);
  if (t) {
    std::lock_guard lock(mutex);
    tensors[t] = v;
  }
  return t;
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *t) {
  static auto f = real<decltype(&aclDestroyTensor)>("aclDestroyTensor");
  {
    std::lock_guard lock(mutex);
    tensors.erase(t);
  }
  return f(t);
}

ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *v, uint64_t n) {
  static auto f = real<decltype(&aclCreateIntArray)>("aclCreateIntArray");
  aclIntArray *a = f(v, n);
  if (a) {
    std::lock_guard lock(mutex);
    int_arrays[a] = v ? std::vector<int64_t>(v, v + n) : std::vector<int64_t>{};
  }
  return a;
}
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *a) {
  static auto f = real<decltype(&aclDestroyIntArray)>("aclDestroyIntArray");
  {
    std::lock_guard lock(mutex);
    int_arrays.erase(a);
  }
  return f(a);
}
ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *v, uint64_t n) {
  static auto f = real<decltype(&aclCreateBoolArray)>("aclCreateBoolArray");
  aclBoolArray *a = f(v, n);
  if (a) {
    std::lock_guard lock(mutex);
    bool_arrays[a] = v ? std::vector<bool>(v, v + n) : std::vector<bool>{};
  }
  return a;
}
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *a) {
  static auto f = real<decltype(&aclDestroyBoolArray)>("aclDestroyBoolArray");
  {
    std::lock_guard lock(mutex);
    bool_arrays.erase(a);
  }
  return f(a);
}
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *e) {
  static auto f = real<decltype(&aclDestroyAclOpExecutor)>("aclDestroyAclOpExecutor");
  {
    std::lock_guard lock(mutex);
    calls.erase(e);
  }
  return f(e);
}

// --- The ops: phase one records the call, phase two runs the hooks around the real executor ----
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *dy,
                                                                  const aclTensor *x,
                                                                  const aclTensor *out,
                                                                  uint64_t *ws,
                                                                  aclOpExecutor **ex) {
  static auto f =
      real<decltype(&aclnnGeluBackwardGetWorkspaceSize)>("aclnnGeluBackwardGetWorkspaceSize");
  Call c;
  c.op = Op::kGelu;
  c.in_args = {dy, x};
  c.out_args = {const_cast<aclTensor *>(out)};
  return phase_one(c, ws, ex,
                   [&](Call &k) { return f(k.in_args[0], k.in_args[1], k.out_args[0], ws, ex); });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackward(void *w, uint64_t n, aclOpExecutor *ex,
                                                  aclrtStream s) {
  static auto f = real<decltype(&aclnnGeluBackward)>("aclnnGeluBackward");
  return phase_two(w, n, ex, s, f);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *dy,
                                                                  const aclTensor *y,
                                                                  aclTensor *out, uint64_t *ws,
                                                                  aclOpExecutor **ex) {
  static auto f =
      real<decltype(&aclnnSeluBackwardGetWorkspaceSize)>("aclnnSeluBackwardGetWorkspaceSize");
  Call c;
  c.op = Op::kSelu;
  c.in_args = {dy, y};
  c.out_args = {out};
  return phase_one(c, ws, ex,
                   [&](Call &k) { return f(k.in_args[0], k.in_args[1], k.out_args[0], ws, ex); });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnSeluBackward(void *w, uint64_t n, aclOpExecutor *ex,
                                                  aclrtStream s) {
  static auto f = real<decltype(&aclnnSeluBackward)>("aclnnSeluBackward");
  return phase_two(w, n, ex, s, f);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weight, const aclTensor *bias,
    const aclBoolArray *mask, aclTensor *gi, aclTensor *gw, aclTensor *gb, uint64_t *ws,
    aclOpExecutor **ex) {
  static auto f = real<decltype(&aclnnLayerNormBackwardGetWorkspaceSize)>(
      "aclnnLayerNormBackwardGetWorkspaceSize");
  Call c;
  c.op = Op::kLayerNorm;
  c.in_args = {gradOut, input, mean, rstd, weight, bias};
  c.out_args = {gi, gw, gb};
  c.normalized_shape_arg = normalizedShape;
  c.mask_arg = mask;
  return phase_one(c, ws, ex, [&](Call &k) {
    return f(k.in_args[0], k.in_args[1], k.normalized_shape_arg, k.in_args[2], k.in_args[3],
             k.in_args[4], k.in_args[5], k.mask_arg, k.out_args[0], k.out_args[1], k.out_args[2],
             ws, ex);
  });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnLayerNormBackward(void *w, uint64_t n, aclOpExecutor *ex,
                                                       aclrtStream s) {
  static auto f = real<decltype(&aclnnLayerNormBackward)>("aclnnLayerNormBackward");
  return phase_two(w, n, ex, s, f);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x,
                                                               const aclTensor *dy, double eps,
                                                               const aclTensor *out, uint64_t *ws,
                                                               aclOpExecutor **ex) {
  static auto f = real<decltype(&aclnnLogitGradGetWorkspaceSize)>("aclnnLogitGradGetWorkspaceSize");
  Call c;
  c.op = Op::kLogit;
  c.in_args = {x, dy};
  c.out_args = {const_cast<aclTensor *>(out)};
  c.eps = eps;
  return phase_one(c, ws, ex, [&](Call &k) {
    return f(k.in_args[0], k.in_args[1], k.eps, k.out_args[0], ws, ex);
  });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnLogitGrad(void *w, uint64_t n, aclOpExecutor *ex,
                                               aclrtStream s) {
  static auto f = real<decltype(&aclnnLogitGrad)>("aclnnLogitGrad");
  return phase_two(w, n, ex, s, f);
}

ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(const aclTensor *gradY,
                                                                        const aclTensor *groupIdx,
                                                                        aclTensor *out,
                                                                        uint64_t *ws,
                                                                        aclOpExecutor **ex) {
  static auto f = real<decltype(&aclnnGroupedBiasAddGradGetWorkspaceSize)>(
      "aclnnGroupedBiasAddGradGetWorkspaceSize");
  static auto f2 = real<decltype(&aclnnGroupedBiasAddGradV2GetWorkspaceSize)>(
      "aclnnGroupedBiasAddGradV2GetWorkspaceSize");
  Call c;
  c.op = Op::kGbag;
  c.in_args = {gradY, groupIdx};
  c.out_args = {out};
  return phase_one(c, ws, ex, [&](Call &k) {
    // A hook that changed the type (0 for V1) goes through V2, which has the parameter.
    return k.group_idx_type == 0
               ? f(k.in_args[0], k.in_args[1], k.out_args[0], ws, ex)
               : f2(k.in_args[0], k.in_args[1], k.group_idx_type, k.out_args[0], ws, ex);
  });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGrad(void *w, uint64_t n, aclOpExecutor *ex,
                                                        aclrtStream s) {
  static auto f = real<decltype(&aclnnGroupedBiasAddGrad)>("aclnnGroupedBiasAddGrad");
  return phase_two(w, n, ex, s, f);
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *groupIdx, int64_t type, aclTensor *out, uint64_t *ws,
    aclOpExecutor **ex) {
  static auto f = real<decltype(&aclnnGroupedBiasAddGradV2GetWorkspaceSize)>(
      "aclnnGroupedBiasAddGradV2GetWorkspaceSize");
  Call c;
  c.op = Op::kGbagV2;
  c.in_args = {gradY, groupIdx};
  c.out_args = {out};
  c.group_idx_type = type;
  return phase_one(c, ws, ex, [&](Call &k) {
    return f(k.in_args[0], k.in_args[1], k.group_idx_type, k.out_args[0], ws, ex);
  });
}
ACL_FUNC_VISIBILITY aclnnStatus aclnnGroupedBiasAddGradV2(void *w, uint64_t n, aclOpExecutor *ex,
                                                          aclrtStream s) {
  static auto f = real<decltype(&aclnnGroupedBiasAddGradV2)>("aclnnGroupedBiasAddGradV2");
  return phase_two(w, n, ex, s, f);
}

}  // extern "C"
