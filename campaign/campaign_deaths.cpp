// The campaign's deaths (campaign/campaign_run.hpp): a worker that died or hung is a crash or hang
// of the call in flight (its trace names it), queued for shrinking or recorded at once; a death in
// an op's warm-up, in a health check or while starting is handled apart; a device that failed is
// the device's, not the op's (docs/device.md).
#include <fmt/format.h>
#include <sys/wait.h>
#include <time.h>

#include <cstring>
#include <optional>

#include "campaign/campaign_run.hpp"
#include "campaign/selection.hpp"
#include "campaign/worker_protocol.hpp"

namespace aclnn_conform::campaign_detail {

// The device failed during task t (record D): an allocation it refused for want of memory is
// not the op's (the task runs again, once, on a fresh worker); a device that stopped answering
// is charged like a crash of the last call that still succeeded, and the calls that failed
// after it are not charged at all. The worker exits; the device gets no new worker while
// another is left.
void Campaign::device_fault(WorkerProcess &w, const Task &t, const nlohmann::json &j) {
  w.device_failed = true;
  DeviceUsage &device = devices_.at(w.device);
  const std::string kind = j.value("kind", std::string("device-lost"));
  const std::string problem = j.value("problem", std::string("?"));
  if (kind == "out-of-memory") {
    ++device.out_of_memory;
    add_warning(
        fmt::format("device {} ran out of memory ({}); the worker was replaced and the "
                    "case run again once (counted per device in the devices table)",
                    w.device, problem));
    if (retried_.insert(t.index).second) pending_.push_front(t);
    return;
  }
  ++device.device_faults;
  devices_.suspect(w.device);
  const std::string after = j.value("after_call", std::string());
  // The call after which the device failed was this task's, or an earlier unit's (a task that
  // passed, an op's warm-up): then that one is charged, and this task runs again elsewhere.
  std::optional<Task> owner;
  if (j.value("owner", std::string()) == "task") {
    owner = t;
  } else {
    if (retried_.insert(t.index).second) pending_.push_front(t);
    if (j.contains("owner_task")) {
      try {
        owner = task_from_json(j.at("owner_task"));
      } catch (const std::exception &) {
      }
    }
  }
  if (after.empty() || !owner) {
    add_warning(
        fmt::format("device {} stopped answering after the worker had started, before "
                    "any case's call succeeded ({}); nothing was charged, and the case "
                    "was run again on another worker",
                    w.device, problem));
    return;
  }
  PendingCrash p;
  p.task = *owner;
  p.kind = "device-fault";
  p.call = after;
  p.device = w.device;
  const std::string clause = j.value("clause", std::string());
  p.clause = clause.empty() ? case_clause(*owner->op, task_case(*owner, cfg_)) : clause;
  p.what = fmt::format(
      "device {} stopped answering after {}: {}{}; a health check failed too ({})", w.device, after,
      j.contains("failed_call")
          ? fmt::format("every call from {} on failed (the first with status {})",
                        j.value("failed_call", std::string("?")), j.value("status", 0))
          : std::string("the calls after it failed"),
      "", problem);
  record_crash(p, nullptr, 0);
}

// Stops every worker (deadline or interrupt); what was in flight is not counted, and a call that
// had been running for a second or more is named with how long (a hang not yet confirmed looks
// like this: the report must not leave it unsaid).
void Campaign::stop_all(const char *why) {
  const long long now_ns = monotonic_ns();
  for (const auto &w : pool_.workers()) {
    if (!w.trace || !w.trace->in_sut || w.outstanding.empty()) continue;
    const double seconds = static_cast<double>(now_ns - w.trace->entered_ns) * 1e-9;
    if (seconds < 1.0) continue;
    const std::string call = fmt::format(
        "{} ({}) on device {}, {:.3g} s into it, below its allowance of {:.3g} s",
        w.trace->call[0] ? w.trace->call : "a call of the SUT",
        w.outstanding.front().kind == WorkItem::Kind::kTask ? w.outstanding.front().task.origin
                                                            : "a shrink candidate",
        w.device, seconds, allowance(w, *w.trace));
    result_.warnings.push_back(fmt::format(
        "{}: a worker on device {} was stopped in {}: neither judged nor confirmed as a hang", why,
        w.device, call));
    result_.unresolved_calls.push_back(call);
  }
  stopped_in_flight_ += pool_.stop_all();
  if (stopped_in_flight_ > 0)
    result_.warnings.push_back(
        fmt::format("{}: {} worker(s) stopped with cases in flight; those cases are not counted",
                    why, stopped_in_flight_));
}

// What a death in the SUT (or after it) was, in words.
std::string Campaign::death_text(const WorkerProcess &w, const WorkerExit &exit) const {
  const CallTrace &trace = exit.trace;
  const int status = exit.status;
  const std::string call = trace.call[0] ? trace.call : "the SUT's calls";
  const double limit_gib = worker_memory_limit_gib();
  // What the calls allocated: the data segment at death beyond what the started SUT held.
  const double data_gib =
      static_cast<double>(trace.data_bytes_at_death - trace.data_bytes_after_start) / (1 << 30);
  if (trace.fatal[0]) return trace.fatal;
  if (w.pipe_closed_alive)
    return fmt::format(
        "the worker's result pipe closed while it ran on, {} {} (the SUT closed or replaced "
        "descriptors it does not own?); the worker was stopped",
        trace.in_sut ? "inside" : "after", call);
  if (exit.timed_out) {
    const double limit = w.killed_after > 0 ? w.killed_after : allowance(w, trace);
    if (limit >= case_timeout() || trace.first_call)
      return fmt::format("no return from {} within {:.3g} s (killed)", call, limit);
    return fmt::format(
        "no return from {} within {:.3g} s (killed), on a second worker after an earlier one "
        "was killed at about 1/{:g} of that: {:.1f} % of this run's {} timed calls took less than "
        "{:.3g} "
        "ns per byte of case, which predicts {:.3g} s for this case of {} bytes (the hang "
        "threshold adapts below the {:.3g} s case timeout; --fixed-case-timeout turns that off)",
        call, limit, HangModel::kConfirmFactor, 100 * HangModel::kQuantile, hang_model_.calls(),
        hang_model_.usual_ns_per_byte(), hang_model_.predicted_seconds(trace.case_bytes),
        trace.case_bytes, case_timeout());
  }
  if (WIFSIGNALED(status) && trace.in_sut && trace.death_signal && limit_gib > 0 &&
      data_gib >= limit_gib / 2)
    // Under RLIMIT_DATA an allocation beyond the limit fails, and the SUT then dies of it.
    return fmt::format(
        "the SUT exceeded the worker's {:.3g} GiB memory limit in {}: it died of signal {} ({}) "
        "with {:.2f} GiB of data allocated beyond what its start held",
        limit_gib, call, WTERMSIG(status), strsignal(WTERMSIG(status)), data_gib);
  if (WIFSIGNALED(status))
    return fmt::format("{}: signal {} ({}){}",
                       trace.in_sut ? "the SUT crashed in " + call
                                    : "the worker died after " + call +
                                          " had returned (a thread or handler the SUT left "
                                          "behind, or a fault of aclnn-conform itself)",
                       WTERMSIG(status), strsignal(WTERMSIG(status)), memory_note());
  return fmt::format("the worker ended (exit status {}) {} {}{}", WEXITSTATUS(status),
                     trace.in_sut ? "inside" : "after", call,
                     trace.in_sut ? ": the SUT exited the process" : " (or closed its pipe)");
}

// A worker is gone (or hung: timed_out, and killed). What it had not answered: a candidate's
// death is the shrink's evidence; a task's is a crash or hang of the call in flight, and the
// rest goes back to the queue.
void Campaign::finish(WorkerProcess &w, const WorkerExit &exit) {
  if (w.id == probing_worker_ && !emulation_answer_)
    emulation_death_ = exit.timed_out ? "hung" : "crashed or ended the worker";
  if (!w.ready) {
    if (w.hello_failed) return;  // start_failed() has it
    const std::string output = pool_.output();
    std::string why = death_text(w, exit);
    if (!exit.trace.in_sut && output.find("cannot run the worker") != std::string::npos)
      why = output.substr(output.find("cannot run the worker"));
    // What the SUT said before it ended the worker (e.g. a python: SUT's import error).
    else if (exit.trace.in_sut && !output.empty())
      why += "; it printed: " + output.substr(output.size() > 4000 ? output.size() - 4000 : 0);
    return start_failed(w, "the worker died while starting: " + why);
  }
  if (stop_requested()) return;
  std::deque<WorkItem> left = std::move(w.outstanding);
  if (w.shrinking && candidate_in_flight_ && !left.empty() &&
      left.front().kind == WorkItem::Kind::kCandidate) {
    shrinker_->report(candidate_death(exit.timed_out, exit.status, exit.trace));
    candidate_in_flight_ = false;
    left.pop_front();
  }
  if (left.empty()) return;
  if (w.device_failed) {  // not the tasks' fault: they run again elsewhere
    for (auto it = left.rbegin(); it != left.rend(); ++it)
      if (it->kind == WorkItem::Kind::kTask) pending_.push_front(it->task);
    return;
  }
  const Task t = left.front().task;
  left.pop_front();
  for (auto it = left.rbegin(); it != left.rend(); ++it)
    if (it->kind == WorkItem::Kind::kTask) pending_.push_front(it->task);
  const CallTrace &trace = exit.trace;
  const std::string activity = trace.activity;
  if (activity.rfind("warm-up ", 0) == 0) return warm_up_died(w, exit, t, activity.substr(8));
  if (activity.rfind("kernel load ", 0) == 0) return kernel_load_died(w, exit, t);
  if (activity == "health check") {
    // The device did not survive the question whether it is still there.
    ++devices_.at(w.device).device_faults;
    devices_.suspect(w.device);
    add_warning(
        fmt::format("device {}: the worker died in a device health check ({}); the "
                    "case was run again on another worker",
                    w.device, death_text(w, exit)));
    if (retried_.insert(t.index).second) pending_.push_front(t);
    return;
  }
  // A call killed below the case timeout is a suspect: its task runs once more, first in the
  // queue, with a wider allowance, and only a second overrun is recorded as a hang. The second
  // run loads its kernel first: on a worker new to it (the killed worker's successor, often) the
  // call would otherwise be a kernel load, which gets the whole case timeout.
  if (exit.timed_out && trace.in_sut && !trace.first_call) {
    if (const auto it = hang_suspects_.find(t.index); it != hang_suspects_.end()) {
      it->second = SecondRun::kOverran;
    } else if (w.timeout_override <= 0 && w.killed_after > 0 && w.killed_after < case_timeout()) {
      hang_suspects_.emplace(t.index, SecondRun::kPending);
      Task again = t;
      again.load_kernel_first = true;
      pending_.push_front(std::move(again));
      return;
    }
  }
  const std::string call = trace.call[0] ? trace.call : "the SUT's calls";
  PendingCrash p;
  p.task = t;
  p.kind = exit.timed_out ? "timeout" : "crash";
  p.call = trace.in_sut ? call : "after " + call;
  p.device = w.device;
  // The clause: the trace's (a probe step, a staging call), else the case's own; shrinking
  // keeps it, as it keeps the first failing clause of any deviation.
  p.clause = trace.clause[0] ? std::string(trace.clause) : case_clause(*t.op, task_case(t, cfg_));
  p.what = death_text(w, exit);
  p.found_at_seconds = seconds_since(start_);
  p.found_at_case = result_.cases + 1;
  // Shrink it on workers of its own, under the budget, unless its clause is saturated (then it
  // comes after every kept one, and is not kept). Not "unless enough are kept or queued": that
  // depends on what arrived before it, so with two workers a kept crash was shrunk in one run
  // and not in another (KeepsTheSameCrashesWithOneWorkerAsWithTwo failed 2 of 3 runs).
  // Complete for the schedule when seen, not when shrunk (a shrink may take long).
  TaskOutcome crashed;
  crashed.signatures.push_back(p.kind + " " + p.clause);
  schedule_->on_outcome(t, crashed);
  if (t.generated() && trace.in_sut && !saturated_.count(p.clause) && !past_deadline()) {
    crash_queue_.push_back({t, p.kind, p.call, p.clause, trace.clause[0] != 0});
    pending_crashes_.emplace(t.index, std::move(p));
  } else {
    record_crash(p, nullptr, 0);
  }
}

// A worker died in the call that loads a suspect's kernel before its second run (a small valid
// call of its op and dtypes). That call is charged like any crash or hang of a fixed call, and
// the suspect runs again as it would have without it: its kernel new to its worker, with the
// whole case timeout.
void Campaign::kernel_load_died(const WorkerProcess &w, const WorkerExit &exit, Task suspect) {
  suspect.load_kernel_first = false;
  pending_.push_front(suspect);
  if (const auto task = kernel_load_task(suspect, cfg_))  // the call the worker made
    fixed_call_died(w, exit, *task,
                    "in the call that loaded the kernel before a suspected hang's second run");
}

// A worker died warming an op up (its first call: the op's small fixed valid call). That call
// is charged like any crash or hang, the op is not warmed up again (its first judged call then
// gets the case timeout), and the task that was waiting runs again.
void Campaign::warm_up_died(const WorkerProcess &w, const WorkerExit &exit, const Task &waiting,
                            const std::string &op_name) {
  pending_.push_front(waiting);
  const OpDescriptor *op = find_op(op_name);
  if (!op || !no_warm_up_.insert(op_name).second) return;
  if (const auto task = warm_up_task(*op, cfg_))
    fixed_call_died(w, exit, *task, "in the op's warm-up call, its first in a fresh worker");
}

// A death in a fixed call the worker made of its own accord (a warm-up, a kernel load): charged
// like any crash or hang, to that call, unshrunk (it has no shrink tree).
void Campaign::fixed_call_died(const WorkerProcess &w, const WorkerExit &exit, const Task &task,
                               const std::string &where) {
  PendingCrash p;
  p.task = task;
  p.kind = exit.timed_out ? "timeout" : "crash";
  p.call = exit.trace.call[0] ? exit.trace.call : "the SUT's calls";
  p.device = w.device;
  p.clause =
      exit.trace.clause[0] ? std::string(exit.trace.clause) : case_clause(*task.op, *task.stored);
  p.what = death_text(w, exit) + " (" + where + ")";
  p.found_at_seconds = seconds_since(start_);
  p.found_at_case = result_.cases + 1;
  record_crash(p, nullptr, 0);
}

std::string Campaign::memory_note() const {
  const double gib = worker_memory_limit_gib();
  return gib > 0 ? fmt::format(" (workers run with a {:.0f} GiB memory limit)", gib) : "";
}

// Records a crash, hang or device fault, with its shrunk case when the shrink ran.
void Campaign::record_crash(const PendingCrash &p, const Case *shrunk, int steps) {
  ++result_.cases;
  task_completed(p.task);
  climb_.completed(p.task.index);     // given up: climbs waiting for it may start
  coverage_.completed(p.task.index);  // given up: seed mutations waiting for it may start
  TaskOutcome given_up;
  given_up.signatures.push_back(p.kind + " " + p.clause);
  schedule_->on_outcome(p.task, std::move(given_up));
  Case c = shrunk ? *shrunk : task_case(p.task, cfg_);
  const std::string &clause = p.clause;
  if (is_skipped(cfg_, clause)) return;
  tally(clause, false, p.what, "", 0);
  const auto verdict = p.task.op->check(c, {});
  Deviation d;
  d.op = p.task.op->name;
  d.clause = clause;
  d.kind = p.kind;
  d.call = p.call;
  d.detail = p.what;
  d.all_failures = clause + ": " + p.what + "\n";
  d.minimal = c;
  d.origin = p.task.origin;
  d.shrink_steps = steps;
  d.expected_status = verdict.status;
  d.expected_clause = verdict.ok() ? "" : verdict.clause;
  d.case_id = p.task.corpus_id;
  d.device = p.device;
  d.found_at_seconds = p.found_at_seconds;
  d.found_at_case = p.found_at_case;
  add_deviation(std::move(d));
}

}  // namespace aclnn_conform::campaign_detail
