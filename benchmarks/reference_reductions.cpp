// Throughput of the reduction oracles (exact sums, one rounding): LayerNormBackward and
// GroupedBiasAddGrad. Figures: docs/oracle-reductions.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "reference/grouped_bias_add_grad.hpp"
#include "reference/layer_norm_backward.hpp"
#include "reference/rounding.hpp"

namespace {
using namespace aclnn_ref;

HostTensor random_tensor(DType t, std::vector<int64_t> shape, std::mt19937_64 &rng, double lo,
                         double hi) {
  HostTensor h(t, std::move(shape));
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < h.numel(); ++i) h.set_bits(i, bits_from_double(u(rng), t));
  return h;
}

// LayerNormBackward, rows x cols, all three outputs, weight present.
void BM_LayerNormBackward(benchmark::State &state, DType t) {
  const int64_t m = state.range(0), n = state.range(1);
  std::mt19937_64 rng(1);
  const HostTensor dy = random_tensor(t, {m, n}, rng, -1, 1),
                   x = random_tensor(t, {m, n}, rng, -3, 3),
                   mean = random_tensor(DType::kFloat32, {m, 1}, rng, -0.1, 0.1),
                   rstd = random_tensor(DType::kFloat32, {m, 1}, rng, 0.5, 2),
                   w = random_tensor(t, {n}, rng, -2, 2), gi(t, {m, n}), gw(DType::kFloat32, {n}),
                   gb(DType::kFloat32, {n});
  const TensorView dyv = dy.view(), xv = x.view(), mv = mean.view(), rv = rstd.view(),
                   wv = w.view(), giv = gi.view(), gwv = gw.view(), gbv = gb.view();
  const std::vector<int64_t> ns{n};
  const std::vector<bool> mask{true, true, true};
  const LayerNormBackwardCall call{&dyv, &xv, &ns, &mv, &rv, &wv, nullptr, &mask, &giv, &gwv, &gbv};
  for (auto _ : state) benchmark::DoNotOptimize(layer_norm_backward_values(call));
  state.SetItemsProcessed(state.iterations() * m * n);
}
BENCHMARK_CAPTURE(BM_LayerNormBackward, fp32, DType::kFloat32)
    ->Args({256, 256})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LayerNormBackward, fp16, DType::kFloat16)
    ->Args({256, 256})
    ->Unit(benchmark::kMillisecond);

// GroupedBiasAddGrad, rows x h with `groups` equal groups.
void BM_GroupedBiasAddGrad(benchmark::State &state, DType t) {
  const int64_t rows = state.range(0), h = state.range(1), groups = state.range(2);
  std::mt19937_64 rng(2);
  const HostTensor y = random_tensor(t, {rows, h}, rng, -1, 1), out(t, {groups, h});
  HostTensor idx(DType::kInt64, {groups});
  for (int64_t g = 0; g < groups; ++g)
    idx.set_bits(g, static_cast<uint64_t>((g + 1) * rows / groups));
  const TensorView yv = y.view(), iv = idx.view(), ov = out.view();
  const GroupedBiasAddGradCall call{&yv, &iv, &ov};
  for (auto _ : state) benchmark::DoNotOptimize(grouped_bias_add_grad_values(call));
  state.SetItemsProcessed(state.iterations() * rows * h);
}
BENCHMARK_CAPTURE(BM_GroupedBiasAddGrad, fp32, DType::kFloat32)
    ->Args({4096, 256, 16})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GroupedBiasAddGrad, bf16, DType::kBFloat16)
    ->Args({4096, 256, 16})
    ->Unit(benchmark::kMillisecond);

}  // namespace
