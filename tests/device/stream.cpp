// libascendcl: streams. With `stream`, each stream has a worker thread that runs its kernels in
// order after ACLNN_DEVEMU_KERNEL_DELAY_US; aclrtSynchronizeStream waits for them and returns the
// first failure since the last synchronisation, with its message. Without it, kernels run in the
// calling thread and the stream calls are the inner library's.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <unordered_set>

#include "tests/device/state.hpp"

namespace devemu {
namespace {

struct Stream {
  int device = 0;
  void *inner = nullptr;  // the inner library's stream (NULL for a default stream)
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::function<Result()>> q;
  bool started = false, busy = false, hung = false, closing = false;
  std::thread thread;  // joined by aclrtDestroyStream; a live stream's is left at exit
  std::thread::id worker;
  Result error;  // the first failure since the last synchronisation
};

// Registries, under state_mutex; never destroyed (workers may outlive static destruction).
std::unordered_set<Stream *> &streams() {
  static auto *s = new std::unordered_set<Stream *>;
  return *s;
}
Stream *g_default[kMaxDevices];
std::atomic<bool> g_exiting{false};
std::atomic<int64_t> g_kernels{0};

Stream *lookup(aclrtStream h) {
  std::lock_guard lock(state_mutex());
  return streams().count(static_cast<Stream *>(h)) ? static_cast<Stream *>(h) : nullptr;
}

Stream *default_stream(int device) {
  std::lock_guard lock(state_mutex());
  Stream *&s = g_default[device];
  if (s == nullptr) {
    s = new Stream;
    s->device = device;
  }
  return s;
}

[[noreturn]] void hang_forever() {
  // A kernel that never completes: blocked on a condition nobody signals (no busy loop).
  static auto *m = new std::mutex;
  static auto *cv = new std::condition_variable;
  std::unique_lock lock(*m);
  for (;;) cv->wait(lock);
}

struct Outcome {
  Result result;
  bool own = false;  // decided by the emulator (message in `result`), not by the inner library
};

Outcome execute(Kernel &k, Stream *s) {
  if (k.hang) {
    if (s != nullptr) {
      std::lock_guard lock(s->m);
      s->hung = true;
    }
    hang_forever();
  }
  if (device_dead(k.device))
    return {{kDeviceLost, fmt::format("{}: device {} was lost before the kernel ran "
                                      "(ACL_ERROR_RT_LOST_HEARTBEAT {})",
                                      k.op, k.device, kDeviceLost)},
            true};
  std::string fault = k.host_memory;
  if (fault.empty()) {
    std::lock_guard lock(state_mutex());
    for (const auto &p : k.keep)
      if (p && static_cast<Allocation *>(p.get())->freed)
        fault = fmt::format("it uses device memory {} that aclrtFree released",
                            static_cast<void *>(static_cast<Allocation *>(p.get())->device));
  }
  if (!fault.empty())
    return {{kKernelFault, fmt::format("{}: the kernel faulted on an address it cannot reach: {} "
                                       "(ACL_ERROR_RT_AICORE_EXCEPTION {})",
                                       k.op, fault, kKernelFault)},
            true};
  Outcome o;
  o.result.status = k.run();
  if (o.result.status != 0) {
    static const auto msg = inner<const char *(*)()>("aclGetRecentErrMsg");
    const char *text = msg();  // the inner library's, on the thread that ran it
    o.result.message = text != nullptr ? text : "";
    if (o.result.message.empty())
      o.result.message = fmt::format("{}: the kernel failed with status {}", k.op, o.result.status);
  }
  return o;
}

void worker(Stream *s) {
  std::unique_lock lock(s->m);
  s->worker = std::this_thread::get_id();
  for (;;) {
    s->cv.wait(lock, [&] { return !s->q.empty() || s->closing || g_exiting.load(); });
    if (g_exiting.load()) return;  // the process is exiting: start nothing more
    if (s->q.empty()) return;      // closing: aclrtDestroyStream waited for the work
    auto task = std::move(s->q.front());
    s->q.pop_front();
    s->busy = true;
    lock.unlock();
    const Result r = task();
    lock.lock();
    if (r.status != 0 && s->error.status == 0) s->error = r;
    s->busy = false;
    s->cv.notify_all();
  }
}

// exit() with live workers: nothing new starts, and a running kernel gets a while to finish, so
// that no kernel runs while static destructors do. The idle workers are joined; a hung kernel,
// one that runs on (an inner library's own hang) or the worker calling exit() is left to the end
// of the process.
void at_exit() {
  g_exiting = true;
  std::vector<Stream *> all;
  {
    std::lock_guard lock(state_mutex());
    all.assign(streams().begin(), streams().end());
    for (Stream *d : g_default)
      if (d != nullptr) all.push_back(d);
  }
  for (Stream *s : all) {
    std::unique_lock lock(s->m);
    s->cv.notify_all();
    if (s->worker == std::this_thread::get_id() || !s->thread.joinable()) continue;
    if (!s->cv.wait_for(lock, std::chrono::seconds(2), [&] { return !s->busy || s->hung; }) ||
        s->hung)
      continue;
    lock.unlock();
    s->thread.join();  // it saw g_exiting and returns
  }
}

void enqueue(Stream *s, std::function<Result()> task) {
  static std::once_flag exit_handler;
  std::call_once(exit_handler, [] { std::atexit(at_exit); });
  std::lock_guard lock(s->m);
  s->q.push_back(std::move(task));
  if (!s->started) {
    s->started = true;
    s->thread = std::thread(worker, s);
  }
  s->cv.notify_all();
}

void wait_idle(Stream *s, std::unique_lock<std::mutex> &lock) {
  s->cv.wait(lock, [&] { return s->q.empty() && !s->busy; });
}

// `thread`: a stream is used from a thread on its own device only.
aclError check_context(Stream *s, const char *api) {
  if (!config().thread || s == nullptr || s->device == current_device()) return 0;
  return fail(ACL_ERROR_RT_STREAM_CONTEXT,
              fmt::format("{}: the stream belongs to device {} but this thread is on device {} "
                          "(ACL_ERROR_RT_STREAM_CONTEXT {})",
                          api, s->device, current_device(), ACL_ERROR_RT_STREAM_CONTEXT));
}

}  // namespace

void streams_after_fork_child() {
  // The child has none of the parent's threads: no worker, whatever the parent's queue held.
  // (Called single-threaded in the child; a lock the parent's worker held may be held here.)
  auto reset = [](Stream *s) {
    new (&s->m) std::mutex;
    new (&s->cv) std::condition_variable;
    new (&s->q) std::deque<std::function<Result()>>;  // the old one may be mid-change: leaked
    new (&s->thread) std::thread;                     // the parent's, not joinable here
    s->started = s->busy = s->hung = false;
    s->error = Result{};
  };
  for (Stream *s : streams()) reset(s);
  for (Stream *d : g_default)
    if (d != nullptr) reset(d);
}

aclError check_stream(aclrtStream stream, const char *api) {
  if (!config().stream) return 0;
  Stream *s = stream != nullptr ? lookup(stream) : nullptr;
  if (stream != nullptr && s == nullptr)
    return fail(
        ACLNN_ERR_PARAM_INVALID,
        fmt::format("{}: stream {} is not a live stream of this runtime (aclrtCreateStream) "
                    "(status {})",
                    api, stream, ACLNN_ERR_PARAM_INVALID));
  return check_context(s, api);
}

void *inner_stream(aclrtStream stream) {
  if (stream == nullptr) return nullptr;
  Stream *s = lookup(stream);
  return s != nullptr ? s->inner : stream;
}

aclnnStatus submit(aclrtStream stream, Kernel kernel) {
  const Config &c = config();
  kernel.device = current_device();
  if (c.hang_after > 0 && g_kernels.fetch_add(1) + 1 == c.hang_after) kernel.hang = true;
  if (!c.stream) {
    Outcome o = execute(kernel, nullptr);
    if (o.own) return fail(o.result.status, o.result.message);
    forwarding();  // the inner library's message, on this thread
    return o.result.status;
  }
  Stream *s = stream != nullptr ? lookup(stream) : default_stream(kernel.device);
  if (s == nullptr) return check_stream(stream, kernel.op.c_str());
  const uint64_t delay = c.kernel_delay_us;
  enqueue(s, [k = std::move(kernel), s, delay]() mutable {
    if (delay > 0) std::this_thread::sleep_for(std::chrono::microseconds(delay));
    return execute(k, s).result;
  });
  return ACLNN_SUCCESS;
}

bool enqueue_host_task(aclrtStream stream, std::function<void()> task) {
  Stream *s = stream != nullptr ? lookup(stream) : default_stream(current_device());
  if (s == nullptr) return false;
  enqueue(s, [t = std::move(task)] {
    t();
    return Result{};
  });
  return true;
}

}  // namespace devemu

using namespace devemu;

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream) {
  static const auto real = inner<decltype(&aclrtCreateStream)>("aclrtCreateStream");
  if (aclError e = enter("aclrtCreateStream", Need::kDevice)) return e;
  forwarding();
  if (stream == nullptr) return real(nullptr);  // the inner library's refusal
  void *inner_handle = nullptr;
  if (aclError e = real(&inner_handle)) return e;
  auto *s = new Stream;
  s->device = current_device();
  s->inner = inner_handle;
  std::lock_guard lock(state_mutex());
  streams().insert(s);
  *stream = s;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream) {
  static const auto real = inner<decltype(&aclrtDestroyStream)>("aclrtDestroyStream");
  if (aclError e = enter("aclrtDestroyStream", Need::kDevice)) return e;
  Stream *s = lookup(stream);
  if (s == nullptr) {
    forwarding();
    return real(stream);  // not ours: the inner library says what it is
  }
  if (aclError e = check_context(s, "aclrtDestroyStream")) return e;
  if (config().stream) {  // pending work finishes first
    std::unique_lock lock(s->m);
    wait_idle(s, lock);
  }
  {
    std::lock_guard lock(state_mutex());
    streams().erase(s);
  }
  forwarding();
  const aclError e = real(s->inner);
  {
    std::lock_guard lock(s->m);
    s->closing = true;
    s->cv.notify_all();
  }
  if (s->thread.joinable()) s->thread.join();
  delete s;
  return e;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream) {
  static const auto real = inner<decltype(&aclrtSynchronizeStream)>("aclrtSynchronizeStream");
  if (aclError e = enter("aclrtSynchronizeStream", Need::kDevice)) return e;
  Stream *s = nullptr;
  if (stream != nullptr) {
    s = lookup(stream);
    if (s == nullptr) {
      forwarding();
      return real(stream);
    }
    if (aclError e = check_context(s, "aclrtSynchronizeStream")) return e;
  } else {
    std::lock_guard lock(state_mutex());
    s = g_default[current_device()];
  }
  Result failure;
  if (s != nullptr && config().stream) {
    std::unique_lock lock(s->m);
    wait_idle(s, lock);  // forever, if a kernel hangs
    failure = s->error;
    s->error = Result{};
  }
  forwarding();
  const aclError e = real(s != nullptr ? s->inner : nullptr);
  if (failure.status != 0) return fail(failure.status, failure.message);
  return e;
}

}  // extern "C"
