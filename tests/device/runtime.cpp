// libascendcl: configuration, the inner library, recent messages, the gate every call passes
// (forked child, device per thread, dead devices), and aclInit/aclFinalize/aclrtSetDevice/
// aclrtResetDevice/aclGetRecentErrMsg.
#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>

#include "mutants/forward.hpp"
#include "tests/device/state.hpp"

namespace devemu {
namespace {

[[noreturn]] void config_error(const std::string &what) {
  std::fprintf(stderr, "aclnn device emulation: %s\n", what.c_str());
  std::abort();
}

int64_t env_int(const char *name, int64_t fallback, int64_t min) {
  const char *v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char *end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  if (*end != '\0' || n < min)
    config_error(fmt::format("{}={} is not an integer >= {}", name, v, min));
  return n;
}

Config read_config() {
  Config c;
  if (const char *v = std::getenv("ACLNN_DEVEMU")) {
    std::stringstream list(v);
    for (std::string item; std::getline(list, item, ',');) {
      item.erase(0, item.find_first_not_of(" \t"));
      item.erase(item.find_last_not_of(" \t") + 1);
      if (item.empty()) continue;
      const bool all = item == "all";
      bool known = all;
      auto flag = [&](const char *name, bool &f) {
        if (all || item == name) f = known = true;
      };
      flag("memory", c.memory);
      flag("stream", c.stream);
      flag("thread", c.thread);
      flag("fork", c.fork);
      flag("devices", c.devices);
      flag("first-call", c.first_call);
      if (!known)
        config_error(
            fmt::format("ACLNN_DEVEMU: unknown behaviour '{}' (memory, stream, thread, "
                        "fork, devices, first-call or all)",
                        item));
    }
  }
  const char *inner = std::getenv("ACLNN_DEVEMU_INNER");
  c.inner = inner != nullptr && *inner != '\0' ? inner : ACLNN_DEVEMU_DEFAULT_INNER;
  c.device_count = c.devices ? static_cast<int>(env_int("ACLNN_DEVEMU_DEVICES", 2, 1)) : 1;
  if (c.device_count > kMaxDevices)
    config_error(fmt::format("ACLNN_DEVEMU_DEVICES is at most {}", kMaxDevices));
  c.kernel_delay_us = static_cast<uint64_t>(env_int("ACLNN_DEVEMU_KERNEL_DELAY_US", 200, 0));
  c.first_call_ms = static_cast<uint64_t>(env_int("ACLNN_DEVEMU_FIRST_CALL_MS", 300, 0));
  c.init_ms = static_cast<uint64_t>(env_int("ACLNN_DEVEMU_INIT_MS", 0, 0));
  c.fail_after = env_int("ACLNN_DEVEMU_FAIL_AFTER", -1, 0);
  c.fail_device = static_cast<int>(env_int("ACLNN_DEVEMU_FAIL_DEVICE", -1, 0));
  if (const char *d = std::getenv("ACLNN_DEVEMU_STATE_DIR")) c.state_dir = d;
  c.memory_bytes = env_int("ACLNN_DEVEMU_MEMORY_BYTES", -1, 0);
  c.hang_after = env_int("ACLNN_DEVEMU_HANG_AFTER", -1, 1);
  return c;
}

// ---- Per-thread and per-process state ---------------------------------------------------------
thread_local std::string t_message;
thread_local bool t_own_message = false;
thread_local int t_device = -1;  // set by aclrtSetDevice in this thread

std::atomic<int> g_device{-1};            // the last device set by any thread (`thread` off)
std::atomic<bool> g_initialised{false};   // aclInit or aclrtSetDevice ran in this process
std::atomic<pid_t> g_init_pid{0};         // where it ran
std::atomic<bool> g_forked_child{false};  // refused (`fork`)
std::atomic<bool> g_dead[kMaxDevices];
std::atomic<int> g_marker_checked[kMaxDevices];  // 0 not yet, 1 checked
std::atomic<int64_t> g_calls[kMaxDevices];
std::mutex g_lifecycle;  // aclInit/aclFinalize
bool g_acl_initialised = false, g_acl_finalized = false;

std::string marker_path(int device) {
  return fmt::format("{}/device{}.dead", config().state_dir, device);
}

void mark_dead(int device) {
  if (g_dead[device].exchange(true)) return;
  if (config().state_dir.empty()) return;
  const int fd = ::open(marker_path(device).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    const std::string pid = fmt::format("{}\n", getpid());
    [[maybe_unused]] const ssize_t n = ::write(fd, pid.data(), pid.size());
    ::close(fd);
  }
}

bool marker_present(int device) {
  struct stat st;
  return !config().state_dir.empty() && ::stat(marker_path(device).c_str(), &st) == 0;
}

// A call on `device`: counts it (ACLNN_DEVEMU_FAIL_AFTER) and says whether it fails.
aclError call_on_device(const char *api, int device) {
  if (device < 0 || device >= kMaxDevices) return 0;
  if (device_dead(device)) return dead_device_error(api, device);
  const Config &c = config();
  if (c.fail_after >= 0 && (c.fail_device < 0 || c.fail_device == device)) {
    if (g_calls[device].fetch_add(1) + 1 > c.fail_after) {
      mark_dead(device);
      return dead_device_error(api, device);
    }
  }
  return 0;
}

void child_after_fork() {
  // Runs in the child of every fork(): a process that had initialised the runtime refuses it.
  if (g_initialised.load() && config().fork) g_forked_child = true;
}

__attribute__((constructor)) void register_fork_handler() {
  pthread_atfork([] { state_mutex().lock(); }, [] { state_mutex().unlock(); },
                 [] {
                   streams_after_fork_child();
                   state_mutex().unlock();
                   child_after_fork();
                 });
}

}  // namespace

const Config &config() {
  static const Config c = read_config();
  return c;
}

std::mutex &state_mutex() {
  static auto *m = new std::mutex;  // never destroyed: detached stream workers may outlive statics
  return *m;
}

void *inner_symbol(const char *name) {
  static void *handle = [] {
    // As the mutation shim loads its real library: it binds to its own acl* symbols.
    void *h = aclnn_forward::open_private(config().inner.c_str());
    if (h == nullptr)
      config_error(fmt::format("cannot load the inner library {}: {}", config().inner, dlerror()));
    return h;
  }();
  void *f = dlsym(handle, name);
  if (f == nullptr)
    config_error(fmt::format("the inner library {} has no {}", config().inner, name));
  return f;
}

aclError fail(aclError code, const std::string &text) {
  t_message = text;
  t_own_message = true;
  return code;
}

void forwarding() {
  t_own_message = false;
}

int current_device() {
  if (t_device >= 0) return t_device;
  if (!config().thread && g_device.load() >= 0) return g_device.load();
  return 0;
}

bool device_dead(int device) {
  if (device < 0 || device >= kMaxDevices) return false;
  if (g_dead[device].load()) return true;
  if (g_marker_checked[device].exchange(1) == 0 && marker_present(device)) g_dead[device] = true;
  return g_dead[device].load();
}

aclError dead_device_error(const char *api, int device) {
  return fail(
      kDeviceLost,
      fmt::format("{}: device {} is lost (it stopped answering: ACL_ERROR_RT_LOST_HEARTBEAT "
                  "{}); every call on it fails",
                  api, device, kDeviceLost));
}

aclError enter(const char *api, Need need) {
  if (g_forked_child.load())
    return fail(ACL_ERROR_RT_DRV_INTERNAL_ERROR,
                fmt::format("{}: this process (pid {}) was forked from pid {} after that process "
                            "initialised the device runtime; a forked child cannot use it "
                            "(ACL_ERROR_RT_DRV_INTERNAL_ERROR {}): start a fresh process (exec)",
                            api, getpid(), g_init_pid.load(), ACL_ERROR_RT_DRV_INTERNAL_ERROR));
  if (need == Need::kProcess) return 0;
  if (config().thread && t_device < 0)
    return fail(ACL_ERROR_RT_CONTEXT_NULL,
                fmt::format("{}: no device is set on this thread (ACL_ERROR_RT_CONTEXT_NULL {}): "
                            "call aclrtSetDevice in this thread first",
                            api, ACL_ERROR_RT_CONTEXT_NULL));
  return call_on_device(api, current_device());
}

namespace {
void initialised() {
  if (!g_initialised.exchange(true)) g_init_pid = getpid();
}

aclError check_device_id(const char *api, int32_t deviceId) {
  const int n = config().device_count;
  if (deviceId < 0 || deviceId >= n)
    return fail(ACL_ERROR_RT_INVALID_DEVICEID,
                fmt::format("{}: deviceId {} is not a device: this host has {} (ids 0..{}) "
                            "(ACL_ERROR_RT_INVALID_DEVICEID {})",
                            api, deviceId, n, n - 1, ACL_ERROR_RT_INVALID_DEVICEID));
  return 0;
}
}  // namespace

}  // namespace devemu

using namespace devemu;

extern "C" {

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath) {
  static const auto real = inner<decltype(&aclInit)>("aclInit");
  if (aclError e = enter("aclInit", Need::kProcess)) return e;
  std::lock_guard lock(g_lifecycle);
  if (config().any() && g_acl_initialised)
    return fail(ACL_ERROR_REPEAT_INITIALIZE,
                fmt::format("aclInit: the runtime is already initialised in this process "
                            "(ACL_ERROR_REPEAT_INITIALIZE {})",
                            ACL_ERROR_REPEAT_INITIALIZE));
  forwarding();
  const aclError e = real(configPath);
  if (e != ACL_SUCCESS) return e;
  g_acl_initialised = true;
  g_acl_finalized = false;
  initialised();
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclFinalize(void) {
  static const auto real = inner<decltype(&aclFinalize)>("aclFinalize");
  if (aclError e = enter("aclFinalize", Need::kProcess)) return e;
  std::lock_guard lock(g_lifecycle);
  if (config().any() && g_acl_finalized)
    return fail(ACL_ERROR_REPEAT_FINALIZE,
                fmt::format("aclFinalize: the runtime is already finalized "
                            "(ACL_ERROR_REPEAT_FINALIZE {})",
                            ACL_ERROR_REPEAT_FINALIZE));
  forwarding();
  const aclError e = real();
  if (e != ACL_SUCCESS) return e;
  g_acl_initialised = false;
  g_acl_finalized = true;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId) {
  static const auto real = inner<decltype(&aclrtSetDevice)>("aclrtSetDevice");
  if (aclError e = enter("aclrtSetDevice", Need::kProcess)) return e;
  const Config &c = config();
  if (c.devices) {
    if (aclError e = check_device_id("aclrtSetDevice", deviceId)) return e;
  }
  forwarding();
  // The inner library has one device: the emulated ones all map onto its device 0.
  if (aclError e = real(c.devices ? 0 : deviceId)) return e;
  if (deviceId >= 0 && deviceId < kMaxDevices) {
    g_marker_checked[deviceId] = 0;  // a device recorded dead by another process since
    if (aclError e = call_on_device("aclrtSetDevice", deviceId)) return e;
  }
  static std::once_flag first;
  std::call_once(first, [&] {
    if (c.init_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(c.init_ms));
  });
  t_device = deviceId;
  g_device = deviceId;
  initialised();
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId) {
  static const auto real = inner<decltype(&aclrtResetDevice)>("aclrtResetDevice");
  if (aclError e = enter("aclrtResetDevice", Need::kProcess)) return e;
  const Config &c = config();
  if (c.devices) {
    if (aclError e = check_device_id("aclrtResetDevice", deviceId)) return e;
  }
  forwarding();
  if (aclError e = real(c.devices ? 0 : deviceId)) return e;
  if (c.thread && t_device == deviceId) t_device = -1;  // its context is gone for this thread
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void) {
  if (t_own_message) return t_message.c_str();
  static const auto real = inner<decltype(&aclGetRecentErrMsg)>("aclGetRecentErrMsg");
  return real();
}

}  // extern "C"
