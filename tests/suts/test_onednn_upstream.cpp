// The oneDNN defects behind docs/findings.md's oneDNN bugs, reproduced with oneDNN alone (no
// aclnn adapter): each test asserts the defect is still present in the installed libdnnl, so a
// oneDNN update that fixes one shows up here and the findings page is revised. They are also the
// reproducers to attach to an upstream report.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

namespace {

using dnnl::memory;
using dt = memory::data_type;

const dnnl::engine &engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// O1: a reorder between zero-volume views, the source not dense ({0,1} with strides {2,1}), is
// accepted and then divides by zero when executed. Run in a child: the signal is the finding.
TEST(OnednnUpstream, ZeroVolumeStridedReorderRaisesSigfpe) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    float a[4] = {}, b[4] = {};
    const memory::desc from({0, 1}, dt::f32, memory::dims{2, 1});
    const memory::desc to({0, 1}, dt::f32, memory::dims{1, 1});
    memory ma(from, engine(), a), mb(to, engine(), b);
    dnnl::stream s(engine());
    dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to)).execute(s, ma, mb);
    s.wait();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the reorder now runs: revise finding O1";
  EXPECT_EQ(WTERMSIG(status), SIGFPE);
}

// O2: reduction_sum over a submemory of rows [r0, r0+len) sums rows [2*r0, 2*r0+len) instead:
// the submemory's offset is applied twice (reading past the parent when 2*r0+len > rows).
TEST(OnednnUpstream, ReductionOverSubmemoryReadsRowsAtTwiceTheOffset) {
  constexpr long kRows = 8, kCols = 3, kStart = 2, kLen = 2;
  std::vector<float> src(kRows * kCols), dst(kCols, -7.f);
  for (long i = 0; i < kRows * kCols; ++i)
    src[i] = static_cast<float>(i / kCols + 1);  // row r: r+1
  const memory::desc parent({kRows, kCols}, dt::f32, memory::format_tag::ab);
  const memory::desc sub = parent.submemory_desc({kLen, kCols}, {kStart, 0});
  const memory::desc out({1, kCols}, dt::f32, memory::format_tag::ab);
  const dnnl::reduction::primitive_desc pd({dnnl::algorithm::reduction_sum, sub, out, 0.f, 0.f},
                                           engine());
  dnnl::stream s(engine());
  dnnl::reduction(pd).execute(s, {{DNNL_ARG_SRC, memory(sub, engine(), src.data())},
                                  {DNNL_ARG_DST, memory(out, engine(), dst.data())}});
  s.wait();
  const float right = (kStart + 1) + (kStart + 2);          // rows 2 and 3: 7
  const float twice = (2 * kStart + 1) + (2 * kStart + 2);  // rows 4 and 5: 11
  EXPECT_NE(dst[0], right) << "the reduction now honours the submemory offset: revise O2";
  EXPECT_EQ(dst[0], twice);
}

// O3: layer normalization backward with f16 diff_dst/diff_src and f32 src is accepted (on CPUs
// without avx512_fp16) and writes more than diff_src's f16 bytes: a guard after the buffer is
// overwritten.
TEST(OnednnUpstream, LayerNormBackwardF16DiffF32DataWritesPastDiffSrc) {
  // Observed on a CPU without avx512_fp16; with it, oneDNN picks other f16 implementations.
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string cpu_flags{std::istreambuf_iterator<char>(cpuinfo), {}};
  if (cpu_flags.find(" avx512_fp16") != std::string::npos)
    GTEST_SKIP() << "this CPU has avx512_fp16; finding O3 was made without it";
  const memory::desc data({2, 4}, dt::f32, memory::format_tag::ab);
  const memory::desc diff({2, 4}, dt::f16, memory::format_tag::ab);
  const memory::desc stat({2}, dt::f32, memory::format_tag::a);
  const memory::desc chan({4}, dt::f32, memory::format_tag::a);
  const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  const dnnl::layer_normalization_forward::primitive_desc hint(
      {dnnl::prop_kind::forward_training, data, stat, 0.f, flags}, engine());
  dnnl::layer_normalization_backward::primitive_desc pd;
  try {
    pd = dnnl::layer_normalization_backward::primitive_desc(
        {dnnl::prop_kind::backward, diff, data, stat, 0.f, flags}, engine(), hint);
  } catch (const dnnl::error &) {
    FAIL() << "the mixed f16/f32 call is now refused: revise finding O3";
  }
  const size_t diff_bytes = pd.diff_src_desc().get_size();
  ASSERT_EQ(diff_bytes, 16u);  // 8 f16 elements
  constexpr unsigned char kGuard = 0xA5;
  std::vector<unsigned char> diff_src(diff_bytes + 64, kGuard);
  std::vector<float> src(8, 1.f), scale(4, 1.f), shift(4, 0.f), dscale(4), dshift(4);
  std::vector<float> mean(2, 0.5f), var(2, 1.f);
  std::vector<uint16_t> diff_dst(8, 0x3c00);  // f16 1.0
  for (int i = 0; i < 8; ++i) src[i] = static_cast<float>(i);
  dnnl::stream s(engine());
  dnnl::layer_normalization_backward(pd).execute(
      s, {{DNNL_ARG_SRC, memory(data, engine(), src.data())},
          {DNNL_ARG_DIFF_DST, memory(diff, engine(), diff_dst.data())},
          {DNNL_ARG_MEAN, memory(stat, engine(), mean.data())},
          {DNNL_ARG_VARIANCE, memory(stat, engine(), var.data())},
          {DNNL_ARG_SCALE, memory(chan, engine(), scale.data())},
          {DNNL_ARG_SHIFT, memory(chan, engine(), shift.data())},
          {DNNL_ARG_DIFF_SRC, memory(pd.diff_src_desc(), engine(), diff_src.data())},
          {DNNL_ARG_DIFF_SCALE, memory(chan, engine(), dscale.data())},
          {DNNL_ARG_DIFF_SHIFT, memory(chan, engine(), dshift.data())}});
  s.wait();
  size_t overwritten = 0;
  for (size_t i = diff_bytes; i < diff_src.size(); ++i) overwritten += diff_src[i] != kGuard;
  EXPECT_GT(overwritten, 0u) << "diff_src's bounds are now respected: revise finding O3";
}

}  // namespace
