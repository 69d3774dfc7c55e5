// libaclnn_onednn.so: the aclnn ABI (vendor names and signatures, include/) implemented with
// oneDNN's CPU primitives, as a real third-party system under test for aclnn-conform.
//
// Nothing here reimplements the specification's checks. The tensor/array objects, the host runtime,
// the executors and the recent error text are the project's one implementation of them (impl/'s
// host runtime objects, linked in); this file owns only what oneDNN lacks: NULL pointers (161001),
// the mapping of vendor dtypes and views onto oneDNN memory descriptors, and the composition of
// ops oneDNN has no single primitive for. Phase one builds every memory descriptor, primitive
// descriptor and primitive (that is where oneDNN checks its arguments: whatever it refuses is
// 161002 with oneDNN's message); phase two executes them.
//
// The oneDNN way of using a primitive is followed throughout: user memory (any view) is reordered
// into a dense buffer of the primitive, and the primitive's result is reordered into the output
// view (oneDNN's reorder converts dtypes and layouts, like PyTorch's copy_).
//
// Ops:  GeluBackward        eltwise_backward(eltwise_gelu_erf) on (dy, x), in their own dtypes
//       SeluBackward        in f32: eltwise_linear(1/λ) on y, then
//                           eltwise_backward(eltwise_elu_use_dst_for_bwd, α) on (dy, y/λ), then
//                           eltwise_linear(λ); oneDNN has no SELU, and λ·elu'(x) from
//                           elu's dst y/λ is SELU's derivative
//       LayerNormBackward   layer_normalization_backward over [M, N] (N = prod(normalizedShape)),
//                           use_scale / use_shift for gradWeight / gradBias, epsilon 0 and
//                           variance = rstd^-2 (eltwise_pow), because oneDNN takes the variance
//       GroupedBiasAddGrad  reduction_sum: [G, C, H] -> [G, 1, H] without groupIdx; one
//                           reduction per group over a submemory of gradY with it
//       LogitGrad           not supported (no oneDNN primitive computes it): 161002
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "impl/dtype.hpp"
#include "impl/executor.hpp"
#include "impl/status.hpp"
#include "impl/tensor.hpp"

using dnnl::memory;
using dt = dnnl::memory::data_type;

namespace {
// One primitive with its arguments, executed in phase two.
struct Step {
  dnnl::primitive primitive;
  std::unordered_map<int, memory> args;
};

// The message recorded for aclGetRecentErrMsg() (impl/status.hpp), and code.
aclnnStatus fail(aclnnStatus code, const char *op, const std::string &what) {
  return aclnn_cpu::fail(code, op, "{}", what);
}

// Element size of a vendor dtype (0: one the host runtime does not hold).
size_t esize(aclDataType t) {
  return aclnn_cpu::dtype_size(t);
}

std::optional<dt> dnnl_type(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
      return dt::f32;
    case ACL_FLOAT16:
      return dt::f16;
    case ACL_BF16:
      return dt::bf16;
    case ACL_INT32:
      return dt::s32;
    case ACL_INT8:
      return dt::s8;
    case ACL_UINT8:
      return dt::u8;
    default:
      return std::nullopt;  // oneDNN 2.6 has no f64, s16, s64, u16/32/64, bool, complex
  }
}

// Thrown where the call cannot be expressed in oneDNN at all (reported as 161002).
struct NotExpressible {
  std::string message;
};

const dnnl::engine &engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

memory::dims dense_strides(const memory::dims &dims) {
  memory::dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * std::max<memory::dim>(dims[i], 1);
  return s;
}

// A row-major dense descriptor of the given dims.
memory::desc dense(const memory::dims &dims, dt type) {
  return memory::desc(dims, type, dense_strides(dims));
}

// A copy of a tensor's description, taken in phase one (callers may destroy their aclTensor
// objects before phase two).
struct View {
  aclTensor t;
  std::optional<dt> type() const { return dnnl_type(t.dtype); }
  dt require_type() const {
    const auto d = type();
    if (!d)
      throw NotExpressible{"dtype " + std::to_string(static_cast<int>(t.dtype)) +
                           " has no oneDNN equivalent"};
    return *d;
  }
  // oneDNN has no rank-0 memory: a scalar is the one-element tensor [1].
  memory::dims dims() const { return t.view_dims.empty() ? memory::dims{1} : t.view_dims; }
  // Exactly the given view: dims, element strides and dtype; oneDNN validates it.
  memory::desc md() const {
    const memory::dims strides = t.view_dims.empty() ? memory::dims{1} : t.strides;
    return memory::desc(dims(), require_type(), strides);
  }
  memory mem() const {
    char *base = static_cast<char *>(t.data) + t.offset * static_cast<int64_t>(esize(t.dtype));
    return memory(md(), engine(), base);
  }
};

std::optional<View> view_of(const aclTensor *t) {
  if (t == nullptr) return std::nullopt;
  return View{*t};
}

// Builds the steps of one call; every primitive descriptor is created here, in phase one.
struct Plan {
  std::vector<Step> steps;

  void add(const dnnl::primitive &p, std::unordered_map<int, memory> args) {
    steps.push_back(Step{p, std::move(args)});
  }
  void reorder(const memory &from, const memory &to) {
    const dnnl::reorder::primitive_desc pd(engine(), from.get_desc(), engine(), to.get_desc());
    add(dnnl::reorder(pd), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
  }
  // The tensor in a dense buffer of the given dtype (itself when it already is one).
  memory input(const View &v, dt type) {
    memory user = v.mem();
    const memory::desc want = dense(v.dims(), type);
    if (user.get_desc() == want) return user;
    memory buf(want, engine());
    reorder(user, buf);
    return buf;
  }
  memory input(const View &v) { return input(v, v.require_type()); }
  // A dense buffer of the output's dims and the given dtype, loaded with the output's current
  // contents, so that elements oneDNN does not write stay as they were in the output.
  memory preloaded(const View &out, dt type) {
    memory buf(dense(out.dims(), type), engine());
    reorder(out.mem(), buf);
    return buf;
  }
  // result -> the output view (oneDNN's reorder checks dims and converts the dtype).
  void output(const memory &result, const View &out) { reorder(result, out.mem()); }
};

// The same buffer under another descriptor of as many elements (oneDNN's reshape checks that).
memory reshaped(const memory &m, const memory::dims &dims) {
  return memory(m.get_desc().reshape(dims), engine(), m.get_data_handle());
}

memory eltwise_forward(Plan &p, dnnl::algorithm alg, const memory &src, float alpha, float beta) {
  const dnnl::eltwise_forward::primitive_desc pd(
      {dnnl::prop_kind::forward_inference, alg, src.get_desc(), alpha, beta}, engine());
  memory dst(pd.dst_desc(), engine());
  p.add(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  return dst;
}

// An eltwise backward primitive (with the forward hint oneDNN requires); `data` is the source, or
// the destination for the *_use_dst_for_bwd algorithms.
memory eltwise_backward(Plan &p, dnnl::algorithm alg, const memory &diff_dst, const memory &data,
                        float alpha, bool from_dst) {
  const dnnl::eltwise_forward::primitive_desc hint(
      {dnnl::prop_kind::forward_training, alg, data.get_desc(), alpha, 0.f}, engine());
  const dnnl::eltwise_backward::primitive_desc pd(
      {alg, diff_dst.get_desc(), data.get_desc(), alpha, 0.f}, engine(), hint);
  memory diff_src(pd.diff_src_desc(), engine());
  p.add(dnnl::eltwise_backward(pd), {{from_dst ? DNNL_ARG_DST : DNNL_ARG_SRC, data},
                                     {DNNL_ARG_DIFF_DST, diff_dst},
                                     {DNNL_ARG_DIFF_SRC, diff_src}});
  return diff_src;
}

// Phase one's common end: builds the plan (oneDNN's checks), maps oneDNN's refusal to 161002 and
// publishes an executor whose phase two executes the steps.
template <typename Build>
aclnnStatus plan(const char *op, Build build, uint64_t *workspaceSize, aclOpExecutor **executor) {
  Plan p;
  try {
    build(p);
  } catch (const NotExpressible &e) {
    return fail(ACLNN_ERR_PARAM_INVALID, op, e.message);
  } catch (const dnnl::error &e) {
    if (e.status == dnnl_out_of_memory) return fail(ACLNN_ERR_INNER, op, "oneDNN: out of memory");
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                std::string("oneDNN: ") + e.what() + " (status " +
                    std::to_string(static_cast<int>(e.status)) + ")");
  } catch (const std::bad_alloc &) {
    return fail(ACLNN_ERR_INNER, op, "out of memory");
  }
  // Phase two executes the steps (the primitives and memories are shared handles: a repeatable
  // executor's copy runs the same ones).
  return aclnn_cpu::publish_executor_with_status(
      op, 0,
      [op, steps = std::move(p.steps)](void *) -> aclnnStatus {
        try {
          dnnl::stream s(engine());
          for (const Step &step : steps) step.primitive.execute(s, step.args);
          s.wait();
        } catch (const dnnl::error &e) {
          return fail(ACLNN_ERR_INNER, op, std::string("oneDNN: ") + e.what());
        }
        return ACLNN_SUCCESS;
      },
      workspaceSize, executor);
}

aclnnStatus run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) {
  return aclnn_cpu::run_executor(op, workspace, workspaceSize, executor);
}

// The elements of an integer index tensor in logical (row-major) order. Reading groupIdx is the
// adapter's job: oneDNN has no segmented reduction to hand it to.
std::vector<int64_t> read_indices(const View &v) {
  if (v.t.dtype != ACL_INT32 && v.t.dtype != ACL_INT64)
    throw NotExpressible{"groupIdx dtype " + std::to_string(static_cast<int>(v.t.dtype)) +
                         " cannot be read as indices (INT32 or INT64)"};
  int64_t n = 1;
  for (int64_t d : v.t.view_dims) n *= d;
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(n));
  std::vector<int64_t> idx(v.t.view_dims.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = v.t.offset;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * v.t.strides[d];
    if (v.t.dtype == ACL_INT32)
      out.push_back(static_cast<const int32_t *>(v.t.data)[off]);
    else
      out.push_back(static_cast<const int64_t *>(v.t.data)[off]);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < v.t.view_dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The host runtime, tensors, arrays, executors and aclGetRecentErrMsg: impl/'s host runtime
// objects (runtime.cpp, tensor.cpp, executor.cpp, status.cpp), linked in.

extern "C" {

// ---------------------------------------------------------------------------------------------
// Ops.

#define ONEDNN_SUT_NULL_OUTPUTS(op)                    \
  if (workspaceSize == nullptr || executor == nullptr) \
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, "workspaceSize or executor is NULL");

aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *gradInput, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
  static const char *op = "aclnnGeluBackward";
  ONEDNN_SUT_NULL_OUTPUTS(op)
  if (!gradOutput || !self || !gradInput)
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, "gradOutput, self or gradInput is NULL");
  const View dy{*gradOutput}, x{*self}, out{*gradInput};
  return plan(
      op,
      [&](Plan &p) {
        const memory g = eltwise_backward(p, dnnl::algorithm::eltwise_gelu_erf, p.input(dy),
                                          p.input(x), 0.f, /*from_dst=*/false);
        p.output(g, out);
      },
      workspaceSize, executor);
}
aclnnStatus aclnnGeluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              aclrtStream) {
  return run("aclnnGeluBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *result,
                                              aclTensor *gradInput, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
  static const char *op = "aclnnSeluBackward";
  ONEDNN_SUT_NULL_OUTPUTS(op)
  if (!gradOutput || !result || !gradInput)
    return fail(ACLNN_ERR_PARAM_NULLPTR, op, "gradOutput, result or gradInput is NULL");
  const View dy{*gradOutput}, y{*result}, out{*gradInput};
  return plan(
      op,
      [&](Plan &p) {
        // torch.nn.functional.selu's constants; oneDNN's alpha/beta are floats.
        constexpr double kAlpha = 1.6732632423543772848170429916717;
        constexpr double kScale = 1.0507009873554804934193349852946;
        // The composition runs in f32 so that its intermediates are not rounded to bf16/f16 (an
        // adapter artefact); oneDNN's reorders convert in and out.
        const memory elu_dst = eltwise_forward(p, dnnl::algorithm::eltwise_linear,
                                               p.input(y, dt::f32), float(1 / kScale), 0.f);
        const memory g = eltwise_backward(p, dnnl::algorithm::eltwise_elu_use_dst_for_bwd,
                                          p.input(dy, dt::f32), elu_dst, float(kAlpha),
                                          /*from_dst=*/true);
        p.output(eltwise_forward(p, dnnl::algorithm::eltwise_linear, g, float(kScale), 0.f), out);
      },
      workspaceSize, executor);
}
aclnnStatus aclnnSeluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              aclrtStream) {
  return run("aclnnSeluBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  static const char *op = "aclnnLayerNormBackward";
  ONEDNN_SUT_NULL_OUTPUTS(op)
  if (!gradOut || !input || !normalizedShape || !mean || !rstd || !outputMask)
    return fail(ACLNN_ERR_PARAM_NULLPTR, op,
                "gradOut, input, normalizedShape, mean, rstd or outputMask is NULL");
  // The mask selects which of oneDNN's outputs are copied out: three of them.
  if (outputMask->values.size() != 3)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "outputMask must have 3 elements (gradInput, "
                "gradWeight, gradBias)");
  const bool mask[3] = {outputMask->values[0], outputMask->values[1], outputMask->values[2]};
  const aclTensor *outs[3] = {gradInputOut, gradWeightOut, gradBiasOut};
  for (int i = 0; i < 3; ++i)
    if (mask[i] && outs[i] == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, op,
                  "an output requested by outputMask is NULL (" +
                      std::string(i == 0   ? "gradInputOut"
                                  : i == 1 ? "gradWeightOut"
                                           : "gradBiasOut") +
                      ")");
  const View dy{*gradOut}, x{*input}, mu{*mean}, rs{*rstd};
  const auto w = view_of(weightOptional), b = view_of(biasOptional);
  const auto o0 = view_of(gradInputOut), o1 = view_of(gradWeightOut), o2 = view_of(gradBiasOut);
  const std::vector<int64_t> ns = normalizedShape->values;
  return plan(
      op,
      [&](Plan &p) {
        // oneDNN normalizes over the last axis: the input is seen as [M, N], M the product of
        // the leading dims, N = prod(normalizedShape); oneDNN's reshape checks the element count.
        if (ns.empty() || ns.size() > x.t.view_dims.size())
          throw NotExpressible{"normalizedShape of length " + std::to_string(ns.size()) +
                               " cannot be mapped onto oneDNN's last-axis normalization of a "
                               "rank-" +
                               std::to_string(x.t.view_dims.size()) + " input"};
        memory::dim m = 1, n = 1;
        for (size_t i = 0; i < x.t.view_dims.size() - ns.size(); ++i) m *= x.t.view_dims[i];
        for (int64_t d : ns) n *= d;
        const memory::dims rows{m, n}, stat{m}, chan{n};
        const memory xm = reshaped(p.input(x), rows), dym = reshaped(p.input(dy), rows);
        // oneDNN's statistics and scale/shift are f32 and it takes the variance: mean/rstd are
        // widened (exact) and variance = rstd^-2 with epsilon 0.
        const memory mean_m = reshaped(p.input(mu, dt::f32), stat);
        const memory var_m = eltwise_forward(p, dnnl::algorithm::eltwise_pow,
                                             reshaped(p.input(rs, dt::f32), stat), 1.f, -2.f);
        // A gradient of an absent weight is that of a weight of ones (the neutral parameter);
        // bias takes no part in the values: it is reshaped for oneDNN's element-count check and
        // passed only where gradBias is asked for.
        std::optional<memory> scale, shift;
        if (w) {
          scale = reshaped(p.input(*w, dt::f32), chan);
        } else if (mask[1]) {
          scale = memory(dense(chan, dt::f32), engine());
          std::fill_n(static_cast<float *>(scale->get_data_handle()), n, 1.f);
        }
        if (b) {
          shift = reshaped(p.input(*b, dt::f32), chan);
        } else if (mask[2]) {
          shift = memory(dense(chan, dt::f32), engine());
          std::fill_n(static_cast<float *>(shift->get_data_handle()), n, 0.f);
        }
        // use_shift only where gradBias is asked for: the shift takes no part in diff_src.
        if (!mask[2]) shift.reset();
        auto flags = dnnl::normalization_flags::none;
        if (scale) flags |= dnnl::normalization_flags::use_scale;
        if (shift) flags |= dnnl::normalization_flags::use_shift;
        // oneDNN 2.6 implements backward_data only without use_scale (with it: "unimplemented"),
        // so a weight always takes prop_kind::backward, its diff_scale going to a scratch
        // buffer when gradWeight is not asked for.
        const auto prop =
            (scale || shift) ? dnnl::prop_kind::backward : dnnl::prop_kind::backward_data;
        const dnnl::layer_normalization_forward::primitive_desc hint(
            {dnnl::prop_kind::forward_training, xm.get_desc(), mean_m.get_desc(), 0.f, flags},
            engine());
        const dnnl::layer_normalization_backward::primitive_desc pd(
            {prop, dym.get_desc(), xm.get_desc(), mean_m.get_desc(), 0.f, flags}, engine(), hint);
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, xm},
                                             {DNNL_ARG_DIFF_DST, dym},
                                             {DNNL_ARG_MEAN, mean_m},
                                             {DNNL_ARG_VARIANCE, var_m}};
        const memory gx(pd.diff_src_desc(), engine());
        args.emplace(DNNL_ARG_DIFF_SRC, gx);
        if (scale) args.emplace(DNNL_ARG_SCALE, *scale);
        if (shift) args.emplace(DNNL_ARG_SHIFT, *shift);
        // Where oneDNN writes nothing (M = 0), the outputs keep their contents.
        std::optional<memory> gw, gb;
        if (mask[1]) {
          gw = reshaped(p.preloaded(*o1, dt::f32), chan);
          args.emplace(DNNL_ARG_DIFF_SCALE, *gw);
        } else if (scale && prop == dnnl::prop_kind::backward) {
          // prop_kind::backward with use_scale always computes diff_scale: a scratch takes it.
          args.emplace(DNNL_ARG_DIFF_SCALE, memory(dense(chan, dt::f32), engine()));
        }
        if (mask[2]) {
          gb = reshaped(p.preloaded(*o2, dt::f32), chan);
          args.emplace(DNNL_ARG_DIFF_SHIFT, *gb);
        }
        p.add(dnnl::layer_normalization_backward(pd), std::move(args));
        if (mask[0]) p.output(reshaped(gx, dy.dims()), *o0);
        if (mask[1]) p.output(reshaped(*gw, o1->dims()), *o1);
        if (mask[2]) p.output(reshaped(*gb, o2->dims()), *o2);
      },
      workspaceSize, executor);
}
aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream) {
  return run("aclnnLayerNormBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x, const aclTensor *dy, double,
                                           const aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
  static const char *op = "aclnnLogitGrad";
  ONEDNN_SUT_NULL_OUTPUTS(op)
  if (!x || !dy || !out) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "x, dy or out is NULL");
  return fail(ACLNN_ERR_PARAM_INVALID, op,
              "not supported: oneDNN 2.6 has no primitive for the logit derivative "
              "(dy / (x (1 - x)) with eps clamping)");
}
aclnnStatus aclnnLogitGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                           aclrtStream) {
  return run("aclnnLogitGrad", workspace, workspaceSize, executor);
}

namespace {
aclnnStatus grouped_bias_add_grad(const char *op, const aclTensor *gradY,
                                  const aclTensor *groupIdxOptional, int64_t groupIdxType,
                                  aclTensor *out, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
  ONEDNN_SUT_NULL_OUTPUTS(op)
  if (!gradY || !out) return fail(ACLNN_ERR_PARAM_NULLPTR, op, "gradY or out is NULL");
  // No oneDNN notion to map another value to.
  if (groupIdxOptional && groupIdxType != 0 && groupIdxType != 1)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "groupIdxType " + std::to_string(groupIdxType) + " is neither 0 nor 1");
  const View g{*gradY}, o{*out};
  const auto idx = view_of(groupIdxOptional);
  return plan(
      op,
      [&](Plan &p) {
        const memory src = p.input(g);
        const dt out_type = o.require_type();
        // Rows of groups oneDNN does not write (nothing to reduce) keep the output's contents.
        const memory acc = p.preloaded(o, out_type);
        auto reduce = [&](const memory::desc &s, const memory::desc &d, const memory &d_mem) {
          const dnnl::reduction::primitive_desc pd({dnnl::algorithm::reduction_sum, s, d, 0.f, 0.f},
                                                   engine());
          p.add(dnnl::reduction(pd),
                {{DNNL_ARG_SRC, memory(s, engine(), src.get_data_handle())},
                 {DNNL_ARG_DST, memory(d, engine(), d_mem.get_data_handle())}});
        };
        if (!idx) {
          // [G, C, H] -> [G, 1, H]: out seen with a unit axis 1.
          memory::dims d = o.dims();
          d.insert(d.begin() + 1, 1);
          reduce(src.get_desc(), acc.get_desc().reshape(d), acc);
        } else {
          // Group j sums rows [start_j, end_j) of gradY into row j of out, each a submemory
          // (oneDNN checks that it lies inside its parent).
          const std::vector<int64_t> v = read_indices(*idx);
          const memory::dims sd = src.get_desc().dims(), od = acc.get_desc().dims();
          int64_t start = 0;
          for (size_t j = 0; j < v.size(); ++j) {
            const int64_t end = groupIdxType == 0 ? v[j] : start + v[j];
            memory::dims sub_dims = sd, sub_off(sd.size(), 0), row_dims = od, row_off(od.size(), 0);
            sub_dims[0] = end - start;
            sub_off[0] = start;
            row_dims[0] = 1;
            row_off[0] = static_cast<memory::dim>(j);
            reduce(src.get_desc().submemory_desc(sub_dims, sub_off),
                   acc.get_desc().submemory_desc(row_dims, row_off), acc);
            start = end;
          }
        }
        p.output(acc, o);
      },
      workspaceSize, executor);
}
}  // namespace

aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(const aclTensor *gradY,
                                                    const aclTensor *groupIdxOptional,
                                                    aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor) {
  return grouped_bias_add_grad("aclnnGroupedBiasAddGrad", gradY, groupIdxOptional, 0, out,
                               workspaceSize, executor);
}
aclnnStatus aclnnGroupedBiasAddGrad(void *workspace, uint64_t workspaceSize,
                                    aclOpExecutor *executor, aclrtStream) {
  return run("aclnnGroupedBiasAddGrad", workspace, workspaceSize, executor);
}
aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(const aclTensor *gradY,
                                                      const aclTensor *groupIdxOptional,
                                                      int64_t groupIdxType, aclTensor *out,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor) {
  return grouped_bias_add_grad("aclnnGroupedBiasAddGradV2", gradY, groupIdxOptional, groupIdxType,
                               out, workspaceSize, executor);
}
aclnnStatus aclnnGroupedBiasAddGradV2(void *workspace, uint64_t workspaceSize,
                                      aclOpExecutor *executor, aclrtStream) {
  return run("aclnnGroupedBiasAddGradV2", workspace, workspaceSize, executor);
}

}  // extern "C"
