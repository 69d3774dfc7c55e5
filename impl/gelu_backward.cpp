// aclnnGeluBackward (spec gelu_backward.md): gradInput = gradOutput * g(self). The checks in the
// specification's order, the plan and the entry points; the kernels are in
// impl/kernels/gelu_backward-inl.hpp (their contract and accuracy there).
//
// Plan: the broadcast views are walked as coalesced runs (impl/strided_loop.hpp) in blocks of the
// computation dtype (impl/elementwise_io.hpp): a contiguous output is written by the kernel
// directly, a strided one through a double buffer rounded once.
#include "impl/simd_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/gelu_backward.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "impl/kernels/gelu_backward-inl.hpp"

#if HWY_ONCE
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "aclnnop/aclnn_gelu_backward.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/elementwise_io.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/simd.hpp"
#include "impl/strided_loop.hpp"

namespace aclnn_cpu {
namespace {

constexpr const char *kOp = "aclnnGeluBackward";

HWY_EXPORT(GeluGradFloat);
HWY_EXPORT(GeluGPairF32);
HWY_EXPORT(GeluGradTableF32PerVector);
HWY_EXPORT(GeluGBf16Table);
HWY_EXPORT(GeluUsesBf16Table);

// FLOAT's table (impl/kernels/gelu_backward-inl.hpp, gelu::kTab*): at x_k = k/128 the Taylor
// coefficients of g, in long double (g'(x) = phi(x) (2 - x^2), g'' = phi x (x^2 - 4),
// g''' = phi (-x^4 + 7x^2 - 4)), g(x_k) = erfc(-x_k/sqrt2)/2 + x_k phi(x_k) split into two floats;
// NaN within the root window and at both ends. Built once per process at the first FLOAT call
// (1537 erfcl and expl: well below a millisecond); 24 KB, in L1 while a call runs.
// The upper 16 bits of a finite float rounded to nearest even (bfloat16's pattern).
uint16_t bf16_bits_rne(float f) {
  const uint32_t b = std::bit_cast<uint32_t>(f);
  return static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

const float *gelu_f32_table() {
  static const std::vector<float> table = [] {
    namespace gl = gelu;
    std::vector<float> t(static_cast<size_t>(gl::kTabRows) * 4, 0.0f);
    const long double inv_sqrt2 = 0.707106781186547524400844362104849039L;
    const long double inv_sqrt2pi = 0.398942280401432677939946059934381868L;
    for (int k = -gl::kTabHalf; k <= gl::kTabHalf; ++k) {
      const size_t i = static_cast<size_t>(k + gl::kTabHalf);
      const long double x = static_cast<long double>(k) / 128.0L, x2 = x * x;
      const bool nan = k == -gl::kTabHalf || k == gl::kTabHalf ||
                       std::fabs(static_cast<double>(x) - gl::kRoot) < gl::kRootWindow;
      float *row = &t[4 * i];
      if (nan) {
        row[0] = row[1] = row[2] = row[3] = std::numeric_limits<float>::quiet_NaN();
        continue;
      }
      const long double phi = std::exp(-x2 / 2) * inv_sqrt2pi;
      const long double g = std::erfc(-x * inv_sqrt2) / 2 + x * phi;
      const float hi = static_cast<float>(g);
      // w: the upper halves of a3 and a0lo (rounded to nearest at 16 bits, as bfloat16).
      const auto top16 = [](float f) { return static_cast<uint32_t>(bf16_bits_rne(f)); };
      const float a0lo = static_cast<float>(g - hi);
      const float a3 = static_cast<float>(phi * ((7 - x2) * x2 - 4) / 6);
      row[0] = hi;
      row[1] = static_cast<float>(phi * (2 - x2));
      row[2] = static_cast<float>(phi * x * (x2 - 4) / 2);
      row[3] = std::bit_cast<float>((top16(a3) << 16) | top16(a0lo));
    }
    return t;
  }();
  return table.data();
}

// BFLOAT16's table of g by x's pattern (GeluGBf16Table), for the targets that read it
// (GeluUsesBf16Table). Built once per process at the first such call (65536 evaluations of the
// pieces, well below a millisecond); 256 KB, of which a call touches the patterns its x holds
// (normally distributed activations: a few KB).
const float *gelu_bf16_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    HWY_DYNAMIC_DISPATCH(GeluGBf16Table)(t.data());
    return t;
  }();
  return table.data();
}

struct Plan {
  StridedLoop<3> loop;  // operands: gradInput, gradOutput, self
  aclDataType dy_t = ACL_FLOAT, x_t = ACL_FLOAT, comp = ACL_FLOAT;
  bool stream = false;      // simd::stream_output
  bool f64 = false;         // FLOAT in double vectors (ACLNN_CPU_GELU_FLOAT=0)
  bool bf16_table = false;  // BFLOAT16's g from its table where the target reads one
  bool pack = true;         // FLOAT's finishing lanes packed on 16-lane targets (gelu_pack_lanes)
};

// One inner run, in blocks: inputs as the computation dtype's floats (in place when contiguous
// FLOAT), the kernel writes a contiguous output directly, a strided one through a buffer: floats
// where the float path (table) computes FLOAT, whose results are floats already (through doubles
// that path measured 20-30 % slower than the double path on strided views, 1 M at stride 3, Zen 5),
// else doubles.
void run_inner(const Plan &plan, const float *table, char *out, const char *dy, const char *x,
               int64_t so, int64_t sdy, int64_t sx, int64_t n) {
  const auto es = static_cast<int64_t>(dtype_size(plan.comp));
  const bool direct = so == es, float_res = !direct && plan.comp == ACL_FLOAT && !plan.f64;
  const int kind =
      static_cast<int>(direct || float_res ? ew::out_kind(plan.comp) : ew::OutKind::kF64);
  alignas(64) float bdy[ew::kBlock], bx[ew::kBlock];
  alignas(64) unsigned char res_bytes[ew::kBlock * sizeof(double)];  // doubles, or floats
  auto *const res = reinterpret_cast<double *>(res_bytes);
  auto *const resf = reinterpret_cast<float *>(res_bytes);
  const bool stream = direct && plan.stream;
  for (int64_t done = 0, m = 0; done < n; done += m) {
    m = simd::stream_block(stream, out + done * so, es, std::min(ew::kBlock, n - done));
    const ew::BlockInputs in = ew::load_pair(dy + done * sdy, sdy, plan.dy_t, x + done * sx, sx,
                                             plan.x_t, plan.comp, m, bdy, bx);
    void *dst = direct      ? static_cast<void *>(out + done * so)
                : float_res ? static_cast<void *>(resf)
                            : static_cast<void *>(res);
    const int narrow = plan.comp == ACL_BF16 ? 2 : plan.comp == ACL_FLOAT16 ? 1 : 0;
    HWY_DYNAMIC_DISPATCH(GeluGradFloat)
    (in.kind, kind, narrow, table, in.a, in.b, dst, static_cast<size_t>(m), stream, plan.pack);
    if (float_res)
      ew::store_strided(out + done * so, so, m, resf);
    else if (!direct)
      ew::store_strided(out + done * so, so, plan.comp, m, res);
  }
}

void run_plan(const Plan &plan) {
  // On the calling thread, so that a failure to build the table reaches run_executor.
  const float *table = nullptr;
  if (plan.comp == ACL_FLOAT && !plan.f64)
    table = gelu_f32_table();
  else if (plan.comp == ACL_BF16 && plan.bf16_table && HWY_DYNAMIC_DISPATCH(GeluUsesBf16Table)())
    table = gelu_bf16_table();
  parallel_for(plan.loop.numel, ew::kParallelGrain, [&](int64_t begin, int64_t end) {
    plan.loop.for_range(
        begin, end,
        [&](const std::array<char *, 3> &p, const std::array<int64_t, 3> &s, int64_t n) {
          run_inner(plan, table, p[0], p[1], p[2], s[0], s[1], s[2], n);
        });
    if (plan.stream) simd::flush_streams();
  });
}

}  // namespace

// Whether FLOAT's loop on 16-lane targets packs the lanes it finishes apart into dense vectors or
// finishes each listed vector whole (GeluGradTableTo; the same bits). Whole vectors -> packed: on
// an Intel Xeon (Ice Lake) faster, in cache 0.300 -> 0.264 ms per 256 K, 16 M from memory the
// same; on Zen 4 slower, in cache 0.189 -> 0.212 ms, 16 M 16.3 -> 18.5 ms (docs/kernels.md). So
// not on AMD CPUs (Zen 5's figures predate the packing: whole vectors). ACLNN_CPU_PACK_LANES=0|1
// (read at each call) decides instead.
bool gelu_pack_lanes() {
  const int set = simd::env_switch("ACLNN_CPU_PACK_LANES");
  return set >= 0 ? set == 1 : simd::amd_family() == 0;
}

// For the exhaustive test (tests/impl/test_gelu_backward.cpp): FLOAT's g as the float-float the
// kernel multiplies by dy, n a multiple of 16.
void gelu_f32_g_pair(const float *x, float *ghi, float *glo, size_t n) {
  HWY_DYNAMIC_DISPATCH(GeluGPairF32)(gelu_f32_table(), x, ghi, glo, n);
}
// For the test of the float path's deferred finishing: FLOAT's result vector by vector, as the
// kernel's per-vector form gives it (n a multiple of 16).
void gelu_f32_grad_per_vector(const float *dy, const float *x, float *out, size_t n) {
  HWY_DYNAMIC_DISPATCH(GeluGradTableF32PerVector)(gelu_f32_table(), dy, x, out, n);
}
}  // namespace aclnn_cpu

using namespace aclnn_cpu;

static aclnnStatus get_workspace_size(const aclTensor *gradOutput, const aclTensor *self,
                                      const aclTensor *gradInput, uint64_t *workspaceSize,
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
  // FLOAT in float vectors (the table) unless ACLNN_CPU_GELU_FLOAT=0 (read at each call): the
  // double path stays for A/B measurements and as the float path's fallback for special lanes.
  const char *float_env = std::getenv("ACLNN_CPU_GELU_FLOAT");
  plan.f64 = float_env != nullptr && std::strcmp(float_env, "0") == 0;
  // BFLOAT16's table (one gather per vector instead of the pieces' arithmetic; same bytes) only
  // where it measured faster: AMD family 1Ah (Zen 5: in cache 0.124 -> 0.088 ms per 256 K). On an
  // Ice Lake Xeon the gathers made it slower (0.185 -> 0.400 ms; docs/kernels.md#gelubackward), so
  // other CPUs take the pieces. ACLNN_CPU_GELU_BF16_TABLE=0|1 (read at each call) decides instead.
  const char *table_env = std::getenv("ACLNN_CPU_GELU_BF16_TABLE");
  plan.bf16_table =
      table_env != nullptr ? std::strcmp(table_env, "0") != 0 : simd::amd_family() >= 0x1a;
  plan.pack = gelu_pack_lanes();
  // Compute-bound: in cache its arithmetic alone takes 1.6-2.1 times the memory floor's time.
  plan.stream = simd::stream_output(
      numel(shape) * static_cast<int64_t>(dtype_size(gradOutput->dtype) + dtype_size(self->dtype) +
                                          dtype_size(gradInput->dtype)),
      simd::LoopKind::compute_bound);
  return publish_executor(
      kOp, 0, [plan](void *) { run_plan(plan); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                         const aclTensor *self,
                                                         const aclTensor *gradInput,
                                                         uint64_t *workspaceSize,
                                                         aclOpExecutor **executor) {
  return guard_abi(kOp, [&] {
    return get_workspace_size(gradOutput, self, gradInput, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnGeluBackward(void *workspace, uint64_t workspaceSize,
                                         aclOpExecutor *executor, aclrtStream /*stream*/) {
  return run_executor(kOp, workspace, workspaceSize, executor);
}
#endif  // HWY_ONCE
