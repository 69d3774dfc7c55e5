// aclnnLogitGrad (spec logit_grad.md): out = dy / (x * (1 - x)) inside the eps range, with the
// seed's specific clauses applied first (LOGIT-EPS-NAN-1 .. LOGIT-DY-NONFINITE-1), then the general
// rule (LOGIT-VALUE-1, LOGIT-X01-1).
//
// Values: x and dy are converted exactly to double; x * (1 - x) and the quotient are evaluated in
// double (relative error below 2^-51 in all) and rounded once to the output dtype, which keeps
// fp16/bf16 within 1 ulp and fp32 within 2 ulp of the exact value (VAL-TOL-1). eps is compared
// with x exactly: the upper bound 1 - eps is rounded down to a double, which decides x <= 1 - eps
// exactly for every double x.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "aclnnop/aclnn_logit_grad.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/strided_loop.hpp"

namespace aclnn_cpu {
namespace {

constexpr const char *kOp = "aclnnLogitGrad";

// How eps shapes the whole result (the specific eps clauses override everything per element).
enum class Mode { kAllNan, kAllZero, kDivByZero, kGeneral };

struct Params {
  Mode mode = Mode::kGeneral;
  double lo = 0.0, hi = 1.0;  // inclusive range of x that uses the formula
  bool neg_eps = true;        // eps < 0: outside the range gives NaN, else 0
};

Params make_params(double eps) {
  Params p;
  if (std::isnan(eps)) {
    p.mode = Mode::kAllNan;  // LOGIT-EPS-NAN-1
  } else if (eps == std::numeric_limits<double>::infinity()) {
    p.mode = Mode::kAllZero;  // LOGIT-EPS-INF-1
  } else if (eps > 1.0) {
    p.mode = Mode::kAllNan;  // LOGIT-EPS-GT1-1
  } else if (eps == 1.0) {
    p.mode = Mode::kDivByZero;  // LOGIT-EPS-EQ1-1
  } else if (eps < 0.0) {
    p.neg_eps = true;  // LOGIT-VALUE-1: x in [0, 1]; -inf lands here too
    p.lo = 0.0;
    p.hi = 1.0;
  } else {
    // LOGIT-VALUE-1: x in [eps, 1 - eps], compared exactly. s = 1 - eps rounded; since
    // |1| >= |eps|, err = (-eps) - (s - 1) is the exact remainder (Fast2Sum). If the exact value is
    // below s, the largest double <= 1 - eps is the one under s.
    p.neg_eps = false;
    p.lo = eps;
    const double s = 1.0 - eps;
    const double err = (-eps) - (s - 1.0);
    p.hi = err < 0.0 ? std::nextafter(s, -std::numeric_limits<double>::infinity()) : s;
  }
  return p;
}

// ---- conversions (branch-free so the loops vectorize; each is exact or one RNE rounding) -------
inline double load_f16(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;
  const uint32_t normal = (em << 13) + (112u << 23);  // rebias 15 -> 127
  const uint32_t infnan = (em << 13) | 0x7f800000u;   // keeps the NaN payload
  const float sub =
      static_cast<float>(static_cast<int32_t>(em)) * 0x1p-24f;  // subnormal: em * 2^-24, exact
  const uint32_t bits =
      em < 0x400u ? std::bit_cast<uint32_t>(sub) : (em >= 0x7c00u ? infnan : normal);
  return static_cast<double>(std::bit_cast<float>(bits | sign));
}
inline double load_bf16(uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(b) << 16));
}

// Rounds a double to binary16 once, ties to even (same results as double_to_half).
inline uint16_t store_f16(double d) {
  const uint64_t b = std::bit_cast<uint64_t>(d);
  const auto sign = static_cast<uint16_t>((b >> 48) & 0x8000u);
  const uint64_t a = b & 0x7fffffffffffffffull;
  const double ad = std::bit_cast<double>(a);
  // Normal range: round the 52-bit mantissa at bit 42 (10 bits kept); a carry bumps the exponent.
  const uint64_t r = a + 0x1ffffffffffull + ((a >> 42) & 1u);
  const int64_t e = static_cast<int64_t>(r >> 52) - 1023 + 15;
  const auto normal = static_cast<uint16_t>((e << 10) | static_cast<int64_t>((r >> 42) & 0x3ffu));
  // Subnormal range: quantum 2^-24; adding 2^52 rounds to an integer, ties to even.
  const double q = ((ad < 0x1p-14 ? ad : 0.0) * 0x1p24 + 0x1p52) - 0x1p52;
  const auto sub = static_cast<uint16_t>(static_cast<int64_t>(q));
  uint16_t v = ad < 0x1p-14 ? sub : (ad >= 65520.0 ? uint16_t{0x7c00} : normal);
  v = ad != ad ? uint16_t{0x7e00} : v;
  return sign | v;
}
// Rounds a double to bfloat16 once, ties to even (same results as double_to_bf16).
inline uint16_t store_bf16(double d) {
  const uint64_t b = std::bit_cast<uint64_t>(d);
  const auto sign = static_cast<uint16_t>((b >> 48) & 0x8000u);
  const uint64_t a = b & 0x7fffffffffffffffull;
  const double ad = std::bit_cast<double>(a);
  const uint64_t r = a + 0xfffffffffffull + ((a >> 45) & 1u);
  const int64_t e = static_cast<int64_t>(r >> 52) - 1023 + 127;
  const auto normal = static_cast<uint16_t>((e << 7) | static_cast<int64_t>((r >> 45) & 0x7fu));
  const double q = ((ad < 0x1p-126 ? ad : 0.0) * 0x1p133 + 0x1p52) - 0x1p52;
  const auto sub = static_cast<uint16_t>(static_cast<int64_t>(q));
  uint16_t v = ad < 0x1p-126 ? sub : (ad >= 0x1.ffp127 ? uint16_t{0x7f80} : normal);
  v = ad != ad ? uint16_t{0x7fc0} : v;
  return sign | v;
}

template <aclDataType DT>
struct Io;
template <>
struct Io<ACL_FLOAT> {
  using T = float;
  static double load(T v) { return static_cast<double>(v); }
  static T store(double d) { return static_cast<float>(d); }
};
template <>
struct Io<ACL_FLOAT16> {
  using T = uint16_t;
  static double load(T v) { return load_f16(v); }
  static T store(double d) { return store_f16(d); }
};
template <>
struct Io<ACL_BF16> {
  using T = uint16_t;
  static double load(T v) { return load_bf16(v); }
  static T store(double d) { return store_bf16(d); }
};

// The general rule with the per-element specific clauses (LOGIT-X-NONFINITE-1,
// LOGIT-DY-NONFINITE-1, LOGIT-VALUE-1, LOGIT-X01-1), branch-free.
inline double logit_general(double x, double dy, double lo, double hi, bool neg_eps) {
  constexpr double kMax = std::numeric_limits<double>::max();
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  // + 0.0 turns the -0 of x = -0 into +0, so x = 0 or 1 gives dy / +0 (LOGIT-X01-1).
  const double den = x * (1.0 - x) + 0.0;
  const double q = dy / den;               // inf dy inside the range: an infinity by IEEE
  const bool inside = x >= lo && x <= hi;  // false for NaN and infinite x
  const bool nan_outside = neg_eps || !(std::fabs(dy) <= kMax) || !(std::fabs(x) <= kMax);
  return inside ? q : (nan_outside ? kNan : 0.0);
}

// One run of n elements; strides in bytes.
template <aclDataType DT>
void run_general(const Params &p, const char *x, const char *dy, char *out, int64_t sx, int64_t sdy,
                 int64_t so, int64_t n) {
  using IO = Io<DT>;
  using T = typename IO::T;
  constexpr auto es = static_cast<int64_t>(sizeof(T));
  const double lo = p.lo, hi = p.hi;
  const bool neg = p.neg_eps;
  if (sx == es && sdy == es && so == es) {
    const T *xp = reinterpret_cast<const T *>(x);
    const T *dp = reinterpret_cast<const T *>(dy);
    T *op = reinterpret_cast<T *>(out);
    for (int64_t i = 0; i < n; ++i) {
      T xv, dv;
      std::memcpy(&xv, xp + i, sizeof(T));
      std::memcpy(&dv, dp + i, sizeof(T));
      op[i] = IO::store(logit_general(IO::load(xv), IO::load(dv), lo, hi, neg));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    T xv, dv;
    std::memcpy(&xv, x + i * sx, sizeof(T));
    std::memcpy(&dv, dy + i * sdy, sizeof(T));
    const T r = IO::store(logit_general(IO::load(xv), IO::load(dv), lo, hi, neg));
    std::memcpy(out + i * so, &r, sizeof(T));
  }
}

template <aclDataType DT>
void run_special(const Params &p, const char *dy, char *out, int64_t sdy, int64_t so, int64_t n) {
  using IO = Io<DT>;
  using T = typename IO::T;
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  if (p.mode == Mode::kDivByZero) {  // LOGIT-EPS-EQ1-1: dy / 0
    for (int64_t i = 0; i < n; ++i) {
      T dv;
      std::memcpy(&dv, dy + i * sdy, sizeof(T));
      const T r = IO::store(IO::load(dv) / 0.0);
      std::memcpy(out + i * so, &r, sizeof(T));
    }
    return;
  }
  const T r = IO::store(p.mode == Mode::kAllNan ? kNan : 0.0);
  for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * so, &r, sizeof(T));
}

struct Plan {
  StridedLoop<3> loop;  // operands: out, x, dy
  Params params;
  aclDataType dtype = ACL_FLOAT;
};

template <aclDataType DT>
void execute_typed(const Plan &plan) {
  const StridedLoop<3> &l = plan.loop;
  const Params &p = plan.params;
  parallel_for(l.numel, 1 << 15, [&](int64_t begin, int64_t end) {
    l.for_range(begin, end,
                [&](const std::array<char *, 3> &ptr, const std::array<int64_t, 3> &st, int64_t n) {
                  if (p.mode == Mode::kGeneral)
                    run_general<DT>(p, ptr[1], ptr[2], ptr[0], st[1], st[2], st[0], n);
                  else
                    run_special<DT>(p, ptr[2], ptr[0], st[2], st[0], n);
                });
  });
}

void execute(const Plan &plan) {
  switch (plan.dtype) {
    case ACL_FLOAT:
      execute_typed<ACL_FLOAT>(plan);
      break;
    case ACL_FLOAT16:
      execute_typed<ACL_FLOAT16>(plan);
      break;
    case ACL_BF16:
      execute_typed<ACL_BF16>(plan);
      break;
    default:
      break;  // rejected in phase one
  }
}

aclnnStatus check_dtype(const char *name, const aclTensor &t, const aclTensor &x) {
  if (!is_float16_or_32(t.dtype))
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "{} has dtype {}; LOGIT-DTYPE-1 requires FLOAT, FLOAT16 or BFLOAT16", name,
                dtype_name(t.dtype));
  if (t.dtype != x.dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "{} has dtype {} but x has {}; LOGIT-DTYPE-1 requires x, dy and out to have one "
                "dtype",
                name, dtype_name(t.dtype), dtype_name(x.dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus check_shape(const char *name, const aclTensor &t, const aclTensor &x) {
  if (t.view_dims != x.view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "{} shape {} != x shape {}; LOGIT-SHAPE-1 requires dy and out to have x's shape",
                name, shape_str(t.view_dims), shape_str(x.view_dims));
  return ACLNN_SUCCESS;
}

aclnnStatus check_rank8(const char *name, const aclTensor &t) {
  if (rank(t) > kMaxRank)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "{} has rank {} (shape {}); LOGIT-RANK-1 allows rank 0 to 8", name, rank(t),
                shape_str(t.view_dims));
  return ACLNN_SUCCESS;
}

}  // namespace
}  // namespace aclnn_cpu

using namespace aclnn_cpu;

extern "C" aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x, const aclTensor *dy,
                                                      double eps, const aclTensor *out,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor) {
  ACLNN_CHECK(check_phase_one_outputs(kOp, workspaceSize, executor));
  Soc soc;
  ACLNN_CHECK(check_soc(kOp, soc));
  if (soc != Soc::kAtlasA2 && soc != Soc::kAtlasA3)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "the op is not supported on {}; only Atlas A2 and A3 have it (ABI-SOC-1)",
                soc_name(soc));
  // LOGIT-NULL-1
  ACLNN_CHECK(check_not_null(kOp, "x (LOGIT-NULL-1)", x));
  ACLNN_CHECK(check_not_null(kOp, "dy (LOGIT-NULL-1)", dy));
  ACLNN_CHECK(check_not_null(kOp, "out (LOGIT-NULL-1)", out));
  // LOGIT-DTYPE-1
  ACLNN_CHECK(check_dtype("x", *x, *x));
  ACLNN_CHECK(check_dtype("dy", *dy, *x));
  ACLNN_CHECK(check_dtype("out", *out, *x));
  // LOGIT-SHAPE-1
  ACLNN_CHECK(check_shape("dy", *dy, *x));
  ACLNN_CHECK(check_shape("out", *out, *x));
  // LOGIT-RANK-1
  ACLNN_CHECK(check_rank8("x", *x));
  ACLNN_CHECK(check_rank8("dy", *dy));
  ACLNN_CHECK(check_rank8("out", *out));
  // Project checks: storage present, output view well-formed (in-place on x or dy accepted).
  ACLNN_CHECK(check_data(kOp, "x", *x));
  ACLNN_CHECK(check_data(kOp, "dy", *dy));
  ACLNN_CHECK(check_data(kOp, "out", *out));
  ACLNN_CHECK(check_output(kOp, "out", *out, {{"x", x}, {"dy", dy}}, true));

  if (numel(*x) == 0)  // LOGIT-EMPTY-1: success, workspace 0, nothing written
    return publish_executor(
        kOp, 0, [](void *) {}, workspaceSize, executor);
  Plan plan;
  plan.loop = StridedLoop<3>::make(x->view_dims, {out, x, dy});
  plan.params = make_params(eps);
  plan.dtype = x->dtype;
  return publish_executor(
      kOp, 0, [plan](void *) { execute(plan); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnLogitGrad(void *workspace, uint64_t workspaceSize,
                                      aclOpExecutor *executor, aclrtStream stream) {
  (void)stream;
  return run_executor(kOp, workspace, workspaceSize, executor);
}
