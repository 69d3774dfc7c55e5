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
#include <cstring>
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
HWY_EXPORT(GeluFillTable);

// g(x) rounded to float for every bfloat16 pattern x, built at the first BFLOAT16 call from the
// double path (whose bits are the same on every target): 256 KB, in L2. Built once per process,
// on the first BFLOAT16 call, which takes about 1 ms more than later ones
// (docs/kernels.md#gelubackward-measurements).
const float *gelu_bf16_table() {
  static const std::vector<float> table = [] {
    constexpr size_t kN = 65536;
    std::vector<uint16_t> patterns(kN);
    for (size_t i = 0; i < kN; ++i) patterns[i] = static_cast<uint16_t>(i);
    std::vector<double> x(kN);
    simd::bf16_to_f64(patterns.data(), x.data(), kN);
    std::vector<float> g(kN);
    HWY_DYNAMIC_DISPATCH(GeluFillTable)(x.data(), g.data(), kN);
    return g;
  }();
  return table.data();
}

struct Plan {
  StridedLoop<3> loop;  // operands: gradInput, gradOutput, self
  aclDataType dy_t = ACL_FLOAT, x_t = ACL_FLOAT, comp = ACL_FLOAT;
  bool stream = false;  // simd::stream_output
};

// One inner run, in blocks: inputs as the computation dtype's floats (in place when contiguous
// FLOAT), the kernel writes a contiguous output directly, a strided one through a double buffer.
void run_inner(const Plan &plan, const float *bf16_table, char *out, const char *dy, const char *x,
               int64_t so, int64_t sdy, int64_t sx, int64_t n) {
  const auto es = static_cast<int64_t>(dtype_size(plan.comp));
  const bool direct = so == es;
  const int kind = static_cast<int>(direct ? ew::out_kind(plan.comp) : ew::OutKind::kF64);
  alignas(64) float bdy[ew::kBlock], bx[ew::kBlock];
  alignas(64) double res[ew::kBlock];
  const bool stream = direct && plan.stream;
  for (int64_t done = 0, m = 0; done < n; done += m) {
    m = simd::stream_block(stream, out + done * so, es, std::min(ew::kBlock, n - done));
    const ew::BlockInputs in = ew::load_pair(dy + done * sdy, sdy, plan.dy_t, x + done * sx, sx,
                                             plan.x_t, plan.comp, m, bdy, bx);
    void *dst = direct ? static_cast<void *>(out + done * so) : res;
    HWY_DYNAMIC_DISPATCH(GeluGradFloat)
    (in.kind, kind, plan.comp != ACL_FLOAT, bf16_table, in.a, in.b, dst, static_cast<size_t>(m),
     stream);
    if (!direct) ew::store_strided(out + done * so, so, plan.comp, m, res);
  }
}

void run_plan(const Plan &plan) {
  // On the calling thread, so that a failure to build the table reaches run_executor.
  const float *bf16_table = plan.comp == ACL_BF16 ? gelu_bf16_table() : nullptr;
  parallel_for(plan.loop.numel, ew::kParallelGrain, [&](int64_t begin, int64_t end) {
    plan.loop.for_range(
        begin, end,
        [&](const std::array<char *, 3> &p, const std::array<int64_t, 3> &s, int64_t n) {
          run_inner(plan, bf16_table, p[0], p[1], p[2], s[0], s[1], s[2], n);
        });
    if (plan.stream) simd::flush_streams();
  });
}

}  // namespace
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
  plan.stream = simd::stream_output(
      numel(shape) * static_cast<int64_t>(dtype_size(gradOutput->dtype) + dtype_size(self->dtype) +
                                          dtype_size(gradInput->dtype)));
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
