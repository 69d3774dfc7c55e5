// The campaign's worker processes: each is forked into its own process group (whatever the SUT
// forks dies with it), writes records to a result pipe (campaign/worker_protocol.hpp), has its
// stdout and stderr (what the SUT prints) captured, and keeps the call in flight in a page shared
// with the parent (properties/call_trace.hpp), so that a death or a hang inside the SUT is told
// and attributed to its call. The pool knows nothing of tasks' meaning: the campaign gets every
// complete line and, once a worker is gone (exited, died, hung and killed), how it went.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "campaign/task.hpp"
#include "campaign/worker.hpp"
#include "properties/call_trace.hpp"

namespace aclnn_conform {

// One worker process and the work it was given.
struct WorkerProcess {
  pid_t pid = -1;              // also its process group; -1 once reaped
  int fd = -1;                 // the result pipe's read end
  int output_fd = -1;          // the worker's stdout and stderr
  CallTrace *trace = nullptr;  // MAP_SHARED with the worker
  std::vector<Task> batch;
  std::vector<CrashShrink> shrinks;
  size_t done = 0;  // records received (tasks first, then shrinks): the caller counts
  bool pipe_closed_alive = false;  // its result pipe closed, yet it did not exit: killed
  std::string buffer;              // what came from the result pipe after the last complete line
  size_t records_expected() const { return batch.size() + shrinks.size(); }
};

// How a worker ended.
struct WorkerExit {
  bool timed_out = false;  // inside one SUT call for longer than the case timeout: killed
  int status = -1;         // its wait status
  CallTrace trace{};       // the shared page as the worker left it
};

class WorkerPool {
 public:
  // What runs in the forked process: writes records to result_fd. If it returns, the process
  // exits with status 0.
  using Body = std::function<void(int result_fd, CallTrace *trace)>;
  using LineHandler = std::function<void(WorkerProcess &, const std::string &line)>;
  using ExitHandler = std::function<void(WorkerProcess &, const WorkerExit &)>;

  WorkerPool() = default;
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;
  ~WorkerPool();  // kills and reaps what still runs

  // Forks a worker running body; the returned process (valid until the next spawn or pump) takes
  // the batch and shrinks it was given. Throws std::runtime_error if a pipe, the page or the fork
  // cannot be had.
  WorkerProcess &spawn(const Body &body);

  // Waits up to poll_ms for output, then: hands each complete result line to on_line; a worker
  // whose result pipe closed or that exited, or that spent more than case_timeout_s inside one SUT
  // call (killed), is reaped and handed to on_exit, then dropped.
  void pump(int poll_ms, double case_timeout_s, const LineHandler &on_line,
            const ExitHandler &on_exit);

  // Kills and reaps every worker; returns how many had not sent all their records.
  int stop_all();

  bool empty() const { return workers_.empty(); }
  size_t size() const { return workers_.size(); }
  const std::vector<WorkerProcess> &workers() const { return workers_; }

  // What the workers printed: the byte count and the first kKeptOutput bytes.
  static constexpr size_t kKeptOutput = 64 * 1024;
  int64_t output_bytes() const { return output_bytes_; }
  const std::string &output() const { return output_; }

 private:
  void drain_output(WorkerProcess &w);
  bool drain_results(WorkerProcess &w, const LineHandler &on_line);
  int reap(WorkerProcess &w, int status, CallTrace *last);

  std::vector<WorkerProcess> workers_;
  std::string output_;
  int64_t output_bytes_ = 0;
};

}  // namespace aclnn_conform
