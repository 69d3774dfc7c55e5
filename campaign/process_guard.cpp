// The worker's process guard (campaign/process_guard.hpp): what a SUT may do to its caller's
// process besides its results, checked after every return from the SUT (descriptors 0-2, the
// pipes, signal handlers), what a fatal signal under the memory limit leaves for the campaign, and
// the memory limit itself.
#include "campaign/process_guard.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "campaign/worker.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {
namespace {

// What a SUT may do to the worker's process besides its results, checked after every return from
// the SUT: its descriptors 0-2 and the result pipe, and the signal handlers the framework relies
// on. What can be put back is put back and noted for the report; a result pipe the SUT closed or
// replaced cannot be, so the worker leaves the reason in its trace page and exits.
struct ProcessGuard {
  CallTrace *trace = nullptr;
  int result_fd = -1, command_fd = -1;
  struct stat result_id {
  }, command_id{};
  bool std_open[3] = {};
  struct stat std_id[3] = {};
  int std_copy[3] = {-1, -1, -1};  // copies of 0-2 (close-on-exec, high numbers) to restore from
  struct sigaction handlers[32] = {};
  std::vector<std::string> notes;  // not yet sent to the parent
  std::set<std::string> noted;
};
ProcessGuard g_guard;

// Signals whose handlers the worker puts back: what it needs to reap children, to be stopped and
// to report a crash. Others (SIGALRM, SIGUSR1, ...) are noted and left as the SUT set them (putting
// back SIGALRM's default would kill the worker on an alarm the SUT armed).
constexpr int kSignals = 32;  // the standard signals 1-31 (not the real-time ones)
constexpr int kRestored[] = {SIGCHLD, SIGINT, SIGTERM, SIGPIPE, SIGHUP,
                             SIGSEGV, SIGBUS, SIGABRT, SIGILL,  SIGFPE};

bool same_file(int fd, const struct stat &id) {
  struct stat now {};
  return fstat(fd, &now) == 0 && now.st_dev == id.st_dev && now.st_ino == id.st_ino;
}

std::string current_call() {
  return g_guard.trace && g_guard.trace->call[0] ? g_guard.trace->call : "a call";
}

void note(std::string text) {
  if (g_guard.noted.insert(text).second) g_guard.notes.push_back(std::move(text));
}

}  // namespace

// The pipes are the worker's only way to hear and to report: without them, stop with the reason.
void check_result_pipe() {
  for (const auto &[fd, id, what] :
       {std::tuple{g_guard.result_fd, g_guard.result_id, "result"},
        std::tuple{g_guard.command_fd, g_guard.command_id, "command"}}) {
    if (fd < 0 || same_file(fd, id)) continue;
    if (g_guard.trace) {
      const std::string why = fmt::format(
          "the SUT closed or replaced the worker's {} pipe (descriptor {}) in {}: a library "
          "must not close descriptors it does not own; the worker could not go on and stopped",
          what, fd, current_call());
      std::snprintf(g_guard.trace->fatal, sizeof g_guard.trace->fatal, "%s", why.c_str());
    }
    _exit(86);
  }
}

namespace {

void check_process() {
  check_result_pipe();
  std::vector<std::string> fds;
  for (int fd = 0; fd < 3; ++fd) {
    if (!g_guard.std_open[fd] || same_file(fd, g_guard.std_id[fd])) continue;
    fds.push_back(std::to_string(fd));
    if (g_guard.std_copy[fd] >= 0) dup2(g_guard.std_copy[fd], fd);
  }
  if (!fds.empty())
    note(
        fmt::format("the SUT closed or replaced file descriptor(s) {} of its caller in {} (the "
                    "worker put them back; not an ABI deviation, but a caller's own input and "
                    "output would be lost)",
                    fmt::join(fds, ", "), current_call()));
  std::vector<std::string> changed, restored;
  for (int sig = 1; sig < kSignals; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    struct sigaction now {};
    if (sigaction(sig, nullptr, &now) != 0) continue;
    if (now.sa_handler == g_guard.handlers[sig].sa_handler) continue;
    changed.push_back(sigabbrev_np(sig) ? std::string("SIG") + sigabbrev_np(sig)
                                        : std::to_string(sig));
    if (std::find(std::begin(kRestored), std::end(kRestored), sig) != std::end(kRestored)) {
      sigaction(sig, &g_guard.handlers[sig], nullptr);
      restored.push_back(changed.back());
    } else {
      g_guard.handlers[sig] = now;  // noted once, then taken as the new state
    }
  }
  if (!changed.empty())
    note(fmt::format("the SUT changed the handlers of {} in {} ({}; not an ABI deviation)",
                     fmt::join(changed, ", "), current_call(),
                     restored.empty()
                         ? std::string("left as it set them")
                         : fmt::format("the worker put back {}", fmt::join(restored, ", "))));
}

// A fatal signal in a worker under a memory limit: record the signal and the data segment (the
// size RLIMIT_DATA limits) for the parent, then die of the signal. Async-signal-safe only.
void on_fatal_signal(int sig) {
  if (CallTrace *t = g_guard.trace) {
    t->death_signal = sig;
    if (const long long bytes = data_segment_bytes(); bytes >= 0) t->data_bytes_at_death = bytes;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

long long data_segment_bytes() {
  const int fd = open("/proc/self/statm", O_RDONLY);
  if (fd < 0) return -1;
  char buf[256];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  // Fields: size resident shared text lib data dt (pages); the sixth is data + stack.
  long long field = 0, value = 0;
  for (ssize_t i = 0; i < n && field < 6; ++i) {
    if (buf[i] == ' ' || buf[i] == '\n') {
      if (++field == 6) break;
      value = 0;
    } else if (buf[i] >= '0' && buf[i] <= '9') {
      value = value * 10 + (buf[i] - '0');
    }
  }
  return field >= 5 ? value * sysconf(_SC_PAGESIZE) : -1;
}

void install_process_guard(int result_fd, int command_fd, CallTrace *trace, bool memory_limited) {
  g_guard.trace = trace;
  g_guard.result_fd = result_fd;
  g_guard.command_fd = command_fd;
  fstat(result_fd, &g_guard.result_id);
  fstat(command_fd, &g_guard.command_id);
  for (int fd = 0; fd < 3; ++fd) {
    g_guard.std_open[fd] = fstat(fd, &g_guard.std_id[fd]) == 0;
    if (g_guard.std_open[fd]) g_guard.std_copy[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 200);
  }
  if (memory_limited) {
    // On its own stack: a SUT that ran out of memory or stack may have none left.
    static char alt[64 * 1024];
    stack_t ss{};
    ss.ss_sp = alt;
    ss.ss_size = sizeof alt;
    sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) sigaction(sig, &sa, nullptr);
  }
  for (int sig = 1; sig < kSignals; ++sig) sigaction(sig, nullptr, &g_guard.handlers[sig]);
  set_after_sut_hook(check_process);
}

std::vector<std::string> take_guard_notes() {
  std::vector<std::string> notes = std::move(g_guard.notes);
  g_guard.notes.clear();
  return notes;
}

double worker_memory_limit_gib() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return 0;
#else
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  return 0;
#endif
#endif
  if (const char *env = std::getenv("ACLNN_CONFORM_MEMORY_GIB")) return std::atof(env);
  return 16;
#endif
}

}  // namespace aclnn_conform
