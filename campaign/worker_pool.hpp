// The campaign's worker processes: each is started fresh (fork, then at once exec of the worker
// executable: no process that calls into a library is a copy of one that did, which a device
// runtime needs, docs/device.md) in its own process group (whatever the SUT forks dies with it),
// reads commands from a pipe, writes records to another (campaign/worker_protocol.hpp), has its
// stdout and stderr (what the SUT prints) captured, and keeps the call in flight in a page shared
// with the campaign (properties/call_trace.hpp), so that a death or a hang inside the SUT is told
// and attributed to its call. Processes the SUT leaves behind are found by a mark in their
// environment, ended, and named. The pool knows nothing of tasks' meaning: the campaign gets every
// complete line and, once a worker is gone (exited, died, hung and killed), how it went.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "campaign/task.hpp"
#include "properties/call_trace.hpp"

namespace aclnn_conform {

// What the campaign sent a worker and awaits an answer for, in order.
struct WorkItem {
  enum class Kind { kTask, kCandidate } kind = Kind::kTask;
  Task task;
};

// One worker process and what the campaign has given it.
struct WorkerProcess {
  int id = 0;
  pid_t pid = -1;              // also its process group; -1 once reaped
  int command_fd = -1;         // commands to the worker (-1 once closed)
  int fd = -1;                 // the result pipe's read end
  int output_fd = -1;          // the worker's stdout and stderr
  CallTrace *trace = nullptr;  // MAP_SHARED with the worker
  std::string pending;         // command bytes not yet written (the pipe was full)
  std::string buffer;          // what came from the result pipe after the last complete line
  bool pipe_closed_alive = false;  // its result pipe closed, yet it did not exit: killed
  std::chrono::steady_clock::time_point started;

  // The campaign's bookkeeping.
  int device = 0;
  bool ready = false;      // it answered hello
  bool closing = false;    // it will take nothing more (a teardown task, or told to end)
  bool shrinking = false;  // it runs a crash shrink's candidates
  bool hello_failed = false;   // it answered hello with an error (its start failed)
  bool device_failed = false;  // it reported a device fault: what it had not answered runs again
  std::deque<WorkItem> outstanding;  // sent, not yet answered, in order
  int64_t tasks_sent = 0;
  double timeout_override = 0;  // > 0: the case timeout for this worker (shrinking a hang)
  double killed_after = 0;      // > 0: the allowance its last call overran (it was killed)
};

// How a worker ended.
struct WorkerExit {
  bool timed_out = false;  // inside one SUT call for longer than its allowance: killed
  int status = -1;         // its wait status
  CallTrace trace{};       // the shared page as the worker left it
};

// How to start a worker.
struct WorkerLaunch {
  std::string executable;
  std::vector<std::string> arguments;
  // Extra environment entries ("NAME=value") on top of the campaign's own.
  std::vector<std::string> environment;
};

class WorkerPool {
 public:
  using LineHandler = std::function<void(WorkerProcess &, const std::string &line)>;
  using ExitHandler = std::function<void(WorkerProcess &, const WorkerExit &)>;
  // The seconds a worker may spend inside the SUT call its trace shows.
  using Allowance = std::function<double(const WorkerProcess &, const CallTrace &)>;

  WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;
  ~WorkerPool();  // kills and reaps what still runs

  // Starts a worker; the returned process is valid until the next spawn or pump. Throws
  // std::runtime_error if a pipe, the page or the fork cannot be had. An executable that cannot
  // be run shows as a worker that exits at once, with the reason in the captured output.
  WorkerProcess &spawn(const WorkerLaunch &launch);

  // Queues a command line for the worker (written as the pipe takes it).
  void send(WorkerProcess &w, const std::string &line);
  // No more commands: the worker reads end of file once what is queued is written.
  void close_commands(WorkerProcess &w);

  // Waits up to poll_ms for output, then: hands each complete result line to on_line; a worker
  // whose result pipe closed or that exited, or that spent longer than its allowance inside one
  // SUT call (killed), is reaped and handed to on_exit, then dropped.
  void pump(int poll_ms, const Allowance &allowance, const LineHandler &on_line,
            const ExitHandler &on_exit);

  // Kills and reaps every worker; returns how many had answers outstanding.
  int stop_all();

  bool empty() const { return workers_.empty(); }
  size_t size() const { return workers_.size(); }
  std::vector<WorkerProcess> &workers() { return workers_; }
  const std::vector<WorkerProcess> &workers() const { return workers_; }

  // What the workers printed: the byte count and the first kKeptOutput bytes.
  static constexpr size_t kKeptOutput = 64 * 1024;
  int64_t output_bytes() const { return output_bytes_; }
  const std::string &output() const { return output_; }

  // Processes the SUT started that outlived their worker (found by the mark every worker's
  // environment carries, ACLNN_CONFORM_RUN), ended with SIGKILL: "pid 123 (sleep)", once each.
  const std::vector<std::string> &leftovers() const { return leftovers_; }

 private:
  void drain_output(WorkerProcess &w);
  bool drain_results(WorkerProcess &w, const LineHandler &on_line);
  void flush_commands(WorkerProcess &w);
  int reap(WorkerProcess &w, int status, CallTrace *last);
  // Ends the marked processes that belong to no live worker (all of them once none is live).
  void end_leftovers();

  std::string mark_;  // ACLNN_CONFORM_RUN=<value>, unique to this pool
  int next_id_ = 0;
  std::vector<WorkerProcess> workers_;
  std::string output_;
  int64_t output_bytes_ = 0;
  std::vector<std::string> leftovers_;
};

}  // namespace aclnn_conform
