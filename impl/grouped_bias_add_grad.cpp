// aclnnGroupedBiasAddGrad and V2 (spec grouped_bias_add_grad.md): per group, the sum of gradY's
// rows. With groupIdx (rank-2 gradY) the groups are row ranges given by end offsets (type 0) or
// sizes (type 1); without it (rank-3 gradY [G, C, H]) group g is gradY[g, :, :]. The checks in the
// specification's order, the plan and the entry points; the row accumulation is in
// impl/kernels/grouped_bias_add_grad-inl.hpp (its contract and accuracy there).
//
// Plan (GBAG-VALUE-3, VAL-DET-1): a group's rows are cut into blocks of a fixed number of rows (a
// function of H only, never of the thread count); each block is summed in row order, and a group
// of several blocks adds its block sums in block order, kept meanwhile in the caller's workspace.
// The order of every addition is therefore fixed, and results are bitwise identical for any
// ACLNN_CPU_NUM_THREADS.
#include "impl/simd_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/grouped_bias_add_grad.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "impl/kernels/grouped_bias_add_grad-inl.hpp"

#if HWY_ONCE
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/elementwise_io.hpp"
#include "impl/executor.hpp"
#include "impl/kernels/grouped_bias_add_grad.hpp"
#include "impl/parallel.hpp"
#include "impl/simd.hpp"

namespace aclnn_cpu {

namespace {

constexpr const char *kOpV1 = "aclnnGroupedBiasAddGrad";
constexpr const char *kOpV2 = "aclnnGroupedBiasAddGradV2";
constexpr int64_t kMaxGroups = 2048;  // GBAG-GMAX-1
// Columns per work item: 2048 (16 KB of double sums, in L1) covers whole rows of most shapes, so
// rows stream in order; narrower chunks read 2 KB per 4 KB-page row, defeating the prefetchers.
constexpr int64_t kChunkH = 2048;
constexpr int64_t kBlockElements = int64_t{1} << 18;  // target rows x columns per block
constexpr int64_t kParallelElements = 65536;          // no thread start-up below this

HWY_EXPORT(AccumulateF64);
HWY_EXPORT(AccumulateRowsF64);

// A piece of first-pass work: rows [row_begin, row_end) of group g. partial < 0: the block is the
// whole group and its sums go straight to out; else they go to workspace row `partial`.
struct Unit {
  int64_t g;
  int64_t row_begin, row_end;
  int64_t partial;
};

// A group cut into several blocks: its partial rows [first, first + count) are added in order.
struct MultiGroup {
  int64_t g;
  int64_t first, count;
};

struct Plan {
  aclDataType dtype = ACL_FLOAT;
  const char *gy = nullptr;  // gradY view base
  int64_t group_stride = 0;  // bytes; 0 with groupIdx (rows are global)
  int64_t row_stride = 0;    // bytes
  int64_t h_stride = 0;      // bytes
  int64_t H = 0;
  char *out = nullptr;             // out view base
  int64_t out_s0 = 0, out_s1 = 0;  // bytes
  std::vector<Unit> units;
  std::vector<MultiGroup> multi;
  int64_t n_partials = 0;
  int64_t total_elements = 0;  // gradY elements summed
};

// acc += rows rows at src, row_stride bytes apart, w columns of kind `kind`, in the kernel's
// order: gbag::accumulate_rows_f64 (16-bit rows in eight-row float trees), or under !tree one
// 16-bit row at a time in double.
void add_rows(int kind, const void *src, int64_t row_stride, int64_t rows, double *acc, int64_t w,
              bool tree, gbag::RowRead read) {
  if (kind != 1 && !tree) {
    for (int64_t r = 0; r < rows; ++r)
      gbag::accumulate_f64(kind, static_cast<const char *>(src) + r * row_stride, acc,
                           static_cast<size_t>(w));
    return;
  }
  gbag::accumulate_rows_f64(kind, src, static_cast<ptrdiff_t>(row_stride),
                            static_cast<size_t>(rows), acc, static_cast<size_t>(w), read);
}

// Column sums of rows [row_begin, row_end) of unit u over columns [h0, h0 + w), in double, in row
// order (16-bit rows: eight-row float trees from row_begin, then rows one at a time). Contiguous
// rows go to the SIMD layer in place; other views are copied eight rows at a time into a
// contiguous block first, so every layout adds the same values in the same order (the same bits).
// `alone`: the call runs on one thread (how far ahead a stream from memory is requested).
template <aclDataType DT>
void sum_rows(const Plan &p, const Unit &u, int64_t h0, int64_t w, bool tree, bool alone,
              double *acc) {
  using T = std::conditional_t<DT == ACL_FLOAT, float, uint16_t>;
  constexpr int kind = DT == ACL_FLOAT ? 1 : DT == ACL_FLOAT16 ? 2 : 3;
  constexpr auto es = static_cast<int64_t>(sizeof(T));
  for (int64_t h = 0; h < w; ++h) acc[h] = -0.0;  // -0 + x == x for every x, signed zeros kept
  if (u.row_begin == u.row_end) return;           // empty group: gradY may be empty, with NULL data
  const char *base = p.gy + u.g * p.group_stride;
  if (p.h_stride == es) {
    auto read = gbag::kInCache;
    if (p.total_elements * es > simd::streaming_threshold_bytes()) {
      read = gbag::memory_row_read();
      if (read == gbag::kOneStream && alone) read = gbag::kOneStreamAlone;
    }
    add_rows(kind, base + u.row_begin * p.row_stride + h0 * es, p.row_stride,
             u.row_end - u.row_begin, acc, w, tree, read);
    return;
  }
  T block[8 * kChunkH];  // eight rows of w <= kChunkH elements, contiguous
  for (int64_t r = u.row_begin; r < u.row_end; r += 8) {
    const int64_t nr = std::min<int64_t>(8, u.row_end - r);
    for (int64_t k = 0; k < nr; ++k) {
      const char *row = base + (r + k) * p.row_stride + h0 * p.h_stride;
      for (int64_t h = 0; h < w; ++h) std::memcpy(&block[k * w + h], row + h * p.h_stride, es);
    }
    add_rows(kind, block, w * es, nr, acc, w, tree, gbag::kInCache);
  }
}

// One output row: rounded once by the vectorised conversions (a scalar rounding per element took
// 0.5 ms of a (65536, 1024) bfloat16 call's 5.6 with 64 groups, and most of a small call's time).
template <aclDataType DT>
void store_row(const Plan &p, int64_t g, int64_t h0, int64_t w, const double *acc) {
  ew::store_strided(p.out + g * p.out_s0 + h0 * p.out_s1, p.out_s1, DT, w, acc);
}

template <aclDataType DT>
void execute_typed(const Plan &p, double *ws) {
  const int64_t n_chunks = (p.H + kChunkH - 1) / kChunkH;
  // 16-bit rows in eight-row float trees (the default), or one at a time in double under
  // ACLNN_CPU_GBAG_FLOAT=0, read at each call: fp16 sums of up to 8192 rows are then exact before
  // the last rounding, which the Ascend precision standard's relative errors near zero can ask
  // for (see docs/decisions.md).
  const char *float_env = std::getenv("ACLNN_CPU_GBAG_FLOAT");
  const bool tree = !(float_env != nullptr && std::strcmp(float_env, "0") == 0);
  // Pass 1: blocks (direct ones to out, the others to the workspace); empty groups get zeros.
  const auto n1 = static_cast<int64_t>(p.units.size()) * n_chunks;
  // Below kParallelElements of input everything runs on the calling thread.
  const int64_t total = p.total_elements;
  const bool alone = total < kParallelElements || n1 == 1 || num_threads() == 1;
  parallel_for(n1, total < kParallelElements ? n1 : 1, [&](int64_t begin, int64_t end) {
    double acc[kChunkH];
    for (int64_t t = begin; t < end; ++t) {
      const Unit &u = p.units[t / n_chunks];
      const int64_t h0 = (t % n_chunks) * kChunkH;
      const int64_t w = std::min(kChunkH, p.H - h0);
      sum_rows<DT>(p, u, h0, w, tree, alone, acc);
      if (u.row_begin == u.row_end)  // empty group (GBAG-EMPTY-1): +0
        for (int64_t h = 0; h < w; ++h) acc[h] = 0.0;
      if (u.partial < 0)
        store_row<DT>(p, u.g, h0, w, acc);
      else
        std::memcpy(ws + u.partial * p.H + h0, acc, static_cast<size_t>(w) * sizeof(double));
    }
  });
  // Pass 2: groups of several blocks add their block sums in block order.
  const auto n2 = static_cast<int64_t>(p.multi.size()) * n_chunks;
  parallel_for(n2, total < kParallelElements ? n2 : 1, [&](int64_t begin, int64_t end) {
    double acc[kChunkH];
    for (int64_t t = begin; t < end; ++t) {
      const MultiGroup &m = p.multi[t / n_chunks];
      const int64_t h0 = (t % n_chunks) * kChunkH;
      const int64_t w = std::min(kChunkH, p.H - h0);
      for (int64_t h = 0; h < w; ++h) acc[h] = -0.0;
      for (int64_t b = 0; b < m.count; ++b) {
        const double *part = ws + (m.first + b) * p.H + h0;
        for (int64_t h = 0; h < w; ++h) acc[h] += part[h];
      }
      store_row<DT>(p, m.g, h0, w, acc);
    }
  });
}

void execute(const Plan &p, void *workspace) {
  auto *ws = static_cast<double *>(workspace);
  switch (p.dtype) {
    case ACL_FLOAT:
      execute_typed<ACL_FLOAT>(p, ws);
      break;
    case ACL_FLOAT16:
      execute_typed<ACL_FLOAT16>(p, ws);
      break;
    case ACL_BF16:
      execute_typed<ACL_BF16>(p, ws);
      break;
    default:
      break;  // rejected in phase one
  }
}

int64_t load_index(const aclTensor &t, int64_t i) {
  const char *p = view_base(t) + i * t.strides[0] * static_cast<int64_t>(dtype_size(t.dtype));
  if (t.dtype == ACL_INT32) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// GBAG-IDX-1 (project: checked here, on the host): fills the groups' [start, end) row ranges.
aclnnStatus read_groups(const char *op, const aclTensor &gi, int64_t type, int64_t rows,
                        std::vector<int64_t> &start, std::vector<int64_t> &count) {
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  const int64_t G = gi.view_dims[0];
  const char *kind = type == 0 ? "end offsets (groupIdxType 0)" : "group sizes (groupIdxType 1)";
  start.resize(G);
  count.resize(G);
  int64_t prev = 0;
  for (int64_t j = 0; j < G; ++j) {
    const int64_t v = load_index(gi, j);
    if (v < 0 || v > kInt32Max)
      return fail(ACLNN_ERR_PARAM_INVALID, op,
                  "groupIdxOptional[{}] = {} is outside [0, INT32_MAX]; GBAG-IDX-1 requires "
                  "non-negative {} that fit in INT32",
                  j, v, kind);
    const int64_t end = type == 0 ? v : prev + v;
    if (type == 0 && v < prev)
      return fail(ACLNN_ERR_PARAM_INVALID, op,
                  "groupIdxOptional[{}] = {} is smaller than groupIdxOptional[{}] = {}; "
                  "GBAG-IDX-1 requires non-decreasing end offsets (groupIdxType 0)",
                  j, v, j - 1, prev);
    if (end > rows)
      return fail(ACLNN_ERR_PARAM_INVALID, op,
                  "groupIdxOptional[{}] = {} takes the groups to row {}, beyond gradY.dim0 = {}; "
                  "GBAG-IDX-1 requires the {} to end at gradY.dim0",
                  j, v, end, rows, kind);
    start[j] = prev;
    count[j] = end - prev;
    prev = end;
  }
  if (prev != rows) {
    if (G == 0)
      return fail(ACLNN_ERR_PARAM_INVALID, op,
                  "groupIdxOptional is empty but gradY.dim0 = {}; GBAG-IDX-1 requires the groups "
                  "to cover gradY's rows",
                  rows);
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "groupIdxOptional[{}] = {} ends the groups at row {} != gradY.dim0 = {}; "
                "GBAG-IDX-1 requires the {} to end at gradY.dim0",
                G - 1, load_index(gi, G - 1), prev, rows, kind);
  }
  return ACLNN_SUCCESS;
}

aclnnStatus check_float_dtype(const char *op, const char *name, const aclTensor &t) {
  if (!is_float16_or_32(t.dtype))
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "{} has dtype {}; GBAG-DTYPE-1 requires FLOAT, FLOAT16 or BFLOAT16", name,
                dtype_name(t.dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus check_rank_is(const char *op, const char *name, const aclTensor &t, int r,
                          const char *why) {
  if (rank(t) != r)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "{} has rank {} (shape {}); GBAG-RANK-1 requires rank {} {}", name, rank(t),
                shape_str(t.view_dims), r, why);
  return ACLNN_SUCCESS;
}

aclnnStatus get_workspace_size(const char *op, const aclTensor *gradY, const aclTensor *groupIdx,
                               int64_t type, bool v2, aclTensor *out, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
  ACLNN_CHECK(check_phase_one_outputs(op, workspaceSize, executor));
  Soc soc;
  ACLNN_CHECK(check_soc(op, soc));
  if (soc != Soc::kAtlasA2 && soc != Soc::kAtlasA3)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "the op is not supported on {}; only Atlas A2 and A3 have it (ABI-SOC-1)",
                soc_name(soc));
  // GBAG-NULL-1 (groupIdxOptional may be NULL)
  ACLNN_CHECK(check_not_null(op, "gradY (GBAG-NULL-1)", gradY));
  ACLNN_CHECK(check_not_null(op, "out (GBAG-NULL-1)", out));
  // GBAG-DTYPE-1, in signature order
  ACLNN_CHECK(check_float_dtype(op, "gradY", *gradY));
  if (groupIdx != nullptr && groupIdx->dtype != ACL_INT32 && groupIdx->dtype != ACL_INT64)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "groupIdxOptional has dtype {}; GBAG-DTYPE-1 requires INT32 or INT64",
                dtype_name(groupIdx->dtype));
  if (out->dtype != gradY->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "out has dtype {} but gradY has {}; GBAG-DTYPE-1 requires out's dtype to equal "
                "gradY's",
                dtype_name(out->dtype), dtype_name(gradY->dtype));
  // GBAG-RANK-1
  if (groupIdx == nullptr) {
    ACLNN_CHECK(check_rank_is(op, "gradY", *gradY, 3, "without groupIdxOptional"));
  } else {
    ACLNN_CHECK(check_rank_is(op, "gradY", *gradY, 2, "with groupIdxOptional"));
    ACLNN_CHECK(check_rank_is(op, "groupIdxOptional", *groupIdx, 1, ""));
  }
  ACLNN_CHECK(check_rank_is(op, "out", *out, 2, ""));
  // GBAG-GMAX-1
  if (groupIdx != nullptr && groupIdx->view_dims[0] > kMaxGroups)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "groupIdxOptional has {} elements; GBAG-GMAX-1 allows at most {}",
                groupIdx->view_dims[0], kMaxGroups);
  // GBAG-SHAPE-1
  const int64_t G = groupIdx == nullptr ? gradY->view_dims[0] : groupIdx->view_dims[0];
  const int64_t H = gradY->view_dims.back();
  if (out->view_dims != std::vector<int64_t>{G, H})
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "out shape {} != [{},{}]; GBAG-SHAPE-1 requires [G, H] with G = {} and H = "
                "gradY's last dim",
                shape_str(out->view_dims), G, H,
                groupIdx == nullptr ? "gradY.dim0" : "len(groupIdxOptional)");
  // GBAG-TYPE-1 (V2 only; V1 is type 0)
  if (v2 && type != 0 && type != 1)
    return fail(ACLNN_ERR_PARAM_INVALID, op,
                "groupIdxType is {}; GBAG-TYPE-1 requires 0 (end offsets) or 1 (group sizes)",
                type);
  // GBAG-IDX-1 (project check, reading groupIdx on the host: its storage is checked first)
  std::vector<int64_t> start, count;
  const int64_t rows = gradY->view_dims[0];
  if (groupIdx != nullptr) {
    ACLNN_CHECK(check_data(op, "groupIdxOptional", *groupIdx));
    ACLNN_CHECK(read_groups(op, *groupIdx, type, rows, start, count));
  }
  // Project checks.
  ACLNN_CHECK(check_data(op, "gradY", *gradY));
  ACLNN_CHECK(check_data(op, "out", *out));
  ACLNN_CHECK(
      check_output(op, "out", *out, {{"gradY", gradY}, {"groupIdxOptional", groupIdx}}, false));

  if (G == 0 || H == 0)  // out is empty: nothing to write
    return publish_executor(
        op, 0, [](void *) {}, workspaceSize, executor);

  Plan p;
  p.dtype = gradY->dtype;
  const auto es = static_cast<int64_t>(dtype_size(gradY->dtype));
  p.gy = view_base(*gradY);
  p.H = H;
  p.out = view_base(*out);
  p.out_s0 = out->strides[0] * es;
  p.out_s1 = out->strides[1] * es;
  if (groupIdx == nullptr) {  // [G, C, H]: group g is gradY[g], rows 0..C-1
    p.group_stride = gradY->strides[0] * es;
    p.row_stride = gradY->strides[1] * es;
    p.h_stride = gradY->strides[2] * es;
    start.assign(G, 0);
    count.assign(G, gradY->view_dims[1]);
  } else {
    p.row_stride = gradY->strides[0] * es;
    p.h_stride = gradY->strides[1] * es;
  }
  // Block size: a function of H only (VAL-DET-1).
  const int64_t w = std::min(H, kChunkH);
  const int64_t block_rows = std::max<int64_t>(64, kBlockElements / w);
  for (int64_t g = 0; g < G; ++g) {
    const int64_t n = count[g];
    p.total_elements += n * H;
    if (n <= block_rows) {
      p.units.push_back({g, start[g], start[g] + n, -1});
      continue;
    }
    const int64_t nb = (n + block_rows - 1) / block_rows;
    p.multi.push_back({g, p.n_partials, nb});
    for (int64_t b = 0; b < nb; ++b) {
      const int64_t r0 = start[g] + b * block_rows;
      p.units.push_back({g, r0, std::min(r0 + block_rows, start[g] + n), p.n_partials++});
    }
  }
  const auto ws_bytes = static_cast<uint64_t>(p.n_partials * H) * sizeof(double);
  return publish_executor(
      op, ws_bytes, [p = std::move(p)](void *ws) { execute(p, ws); }, workspaceSize, executor);
}

}  // namespace

// Not inlined into add_rows: the chunk loop calls them as it did when they lived in another file.
HWY_NOINLINE void gbag::accumulate_f64(int kind, const void *src, double *acc, size_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateF64)(kind, src, acc, n);
}
HWY_NOINLINE void gbag::accumulate_rows_f64(int kind, const void *src, ptrdiff_t row_stride,
                                            size_t rows, double *acc, size_t n, RowRead read) {
  HWY_DYNAMIC_DISPATCH(AccumulateRowsF64)(kind, src, row_stride, rows, acc, n, read);
}

gbag::RowRead gbag::memory_row_read() {
  static const RowRead read = [] {
    const char *v = std::getenv("ACLNN_CPU_GBAG_STREAMS");
    if (v != nullptr && std::strcmp(v, "1") == 0) return kOneStream;
    if (v != nullptr && std::strcmp(v, "8") == 0) return kEightStreams;
    // Zen 5: (65536, 1024) FLOAT from memory, 1 thread, 11.1 -> 8.4 ms with one stream
    // (docs/kernels.md#groupedbiasaddgrad-measurements); on Zen 4's AVX-512 no faster.
    return simd::amd_family() >= 0x1a ? kOneStream : kEightStreams;
  }();
  return read;
}

}  // namespace aclnn_cpu

using namespace aclnn_cpu;

extern "C" aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(const aclTensor *gradY,
                                                               const aclTensor *groupIdxOptional,
                                                               aclTensor *out,
                                                               uint64_t *workspaceSize,
                                                               aclOpExecutor **executor) {
  return guard_abi(kOpV1, [&] {
    return get_workspace_size(kOpV1, gradY, groupIdxOptional, 0, false, out, workspaceSize,
                              executor);
  });
}

extern "C" aclnnStatus aclnnGroupedBiasAddGrad(void *workspace, uint64_t workspaceSize,
                                               aclOpExecutor *executor, aclrtStream stream) {
  (void)stream;
  return run_executor(kOpV1, workspace, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *groupIdxOptional, int64_t groupIdxType, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
  return guard_abi(kOpV2, [&] {
    return get_workspace_size(kOpV2, gradY, groupIdxOptional, groupIdxType, true, out,
                              workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnGroupedBiasAddGradV2(void *workspace, uint64_t workspaceSize,
                                                 aclOpExecutor *executor, aclrtStream stream) {
  (void)stream;
  return run_executor(kOpV2, workspace, workspaceSize, executor);
}
#endif  // HWY_ONCE
