// aclnnGeluBackward (spec gelu_backward.md): gradInput = gradOutput * g(self),
// g(x) = 1/2 + 1/2 erf(x/sqrt2) + x/sqrt(2pi) exp(-x^2/2), exact erf form (no tanh approximation).
//
// Plan: both inputs are converted to the promoted dtype's values (exact floats) block by block, g
// is computed in double Highway vectors (erfc and exp from SLEEF's AVX-512 or AVX2 entry points on
// those targets, libm on the portable one), lanes near the root of g or at +/-inf are fixed up
// (the same rules as ew::gelu_g_fixup), and dy*g is rounded once from double to the output dtype.
// SLEEF and libm differ in the last bits of erfc/exp, so results may differ by an ulp between the
// portable target and the x86 ones (docs/performance.md); all stay within the accuracy bound.
#include "impl/simd_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/gelu_backward.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <immintrin.h>

#include <cmath>
#include <limits>

#include "impl/elementwise_math.hpp"
#include "impl/simd-inl.hpp"

#ifndef ACLNN_GELU_SLEEF_DECLARED
#define ACLNN_GELU_SLEEF_DECLARED
// SLEEF's ISA-specific entry points (libsleef 3.5, sleef.h). sleef.h declares them only when the
// translation unit itself is compiled for AVX, which this portable library is not; they are called
// only from the Highway target compiled for (and only run on) CPUs with that ISA.
extern "C" {
__m256d Sleef_erfcd4_u15avx2(__m256d);
__m256d Sleef_expd4_u10avx2(__m256d);
__m512d Sleef_erfcd8_u15avx512f(__m512d);
__m512d Sleef_expd8_u10avx512f(__m512d);
}
#endif

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 0.5 * erfc(-x/sqrt2) + (x/sqrt(2pi)) * exp(-x^2/2), each operation rounded as in ew::gelu_g.
template <class DD, class V>
HWY_INLINE V GeluBulk(DD dd, V x) {
  const V z = hn::Mul(x, hn::Set(dd, -ew::kInvSqrt2));
  const V w = hn::Mul(hn::Mul(x, x), hn::Set(dd, -0.5));
#if HWY_TARGET == HWY_AVX3
  const V e{Sleef_erfcd8_u15avx512f(z.raw)};
  const V p{Sleef_expd8_u10avx512f(w.raw)};
#elif HWY_TARGET == HWY_AVX2
  const V e{Sleef_erfcd4_u15avx2(z.raw)};
  const V p{Sleef_expd4_u10avx2(w.raw)};
#else
  HWY_ALIGN double ze[16], we[16];  // at most 16 lanes on the portable targets
  hn::Store(z, dd, ze);
  hn::Store(w, dd, we);
  for (size_t i = 0; i < hn::Lanes(dd); ++i) {
    ze[i] = std::erfc(ze[i]);
    we[i] = std::exp(we[i]);
  }
  const V e = hn::Load(dd, ze);
  const V p = hn::Load(dd, we);
#endif
  return hn::Add(hn::Mul(hn::Set(dd, 0.5), e),
                 hn::Mul(hn::Mul(x, hn::Set(dd, ew::kInvSqrt2Pi)), p));
}

// g(x) with the fixups of ew::gelu_g_fixup: the Taylor form near the root, the limits at +/-inf,
// and the sign of a g that underflowed.
template <class DD, class V>
HWY_INLINE V GeluG(DD dd, V x) {
  V g = GeluBulk(dd, x);
  const auto underflow = hn::AndNot(hn::IsNaN(x), hn::Eq(g, hn::Zero(dd)));
  g = hn::IfThenElse(underflow, hn::Set(dd, -std::numeric_limits<double>::denorm_min()), g);
  const V at_inf = hn::IfThenElse(hn::Gt(x, hn::Zero(dd)), hn::Set(dd, 1.0), hn::Set(dd, -0.0));
  g = hn::IfThenElse(hn::IsInf(x), at_inf, g);
  const auto near =
      hn::Lt(hn::Abs(hn::Sub(x, hn::Set(dd, ew::kGeluRootHi))), hn::Set(dd, ew::kGeluRootRadius));
  if (!hn::AllFalse(dd, near)) {
    const V d = hn::Sub(hn::Sub(x, hn::Set(dd, ew::kGeluRootHi)), hn::Set(dd, ew::kGeluRootLo));
    V p = hn::Set(dd, ew::kGeluTaylor[11]);
    for (int k = 10; k >= 0; --k) p = hn::Add(hn::Mul(p, d), hn::Set(dd, ew::kGeluTaylor[k]));
    g = hn::IfThenElse(near, hn::Mul(p, d), g);
  }
  return g;
}

// out = dy * g(x), rounded once to the output kind.
void GeluGradFloat(int in_kind, int out_kind, const void *dy, const void *x, void *out, size_t n) {
  simd::HWY_NAMESPACE::BinaryTo(in_kind, out_kind, dy, x, out, n,
                                [](auto dd, auto vdy, auto vx)
                                    ACLNN_SIMD_LAMBDA { return hn::Mul(vdy, GeluG(dd, vx)); });
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <array>
#include <cstring>

#include "aclnnop/aclnn_gelu_backward.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/elementwise_io.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/strided_loop.hpp"

namespace aclnn_cpu {
namespace {

constexpr const char *kOp = "aclnnGeluBackward";

HWY_EXPORT(GeluGradFloat);

struct Plan {
  StridedLoop<3> loop;  // operands: gradInput, gradOutput, self
  aclDataType dy_t = ACL_FLOAT, x_t = ACL_FLOAT, comp = ACL_FLOAT;
};

// One inner run, in blocks: inputs as the computation dtype's floats (in place when contiguous
// FLOAT), the kernel writes a contiguous output directly, a strided one through a double buffer.
void run_inner(const Plan &plan, char *out, const char *dy, const char *x, int64_t so, int64_t sdy,
               int64_t sx, int64_t n) {
  const auto es = static_cast<int64_t>(dtype_size(plan.comp));
  const bool direct = so == es;
  const int kind = static_cast<int>(direct ? ew::out_kind(plan.comp) : ew::OutKind::kF64);
  alignas(64) float bdy[ew::kBlock], bx[ew::kBlock];
  alignas(64) double res[ew::kBlock];
  for (int64_t done = 0; done < n; done += ew::kBlock) {
    const int64_t m = std::min(ew::kBlock, n - done);
    const ew::BlockInputs in = ew::load_pair(dy + done * sdy, sdy, plan.dy_t, x + done * sx, sx,
                                             plan.x_t, plan.comp, m, bdy, bx);
    void *dst = direct ? static_cast<void *>(out + done * so) : res;
    HWY_DYNAMIC_DISPATCH(GeluGradFloat)(in.kind, kind, in.a, in.b, dst, static_cast<size_t>(m));
    if (!direct) ew::store_strided(out + done * so, so, plan.comp, m, res);
  }
}

void run_plan(const Plan &plan) {
  parallel_for(plan.loop.numel, ew::kParallelGrain, [&plan](int64_t begin, int64_t end) {
    plan.loop.for_range(begin, end,
                        [&](const std::array<char *, 3> &p, const std::array<int64_t, 3> &s,
                            int64_t n) { run_inner(plan, p[0], p[1], p[2], s[0], s[1], s[2], n); });
  });
}

}  // namespace
}  // namespace aclnn_cpu

using namespace aclnn_cpu;

extern "C" aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                         const aclTensor *self,
                                                         const aclTensor *gradInput,
                                                         uint64_t *workspaceSize,
                                                         aclOpExecutor **executor) {
  ACLNN_CHECK(check_phase_one_outputs(kOp, workspaceSize, executor));
  Soc soc;
  ACLNN_CHECK(check_soc(kOp, soc));
  // GELU-NULL-1
  ACLNN_CHECK(check_not_null(kOp, "gradOutput", gradOutput));
  ACLNN_CHECK(check_not_null(kOp, "self", self));
  ACLNN_CHECK(check_not_null(kOp, "gradInput", gradInput));
  // GELU-DTYPE-1
  const auto promoted = promote_types(gradOutput->dtype, self->dtype);
  if (!promoted)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradOutput dtype {} and self dtype {} have no promoted dtype (GELU-DTYPE-1)",
                dtype_name(gradOutput->dtype), dtype_name(self->dtype));
  if (!is_float16_or_32(*promoted))
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradOutput dtype {} and self dtype {} promote to {}; it must be FLOAT, FLOAT16 "
                "or BFLOAT16 (GELU-DTYPE-1)",
                dtype_name(gradOutput->dtype), dtype_name(self->dtype), dtype_name(*promoted));
  if (*promoted == ACL_BF16 && !soc_has_bf16(soc))
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradOutput dtype {} and self dtype {} promote to BFLOAT16, which {} does not "
                "support (GELU-DTYPE-1)",
                dtype_name(gradOutput->dtype), dtype_name(self->dtype), soc_name(soc));
  // GELU-DTYPE-2
  if (gradInput->dtype != *promoted)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradInput dtype {} != promoted dtype {} of gradOutput and self (GELU-DTYPE-2)",
                dtype_name(gradInput->dtype), dtype_name(*promoted));
  // GELU-RANK-1
  for (auto [name, t] : {std::pair{"gradOutput", gradOutput}, std::pair{"self", self},
                         std::pair{"gradInput", gradInput}}) {
    if (rank(*t) > kMaxRank)
      return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                  "{} has rank {} (shape {}); it must be 0 to 8 "
                  "(GELU-RANK-1)",
                  name, rank(*t), shape_str(t->view_dims));
  }
  // GELU-BCAST-1, GELU-BCAST-2
  std::vector<int64_t> shape;
  if (!broadcast_shapes(gradOutput->view_dims, self->view_dims, shape))
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradOutput shape {} and self shape {} do not broadcast (GELU-BCAST-1)",
                shape_str(gradOutput->view_dims), shape_str(self->view_dims));
  if (gradInput->view_dims != shape)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradInput shape {} != broadcast shape {} of gradOutput and self (GELU-BCAST-2)",
                shape_str(gradInput->view_dims), shape_str(shape));
  // Project checks: storage present, output view sound (in-place accepted).
  ACLNN_CHECK(check_data(kOp, "gradOutput", *gradOutput));
  ACLNN_CHECK(check_data(kOp, "self", *self));
  ACLNN_CHECK(check_data(kOp, "gradInput", *gradInput));
  ACLNN_CHECK(check_output(kOp, "gradInput", *gradInput,
                           {{"gradOutput", gradOutput}, {"self", self}}, true));

  if (numel(shape) == 0)  // GELU-EMPTY-1
    return publish_executor(
        kOp, 0, [](void *) {}, workspaceSize, executor);
  Plan plan;
  plan.loop = StridedLoop<3>::make(shape, {gradInput, gradOutput, self});
  plan.dy_t = gradOutput->dtype;
  plan.x_t = self->dtype;
  plan.comp = *promoted;
  return publish_executor(
      kOp, 0, [plan](void *) { run_plan(plan); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnGeluBackward(void *workspace, uint64_t workspaceSize,
                                         aclOpExecutor *executor, aclrtStream /*stream*/) {
  return run_executor(kOp, workspace, workspaceSize, executor);
}
#endif  // HWY_ONCE
