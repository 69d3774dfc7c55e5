// The device emulation (docs/device-emulation.md), each behaviour alone and all together. The
// emulation reads its environment once, so every configuration runs in a child process: a
// DeviceEmu.* test spawns this binary with one Child.* test and the environment it needs, and
// expects it to pass. Child.* tests do nothing outside such a child (CTest leaves them out).
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "tests/device/devemu.hpp"

extern char **environ;

namespace {

using Env = std::map<std::string, std::string>;
using Clock = std::chrono::steady_clock;

bool in_child() {
  return std::getenv("DEVEMU_TEST_CHILD") != nullptr;
}

// Spawns this binary running Child.<name> with `env` added (and every ACLNN_DEVEMU* variable of
// ours removed); its exit status, or -1 if it ran past `timeout_s` (then it is killed).
int run_child(const std::string &name, const Env &env, int timeout_s = 60) {
  std::vector<std::string> vars;
  for (char **e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "ACLNN_DEVEMU", 12) != 0 && std::strncmp(*e, "GTEST_", 6) != 0)
      vars.emplace_back(*e);
  vars.emplace_back("DEVEMU_TEST_CHILD=1");
  for (const auto &[k, v] : env) vars.push_back(k + "=" + v);
  std::vector<char *> envp;
  for (auto &v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string self = std::filesystem::read_symlink("/proc/self/exe");
  std::string filter = "--gtest_filter=Child." + name;
  char *argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -2;
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

#define CHILD_ONLY() \
  if (!in_child()) GTEST_SKIP() << "runs only as a child of a DeviceEmu test"

std::string msg() {
  const char *m = aclGetRecentErrMsg();
  return m != nullptr ? m : "";
}

// ---- A GeluBackward call in the vendor's example style ------------------------------------------
double gelu_grad(double dy, double x) {
  return dy * (0.5 * (1 + std::erf(x / std::sqrt(2.0))) +
               x * std::exp(-x * x / 2) / std::sqrt(2 * M_PI));
}

void *dev_alloc(size_t bytes) {
  void *p = nullptr;
  EXPECT_EQ(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << msg();
  return p;
}
void to_dev(void *d, const std::vector<float> &h) {
  ASSERT_EQ(aclrtMemcpy(d, h.size() * 4, h.data(), h.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS)
      << msg();
}
std::vector<float> from_dev(const void *d, size_t n) {
  std::vector<float> h(n, -1);
  EXPECT_EQ(aclrtMemcpy(h.data(), n * 4, d, n * 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
      << msg();
  return h;
}
aclTensor *tensor1d(void *data, int64_t n) {
  const int64_t dims[1] = {n}, strides[1] = {1};
  return aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1, data);
}

struct Gelu {
  static constexpr int kN = 64;
  std::vector<float> dy, x;
  void *d_dy = nullptr, *d_x = nullptr, *d_out = nullptr;
  aclTensor *t_dy = nullptr, *t_x = nullptr, *t_out = nullptr;
  aclOpExecutor *executor = nullptr;
  uint64_t workspace = 0;

  // Device buffers with inputs and an output full of 7s, tensors, and phase one.
  void prepare() {
    for (int i = 0; i < kN; ++i) {
      dy.push_back(1.0f + 0.01f * i);
      x.push_back(-2.0f + 0.0625f * i);
    }
    d_dy = dev_alloc(kN * 4);
    d_x = dev_alloc(kN * 4);
    d_out = dev_alloc(kN * 4);
    to_dev(d_dy, dy);
    to_dev(d_x, x);
    to_dev(d_out, std::vector<float>(kN, 7.0f));
    t_dy = tensor1d(d_dy, kN);
    t_x = tensor1d(d_x, kN);
    t_out = tensor1d(d_out, kN);
    ASSERT_NE(t_out, nullptr) << msg();
    ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize(t_dy, t_x, t_out, &workspace, &executor),
              ACLNN_SUCCESS)
        << msg();
  }
  bool output_right() {
    const auto out = from_dev(d_out, kN);
    for (int i = 0; i < kN; ++i)
      if (std::fabs(out[i] - gelu_grad(dy[i], x[i])) > 1e-5 * (1 + std::fabs(out[i]))) return false;
    return true;
  }
  bool output_untouched() {
    for (float v : from_dev(d_out, kN))
      if (v != 7.0f) return false;
    return true;
  }
  void release() {
    aclDestroyTensor(t_dy);
    aclDestroyTensor(t_x);
    aclDestroyTensor(t_out);
    aclrtFree(d_dy);
    aclrtFree(d_x);
    aclrtFree(d_out);
  }
};

void init_device(int device = 0) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << msg();
  ASSERT_EQ(aclrtSetDevice(device), ACL_SUCCESS) << msg();
}

// The whole vendor-example flow: inputs up, both phases, synchronize, result down.
void gelu_flow_is_right() {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS) << msg();
  Gelu g;
  g.prepare();
  ASSERT_EQ(aclnnGeluBackward(nullptr, g.workspace, g.executor, stream), ACLNN_SUCCESS) << msg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << msg();
  EXPECT_TRUE(g.output_right());
  g.release();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS) << msg();
}

// ==== Plain forwarder
// =============================================================================
TEST(Child, Plain) {
  CHILD_ONLY();
  init_device();
  gelu_flow_is_right();
  // The built-in runtime's memory is host memory: a host read works (it would not on a device).
  void *p = dev_alloc(64);
  to_dev(p, {3.5f});
  EXPECT_EQ(*static_cast<volatile float *>(p), 3.5f);
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);  // the built-in runtime lets it be called twice
  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID);  // its one device
  aclrtFree(p);
}
TEST(DeviceEmu, PlainForwarderKeepsTheBuiltInRuntime) {
  EXPECT_EQ(run_child("Plain", {}), 0);
  EXPECT_EQ(run_child("Plain", {{"ACLNN_DEVEMU", ""}}), 0);
  // A misspelt behaviour is not silently a plain forwarder.
  EXPECT_EQ(run_child("Plain", {{"ACLNN_DEVEMU", "memroy"}}), 128 + SIGABRT);
}

// ==== memory
// ======================================================================================
TEST(Child, Memory) {
  CHILD_ONLY();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  init_device();
  void *a = dev_alloc(100), *b = dev_alloc(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 32, 0u);
  EXPECT_DEATH({ std::printf("%f\n", *static_cast<volatile float *>(a)); }, "");
  EXPECT_DEATH({ *static_cast<volatile float *>(b) = 1; }, "");
  std::vector<float> h = {1, 2, 3, 4};
  float back[4] = {};
  // Each pointer against its kind.
  EXPECT_EQ(aclrtMemcpy(a, 100, h.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << msg();
  EXPECT_EQ(aclrtMemcpy(b, 100, a, 16, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS) << msg();
  EXPECT_EQ(aclrtMemcpy(back, 16, b, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << msg();
  EXPECT_EQ(back[3], 4.0f);
  EXPECT_EQ(aclrtMemcpy(a, 100, b, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(msg().find("src"), std::string::npos) << msg();
  EXPECT_NE(msg().find("device memory"), std::string::npos) << msg();
  EXPECT_EQ(aclrtMemcpy(back, 16, h.data(), 16, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_NE(msg().find("not inside a live aclrtMalloc allocation"), std::string::npos) << msg();
  EXPECT_EQ(aclrtMemcpy(a, 100, back, 16, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemcpy(back, 16, a, 16, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemcpy(back, 16, h.data(), 16, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(a, 8, h.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
  // Inside an allocation, pointer arithmetic holds; past its end it does not.
  EXPECT_EQ(aclrtMemcpy(static_cast<char *>(a) + 96, 4, h.data(), 4, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS)
      << msg();
  EXPECT_EQ(aclrtMemcpy(static_cast<char *>(a) + 96, 8, h.data(), 8, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtFree(static_cast<char *>(a) + 4), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(back, 16, a, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
  // An op over device memory is right; a tensor over host memory faults its kernel.
  gelu_flow_is_right();
  Gelu g;
  g.prepare();
  std::vector<float> host_out(Gelu::kN);
  aclTensor *t_host = tensor1d(host_out.data(), Gelu::kN);
  ASSERT_NE(t_host, nullptr);
  aclOpExecutor *ex = nullptr;
  uint64_t ws = 0;
  ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize(g.t_dy, g.t_x, t_host, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnGeluBackward(nullptr, ws, ex, nullptr), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_NE(msg().find("host memory"), std::string::npos) << msg();
  // The view of an op may start inside an allocation.
  aclTensor *tail = nullptr;
  {
    const int64_t dims[1] = {Gelu::kN / 2}, strides[1] = {1};
    tail = aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1,
                           static_cast<float *>(g.d_out) + Gelu::kN / 2);
  }
  aclTensor *dy_tail = nullptr, *x_tail = nullptr;
  {
    const int64_t dims[1] = {Gelu::kN / 2}, strides[1] = {1};
    dy_tail = aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1,
                              static_cast<float *>(g.d_dy) + Gelu::kN / 2);
    x_tail = aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1,
                             static_cast<float *>(g.d_x) + Gelu::kN / 2);
  }
  ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize(dy_tail, x_tail, tail, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnGeluBackward(nullptr, ws, ex, nullptr), ACLNN_SUCCESS) << msg();
  const auto out = from_dev(g.d_out, Gelu::kN);
  EXPECT_EQ(out[0], 7.0f);
  EXPECT_NEAR(out[Gelu::kN - 1], gelu_grad(g.dy.back(), g.x.back()), 1e-5);
}
TEST(DeviceEmu, MemoryIsDeviceMemory) {
  EXPECT_EQ(run_child("Memory", {{"ACLNN_DEVEMU", "memory"}}), 0);
}

// ==== stream
// ======================================================================================
TEST(Child, Stream) {
  CHILD_ONLY();
  init_device();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Gelu g;
  g.prepare();
  ASSERT_EQ(aclnnGeluBackward(nullptr, g.workspace, g.executor, stream), ACLNN_SUCCESS) << msg();
  EXPECT_TRUE(g.output_untouched()) << "the kernel ran before the stream was synchronised";
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << msg();
  EXPECT_TRUE(g.output_right());
  // Phase two's host-side checks answer at once (ABI-TWOPHASE-3/4).
  EXPECT_EQ(aclnnGeluBackward(nullptr, 0, g.executor, stream), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(msg().find("already run"), std::string::npos) << msg();
  EXPECT_EQ(aclnnGeluBackward(nullptr, 0, nullptr, stream), ACLNN_ERR_PARAM_NULLPTR);
  aclOpExecutor *ex = nullptr;
  uint64_t ws = 0;
  ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize(g.t_dy, g.t_x, g.t_out, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnGeluBackward(nullptr, 16, ex, stream), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(msg().find("workspace is NULL"), std::string::npos) << msg();
  EXPECT_EQ(aclnnSeluBackward(nullptr, 0, ex, stream), ACLNN_ERR_PARAM_INVALID);  // other op's
  // A repeatable executor runs twice, and its destroy waits behind its runs.
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnGeluBackward(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnGeluBackward(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << msg();
  // The default stream (NULL) too.
  ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize(g.t_dy, g.t_x, g.t_out, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnGeluBackward(nullptr, ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << msg();
  // aclrtDestroyStream waits for the stream's pending kernel.
  to_dev(g.d_out, std::vector<float>(Gelu::kN, 7.0f));
  ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize(g.t_dy, g.t_x, g.t_out, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnGeluBackward(nullptr, ws, ex, stream), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(g.output_right());
  g.release();
}
TEST(DeviceEmu, StreamRunsKernelsAsynchronously) {
  // A long delay, so that "the output is still stale" does not depend on scheduling.
  EXPECT_EQ(
      run_child("Stream", {{"ACLNN_DEVEMU", "stream"}, {"ACLNN_DEVEMU_KERNEL_DELAY_US", "200000"}}),
      0);
}

TEST(Child, KernelFailureAtSynchronize) {
  CHILD_ONLY();
  init_device();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Gelu g;
  g.prepare();
  EXPECT_EQ(aclnnGeluBackward(nullptr, g.workspace, g.executor, stream), ACLNN_SUCCESS) << msg();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACLNN_ERR_INNER);
  EXPECT_NE(msg().find("kernel failed on purpose"), std::string::npos) << msg();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << "a failure is reported once";
  g.release();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}
TEST(DeviceEmu, KernelFailureSurfacesAtSynchronize) {
  EXPECT_EQ(run_child("KernelFailureAtSynchronize",
                      {{"ACLNN_DEVEMU", "stream"}, {"ACLNN_DEVEMU_INNER", DEVEMU_LIB_FAILING}}),
            0);
}

// ==== thread
// ======================================================================================
TEST(Child, Thread) {
  CHILD_ONLY();
  init_device();
  void *p = dev_alloc(64);  // this thread has device 0
  std::thread([&] {
    void *q = nullptr;
    EXPECT_EQ(aclrtMalloc(&q, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_NE(msg().find("no device is set on this thread"), std::string::npos) << msg();
    aclrtStream s = nullptr;
    EXPECT_EQ(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_EQ(tensor1d(p, 16), nullptr);
    float h[4];
    EXPECT_EQ(aclrtMemcpy(h, 16, p, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_CONTEXT_NULL);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(h, 16, p, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << msg();
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(h, 16, p, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_CONTEXT_NULL);
  }).join();
  gelu_flow_is_right();
  aclrtFree(p);
}
TEST(DeviceEmu, ThreadWithoutDeviceIsRefused) {
  EXPECT_EQ(run_child("Thread", {{"ACLNN_DEVEMU", "thread"}}), 0);
}

// ==== fork
// ========================================================================================
TEST(Child, Fresh) {  // an exec'd process: the runtime is its own
  CHILD_ONLY();
  init_device();
  void *p = dev_alloc(64);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
}

TEST(Child, Fork) {
  CHILD_ONLY();
  // Forked before the runtime was initialised: fine.
  pid_t pid = fork();
  if (pid == 0) {
    void *p = nullptr;
    _exit(aclInit(nullptr) == 0 && aclrtSetDevice(0) == 0 &&
                  aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) == 0
              ? 0
              : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  init_device();
  // Forked after: refused, with a message naming the fork.
  pid = fork();
  if (pid == 0) {
    void *p = nullptr;
    int bad = 0;
    bad |= aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_ERROR_RT_DRV_INTERNAL_ERROR;
    bad |= (msg().find("forked") == std::string::npos) << 1;
    bad |= (aclrtSetDevice(0) != ACL_ERROR_RT_DRV_INTERNAL_ERROR) << 2;
    bad |= (tensor1d(nullptr, 0) != nullptr) << 3;
    bad |= (aclInit(nullptr) != ACL_ERROR_RT_DRV_INTERNAL_ERROR) << 4;
    _exit(bad);
  }
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failed checks (bits)";
  // Forked, then exec'd: a fresh process is fine.
  pid = fork();
  if (pid == 0) {
    std::string self = std::filesystem::read_symlink("/proc/self/exe");
    char filter[] = "--gtest_filter=Child.Fresh";
    char *argv[] = {self.data(), filter, nullptr};
    execv(self.c_str(), argv);
    _exit(127);
  }
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // The parent itself goes on.
  gelu_flow_is_right();
}
TEST(DeviceEmu, ForkedChildIsRefusedExecIsNot) {
  EXPECT_EQ(run_child("Fork", {{"ACLNN_DEVEMU", "fork"}}), 0);
}

// ==== devices
// =====================================================================================
TEST(Child, Devices) {
  CHILD_ONLY();
  const int n = std::atoi(std::getenv("EXPECT_DEVICES"));
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  for (int d = 0; d < n; ++d) EXPECT_EQ(aclrtSetDevice(d), ACL_SUCCESS) << d << ": " << msg();
  EXPECT_EQ(aclrtSetDevice(n), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_NE(msg().find("is not a device"), std::string::npos) << msg();
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtResetDevice(n), ACL_ERROR_RT_INVALID_DEVICEID);
  ASSERT_EQ(aclrtSetDevice(n - 1), ACL_SUCCESS);
  gelu_flow_is_right();  // on the last device
}
TEST(DeviceEmu, DeviceIds) {
  EXPECT_EQ(run_child("Devices", {{"ACLNN_DEVEMU", "devices"}, {"EXPECT_DEVICES", "2"}}), 0);
  EXPECT_EQ(run_child("Devices", {{"ACLNN_DEVEMU", "devices"},
                                  {"ACLNN_DEVEMU_DEVICES", "5"},
                                  {"EXPECT_DEVICES", "5"}}),
            0);
}

// ==== first-call
// ==================================================================================
TEST(Child, FirstCall) {
  CHILD_ONLY();
  const double delay_ms = std::atof(std::getenv("ACLNN_DEVEMU_FIRST_CALL_MS"));
  auto t0 = Clock::now();
  init_device();
  const double init_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_GE(init_ms, 0.8 * std::atof(std::getenv("ACLNN_DEVEMU_INIT_MS")));
  EXPECT_EQ(devemu::kernels_loaded(), 0u);
  Gelu g;
  t0 = Clock::now();
  g.prepare();  // GeluBackward's first phase one
  const double first_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_GE(first_ms, 0.8 * delay_ms);
  for (int k = 0; k < 3; ++k) {
    aclOpExecutor *ex = nullptr;
    uint64_t ws = 0;
    ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize(g.t_dy, g.t_x, g.t_out, &ws, &ex), ACLNN_SUCCESS);
    aclDestroyAclOpExecutor(ex);
  }
  EXPECT_EQ(devemu::kernels_loaded(), 1u) << "GeluBackward's kernel is loaded once";
  aclOpExecutor *ex = nullptr;
  uint64_t ws = 0;
  t0 = Clock::now();
  ASSERT_EQ(aclnnSeluBackwardGetWorkspaceSize(g.t_dy, g.t_x, g.t_out, &ws, &ex), ACLNN_SUCCESS);
  const double selu_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_GE(selu_ms, 0.8 * delay_ms) << "each op loads its own kernel";
  EXPECT_EQ(devemu::kernels_loaded(), 2u);
  aclDestroyAclOpExecutor(ex);
  aclDestroyAclOpExecutor(g.executor);
  g.release();
}
TEST(DeviceEmu, FirstCallOfEachOpIsSlow) {
  EXPECT_EQ(run_child("FirstCall", {{"ACLNN_DEVEMU", "first-call"},
                                    {"ACLNN_DEVEMU_FIRST_CALL_MS", "300"},
                                    {"ACLNN_DEVEMU_INIT_MS", "100"}}),
            0);
}

// ==== Fault injection
// ==============================================================================
TEST(Child, DeviceDies) {
  CHILD_ONLY();
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  // Device 1 dies after its 4th call: aclrtSetDevice, two aclrtMalloc, one aclrtFree.
  std::thread([] {
    ASSERT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
    void *a = dev_alloc(64), *b = dev_alloc(64);
    EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(b), ACL_ERROR_RT_LOST_HEARTBEAT);
    EXPECT_NE(msg().find("device 1 is lost"), std::string::npos) << msg();
    EXPECT_EQ(tensor1d(nullptr, 0), nullptr);
    EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_RT_LOST_HEARTBEAT);
  }).join();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << msg();  // device 0 lives on
  gelu_flow_is_right();
}
TEST(Child, DeadDeviceStaysDead) {  // a later process, same state directory
  CHILD_ONLY();
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(1), ACL_ERROR_RT_LOST_HEARTBEAT);
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
}
TEST(DeviceEmu, FailAfterKillsTheDeviceForLaterProcessesToo) {
  const std::string dir = testing::TempDir() + "devemu-state-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // (`memory`: what the dead device keeps is not a host leak under LeakSanitizer.)
  EXPECT_EQ(run_child("DeviceDies", {{"ACLNN_DEVEMU", "thread,devices,memory"},
                                     {"ACLNN_DEVEMU_FAIL_AFTER", "4"},
                                     {"ACLNN_DEVEMU_FAIL_DEVICE", "1"},
                                     {"ACLNN_DEVEMU_STATE_DIR", dir}}),
            0);
  EXPECT_TRUE(std::filesystem::exists(dir + "/device1.dead"));
  EXPECT_EQ(run_child("DeadDeviceStaysDead",
                      {{"ACLNN_DEVEMU", "thread,devices"}, {"ACLNN_DEVEMU_STATE_DIR", dir}}),
            0);
  std::filesystem::remove_all(dir);
}

TEST(Child, MemoryCapacity) {
  CHILD_ONLY();
  init_device();
  void *a = dev_alloc(3000), *b = nullptr;
  EXPECT_EQ(aclrtMalloc(&b, 1200, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_NE(msg().find("do not fit"), std::string::npos) << msg();
  b = dev_alloc(1000);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  a = dev_alloc(3000);
  aclrtFree(a);
  aclrtFree(b);
}
TEST(DeviceEmu, MemoryCapacity) {
  EXPECT_EQ(run_child("MemoryCapacity", {{"ACLNN_DEVEMU_MEMORY_BYTES", "4096"}}), 0);
  EXPECT_EQ(run_child("MemoryCapacity",
                      {{"ACLNN_DEVEMU", "memory"}, {"ACLNN_DEVEMU_MEMORY_BYTES", "4096"}}),
            0);
}

TEST(Child, Hang) {
  CHILD_ONLY();
  init_device();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Gelu g;
  g.prepare();
  ASSERT_EQ(aclnnGeluBackward(nullptr, 0, g.executor, stream), ACLNN_SUCCESS);  // kernel 1
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  aclOpExecutor *ex = nullptr;
  uint64_t ws = 0;
  ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize(g.t_dy, g.t_x, g.t_out, &ws, &ex), ACLNN_SUCCESS);
  static std::atomic<bool> returned{false};
  // Kernel 2 never completes: its phase two (`stream` off) or its synchronisation (on) blocks.
  std::thread([=] {
    aclnnGeluBackward(nullptr, ws, ex, stream);
    aclrtSynchronizeStream(stream);
    returned = true;
  }).detach();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(returned.load());
  std::fflush(stdout);
  // exit() with the kernel hung must still end the process.
  std::exit(::testing::Test::HasFailure() ? 1 : 0);
}
TEST(DeviceEmu, HungKernelBlocksAndExitStillWorks) {
  EXPECT_EQ(run_child("Hang", {{"ACLNN_DEVEMU", "stream"}, {"ACLNN_DEVEMU_HANG_AFTER", "2"}}, 30),
            0);
  EXPECT_EQ(run_child("Hang", {{"ACLNN_DEVEMU_HANG_AFTER", "2"}}, 30), 0);
}

// ==== All together, and the broken library behind them ==========================================
TEST(Child, All) {
  CHILD_ONLY();
  init_device(1);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  gelu_flow_is_right();
  void *p = dev_alloc(64);
  EXPECT_DEATH({ std::printf("%f\n", *static_cast<volatile float *>(p)); }, "");
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::thread([&] {
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_CONTEXT_NULL);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_STREAM_CONTEXT) << "device 1's stream";
  }).join();
  EXPECT_EQ(aclrtSetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID);
  aclrtFree(p);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  aclrtResetDevice(1);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}
TEST(DeviceEmu, AllBehavioursTogether) {
  EXPECT_EQ(run_child("All", {{"ACLNN_DEVEMU", "all"}, {"ACLNN_DEVEMU_FIRST_CALL_MS", "50"}}), 0);
}

TEST(Child, BrokenInner) {
  CHILD_ONLY();
  init_device();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  // Its GeluBackward follows the tanh approximation: the values differ, through the emulation.
  Gelu g;
  g.prepare();
  ASSERT_EQ(aclnnGeluBackward(nullptr, 0, g.executor, stream), ACLNN_SUCCESS) << msg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << msg();
  EXPECT_FALSE(g.output_right());
  EXPECT_FALSE(g.output_untouched());
  // Its SeluBackward answers 161002 for a NULL result, with the inner library's message.
  aclOpExecutor *ex = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(aclnnSeluBackwardGetWorkspaceSize(g.t_dy, nullptr, g.t_out, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  g.release();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  // Its aclFinalize fails (ACLNN_BROKEN_TEARDOWN=fail).
  EXPECT_EQ(aclFinalize(), ACL_ERROR_INVALID_PARAM);
}
TEST(DeviceEmu, BrokenLibraryBehindTheEmulationKeepsItsFaults) {
  EXPECT_EQ(run_child("BrokenInner", {{"ACLNN_DEVEMU", "all"},
                                      {"ACLNN_DEVEMU_FIRST_CALL_MS", "0"},
                                      {"ACLNN_DEVEMU_INNER", DEVEMU_LIB_BROKEN},
                                      {"ACLNN_BROKEN_TEARDOWN", "fail"}}),
            0);
}

TEST(Child, MutantInner) {
  CHILD_ONLY();
  init_device();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Gelu g;
  g.prepare();
  // A forwarded failure keeps the inner library's message: this mutant's is empty.
  aclOpExecutor *ex = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(aclnnGeluBackwardGetWorkspaceSize(g.t_dy, nullptr, g.t_out, &ws, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(msg(), "");
  // The emulation's own failure has its own message.
  EXPECT_EQ(aclnnGeluBackward(nullptr, 0, nullptr, stream), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(msg(), "");
  ASSERT_EQ(aclnnGeluBackward(nullptr, 0, g.executor, stream), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(g.output_right());
}
TEST(DeviceEmu, MutantBehindTheEmulationKeepsItsFault) {
#ifdef DEVEMU_LIB_MUTANT_ERRMSG_EMPTY
  EXPECT_EQ(run_child("MutantInner", {{"ACLNN_DEVEMU", "all"},
                                      {"ACLNN_DEVEMU_FIRST_CALL_MS", "0"},
                                      {"ACLNN_DEVEMU_INNER", DEVEMU_LIB_MUTANT_ERRMSG_EMPTY}}),
            0);
#else
  GTEST_SKIP() << "the mutants are not built (ACLNN_BUILD_MUTANTS=OFF)";
#endif
}

// ==== The combined library
// ========================================================================
TEST(Child, Combined) {
  CHILD_ONLY();
  void *h = dlopen(DEVEMU_LIB_COMBINED, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
#define SYM(name) auto name##_ = reinterpret_cast<decltype(&name)>(dlsym(h, #name))
  SYM(aclInit);
  SYM(aclrtSetDevice);
  SYM(aclrtMalloc);
  SYM(aclrtMemcpy);
  SYM(aclCreateTensor);
  SYM(aclnnGeluBackwardGetWorkspaceSize);
  SYM(aclnnGeluBackward);
  SYM(aclrtSynchronizeStream);
  SYM(aclGetRecentErrMsg);
  SYM(aclDestroyTensor);
  SYM(aclrtFree);
#undef SYM
  ASSERT_EQ(aclInit_(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit_(nullptr), ACL_ERROR_REPEAT_INITIALIZE) << "the combined library's own state";
  ASSERT_EQ(aclrtSetDevice_(0), ACL_SUCCESS);
  const int64_t n = 4, dims[1] = {n}, strides[1] = {1};
  std::vector<float> x = {0, 1, 2, 3}, out(n);
  void *d[3];
  for (void *&p : d) {
    ASSERT_EQ(aclrtMalloc_(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy_(p, 16, x.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  }
  aclTensor *t[3];
  for (int i = 0; i < 3; ++i)
    t[i] = aclCreateTensor_(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1, d[i]);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnGeluBackwardGetWorkspaceSize_(t[0], t[1], t[2], &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnGeluBackward_(nullptr, ws, ex, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream_(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg_();
  ASSERT_EQ(aclrtMemcpy_(out.data(), 16, d[2], 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(out[i], gelu_grad(x[i], x[i]), 1e-5);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(aclDestroyTensor_(t[i]), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtFree_(d[i]), ACL_SUCCESS);
  }
}
TEST(DeviceEmu, CombinedLibraryIsTheSameEmulation) {
  EXPECT_EQ(run_child("Combined", {{"ACLNN_DEVEMU", "all"}, {"ACLNN_DEVEMU_FIRST_CALL_MS", "0"}}),
            0);
}

// ==== Exports and the op table
// =====================================================================
std::set<std::string> acl_exports(const std::string &library) {
  std::set<std::string> names;
  FILE *p = popen(("nm -D --defined-only " + library).c_str(), "r");
  if (p == nullptr) return names;
  char line[1024];
  while (std::fgets(line, sizeof line, p) != nullptr) {
    std::istringstream in(line);
    std::string addr, type, name;
    if ((in >> addr >> type >> name) && name.rfind("acl", 0) == 0) names.insert(name);
  }
  pclose(p);
  return names;
}

std::string soname(const std::string &library) {
  FILE *p = popen(("objdump -p " + library).c_str(), "r");
  std::string result;
  char line[1024];
  while (p != nullptr && std::fgets(line, sizeof line, p) != nullptr) {
    std::istringstream in(line);
    std::string key, value;
    if ((in >> key >> value) && key == "SONAME") result = value;
  }
  if (p != nullptr) pclose(p);
  return result;
}

TEST(DeviceEmu, SplitLibrariesExportTheirShareOnly) {
  const std::set<std::string> ascendcl = {
      "aclInit",           "aclFinalize",        "aclrtSetDevice",         "aclrtResetDevice",
      "aclrtCreateStream", "aclrtDestroyStream", "aclrtSynchronizeStream", "aclrtMalloc",
      "aclrtFree",         "aclrtMemcpy",        "aclGetRecentErrMsg"};
  const std::set<std::string> nnopbase = {
      "aclCreateTensor",        "aclDestroyTensor",    "aclCreateIntArray",
      "aclDestroyIntArray",     "aclCreateBoolArray",  "aclDestroyBoolArray",
      "aclGetViewShape",        "aclGetViewStrides",   "aclGetViewOffset",
      "aclGetStorageShape",     "aclGetFormat",        "aclGetDataType",
      "aclGetIntArraySize",     "aclGetBoolArraySize", "aclSetAclOpExecutorRepeatable",
      "aclDestroyAclOpExecutor"};
  std::set<std::string> opapi;
#define DEVEMU_OP(Name, Params, Args) \
  opapi.insert("aclnn" #Name);        \
  opapi.insert("aclnn" #Name "GetWorkspaceSize");
#include "tests/device/ops.def"
#undef DEVEMU_OP
  EXPECT_EQ(acl_exports(DEVEMU_LIB_ASCENDCL), ascendcl);
  EXPECT_EQ(acl_exports(DEVEMU_LIB_NNOPBASE), nnopbase);
  EXPECT_EQ(acl_exports(DEVEMU_LIB_OPAPI), opapi);
  std::set<std::string> all = ascendcl;
  all.insert(nnopbase.begin(), nnopbase.end());
  all.insert(opapi.begin(), opapi.end());
  EXPECT_EQ(acl_exports(DEVEMU_LIB_COMBINED), all);
  EXPECT_EQ(acl_exports(DEVEMU_LIB_CPU), all) << "the emulation covers the built-in ABI";
  EXPECT_EQ(soname(DEVEMU_LIB_ASCENDCL), "libascendcl.so");
  EXPECT_EQ(soname(DEVEMU_LIB_NNOPBASE), "libnnopbase.so");
  EXPECT_EQ(soname(DEVEMU_LIB_OPAPI), "libopapi.so");
  EXPECT_EQ(soname(DEVEMU_LIB_COMBINED), "libaclnn_devemu.so");
  EXPECT_NE(std::string(DEVEMU_LIB_ASCENDCL).find("/cann/lib64/libascendcl.so"), std::string::npos);
}

TEST(DeviceEmu, OpTableHasEveryOpOfTheHeaders) {
  std::set<std::string> declared, table;
  const std::regex phase_one(R"(aclnn(\w+)GetWorkspaceSize\s*\()");
  for (const auto &f : std::filesystem::directory_iterator(DEVEMU_SOURCE_DIR "/include/aclnnop")) {
    std::ifstream in(f.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), phase_one), end; it != end; ++it)
      declared.insert((*it)[1]);
  }
#define DEVEMU_OP(Name, Params, Args) table.insert(#Name);
#include "tests/device/ops.def"
#undef DEVEMU_OP
  EXPECT_FALSE(declared.empty());
  EXPECT_EQ(table, declared);
}

}  // namespace
