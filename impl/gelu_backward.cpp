// aclnnGeluBackward (spec gelu_backward.md): gradInput = gradOutput * g(self),
// g(x) = 1/2 + 1/2 erf(x/sqrt2) + x/sqrt(2pi) exp(-x^2/2), exact erf form (no tanh approximation).
//
// Plan: both inputs are converted to the promoted dtype's exact values (as doubles) block by block,
// g is computed in double for a whole block (SLEEF's AVX-512 or AVX2 erfc/exp where the CPU has
// them, libm otherwise), lanes near the root of g or at +/-inf are fixed up (elementwise_math.hpp),
// and dy*g is rounded once from double to the output dtype.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "aclnnop/aclnn_gelu_backward.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/elementwise_math.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/strided_loop.hpp"

// SLEEF's ISA-specific entry points (libsleef 3.5, sleef.h). sleef.h declares them only when the
// translation unit itself is compiled for AVX, which this portable library is not; the functions
// are called only from code compiled for (and only run on) CPUs with that ISA.
// The target attributes say which ISA passes these vector arguments (clang refuses the calls
// without them).
extern "C" {
__attribute__((target("avx2,fma"))) __m256d Sleef_erfcd4_u15avx2(__m256d);
__attribute__((target("avx2,fma"))) __m256d Sleef_expd4_u10avx2(__m256d);
__attribute__((target("avx512f,avx2,fma"))) __m512d Sleef_erfcd8_u15avx512f(__m512d);
__attribute__((target("avx512f,avx2,fma"))) __m512d Sleef_expd8_u10avx512f(__m512d);
}

namespace aclnn_cpu {
namespace {

constexpr const char *kOp = "aclnnGeluBackward";
constexpr int kBlock = 512;  // elements staged per step; a multiple of every SIMD width

// ---- g over a block of doubles ----------------------------------------------------------------
// Bulk formula for lanes [0, n) (n rounded up to the SIMD width; the buffer is padded), then the
// per-lane fixups of ew::gelu_g_fixup.
using GBlockFn = void (*)(const double *x, double *g, int n);

void g_block_scalar(const double *x, double *g, int n) {
  for (int i = 0; i < n; ++i)
    g[i] = 0.5 * std::erfc(-x[i] * ew::kInvSqrt2) +
           x[i] * ew::kInvSqrt2Pi * std::exp(-0.5 * x[i] * x[i]);
}

__attribute__((target("avx2,fma"))) void g_block_avx2(const double *x, double *g, int n) {
  const __m256d neg_s2 = _mm256_set1_pd(-ew::kInvSqrt2), s2pi = _mm256_set1_pd(ew::kInvSqrt2Pi);
  const __m256d mhalf = _mm256_set1_pd(-0.5), half = _mm256_set1_pd(0.5);
  for (int i = 0; i < n; i += 4) {
    const __m256d v = _mm256_loadu_pd(x + i);
    const __m256d e = Sleef_erfcd4_u15avx2(_mm256_mul_pd(v, neg_s2));
    const __m256d p = Sleef_expd4_u10avx2(_mm256_mul_pd(_mm256_mul_pd(v, v), mhalf));
    // Same operation order as the scalar path: (x*c)*exp + 0.5*erfc, each product rounded.
    _mm256_storeu_pd(
        g + i, _mm256_add_pd(_mm256_mul_pd(half, e), _mm256_mul_pd(_mm256_mul_pd(v, s2pi), p)));
  }
}

__attribute__((target("avx512f,avx2,fma"))) void g_block_avx512(const double *x, double *g, int n) {
  const __m512d neg_s2 = _mm512_set1_pd(-ew::kInvSqrt2), s2pi = _mm512_set1_pd(ew::kInvSqrt2Pi);
  const __m512d mhalf = _mm512_set1_pd(-0.5), half = _mm512_set1_pd(0.5);
  for (int i = 0; i < n; i += 8) {
    const __m512d v = _mm512_loadu_pd(x + i);
    const __m512d e = Sleef_erfcd8_u15avx512f(_mm512_mul_pd(v, neg_s2));
    const __m512d p = Sleef_expd8_u10avx512f(_mm512_mul_pd(_mm512_mul_pd(v, v), mhalf));
    _mm512_storeu_pd(
        g + i, _mm512_add_pd(_mm512_mul_pd(half, e), _mm512_mul_pd(_mm512_mul_pd(v, s2pi), p)));
  }
}

// ACLNN_CPU_GELU_ISA=scalar|avx2|avx512 narrows the choice (benchmarks, tests); the default is the
// widest the CPU supports.
GBlockFn select_g_block() {
  __builtin_cpu_init();
  const char *force = std::getenv("ACLNN_CPU_GELU_ISA");
  const std::string_view f = force ? force : "";
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f");
  if (f == "scalar") return g_block_scalar;
  if (avx512 && f != "avx2") return g_block_avx512;
  if (avx2) return g_block_avx2;
  return g_block_scalar;
}

void g_block(const double *x, double *g, int n) {
  static const GBlockFn fn = select_g_block();
  const int padded = (n + 7) & ~7;
  fn(x, g, padded);
  for (int i = 0; i < n; ++i) g[i] = ew::gelu_g_fixup(x[i], g[i]);
}

// ---- loads into the computation dtype, stores from double -------------------------------------
enum class Comp { kF32, kF16, kBF16 };

template <Comp C>
inline double to_comp(double exact) {  // `exact` is the input value (ints: int64_sticky)
  if constexpr (C == Comp::kF32) return static_cast<double>(static_cast<float>(exact));
  if constexpr (C == Comp::kF16) return half_to_float(double_to_half(exact));
  if constexpr (C == Comp::kBF16) return bf16_to_float(double_to_bf16(exact));
}

// Element decoders: raw storage type S -> the input's exact value as double.
struct DecF32 {
  using S = float;
  static double get(S v) { return v; }
};
struct DecF16 {
  using S = uint16_t;
  static double get(S v) { return half_to_float(v); }
};
struct DecBF16 {
  using S = uint16_t;
  static double get(S v) { return bf16_to_float(v); }
};
template <typename I>
struct DecInt {
  using S = I;
  static double get(S v) { return ew::int64_sticky(static_cast<int64_t>(v)); }
};
struct DecBool {
  using S = uint8_t;
  static double get(S v) { return v != 0 ? 1.0 : 0.0; }
};

using LoadFn = void (*)(const char *p, int64_t stride, int n, double *dst);

template <typename D, Comp C>
void load_block(const char *p, int64_t stride, int n, double *dst) {
  using S = typename D::S;
  // Float inputs already in the computation dtype (or exactly convertible to it) need no rounding.
  constexpr bool exact = (std::is_same_v<D, DecF32> && C == Comp::kF32) ||
                         (std::is_same_v<D, DecF16> && C != Comp::kBF16) ||
                         (std::is_same_v<D, DecBF16> && C != Comp::kF16);
  auto conv = [](S s) {
    if constexpr (exact)
      return D::get(s);
    else
      return to_comp<C>(D::get(s));
  };
  if (stride == static_cast<int64_t>(sizeof(S))) {  // contiguous fast path
    const S *s = reinterpret_cast<const S *>(p);
    for (int i = 0; i < n; ++i) dst[i] = conv(s[i]);
  } else if (stride == 0) {  // broadcast (expanded) input
    S s;
    std::memcpy(&s, p, sizeof s);
    std::fill(dst, dst + n, conv(s));
  } else {
    for (int i = 0; i < n; ++i) {
      S s;
      std::memcpy(&s, p + i * stride, sizeof s);
      dst[i] = conv(s);
    }
  }
}

template <Comp C>
LoadFn loader_for(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
      return load_block<DecF32, C>;
    case ACL_FLOAT16:
      return load_block<DecF16, C>;
    case ACL_BF16:
      return load_block<DecBF16, C>;
    case ACL_INT8:
      return load_block<DecInt<int8_t>, C>;
    case ACL_UINT8:
      return load_block<DecInt<uint8_t>, C>;
    case ACL_INT16:
      return load_block<DecInt<int16_t>, C>;
    case ACL_INT32:
      return load_block<DecInt<int32_t>, C>;
    case ACL_INT64:
      return load_block<DecInt<int64_t>, C>;
    case ACL_BOOL:
      return load_block<DecBool, C>;
    default:
      return nullptr;  // excluded by GELU-DTYPE-1
  }
}

// out = dy * g rounded once to the output dtype.
using StoreFn = void (*)(char *p, int64_t stride, int n, const double *dy, const double *g);

template <Comp C>
void store_block(char *p, int64_t stride, int n, const double *dy, const double *g) {
  using S = std::conditional_t<C == Comp::kF32, float, uint16_t>;
  auto conv = [](double v) -> S {
    if constexpr (C == Comp::kF32) return static_cast<float>(v);
    if constexpr (C == Comp::kF16) return double_to_half(v);
    if constexpr (C == Comp::kBF16) return double_to_bf16(v);
  };
  if (stride == static_cast<int64_t>(sizeof(S))) {
    S *d = reinterpret_cast<S *>(p);
    for (int i = 0; i < n; ++i) d[i] = conv(dy[i] * g[i]);
  } else {
    for (int i = 0; i < n; ++i) {
      const S s = conv(dy[i] * g[i]);
      std::memcpy(p + i * stride, &s, sizeof s);
    }
  }
}

struct Plan {
  StridedLoop<3> loop;  // operands: gradInput, gradOutput, self
  LoadFn load_dy = nullptr, load_x = nullptr;
  StoreFn store = nullptr;
};

void run_plan(const Plan &plan) {
  parallel_for(plan.loop.numel, 32768, [&plan](int64_t begin, int64_t end) {
    alignas(64) double dy[kBlock], x[kBlock], g[kBlock];
    plan.loop.for_range(
        begin, end,
        [&](const std::array<char *, 3> &p, const std::array<int64_t, 3> &s, int64_t n) {
          for (int64_t done = 0; done < n; done += kBlock) {
            const int m = static_cast<int>(std::min<int64_t>(kBlock, n - done));
            plan.load_x(p[2] + done * s[2], s[2], m, x);
            std::fill(x + m, x + ((m + 7) & ~7), 0.0);  // SIMD padding
            plan.load_dy(p[1] + done * s[1], s[1], m, dy);
            g_block(x, g, m);
            plan.store(p[0] + done * s[0], s[0], m, dy, g);
          }
        });
  });
}

template <Comp C>
void fill_io(Plan &plan, aclDataType dy_t, aclDataType x_t) {
  plan.load_dy = loader_for<C>(dy_t);
  plan.load_x = loader_for<C>(x_t);
  plan.store = store_block<C>;
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
  switch (*promoted) {
    case ACL_FLOAT:
      fill_io<Comp::kF32>(plan, gradOutput->dtype, self->dtype);
      break;
    case ACL_FLOAT16:
      fill_io<Comp::kF16>(plan, gradOutput->dtype, self->dtype);
      break;
    default:
      fill_io<Comp::kBF16>(plan, gradOutput->dtype, self->dtype);
      break;
  }
  return publish_executor(
      kOp, 0, [plan](void *) { run_plan(plan); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnGeluBackward(void *workspace, uint64_t workspaceSize,
                                         aclOpExecutor *executor, aclrtStream /*stream*/) {
  return run_executor(kOp, workspace, workspaceSize, executor);
}
