// Every op on every compiled SIMD target this CPU can run, with 1 and 2 threads, on the same
// inputs: the results must be bitwise identical (VAL-DET-1 across targets and thread counts). The
// ops are those of the library's registry (tests/lists/op_lists.json checks that none is missing).
// No exception: GeluBackward's polynomials use one fused multiply-add per step on every target.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "impl/dtype.hpp"
#include "impl/simd.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/simd_targets.hpp"

namespace {

using namespace aclnn_cpu;

size_t esize(aclDataType dt) {
  return dt == ACL_FLOAT ? 4 : dt == ACL_INT64 ? 8 : 2;
}

struct Storage {
  std::vector<uint8_t> bytes;
  aclDataType dt;
  int64_t elems;
  Storage(int64_t n, aclDataType t) : bytes(static_cast<size_t>(n) * esize(t)), dt(t), elems(n) {}
  void set(int64_t i, double v) {
    store_from_double(&bytes[static_cast<size_t>(i) * esize(dt)], dt, v);
  }
  // A NaN of this dtype with a payload from r (signalling or quiet, either sign).
  void set_nan(int64_t i, uint64_t r) {
    uint8_t *e = &bytes[static_cast<size_t>(i) * esize(dt)];
    if (dt == ACL_FLOAT) {
      const auto v = static_cast<uint32_t>(0x7f800000u | (1 + r % 0x7fffffu) | (r >> 63 << 31));
      std::memcpy(e, &v, 4);
    } else {
      const uint16_t exp = dt == ACL_FLOAT16 ? 0x7c00 : 0x7f80;
      const uint16_t mant = dt == ACL_FLOAT16 ? 0x3ff : 0x7f;
      const auto v = static_cast<uint16_t>(exp | (1 + r % mant) | (r >> 63 << 15));
      std::memcpy(e, &v, 2);
    }
  }
  aclTensor *view(const std::vector<int64_t> &dims, std::vector<int64_t> strides = {},
                  int64_t offset = 0) {
    if (strides.empty()) {
      strides.assign(dims.size(), 1);
      for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    const int64_t sd[] = {elems};
    return aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), offset, ACL_FORMAT_ND, sd,
                           1, bytes.data());
  }
};

// Values that exercise every path: ordinary, near GELU's root, near 0 and 1, specials.
double interesting(std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> u(-6.0, 6.0);
  switch (rng() % 10) {
    case 0:
      return -0.7517915246935645 + 1e-3 * (u(rng) / 6.0);
    case 1:
      return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    case 2: {
      const double s[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-30, -40.0, 1.0, 65504.0, 1e-6};
      return s[rng() % 10];
    }
    default:
      return u(rng);
  }
}

constexpr int64_t kN = 70001;  // above the 64 K parallel grain, odd

// ACLNN_CPU_NUM_THREADS=t for a scope.
aclnn_test::ScopedEnv threads_env(int t) {
  return aclnn_test::ScopedEnv("ACLNN_CPU_NUM_THREADS", std::to_string(t).c_str());
}

using Runner = std::function<std::vector<uint8_t>()>;

template <typename GetWs, typename Run>
void two_phase(GetWs get_ws, Run run) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(get_ws(&ws, &ex), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  std::vector<uint8_t> w(ws + 64);
  ASSERT_EQ(run(w.data(), ws, ex), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

// Both phases of one elementwise op ("gelu", "selu" or "logit" with eps) on tensors a, b -> out.
void run_elementwise(const std::string &op, aclTensor *ta, aclTensor *tb, aclTensor *to,
                     double eps) {
  if (op == "gelu")
    two_phase(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnGeluBackwardGetWorkspaceSize(ta, tb, to, w, e);
        },
        [&](void *p, uint64_t w, aclOpExecutor *e) { return aclnnGeluBackward(p, w, e, nullptr); });
  else if (op == "selu")
    two_phase(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnSeluBackwardGetWorkspaceSize(ta, tb, to, w, e);
        },
        [&](void *p, uint64_t w, aclOpExecutor *e) { return aclnnSeluBackward(p, w, e, nullptr); });
  else
    two_phase(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnLogitGradGetWorkspaceSize(ta, tb, eps, to, w, e);
        },
        [&](void *p, uint64_t w, aclOpExecutor *e) { return aclnnLogitGrad(p, w, e, nullptr); });
}

// Elementwise op on kN elements; the output strided by 2 when `strided_out` (double staging path),
// starting `out_offset` elements into its storage.
Runner elementwise(const std::string &op, aclDataType dt, bool strided_out, double eps = -1.0,
                   int64_t out_offset = 0) {
  return [=] {
    std::mt19937_64 rng(11);
    Storage a(kN, dt), b(kN, dt), out(kN * 2 + 8, dt);
    for (int64_t i = 0; i < kN; ++i) {
      a.set(i, interesting(rng));
      b.set(i, interesting(rng));
    }
    // NaNs with payloads, quiet and signalling, in one input with a number in the other: F16C
    // (the x86 targets) and the integer conversions (the portable one) must treat them alike.
    // (Where both inputs are NaN with different payloads, which one propagates follows the
    // operand order the compiler chose for each target: not pinned, and all NaNs compare equal,
    // VAL-ZERO-1.)
    for (int64_t i = 3; i < kN; i += 61) {
      a.set_nan(i, rng());
      b.set(i, 0.75);
    }
    for (int64_t i = 17; i < kN; i += 67) {
      b.set_nan(i, rng());
      a.set(i, 0.25);
    }
    aclTensor *ta = a.view({kN}), *tb = b.view({kN});
    aclTensor *to = strided_out ? out.view({kN}, {2}, out_offset) : out.view({kN}, {1}, out_offset);
    run_elementwise(op, ta, tb, to, eps);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
    return out.bytes;
  };
}

// LayerNormBackward's rows: kLnRows rows of n columns. Rows of kLnKeptN columns take the bfloat16
// instance that keeps a row's floats between its passes (rows of up to 1024 whole vectors); rows
// of kLnWideN the general one. Both have a tail after the last 16 columns.
constexpr int64_t kLnRows = 70, kLnKeptN = 1000, kLnWideN = 1100;
// Rows whose last 16 whole columns fill half of a 64-byte line of 16-bit gradInput (n16 = 32 k +
// 16), each instance: a streamed row ends with that half line (simd::LineStream).
constexpr int64_t kLnHalfLineKeptN = 1016, kLnHalfLineWideN = 1208;
// rstd_scale: multiplies every row's rstd (a power of two: 2^-115 puts gradInput near the bottom
// of float's range, some of it subnormal, while the rows keep the float path).
// m: the count of rows; order: column 9's partials show the order of their additions (below).
Runner layer_norm(aclDataType dt, int64_t n, double rstd_scale = 1.0, int64_t m = kLnRows,
                  bool order = false) {
  return [=] {
    std::mt19937_64 rng(5);
    std::normal_distribution<double> nd(0.0, 1.0);
    Storage x(m * n, dt), dy(m * n, dt), gi(m * n, dt), mean(m, ACL_FLOAT), rstd(m, ACL_FLOAT),
        w(n, ACL_FLOAT), gw(n, ACL_FLOAT), gb(n, ACL_FLOAT);
    for (int64_t i = 0; i < m * n; ++i) {
      x.set(i, nd(rng));
      dy.set(i, nd(rng));
    }
    std::vector<double> means(m);
    for (int64_t i = 0; i < m; ++i) {
      means[i] = static_cast<float>(0.1 * nd(rng));
      mean.set(i, means[i]);
      rstd.set(i, (1.0 + 0.1 * nd(rng)) * rstd_scale);
    }
    for (int64_t i = 0; i < n; ++i) w.set(i, nd(rng));
    // Rows that leave the float gradInput path: row 3's element 7 has dy * w = 6e39 (a lane
    // recomputed in double), row 4 has dy = 0 (c1 = 0: a double row). Not with scaled rstd: the
    // large weight would make every row's c1 large, and no result small.
    if (rstd_scale == 1.0) {
      w.set(7, 1e35);
      dy.set(3 * n + 7, 6e4);
      x.set(3 * n + 7, means[3]);
      rstd.set(3, 1e-20);
    }
    for (int64_t j = 0; j < n; ++j) dy.set(4 * n + j, 0.0);
    // Row 5 shows the order of the row sums' additions: residue 0's terms 2^60 and -2^60 (columns
    // 0 and 8, x alike, so their g xhat cancel too) cancel, and column 4's terms of about 1
    // survive in residue 4's accumulators only (added to 2^60 first, they would vanish; with
    // them c1 and c2 move by about 1e-3, which changes some of the row's bfloat16 results).
    if (rstd_scale == 1.0) {
      w.set(0, 0x1p60);
      w.set(8, 0x1p60);
      dy.set(5 * n, 1.0);
      dy.set(5 * n + 8, -1.0);
      dy.set(5 * n + 7, 0.0);  // no 1e35 term
      const size_t e = esize(dt);
      std::memcpy(&x.bytes[static_cast<size_t>(5 * n + 8) * e],
                  &x.bytes[static_cast<size_t>(5 * n) * e], e);
    }
    // Column 9: rows 5 and 6 add B xh and -B xh (the same x, mean and rstd, B = 2^20, x = 2^20),
    // row 7 an ordinary term: added in row order, rows 5 and 6 cancel exactly and row 7's low bits
    // survive; row 7's term added before row 6's (one pair, the other order) loses bits that the
    // float gradWeight shows.
    if (order) {
      for (int64_t r : {5, 6}) {
        x.set(r * n + 9, 0x1p20);
        dy.set(r * n + 9, r == 5 ? 0x1p20 : -0x1p20);
        mean.set(r, means[5]);
        rstd.set(r, 1.0);
      }
    }
    aclTensor *tx = x.view({m, n}), *tdy = dy.view({m, n}), *tgi = gi.view({m, n}),
              *tmean = mean.view({m, 1}), *trstd = rstd.view({m, 1}), *tw = w.view({n}),
              *tgw = gw.view({n}), *tgb = gb.view({n});
    const int64_t ns[] = {n};
    aclIntArray *nsa = aclCreateIntArray(ns, 1);
    const bool mask[] = {true, true, true};
    aclBoolArray *ma = aclCreateBoolArray(mask, 3);
    two_phase(
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnLayerNormBackwardGetWorkspaceSize(tdy, tx, nsa, tmean, trstd, tw, nullptr, ma,
                                                        tgi, tgw, tgb, ws, e);
        },
        [&](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnLayerNormBackward(p, ws, e, nullptr);
        });
    for (aclTensor *t : {tx, tdy, tgi, tmean, trstd, tw, tgw, tgb}) aclDestroyTensor(t);
    aclDestroyIntArray(nsa);
    aclDestroyBoolArray(ma);
    std::vector<uint8_t> all = gi.bytes;
    all.insert(all.end(), gw.bytes.begin(), gw.bytes.end());
    all.insert(all.end(), gb.bytes.begin(), gb.bytes.end());
    return all;
  };
}

Runner gbag(aclDataType dt) {
  return [=] {
    const int64_t rows = 3000, h = 700, groups = 5;
    std::mt19937_64 rng(9);
    std::normal_distribution<double> nd(0.0, 1.0);
    Storage gy(rows * h, dt), idx(groups, ACL_INT64), out(groups * h, dt);
    for (int64_t i = 0; i < rows * h; ++i) gy.set(i, nd(rng));
    const int64_t ends[] = {100, 1000, 1000, 2999, 3000};
    std::memcpy(idx.bytes.data(), ends, sizeof ends);
    aclTensor *tgy = gy.view({rows, h}), *ti = idx.view({groups}), *to = out.view({groups, h});
    two_phase(
        [&](uint64_t *ws, aclOpExecutor **e) {
          return aclnnGroupedBiasAddGradGetWorkspaceSize(tgy, ti, to, ws, e);
        },
        [&](void *p, uint64_t ws, aclOpExecutor *e) {
          return aclnnGroupedBiasAddGrad(p, ws, e, nullptr);
        });
    for (aclTensor *t : {tgy, ti, to}) aclDestroyTensor(t);
    return out.bytes;
  };
}

struct OpCase {
  std::string name;
  aclDataType dt;
  Runner run;
};

std::vector<OpCase> cases() {
  std::vector<OpCase> v;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    const std::string d = dtype_name(dt).data();
    for (bool s : {false, true}) {
      const std::string lay = s ? "_strided_out" : "";
      v.push_back({"gelu_" + d + lay, dt, elementwise("gelu", dt, s)});
      v.push_back({"selu_" + d + lay, dt, elementwise("selu", dt, s)});
      v.push_back({"logit_" + d + lay, dt, elementwise("logit", dt, s, -1.0)});
      v.push_back({"logit_eps_" + d + lay, dt, elementwise("logit", dt, s, 0.01)});
    }
    for (int64_t n : {kLnKeptN, kLnWideN})
      v.push_back({"layer_norm_" + d + "_" + std::to_string(n), dt, layer_norm(dt, n)});
    v.push_back({"gbag_" + d, dt, gbag(dt)});
  }
  return v;
}

// The suite runs once per target (tests/support/simd_targets.hpp): each test compares what the
// parameter's target gives with what a reference target gave, and every switch of target, thread
// count or environment is scoped, so a failing assertion leaves none behind.
class SimdTargets : public aclnn_test::SimdTargetTest {};
ACLNN_INSTANTIATE_SIMD_TARGETS(SimdTargets);

// run() on `target` with one thread.
std::vector<uint8_t> reference_on(int64_t target, const Runner &run) {
  const aclnn_test::ScopedSimdTarget forced(target);
  const auto threads = threads_env(1);
  return run();
}

// The parameter's target gives the bytes of the best target with one thread, with 1 and 2 threads.
TEST_P(SimdTargets, EveryOpGivesTheSameBitsOnEveryTargetAndThreadCount) {
  for (const OpCase &c : cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<uint8_t> ref = reference_on(aclnn_test::simd_targets().front(), c.run);
    const aclnn_test::ScopedSimdTarget forced(GetParam());
    for (int threads : {1, 2}) {
      const auto env = threads_env(threads);
      const std::vector<uint8_t> got = c.run();
      SCOPED_TRACE("threads " + std::to_string(threads));
      ASSERT_EQ(got.size(), ref.size());
      EXPECT_TRUE(got == ref);
    }
  }
}

// Non-temporal stores (ACLNN_CPU_STREAM_STORES=1 forces them at every size) give the bytes of
// ordinary stores, on every target and thread count, whatever the output's alignment: the storage
// of an elementwise output starts at an offset of 0, 1 and 7 elements, and the bytes around the
// view (the whole storage is compared) stay untouched.
TEST_P(SimdTargets, StreamingStoresGiveTheSameBytes) {
  const auto same_bytes_streaming = [&](const Runner &run) {
    std::vector<uint8_t> ref;
    {
      const aclnn_test::ScopedEnv off("ACLNN_CPU_STREAM_STORES", "0");
      ref = reference_on(0, run);
    }
    const aclnn_test::ScopedEnv on("ACLNN_CPU_STREAM_STORES", "1");
    const aclnn_test::ScopedSimdTarget forced(GetParam());
    for (int threads : {1, 2}) {
      const auto env = threads_env(threads);
      SCOPED_TRACE("threads " + std::to_string(threads));
      EXPECT_TRUE(run() == ref);
    }
  };
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const char *op : {"gelu", "selu", "logit"})
      for (int64_t offset : {0, 1, 7})
        for (bool strided : {false, true}) {
          SCOPED_TRACE(std::string(op) + " " + dtype_name(dt).data() + " offset " +
                       std::to_string(offset) + (strided ? " strided" : ""));
          same_bytes_streaming(elementwise(op, dt, strided, 0.01, offset));
        }
    // LayerNormBackward streams the gradInput rows that start 64-byte aligned.
    for (int64_t n : {kLnKeptN, kLnWideN, kLnHalfLineKeptN, kLnHalfLineWideN}) {
      SCOPED_TRACE(std::string("layer_norm ") + dtype_name(dt).data() + " " + std::to_string(n));
      same_bytes_streaming(layer_norm(dt, n));
    }
  }
}

// LayerNormBackward's rows in pairs (LnRowPairsT: AVX-512, FLOAT and BFLOAT16) give the bytes of
// rows one by one (ACLNN_CPU_LN_PAIRS=0), on every target (where pairs are not used, trivially),
// streamed or not, with 1, 2 and 3 threads (row blocks of odd counts), for even and odd counts of
// rows; row 4 (a double row) makes its pair take the second passes apart, row 3 has a lane
// recomputed in double; column 9 fails if a pair adds its partials in another order.
TEST_P(SimdTargets, LayerNormRowPairsGiveTheBytesOfSingleRows) {
  const aclnn_test::ScopedSimdTarget forced(GetParam());
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16})
    for (int64_t n : {kLnKeptN, kLnWideN, kLnHalfLineKeptN})
      for (int64_t m : {kLnRows, kLnRows + 1})
        for (const char *stream : {"0", "1"}) {
          SCOPED_TRACE(std::string(dtype_name(dt)) + " " + std::to_string(m) + " x " +
                       std::to_string(n) + " streamed " + stream);
          const aclnn_test::ScopedEnv streamed("ACLNN_CPU_STREAM_STORES", stream);
          const Runner run = layer_norm(dt, n, 1.0, m, true);
          std::vector<uint8_t> ref;
          {
            const aclnn_test::ScopedEnv single("ACLNN_CPU_LN_PAIRS", "0");
            const auto env = threads_env(1);
            ref = run();
          }
          for (int threads : {1, 2, 3}) {
            const auto env = threads_env(threads);
            EXPECT_TRUE(run() == ref) << threads << " threads";
          }
        }
}

// Every bfloat16 pattern as either input of each elementwise op, against a few values of the
// other (subnormal and overflowing results, zeros, infinities, NaN payloads): the AVX-512 target
// with AVX512_BF16's narrowing gives the bytes it gives without (simd::allow_bf16_insn).
Runner bf16_patterns(const std::string &op, bool first, double other, double eps) {
  return [=] {
    constexpr int64_t kAll = 65536;
    Storage a(kAll, ACL_BF16), b(kAll, ACL_BF16), out(kAll, ACL_BF16);
    for (int64_t i = 0; i < kAll; ++i) {
      const auto bits = static_cast<uint16_t>(i);
      std::memcpy(&(first ? a : b).bytes[static_cast<size_t>(i) * 2], &bits, 2);
      (first ? b : a).set(i, other);
    }
    aclTensor *ta = a.view({kAll}), *tb = b.view({kAll}), *to = out.view({kAll});
    run_elementwise(op, ta, tb, to, eps);
    for (aclTensor *t : {ta, tb, to}) aclDestroyTensor(t);
    return out.bytes;
  };
}

// run() without, then with AVX512_BF16's narrowing: the same bytes (returned).
std::vector<uint8_t> same_with_bf16_insn(const Runner &run) {
  std::vector<uint8_t> ref;
  {
    const aclnn_test::ScopedBf16Insn without(false);
    ref = run();
  }
  const aclnn_test::ScopedBf16Insn with(true);
  EXPECT_TRUE(run() == ref);
  return ref;
}

// Also LayerNormBackward's bfloat16 gradInput (the pipelined kernel narrows float rows with the
// instruction), in rows of ordinary size and in rows whose results reach float's subnormals,
// which the instruction would flush.
TEST(SimdTargets, Bf16InstructionGivesTheSameBits) {
  if (!simd::bf16_insn_available())
    GTEST_SKIP() << "no AVX512_BF16 on this CPU or in this build: the library never uses it here";
  const aclnn_test::ScopedSimdTarget best(aclnn_test::simd_targets().front());
  const auto threads = threads_env(1);
  for (const char *op : {"gelu", "selu", "logit"})
    for (bool first : {true, false})
      for (double other : {1.0, -1.5, 0x1p-130, 3e38, -0.0, 0.375}) {
        SCOPED_TRACE(std::string(op) + (first ? " a" : " b") + " all patterns, other " +
                     std::to_string(other));
        same_with_bf16_insn(bf16_patterns(op, first, other, 0.01));
      }
  for (int64_t n : {kLnKeptN, kLnWideN})
    for (double scale : {1.0, 0x1p-115}) {
      SCOPED_TRACE("layer_norm, " + std::to_string(n) + " columns, rstd scaled by " +
                   std::to_string(scale));
      const std::vector<uint8_t> ref = same_with_bf16_insn(layer_norm(ACL_BF16, n, scale));
      if (scale == 1.0) continue;
      // The subnormal results are there to be flushed: count them in gradInput (the first
      // kLnRows * n values returned).
      int64_t subnormal = 0;
      for (size_t i = 0; i + 1 < static_cast<size_t>(kLnRows * n * 2); i += 2) {
        const auto bits = static_cast<uint16_t>(ref[i] | ref[i + 1] << 8);
        subnormal += (bits & 0x7f80) == 0 && (bits & 0x7f) != 0;
      }
      EXPECT_GT(subnormal, 10);
    }
}

}  // namespace
