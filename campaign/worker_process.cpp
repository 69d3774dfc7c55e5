// The worker process (aclnn-conform-worker's main, campaign/worker.hpp): its memory limit, the
// call-trace page and the process guard set up, the SUT loaded and its device started (hello),
// then commands until end of file: batches of tasks (each op warmed up first, a device fault
// answered instead of the task's result, the teardown last), crash-shrink candidates, the
// product-emulation probe. Records go back over the result pipe (campaign/worker_protocol.hpp).
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "campaign/coverage.hpp"
#include "campaign/process_guard.hpp"
#include "campaign/product_emulation.hpp"
#include "campaign/worker.hpp"
#include "campaign/worker_protocol.hpp"
#include "properties/call_trace.hpp"
#include "properties/protocol.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {
namespace {

using Clock = WorkerClock;

// Writes records to the campaign; notes the guard collected go first. A process the SUT forked
// inside a call returns into this code too: only the worker itself may report.
class Records {
 public:
  explicit Records(int fd) : out_(fdopen(fd, "w")), self_(getpid()) {}
  void send(char tag, const nlohmann::json &body) {
    if (getpid() != self_) _exit(0);
    check_result_pipe();
    for (const auto &n : take_guard_notes()) write(encode_record(record_tag::kNote, {{"note", n}}));
    write(encode_record(tag, body));
    std::fflush(out_);
  }

 private:
  void write(const std::string &line) { std::fwrite(line.data(), 1, line.size(), out_); }
  FILE *out_;
  pid_t self_;
};

// The worker's state between commands.
struct Worker {
  CampaignConfig cfg;
  std::unique_ptr<Sut> sut, competitor;
  WorkerContext ctx;
  std::set<std::string> warmed, no_warm_up;
  std::set<std::string> kernels;  // the (op, dtype signature) pairs this worker has run
  CallTrace *trace = nullptr;
  // The calls a device fault is charged to belong to a unit: a task, or an op's warm-up. The
  // unit running now (and the successful calls made before it began), and the last unit that
  // made a successful call, as a task.
  long long unit_start_ok = 0;
  std::optional<Task> unit, last_ok_unit;
};

// A unit begins: a task, or a warm-up.
void begin_unit(Worker &w, const Task &t) {
  w.unit = t;
  w.unit_start_ok = w.trace ? w.trace->ok_calls : 0;
}
// ...and ends: if any of its calls succeeded, the last successful call is its.
void end_unit(Worker &w) {
  if (w.unit && w.trace && w.trace->ok_calls > w.unit_start_ok) w.last_ok_unit = w.unit;
  w.unit.reset();
}

// Forgets the call in flight and the worker's activity (the trace of successful and failed calls
// stays: a device fault's attribution reads it across units).
void reset_trace(CallTrace *trace) {
  if (!trace) return;
  trace->call[0] = trace->clause[0] = trace->activity[0] = trace->fatal[0] = '\0';
  trace->in_sut = trace->first_call = trace->new_kernel = trace->death_signal = 0;
  trace->data_bytes_at_death = 0;
}

// An op's first call in this worker is a warm-up: the op's small fixed valid call, unjudged, with
// the first-call allowance (a device loads the op's kernels then), so that every judged call gets
// the case timeout. Its time is reported; a death in it is the campaign's to charge (the trace
// names the activity). Ops whose warm-up killed a worker are not warmed up again.
void warm_up(Worker &w, const OpDescriptor &op, Records &records) {
  if (!w.warmed.insert(op.name).second || w.no_warm_up.count(op.name)) return;
  const auto t = warm_up_task(op, w.cfg);
  if (!t) return;
  const auto started = Clock::now();
  begin_unit(w, *t);
  {
    ActivityScope activity("warm-up " + op.name);
    FirstCallScope first(true);
    run_case(*w.sut, op, *t->stored);
  }
  end_unit(w);
  records.send(record_tag::kWarmUp,
               {{"op", op.name},
                {"seconds", std::chrono::duration<double>(Clock::now() - started).count()}});
}

// A suspected hang's second run loads the task's kernel first (Task::load_kernel_first): the
// smallest call of its op and dtypes, unjudged, as a kernel new to the worker (on a suspect's
// second run that call gets the whole case timeout), so that the task's own call is timed as a
// known kernel's and a hang in it is confirmed at the suspect's allowance. Its time is reported
// as a warm-up's; a death in it is the campaign's to charge (the trace names the activity).
void load_kernel(Worker &w, const Task &t, Records &records) {
  const Case c = task_case(t, w.cfg);
  const std::string kernel = kernel_signature(*t.op, c);
  if (w.kernels.count(kernel) || !t.op->check(c, {}).ok()) return;
  const auto load = kernel_load_case(t, c, w.cfg);
  if (!load) return;
  const auto started = Clock::now();
  {
    ActivityScope activity("kernel load " + t.op->name);
    NewKernelScope fresh(true);
    run_case(*w.sut, *t.op, *load);
  }
  w.kernels.insert(kernel);
  reset_trace(w.trace);
  records.send(record_tag::kWarmUp,
               {{"op", "kernel load"},
                {"seconds", std::chrono::duration<double>(Clock::now() - started).count()}});
}

// After a task with a failure: is the device still there? A runtime call that failed with an
// out-of-memory status, or a health check that fails, is the device's condition: the record says
// so (instead of the task's result, which is not judged) and the worker exits.
std::optional<nlohmann::json> device_fault(Worker &w, const nlohmann::json &result) {
  if (result.contains("runtime_failure") &&
      is_out_of_memory_status(result["runtime_failure"].value("status", 0)))
    return nlohmann::json{{"kind", "out-of-memory"},
                          {"problem", result["runtime_failure"].value("message", "")}};
  bool failed = result.contains("deviation") || result.contains("runtime_failure");
  for (const auto &cr : result.at("results")) failed = failed || !cr[1].get<bool>();
  if (!failed || !w.trace) return std::nullopt;
  // Where the calls started failing, read before the health check adds its own calls.
  const CallTrace calls = *w.trace;
  bool out_of_memory = false;
  std::string problem;
  {
    ActivityScope activity("health check");
    problem = device_health_check(*w.sut, out_of_memory);
  }
  if (problem.empty()) return std::nullopt;
  nlohmann::json d{{"kind", out_of_memory ? "out-of-memory" : "device-lost"},
                   {"problem", problem},
                   {"after_call", std::string(calls.last_ok_call)},
                   {"clause", std::string(calls.last_ok_clause)}};
  if (calls.failures_since_ok > 0) {
    d["failed_call"] = std::string(calls.first_failed_call);
    d["status"] = calls.first_failed_status;
  }
  // Whose call it was: the task's own, or an earlier unit's (the device failed between them).
  if (calls.ok_calls > w.unit_start_ok)
    d["owner"] = "task";
  else if (w.last_ok_unit)
    d["owner_task"] = to_json(*w.last_ok_unit);
  return d;
}

// The campaign's product emulation, which the first worker's probe decides after that worker
// started: a case's generation depends on it, so every worker must hold the decided one.
void follow_emulation(Worker &w, const nlohmann::json &command) {
  if (command.contains("product_emulation"))
    w.cfg.product_emulation =
        command["product_emulation"].get<bool>() ? ProductEmulation::kOn : ProductEmulation::kOff;
}

void run_tasks(Worker &w, const nlohmann::json &command, Records &records) {
  follow_emulation(w, command);
  if (command.contains("saturated"))
    w.ctx.saturated = command["saturated"].get<std::set<std::string>>();
  if (command.contains("deadline_ns"))
    w.ctx.deadline = Clock::time_point(std::chrono::nanoseconds(command["deadline_ns"]));
  w.ctx.on_found = [&records](const std::string &clause) {
    records.send(record_tag::kFound, {{"clause", clause}});
  };
  for (const auto &tj : command.at("tasks")) {
    reset_trace(w.trace);
    nlohmann::json r;
    Task t;
    try {
      t = task_from_json(tj);
      warm_up(w, *t.op, records);
      reset_trace(w.trace);
      begin_unit(w, t);
      if (t.load_kernel_first) load_kernel(w, t, records);
      r = run_task(t, w.ctx);
      coverage_attach(r);
    } catch (const std::exception &e) {
      end_unit(w);
      records.send(record_tag::kError, {{"error", e.what()}});
      continue;
    }
    std::optional<nlohmann::json> fault = device_fault(w, r);
    end_unit(w);
    if (fault) {
      records.send(record_tag::kDeviceFault, *fault);
      std::fflush(nullptr);
      _exit(0);
    }
    if (t.teardown) {
      // The call examples' teardown, after the task: then this worker is done.
      std::vector<ClauseResult> results;
      {
        ActivityScope activity("teardown");
        results = teardown_probe(*w.sut);
      }
      for (const auto &cr : results) {
        if (is_skipped(w.cfg, cr.clause)) continue;
        r["results"].push_back({cr.clause, cr.pass, cr.detail, ""});
        if (cr.pass || r.contains("deviation")) continue;
        Deviation d;
        d.op = t.op->name;
        d.clause = cr.clause;
        d.detail = cr.detail;
        d.all_failures = cr.clause + ": " + cr.detail + "\n";
        d.minimal = task_case(t, w.cfg);
        d.origin = t.origin;
        d.kind = "deviation";
        d.call = "teardown (aclrtDestroyStream, aclrtResetDevice, aclFinalize)";
        r["deviation"] = to_json(d);
      }
      records.send(record_tag::kResult, r);
      std::fflush(nullptr);
      _exit(0);
    }
    records.send(record_tag::kResult, r);
  }
}

}  // namespace

int worker_process_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  // The campaign decides when workers stop (Ctrl-C reaches the whole process group), and a worker
  // never outlives it.
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // A SUT that allocates without bound fails inside its call instead of taking the machine.
  // The memory limit is set once the SUT has started (below): counted from there.
  const double gib = worker_memory_limit_gib();
  Worker w;
  void *page =
      mmap(nullptr, sizeof(CallTrace), PROT_READ | PROT_WRITE, MAP_SHARED, kWorkerTraceFd, 0);
  close(kWorkerTraceFd);
  if (page != MAP_FAILED) w.trace = static_cast<CallTrace *>(page);
  set_call_trace(w.trace);
  install_process_guard(kWorkerResultFd, kWorkerCommandFd, w.trace, gib > 0);
  // Outputs that change after the call returned (a thread the SUT left running) are deviations.
  // Checked 200 us after the copy back, on each task's first successful call (runner.cpp).
  set_late_write_check(200);
  Records records(kWorkerResultFd);
  FILE *in = fdopen(kWorkerCommandFd, "r");
  if (!in) return 3;
  char *line = nullptr;
  size_t capacity = 0;
  const auto next_command = [&]() -> std::optional<nlohmann::json> {
    check_result_pipe();
    if (getline(&line, &capacity, in) < 0) return std::nullopt;
    return nlohmann::json::parse(line);
  };
  try {
    const auto hello = next_command();
    if (!hello || hello->value("cmd", "") != "hello") return 3;
    w.cfg = worker_config_from_json(hello->at("config"));
    w.no_warm_up = hello->value("no_warm_up", std::set<std::string>{});
    const int device = hello->at("device");
    const auto started = Clock::now();
    std::string error;
    {
      ActivityScope activity("start");
      w.sut = Sut::load(hello->at("sut").get<std::vector<std::string>>(), error, device);
      coverage_sut_loaded();  // an instrumented competitor's modules are not the SUT's
      const auto competitor = hello->at("competitor").get<std::vector<std::string>>();
      if (w.sut && !competitor.empty()) {
        std::string competitor_error;
        w.competitor = Sut::load(competitor, competitor_error, device);
        if (!w.competitor) error = "--competitor: " + competitor_error;
      }
    }
    if (!w.sut || !error.empty()) {
      records.send(record_tag::kHello, {{"ok", false}, {"device", device}, {"error", error}});
      return 0;
    }
    // The limit: gib beyond what the started SUT holds (a device runtime may map a large arena
    // at start; the limit is for the calls' own allocations).
    if (gib > 0) {
      const long long started_bytes = std::max(0LL, data_segment_bytes());
      if (w.trace) w.trace->data_bytes_after_start = started_bytes;
      const auto bytes = static_cast<rlim_t>(started_bytes + gib * 1024 * 1024 * 1024);
      const rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_DATA, &limit);
    }
    nlohmann::json ops = nlohmann::json::array();
    for (const auto *op : registry())
      if (op->available(w.sut->abi())) ops.push_back(op->name);
    reset_trace(w.trace);
    records.send(
        record_tag::kHello,
        {{"ok", true},
         {"device", device},
         {"ops", ops},
         {"coverage", coverage_library()},
         {"start_seconds", std::chrono::duration<double>(Clock::now() - started).count()}});
    w.ctx.sut = w.sut.get();
    w.ctx.kernels = &w.kernels;
    w.ctx.competitor = w.competitor.get();
    w.ctx.cfg = &w.cfg;
    while (const auto command = next_command()) {
      const std::string cmd = command->value("cmd", "");
      if (cmd == "tasks") {
        run_tasks(w, *command, records);
      } else if (cmd == "candidate") {
        follow_emulation(w, *command);
        reset_trace(w.trace);
        const Task t = task_from_json(command->at("task"));
        warm_up(w, *t.op, records);
        reset_trace(w.trace);
        run_candidate(t, case_from_json(command->at("case")), w.ctx);
        records.send(record_tag::kSurvived, nlohmann::json::object());
      } else if (cmd == "emulation") {
        std::vector<const OpDescriptor *> ops;
        for (const auto &name : command->at("ops")) ops.push_back(find_op(name.get<std::string>()));
        reset_trace(w.trace);
        records.send(record_tag::kEmulation, run_emulation_probe(*w.sut, ops, w.cfg.product));
      }
    }
  } catch (const std::exception &e) {
    records.send(record_tag::kError, {{"error", std::string("worker: ") + e.what()}});
  }
  std::fflush(nullptr);
  _exit(0);
}

}  // namespace aclnn_conform
