// Throughput of aclnnGeluBackward and aclnnSeluBackward through the public ABI (libaclnn_cpu.so):
// 1M elements, fp32/fp16/bf16 contiguous and one strided case, 1 thread and all threads
// (ACLNN_CPU_NUM_THREADS). Figures: docs/performance-gelu-selu.md.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_selu_backward.h"

namespace {

constexpr int64_t kN = 1 << 20;

uint16_t to16(float f, aclDataType dt) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (dt == ACL_BF16) return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
  // float -> half (values here are normal and small): truncating is fine for benchmark data
  const uint32_t sign = (u >> 16) & 0x8000, exp = (u >> 23) & 0xff, mant = u & 0x7fffff;
  if (exp < 113) return static_cast<uint16_t>(sign);
  return static_cast<uint16_t>(sign | ((exp - 112) << 10) | (mant >> 13));
}

struct Data {
  std::vector<uint8_t> a, b, out;
  aclTensor *ta = nullptr, *tb = nullptr, *tout = nullptr;
  Data(aclDataType dt, int64_t stride, bool selu) {
    const size_t es = dt == ACL_FLOAT ? 4 : 2;
    const int64_t storage = kN * stride;
    a.resize(storage * es);
    b.resize(storage * es);
    out.resize(storage * es);
    std::mt19937 rng(1);
    std::normal_distribution<float> nd(0.0f, 2.0f);
    for (int64_t i = 0; i < storage; ++i) {
      const float x = nd(rng), y = selu && x < 0 ? 1.758f * (std::exp(x) - 1) : x, d = nd(rng);
      if (es == 4) {
        std::memcpy(&a[i * 4], &d, 4);
        std::memcpy(&b[i * 4], &y, 4);
      } else {
        const uint16_t d16 = to16(d, dt), y16 = to16(y, dt);
        std::memcpy(&a[i * 2], &d16, 2);
        std::memcpy(&b[i * 2], &y16, 2);
      }
    }
    const int64_t dims[] = {kN}, strides[] = {stride}, sdims[] = {storage};
    ta = aclCreateTensor(dims, 1, dt, strides, 0, ACL_FORMAT_ND, sdims, 1, a.data());
    tb = aclCreateTensor(dims, 1, dt, strides, 0, ACL_FORMAT_ND, sdims, 1, b.data());
    tout = aclCreateTensor(dims, 1, dt, strides, 0, ACL_FORMAT_ND, sdims, 1, out.data());
  }
  ~Data() {
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(tout);
  }
};

void set_threads(int t) {
  const int n = t > 0 ? t : static_cast<int>(std::thread::hardware_concurrency());
  setenv("ACLNN_CPU_NUM_THREADS", std::to_string(n).c_str(), 1);
}

// Args: dtype, inner stride (elements), threads (0 = all).
template <bool kSelu>
void BM_Op(benchmark::State &state) {
  const auto dt = static_cast<aclDataType>(state.range(0));
  Data d(dt, state.range(1), kSelu);
  set_threads(static_cast<int>(state.range(2)));
  for (auto _ : state) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    aclnnStatus st;
    if constexpr (kSelu) {
      st = aclnnSeluBackwardGetWorkspaceSize(d.ta, d.tb, d.tout, &ws, &ex);
      if (st == ACLNN_SUCCESS) st = aclnnSeluBackward(nullptr, ws, ex, nullptr);
    } else {
      st = aclnnGeluBackwardGetWorkspaceSize(d.ta, d.tb, d.tout, &ws, &ex);
      if (st == ACLNN_SUCCESS) st = aclnnGeluBackward(nullptr, ws, ex, nullptr);
    }
    if (st != ACLNN_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
    benchmark::DoNotOptimize(d.out.data());
  }
  state.SetItemsProcessed(state.iterations() * kN);
  unsetenv("ACLNN_CPU_NUM_THREADS");
}

void Args(benchmark::internal::Benchmark *b) {
  b->ArgNames({"dtype", "stride", "threads"});
  for (int threads : {1, 0}) {
    for (int dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) b->Args({dt, 1, threads});
    b->Args({ACL_FLOAT, 3, threads});  // strided views
  }
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(BM_Op<false>)->Name("GeluBackward")->Apply(Args);
BENCHMARK(BM_Op<true>)->Name("SeluBackward")->Apply(Args);
