#include "campaign/campaign.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <stdexcept>

#include "campaign/corpus.hpp"
#include "campaign/kit_policy.hpp"
#include "campaign/product_emulation.hpp"
#include "campaign/selection.hpp"
#include "campaign/task.hpp"
#include "campaign/worker.hpp"
#include "campaign/worker_pool.hpp"
#include "campaign/worker_protocol.hpp"
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

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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
      while (static_cast<int>(pool_.size()) < cfg_.jobs && Clock::now() < deadline_) {
        // A crash or hang waiting to be shrunk goes first, one shrinking worker at a time (its
        // candidates run in forked grandchildren).
        const bool shrinking =
            std::any_of(pool_.workers().begin(), pool_.workers().end(),
                        [](const WorkerProcess &w) { return !w.shrinks.empty(); });
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
      if (pool_.empty()) break;
      pump();
      progress();
    }
    for (auto &[index, p] : pending_crashes_) record_crash(p, nullptr);  // not shrunk in time
    pending_crashes_.clear();
    if (pool_.output_bytes() > 0) {
      const fs::path file = fs::path(cfg_.out_dir) / "sut-output.txt";
      fs::create_directories(cfg_.out_dir);
      std::ofstream(file) << pool_.output();
      result_.warnings.push_back(fmt::format(
          "the SUT wrote {} bytes to stdout/stderr during its calls (not an ABI deviation; the "
          "first {} bytes are in {})",
          pool_.output_bytes(), pool_.output().size(), file.string()));
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
    sut_ = load_sut(cfg_.sut);
    if (!cfg_.competitor.empty()) competitor_ = load_competitor(cfg_.competitor);
    result_.sut = cfg_.sut;
    result_.competitor = cfg_.competitor;
    result_.sut_identity = identify_sut(cfg_.sut);
    result_.tool_version = conform_version();
    ops_ = select_ops(cfg_.ops);
    check_expected_variants(ops_, cfg_.expect_variants);
    ops_ = exported_ops(ops_, *sut_, result_.warnings);
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
    result_.policy = policy_name(cfg_);
    result_.seed = cfg_.seed;
    result_.shard = fmt::format("{}/{}", cfg_.shard_index, cfg_.shard_count);
    result_.skipped = cfg_.skips;
    result_.xfails = cfg_.xfails;
    result_.expected_variants = cfg_.expect_variants;
    result_.clause_pattern = cfg_.clause_pattern;
    result_.allow_incomplete = cfg_.allow_incomplete;
    result_.ops = selected_op_names(cfg_.ops);
    result_.clauses = selected_clauses(result_.ops, tier_min_cases(cfg_.tier));
    for (auto &w : unmatched_entry_warnings(cfg_.skips, cfg_.xfails))
      result_.warnings.push_back(std::move(w));
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
    const WorkerContext ctx = context();
    WorkerProcess &w = pool_.spawn([&](int result_fd, CallTrace *trace) {
      worker_main(result_fd, batch, shrinks, ctx, trace);
    });
    w.batch = std::move(batch);
    w.shrinks = std::move(shrinks);
  }

  void pump() {
    pool_.pump(
        100, case_timeout(),
        [this](WorkerProcess &w, const std::string &line) { handle_line(w, line); },
        [this](WorkerProcess &w, const WorkerExit &e) { finish(w, e); });
  }

  // One record from a worker (campaign/worker_protocol.hpp).
  void handle_line(WorkerProcess &c, const std::string &line) {
    if (line.size() < 2) return;
    const char tag = record_tag_of(line);
    if (tag == record_tag::kNote) {  // a note on what the SUT did to the worker's process
      try {
        add_warning(record_body(line).value("note", std::string("?")));
      } catch (const std::exception &e) {
        add_warning(std::string("unreadable worker line: ") + e.what());
      }
      return;
    }
    const size_t at = c.done++;
    nlohmann::json j;
    try {
      j = record_body(line);
    } catch (const std::exception &e) {
      result_.warnings.push_back(std::string("unreadable worker line: ") + e.what());
      return;
    }
    const bool is_task = at < c.batch.size();
    if (tag == record_tag::kResult && is_task) {
      record(c.batch[at], j);
    } else if (tag == record_tag::kShrunkCrash && !is_task) {
      const auto &s = c.shrinks[at - c.batch.size()];
      auto it = pending_crashes_.find(s.task.index);
      if (it != pending_crashes_.end()) {
        record_crash(it->second, &j);
        pending_crashes_.erase(it);
      }
    } else if (tag == record_tag::kError) {
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

  // Stops every worker (deadline or interrupt); what was in flight is not counted.
  void stop_all(const char *why) {
    stopped_in_flight_ += pool_.stop_all();
    if (stopped_in_flight_ > 0)
      result_.warnings.push_back(
          fmt::format("{}: {} worker(s) stopped with cases in flight; those cases are not counted",
                      why, stopped_in_flight_));
  }

  // A worker is gone (or hung: timed_out, and killed); if it stopped before finishing, the task it
  // was running crashed or hung inside the SUT (or died after the SUT returned), and the rest
  // goes back to the queue.
  void finish(WorkerProcess &c, const WorkerExit &exit) {
    const bool timed_out = exit.timed_out;
    const int status = exit.status;
    const CallTrace &trace = exit.trace;
    if (c.done >= c.records_expected()) return;
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

  void record(const Task &t, const nlohmann::json &r) {
    ++result_.cases;
    const double seconds = r.value("seconds", 0.0);
    const auto &results = r.at("results");
    // The task's time is shared by the clauses it reached.
    const double share = results.empty() ? 0 : seconds / static_cast<double>(results.size());
    for (const auto &cr : results)
      tally(cr[0], cr[1], cr[2], cr.size() > 3 ? cr[3].get<std::string>() : "", share);
    // Accuracy rows merge one way, as shards do (merge_accuracy).
    for (const auto &cmp : r.at("comparisons")) {
      const AccuracyStats a = accuracy_from_comparison(cmp);
      merge_accuracy(accuracy_row(result_.accuracy, a.op, a.dtype), a);
    }
    if (r.contains("precision"))
      for (const auto &pj : r.at("precision")) {
        const AccuracyStats a = accuracy_from_precision(pj);
        merge_accuracy(accuracy_row(result_.accuracy, a.op, a.dtype), a);
      }
    if (!r.contains("deviation")) return;
    Deviation d = deviation_from_json(r.at("deviation"));
    d.op = t.op->name;
    d.origin = t.origin;
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
    if (cfg_.use_corpus && d.case_id.empty()) store_in_corpus(d, result_, cfg_.out_dir);
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
                           : fmt::format("budget spent: finishing {} worker(s)", pool_.size());
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
  WorkerPool pool_;
  std::set<std::string> saturated_;
  CampaignResult result_;
};

void validate(const CampaignConfig &cfg) {
  if (cfg.jobs < 1) throw std::invalid_argument("--jobs must be at least 1");
  if (cfg.shard_count < 1 || cfg.shard_index < 0 || cfg.shard_index >= cfg.shard_count)
    throw std::invalid_argument("--shard I/N needs 0 <= I < N");
  if (cfg.budget_seconds <= 0 && cfg.cases <= 0)
    throw std::invalid_argument("give a --budget or a number of --cases");
}

}  // namespace

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
