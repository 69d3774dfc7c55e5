#include "properties/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <thread>

namespace aclnn_conform {

ChildOutcome wait_or_kill(pid_t pid, std::chrono::steady_clock::time_point until) {
  ChildOutcome r;
  int status = 0;
  for (;;) {
    const pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) break;
    if (got < 0 && errno == ECHILD) return r;  // reaped elsewhere: its status is lost
    if (std::chrono::steady_clock::now() >= until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.kind = ChildOutcome::Kind::kTimedOut;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFSIGNALED(status)) {
    r.kind = ChildOutcome::Kind::kSignalled;
    r.code = WTERMSIG(status);
  } else {
    r.kind = ChildOutcome::Kind::kExited;
    r.code = WEXITSTATUS(status);
  }
  return r;
}

ChildOutcome run_quiet_child(const std::function<int()> &body,
                             std::chrono::steady_clock::time_point until) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return {};
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    int code = 4;
    try {
      code = body();
    } catch (...) {
    }
    _exit(code);
  }
  return wait_or_kill(pid, until);
}

}  // namespace aclnn_conform
