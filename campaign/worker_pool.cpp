#include "campaign/worker_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "campaign/worker_protocol.hpp"

extern char **environ;

namespace aclnn_conform {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char *kMarkName = "ACLNN_CONFORM_RUN";

// A process as /proc shows it.
struct ProcessInfo {
  pid_t pid = 0, ppid = 0, pgrp = 0;
  std::string comm;
};

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every process whose environment holds the entry `mark` (NAME=value), with its parent and group.
// A process of another user, or one that ended meanwhile, is skipped.
std::vector<ProcessInfo> marked_processes(const std::string &mark) {
  std::vector<ProcessInfo> found;
  std::error_code ec;
  for (const auto &entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string environment = read_file(entry.path().string() + "/environ");
    if (environment.find(mark + '\0') == std::string::npos &&
        !(environment.size() >= mark.size() &&
          environment.compare(environment.size() - mark.size(), mark.size(), mark) == 0))
      continue;
    const std::string stat = read_file(entry.path().string() + "/stat");
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    ProcessInfo p;
    p.pid = std::stoi(name);
    p.comm = stat.substr(open + 1, close - open - 1);
    char state = 0;
    int ppid = 0, pgrp = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) continue;
    if (state == 'Z') continue;  // ended, waiting to be reaped
    p.ppid = ppid;
    p.pgrp = pgrp;
    found.push_back(p);
  }
  return found;
}

// Waits (up to 2 s) until the processes have ended: SIGKILL is delivered when each is next
// scheduled, and "ended" should hold when the pool says so.
void wait_ended(const std::vector<pid_t> &pids) {
  const auto until = Clock::now() + std::chrono::seconds(2);
  for (const pid_t pid : pids)
    while (Clock::now() < until) {
      const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
      const size_t close = stat.rfind(')');
      if (stat.empty() || close == std::string::npos || close + 2 >= stat.size() ||
          stat[close + 2] == 'Z' || stat[close + 2] == 'X')
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

std::string describe(const ProcessInfo &p) {
  return "pid " + std::to_string(p.pid) + " (" + p.comm + ")";
}

void set_nonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

}  // namespace

WorkerPool::WorkerPool() {
  // A worker that died leaves its command pipe without a reader: a write must fail, not kill us.
  signal(SIGPIPE, SIG_IGN);
  static int pools = 0;
  mark_ = std::string(kMarkName) + "=" + std::to_string(getpid()) + "-" +
          std::to_string(Clock::now().time_since_epoch().count()) + "-" + std::to_string(++pools);
}

WorkerPool::~WorkerPool() {
  stop_all();
}

WorkerProcess &WorkerPool::spawn(const WorkerLaunch &launch) {
  const int memfd = memfd_create("aclnn-conform-trace", MFD_CLOEXEC);
  if (memfd < 0 || ftruncate(memfd, sizeof(CallTrace)) != 0)
    throw std::runtime_error("memfd_create of a worker's trace page failed");
  void *page = mmap(nullptr, sizeof(CallTrace), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
  if (page == MAP_FAILED) {
    close(memfd);
    throw std::runtime_error("mmap of a worker's trace page failed");
  }
  auto *trace = static_cast<CallTrace *>(page);
  std::memset(trace, 0, sizeof *trace);
  int command[2], result[2], out[2];
  if (pipe2(command, O_CLOEXEC) != 0 || pipe2(result, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  // Everything the child needs is built before the fork: it only moves descriptors and execs.
  std::vector<std::string> args{launch.executable};
  args.insert(args.end(), launch.arguments.begin(), launch.arguments.end());
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e)
    if (std::strncmp(*e, kMarkName, std::strlen(kMarkName)) != 0) env.emplace_back(*e);
  env.insert(env.end(), launch.environment.begin(), launch.environment.end());
  env.push_back(mark_);
  std::vector<char *> argv, envp;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto &e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    // Above the fixed numbers first, so that no dup2 overwrites a source still needed.
    const int c = fcntl(command[0], F_DUPFD, 10), r = fcntl(result[1], F_DUPFD, 10),
              t = fcntl(memfd, F_DUPFD, 10), o = fcntl(out[1], F_DUPFD, 10);
    dup2(null, STDIN_FILENO);
    dup2(o, STDOUT_FILENO);
    dup2(o, STDERR_FILENO);
    dup2(c, 3);
    dup2(r, 4);
    dup2(t, 5);
    close_range(6, ~0U, 0);
    execve(argv[0], argv.data(), envp.data());
    dprintf(STDERR_FILENO, "aclnn-conform: cannot run the worker %s: %s\n", argv[0],
            std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);  // also here: no race with a kill of the group
  close(null);
  close(memfd);
  close(command[0]);
  close(result[1]);
  close(out[1]);
  set_nonblocking(command[1]);
  set_nonblocking(result[0]);
  set_nonblocking(out[0]);
  WorkerProcess w;
  w.id = next_id_++;
  w.pid = pid;
  w.command_fd = command[1];
  w.fd = result[0];
  w.output_fd = out[0];
  w.trace = trace;
  w.started = Clock::now();
  workers_.push_back(std::move(w));
  return workers_.back();
}

void WorkerPool::send(WorkerProcess &w, const std::string &line) {
  w.pending += line;
  flush_commands(w);
}

void WorkerPool::close_commands(WorkerProcess &w) {
  w.closing = true;
  flush_commands(w);
}

void WorkerPool::flush_commands(WorkerProcess &w) {
  while (w.command_fd >= 0 && !w.pending.empty()) {
    const ssize_t n = write(w.command_fd, w.pending.data(), w.pending.size());
    if (n > 0) {
      w.pending.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    w.pending.clear();  // the worker is gone: its exit tells the rest
  }
  if (w.closing && w.pending.empty() && w.command_fd >= 0) {
    close(w.command_fd);
    w.command_fd = -1;
  }
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

void WorkerPool::pump(int poll_ms, const Allowance &allowance, const LineHandler &on_line,
                      const ExitHandler &on_exit) {
  std::vector<pollfd> pfds;
  for (auto &w : workers_) {
    pfds.push_back({w.fd, POLLIN, 0});
    pfds.push_back({w.output_fd, POLLIN, 0});
    if (!w.pending.empty() && w.command_fd >= 0) pfds.push_back({w.command_fd, POLLOUT, 0});
  }
  poll(pfds.data(), pfds.size(), poll_ms);
  const long long now_ns = monotonic_ns();  // the clock of CallTrace::entered_ns
  bool reaped = false;
  // Kills (if hung) and reaps a worker, then tells the caller.
  const auto gone = [&](WorkerProcess &w, bool timed_out, int status) {
    if (timed_out) kill(w.pid, SIGKILL);
    WorkerExit e;
    e.timed_out = timed_out;
    // Read once the worker is gone: a worker whose pipe closed early may still be writing it.
    e.status = reap(w, status, &e.trace);
    reaped = true;
    on_exit(w, e);
  };
  // on_line and on_exit may spawn workers (invalidating references): walk by id.
  std::vector<int> ids;
  for (const auto &w : workers_) ids.push_back(w.id);
  for (const int id : ids) {
    const auto find = [&]() -> WorkerProcess * {
      for (auto &w : workers_)
        if (w.id == id && w.pid >= 0) return &w;
      return nullptr;
    };
    WorkerProcess *w = find();
    if (!w) continue;
    flush_commands(*w);
    drain_output(*w);
    const bool open = drain_results(*w, on_line);
    if (!(w = find())) continue;
    if (!open) {
      gone(*w, false, -1);  // end of stream: the worker finished, died or closed the pipe
      continue;
    }
    // The worker may be gone while something it (or the SUT) forked holds the pipe open.
    int status = 0;
    if (waitpid(w->pid, &status, WNOHANG) == w->pid) {
      drain_results(*w, on_line);
      if ((w = find())) gone(*w, false, status);
      continue;
    }
    // The time inside one call of the SUT, against the allowance for that call.
    if (__atomic_load_n(&w->trace->in_sut, __ATOMIC_SEQ_CST)) {
      const double limit = allowance(*w, *w->trace);
      if (static_cast<double>(now_ns - w->trace->entered_ns) * 1e-9 > limit) {
        w->killed_after = limit;
        gone(*w, true, -1);
      }
    }
  }
  std::erase_if(workers_, [](const WorkerProcess &w) { return w.pid < 0; });
  if (reaped) end_leftovers();
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
  // What the SUT forked and left in the worker's group is named before the group is ended.
  std::vector<pid_t> group;
  for (const auto &p : marked_processes(mark_))
    if (p.pgrp == w.pid && p.pid != w.pid) {
      leftovers_.push_back(describe(p));
      group.push_back(p.pid);
    }
  kill(-w.pid, SIGKILL);
  wait_ended(group);
  drain_output(w);
  close(w.fd);
  close(w.output_fd);
  if (w.command_fd >= 0) close(w.command_fd);
  w.command_fd = -1;
  if (last) *last = *w.trace;  // as the worker left it: it is gone now
  munmap(w.trace, sizeof(CallTrace));
  w.pid = -1;
  return status;
}

void WorkerPool::end_leftovers() {
  std::set<pid_t> live;
  for (const auto &w : workers_)
    if (w.pid >= 0) live.insert(w.pid);
  const auto marked = marked_processes(mark_);
  std::map<pid_t, pid_t> parent;
  for (const auto &p : marked) parent[p.pid] = p.ppid;
  const std::set<std::string> named(leftovers_.begin(), leftovers_.end());
  std::vector<pid_t> ended;
  for (const auto &p : marked) {
    // A live worker's own processes (its descendants, or its group) are its business.
    bool owned = live.count(p.pid) || live.count(p.pgrp);
    for (pid_t a = p.ppid, steps = 0; !owned && a > 1 && steps < 64; ++steps) {
      owned = live.count(a) > 0;
      const auto it = parent.find(a);
      if (it == parent.end()) break;
      a = it->second;
    }
    if (owned) continue;
    kill(p.pid, SIGKILL);
    ended.push_back(p.pid);
    const std::string d = describe(p);
    if (!named.count(d)) leftovers_.push_back(d);
  }
  wait_ended(ended);
}

int WorkerPool::stop_all() {
  int in_flight = 0;
  for (auto &w : workers_) {
    kill(w.pid, SIGKILL);  // reap() names what the SUT left in its group, then ends the group
    reap(w, -1, nullptr);
    if (!w.outstanding.empty()) ++in_flight;
  }
  workers_.clear();
  end_leftovers();
  return in_flight;
}

}  // namespace aclnn_conform
