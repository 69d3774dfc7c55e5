#include "campaign/worker.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

#include "campaign/kit_policy.hpp"
#include "campaign/precision.hpp"
#include "campaign/task.hpp"
#include "campaign/worker_protocol.hpp"
#include "campaign/product_emulation.hpp"
#include "properties/call_trace.hpp"
#include "properties/judge.hpp"
#include "properties/protocol.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {
namespace {

using Clock = WorkerClock;

std::string first_failure(const std::vector<ClauseResult> &rs) {
  for (const auto &r : rs)
    if (!r.pass) return r.clause;
  return "";
}

// The expected variants (--expect-variant) this op has.
aclnn_ref::VariantSet expected_variants(const OpDescriptor &op, const CampaignConfig &cfg) {
  aclnn_ref::VariantSet vs;
  for (const auto &v : cfg.expect_variants)
    if (std::find(op.variants.begin(), op.variants.end(), v) != op.variants.end()) vs.add(v);
  return vs;
}

// A judgement with the user's expectations applied: skipped clauses taken out, and clauses that
// fail under the record but conform under the expected variants marked as explained (they pass,
// and `explained` names the variants).
struct Judged {
  Judgement j;
  std::map<std::string, std::string> explained;
  std::string target;  // the first failing clause that no expected variant explains
};

Judged judge_task(const Task &t, const Case &c, const Outcome &o, const CampaignConfig &cfg,
                  const Sut *reference = nullptr) {
  const OpDescriptor &op = *t.op;
  JudgePolicy policy;
  policy.accuracy = cfg.accuracy;
  policy.kit = cfg.kit_standard;
  // A kit standard that compares with another device: the competitor's result on this case.
  const std::optional<Outcome> ref = kit_reference_outcome(cfg, reference, op, c, o);
  policy.reference = ref ? &*ref : nullptr;
  Judged r;
  r.j = judge(op, c, o, policy);
  // An edge row also states its result literally; the literals are checked on every SUT.
  if (t.row && c.tensors.size() == t.row->call.tensors.size())
    for (const auto &cr : edge_row_literals(*t.row, o)) r.j.add(cr.clause, cr.pass, cr.detail);
  std::erase_if(r.j.results, [&](const ClauseResult &cr) { return is_skipped(cfg, cr.clause); });
  const auto expected = expected_variants(op, cfg);
  if (!r.j.pass() && !expected.names().empty()) {
    JudgePolicy pv = policy;
    pv.variants = expected;
    try {
      const Judgement jv = judge(op, c, o, pv);
      for (auto &cr : r.j.results) {
        if (cr.pass) continue;
        const bool fails_under_variant =
            std::any_of(jv.results.begin(), jv.results.end(),
                        [&](const ClauseResult &v) { return v.clause == cr.clause && !v.pass; });
        if (fails_under_variant) continue;
        r.explained[cr.clause] = fmt::format("{}", fmt::join(expected.names(), "+"));
        cr.pass = true;
        cr.detail.clear();
      }
    } catch (const std::exception &) {
      // The oracle cannot evaluate the variant on this case: nothing is explained.
    }
  }
  r.target = first_failure(r.j.results);
  return r;
}

// Variants under which the case conforms, each single variant then all of the op's together:
// strictly (the campaign's policy) and loosely (the Ascend precision standard, which a variant's
// behaviour computed in working precision meets where it cannot meet a few ulps).
struct Fingerprint {
  std::vector<std::string> strict, consistent;
};
Fingerprint fingerprint(const OpDescriptor &op, const Case &c, const Outcome &o,
                        JudgePolicy::Accuracy accuracy, const std::string &kit = "") {
  Fingerprint f;
  auto conforms = [&](const aclnn_ref::VariantSet &vs, JudgePolicy::Accuracy a) {
    JudgePolicy p;
    p.variants = vs;
    p.accuracy = a;
    p.kit = kit;
    try {
      return judge(op, c, o, p).pass();
    } catch (const std::exception &) {
      return false;  // a variant the oracle cannot evaluate on this case does not match it
    }
  };
  auto consider = [&](const aclnn_ref::VariantSet &vs, const std::string &name) {
    if (conforms(vs, accuracy))
      f.strict.push_back(name);
    else if (conforms(vs, JudgePolicy::Accuracy::kAscend))
      f.consistent.push_back(name);
  };
  for (const auto &v : op.variants) consider(aclnn_ref::VariantSet{v}, v);
  if (f.strict.empty() && op.variants.size() > 1) {
    aclnn_ref::VariantSet all;
    for (const auto &v : op.variants) all.add(v);
    consider(all, fmt::format("{}", fmt::join(op.variants, "+")));
  }
  return f;
}

// The rule that judged a compared output (AccuracyStats::rules): integers are always exact.
std::string rule_of(const aclnn_ref::Comparison &cmp) {
  using Kind = aclnn_ref::Tolerance::Kind;
  if (!aclnn_ref::is_floating(cmp.dtype) || cmp.kind == Kind::kExact) return "exact";
  if (cmp.kind == Kind::kSum) return "sum";
  if (cmp.kind == Kind::kAscend) return "ascend";
  return "ulp";
}

nlohmann::json comparison_json(const OpDescriptor &op, const aclnn_ref::Comparison &cmp) {
  nlohmann::json h = nlohmann::json::array();
  for (auto b : cmp.histogram) h.push_back(b);
  return {{"op", op.name},
          {"rule", rule_of(cmp)},
          {"max_bound_ratio", json_number(cmp.max_bound_ratio)},
          {"dtype", std::string(aclnn_ref::dtype_name(cmp.dtype))},
          {"count", cmp.count},
          {"histogram", h},
          {"max_ulps", json_number(cmp.max_ulps)},
          {"mere", json_number(cmp.ascend.mere)},
          {"mare", json_number(cmp.ascend.mare)}};
}

// The failing probe results of a protocol task on case c ("" if all pass).
std::vector<ClauseResult> probe(const Task &t, const Case &c, const WorkerContext &ctx) {
  std::vector<ClauseResult> out;
  if (!t.op->check(c, {}).ok()) return out;  // the probes need a valid call
  for (auto &cr : protocol_probe(*ctx.sut, *t.op, c))
    if (!is_skipped(*ctx.cfg, cr.clause)) out.push_back(std::move(cr));
  return out;
}

// Walks the task's rapidcheck shrink tree, keeping a candidate whenever still_fails says it fails
// the same way; stops at the attempt limit or the deadline. Returns the smallest case found.
Case shrink(const Task &t, Case c, const std::function<bool(const Case &)> &still_fails,
            const WorkerContext &ctx, Clock::time_point deadline, int &steps) {
  auto current = task_shrinkable(t, *ctx.cfg);
  int attempts = 0;
  for (bool progress = true;
       progress && attempts < ctx.cfg->shrink_attempts && Clock::now() < deadline;) {
    progress = false;
    auto shrinks = current.shrinks();
    while (auto next = shrinks.next()) {
      if (++attempts > ctx.cfg->shrink_attempts || Clock::now() >= deadline) break;
      Case candidate = next->value();
      bool fails = false;
      try {
        fails = still_fails(candidate);
      } catch (const std::exception &) {
        continue;  // the oracle cannot judge this candidate: not a smaller counterexample
      }
      if (fails) {
        current = *next;
        c = std::move(candidate);
        ++steps;
        progress = true;
        break;
      }
    }
  }
  return c;
}

Clock::time_point shrink_deadline(const WorkerContext &ctx) {
  return std::min(Clock::now() + std::chrono::seconds(20), ctx.deadline);
}

std::string phase_call(const OpDescriptor &op, const Outcome &o) {
  return o.phase == 1 ? op.abi_name + "GetWorkspaceSize" : op.abi_name;
}

std::string status_clause(const aclnn_ref::Verdict &v) {
  return v.ok() ? "" : v.clause;
}

// The precision standards' tallies of a valid call the SUT ran (precision.hpp), with the
// competitor run on the same case. Reported only: an oracle failure here judges nothing.
nlohmann::json precision_json(const Task &t, const Case &c, const Outcome &o,
                              const WorkerContext &ctx) {
  nlohmann::json out = nlohmann::json::array();
  if (o.harness_error || o.status != 0 || !t.op->check(c, {}).ok()) return out;
  try {
    std::optional<Outcome> other;
    if (ctx.competitor) other = run_case(*ctx.competitor, *t.op, c);
    const uint64_t key = std::hash<std::string>{}(t.origin);
    for (const auto &p : collect_precision(*t.op, c, o, other ? &*other : nullptr,
                                           ctx.cfg->competitor, key, t.origin)) {
      auto j = to_json(p);
      j["op"] = p.op;
      j["dtype"] = p.dtype;
      out.push_back(std::move(j));
    }
  } catch (const std::exception &) {
    out = nlohmann::json::array();  // the oracle cannot evaluate this case: no tallies
  }
  return out;
}

}  // namespace

std::string case_clause(const OpDescriptor &op, const Case &c) {
  const auto verdict = op.check(c, {});
  if (!verdict.ok()) return verdict.clause;
  std::vector<std::string> reached;
  try {
    reached = op.reached(c);
  } catch (const std::exception &) {
  }
  const auto has = [&](const std::string &suffix) -> std::string {
    for (const auto &r : reached)
      if (r.find(suffix) != std::string::npos && r.rfind("ABI-", 0) != 0) return r;
    return "";
  };
  if (auto e = has("-EMPTY-"); !e.empty()) return e;
  if (std::find(reached.begin(), reached.end(), "ABI-RANK-1") != reached.end()) {
    for (const auto &[name, t] : c.tensors)
      if (t.present && t.shape.size() == 8) return "ABI-RANK-1";
  }
  if (auto v = has("-VALUE-"); !v.empty()) return v;
  return op.clauses.empty() ? "ABI-TWOPHASE-1" : op.clauses.front();
}

nlohmann::json run_task(const Task &t, const WorkerContext &ctx) {
  const auto started = Clock::now();
  const CampaignConfig &cfg = *ctx.cfg;
  const OpDescriptor &op = *t.op;
  nlohmann::json r{{"results", nlohmann::json::array()}, {"comparisons", nlohmann::json::array()}};
  Case c = task_case(t, cfg);
  const auto seconds = [&] {
    return std::chrono::duration<double>(Clock::now() - started).count();
  };

  if (t.kind == Task::Kind::kProtocol) {
    arm_late_write_check();
    auto results = probe(t, c, ctx);
    for (const auto &cr : results) r["results"].push_back({cr.clause, cr.pass, cr.detail, ""});
    const std::string target = first_failure(results);
    if (target.empty()) {
      r["seconds"] = seconds();
      return r;
    }
    int steps = 0;
    if (t.generated() && !ctx.saturated.count(target))
      c = shrink(
          t, c,
          [&](const Case &cand) {
            const auto rs = probe(t, cand, ctx);
            return first_failure(rs) == target;
          },
          ctx, shrink_deadline(ctx), steps);
    results = steps > 0 ? probe(t, c, ctx) : results;
    std::string detail, all;
    for (const auto &cr : results) {
      if (cr.pass) continue;
      if (cr.clause == target && detail.empty()) detail = cr.detail;
      all += cr.clause + ": " + cr.detail + "\n";
    }
    Deviation d;
    d.op = op.name;
    d.clause = target;
    d.detail = detail;
    d.all_failures = all;
    d.minimal = c;
    d.origin = t.origin;
    d.shrink_steps = steps;
    d.kind = "deviation";
    d.call = "protocol probe " + target;
    r["deviation"] = to_json(d);
    r["seconds"] = seconds();
    return r;
  }

  arm_late_write_check();
  Outcome o = run_case(*ctx.sut, op, c);
  // A runtime call that failed the set-up or the copy back: the worker asks whether the device
  // is still there, or full, before this is judged as the op's (worker_process_main).
  if (o.harness_error && o.harness_status != 0)
    r["runtime_failure"] = {{"status", o.harness_status}, {"message", o.harness_message}};
  Judged jd = judge_task(t, c, o, cfg, ctx.competitor);
  for (const auto &cr : jd.j.results) {
    const auto e = jd.explained.find(cr.clause);
    r["results"].push_back(
        {cr.clause, cr.pass, cr.detail, e == jd.explained.end() ? "" : e->second});
  }
  for (const auto &cmp : jd.j.comparisons)
    if (!cmp.untouched_check && cmp.count > 0 && cmp.error.empty())
      r["comparisons"].push_back(comparison_json(op, cmp));
  r["precision"] = precision_json(t, c, o, ctx);
  if (jd.target.empty()) {
    r["seconds"] = seconds();
    return r;
  }

  const std::string target = jd.target;
  int steps = 0;
  if (t.generated() && !ctx.saturated.count(target)) {
    // The outcome of the last accepted candidate, which is the shrunk case: judged as it was seen
    // to fail, not re-run (a failure that depends on timing, such as a write after the call
    // returned, need not recur, and the record would name a clause without its detail).
    std::optional<Outcome> shrunk_outcome;
    c = shrink(
        t, c,
        [&](const Case &cand) {
          arm_late_write_check();
          Outcome co = run_case(*ctx.sut, op, cand);
          if (judge_task(t, cand, co, cfg, ctx.competitor).target != target) return false;
          shrunk_outcome = std::move(co);
          return true;
        },
        ctx, shrink_deadline(ctx), steps);
    if (steps > 0 && shrunk_outcome) {
      o = std::move(*shrunk_outcome);
      jd = judge_task(t, c, o, cfg, ctx.competitor);
    }
  }
  const auto verdict = op.check(c, {});
  std::string detail;
  for (const auto &cr : jd.j.results)
    if (cr.clause == target) detail = cr.detail;
  const Fingerprint fp = fingerprint(op, c, o, cfg.accuracy, cfg.kit_standard);
  Deviation d;
  d.op = op.name;
  d.clause = target;
  d.detail = detail;
  d.all_failures = jd.j.failures();
  d.minimal = c;
  d.origin = t.origin;
  d.shrink_steps = steps;
  d.kind = "deviation";
  d.call = phase_call(op, o);
  d.variants = fp.strict;
  d.consistent_variants = fp.consistent;
  d.expected_status = verdict.status;
  d.expected_clause = status_clause(verdict);
  d.got_status = o.status;
  r["deviation"] = to_json(d);
  r["seconds"] = seconds();
  return r;
}

namespace {

// What a SUT may do to the worker's process besides its results, checked after every return from
// the SUT: its descriptors 0-2 and the result pipe, and the signal handlers the framework relies
// on. What can be put back is put back and noted for the report; a result pipe the SUT closed or
// replaced cannot be, so the worker leaves the reason in its trace page and exits.
struct ProcessGuard {
  CallTrace *trace = nullptr;
  int result_fd = -1, command_fd = -1;
  struct stat result_id {}, command_id{};
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
    const int fd = open("/proc/self/statm", O_RDONLY);
    if (fd >= 0) {
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
      if (field >= 5) t->data_bytes_at_death = value * sysconf(_SC_PAGESIZE);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
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

// ---- The worker process ---------------------------------------------------------------------

// Writes records to the campaign; notes the guard collected go first. A process the SUT forked
// inside a call returns into this code too: only the worker itself may report.
class Records {
 public:
  explicit Records(int fd) : out_(fdopen(fd, "w")), self_(getpid()) {}
  void send(char tag, const nlohmann::json &body) {
    if (getpid() != self_) _exit(0);
    check_result_pipe();
    for (const auto &n : g_guard.notes) write(encode_record(record_tag::kNote, {{"note", n}}));
    g_guard.notes.clear();
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
  trace->in_sut = trace->first_call = trace->death_signal = 0;
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

void run_tasks(Worker &w, const nlohmann::json &command, Records &records) {
  if (command.contains("saturated"))
    w.ctx.saturated = command["saturated"].get<std::set<std::string>>();
  if (command.contains("deadline_ns"))
    w.ctx.deadline = Clock::time_point(std::chrono::nanoseconds(command["deadline_ns"]));
  for (const auto &tj : command.at("tasks")) {
    reset_trace(w.trace);
    nlohmann::json r;
    Task t;
    try {
      t = task_from_json(tj);
      warm_up(w, *t.op, records);
      reset_trace(w.trace);
      begin_unit(w, t);
      r = run_task(t, w.ctx);
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

void run_candidate(const Task &t, const Case &candidate, const WorkerContext &ctx) {
  if (t.kind == Task::Kind::kProtocol) {
    if (t.op->check(candidate, {}).ok()) protocol_probe(*ctx.sut, *t.op, candidate);
  } else {
    run_case(*ctx.sut, *t.op, candidate);
  }
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

int worker_process_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  // The campaign decides when workers stop (Ctrl-C reaches the whole process group), and a worker
  // never outlives it.
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // A SUT that allocates without bound fails inside its call instead of taking the machine.
  const double gib = worker_memory_limit_gib();
  if (gib > 0) {
    const auto bytes = static_cast<rlim_t>(gib * 1024 * 1024 * 1024);
    const rlimit limit{bytes, bytes};
    setrlimit(RLIMIT_DATA, &limit);
  }
  Worker w;
  void *page = mmap(nullptr, sizeof(CallTrace), PROT_READ | PROT_WRITE, MAP_SHARED,
                    kWorkerTraceFd, 0);
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
    nlohmann::json ops = nlohmann::json::array();
    for (const auto *op : registry())
      if (op->available(w.sut->abi())) ops.push_back(op->name);
    reset_trace(w.trace);
    records.send(record_tag::kHello,
                 {{"ok", true},
                  {"device", device},
                  {"ops", ops},
                  {"start_seconds", std::chrono::duration<double>(Clock::now() - started).count()}});
    w.ctx.sut = w.sut.get();
    w.ctx.competitor = w.competitor.get();
    w.ctx.cfg = &w.cfg;
    while (const auto command = next_command()) {
      const std::string cmd = command->value("cmd", "");
      if (cmd == "tasks") {
        run_tasks(w, *command, records);
      } else if (cmd == "candidate") {
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
