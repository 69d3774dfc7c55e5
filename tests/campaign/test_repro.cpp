// Standalone repro programs: generated for GeluBackward cases, written out, compiled with the
// system C++ compiler against the built libaclnn_cpu.so and run. A conforming case exits 0, a
// repro whose embedded value of record is wrong exits 1 and prints the mismatch.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "campaign/repro.hpp"
#include "properties/op.hpp"
#include "reference/rounding.hpp"

#ifndef ACLNN_TEST_INCLUDE_DIR
#error "ACLNN_TEST_INCLUDE_DIR (the repo's include/ directory) must be defined"
#endif
#ifndef ACLNN_TEST_CPU_LIBRARY
#error "ACLNN_TEST_CPU_LIBRARY (the path of the built libaclnn_cpu.so) must be defined"
#endif

namespace {
using namespace aclnn_conform;
using aclnn_ref::DType;
namespace fs = std::filesystem;

uint64_t bits_of(double v, DType t) {
  return aclnn_ref::bits_from_double(v, t);
}

TensorArg filled(DType t, std::vector<int64_t> shape, const std::vector<double> &values) {
  TensorArg a = TensorArg::contiguous(t, std::move(shape));
  for (int64_t i = 0; i < a.numel(); ++i)
    a.set_bits_at(i, bits_of(values[static_cast<size_t>(i) % values.size()], t));
  return a;
}

// A valid mixed-dtype call on Atlas A3: fp32 gradOutput broadcast against a non-contiguous fp16
// self with a storage offset, values at GELU's hard spots (root, specials, signed zero).
Case valid_case() {
  Case c;
  c.op = "GeluBackward";
  c.product = Product::kAtlasA3;
  c.tensors.emplace_back("gradOutput", filled(DType::kFloat32, {3}, {1.5, -0.0, 3.0}));
  // self: a [2,3] view with strides [1,2] and offset 1 over 8 fp16 elements.
  TensorArg x;
  x.dtype = DType::kFloat16;
  x.shape = {2, 3};
  x.strides = {1, 2};
  x.offset = 1;
  x.storage.resize(8 * 2);
  const double xs[] = {-0.75179152410535422, 2.0, -8.0, INFINITY, NAN, 0.5};
  for (int64_t i = 0; i < 6; ++i) x.set_bits_at(i, bits_of(xs[i], DType::kFloat16));
  c.tensors.emplace_back("self", std::move(x));
  c.tensors.emplace_back("gradInput", TensorArg::contiguous(DType::kFloat32, {2, 3}));
  c.refresh_views();
  return c;
}

// GELU-BCAST-2: gradInput's shape is not the broadcast shape.
Case invalid_case() {
  Case c;
  c.op = "GeluBackward";
  c.tensors.emplace_back("gradOutput", filled(DType::kFloat32, {2, 3}, {1.0, 2.0}));
  c.tensors.emplace_back("self", filled(DType::kFloat32, {2, 3}, {0.5, -1.0}));
  c.tensors.emplace_back("gradInput", TensorArg::contiguous(DType::kFloat32, {2, 4}));
  c.refresh_views();
  return c;
}

// A generated valid case (fixed seed) with a few elements.
Case generated_case() {
  const auto gen = gelu_backward_op().gen_valid(Product::kAtlasA2);
  for (uint64_t seed = 1;; ++seed) {
    Case c = gen(rc::Random(seed), 20).value();
    const TensorArg *out = c.tensor("gradInput");
    if (out && out->numel() >= 4 && out->numel() <= 64) {
      c.refresh_views();
      return c;
    }
  }
}

std::string repro_for(const Case &c, std::vector<aclnn_ref::ExpectedOutput> *values = nullptr) {
  const OpDescriptor &op = gelu_backward_op();
  const auto verdict = op.check(c, {});
  std::vector<aclnn_ref::ExpectedOutput> v;
  if (verdict.ok()) v = values ? *values : op.values(c, {});
  return repro_program(op, c, verdict, v);
}

struct RunResult {
  int exit_code = -1;
  std::string output;
};

RunResult run(const std::string &command) {
  RunResult r;
  FILE *p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool have_compiler() {
  return run("command -v c++").exit_code == 0;
}

class ReproCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_compiler()) GTEST_SKIP() << "no system C++ compiler (c++) found: repros not compiled";
    dir_ = fs::temp_directory_path() /
           ("aclnn_repro_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }

  // Writes, compiles and runs a program; the compile must succeed.
  std::future<RunResult> build_and_run(const std::string &name, const std::string &program) {
    const fs::path src = dir_ / (name + ".cpp"), exe = dir_ / name;
    std::ofstream(src) << program;
    const std::string libdir = fs::path(ACLNN_TEST_CPU_LIBRARY).parent_path().string();
    const std::string compile = "c++ -std=c++17 -O0 -w -I" + std::string(ACLNN_TEST_INCLUDE_DIR) +
                                " " + src.string() + " -o " + exe.string() + " -L" + libdir +
                                " -laclnn_cpu -Wl,-rpath," + libdir;
    return std::async(std::launch::async, [compile, exe] {
      RunResult c = run(compile);
      if (c.exit_code != 0) {
        c.output = "COMPILE FAILED: " + compile + "\n" + c.output;
        c.exit_code = 100;
        return c;
      }
      // The repro must not depend on the environment's product selection.
      return run("env -u ACLNN_CPU_SOC " + exe.string());
    });
  }

  fs::path dir_;
};

TEST_F(ReproCompile, ValidInvalidAndWrongExpectation) {
  // 1. A conforming valid case (non-default product, mixed dtypes, strided input).
  auto valid = build_and_run("valid", repro_for(valid_case()));
  // 2. An invalid case: the repro expects 161002 (GELU-BCAST-2).
  auto invalid = build_and_run("invalid", repro_for(invalid_case()));
  // 3. A generated case whose embedded value of record is deliberately wrong in one element.
  const Case g = generated_case();
  auto values = gelu_backward_op().values(g, {});
  ASSERT_EQ(values.size(), 1u);
  auto &out = values[0].values;
  int64_t flipped = -1;
  for (int64_t i = 0; i < out.numel() && flipped < 0; ++i)
    if (std::isfinite(out.at(i))) flipped = i;
  ASSERT_GE(flipped, 0) << g.describe();
  const int top_mantissa_bit = out.dtype == DType::kFloat32   ? 22
                               : out.dtype == DType::kFloat16 ? 9
                                                              : 6;
  out.set_bits(flipped, out.bits(flipped) ^ (uint64_t{1} << top_mantissa_bit));
  auto wrong = build_and_run("wrong", repro_for(g, &values));

  const RunResult v = valid.get(), i = invalid.get(), w = wrong.get();
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_NE(v.output.find("RESULT: conforms"), std::string::npos) << v.output;
  EXPECT_EQ(i.exit_code, 0) << i.output;
  EXPECT_NE(i.output.find("returned 161002"), std::string::npos) << i.output;
  EXPECT_EQ(w.exit_code, 1) << g.describe() << "\n" << w.output;
  const std::string expect = "gradInput[" + std::to_string(flipped) + "]: expected 0x";
  EXPECT_NE(w.output.find(expect), std::string::npos) << w.output;
  EXPECT_NE(w.output.find(", got 0x"), std::string::npos) << w.output;
  EXPECT_NE(w.output.find("RESULT: deviates"), std::string::npos) << w.output;
}

// ------------------------------------------------------------------ text-level checks (no compile)

TEST(Repro, FollowsTheVendorCallExampleLayout) {
  const Case c = valid_case();
  const std::string p = repro_for(c);
  for (const char *needle : {"#include \"acl/acl.h\"",
                             "#include \"aclnnop/aclnn_gelu_backward.h\"",
                             "#define CHECK_RET",
                             "#define LOG_PRINT",
                             "aclInit(nullptr)",
                             "aclrtSetDevice(deviceId)",
                             "aclrtCreateStream(stream)",
                             "aclrtMalloc(",
                             "ACL_MEMCPY_HOST_TO_DEVICE",
                             "aclCreateTensor(",
                             "ACL_FORMAT_ND",
                             "aclnnGeluBackwardGetWorkspaceSize(gradOutput, self, "
                             "gradInput, &workspaceSize, &executor)",
                             "aclnnGeluBackward(workspaceAddr, workspaceSize, "
                             "executor, stream)",
                             "aclrtSynchronizeStream(stream)",
                             "ACL_MEMCPY_DEVICE_TO_HOST",
                             "aclDestroyTensor(",
                             "aclrtFree(",
                             "aclFinalize()",
                             "ACL_FLOAT16",
                             "{2, 3}, {1, 2}, 1,"})
    EXPECT_NE(p.find(needle), std::string::npos) << needle;
  // Non-default product: the built-in library is told which gates apply.
  EXPECT_NE(p.find("setenv(\"ACLNN_CPU_SOC\", \"ascend910_93\", 1);"), std::string::npos);
  // Nothing but the ABI.
  EXPECT_EQ(p.find("properties/"), std::string::npos);
  EXPECT_EQ(p.find("reference/"), std::string::npos);
}

TEST(Repro, DefaultProductNeedsNoEnvironmentAndNullTensorsAreNullptr) {
  Case c = invalid_case();
  *c.tensor("self") = TensorArg::null();
  const std::string p = repro_for(c);
  EXPECT_EQ(p.find("setenv("), std::string::npos);
  EXPECT_NE(p.find("// self: NULL (passed as nullptr)"), std::string::npos);
  EXPECT_NE(p.find("aclnnGeluBackwardGetWorkspaceSize(gradOutput, nullptr, gradInput"),
            std::string::npos);
  EXPECT_NE(p.find("if (ret != 161001)"), std::string::npos) << p;  // GELU-NULL-1
  EXPECT_NE(p.find("GELU-NULL-1"), std::string::npos);
}

TEST(Repro, AcceptedRangeFollowsTheJudgesUlpDistance) {
  aclnn_ref::ExpectedOutput e;
  e.name = "out";
  e.values = aclnn_ref::HostTensor(DType::kFloat32, {4});
  e.values.set_bits(0, bits_of(1.0, DType::kFloat32));
  e.values.set_bits(1, bits_of(0.0, DType::kFloat32));
  e.values.set_bits(2, bits_of(INFINITY, DType::kFloat32));
  e.values.set_bits(3, bits_of(NAN, DType::kFloat32));
  // Exact: the value itself.
  auto r = accepted_range(e, 0, aclnn_ref::Tolerance::exact(), 0x1p-24);
  EXPECT_EQ(r.lo, 1.0);
  EXPECT_EQ(r.hi, 1.0);
  // 2 ulps (fp32 default): above 1 the quantum is 2^-23, below it 2^-24 (the judge's rule).
  r = accepted_range(e, 0, aclnn_ref::Tolerance::ulp(), 0x1p-24);
  EXPECT_EQ(r.hi, 1.0 + 2 * 0x1p-23);
  EXPECT_EQ(r.lo, 1.0 - 2 * 0x1p-24);
  // Around zero: two subnormal steps either side.
  r = accepted_range(e, 1, aclnn_ref::Tolerance::ulp(), 0x1p-24);
  EXPECT_EQ(r.hi, 2 * 0x1p-149);
  EXPECT_EQ(r.lo, -2 * 0x1p-149);
  // Non-finite values of record accept only their class.
  r = accepted_range(e, 2, aclnn_ref::Tolerance::ulp(), 0x1p-24);
  EXPECT_EQ(r.lo, INFINITY);
  EXPECT_EQ(r.hi, INFINITY);
  r = accepted_range(e, 3, aclnn_ref::Tolerance::ulp(), 0x1p-24);
  EXPECT_TRUE(std::isnan(r.lo));
  // Sums: the condition-aware bound of VAL-TOL-1.
  e.error_scale = {8.0, 0, 0, 0};
  e.term_count = {4, 1, 1, 1};
  e.exact_nearest = {1.0, 0, 0, 0};
  r = accepted_range(e, 0, aclnn_ref::Tolerance::ulp(), 0x1p-24);
  const double bound = (0.5 * 0x1p-23 + 4 * 0x1p-24 * 8.0 + 0x1p-52) * (1 + 0x1p-50);
  EXPECT_DOUBLE_EQ(r.hi - 1.0, bound);
  EXPECT_DOUBLE_EQ(1.0 - r.lo, bound);
}

TEST(Repro, FileNamesAreSafe) {
  EXPECT_EQ(repro_file_name("GeluBackward", "GELU-VALUE-1", 3),
            "repro_GeluBackward_GELU-VALUE-1_3.cpp");
  EXPECT_EQ(repro_file_name("Op", "a/b c", 1), "repro_Op_a_b_c_1.cpp");
}

}  // namespace
