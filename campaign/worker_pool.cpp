#include "campaign/worker_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "campaign/worker_protocol.hpp"

namespace aclnn_conform {

using Clock = WorkerClock;

WorkerPool::~WorkerPool() {
  stop_all();
}

WorkerProcess &WorkerPool::spawn(const Body &body) {
  void *page =
      mmap(nullptr, sizeof(CallTrace), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw std::runtime_error("mmap of a worker's trace page failed");
  auto *trace = static_cast<CallTrace *>(page);
  std::memset(trace, 0, sizeof *trace);
  int fds[2], out[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    close(fds[0]);
    close(out[0]);
    for (const auto &w : workers_) {
      close(w.fd);
      close(w.output_fd);
    }
    // What the SUT prints goes to the parent, which counts it and keeps the start; never to
    // the CLI's own output.
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    close(out[1]);
    body(fds[1], trace);
    _exit(0);
  }
  setpgid(pid, pid);  // also here: no race with a kill of the group
  close(fds[1]);
  close(out[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
  WorkerProcess w;
  w.pid = pid;
  w.fd = fds[0];
  w.output_fd = out[0];
  w.trace = trace;
  workers_.push_back(std::move(w));
  return workers_.back();
}

void WorkerPool::drain_output(WorkerProcess &w) {
  char buf[65536];
  ssize_t n;
  while ((n = read(w.output_fd, buf, sizeof buf)) > 0) {
    output_bytes_ += n;
    if (output_.size() < kKeptOutput)
      output_.append(buf, std::min(static_cast<size_t>(n), kKeptOutput - output_.size()));
  }
}

// Reads what is in the result pipe, handing on complete lines; false at end of stream.
bool WorkerPool::drain_results(WorkerProcess &w, const LineHandler &on_line) {
  char buf[65536];
  while (true) {
    const ssize_t n = read(w.fd, buf, sizeof buf);
    if (n > 0) {
      w.buffer.append(buf, static_cast<size_t>(n));
      while (auto line = take_line(w.buffer)) on_line(w, *line);
      continue;
    }
    return n < 0;  // EAGAIN: open, nothing more now; 0: closed
  }
}

void WorkerPool::pump(int poll_ms, double case_timeout_s, const LineHandler &on_line,
                      const ExitHandler &on_exit) {
  std::vector<pollfd> pfds;
  for (auto &w : workers_) {
    pfds.push_back({w.fd, POLLIN, 0});
    pfds.push_back({w.output_fd, POLLIN, 0});
  }
  poll(pfds.data(), pfds.size(), poll_ms);
  const long long now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  // Kills (if hung) and reaps a worker, then tells the caller.
  const auto gone = [&](WorkerProcess &w, bool timed_out, int status) {
    if (timed_out) kill(w.pid, SIGKILL);
    WorkerExit e;
    e.timed_out = timed_out;
    // Read once the worker is gone: a worker whose pipe closed early may still be writing it.
    e.status = reap(w, status, &e.trace);
    on_exit(w, e);
  };
  for (auto &w : workers_) {
    drain_output(w);
    if (!drain_results(w, on_line)) {
      gone(w, false, -1);  // end of stream: the worker finished, died or closed the pipe
      continue;
    }
    // The worker may be gone while something it (or the SUT) forked holds the pipe open.
    int status = 0;
    if (waitpid(w.pid, &status, WNOHANG) == w.pid) {
      drain_results(w, on_line);
      gone(w, false, status);
      continue;
    }
    // The per-case timeout counts the time inside one call of the SUT.
    if (__atomic_load_n(&w.trace->in_sut, __ATOMIC_SEQ_CST) &&
        static_cast<double>(now_ns - w.trace->entered_ns) * 1e-9 > case_timeout_s) {
      gone(w, true, -1);
    }
  }
  std::erase_if(workers_, [](const WorkerProcess &w) { return w.pid < 0; });
}

// Ends a worker and everything in its process group, and returns its wait status (status, if
// the worker was already reaped).
int WorkerPool::reap(WorkerProcess &w, int status, CallTrace *last) {
  if (status < 0) {
    // A worker that closed its result pipe but lives on gets a moment to exit by itself.
    const auto until = Clock::now() + std::chrono::milliseconds(500);
    while (waitpid(w.pid, &status, WNOHANG) != w.pid) {
      if (Clock::now() >= until) {
        kill(w.pid, SIGKILL);
        waitpid(w.pid, &status, 0);
        w.pipe_closed_alive = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  kill(-w.pid, SIGKILL);
  drain_output(w);
  close(w.fd);
  close(w.output_fd);
  if (last) *last = *w.trace;  // as the worker left it: it is gone now
  munmap(w.trace, sizeof(CallTrace));
  w.pid = -1;
  return status;
}

int WorkerPool::stop_all() {
  int in_flight = 0;
  for (auto &w : workers_) {
    kill(-w.pid, SIGKILL);
    kill(w.pid, SIGKILL);
    reap(w, -1, nullptr);
    if (w.done < w.records_expected()) ++in_flight;
  }
  workers_.clear();
  return in_flight;
}

}  // namespace aclnn_conform
