// Throughput of the elementwise oracles (GeluBackward, SeluBackward, LogitGrad): correctly
// rounded elements per second on one core, through the tensor-level values API, per output dtype,
// on random inputs and on inputs at the hard points (GELU's root, SELU's y ~ -lambda*alpha,
// LogitGrad's x near 0 and 1). The counter `fallback` is the fraction of elements that needed
// the MPFR (or exact-quotient) pass.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "reference/dtype.hpp"
#include "reference/gelu_backward.hpp"
#include "reference/host_tensor.hpp"
#include "reference/logit_grad.hpp"
#include "reference/rounding.hpp"
#include "reference/selu_backward.hpp"

namespace {
using aclnn_ref::DType;
using aclnn_ref::HostTensor;

constexpr int64_t kN = 4096;

HostTensor make(DType t, const std::vector<double> &v) {
  HostTensor h(t, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    h.set_bits(static_cast<int64_t>(i), aclnn_ref::bits_from_double(v[i], t));
  return h;
}

// Consecutive values of dtype t starting at the element nearest to `from`, increasing (for a
// negative start: decreasing magnitude, stopping at zero and then repeating).
std::vector<double> consecutive(DType t, double from, int64_t n) {
  std::vector<double> v;
  uint64_t b = aclnn_ref::bits_from_double(from, t);
  const uint64_t magnitude = (uint64_t{1} << (aclnn_ref::dtype_size(t) * 8 - 1)) - 1;
  for (int64_t i = 0; i < n; ++i) {
    v.push_back(aclnn_ref::decode(&b, t));
    if (from < 0) {
      if ((b & magnitude) == 0) break;
      --b;
    } else {
      ++b;
    }
  }
  for (size_t i = 0; static_cast<int64_t>(v.size()) < n; ++i) v.push_back(v[i]);
  return v;
}

std::vector<double> uniform(double lo, double hi, int64_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto &x : v) x = u(rng);
  return v;
}

DType dtype_arg(int64_t i) {
  return i == 0   ? DType::kFloat32
         : i == 1 ? DType::kFloat16
         : i == 2 ? DType::kBFloat16
         : i == 3 ? DType::kInt8
                  : DType::kInt32;
}

template <typename F>
void run(benchmark::State &state, F &&once, uint64_t (*fallbacks)()) {
  const uint64_t f0 = fallbacks();
  int64_t it = 0;
  for (auto _ : state) {
    once();
    ++it;
  }
  state.SetItemsProcessed(it * kN);
  state.counters["fallback"] =
      static_cast<double>(fallbacks() - f0) / static_cast<double>(std::max<int64_t>(1, it * kN));
}

// state.range(0): output dtype (0 fp32, 1 fp16, 2 bf16); range(1): 0 random, 1 hard.
void BM_GeluBackward(benchmark::State &state) {
  const DType t = dtype_arg(state.range(0));
  const bool hard = state.range(1) != 0;
  const HostTensor dy = make(t, uniform(-2, 2, kN, 1));
  const HostTensor x =
      make(t, hard ? consecutive(t, -0.7517915 - (t == DType::kFloat32 ? 1e-4 : 0.05), kN)
                   : uniform(-8, 8, kN, 2));
  HostTensor out(t, {kN});
  const auto dv = dy.view(), xv = x.view(), ov = out.view();
  run(
      state,
      [&] {
        benchmark::DoNotOptimize(aclnn_ref::gelu_backward_values({&dv, &xv, &ov}));
      },
      aclnn_ref::gelu_detail::mpfr_fallbacks);
}

void BM_SeluBackward(benchmark::State &state) {
  const DType t = dtype_arg(state.range(0));
  const bool hard = state.range(1) != 0;
  const bool integer = t == DType::kInt8 || t == DType::kInt32;
  const HostTensor dy = make(t, integer ? uniform(-100, 100, kN, 3) : uniform(-2, 2, kN, 3));
  std::vector<double> yv;
  if (hard)
    yv = integer ? uniform(-2, 0, kN, 4)
                 : consecutive(t, -1.7580993 - (t == DType::kFloat32 ? 1e-4 : 0.05), kN);
  else
    yv = integer ? uniform(-2, 100, kN, 4) : uniform(-1.75, 3, kN, 4);
  if (integer)
    for (auto &v : yv) v = std::nearbyint(v);
  const HostTensor y = make(t, yv);
  HostTensor out(t, {kN});
  const auto dv = dy.view(), yv2 = y.view(), ov = out.view();
  run(
      state,
      [&] {
        benchmark::DoNotOptimize(aclnn_ref::selu_backward_values({&dv, &yv2, &ov}));
      },
      aclnn_ref::selu_detail::mpfr_fallbacks);
}

void BM_LogitGrad(benchmark::State &state) {
  const DType t = dtype_arg(state.range(0));
  const bool hard = state.range(1) != 0;
  const HostTensor dy = make(t, uniform(-2, 2, kN, 5));
  std::vector<double> xv;
  if (hard) {  // x near 0 (tiny, down to subnormals) and near 1 (1 - 2^-k)
    std::mt19937_64 rng(6);
    for (int64_t i = 0; i < kN; ++i) {
      const int k = static_cast<int>(rng() % 140) + 1;
      const double m = 1.0 + static_cast<double>(rng() % 1000) / 1000.0;
      xv.push_back(i % 2 ? std::ldexp(m, -k) : 1.0 - std::ldexp(m, -(k % 24) - 1));
    }
  } else {
    xv = uniform(0, 1, kN, 6);
  }
  const HostTensor x = make(t, xv);
  HostTensor out(t, {kN});
  const auto dv = dy.view(), xv2 = x.view(), ov = out.view();
  run(
      state,
      [&] {
        benchmark::DoNotOptimize(aclnn_ref::logit_grad_values({&xv2, &dv, -1.0, &ov}));
      },
      aclnn_ref::logit_detail::mpfr_fallbacks);
}

}  // namespace

BENCHMARK(BM_GeluBackward)->ArgsProduct({{0, 1, 2}, {0, 1}})->ArgNames({"dtype", "hard"});
BENCHMARK(BM_SeluBackward)->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}})->ArgNames({"dtype", "hard"});
BENCHMARK(BM_LogitGrad)->ArgsProduct({{0, 1, 2}, {0, 1}})->ArgNames({"dtype", "hard"});
