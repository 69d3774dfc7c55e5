#include "campaign/campaign.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <stdexcept>
#include <thread>

#include "campaign/product_emulation.hpp"
#include "campaign/task.hpp"
#include "campaign/worker.hpp"
#include "properties/clauses.hpp"
#include "properties/op.hpp"

namespace aclnn_conform {

std::string tier_name(Tier t) {
  switch (t) {
    case Tier::kSmoke:
      return "smoke";
    case Tier::kCi:
      return "ci";
    case Tier::kNightly:
      return "nightly";
  }
  return "ci";
}

int tier_max_size(Tier t) {
  switch (t) {
    case Tier::kSmoke:
      return 30;
    case Tier::kCi:
      return 70;
    case Tier::kNightly:
      return 100;
  }
  return 70;
}

int tier_min_cases(Tier t) {
  switch (t) {
    case Tier::kSmoke:
      return 1;
    case Tier::kCi:
      return 5;
    case Tier::kNightly:
      return 20;
  }
  return 5;
}

namespace {

namespace fs = std::filesystem;
using Clock = WorkerClock;

uint64_t fnv1a(const std::string &s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A worker process: its batch, the page where it keeps the call in flight, and how far it got.
struct Child {
  pid_t pid = -1;  // also its process group: whatever the SUT forks dies with it
  int fd = -1;
  int output_fd = -1;          // the worker's stdout and stderr (what the SUT prints)
  CallTrace *trace = nullptr;  // MAP_SHARED with the worker
  std::vector<Task> batch;
  std::vector<CrashShrink> shrinks;
  size_t done = 0;                 // result lines received (tasks first, then shrinks)
  bool pipe_closed_alive = false;  // its result pipe closed, yet it did not exit: killed
  std::string buffer;
};

// A crash or hang waiting for its shrink: recorded when the shrink reports (or the run ends).
struct PendingCrash {
  Task task;
  std::string kind, call, clause, what;
};

class Campaign {
 public:
  Campaign(const CampaignConfig &cfg, std::ostream &log) : cfg_(cfg), log_(log) {}

  CampaignResult run(std::deque<Task> corpus, bool generate) {
    start_ = Clock::now();
    if (cfg_.budget_seconds > 0)
      deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(cfg_.budget_seconds));
    setup();
    int64_t other_product = 0;  // stored cases for a product the SUT cannot be run as
    for (auto &t : corpus) {
      if (!t.stored || product_runs(*t.stored, cfg_))
        pending_.push_back(std::move(t));
      else
        ++other_product;
    }
    if (generate) {
      // Every SUT gets every edge row and the protocol probes first, whatever the budget.
      // Shards split them like the seed space, so that shards merge into the whole.
      std::vector<Task> first = edge_tasks(ops_);
      for (auto &t : fixed_probe_tasks(ops_, cfg_)) first.push_back(std::move(t));
      for (size_t j = 0; j < first.size(); ++j) {
        if (static_cast<int>(j % static_cast<size_t>(cfg_.shard_count)) != cfg_.shard_index ||
            is_skipped(cfg_, first[j].property()))
          continue;
        // Generated tasks (the large calls) are drawn for --soc's product already.
        if (!first[j].stored || product_runs(*first[j].stored, cfg_))
          pending_.push_back(std::move(first[j]));
        else
          ++other_product;
      }
    }
    if (other_product > 0)
      result_.warnings.push_back(fmt::format(
          "{} stored case(s) and edge row(s) for products other than {} were not run, nor "
          "generated cases for them: the SUT does not take the product from ACLNN_CPU_SOC ({}); "
          "--product-emulation on runs them on a SUT that does",
          other_product, product_name(cfg_.product), emulation_evidence_));
    generate_ = generate;
    while (true) {
      if (stop_requested()) {
        stop_all("interrupted");
        result_.interrupted = true;
        break;
      }
      if (cfg_.budget_seconds > 0 && Clock::now() >= deadline_ + kGrace) {
        stop_all("the budget ran out");
        break;
      }
      while (static_cast<int>(children_.size()) < cfg_.jobs && Clock::now() < deadline_) {
        // A crash or hang waiting to be shrunk goes first, one shrinking worker at a time (its
        // candidates run in forked grandchildren).
        const bool shrinking = std::any_of(children_.begin(), children_.end(),
                                           [](const Child &c) { return !c.shrinks.empty(); });
        if (!shrinking && !crash_queue_.empty()) {
          std::vector<CrashShrink> shrinks{std::move(crash_queue_.front())};
          crash_queue_.pop_front();
          spawn({}, std::move(shrinks));
          continue;
        }
        std::vector<Task> batch = next_batch();
        if (batch.empty()) break;
        spawn(std::move(batch), {});
      }
      if (children_.empty()) break;
      pump();
      progress();
    }
    for (auto &[index, p] : pending_crashes_) record_crash(p, nullptr);  // not shrunk in time
    pending_crashes_.clear();
    if (sut_output_bytes_ > 0) {
      const fs::path file = fs::path(cfg_.out_dir) / "sut-output.txt";
      fs::create_directories(cfg_.out_dir);
      std::ofstream(file) << sut_output_;
      result_.warnings.push_back(fmt::format(
          "the SUT wrote {} bytes to stdout/stderr during its calls (not an ABI deviation; the "
          "first {} bytes are in {})",
          sut_output_bytes_, sut_output_.size(), file.string()));
    }
    if (cfg_.progress) std::fprintf(stderr, "\n");
    result_.seconds = seconds_since(start_);
    finalize_statuses(result_);
    return std::move(result_);
  }

 private:
  // Time after the deadline for workers to send what they have before they are stopped.
  static constexpr auto kGrace = std::chrono::milliseconds(1500);

  bool stop_requested() const { return cfg_.stop_requested && *cfg_.stop_requested; }

  // A hang must be seen within the budget: with a budget, a call that takes longer than a sixth
  // of it (at least 2 s) counts as hung, if that is shorter than the configured timeout.
  double case_timeout() const {
    if (cfg_.budget_seconds <= 0) return cfg_.case_timeout_seconds;
    return std::min(cfg_.case_timeout_seconds, std::max(2.0, cfg_.budget_seconds / 6));
  }

  void setup() {
    if (cfg_.sut == "builtin") {
      sut_ = Sut::builtin();
      if (!sut_)
        throw std::runtime_error("cannot load the built-in library " + Sut::builtin_path());
    } else {
      std::string error;
      sut_ = Sut::load(cfg_.sut, error);
      if (!sut_) throw std::runtime_error(error);
    }
    if (!cfg_.competitor.empty()) {
      std::string error;
      competitor_ =
          cfg_.competitor == "builtin" ? Sut::builtin() : Sut::load(cfg_.competitor, error);
      if (!competitor_)
        throw std::runtime_error("--competitor: " + (error.empty() ? cfg_.competitor : error));
    }
    result_.sut = cfg_.sut;
    result_.competitor = cfg_.competitor;
    result_.sut_identity = identify_sut(cfg_.sut);
    result_.tool_version = conform_version();
    if (cfg_.ops.empty()) {
      ops_ = registry();
    } else {
      for (const auto &name : cfg_.ops) {
        const OpDescriptor *op = find_op(name);
        if (!op)
          throw std::invalid_argument("no op named '" + name + "' (see `aclnn-conform list ops`)");
        ops_.push_back(op);
      }
    }
    for (const auto &v : cfg_.expect_variants) {
      const bool known = std::any_of(ops_.begin(), ops_.end(), [&](const OpDescriptor *op) {
        return std::find(op->variants.begin(), op->variants.end(), v) != op->variants.end();
      });
      if (!known)
        throw std::invalid_argument("--expect-variant '" + v +
                                    "' is no variant of the selected ops (see `aclnn-conform "
                                    "list variants`)");
    }
    std::vector<const OpDescriptor *> available;
    for (const auto *op : ops_) {
      if (op->available(sut_->abi()))
        available.push_back(op);
      else
        result_.warnings.push_back(fmt::format("{} does not export {}: its clauses are not reached",
                                               sut_->name(), op->abi_name));
    }
    ops_ = available;
    if (cfg_.product_emulation == ProductEmulation::kAuto) {
      const EmulationProbe p =
          probe_product_emulation(*sut_, ops_, cfg_.product, std::min(10.0, case_timeout()));
      cfg_.product_emulation = p.emulates ? ProductEmulation::kOn : ProductEmulation::kOff;
      emulation_evidence_ = p.evidence;
    } else {
      emulation_evidence_ = cfg_.product_emulation == ProductEmulation::kOn
                                ? "--product-emulation on"
                                : "--product-emulation off";
    }
    log_ << "product emulation: "
         << (cfg_.product_emulation == ProductEmulation::kOn ? "on" : "off") << " ("
         << emulation_evidence_ << ")\n";
    result_.product = std::string(product_name(cfg_.product));
    result_.tier = tier_name(cfg_.tier);
    result_.policy = cfg_.accuracy == JudgePolicy::Accuracy::kAscend ? "ascend" : "ulp";
    result_.seed = cfg_.seed;
    result_.shard = fmt::format("{}/{}", cfg_.shard_index, cfg_.shard_count);
    result_.skipped = cfg_.skips;
    result_.xfails = cfg_.xfails;
    result_.expected_variants = cfg_.expect_variants;
    result_.clause_pattern = cfg_.clause_pattern;
    result_.allow_incomplete = cfg_.allow_incomplete;
    std::set<std::string> selected;
    for (const auto *op : registry())
      if (cfg_.ops.empty() || std::count(cfg_.ops.begin(), cfg_.ops.end(), op->name)) {
        selected.insert(op->name);
        result_.ops.push_back(op->name);
      }
    std::set<std::string> op_clauses;
    for (const auto *op : registry())
      if (selected.count(op->name)) op_clauses.insert(op->clauses.begin(), op->clauses.end());
    for (const auto &c : clause_catalog()) {
      const bool mine = c.op == "common" || selected.count(c.op) || op_clauses.count(c.id);
      if (!mine) continue;
      ClauseVerdict v;
      v.id = c.id;
      v.op = c.op;
      v.min_cases = tier_min_cases(cfg_.tier);
      result_.clauses.push_back(v);
    }
    // Entries that match nothing are reported, not silently ignored.
    auto known = [&](const std::string &e) {
      if (find_clause(e)) return true;
      for (const auto *op : registry())
        for (const char *kind : {"/valid", "/invalid", "/protocol", "/edge", "/corpus"})
          if (e == op->name + kind) return true;
      return false;
    };
    for (const auto &e : cfg_.skips)
      if (!known(e))
        result_.warnings.push_back("--skips entry '" + e + "' matches no clause or property");
    for (const auto &e : cfg_.xfails)
      if (!find_clause(e))
        result_.warnings.push_back("--xfails entry '" + e + "' matches no clause");
    if (ops_.empty()) throw std::runtime_error("the SUT exports none of the selected ops");
  }

  std::vector<Task> next_batch() {
    std::vector<Task> batch;
    constexpr size_t kBatch = 8;
    while (batch.size() < kBatch && !pending_.empty()) {
      Task t = std::move(pending_.front());
      pending_.pop_front();
      // A stored case of an op the SUT lacks cannot run (its clauses stay "not reached").
      if (std::find(ops_.begin(), ops_.end(), t.op) == ops_.end()) continue;
      batch.push_back(std::move(t));
    }
    while (generate_ && batch.size() < kBatch && Clock::now() < deadline_ &&
           (cfg_.cases <= 0 || generated_ < cfg_.cases)) {
      const int64_t k = next_k_ * cfg_.shard_count + cfg_.shard_index;
      ++next_k_;
      Task t = generated_task(ops_, cfg_, k);
      if (is_skipped(cfg_, t.property())) continue;
      ++generated_;
      batch.push_back(std::move(t));
    }
    return batch;
  }

  WorkerContext context() const {
    WorkerContext ctx;
    ctx.sut = sut_.get();
    ctx.competitor = competitor_.get();
    ctx.cfg = &cfg_;
    ctx.saturated = saturated_;
    ctx.deadline = deadline_;
    return ctx;
  }

  void spawn(std::vector<Task> batch, std::vector<CrashShrink> shrinks) {
    void *page =
        mmap(nullptr, sizeof(CallTrace), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) throw std::runtime_error("mmap of a worker's trace page failed");
    auto *trace = static_cast<CallTrace *>(page);
    std::memset(trace, 0, sizeof *trace);
    int fds[2], out[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    std::fflush(nullptr);
    const WorkerContext ctx = context();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      setpgid(0, 0);
      close(fds[0]);
      close(out[0]);
      for (const auto &c : children_) {
        close(c.fd);
        close(c.output_fd);
      }
      // What the SUT prints goes to the parent, which counts it and keeps the start; never to
      // the CLI's own output.
      dup2(out[1], STDOUT_FILENO);
      dup2(out[1], STDERR_FILENO);
      close(out[1]);
      worker_main(fds[1], batch, shrinks, ctx, trace);
    }
    setpgid(pid, pid);  // also here: no race with a kill of the group
    close(fds[1]);
    close(out[1]);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    Child c;
    c.pid = pid;
    c.fd = fds[0];
    c.output_fd = out[0];
    c.trace = trace;
    c.batch = std::move(batch);
    c.shrinks = std::move(shrinks);
    children_.push_back(std::move(c));
  }

  // Reads what the SUT printed, keeping the first kKeptOutput bytes.
  void drain_output(Child &c) {
    char buf[65536];
    ssize_t n;
    while ((n = read(c.output_fd, buf, sizeof buf)) > 0) {
      sut_output_bytes_ += n;
      if (sut_output_.size() < kKeptOutput)
        sut_output_.append(buf, std::min(static_cast<size_t>(n), kKeptOutput - sut_output_.size()));
    }
  }

  // Reads what is in the result pipe; false at end of stream.
  bool drain_results(Child &c) {
    char buf[65536];
    while (true) {
      const ssize_t n = read(c.fd, buf, sizeof buf);
      if (n > 0) {
        c.buffer.append(buf, static_cast<size_t>(n));
        consume_lines(c);
        continue;
      }
      return n < 0;  // EAGAIN: open, nothing more now; 0: closed
    }
  }

  void pump() {
    std::vector<pollfd> pfds;
    for (auto &c : children_) {
      pfds.push_back({c.fd, POLLIN, 0});
      pfds.push_back({c.output_fd, POLLIN, 0});
    }
    poll(pfds.data(), pfds.size(), 100);
    const long long now_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
            .count();
    for (auto &c : children_) {
      drain_output(c);
      if (!drain_results(c)) {
        finish(c, false, -1);  // end of stream: the worker finished, died or closed the pipe
        continue;
      }
      // The worker may be gone while something it (or the SUT) forked holds the pipe open.
      int status = 0;
      if (waitpid(c.pid, &status, WNOHANG) == c.pid) {
        drain_results(c);
        finish(c, false, status);
        continue;
      }
      // The per-case timeout counts the time inside one call of the SUT.
      if (__atomic_load_n(&c.trace->in_sut, __ATOMIC_SEQ_CST) &&
          static_cast<double>(now_ns - c.trace->entered_ns) * 1e-9 > case_timeout()) {
        finish(c, true, -1);
      }
    }
    std::erase_if(children_, [](const Child &c) { return c.pid < 0; });
  }

  void consume_lines(Child &c) {
    size_t nl;
    while ((nl = c.buffer.find('\n')) != std::string::npos) {
      const std::string line = c.buffer.substr(0, nl);
      c.buffer.erase(0, nl + 1);
      if (line.size() < 2) continue;
      if (line[0] == 'N') {  // a note on what the SUT did to the worker's process
        try {
          add_warning(nlohmann::json::parse(line.substr(2)).value("note", std::string("?")));
        } catch (const std::exception &e) {
          add_warning(std::string("unreadable worker line: ") + e.what());
        }
        continue;
      }
      const size_t at = c.done++;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line.substr(2));
      } catch (const std::exception &e) {
        result_.warnings.push_back(std::string("unreadable worker line: ") + e.what());
        continue;
      }
      const bool is_task = at < c.batch.size();
      if (line[0] == 'R' && is_task) {
        record(c.batch[at], j);
      } else if (line[0] == 'C' && !is_task) {
        const auto &s = c.shrinks[at - c.batch.size()];
        auto it = pending_crashes_.find(s.task.index);
        if (it != pending_crashes_.end()) {
          record_crash(it->second, &j);
          pending_crashes_.erase(it);
        }
      } else if (line[0] == 'E') {
        const std::string what = j.value("error", std::string("?"));
        if (is_task) {
          const Task &t = c.batch[at];
          result_.warnings.push_back(fmt::format(
              "{} ({}): the framework could not judge the case: {}", t.op->name, t.origin, what));
        } else {
          auto it = pending_crashes_.find(c.shrinks[at - c.batch.size()].task.index);
          if (it != pending_crashes_.end()) {
            record_crash(it->second, nullptr);
            pending_crashes_.erase(it);
          }
        }
      }
    }
  }

  // Ends a worker and everything in its process group, and returns its wait status (status, if
  // the worker was already reaped).
  int reap(Child &c, int status, CallTrace *last = nullptr) {
    if (status < 0) {
      // A worker that closed its result pipe but lives on gets a moment to exit by itself.
      const auto until = Clock::now() + std::chrono::milliseconds(500);
      while (waitpid(c.pid, &status, WNOHANG) != c.pid) {
        if (Clock::now() >= until) {
          kill(c.pid, SIGKILL);
          waitpid(c.pid, &status, 0);
          c.pipe_closed_alive = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    kill(-c.pid, SIGKILL);
    drain_output(c);
    close(c.fd);
    close(c.output_fd);
    if (last) *last = *c.trace;  // as the worker left it: it is gone now
    munmap(c.trace, sizeof(CallTrace));
    c.pid = -1;
    return status;
  }

  // Stops every worker (deadline or interrupt); what was in flight is not counted.
  void stop_all(const char *why) {
    for (auto &c : children_) {
      kill(-c.pid, SIGKILL);
      kill(c.pid, SIGKILL);
      const size_t total = c.batch.size() + c.shrinks.size();
      reap(c, -1);
      if (c.done < total) ++stopped_in_flight_;
    }
    children_.clear();
    if (stopped_in_flight_ > 0)
      result_.warnings.push_back(
          fmt::format("{}: {} worker(s) stopped with cases in flight; those cases are not counted",
                      why, stopped_in_flight_));
  }

  // A worker is gone (or hung: timed_out): reap it; if it stopped before finishing, the task it
  // was running crashed or hung inside the SUT (or died after the SUT returned), and the rest
  // goes back to the queue.
  void finish(Child &c, bool timed_out, int status) {
    if (timed_out) kill(c.pid, SIGKILL);
    // Read once the worker is gone: a worker whose pipe closed early may still be writing it.
    CallTrace trace{};
    status = reap(c, status, &trace);
    const size_t total = c.batch.size() + c.shrinks.size();
    if (c.done >= total) return;
    if (stop_requested()) return;
    if (c.done >= c.batch.size()) {
      // A crash shrink died (its candidates run in grandchildren, so this is rare): record the
      // crash unshrunk and drop the rest.
      for (size_t k = c.done - c.batch.size(); k < c.shrinks.size(); ++k) {
        auto it = pending_crashes_.find(c.shrinks[k].task.index);
        if (it != pending_crashes_.end()) {
          record_crash(it->second, nullptr);
          pending_crashes_.erase(it);
        }
      }
      return;
    }
    const Task &t = c.batch[c.done];
    const std::string call = trace.call[0] ? trace.call : "the SUT's calls";
    std::string what;
    const double limit_gib = worker_memory_limit_gib();
    const double data_gib = static_cast<double>(trace.data_bytes_at_death) / (1 << 30);
    if (trace.fatal[0])
      what = trace.fatal;
    else if (c.pipe_closed_alive)
      what = fmt::format(
          "the worker's result pipe closed while it ran on, {} {} (the SUT closed or replaced "
          "descriptors it does not own?); the worker was stopped",
          trace.in_sut ? "inside" : "after", call);
    else if (timed_out)
      what = fmt::format("no return from {} within {:.3g} s (killed)", call, case_timeout());
    else if (WIFSIGNALED(status) && trace.in_sut && trace.death_signal && limit_gib > 0 &&
             data_gib >= limit_gib / 2)
      // Under RLIMIT_DATA an allocation beyond the limit fails, and the SUT then dies of it.
      what = fmt::format(
          "the SUT exceeded the worker's {:.3g} GiB memory limit in {}: it died of signal {} ({}) "
          "with {:.2f} GiB of data allocated",
          limit_gib, call, WTERMSIG(status), strsignal(WTERMSIG(status)), data_gib);
    else if (WIFSIGNALED(status))
      what = fmt::format("{}: signal {} ({}){}",
                         trace.in_sut ? "the SUT crashed in " + call
                                      : "the worker died after " + call +
                                            " had returned (a thread or handler the SUT left "
                                            "behind, or a fault of aclnn-conform itself)",
                         WTERMSIG(status), strsignal(WTERMSIG(status)), memory_note());
    else
      what = fmt::format("the worker ended (exit status {}) {} {}{}", WEXITSTATUS(status),
                         trace.in_sut ? "inside" : "after", call,
                         trace.in_sut ? ": the SUT exited the process" : " (or closed its pipe)");
    PendingCrash p;
    p.task = t;
    p.kind = timed_out ? "timeout" : "crash";
    p.call = trace.in_sut ? call : "after " + call;
    // The clause: the trace's (a probe step, a staging call), else the case's own; shrinking
    // keeps it, as it keeps the first failing clause of any deviation.
    p.clause = trace.clause[0] ? std::string(trace.clause) : case_clause(*t.op, task_case(t, cfg_));
    p.what = what;
    // Shrink it in a worker of its own, under the budget, unless enough are kept for its clause.
    const int kept =
        static_cast<int>(std::count_if(result_.deviations.begin(), result_.deviations.end(),
                                       [&](const Deviation &d) { return d.clause == p.clause; }));
    if (t.generated() && trace.in_sut && !saturated_.count(p.clause) &&
        kept + crash_shrinks_[p.clause] < cfg_.deviations_per_clause && Clock::now() < deadline_) {
      ++crash_shrinks_[p.clause];
      crash_queue_.push_back({t, p.kind, p.call, p.clause, trace.clause[0] != 0});
      pending_crashes_.emplace(t.index, std::move(p));
    } else {
      record_crash(p, nullptr);
    }
    for (size_t i = c.done + 1; i < c.batch.size(); ++i) pending_.push_front(c.batch[i]);
    // Crash shrinks queued behind it go back too.
    for (const auto &s : c.shrinks) crash_queue_.push_back(s);
  }

  // A warning once, however many workers send it.
  void add_warning(std::string w) {
    if (std::find(result_.warnings.begin(), result_.warnings.end(), w) == result_.warnings.end())
      result_.warnings.push_back(std::move(w));
  }

  std::string memory_note() const {
    const double gib = worker_memory_limit_gib();
    return gib > 0 ? fmt::format(" (workers run with a {:.0f} GiB memory limit)", gib) : "";
  }

  // Records a crash or hang, with its shrunk case when the shrink reported (shrunk != nullptr).
  void record_crash(const PendingCrash &p, const nlohmann::json *shrunk) {
    ++result_.cases;
    Case c = task_case(p.task, cfg_);
    int steps = 0;
    const std::string &clause = p.clause;
    if (shrunk) {
      c = case_from_json(shrunk->at("case"));
      steps = shrunk->at("shrink_steps");
      --crash_shrinks_[clause];
    }
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
    add_deviation(std::move(d));
  }

  void tally(const std::string &clause, bool pass, const std::string &detail,
             const std::string &explained_by, double seconds) {
    ClauseVerdict *v = result_.clause(clause);
    if (!v) return;  // a clause of another op (or the harness): not part of this campaign
    ++v->reached;
    v->seconds += seconds;
    if (!explained_by.empty()) {
      ++v->explained_by_variant;
      if (std::find(v->expected_variants_matched.begin(), v->expected_variants_matched.end(),
                    explained_by) == v->expected_variants_matched.end())
        v->expected_variants_matched.push_back(explained_by);
    }
    if (!pass) {
      ++v->deviations;
      if (v->first_detail.empty()) v->first_detail = detail;
    }
  }

  static AccuracyStats accuracy_row(const std::string &op, const std::string &dtype) {
    AccuracyStats a;
    a.op = op;
    a.dtype = dtype;
    return a;
  }

  void record(const Task &t, const nlohmann::json &r) {
    ++result_.cases;
    const double seconds = r.value("seconds", 0.0);
    const auto &results = r.at("results");
    // The task's time is shared by the clauses it reached.
    const double share = results.empty() ? 0 : seconds / static_cast<double>(results.size());
    for (const auto &cr : results)
      tally(cr[0], cr[1], cr[2], cr.size() > 3 ? cr[3].get<std::string>() : "", share);
    for (const auto &cmp : r.at("comparisons")) {
      const std::string op = cmp.at("op"), dtype = cmp.at("dtype");
      auto it = std::find_if(result_.accuracy.begin(), result_.accuracy.end(),
                             [&](const auto &a) { return a.op == op && a.dtype == dtype; });
      if (it == result_.accuracy.end()) {
        result_.accuracy.push_back(accuracy_row(op, dtype));
        it = result_.accuracy.end() - 1;
      }
      const int64_t n = cmp.at("count");
      it->elements += n;
      for (size_t b = 0; b < it->histogram.size(); ++b)
        it->histogram[b] += cmp.at("histogram")[b].get<int64_t>();
      it->max_ulps = std::max(it->max_ulps, number_from_json(cmp.at("max_ulps")));
      it->mere_weighted_sum += number_from_json(cmp.at("mere")) * static_cast<double>(n);
      it->mare = std::max(it->mare, number_from_json(cmp.at("mare")));
      const std::string rule = cmp.value("rule", std::string("ulp"));
      if (std::find(it->rules.begin(), it->rules.end(), rule) == it->rules.end())
        it->rules.push_back(rule);
      if (cmp.contains("max_bound_ratio"))
        it->max_bound_ratio =
            std::max(it->max_bound_ratio, number_from_json(cmp.at("max_bound_ratio")));
    }
    if (r.contains("precision"))
      for (const auto &pj : r.at("precision")) {
        const std::string op = pj.at("op"), dtype = pj.at("dtype");
        auto it = std::find_if(result_.accuracy.begin(), result_.accuracy.end(),
                               [&](const auto &a) { return a.op == op && a.dtype == dtype; });
        if (it == result_.accuracy.end()) {
          result_.accuracy.push_back(accuracy_row(op, dtype));
          it = result_.accuracy.end() - 1;
        }
        PrecisionStats p = precision_from_json(pj);
        it->precision.op = op;
        it->precision.dtype = dtype;
        it->precision.merge(p);
      }
    if (!r.contains("deviation")) return;
    const auto &dj = r.at("deviation");
    Deviation d;
    d.op = t.op->name;
    d.clause = dj.at("clause");
    d.detail = dj.at("detail");
    d.all_failures = dj.at("all_failures");
    d.minimal = case_from_json(dj.at("case"));
    d.origin = t.origin;
    d.shrink_steps = dj.at("shrink_steps");
    d.kind = dj.at("kind");
    d.call = dj.at("call");
    d.variants = dj.at("variants").get<std::vector<std::string>>();
    d.consistent_variants = dj.at("consistent_variants").get<std::vector<std::string>>();
    d.expected_status = dj.at("expected_status");
    d.expected_clause = dj.at("expected_clause");
    d.got_status = dj.at("got_status");
    if (!t.corpus_id.empty()) d.case_id = t.corpus_id;
    add_deviation(std::move(d));  // finalize_statuses derives the clause's fingerprint
  }

  // Keeps at most deviations_per_clause counterexamples per clause and stores new ones in the
  // corpus, with the SUT they came from; once a clause has enough, workers stop shrinking for it.
  void add_deviation(Deviation d) {
    const int kept =
        static_cast<int>(std::count_if(result_.deviations.begin(), result_.deviations.end(),
                                       [&](const Deviation &x) { return x.clause == d.clause; }));
    if (kept + 1 >= cfg_.deviations_per_clause) saturated_.insert(d.clause);
    if (kept >= cfg_.deviations_per_clause) return;
    d.found_at_seconds = seconds_since(start_);
    d.found_at_case = result_.cases;
    d.summary = d.minimal.describe();
    if (cfg_.use_corpus && d.case_id.empty()) {
      nlohmann::json entry = to_json(d.minimal);
      const std::string text = entry.dump();
      d.case_id = fmt::format("{}-{}-{:016x}", d.op, d.clause, fnv1a(text));
      // The entry is the case itself (readable by case_from_json) plus where it came from.
      entry["id"] = d.case_id;
      entry["clause"] = d.clause;
      entry["kind"] = d.kind;
      entry["call"] = d.call;
      entry["sut"] = to_json(result_.sut_identity);
      entry["product_of_record"] = result_.product;
      entry["tool_version"] = result_.tool_version;
      const fs::path dir = fs::path(cfg_.out_dir) / "corpus";
      fs::create_directories(dir);
      const fs::path file = dir / (d.case_id + ".json");
      if (!fs::exists(file)) std::ofstream(file) << entry.dump(1) << "\n";
      d.corpus_file = fs::relative(file, cfg_.out_dir).string();
    }
    result_.deviations.push_back(std::move(d));
  }

  void progress() {
    if (!cfg_.progress) return;
    int reached = 0, deviating = 0;
    for (const auto &c : result_.clauses) {
      reached += c.reached > 0;
      deviating += c.deviations > 0;
    }
    std::string left;
    if (cfg_.budget_seconds > 0) {
      const double remaining = std::chrono::duration<double>(deadline_ - Clock::now()).count();
      left = remaining > 0 ? fmt::format("{:.0f}s left", remaining)
                           : fmt::format("budget spent: finishing {} worker(s)", children_.size());
    } else {
      left = fmt::format("{}/{} cases", generated_, cfg_.cases);
    }
    std::fprintf(stderr,
                 "\r[aclnn-conform] cases %lld | clauses reached %d/%zu | deviating %d | %s   ",
                 static_cast<long long>(result_.cases), reached, result_.clauses.size(), deviating,
                 left.c_str());
    std::fflush(stderr);
  }

  CampaignConfig cfg_;  // a copy: the run resolves product_emulation
  std::ostream &log_;
  Clock::time_point start_;
  Clock::time_point deadline_ = Clock::time_point::max();
  std::unique_ptr<Sut> sut_;
  std::unique_ptr<Sut> competitor_;
  std::vector<const OpDescriptor *> ops_;
  std::string emulation_evidence_;  // why product emulation is on or off
  std::deque<Task> pending_;
  std::deque<CrashShrink> crash_queue_;
  std::map<int64_t, PendingCrash> pending_crashes_;
  std::map<std::string, int> crash_shrinks_;
  bool generate_ = true;
  int64_t next_k_ = 0;
  int64_t generated_ = 0;
  int stopped_in_flight_ = 0;
  static constexpr size_t kKeptOutput = 64 * 1024;
  std::string sut_output_;
  int64_t sut_output_bytes_ = 0;
  std::vector<Child> children_;
  std::set<std::string> saturated_;
  CampaignResult result_;
};

std::deque<Task> load_corpus(const std::vector<std::string> &paths, const std::string &only_id,
                             std::ostream &log) {
  std::deque<Task> tasks;
  const std::vector<fs::path> files = corpus_files(paths);
  int64_t k = 0;
  for (const auto &f : files) {
    if (!only_id.empty() && f.stem().string() != only_id) continue;
    try {
      std::ifstream in(f);
      auto c = std::make_shared<Case>(case_from_json(nlohmann::json::parse(in)));
      const OpDescriptor *op = find_op(c->op);
      if (!op) throw std::runtime_error("unknown op " + c->op);
      Task t;
      t.index = -1 - k++;
      t.op = op;
      t.kind = Task::Kind::kCorpus;
      t.stored = std::move(c);
      t.origin = "corpus " + f.filename().string();
      t.corpus_id = f.stem().string();
      tasks.push_back(std::move(t));
    } catch (const std::exception &e) {
      log << "warning: skipping corpus file " << f << ": " << e.what() << "\n";
    }
  }
  if (!only_id.empty() && tasks.empty())
    throw std::invalid_argument("no corpus entry with id '" + only_id + "'");
  return tasks;
}

void validate(const CampaignConfig &cfg) {
  if (cfg.jobs < 1) throw std::invalid_argument("--jobs must be at least 1");
  if (cfg.shard_count < 1 || cfg.shard_index < 0 || cfg.shard_index >= cfg.shard_count)
    throw std::invalid_argument("--shard I/N needs 0 <= I < N");
  if (cfg.budget_seconds <= 0 && cfg.cases <= 0)
    throw std::invalid_argument("give a --budget or a number of --cases");
}

}  // namespace

std::vector<std::filesystem::path> corpus_files(const std::vector<std::string> &paths) {
  std::vector<fs::path> files;
  for (const auto &p : paths) {
    if (fs::is_directory(p)) {
      for (const auto &e : fs::directory_iterator(p))
        if (e.path().extension() == ".json") files.push_back(e.path());
    } else if (fs::exists(p)) {
      files.emplace_back(p);
    } else {
      throw std::invalid_argument("replay: no such file or directory: " + p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

CampaignResult run_campaign(const CampaignConfig &cfg, std::ostream &log) {
  validate(cfg);
  std::deque<Task> corpus;
  if (cfg.use_corpus) {
    const fs::path dir = fs::path(cfg.out_dir) / "corpus";
    if (fs::is_directory(dir)) corpus = load_corpus({dir.string()}, "", log);
  }
  // Stored counterexamples of ops outside --ops are left for a run that selects them.
  if (!cfg.ops.empty())
    std::erase_if(corpus, [&](const Task &t) {
      return std::find(cfg.ops.begin(), cfg.ops.end(), t.op->name) == cfg.ops.end();
    });
  Campaign campaign(cfg, log);
  return campaign.run(std::move(corpus), true);
}

CampaignResult replay_cases(const CampaignConfig &cfg, const std::vector<std::string> &paths,
                            std::ostream &log) {
  CampaignConfig c = cfg;
  c.use_corpus = false;
  std::deque<Task> tasks = load_corpus(paths, cfg.replay_case_id, log);
  if (tasks.empty()) throw std::invalid_argument("no stored counterexamples found to replay");
  Campaign campaign(c, log);
  return campaign.run(std::move(tasks), false);
}

}  // namespace aclnn_conform
