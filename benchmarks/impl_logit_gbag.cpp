// Throughput of aclnnLogitGrad and aclnnGroupedBiasAddGrad through the public ABI only.
// Arg 0 of every benchmark is the thread count (ACLNN_CPU_NUM_THREADS; 0 = all cores).
// Figures: docs/performance-logit-gbag.md.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_logit_grad.h"

namespace {

void set_threads(int64_t n) {
  if (n <= 0)
    unsetenv("ACLNN_CPU_NUM_THREADS");
  else
    setenv("ACLNN_CPU_NUM_THREADS", std::to_string(n).c_str(), 1);
}

struct Buffer {
  void *p = nullptr;
  explicit Buffer(size_t bytes) { aclrtMalloc(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST); }
  ~Buffer() { aclrtFree(p); }
};

aclTensor *tensor(const std::vector<int64_t> &dims, aclDataType dt, void *data) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  return aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), 0, ACL_FORMAT_ND,
                         dims.data(), dims.size(), data);
}

// Fills n elements of dtype dt with values in (0, 1) (bit patterns built by hand).
void fill_unit(void *p, int64_t n, aclDataType dt) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = 0.001f + 0.998f * static_cast<float>((i * 7919) % 100003) / 100003.0f;
    uint32_t b;
    __builtin_memcpy(&b, &v, 4);
    if (dt == ACL_FLOAT) {
      static_cast<float *>(p)[i] = v;
    } else if (dt == ACL_BF16) {
      static_cast<uint16_t *>(p)[i] = static_cast<uint16_t>(b >> 16);
    } else {  // fp16 of a value in (0, 1): exponent rebias, mantissa truncated
      const int e = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
      static_cast<uint16_t *>(p)[i] =
          e <= 0 ? 0 : static_cast<uint16_t>((e << 10) | ((b >> 13) & 0x3ff));
    }
  }
}

void BM_LogitGrad(benchmark::State &state, aclDataType dt) {
  set_threads(state.range(0));
  const int64_t n = int64_t{1} << 20;
  const size_t es = dt == ACL_FLOAT ? 4 : 2;
  Buffer x(n * es), dy(n * es), out(n * es);
  fill_unit(x.p, n, dt);
  fill_unit(dy.p, n, dt);
  aclTensor *tx = tensor({n}, dt, x.p), *tdy = tensor({n}, dt, dy.p), *to = tensor({n}, dt, out.p);
  for (auto _ : state) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    if (aclnnLogitGradGetWorkspaceSize(tx, tdy, 0.01, to, &ws, &ex) != ACLNN_SUCCESS ||
        aclnnLogitGrad(nullptr, ws, ex, nullptr) != ACLNN_SUCCESS) {
      state.SkipWithError("aclnnLogitGrad failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * 3 * static_cast<int64_t>(es));
  aclDestroyTensor(tx);
  aclDestroyTensor(tdy);
  aclDestroyTensor(to);
  unsetenv("ACLNN_CPU_NUM_THREADS");
}

// gradY (rows, H) with `groups` equal groups (groupIdx end offsets), or (groups, rows/groups, H).
void BM_Gbag(benchmark::State &state, aclDataType dt, bool three_d) {
  set_threads(state.range(0));
  const int64_t rows = state.range(1), H = state.range(2), G = state.range(3);
  const size_t es = dt == ACL_FLOAT ? 4 : 2;
  Buffer gy(rows * H * es), out(G * H * es), gi(G * 8);
  fill_unit(gy.p, rows * H, dt);
  for (int64_t g = 0; g < G; ++g) static_cast<int64_t *>(gi.p)[g] = rows * (g + 1) / G;
  aclTensor *tgy = three_d ? tensor({G, rows / G, H}, dt, gy.p) : tensor({rows, H}, dt, gy.p);
  aclTensor *tgi = three_d ? nullptr : tensor({G}, ACL_INT64, gi.p);
  aclTensor *to = tensor({G, H}, dt, out.p);
  uint64_t ws_bytes = 0;
  for (auto _ : state) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    if (aclnnGroupedBiasAddGradGetWorkspaceSize(tgy, tgi, to, &ws, &ex) != ACLNN_SUCCESS) {
      state.SkipWithError("phase one failed");
      break;
    }
    Buffer w(ws);
    ws_bytes = ws;
    if (aclnnGroupedBiasAddGrad(w.p, ws, ex, nullptr) != ACLNN_SUCCESS) {
      state.SkipWithError("phase two failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * rows * H);
  state.SetBytesProcessed(state.iterations() * rows * H * static_cast<int64_t>(es));
  state.counters["workspace_bytes"] = static_cast<double>(ws_bytes);
  aclDestroyTensor(tgy);
  if (tgi) aclDestroyTensor(tgi);
  aclDestroyTensor(to);
  unsetenv("ACLNN_CPU_NUM_THREADS");
}

BENCHMARK_CAPTURE(BM_LogitGrad, fp32, ACL_FLOAT)->Arg(1)->Arg(0)->UseRealTime();
BENCHMARK_CAPTURE(BM_LogitGrad, fp16, ACL_FLOAT16)->Arg(1)->Arg(0)->UseRealTime();
BENCHMARK_CAPTURE(BM_LogitGrad, bf16, ACL_BF16)->Arg(1)->Arg(0)->UseRealTime();
BENCHMARK_CAPTURE(BM_Gbag, fp32_groupIdx, ACL_FLOAT, false)
    ->Args({1, 65536, 1024, 64})
    ->Args({0, 65536, 1024, 64})
    ->Args({1, 1 << 20, 16, 4})
    ->Args({0, 1 << 20, 16, 4})
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Gbag, bf16_groupIdx, ACL_BF16, false)
    ->Args({1, 65536, 1024, 64})
    ->Args({0, 65536, 1024, 64})
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Gbag, fp16_groupIdx, ACL_FLOAT16, false)
    ->Args({1, 65536, 1024, 64})
    ->Args({0, 65536, 1024, 64})
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Gbag, fp32_3d, ACL_FLOAT, true)
    ->Args({1, 65536, 1024, 64})
    ->Args({0, 65536, 1024, 64})
    ->UseRealTime();

}  // namespace
