// aclnnLayerNormBackward on the CPU (spec layer_norm_backward.md, clauses LN-*): the checks in the
// specification's order, the plan and the entry points; the row kernels are in
// impl/kernels/layer_norm_backward-inl.hpp (their contract and accuracy there, the proofs in
// docs/kernels.md#layernormbackward).
//
// Plan: each tensor's dims are split into the leading (row) dims and the normalized (column) dims,
// each part coalesced on its own (impl/strided_rows.hpp). Rows of contiguous input/gradOut of one
// dtype are read in place and a contiguous gradInput row is written in place (the pipelined
// kernel where both are); any other layout gathers a row into a contiguous double buffer and
// scatters gradInput back with one rounding. Rows are independent for gradInput; gradWeight and
// gradBias are column sums over the M rows, cut into row blocks whose size depends only on the
// shape: every block keeps its partial sums in the caller's workspace and the partials are added
// in block order, so results are bitwise identical for any ACLNN_CPU_NUM_THREADS (VAL-DET-1).
#include "impl/simd_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/layer_norm_backward.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "impl/kernels/layer_norm_backward-inl.hpp"

#if HWY_ONCE
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/simd.hpp"
#include "impl/soc.hpp"
#include "impl/status.hpp"
#include "impl/strided_rows.hpp"
#include "impl/tensor.hpp"

namespace aclnn_cpu {

namespace {

using rowview::gather;
using rowview::row_is_dense;
using rowview::RowCursor;
using rowview::RowView;
using rowview::scatter;

constexpr const char *kOp = "aclnnLayerNormBackward";
// No thread is started for less work than this many elements (thread start-up would dominate).
constexpr int64_t kParallelElements = 65536;

HWY_EXPORT(LnRow);
HWY_EXPORT(LnRowsPipelined);

// The row kernel's kind of a dtype: 1 FLOAT, 2 FLOAT16, 3 BFLOAT16.
int row_kind(aclDataType t) {
  return t == ACL_FLOAT ? 1 : t == ACL_FLOAT16 ? 2 : 3;
}

// ---- the plan ------------------------------------------------------------------------------

// Rows per block of the column sums: a function of the shape only (VAL-DET-1). At least 8 rows a
// block (the workspace, blocks * N * 16 bytes, stays at most 2 bytes per input element), at least
// kBlockElements elements a block and at most ~128 blocks: each block clears its partials and the
// final reduction adds them all, which with 8-row blocks of rows of 1024 took about 15 % of a call
// (docs/kernels.md#layernormbackward-measurements).
constexpr int64_t kBlockElements = 32768;
int64_t rows_per_block(int64_t m, int64_t n) {
  return std::max(
      {int64_t{8}, (m + 127) / 128, (kBlockElements + n - 1) / std::max<int64_t>(n, 1)});
}
constexpr int64_t kAlign = 64;  // bytes; the workspace pointer is aligned up inside
// Doubles per partial (and row buffer): a multiple of 8, so that each starts 64-byte aligned, and
// 1-3 KB away from a multiple of 4 KB. The row loop stores pw[j], then loads pb[j] and, after
// storing pb[j], pw[j + 8]; a load whose address matches a recent store's in its low 12 bits waits
// for it ("4K aliasing"), which rows of 1024 hit at every step with pb exactly 8 KB after pw.
int64_t padded(int64_t n) {
  const int64_t p = (n + 7) / 8 * 8, r = p % 512;  // 512 doubles: 4 KB
  return r < 128 ? p + 128 - r : r > 384 ? p + 640 - r : p;
}

struct Plan {
  int64_t m = 0, n = 0;
  bool has_w = false, gi = false, gw = false, gb = false;
  RowView x, dy, out_gi;
  // mean/rstd (flat row order over their own dims), weight (over its dims), gradWeight/gradBias.
  RowView mean, rstd, w, out_gw, out_gb;
  int64_t block_rows = 0, blocks = 0, parts = 0;
};

uint64_t workspace_bytes(const Plan &p) {
  if (!(p.gw || p.gb) || p.m == 0 || p.n == 0) return 0;
  return static_cast<uint64_t>(kAlign + p.blocks * p.parts * padded(p.n) * 8);
}

void fill_zero(const RowView &v, int64_t n) {
  std::vector<double> z(static_cast<size_t>(n), 0.0);
  scatter(v.data, v.dtype, v.inner, v.offset, z.data());
}

void run_plan(const Plan &p, void *workspace) {
  if (!(p.gi || p.gw || p.gb)) return;  // LN-MASK-2: all three false, nothing runs
  if (p.n == 0) return;                 // every requested output is empty
  if (p.m == 0) {                       // LN-EMPTY-1
    if (p.gw) fill_zero(p.out_gw, p.n);
    if (p.gb) fill_zero(p.out_gb, p.n);
    return;
  }
  const int64_t m = p.m, n = p.n;
  std::vector<double> mean(static_cast<size_t>(m)), rstd(static_cast<size_t>(m)), w;
  gather(p.mean.data, p.mean.dtype, p.mean.inner, p.mean.offset, mean.data());
  gather(p.rstd.data, p.rstd.dtype, p.rstd.inner, p.rstd.offset, rstd.data());
  if (p.has_w) {
    w.resize(static_cast<size_t>(n));
    gather(p.w.data, p.w.dtype, p.w.inner, p.w.offset, w.data());
  }
  // Fast path: contiguous rows of input and gradOut of one dtype are read in place, a contiguous
  // gradInput row is written in place; otherwise rows are gathered to (scattered from) double
  // buffers. The kernel widens and rounds exactly as gather/scatter do.
  const bool in_place = row_is_dense(p.x) && row_is_dense(p.dy) && p.x.dtype == p.dy.dtype;
  const bool out_place = p.gi && row_is_dense(p.out_gi);
  const int in_kind = in_place ? row_kind(p.x.dtype) : 0;
  int out_kind = out_place ? row_kind(p.out_gi.dtype) : 0;
  if (in_kind != 0 && out_kind != 0 && in_kind != out_kind) out_kind = 0;  // not a kernel pair
  const bool gi_direct = p.gi && out_kind != 0;
  // float_kind: gradInput's dtype kind where rows may be float rows (the default), else 0: always
  // double under ACLNN_CPU_LN_FLOAT=0, read at each call (nearly always the correctly rounded
  // value, which the Ascend precision standard's relative errors near zero ask of FLOAT outputs;
  // see docs/decisions.md).
  const char *float_env = std::getenv("ACLNN_CPU_LN_FLOAT");
  int float_kind = p.gi && !(float_env != nullptr && std::strcmp(float_env, "0") == 0)
                       ? row_kind(p.out_gi.dtype)
                       : 0;
  // The weight as floats for the float rows; exact for every weight dtype LN-DTYPE-1 allows
  // (checked: a weight that is not keeps every row in double).
  // wmax: the largest |weight| for LnF16RowInRange. A NaN weight is left out: it makes every
  // row's S1 NaN, so no row is a float row.
  std::vector<float> wf;
  float wmax = 1.0f;
  if (float_kind != 0 && p.has_w) {
    wf.resize(static_cast<size_t>(n));
    wmax = 0.0f;
    for (size_t j = 0; j < wf.size(); ++j) {
      wf[j] = static_cast<float>(w[j]);
      if (static_cast<double>(wf[j]) != w[j] && !std::isnan(w[j])) float_kind = 0;
      wmax = std::max(wmax, std::fabs(wf[j]));
    }
  }
  LnShared shared;  // pw/pb: each block's own, set below
  shared.n = n;
  shared.w = p.has_w ? w.data() : nullptr;
  shared.wf = wf.empty() ? nullptr : wf.data();
  shared.wmax = wmax;
  shared.float_kind = float_kind;
  // Rows in pairs (one load and store of the column partials for two rows) unless
  // ACLNN_CPU_LN_PAIRS=0 (read at each call; the same bytes either way).
  shared.pairs = simd::env_switch("ACLNN_CPU_LN_PAIRS") != 0;

  // Rows read and gradInput written in place, one dtype: the pipelined kernel.
  const bool pipelined = in_place && gi_direct && in_kind == out_kind;
  // gradInput rows beyond simd::streaming_threshold_bytes() are streamed (no read-for-ownership of
  // their lines); 16-bit rows by lines assembled in a buffer (sh::LineStream), which on AVX2 took
  // up to 1.24x as long as not streaming on Zen 4 and 1.27x on an Ice Lake Xeon (fp16, 1 thread;
  // docs/kernels.md#non-temporal-stores).
  const int64_t gi_size = dtype_size(p.out_gi.dtype);
  const bool stream_gi =
      pipelined &&
      simd::stream_output(
          m * n * static_cast<int64_t>(2 * dtype_size(p.x.dtype) + gi_size),
          gi_size == 2 ? simd::LoopKind::assembled_lines : simd::LoopKind::memory_bound);
  // Rows [r0, r1): gather, kernel, scatter; pw/pb may be null.
  const auto do_rows = [&](int64_t r0, int64_t r1, double *pw, double *pb) {
    // Row buffers only where a row is gathered or scattered (uninitialized: always written first).
    const int64_t bufs = (in_place ? 0 : 2) + (p.gi && !gi_direct ? 1 : 0);
    std::unique_ptr<double[]> buf(bufs ? new double[static_cast<size_t>(bufs * padded(n))]
                                       : nullptr);
    double *xb = buf.get(), *db = in_place ? nullptr : xb + padded(n);
    double *gb = in_place ? xb : db + padded(n);
    RowCursor cx, cd, cg;
    cx.seek(p.x.outer, p.x.offset, r0);
    cd.seek(p.dy.outer, p.dy.offset, r0);
    if (p.gi) cg.seek(p.out_gi.outer, p.out_gi.offset, r0);
    const size_t es_in = dtype_size(p.x.dtype), es_out = p.gi ? dtype_size(p.out_gi.dtype) : 0;
    if (pipelined) {  // every row in place: one pipelined call for the whole run of rows
      const auto count = static_cast<size_t>(r1 - r0);
      std::vector<const void *> xs(count), ds(count);
      std::vector<void *> gs(count);
      for (size_t k = 0; k < count; ++k) {
        xs[k] = p.x.data + cx.off * static_cast<int64_t>(es_in);
        ds[k] = p.dy.data + cd.off * static_cast<int64_t>(es_in);
        gs[k] = p.out_gi.data + cg.off * static_cast<int64_t>(es_out);
        cx.next();
        cd.next();
        cg.next();
      }
      LnShared shared_rows = shared;
      shared_rows.pw = pw;
      shared_rows.pb = pb;
      LnRowsArgs args;
      args.rows = r1 - r0;
      args.x = xs.data();
      args.dy = ds.data();
      args.gi = gs.data();
      args.mean = mean.data() + r0;
      args.rstd = rstd.data() + r0;
      args.stream = stream_gi;
      HWY_DYNAMIC_DISPATCH(LnRowsPipelined)(in_kind, shared_rows, args);
      return;
    }
    for (int64_t r = r0; r < r1; ++r) {
      const void *xr = xb, *dr = db;
      if (in_place) {
        xr = p.x.data + cx.off * static_cast<int64_t>(es_in);
        dr = p.dy.data + cd.off * static_cast<int64_t>(es_in);
      } else {
        gather(p.x.data, p.x.dtype, p.x.inner, cx.off, xb);
        gather(p.dy.data, p.dy.dtype, p.dy.inner, cd.off, db);
      }
      void *gr = gi_direct
                     ? static_cast<void *>(p.out_gi.data + cg.off * static_cast<int64_t>(es_out))
                     : static_cast<void *>(gb);
      const char *nx = nullptr, *ndy = nullptr;  // the next row, to prefetch
      if (in_place && r + 1 < r1) {
        RowCursor px = cx, pd = cd;
        px.next();
        pd.next();
        nx = p.x.data + px.off * static_cast<int64_t>(es_in);
        ndy = p.dy.data + pd.off * static_cast<int64_t>(es_in);
      }
      LnShared shared_row = shared;
      shared_row.pw = pw;
      shared_row.pb = pb;
      const LnRowArgs row{xr, dr, gr, mean[r], rstd[r], nx, ndy};
      HWY_DYNAMIC_DISPATCH(LnRow)(in_kind, out_kind, p.gi, shared_row, row);
      if (p.gi) {
        if (!gi_direct) scatter(p.out_gi.data, p.out_gi.dtype, p.out_gi.inner, cg.off, gb);
        cg.next();
      }
      cx.next();
      cd.next();
    }
  };

  if (!(p.gw || p.gb)) {  // gradInput only: rows in parallel, no reduction
    parallel_for(m, std::max<int64_t>(1, kParallelElements / n),
                 [&](int64_t r0, int64_t r1) { do_rows(r0, r1, nullptr, nullptr); });
    return;
  }

  auto base = reinterpret_cast<uintptr_t>(workspace);
  base = (base + kAlign - 1) / kAlign * kAlign;
  double *ws = reinterpret_cast<double *>(base);
  const int64_t stride = padded(n);
  const auto part = [&](int64_t block, int64_t k) { return ws + (block * p.parts + k) * stride; };
  // Which partial slot each requested sum uses.
  const int64_t kw = 0, kb = p.gw ? 1 : 0;

  // Blocks are fixed by the shape; below kParallelElements they all run on the calling thread.
  parallel_for(p.blocks, m * n < kParallelElements ? p.blocks : 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      double *pw = p.gw ? part(b, kw) : nullptr;
      double *pb = p.gb ? part(b, kb) : nullptr;
      if (pw) std::fill(pw, pw + n, 0.0);
      if (pb) std::fill(pb, pb + n, 0.0);
      do_rows(b * p.block_rows, std::min(m, (b + 1) * p.block_rows), pw, pb);
    }
  });
  // Column totals: partials added in block order into block 0's slots, columns in parallel, in
  // chunks of kChunk columns that stay in L1 while every block's partials are added to them.
  constexpr int64_t kChunk = 512;
  parallel_for(n, std::max<int64_t>(2048, kParallelElements / p.blocks),
               [&](int64_t j0, int64_t j1) {
                 for (int64_t k = 0; k < p.parts; ++k)
                   for (int64_t c = j0; c < j1; c += kChunk) {
                     const auto len = static_cast<size_t>(std::min(kChunk, j1 - c));
                     for (int64_t b = 1; b < p.blocks; ++b)
                       simd::add_f64(part(0, k) + c, part(b, k) + c, len);
                   }
               });
  if (p.gw) scatter(p.out_gw.data, p.out_gw.dtype, p.out_gw.inner, p.out_gw.offset, part(0, kw));
  if (p.gb) scatter(p.out_gb.data, p.out_gb.dtype, p.out_gb.inner, p.out_gb.offset, part(0, kb));
}

// ---- checks --------------------------------------------------------------------------------

bool is_ln_float(aclDataType t, Soc soc) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || (t == ACL_BF16 && soc_has_bf16(soc));
}

aclnnStatus check_float_dtype(const char *name, const aclTensor *t, Soc soc) {
  if (t == nullptr || is_ln_float(t->dtype, soc)) return ACLNN_SUCCESS;
  if (t->dtype == ACL_BF16)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "{} dtype BFLOAT16 is not supported on {}; BFLOAT16 needs Atlas A2/A3 "
                "(LN-DTYPE-1)",
                name, soc_name(soc));
  return fail(ACLNN_ERR_PARAM_INVALID, kOp,
              "{} dtype {} is not supported; it must be FLOAT, FLOAT16 or BFLOAT16 (LN-DTYPE-1)",
              name, dtype_name(t->dtype));
}

}  // namespace
}  // namespace aclnn_cpu

using namespace aclnn_cpu;

static aclnnStatus get_workspace_size(const aclTensor *gradOut, const aclTensor *input,
                                      const aclIntArray *normalizedShape, const aclTensor *mean,
                                      const aclTensor *rstd, const aclTensor *weightOptional,
                                      const aclTensor *biasOptional, const aclBoolArray *outputMask,
                                      aclTensor *gradInputOut, aclTensor *gradWeightOut,
                                      aclTensor *gradBiasOut, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
  ACLNN_CHECK(check_phase_one_outputs(kOp, workspaceSize, executor));  // ABI-TWOPHASE-2
  Soc soc;
  ACLNN_CHECK(check_soc(kOp, soc));

  // LN-NULL-1
  const std::pair<const char *, const void *> required[] = {
      {"gradOut", gradOut}, {"input", input}, {"normalizedShape", normalizedShape},
      {"mean", mean},       {"rstd", rstd},   {"outputMask", outputMask}};
  for (auto [name, ptr] : required)
    if (ptr == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, kOp, "{} is NULL; it is required (LN-NULL-1)", name);

  // LN-MASK-1
  if (outputMask->values.size() != 3)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "outputMask has length {}; it must be 3 (LN-MASK-1)",
                outputMask->values.size());
  const bool want_gi = outputMask->values[0], want_gw = outputMask->values[1],
             want_gb = outputMask->values[2];

  // LN-NULL-2
  const struct {
    const char *name;
    const aclTensor *t;
    bool wanted;
    int bit;
  } outs[] = {{"gradInputOut", gradInputOut, want_gi, 0},
              {"gradWeightOut", gradWeightOut, want_gw, 1},
              {"gradBiasOut", gradBiasOut, want_gb, 2}};
  for (const auto &o : outs)
    if (o.wanted && o.t == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, kOp, "{} is NULL but outputMask[{}] is true (LN-NULL-2)",
                  o.name, o.bit);

  // LN-DTYPE-1: each input's dtype in signature order, then the relations between them.
  const std::pair<const char *, const aclTensor *> float_inputs[] = {
      {"gradOut", gradOut},
      {"input", input},
      {"mean", mean},
      {"rstd", rstd},
      {"weightOptional", weightOptional},
      {"biasOptional", biasOptional}};
  for (auto [name, t] : float_inputs) ACLNN_CHECK(check_float_dtype(name, t, soc));
  if (gradOut->dtype != input->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradOut dtype {} != input dtype {}; they must be equal (LN-DTYPE-1)",
                dtype_name(gradOut->dtype), dtype_name(input->dtype));
  if (mean->dtype != rstd->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "mean dtype {} != rstd dtype {}; they must be equal (LN-DTYPE-1)",
                dtype_name(mean->dtype), dtype_name(rstd->dtype));
  if (weightOptional && weightOptional->dtype != input->dtype && weightOptional->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "weightOptional dtype {} is neither input's dtype {} nor FLOAT (LN-DTYPE-1)",
                dtype_name(weightOptional->dtype), dtype_name(input->dtype));
  if (weightOptional && biasOptional && biasOptional->dtype != weightOptional->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "biasOptional dtype {} != weightOptional dtype {}; they must be equal "
                "(LN-DTYPE-1)",
                dtype_name(biasOptional->dtype), dtype_name(weightOptional->dtype));

  // LN-DTYPE-2 (requested outputs; an output whose mask bit is false is not looked at).
  if (want_gi && gradInputOut->dtype != input->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradInputOut dtype {} != input dtype {}; they must be equal (LN-DTYPE-2)",
                dtype_name(gradInputOut->dtype), dtype_name(input->dtype));
  if (want_gw && gradWeightOut->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradWeightOut dtype {} is not FLOAT (LN-DTYPE-2)",
                dtype_name(gradWeightOut->dtype));
  if (want_gb && gradBiasOut->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradBiasOut dtype {} is not FLOAT (LN-DTYPE-2)",
                dtype_name(gradBiasOut->dtype));

  // LN-SHAPE-1
  const std::vector<int64_t> &ns = normalizedShape->values;
  const int in_rank = rank(*input);
  const int ns_len = static_cast<int>(ns.size());
  if (ns_len < 1)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "normalizedShape is empty; its length must be at least 1 (LN-SHAPE-1)");
  if (in_rank > kMaxRank)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "input has rank {} (shape {}); at most 8 (LN-SHAPE-1)", in_rank,
                shape_str(input->view_dims));
  if (ns_len > in_rank)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "normalizedShape {} has length {} > input rank {} (input shape {}) (LN-SHAPE-1)",
                shape_str(ns), ns_len, in_rank, shape_str(input->view_dims));
  const int lead = in_rank - ns_len;
  if (!std::equal(ns.begin(), ns.end(), input->view_dims.begin() + lead))
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "input shape {} does not end with normalizedShape {} (LN-SHAPE-1)",
                shape_str(input->view_dims), shape_str(ns));
  int64_t m = 1, n = 1;
  for (int i = 0; i < lead; ++i) m *= input->view_dims[i];
  for (int64_t v : ns) n *= v;

  // LN-SHAPE-2
  if (gradOut->view_dims != input->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradOut shape {} != input shape {} (LN-SHAPE-2)",
                shape_str(gradOut->view_dims), shape_str(input->view_dims));
  if (weightOptional && weightOptional->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "weightOptional shape {} != normalizedShape {} (LN-SHAPE-2)",
                shape_str(weightOptional->view_dims), shape_str(ns));
  if (biasOptional && biasOptional->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "biasOptional shape {} != normalizedShape {} (LN-SHAPE-2)",
                shape_str(biasOptional->view_dims), shape_str(ns));

  // LN-SHAPE-3
  if (mean->view_dims != rstd->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "mean shape {} != rstd shape {} (LN-SHAPE-3)",
                shape_str(mean->view_dims), shape_str(rstd->view_dims));
  if (numel(*mean) != m)
    return fail(
        ACLNN_ERR_PARAM_INVALID, kOp,
        "mean numel {} != M = {} (the product of input's leading dims {}) (LN-SHAPE-3)",
        numel(*mean), m,
        shape_str(std::vector<int64_t>(input->view_dims.begin(), input->view_dims.begin() + lead)));

  // LN-SHAPE-4
  if (want_gi && gradInputOut->view_dims != input->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradInputOut shape {} != input shape {} (LN-SHAPE-4)",
                shape_str(gradInputOut->view_dims), shape_str(input->view_dims));
  if (want_gw && gradWeightOut->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradWeightOut shape {} != normalizedShape {} (LN-SHAPE-4)",
                shape_str(gradWeightOut->view_dims), shape_str(ns));
  if (want_gb && gradBiasOut->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradBiasOut shape {} != normalizedShape {} (LN-SHAPE-4)",
                shape_str(gradBiasOut->view_dims), shape_str(ns));

  // LN-RANK-1: every tensor present, in signature order.
  const std::pair<const char *, const aclTensor *> all[] = {{"gradOut", gradOut},
                                                            {"input", input},
                                                            {"mean", mean},
                                                            {"rstd", rstd},
                                                            {"weightOptional", weightOptional},
                                                            {"biasOptional", biasOptional},
                                                            {"gradInputOut", gradInputOut},
                                                            {"gradWeightOut", gradWeightOut},
                                                            {"gradBiasOut", gradBiasOut}};
  for (auto [name, t] : all) {
    if (t == nullptr) continue;
    if (rank(*t) < 1 || rank(*t) > kMaxRank)
      return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                  "{} has rank {} (shape {}); it must be 1 to 8 (LN-RANK-1)", name, rank(*t),
                  shape_str(t->view_dims));
  }

  // Project checks: storage present for non-empty views; outputs do not overlap anything.
  for (auto [name, t] : all)
    if (t != nullptr) ACLNN_CHECK(check_data(kOp, name, *t));
  const aclTensor *const requested[3] = {want_gi ? gradInputOut : nullptr,
                                         want_gw ? gradWeightOut : nullptr,
                                         want_gb ? gradBiasOut : nullptr};
  const char *const out_names[3] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
  for (int k = 0; k < 3; ++k) {
    if (requested[k] == nullptr) continue;
    // The inputs, then the other requested outputs, in signature order.
    ACLNN_CHECK(check_output(kOp, out_names[k], *requested[k],
                             {{"gradOut", gradOut},
                              {"input", input},
                              {"mean", mean},
                              {"rstd", rstd},
                              {"weightOptional", weightOptional},
                              {"biasOptional", biasOptional},
                              {"gradInputOut", k == 0 ? nullptr : requested[0]},
                              {"gradWeightOut", k == 1 ? nullptr : requested[1]},
                              {"gradBiasOut", k == 2 ? nullptr : requested[2]}},
                             false));
  }

  // Plan. bias is validated above and takes no part in the values (LN-BIAS-1).
  Plan p;
  p.m = m;
  p.n = n;
  p.has_w = weightOptional != nullptr;
  p.gi = want_gi;
  p.gw = want_gw;
  p.gb = want_gb;
  if (m > 0 && n > 0) {
    p.x = rowview::make_row_view(*input, lead);
    p.dy = rowview::make_row_view(*gradOut, lead);
    if (p.gi) p.out_gi = rowview::make_row_view(*gradInputOut, lead);
    p.mean = rowview::make_row_view(*mean, 0);
    p.rstd = rowview::make_row_view(*rstd, 0);
    if (p.has_w) p.w = rowview::make_row_view(*weightOptional, 0);
  }
  if (p.gw) p.out_gw = rowview::make_row_view(*gradWeightOut, 0);
  if (p.gb) p.out_gb = rowview::make_row_view(*gradBiasOut, 0);
  p.parts = (p.gw ? 1 : 0) + (p.gb ? 1 : 0);
  p.block_rows = rows_per_block(m, n);
  p.blocks = m > 0 ? (m + p.block_rows - 1) / p.block_rows : 0;
  const uint64_t ws = workspace_bytes(p);
  return publish_executor(
      kOp, ws, [p](void *workspace) { run_plan(p, workspace); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return guard_abi(kOp, [&] {
    return get_workspace_size(gradOut, input, normalizedShape, mean, rstd, weightOptional,
                              biasOptional, outputMask, gradInputOut, gradWeightOut, gradBiasOut,
                              workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream) {
  (void)stream;
  return run_executor(kOp, workspace, workspaceSize, executor);
}
#endif  // HWY_ONCE
