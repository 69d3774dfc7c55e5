// aclnnLayerNormBackward through the public ABI: both phases per iteration, all outputs requested
// unless the name says otherwise. Threads: ACLNN_CPU_NUM_THREADS = 1 or all (the last argument,
// 0 = all cores). Reported: elements/s (elements of input) and bytes/s (bytes read and written:
// input, gradOut, gradInput, plus the small per-row and per-column tensors).
// CPU time is the whole process's (all worker threads). Figures: docs/performance-layer-norm.md.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"

namespace {

struct Tensor {
  std::vector<unsigned char> mem;
  aclTensor *t = nullptr;
  unsigned char *data = nullptr;
  // page_shift >= 0: the data start that many bytes past a 4 KB boundary (else where the
  // allocator puts it).
  Tensor(std::vector<int64_t> dims, aclDataType dt, size_t esize, uint64_t seed,
         int64_t page_shift = -1) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
    mem.resize(static_cast<size_t>(n) * esize + (page_shift >= 0 ? 8192 : 0));
    data = mem.data();
    if (page_shift >= 0)
      data += (4096 - reinterpret_cast<uintptr_t>(data) % 4096) % 4096 + page_shift;
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
      const float v = u(rng);
      if (esize == 4) {
        std::memcpy(&data[i * 4], &v, 4);
      } else if (dt == ACL_BF16) {  // the value's top half
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        const auto h = static_cast<uint16_t>(bits >> 16);
        std::memcpy(&data[i * 2], &h, 2);
      } else {  // fp16 bit pattern of a value in [-1, 1): sign, exponent 13..14, random mantissa
        const uint16_t h = static_cast<uint16_t>((v < 0 ? 0x8000 : 0) | (0x3400 + (rng() & 0x7ff)));
        std::memcpy(&data[i * 2], &h, 2);
      }
    }
    const int64_t sd[] = {n};
    t = aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), 0, ACL_FORMAT_ND, sd, 1,
                        data);
  }
  ~Tensor() { aclDestroyTensor(t); }
};

void set_threads(int64_t threads) {
  if (threads == 0)
    unsetenv("ACLNN_CPU_NUM_THREADS");
  else
    setenv("ACLNN_CPU_NUM_THREADS", std::to_string(threads).c_str(), 1);
}

// One timed loop of both phases; dtype 0 FLOAT, 1 FLOAT16, 2 BFLOAT16; mask bits (1 gi, 2 gw,
// 4 gb); threads (0 = all); gi_shift >= 0: x and dy start at a 4 KB boundary and gradInput that
// many bytes past one (else the allocator decides).
void run_layer_norm(benchmark::State &state, int64_t m, int64_t n, int64_t dtype, int64_t bits,
                    int64_t threads, int64_t gi_shift) {
  const aclDataType dt = dtype == 2 ? ACL_BF16 : dtype == 1 ? ACL_FLOAT16 : ACL_FLOAT;
  const size_t es = dtype != 0 ? 2 : 4;
  set_threads(threads);
  const int64_t in_shift = gi_shift >= 0 ? 0 : -1;
  Tensor dy({m, n}, dt, es, 1, in_shift), x({m, n}, dt, es, 2, in_shift);
  Tensor gi({m, n}, dt, es, 3, gi_shift);
  Tensor mean({m, 1}, ACL_FLOAT, 4, 4), rstd({m, 1}, ACL_FLOAT, 4, 5);
  Tensor w({n}, ACL_FLOAT, 4, 6), gw({n}, ACL_FLOAT, 4, 7), gb({n}, ACL_FLOAT, 4, 8);
  const int64_t ns[] = {n};
  aclIntArray *nsa = aclCreateIntArray(ns, 1);
  const bool mask[] = {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
  aclBoolArray *ma = aclCreateBoolArray(mask, 3);
  std::vector<unsigned char> ws;
  for (auto _ : state) {
    uint64_t size = 0;
    aclOpExecutor *ex = nullptr;
    if (aclnnLayerNormBackwardGetWorkspaceSize(dy.t, x.t, nsa, mean.t, rstd.t, w.t, nullptr, ma,
                                               gi.t, gw.t, gb.t, &size, &ex) != ACLNN_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
    if (ws.size() < size) ws.resize(size);
    if (aclnnLayerNormBackward(ws.data(), size, ex, nullptr) != ACLNN_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
    benchmark::DoNotOptimize(gi.data);
    benchmark::ClobberMemory();
  }
  const int64_t elems = m * n;
  const int64_t bytes = elems * static_cast<int64_t>(es) * ((bits & 1) ? 3 : 2) + m * 8 + n * 12;
  state.SetItemsProcessed(state.iterations() * elems);
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["threads"] =
      static_cast<double>(threads ? threads : std::thread::hardware_concurrency());
  aclDestroyIntArray(nsa);
  aclDestroyBoolArray(ma);
  unsetenv("ACLNN_CPU_NUM_THREADS");
}

// args: M, N, dtype (0 FLOAT, 1 FLOAT16), mask bits (1 gi, 2 gw, 4 gb), threads (0 = all).
void BM_LayerNormBackward(benchmark::State &state) {
  run_layer_norm(state, state.range(0), state.range(1), state.range(2), state.range(3),
                 state.range(4), -1);
}

// The same call with gradInput at a chosen distance from x and dy modulo 4 KB (in L2, all
// outputs, 1 thread): 0, where a FLOAT row of 1024 of gradInput lies a multiple of 4 KB from the
// next row of x and dy, and 2048, where no row does. A kernel whose loads wait on stores to an
// address with the same low 12 bits ("4K aliasing") is slower at one of them; the row kernels load
// each row before storing the previous one at the same offset (FLOAT rows and kept 16-bit rows,
// docs/kernels.md#layernormbackward).
void BM_LayerNormBackwardLayout(benchmark::State &state) {
  run_layer_norm(state, state.range(0), state.range(1), state.range(2), 7, 1, state.range(3));
}

BENCHMARK(BM_LayerNormBackward)
    ->ArgNames({"M", "N", "fp16", "mask", "thr"})
    // (4096, 1024) fp32 and fp16, all outputs, 1 thread and all threads
    ->Args({4096, 1024, 0, 7, 1})
    ->Args({4096, 1024, 0, 7, 0})
    ->Args({4096, 1024, 1, 7, 1})
    ->Args({4096, 1024, 1, 7, 0})
    // gradInput only (no workspace, no column sums)
    ->Args({4096, 1024, 0, 1, 1})
    ->Args({4096, 1024, 0, 1, 0})
    // in cache (x, dy and gradInput 256 KiB each in fp32): the kernel's own cost, not memory's
    ->Args({64, 1024, 0, 7, 1})
    ->Args({64, 1024, 1, 7, 1})
    ->Args({64, 1024, 0, 1, 1})
    // few long rows
    ->Args({64, 65536, 0, 7, 1})
    ->Args({64, 65536, 0, 7, 0})
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_LayerNormBackwardLayout)
    ->ArgNames({"M", "N", "dtype", "gi_shift"})
    ->ArgsProduct({{64}, {1024}, {0, 1, 2}, {0, 2048}})
    ->Repetitions(5)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
