// Issue 14's measurement, through the public ABI: each op at 16 M elements (elementwise 16 M,
// LayerNorm (16384, 1024), GroupedBiasAddGrad (65536, 1024) with 64 groups), fp32/bf16/fp16,
// 1 and 2 threads, plus 1 M elements, a strided and a broadcast case and a one-element call; and
// the memory floor in the same run (STREAM-style triad and read over the same bytes, 1 and 2
// threads). Each large case times single calls (both phases, preallocated outputs) repeated 7
// times; benchmarks/perf_report.py takes the medians and writes docs/performance.md.
//
// ACLNN_BENCH_SCRUB_BYTES=n (perf_report.py sets twice the last-level cache): before each timed
// call of a case or floor whose data exceed kColdBytes, n bytes of another buffer are read
// (untimed), so the call starts with its data in memory rather than in the cache. Without it, a
// VM with a 260 MiB L3 kept a 16-bit case's 96 MB between calls whenever its neighbours were
// quiet, and the 16-bit floor moved between 4.8 and 7.3 ms from run to run.
//
// ACLNN_BENCH_ROTATE_BYTES=n (perf_report.py's default, sustained mode; instead of the scrub): such
// a case or floor is built 1 + ceil(n / its bytes) times, and the timed calls take the copies in
// turn, back to back, so each call finds its data in memory and pays, as a caller's next op would,
// for writing back the dirty lines the previous call left in the cache. The scrub lets those
// write-backs happen untimed: up to a last-level cache of a plain-stored output per call is
// written for free, in principle a gift to code that leaves its output in the cache (PyTorch, the
// plain triad) over code that streams it (on a Zen 5 VM the two modes differed within the spread).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "clock_probe.hpp"
#include "memory_floor.hpp"

namespace {

constexpr int64_t k16M = int64_t{1} << 24;
constexpr int64_t k1M = int64_t{1} << 20;

void set_threads(int64_t n) {
  setenv("ACLNN_CPU_NUM_THREADS", std::to_string(n).c_str(), 1);
}

// f(begin, end) over [0, n) split evenly over `threads` threads.
template <typename F>
void in_threads(int threads, size_t n, F f) {
  if (threads == 1) return f(size_t{0}, n);
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) ts.emplace_back(f, n * t / threads, n * (t + 1) / threads);
  for (auto &t : ts) t.join();
}

// Cases and floors above this many bytes run cold (the 16 M-element ones; the 1 M-element ones
// and the one-element call keep their data cached, as a caller's next op would).
constexpr size_t kColdBytes = size_t{32} << 20;

// Reads ACLNN_BENCH_SCRUB_BYTES bytes of a buffer written once (clean lines, which leave the
// cache without a write-back during the next timed call), split over `threads` threads as the
// floors split their work. Read by the calling thread alone, the other vCPU idled through it and
// the cold 2-thread fp32 triad that followed ran no faster than 1 thread (13.8 against 8.1 ms
// warm); read by the calling thread and one more, the 16-bit one still took 5.9-6.2 ms against
// 7.0 with 1 thread; read by two fresh threads (in_threads), 3.74-3.80 ms.
// A byte count from the environment, 0 where unset.
size_t env_bytes(const char *name) {
  const char *v = std::getenv(name);
  return v ? static_cast<size_t>(std::strtoull(v, nullptr, 10)) : size_t{0};
}
void scrub_cache(int threads) {
  static const size_t bytes = env_bytes("ACLNN_BENCH_SCRUB_BYTES");
  if (bytes == 0) return;
  static const std::vector<uint64_t> buf(bytes / 8, 1);
  in_threads(threads, buf.size(), [](size_t b, size_t e) {
    uint64_t sum = 0;
    for (size_t i = b; i < e; ++i) sum += buf[i];
    benchmark::DoNotOptimize(sum);
  });
}
size_t rotate_bytes() {
  static const size_t bytes = env_bytes("ACLNN_BENCH_ROTATE_BYTES");
  return bytes;
}
// How many copies of data of `bytes` the sustained mode rotates through: enough that the others
// hold ACLNN_BENCH_ROTATE_BYTES; 1 (no rotation) for cached cases or without the variable.
size_t copies_for(size_t bytes) {
  if (bytes <= kColdBytes || rotate_bytes() == 0 || bytes == 0) return 1;
  return 1 + (rotate_bytes() + bytes - 1) / bytes;
}
// scrub_cache() with the timers stopped, for data of `bytes` above kColdBytes (not in the
// sustained mode, where rotation keeps the data cold).
void start_cold(benchmark::State &state, size_t bytes, int threads) {
  if (bytes <= kColdBytes || rotate_bytes() != 0) return;
  state.PauseTiming();
  scrub_cache(threads);
  state.ResumeTiming();
}

size_t esize(aclDataType dt) {
  return dt == ACL_FLOAT ? 4 : dt == ACL_INT64 ? 8 : 2;
}

// Benchmark data only: float -> bf16 (nearest even) and -> fp16 (normal range, truncated).
uint16_t to16(float f, aclDataType dt) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (dt == ACL_BF16) return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
  const uint32_t sign = (u >> 16) & 0x8000, exp = (u >> 23) & 0xff, mant = u & 0x7fffff;
  if (exp < 113) return static_cast<uint16_t>(sign);
  if (exp > 142) return static_cast<uint16_t>(sign | 0x7bff);
  return static_cast<uint16_t>(sign | ((exp - 112) << 10) | (mant >> 13));
}

// A zero-initialised (pre-faulted) buffer of n elements of dt, filled by gen(i) when given; 64-byte
// aligned like the buffers the library meets in use (aclrtMalloc's, PyTorch's allocator's), not
// like a std::vector's large allocation (16 bytes past a page boundary).
struct Buf {
  struct Free {
    void operator()(unsigned char *p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char[], Free> mem;
  size_t bytes;
  aclDataType dt;
  Buf(int64_t n, aclDataType t, const std::function<float(int64_t)> &gen = {})
      : bytes(static_cast<size_t>(n) * esize(t)), dt(t) {
    mem.reset(static_cast<unsigned char *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
    if (!mem) throw std::bad_alloc();
    std::memset(mem.get(), 0, bytes);
    if (!gen) return;
    for (int64_t i = 0; i < n; ++i) {
      const float v = gen(i);
      if (t == ACL_FLOAT) {
        std::memcpy(&mem[i * 4], &v, 4);
      } else {
        const uint16_t h = to16(v, t);
        std::memcpy(&mem[i * 2], &h, 2);
      }
    }
  }
  aclTensor *view(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
    const int64_t sd[] = {static_cast<int64_t>(bytes / esize(dt))};
    return aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), 0, ACL_FORMAT_ND, sd, 1,
                           mem.get());
  }
  aclTensor *dense(const std::vector<int64_t> &dims) {
    std::vector<int64_t> st(dims.size(), 1);
    for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * dims[i + 1];
    return view(dims, st);
  }
};

// Cheap deterministic pseudo-random numbers in [0, 1).
float unit(int64_t i) {
  uint64_t z = static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
  z ^= z >> 29;
  return static_cast<float>(z >> 40) * 0x1p-24f;
}
float normalish(int64_t i) {
  return 4.0f * (unit(i) + unit(i + 7777777) - 1.0f);
}  // in (-4, 4)

// One prepared case: call() runs both phases once.
struct Case {
  std::vector<std::unique_ptr<Buf>> bufs;
  std::vector<aclTensor *> tensors;
  aclIntArray *ints = nullptr;
  aclBoolArray *bools = nullptr;
  std::vector<unsigned char> workspace;
  std::function<aclnnStatus(Case &)> call;
  Buf &add(std::unique_ptr<Buf> b) {
    bufs.push_back(std::move(b));
    return *bufs.back();
  }
  aclTensor *keep(aclTensor *t) {
    tensors.push_back(t);
    return t;
  }
  size_t bytes() const {
    size_t b = 0;
    for (const auto &buf : bufs) b += buf->bytes;
    return b;
  }
  ~Case() {
    for (auto *t : tensors) aclDestroyTensor(t);
    if (ints) aclDestroyIntArray(ints);
    if (bools) aclDestroyBoolArray(bools);
  }
};

template <typename GetWs, typename Run>
aclnnStatus two_phase(Case &c, GetWs get_ws, Run run) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st = get_ws(&ws, &ex);
  if (st != ACLNN_SUCCESS) return st;
  if (c.workspace.size() < ws) c.workspace.resize(ws);
  return run(c.workspace.data(), ws, ex);
}

enum Layout { kDense = 0, kStrided = 1, kBroadcast = 2 };

std::unique_ptr<Case> make_elementwise(const std::string &op, aclDataType dt, int64_t n,
                                       Layout layout) {
  auto c = std::make_unique<Case>();
  const int64_t stride = layout == kStrided ? 3 : 1;
  const int64_t storage = n * stride;
  const bool logit = op == "LogitGrad", selu = op == "SeluBackward";
  auto gen_x = [&](int64_t i) {
    if (logit) return 0.001f + 0.998f * unit(i);
    const float x = normalish(i);
    return selu && x < 0 ? 1.7581f * (std::exp(x) - 1.0f) : x;
  };
  Buf &dy = c->add(std::make_unique<Buf>(storage, dt, [](int64_t i) { return normalish(i + 99); }));
  Buf &out = c->add(std::make_unique<Buf>(storage, dt));
  aclTensor *tdy, *tx, *tout;
  if (layout == kBroadcast) {  // GeluBackward only: self (1024) broadcast over gradOutput rows
    Buf &x = c->add(std::make_unique<Buf>(1024, dt, gen_x));
    tdy = c->keep(dy.dense({n / 1024, 1024}));
    tx = c->keep(x.dense({1024}));
    tout = c->keep(out.dense({n / 1024, 1024}));
  } else {
    Buf &x = c->add(std::make_unique<Buf>(storage, dt, gen_x));
    tdy = c->keep(dy.view({n}, {stride}));
    tx = c->keep(x.view({n}, {stride}));
    tout = c->keep(out.view({n}, {stride}));
  }
  if (op == "GeluBackward")
    c->call = [=](Case &k) {
      return two_phase(
          k,
          [&](uint64_t *w, aclOpExecutor **e) {
            return aclnnGeluBackwardGetWorkspaceSize(tdy, tx, tout, w, e);
          },
          [&](void *p, uint64_t w, aclOpExecutor *e) {
            return aclnnGeluBackward(p, w, e, nullptr);
          });
    };
  else if (selu)
    c->call = [=](Case &k) {
      return two_phase(
          k,
          [&](uint64_t *w, aclOpExecutor **e) {
            return aclnnSeluBackwardGetWorkspaceSize(tdy, tx, tout, w, e);
          },
          [&](void *p, uint64_t w, aclOpExecutor *e) {
            return aclnnSeluBackward(p, w, e, nullptr);
          });
    };
  else  // eps < 0: x in [0, 1] uses the formula, as PyTorch's logit_backward without eps
    c->call = [=](Case &k) {
      return two_phase(
          k,
          [&](uint64_t *w, aclOpExecutor **e) {
            return aclnnLogitGradGetWorkspaceSize(tx, tdy, -1.0, tout, w, e);
          },
          [&](void *p, uint64_t w, aclOpExecutor *e) { return aclnnLogitGrad(p, w, e, nullptr); });
    };
  return c;
}

// (m, n) rows normalised over n, all three outputs; mean/rstd/weight FLOAT.
std::unique_ptr<Case> make_layer_norm(aclDataType dt, int64_t m, int64_t n) {
  auto c = std::make_unique<Case>();
  aclTensor *dy = c->keep(c->add(std::make_unique<Buf>(m * n, dt, [](int64_t i) {
                             return normalish(i);
                           })).dense({m, n}));
  aclTensor *x = c->keep(c->add(std::make_unique<Buf>(m * n, dt, [](int64_t i) {
                            return normalish(i + 5);
                          })).dense({m, n}));
  aclTensor *gi = c->keep(c->add(std::make_unique<Buf>(m * n, dt)).dense({m, n}));
  aclTensor *mean = c->keep(c->add(std::make_unique<Buf>(m, ACL_FLOAT, [](int64_t i) {
                               return 0.1f * normalish(i);
                             })).dense({m, 1}));
  aclTensor *rstd = c->keep(c->add(std::make_unique<Buf>(m, ACL_FLOAT, [](int64_t i) {
                               return 0.5f + unit(i);
                             })).dense({m, 1}));
  aclTensor *w = c->keep(c->add(std::make_unique<Buf>(n, ACL_FLOAT, [](int64_t i) {
                            return normalish(i + 3);
                          })).dense({n}));
  aclTensor *gw = c->keep(c->add(std::make_unique<Buf>(n, ACL_FLOAT)).dense({n}));
  aclTensor *gb = c->keep(c->add(std::make_unique<Buf>(n, ACL_FLOAT)).dense({n}));
  const int64_t ns[] = {n};
  c->ints = aclCreateIntArray(ns, 1);
  const bool mask[] = {true, true, true};
  c->bools = aclCreateBoolArray(mask, 3);
  c->call = [=](Case &k) {
    return two_phase(
        k,
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnLayerNormBackwardGetWorkspaceSize(dy, x, k.ints, mean, rstd, w, nullptr,
                                                        k.bools, gi, gw, gb, ws, e);
        },
        [&](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnLayerNormBackward(p, ws, e, nullptr);
        });
  };
  return c;
}

// gradY (rows, h) in `groups` equal groups given by end offsets.
std::unique_ptr<Case> make_gbag(aclDataType dt, int64_t rows, int64_t h, int64_t groups) {
  auto c = std::make_unique<Case>();
  aclTensor *gy = c->keep(c->add(std::make_unique<Buf>(rows * h, dt, [](int64_t i) {
                             return normalish(i);
                           })).dense({rows, h}));
  Buf &idx = c->add(std::make_unique<Buf>(groups, ACL_INT64));
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t end = rows * (g + 1) / groups;
    std::memcpy(&idx.mem[g * 8], &end, 8);
  }
  aclTensor *gi = c->keep(idx.dense({groups}));
  aclTensor *out = c->keep(c->add(std::make_unique<Buf>(groups * h, dt)).dense({groups, h}));
  c->call = [=](Case &k) {
    return two_phase(
        k,
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnGroupedBiasAddGradGetWorkspaceSize(gy, gi, out, ws, e);
        },
        [&](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnGroupedBiasAddGrad(p, ws, e, nullptr);
        });
  };
  return c;
}

// The case being measured stays built across the repetitions of one benchmark: one copy, or
// copies_for() of them in the sustained mode, called in turn (g_next: the least recently used).
std::string g_key;
std::vector<std::unique_ptr<Case>> g_cases;
size_t g_next = 0;

void run_case(benchmark::State &state, const std::string &key, int64_t threads,
              const std::function<std::unique_ptr<Case>()> &make) {
  if (g_key != key) {
    g_cases.clear();
    g_key.clear();
    g_cases.push_back(make());
    const size_t copies = copies_for(g_cases[0]->bytes());
    while (g_cases.size() < copies) g_cases.push_back(make());
    set_threads(threads);
    for (auto &c : g_cases)
      if (c->call(*c) != ACLNN_SUCCESS) {  // warm-up: pool threads, first touch, workspace
        state.SkipWithError(aclGetRecentErrMsg());
        g_cases.clear();
        return;
      }
    g_key = key;
    g_next = 0;
  }
  set_threads(threads);
  const size_t bytes = g_cases[0]->bytes();
  for (auto _ : state) {
    start_cold(state, bytes, static_cast<int>(threads));
    Case &c = *g_cases[g_next];
    g_next = (g_next + 1) % g_cases.size();
    if (c.call(c) != ACLNN_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
    benchmark::ClobberMemory();
  }
}

const char *dt_name(aclDataType dt) {
  return dt == ACL_FLOAT ? "fp32" : dt == ACL_BF16 ? "bf16" : "fp16";
}

// ---- memory floor ------------------------------------------------------------------------------
// a = b + s*c over `bytes` per array (two reads and one write, like a binary elementwise op), and a
// read of `bytes` (like a reduction), split over `threads` threads (benchmarks/memory_floor.hpp).
// The arrays are 64-byte aligned, as the cases' buffers are (Buf): a vector's large allocation
// starts 16 bytes past a page, where every 64-byte access straddles two lines.
// In the sustained mode copies_for() sets of arrays, used in turn as the cases' copies are.
struct FloorArrays {
  std::unique_ptr<Buf> a, b, c;
};
std::vector<FloorArrays> g_floor;
size_t g_floor_n = 0, g_floor_next = 0;
// The sets of arrays of n floats (b alone for the read, a, b and c for the triad), built once; the
// next set is g_floor[g_floor_next] (set 0 first: the least recently written).
void ensure_floor_arrays(size_t n, bool triad) {
  const size_t copies = copies_for(n * 4 * (triad ? 3 : 1));
  if (g_floor_n != n || g_floor.size() != copies || (g_floor[0].a != nullptr) != triad) {
    g_floor.clear();
    const auto arr = [n](float v) {
      return std::make_unique<Buf>(static_cast<int64_t>(n), ACL_FLOAT, [v](int64_t) { return v; });
    };
    for (size_t i = 0; i < copies; ++i)
      g_floor.push_back({triad ? arr(0.0f) : nullptr, arr(1.0f), triad ? arr(2.0f) : nullptr});
    g_floor_n = n;
    g_floor_next = 0;
  }
}
FloorArrays &next_floor_arrays() {
  FloorArrays &f = g_floor[g_floor_next];
  g_floor_next = (g_floor_next + 1) % g_floor.size();
  return f;
}
float *floor_array(const std::unique_ptr<Buf> &b) {
  return reinterpret_cast<float *>(b->mem.get());
}
// kStream: the triad with non-temporal stores (no read-for-ownership of the output lines), as the
// library writes outputs larger than the last-level cache: the floor for that store path.
template <bool kStream>
void BM_FloorTriad(benchmark::State &state) {
  const auto n = static_cast<size_t>(state.range(0)) / 4;
  const int threads = static_cast<int>(state.range(1));
  ensure_floor_arrays(n, true);
  for (auto _ : state) {
    start_cold(state, 3 * n * 4, threads);
    FloorArrays &f = next_floor_arrays();
    in_threads(threads, n, [&f](size_t b, size_t e) {
      aclnn_bench::floor_triad(floor_array(f.a), floor_array(f.b), floor_array(f.c), b, e, kStream);
    });
    benchmark::ClobberMemory();
  }
}
void BM_FloorRead(benchmark::State &state) {
  const auto n = static_cast<size_t>(state.range(0)) / 4;
  const int threads = static_cast<int>(state.range(1));
  ensure_floor_arrays(n, false);
  for (auto _ : state) {
    start_cold(state, n * 4, threads);
    FloorArrays &f = next_floor_arrays();
    std::vector<uint32_t> sums(static_cast<size_t>(threads));
    in_threads(threads, n, [&](size_t b, size_t e) {
      sums[b * static_cast<size_t>(threads) / n] =
          aclnn_bench::floor_read(reinterpret_cast<const uint32_t *>(floor_array(f.b)), b, e);
    });
    benchmark::DoNotOptimize(sums.data());
  }
}

void timed_calls(benchmark::internal::Benchmark *b) {
  b->Iterations(1)->Repetitions(7)->ReportAggregatesOnly(true)->UseRealTime()->Unit(
      benchmark::kMillisecond);
}

int register_all() {
  benchmark::AddCustomContext("floor_isa", aclnn_bench::floor_isa());
  const aclDataType dts[] = {ACL_FLOAT, ACL_BF16, ACL_FLOAT16};
  for (const std::string op : {"GeluBackward", "SeluBackward", "LogitGrad"}) {
    for (aclDataType dt : dts)
      for (int t : {1, 2}) {
        const std::string name = "Case/" + op + "/" + dt_name(dt) + "/16M/t" + std::to_string(t);
        timed_calls(benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State &s) {
          run_case(s, name, t, [=] { return make_elementwise(op, dt, k16M, kDense); });
        }));
      }
    for (int t : {1, 2}) {
      const std::string n1 = "Case/" + op + "/fp32/1M/t" + std::to_string(t);
      timed_calls(benchmark::RegisterBenchmark(n1.c_str(), [=](benchmark::State &s) {
        run_case(s, n1, t, [=] { return make_elementwise(op, ACL_FLOAT, k1M, kDense); });
      }));
      const std::string ns = "Case/" + op + "/fp32/1M_stride3/t" + std::to_string(t);
      timed_calls(benchmark::RegisterBenchmark(ns.c_str(), [=](benchmark::State &s) {
        run_case(s, ns, t, [=] { return make_elementwise(op, ACL_FLOAT, k1M, kStrided); });
      }));
    }
    // One element, both phases: call overhead.
    const std::string n1e = "Call/" + op + "/fp32/1";
    benchmark::RegisterBenchmark(
        n1e.c_str(),
        [=](benchmark::State &s) {
          run_case(s, n1e, 1, [=] { return make_elementwise(op, ACL_FLOAT, 1, kDense); });
        })
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.2);
  }
  for (int t : {1, 2}) {
    const std::string nb = "Case/GeluBackward/fp32/16M_broadcast_row/t" + std::to_string(t);
    timed_calls(benchmark::RegisterBenchmark(nb.c_str(), [=](benchmark::State &s) {
      run_case(s, nb, t,
               [=] { return make_elementwise("GeluBackward", ACL_FLOAT, k16M, kBroadcast); });
    }));
  }
  for (aclDataType dt : dts)
    for (int t : {1, 2}) {
      const std::string nl = std::string("Case/LayerNormBackward/") + dt_name(dt) +
                             "/16384x1024/t" + std::to_string(t);
      timed_calls(benchmark::RegisterBenchmark(nl.c_str(), [=](benchmark::State &s) {
        run_case(s, nl, t, [=] { return make_layer_norm(dt, 16384, 1024); });
      }));
      const std::string ng = std::string("Case/GroupedBiasAddGrad/") + dt_name(dt) +
                             "/65536x1024_g64/t" + std::to_string(t);
      timed_calls(benchmark::RegisterBenchmark(ng.c_str(), [=](benchmark::State &s) {
        run_case(s, ng, t, [=] { return make_gbag(dt, 65536, 1024, 64); });
      }));
    }
  for (int t : {1, 2}) {
    const std::string nl = "Case/LayerNormBackward/fp32/1024x1024/t" + std::to_string(t);
    timed_calls(benchmark::RegisterBenchmark(nl.c_str(), [=](benchmark::State &s) {
      run_case(s, nl, t, [=] { return make_layer_norm(ACL_FLOAT, 1024, 1024); });
    }));
    const std::string ng = "Case/GroupedBiasAddGrad/fp32/1024x1024_g64/t" + std::to_string(t);
    timed_calls(benchmark::RegisterBenchmark(ng.c_str(), [=](benchmark::State &s) {
      run_case(s, ng, t, [=] { return make_gbag(ACL_FLOAT, 1024, 1024, 64); });
    }));
  }
  // Each 16 M-element case at 1/64 of its size, in cache (its data, 0.75-3 MB, stay in L2 and L3
  // between calls): the time of the arithmetic with memory out of the way, times 64 in the report.
  // A case whose cold time is close to that is bound by its computation on this core, not by
  // memory.
  for (aclDataType dt : dts)
    for (int t : {1, 2}) {
      const std::string ts = "/t" + std::to_string(t);
      for (const std::string op : {"GeluBackward", "SeluBackward", "LogitGrad"}) {
        const std::string ne = "Cache/" + op + "/" + dt_name(dt) + ts;
        timed_calls(benchmark::RegisterBenchmark(ne.c_str(), [=](benchmark::State &s) {
          run_case(s, ne, t, [=] { return make_elementwise(op, dt, k16M / 64, kDense); });
        }));
      }
      const std::string nl = std::string("Cache/LayerNormBackward/") + dt_name(dt) + ts;
      timed_calls(benchmark::RegisterBenchmark(nl.c_str(), [=](benchmark::State &s) {
        run_case(s, nl, t, [=] { return make_layer_norm(dt, 16384 / 64, 1024); });
      }));
      const std::string ng = std::string("Cache/GroupedBiasAddGrad/") + dt_name(dt) + ts;
      timed_calls(benchmark::RegisterBenchmark(ng.c_str(), [=](benchmark::State &s) {
        // One group of 1024 rows: cut into blocks and summed as each of the 64 groups of the
        // large case is (with 64 groups of 16 rows, per-group work would dominate).
        run_case(s, ng, t, [=] { return make_gbag(dt, 65536 / 64, 1024, 1); });
      }));
    }
  // Floors: bytes per array = 16 M elements of 4 and 2 bytes, 64 M of 4 and 2 (GroupedBiasAddGrad
  // reads (65536, 1024)), 1 M of 4.
  for (int64_t bytes : {k16M * 4, k16M * 2, k1M * 4})
    for (int t : {1, 2})
      timed_calls(
          benchmark::RegisterBenchmark("Floor/triad", BM_FloorTriad<false>)->Args({bytes, t}));
  for (int64_t bytes : {k16M * 4, k16M * 2})
    for (int t : {1, 2})
      timed_calls(benchmark::RegisterBenchmark("Floor/triad_stream", BM_FloorTriad<true>)
                      ->Args({bytes, t}));
  for (int64_t bytes : {k16M * 16, k16M * 8, k1M * 4})
    for (int t : {1, 2})
      timed_calls(benchmark::RegisterBenchmark("Floor/read", BM_FloorRead)->Args({bytes, t}));
  // The core's clock with no vector work, beside 256-bit and beside 512-bit FMAs (clock_probe.hpp;
  // perf_report.py reports GHz).
  benchmark::AddCustomContext("clock_probe_adds", std::to_string(aclnn_bench::kClockProbeAdds));
  for (const auto &[width, name] : {std::pair{0, "Clock/scalar"}, std::pair{256, "Clock/fma256"},
                                    std::pair{512, "Clock/fma512"}})
    if (aclnn_bench::clock_probe_supported(width))
      timed_calls(benchmark::RegisterBenchmark(name, [width](benchmark::State &s) {
        for (auto _ : s) benchmark::DoNotOptimize(aclnn_bench::clock_probe(width));
      }));
  return 0;
}
const int registered = register_all();

}  // namespace
