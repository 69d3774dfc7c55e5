// aclnnSeluBackward (spec selu_backward.md): with y = result (the forward output) and dy =
// gradOutput, gradInput = dy * lambda where y >= 0 (including +/-0, SELU-ZERO-1) and
// dy * (y + lambda*alpha) where y < 0; NaN y gives NaN (SELU-NAN-1).
//
// Float dtypes: the factor and the product in double (relative error below 2^-51), rounded once to
// the output dtype. INT8/INT32 (SELU-INT-1): the exact value is needed to round to nearest even, so
// the factor is a double-double (lambda and lambda*alpha from the spec's 32-digit decimals), the
// product is formed exactly with an FMA, and ew::round_dd_to_int rounds and saturates.
//
// The kernels are compiled three times (AVX-512, AVX2+FMA, baseline x86-64) and one is chosen
// per call; all three compute bit-identical results (the same IEEE operations, FMA in all of them:
// the baseline build calls the correctly rounded libm fma).
#include <algorithm>
#include <array>
#include <cstring>

#include "aclnnop/aclnn_selu_backward.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/elementwise_math.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/strided_loop.hpp"

namespace aclnn_cpu {
namespace {

constexpr const char *kOp = "aclnnSeluBackward";

struct TF32 {
  using S = float;
};
struct TF16 {
  using S = uint16_t;
};
struct TBF16 {
  using S = uint16_t;
};
struct TI8 {
  using S = int8_t;
};
struct TI32 {
  using S = int32_t;
};

template <typename T>
ACLNN_EW_INLINE double decode(typename T::S s) {
  if constexpr (std::is_same_v<T, TF16>)
    return half_to_float(s);
  else if constexpr (std::is_same_v<T, TBF16>)
    return bf16_to_float(s);
  else
    return static_cast<double>(s);
}

template <typename T>
ACLNN_EW_INLINE typename T::S selu_grad(typename T::S dy_s, typename T::S y_s) {
  const double dy = decode<T>(dy_s), y = decode<T>(y_s);
  if constexpr (std::is_same_v<T, TI8> || std::is_same_v<T, TI32>) {
    // Integers: y and dy exact, no NaN/inf. Factor f = fh + fl (double-double).
    double fh, fl;
    if (y >= 0) {
      fh = ew::kSeluLambdaHi;
      fl = ew::kSeluLambdaLo;
    } else {
      double e;
      ew::two_sum(y, ew::kSeluLambdaAlphaHi, fh, e);
      fl = e + ew::kSeluLambdaAlphaLo;
    }
    double p, pe;
    ew::two_prod(dy, fh, p, pe);
    return ew::round_dd_to_int<typename T::S>(p, pe + dy * fl);
  } else {
    // y >= 0 is false for NaN; the NaN then propagates through y + lambda*alpha.
    const double f =
        y >= 0 ? ew::kSeluLambdaHi : (y + ew::kSeluLambdaAlphaHi) + ew::kSeluLambdaAlphaLo;
    const double v = dy * f;
    if constexpr (std::is_same_v<T, TF32>)
      return static_cast<float>(v);
    else if constexpr (std::is_same_v<T, TF16>)
      return double_to_half(v);
    else
      return double_to_bf16(v);
  }
}

// One inner run: n elements with byte strides s (gradInput, gradOutput, result).
template <typename T>
ACLNN_EW_INLINE void selu_run_body(char *out, const char *dy, const char *y, int64_t so,
                                   int64_t sdy, int64_t sy, int64_t n) {
  using S = typename T::S;
  constexpr auto es = static_cast<int64_t>(sizeof(S));
  if (so == es && sdy == es && sy == es) {  // contiguous fast path (vectorizable)
    S *o = reinterpret_cast<S *>(out);
    const S *a = reinterpret_cast<const S *>(dy);
    const S *b = reinterpret_cast<const S *>(y);
    for (int64_t i = 0; i < n; ++i) o[i] = selu_grad<T>(a[i], b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      S a, b;
      std::memcpy(&a, dy + i * sdy, sizeof a);
      std::memcpy(&b, y + i * sy, sizeof b);
      const S r = selu_grad<T>(a, b);
      std::memcpy(out + i * so, &r, sizeof r);
    }
  }
}

using RunFn = void (*)(char *, const char *, const char *, int64_t, int64_t, int64_t, int64_t);

#define ACLNN_SELU_VARIANTS(T)                                                                   \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))) void run_##T##_avx512(  \
      char *o, const char *a, const char *b, int64_t so, int64_t sa, int64_t sb, int64_t n) {    \
    selu_run_body<T>(o, a, b, so, sa, sb, n);                                                    \
  }                                                                                              \
  __attribute__((target("avx2,fma"))) void run_##T##_avx2(                                       \
      char *o, const char *a, const char *b, int64_t so, int64_t sa, int64_t sb, int64_t n) {    \
    selu_run_body<T>(o, a, b, so, sa, sb, n);                                                    \
  }                                                                                              \
  void run_##T##_base(char *o, const char *a, const char *b, int64_t so, int64_t sa, int64_t sb, \
                      int64_t n) {                                                               \
    selu_run_body<T>(o, a, b, so, sa, sb, n);                                                    \
  }                                                                                              \
  RunFn pick_##T(int isa) {                                                                      \
    return isa == 2 ? run_##T##_avx512 : isa == 1 ? run_##T##_avx2 : run_##T##_base;             \
  }

ACLNN_SELU_VARIANTS(TF32)
ACLNN_SELU_VARIANTS(TF16)
ACLNN_SELU_VARIANTS(TBF16)
ACLNN_SELU_VARIANTS(TI8)
ACLNN_SELU_VARIANTS(TI32)
#undef ACLNN_SELU_VARIANTS

int isa_level() {
  static const int level = [] {
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
      return 2;
    return avx2 ? 1 : 0;
  }();
  return level;
}

RunFn kernel_for(aclDataType t) {
  const int isa = isa_level();
  switch (t) {
    case ACL_FLOAT:
      return pick_TF32(isa);
    case ACL_FLOAT16:
      return pick_TF16(isa);
    case ACL_BF16:
      return pick_TBF16(isa);
    case ACL_INT8:
      return pick_TI8(isa);
    default:
      return pick_TI32(isa);  // ACL_INT32; others excluded by SELU-DTYPE-1
  }
}

struct Plan {
  StridedLoop<3> loop;  // gradInput, gradOutput, result
  RunFn run = nullptr;
};

void run_plan(const Plan &plan) {
  parallel_for(plan.loop.numel, 32768, [&plan](int64_t begin, int64_t end) {
    plan.loop.for_range(begin, end,
                        [&](const std::array<char *, 3> &p, const std::array<int64_t, 3> &s,
                            int64_t n) { plan.run(p[0], p[1], p[2], s[0], s[1], s[2], n); });
  });
}

bool selu_dtype_ok(aclDataType t, Soc soc) {
  switch (t) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_INT32:
    case ACL_INT8:
      return true;
    case ACL_BF16:
      return soc_has_bf16(soc);
    default:
      return false;
  }
}

}  // namespace
}  // namespace aclnn_cpu

using namespace aclnn_cpu;

extern "C" aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                         const aclTensor *result,
                                                         aclTensor *gradInput,
                                                         uint64_t *workspaceSize,
                                                         aclOpExecutor **executor) {
  ACLNN_CHECK(check_phase_one_outputs(kOp, workspaceSize, executor));
  Soc soc;
  ACLNN_CHECK(check_soc(kOp, soc));
  const std::array<std::pair<const char *, const aclTensor *>, 3> params = {
      std::pair{"gradOutput", gradOutput}, std::pair{"result", result},
      std::pair{"gradInput", static_cast<const aclTensor *>(gradInput)}};
  // SELU-NULL-1
  for (auto [name, t] : params) ACLNN_CHECK(check_not_null(kOp, name, t));
  // SELU-DTYPE-1
  for (auto [name, t] : params) {
    if (!selu_dtype_ok(t->dtype, soc))
      return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                  "{} dtype {} is not supported on {}: it must be FLOAT, FLOAT16, INT32, INT8{} "
                  "(SELU-DTYPE-1)",
                  name, dtype_name(t->dtype), soc_name(soc),
                  soc_has_bf16(soc) ? " or BFLOAT16" : " (BFLOAT16 only on Atlas A2/A3)");
  }
  // SELU-DTYPE-2
  for (auto [name, t] : {params[1], params[2]}) {
    if (t->dtype != gradOutput->dtype)
      return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                  "{} dtype {} != gradOutput dtype {}; all three dtypes must be equal "
                  "(SELU-DTYPE-2)",
                  name, dtype_name(t->dtype), dtype_name(gradOutput->dtype));
  }
  // SELU-SHAPE-1
  for (auto [name, t] : {params[1], params[2]}) {
    if (t->view_dims != gradOutput->view_dims)
      return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                  "{} shape {} != gradOutput shape {}; the shapes must be equal, no "
                  "broadcasting (SELU-SHAPE-1)",
                  name, shape_str(t->view_dims), shape_str(gradOutput->view_dims));
  }
  // SELU-RANK-1
  for (auto [name, t] : params) {
    if (rank(*t) < 1 || rank(*t) > kMaxRank)
      return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                  "{} has rank {} (shape {}); it must be 1 to 8 (SELU-RANK-1)", name, rank(*t),
                  shape_str(t->view_dims));
  }
  // Project checks.
  for (auto [name, t] : params) ACLNN_CHECK(check_data(kOp, name, *t));
  ACLNN_CHECK(check_output(kOp, "gradInput", *gradInput,
                           {{"gradOutput", gradOutput}, {"result", result}}, true));

  if (numel(*gradOutput) == 0)  // SELU-EMPTY-1
    return publish_executor(
        kOp, 0, [](void *) {}, workspaceSize, executor);
  Plan plan;
  plan.loop = StridedLoop<3>::make(gradOutput->view_dims, {gradInput, gradOutput, result});
  plan.run = kernel_for(gradOutput->dtype);
  return publish_executor(
      kOp, 0, [plan](void *) { run_plan(plan); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnSeluBackward(void *workspace, uint64_t workspaceSize,
                                         aclOpExecutor *executor, aclrtStream /*stream*/) {
  return run_executor(kOp, workspace, workspaceSize, executor);
}
