// aclnnSeluBackward (spec selu_backward.md): with y = result (the forward output) and dy =
// gradOutput, gradInput = dy * lambda where y >= 0 and dy * (y + lambda*alpha) where y < 0. The
// checks in the specification's order, the plan and the entry points; the kernels are in
// impl/kernels/selu_backward-inl.hpp (their contract and accuracy there).
//
// Plan: the views (one shape, no broadcasting) are walked as coalesced runs
// (impl/strided_loop.hpp); float dtypes in blocks staged through L1 only where a run is not
// already contiguous (impl/elementwise_io.hpp), integers element by element.
#include "impl/simd_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/selu_backward.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "impl/kernels/selu_backward-inl.hpp"

#if HWY_ONCE
#include <algorithm>
#include <array>
#include <cstring>

#include "aclnnop/aclnn_selu_backward.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/elementwise_io.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/simd.hpp"
#include "impl/strided_loop.hpp"

namespace aclnn_cpu {
namespace {

constexpr const char *kOp = "aclnnSeluBackward";

// One inner run of an integer dtype: n elements with byte strides (gradInput, gradOutput, result).
template <typename T>
void selu_run_int(char *out, const char *dy, const char *y, int64_t so, int64_t sdy, int64_t sy,
                  int64_t n) {
  using S = typename T::S;
  for (int64_t i = 0; i < n; ++i) {
    S a, b;
    std::memcpy(&a, dy + i * sdy, sizeof a);
    std::memcpy(&b, y + i * sy, sizeof b);
    const S r = selu::selu_grad_int<T>(a, b);
    std::memcpy(out + i * so, &r, sizeof r);
  }
}

HWY_EXPORT(SeluGradFloat);

// One inner run of a float dtype, in blocks: inputs as floats (in place when contiguous FLOAT),
// the kernel writes a contiguous output directly, a strided one through a double buffer.
void selu_run_float(aclDataType t, bool stream, char *out, const char *dy, const char *y,
                    int64_t so, int64_t sdy, int64_t sy, int64_t n) {
  const auto es = static_cast<int64_t>(dtype_size(t));
  const bool direct = so == es;
  const int kind = static_cast<int>(direct ? ew::out_kind(t) : ew::OutKind::kF64);
  alignas(64) float bdy[ew::kBlock], by[ew::kBlock];
  alignas(64) double res[ew::kBlock];
  stream = stream && direct;
  for (int64_t done = 0, m = 0; done < n; done += m) {
    m = simd::stream_block(stream, out + done * so, es, std::min(ew::kBlock, n - done));
    const ew::BlockInputs in =
        ew::load_pair(dy + done * sdy, sdy, t, y + done * sy, sy, t, t, m, bdy, by);
    if (direct) {
      HWY_DYNAMIC_DISPATCH(SeluGradFloat)
      (in.kind, kind, 1, in.a, in.b, out + done * so, static_cast<size_t>(m), stream);
    } else {
      HWY_DYNAMIC_DISPATCH(SeluGradFloat)
      (in.kind, kind, 0, in.a, in.b, res, static_cast<size_t>(m), 0);
      ew::store_strided(out + done * so, so, t, m, res);
    }
  }
}

struct Plan {
  StridedLoop<3> loop;  // gradInput, gradOutput, result
  aclDataType dtype = ACL_FLOAT;
  bool stream = false;  // simd::stream_output
};

void run_plan(const Plan &plan) {
  parallel_for(plan.loop.numel, ew::kParallelGrain, [&plan](int64_t begin, int64_t end) {
    plan.loop.for_range(
        begin, end,
        [&](const std::array<char *, 3> &p, const std::array<int64_t, 3> &s, int64_t n) {
          switch (plan.dtype) {
            case ACL_INT8:
              return selu_run_int<selu::TI8>(p[0], p[1], p[2], s[0], s[1], s[2], n);
            case ACL_INT32:
              return selu_run_int<selu::TI32>(p[0], p[1], p[2], s[0], s[1], s[2], n);
            default:
              return selu_run_float(plan.dtype, plan.stream, p[0], p[1], p[2], s[0], s[1], s[2], n);
          }
        });
    if (plan.stream) simd::flush_streams();
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

static aclnnStatus get_workspace_size(const aclTensor *gradOutput, const aclTensor *result,
                                      aclTensor *gradInput, uint64_t *workspaceSize,
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
  plan.dtype = gradOutput->dtype;
  plan.stream = simd::stream_output(
      numel(*gradOutput) * 3 * static_cast<int64_t>(dtype_size(gradOutput->dtype)),
      simd::LoopKind::memory_bound);
  return publish_executor(
      kOp, 0, [plan](void *) { run_plan(plan); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                         const aclTensor *result,
                                                         aclTensor *gradInput,
                                                         uint64_t *workspaceSize,
                                                         aclOpExecutor **executor) {
  return guard_abi(kOp, [&] {
    return get_workspace_size(gradOutput, result, gradInput, workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnSeluBackward(void *workspace, uint64_t workspaceSize,
                                         aclOpExecutor *executor, aclrtStream /*stream*/) {
  return run_executor(kOp, workspace, workspaceSize, executor);
}
#endif  // HWY_ONCE
