// aclnnLogitGrad (spec logit_grad.md): out = dy / (x * (1 - x)) inside the eps range, with the
// seed's specific clauses applied first (LOGIT-EPS-NAN-1 .. LOGIT-DY-NONFINITE-1), then the general
// rule (LOGIT-VALUE-1, LOGIT-X01-1). The checks in the specification's order, the plan and the
// entry points; the kernel of the general rule is in impl/kernels/logit_grad-inl.hpp (its contract
// and accuracy there).
//
// Plan: eps decides the mode once (all NaN, all zero, dy / 0, or the general rule); eps is
// compared with x exactly: the upper bound 1 - eps is rounded down to a double, which decides
// x <= 1 - eps exactly for every double x. The general rule runs in the kernel; the other modes
// are scalar.
#include "impl/simd_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/logit_grad.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "impl/kernels/logit_grad-inl.hpp"

#if HWY_ONCE
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "aclnnop/aclnn_logit_grad.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/elementwise_io.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/simd.hpp"
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

HWY_EXPORT(LogitGradGeneral);

// One run of n elements; strides in bytes. Blocks of floats (in place when contiguous FLOAT); the
// kernel writes a contiguous output directly, a strided one through a double buffer.
void run_general(const Params &p, aclDataType t, bool stream, const char *x, const char *dy,
                 char *out, int64_t sx, int64_t sdy, int64_t so, int64_t n) {
  const auto es = static_cast<int64_t>(dtype_size(t));
  const bool direct = so == es;
  const int kind = static_cast<int>(direct ? ew::out_kind(t) : ew::OutKind::kF64);
  alignas(64) float bx[ew::kBlock], bdy[ew::kBlock];
  alignas(64) double res[ew::kBlock];
  stream = stream && direct;
  for (int64_t done = 0, m = 0; done < n; done += m) {
    m = simd::stream_block(stream, out + done * so, es, std::min(ew::kBlock, n - done));
    const ew::BlockInputs in =
        ew::load_pair(x + done * sx, sx, t, dy + done * sdy, sdy, t, t, m, bx, bdy);
    void *dst = direct ? static_cast<void *>(out + done * so) : res;
    HWY_DYNAMIC_DISPATCH(LogitGradGeneral)
    (in.kind, kind, t != ACL_FLOAT, in.a, in.b, dst, static_cast<size_t>(m), p.lo, p.hi, p.neg_eps,
     stream);
    if (!direct) ew::store_strided(out + done * so, so, t, m, res);
  }
}

void run_special(const Params &p, aclDataType t, const char *dy, char *out, int64_t sdy, int64_t so,
                 int64_t n) {
  if (p.mode == Mode::kDivByZero) {  // LOGIT-EPS-EQ1-1: dy / 0
    for (int64_t i = 0; i < n; ++i)
      store_from_double(out + i * so, t, load_as_double(dy + i * sdy, t) / 0.0);
    return;
  }
  const double v = p.mode == Mode::kAllNan ? std::numeric_limits<double>::quiet_NaN() : 0.0;
  for (int64_t i = 0; i < n; ++i) store_from_double(out + i * so, t, v);
}

struct Plan {
  StridedLoop<3> loop;  // operands: out, x, dy
  Params params;
  aclDataType dtype = ACL_FLOAT;
  bool stream = false;  // simd::stream_output
};

void execute(const Plan &plan) {
  const StridedLoop<3> &l = plan.loop;
  const Params &p = plan.params;
  parallel_for(l.numel, ew::kParallelGrain, [&](int64_t begin, int64_t end) {
    l.for_range(begin, end,
                [&](const std::array<char *, 3> &ptr, const std::array<int64_t, 3> &st, int64_t n) {
                  if (p.mode == Mode::kGeneral)
                    run_general(p, plan.dtype, plan.stream, ptr[1], ptr[2], ptr[0], st[1], st[2],
                                st[0], n);
                  else
                    run_special(p, plan.dtype, ptr[2], ptr[0], st[2], st[0], n);
                });
    if (plan.stream) simd::flush_streams();
  });
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

static aclnnStatus get_workspace_size(const aclTensor *x, const aclTensor *dy, double eps,
                                      const aclTensor *out, uint64_t *workspaceSize,
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
  plan.stream = simd::stream_output(numel(*x) * 3 * static_cast<int64_t>(dtype_size(x->dtype)),
                                    simd::LoopKind::memory_bound);
  return publish_executor(
      kOp, 0, [plan](void *) { execute(plan); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x, const aclTensor *dy,
                                                      double eps, const aclTensor *out,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor) {
  return guard_abi(kOp,
                   [&] { return get_workspace_size(x, dy, eps, out, workspaceSize, executor); });
}

extern "C" aclnnStatus aclnnLogitGrad(void *workspace, uint64_t workspaceSize,
                                      aclOpExecutor *executor, aclrtStream stream) {
  (void)stream;
  return run_executor(kOp, workspace, workspaceSize, executor);
}
#endif  // HWY_ONCE
