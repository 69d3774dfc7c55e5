#include "campaign/campaign.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>

#include "campaign/corpus.hpp"
#include "campaign/crash_shrink.hpp"
#include "campaign/devices.hpp"
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

// A crash or hang waiting for its shrink: recorded when the shrink ends (or the run does).
struct PendingCrash {
  Task task;
  std::string kind, call, clause, what;
  int device = -1;
};

// Tasks sent to a worker at a time, and the most a worker runs before it is replaced by a fresh
// one (whatever state a SUT accumulates in a process stays bounded; ACLNN_CONFORM_WORKER_TASKS).
constexpr size_t kBatch = 8;
int64_t worker_task_limit() {
  const char *env = std::getenv("ACLNN_CONFORM_WORKER_TASKS");
  const long long n = env ? std::atoll(env) : 0;
  return n > 0 ? n : 512;
}

class Campaign {
 public:
  Campaign(const CampaignConfig &cfg, std::ostream &log)
      : cfg_(cfg), log_(log), devices_(cfg.devices) {
    // A python: SUT's adapter answers some clauses itself: they are skipped (in the workers too)
    // and reported as not applicable, never as conforming.
    if (is_python_sut(cfg_.sut))
      for (const auto &c : python_sut_not_applicable())
        if (std::find(cfg_.skips.begin(), cfg_.skips.end(), c) == cfg_.skips.end()) {
          cfg_.skips.push_back(c);
          result_.not_applicable.push_back(c);
          result_.not_applicable_reason = kPythonSutNotApplicableReason;
        }
  }

  CampaignResult run(std::deque<Task> corpus, bool generate) {
    start_ = Clock::now();
    if (cfg_.budget_seconds > 0)
      deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(cfg_.budget_seconds));
    try {
      setup();
    } catch (...) {
      pool_.stop_all();
      throw;
    }
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
      manage_shrink();
      fill();
      if (pool_.empty()) {
        if (!has_work() && !shrinker_ && crash_queue_.empty()) break;
        if (devices_.all_retired()) {
          result_.aborted = "every device was retired (see the devices table): the run covers "
                            "only what ran before";
          break;
        }
      }
      pump();
      progress();
    }
    // Shrinks not finished in time: their crashes are recorded unshrunk.
    if (shrinker_) finish_shrink(false);
    for (auto &s : crash_queue_) {
      auto it = pending_crashes_.find(s.task.index);
      if (it != pending_crashes_.end()) record_crash(it->second, nullptr, 0);
    }
    crash_queue_.clear();
    for (auto &[index, p] : pending_crashes_) record_crash(p, nullptr, 0);
    pending_crashes_.clear();
    pool_.stop_all();
    finish_result();
    return std::move(result_);
  }

 private:
  // Time after the deadline for workers to send what they have before they are stopped.
  static constexpr auto kGrace = std::chrono::milliseconds(1500);

  bool stop_requested() const { return cfg_.stop_requested && *cfg_.stop_requested; }
  bool past_deadline() const { return Clock::now() >= deadline_; }

  // A hang must be seen within the budget: with a budget, a call that takes longer than a sixth
  // of it (at least 2 s) counts as hung, if that is shorter than the configured timeout.
  double case_timeout() const {
    if (cfg_.budget_seconds <= 0) return cfg_.case_timeout_seconds;
    return std::min(cfg_.case_timeout_seconds, std::max(2.0, cfg_.budget_seconds / 6));
  }

  // The seconds a worker may spend in the call its trace shows: first calls (a worker's start,
  // an op's warm-up) get the first-call allowance, the rest the case timeout (or the shrink's).
  double allowance(const WorkerProcess &w, const CallTrace &t) const {
    const double base = w.timeout_override > 0 ? w.timeout_override : case_timeout();
    return t.first_call ? std::max(base, cfg_.first_call_timeout_seconds) : base;
  }

  // ---- Set-up: the first worker says what the SUT exports, then every device is started ----

  void setup() {
    files_ = sut_files(cfg_.sut);
    if (!cfg_.competitor.empty()) {
      try {
        competitor_files_ = sut_files(cfg_.competitor);
      } catch (const std::runtime_error &e) {
        throw std::runtime_error(std::string("--competitor: ") + e.what());
      }
    }
    result_.sut = cfg_.sut;
    result_.competitor = cfg_.competitor;
    for (const auto &f : files_) result_.sut_files.push_back(identify_sut(f));
    result_.sut_identity = result_.sut_files.back();
    result_.tool_version = conform_version();
    ops_ = select_ops(cfg_.ops);
    check_expected_variants(ops_, cfg_.expect_variants);
    // The first worker: loads the library, starts its device, says which ops it exports.
    const auto first = devices_.next();
    const int first_id = start_worker(*first).id;
    wait_until([&] { return worker_ready(first_id) || !start_error_.empty(); });
    if (!start_error_.empty()) throw std::runtime_error(start_error_);
    if (!worker_ready(first_id))
      throw std::runtime_error("the run was stopped before the SUT had started");
    ops_ = exported_ops(ops_, exported_, cfg_.sut, result_.warnings);
    if (cfg_.product_emulation == ProductEmulation::kAuto) probe_emulation(first_id);
    emulation_evidence_ = cfg_.product_emulation == ProductEmulation::kOn
                              ? (emulation_evidence_.empty() ? "--product-emulation on"
                                                             : emulation_evidence_)
                              : (emulation_evidence_.empty() ? "--product-emulation off"
                                                             : emulation_evidence_);
    log_ << "product emulation: "
         << (cfg_.product_emulation == ProductEmulation::kOn ? "on" : "off") << " ("
         << emulation_evidence_ << ")\n";
    // Every other device is started once now: one that cannot be is an error naming it. Those
    // beyond --jobs end once started.
    std::vector<int> started;
    for (const auto &d : devices_.usage())
      if (d.workers == 0) started.push_back(start_worker(d.id).id);
    wait_until([&] {
      return !start_error_.empty() ||
             std::all_of(started.begin(), started.end(), [&](int id) { return worker_ready(id); });
    });
    if (!start_error_.empty()) throw std::runtime_error(start_error_);
    int extra = static_cast<int>(pool_.size()) - cfg_.jobs;
    for (auto &w : pool_.workers())
      if (extra > 0 && w.id != first_id && !w.closing) {
        pool_.close_commands(w);
        --extra;
      }
    setup_done_ = true;
    result_.product = std::string(product_name(cfg_.product));
    result_.tier = tier_name(cfg_.tier);
    result_.policy = policy_name(cfg_);
    result_.seed = cfg_.seed;
    result_.shard = fmt::format("{}/{}", cfg_.shard_index, cfg_.shard_count);
    result_.skipped = cfg_.skips;
    std::erase_if(result_.skipped, [&](const std::string &e) {
      return std::find(result_.not_applicable.begin(), result_.not_applicable.end(), e) !=
             result_.not_applicable.end();
    });
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

  // Pumps until done() holds, the run is interrupted or the budget's wall passes.
  template <typename Done>
  void wait_until(Done done) {
    while (!done() && !stop_requested() &&
           !(cfg_.budget_seconds > 0 && Clock::now() >= deadline_ + kGrace)) {
      if (pool_.empty()) break;
      pump();
    }
  }

  bool worker_ready(int id) const {
    for (const auto &w : pool_.workers())
      if (w.id == id) return w.ready;
    return false;
  }

  WorkerProcess *find_worker(int id) {
    for (auto &w : pool_.workers())
      if (w.id == id) return &w;
    return nullptr;
  }

  // The product-emulation probe, on the first worker: a call gated by the product, as the
  // campaign's product and as another (campaign/product_emulation.hpp).
  void probe_emulation(int worker_id) {
    nlohmann::json ops = nlohmann::json::array();
    for (const auto *op : ops_) ops.push_back(op->name);
    WorkerProcess *w = find_worker(worker_id);
    if (!w) return;
    emulation_answer_.reset();
    emulation_death_.clear();
    probing_worker_ = worker_id;
    pool_.send(*w, encode_command("emulation", {{"ops", ops}}));
    wait_until([&] { return emulation_answer_ || !emulation_death_.empty(); });
    probing_worker_ = -1;
    const EmulationProbe p = read_emulation_probe(
        emulation_answer_ ? &*emulation_answer_ : nullptr,
        emulation_death_.empty() ? "got no answer" : emulation_death_, cfg_.product);
    cfg_.product_emulation = p.emulates ? ProductEmulation::kOn : ProductEmulation::kOff;
    emulation_evidence_ = p.evidence;
  }

  WorkerProcess &start_worker(int device) {
    WorkerLaunch launch;
    launch.executable = worker_executable();
    WorkerProcess &w = pool_.spawn(launch);
    w.device = device;
    ++devices_.at(device).workers;
    nlohmann::json no_warm_up = nlohmann::json::array();
    for (const auto &op : no_warm_up_) no_warm_up.push_back(op);
    pool_.send(w, encode_command("hello", {{"sut", files_},
                                           {"competitor", competitor_files_},
                                           {"device", device},
                                           {"config", worker_config_json(cfg_)},
                                           {"no_warm_up", no_warm_up}}));
    return w;
  }

  // A worker that did not start: at set-up an error that names its device; later, the device
  // is retired after three starts in a row fail.
  void start_failed(const WorkerProcess &w, const std::string &why) {
    DeviceUsage &d = devices_.at(w.device);
    const std::string text = fmt::format("device {}: {}", w.device, why);
    if (!setup_done_) {
      if (start_error_.empty()) start_error_ = text;
      return;
    }
    add_warning("a worker could not start on " + text);
    if (++start_failures_[w.device] >= 3) {
      devices_.retire(w.device, "three workers in a row could not start: " + why);
      add_warning(fmt::format("device {} was retired: {}", w.device, d.note));
    }
  }

  // ---- Dispatch -------------------------------------------------------------------------------

  bool has_work() const {
    return !pending_.empty() ||
           (generate_ && !past_deadline() && (cfg_.cases <= 0 || generated_ < cfg_.cases));
  }

  // Up to kBatch tasks; a teardown task ends its batch (the worker exits after it).
  std::vector<Task> next_batch(bool &teardown) {
    std::vector<Task> batch;
    teardown = false;
    while (batch.size() < kBatch && !pending_.empty() && !teardown) {
      Task t = std::move(pending_.front());
      pending_.pop_front();
      // A stored case of an op the SUT lacks cannot run (its clauses stay "not reached").
      if (std::find(ops_.begin(), ops_.end(), t.op) == ops_.end()) continue;
      teardown = t.teardown;
      batch.push_back(std::move(t));
    }
    while (!teardown && generate_ && batch.size() < kBatch && !past_deadline() &&
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

  // Keeps --jobs workers busy: each has up to two batches outstanding, so it never waits for the
  // next. A worker that has run its share, or has nothing left to do, is told to end.
  void fill() {
    while (static_cast<int>(pool_.size()) < cfg_.jobs && has_work() && !past_deadline()) {
      const auto device = devices_.next();
      if (!device) break;
      start_worker(*device);
    }
    for (auto &w : pool_.workers()) {
      if (!w.ready || w.closing || w.shrinking) continue;
      if (w.outstanding.size() < kBatch) {
        bool teardown = false;
        std::vector<Task> batch = next_batch(teardown);
        if (!batch.empty()) {
          nlohmann::json tasks = nlohmann::json::array();
          for (const auto &t : batch) tasks.push_back(to_json(t));
          pool_.send(w, encode_command("tasks", {{"tasks", tasks},
                                                 {"saturated", saturated_},
                                                 {"deadline_ns", deadline_ns()}}));
          w.tasks_sent += static_cast<int64_t>(batch.size());
          for (auto &t : batch) w.outstanding.push_back({WorkItem::Kind::kTask, std::move(t)});
          if (teardown || w.tasks_sent >= worker_task_limit()) pool_.close_commands(w);
          continue;
        }
      }
      const bool needed = shrinker_ && !has_shrink_worker();
      if (w.outstanding.empty() && !has_work() && !needed) pool_.close_commands(w);
    }
  }

  long long deadline_ns() const {
    return deadline_ == Clock::time_point::max()
               ? std::numeric_limits<long long>::max()
               : std::chrono::duration_cast<std::chrono::nanoseconds>(deadline_.time_since_epoch())
                     .count();
  }

  // ---- Crash shrinking: one candidate at a time, on a worker set aside for it ----------------

  bool has_shrink_worker() const {
    return std::any_of(pool_.workers().begin(), pool_.workers().end(),
                       [](const WorkerProcess &w) { return w.shrinking; });
  }

  void manage_shrink() {
    if (!shrinker_ && !crash_queue_.empty()) {
      shrinker_.emplace(crash_queue_.front(), cfg_, deadline_);
      crash_queue_.pop_front();
    }
    if (!shrinker_ || candidate_in_flight_) return;
    WorkerProcess *worker = nullptr;
    for (auto &w : pool_.workers())
      if (w.shrinking) worker = &w;
    if (!worker) {
      // An idle worker, else a new one if there is room, else the least busy one, which gets no
      // more tasks until it is idle.
      for (auto &w : pool_.workers())
        if (!worker && w.ready && !w.closing && w.outstanding.empty()) worker = &w;
      if (!worker && static_cast<int>(pool_.size()) < cfg_.jobs) {
        const auto device = devices_.next();
        if (!device) return finish_shrink(false);
        worker = &start_worker(*device);
      }
      if (!worker)
        for (auto &w : pool_.workers())
          if (!w.closing && (!worker || w.outstanding.size() < worker->outstanding.size()))
            worker = &w;
      if (!worker) return;
      worker->shrinking = true;
    }
    if (!worker->ready || !worker->outstanding.empty()) return;
    const auto candidate = shrinker_->next();
    if (!candidate) {
      worker->shrinking = false;
      worker->timeout_override = 0;
      return finish_shrink(true);
    }
    worker->timeout_override = shrinker_->candidate_timeout(case_timeout());
    const Task &task = shrinker_->crash().task;
    pool_.send(*worker, encode_command("candidate", {{"task", to_json(task)},
                                                     {"case", to_json(*candidate)}}));
    worker->outstanding.push_back({WorkItem::Kind::kCandidate, task});
    candidate_in_flight_ = true;
  }

  // Records the shrink's crash, with its smallest case when the walk ran (shrunk).
  void finish_shrink(bool shrunk) {
    const auto it = pending_crashes_.find(shrinker_->crash().task.index);
    if (it != pending_crashes_.end()) {
      if (shrunk)
        record_crash(it->second, &shrinker_->smallest(), shrinker_->steps());
      else
        record_crash(it->second, nullptr, 0);
      pending_crashes_.erase(it);
    }
    --crash_shrinks_[shrinker_->crash().clause];
    shrinker_.reset();
    candidate_in_flight_ = false;
  }

  // ---- Records and exits ----------------------------------------------------------------------

  void pump() {
    pool_.pump(
        100, [this](const WorkerProcess &w, const CallTrace &t) { return allowance(w, t); },
        [this](WorkerProcess &w, const std::string &line) { handle_line(w, line); },
        [this](WorkerProcess &w, const WorkerExit &e) { finish(w, e); });
  }

  // One record from a worker (campaign/worker_protocol.hpp).
  void handle_line(WorkerProcess &w, const std::string &line) {
    if (line.size() < 2) return;
    const char tag = record_tag_of(line);
    nlohmann::json j;
    try {
      j = record_body(line);
    } catch (const std::exception &e) {
      add_warning(std::string("unreadable worker line: ") + e.what());
      return;
    }
    switch (tag) {
      case record_tag::kNote:  // what the SUT did to the worker's process
        return add_warning(j.value("note", std::string("?")));
      case record_tag::kWarmUp:
        return timing(j.value("op", std::string("?"))).add(j.value("seconds", 0.0));
      case record_tag::kHello:
        if (!j.value("ok", false)) {
          w.hello_failed = true;
          return start_failed(w, j.value("error", std::string("?")));
        }
        w.ready = true;
        start_failures_[w.device] = 0;
        timing("start").add(j.value("start_seconds", 0.0));
        if (exported_.empty()) exported_ = j.value("ops", std::vector<std::string>{});
        return;
      case record_tag::kEmulation:
        emulation_answer_ = j;
        return;
      default:
        break;
    }
    if (w.outstanding.empty()) {  // the worker's own failure, answering no task
      if (tag == record_tag::kError) add_warning(j.value("error", std::string("?")));
      return;
    }
    const WorkItem item = std::move(w.outstanding.front());
    w.outstanding.pop_front();
    if (item.kind == WorkItem::Kind::kCandidate) {
      if (shrinker_) shrinker_->report({});  // it survived (or could not be judged)
      candidate_in_flight_ = false;
      return;
    }
    const Task &t = item.task;
    if (tag == record_tag::kResult) {
      ++devices_.at(w.device).cases;
      record(t, j, w.device);
    } else if (tag == record_tag::kDeviceFault) {
      device_fault(w, t, j);
    } else if (tag == record_tag::kError) {
      result_.warnings.push_back(
          fmt::format("{} ({}): the framework could not judge the case: {}", t.op->name, t.origin,
                      j.value("error", std::string("?"))));
    }
  }

  TimingStats &timing(const std::string &what) {
    for (auto &t : timings_)
      if (t.what == what) return t;
    timings_.push_back({what});
    return timings_.back();
  }

  // The device failed during task t (record D): an allocation it refused for want of memory is
  // not the op's (the task runs again, once, on a fresh worker); a device that stopped answering
  // is charged like a crash of the last call that still succeeded, and the calls that failed
  // after it are not charged at all. The worker exits; the device gets no new worker while
  // another is left.
  void device_fault(WorkerProcess &w, const Task &t, const nlohmann::json &j) {
    w.device_failed = true;
    DeviceUsage &device = devices_.at(w.device);
    const std::string kind = j.value("kind", std::string("device-lost"));
    const std::string problem = j.value("problem", std::string("?"));
    if (kind == "out-of-memory") {
      ++device.out_of_memory;
      add_warning(fmt::format("device {} ran out of memory ({}); the worker was replaced and the "
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
      add_warning(fmt::format("device {} stopped answering after the worker had started, before "
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
        "device {} stopped answering after {}: {}{}; a health check failed too ({})", w.device,
        after,
        j.contains("failed_call")
            ? fmt::format("every call from {} on failed (the first with status {})",
                          j.value("failed_call", std::string("?")), j.value("status", 0))
            : std::string("the calls after it failed"),
        "", problem);
    record_crash(p, nullptr, 0);
  }

  // Stops every worker (deadline or interrupt); what was in flight is not counted.
  void stop_all(const char *why) {
    stopped_in_flight_ += pool_.stop_all();
    if (stopped_in_flight_ > 0)
      result_.warnings.push_back(
          fmt::format("{}: {} worker(s) stopped with cases in flight; those cases are not counted",
                      why, stopped_in_flight_));
  }

  // What a death in the SUT (or after it) was, in words.
  std::string death_text(const WorkerProcess &w, const WorkerExit &exit) const {
    const CallTrace &trace = exit.trace;
    const int status = exit.status;
    const std::string call = trace.call[0] ? trace.call : "the SUT's calls";
    const double limit_gib = worker_memory_limit_gib();
    const double data_gib = static_cast<double>(trace.data_bytes_at_death) / (1 << 30);
    if (trace.fatal[0]) return trace.fatal;
    if (w.pipe_closed_alive)
      return fmt::format(
          "the worker's result pipe closed while it ran on, {} {} (the SUT closed or replaced "
          "descriptors it does not own?); the worker was stopped",
          trace.in_sut ? "inside" : "after", call);
    if (exit.timed_out)
      return fmt::format("no return from {} within {:.3g} s (killed)", call,
                         allowance(w, trace));
    if (WIFSIGNALED(status) && trace.in_sut && trace.death_signal && limit_gib > 0 &&
        data_gib >= limit_gib / 2)
      // Under RLIMIT_DATA an allocation beyond the limit fails, and the SUT then dies of it.
      return fmt::format(
          "the SUT exceeded the worker's {:.3g} GiB memory limit in {}: it died of signal {} ({}) "
          "with {:.2f} GiB of data allocated",
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
  void finish(WorkerProcess &w, const WorkerExit &exit) {
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
    if (activity == "health check") {
      // The device did not survive the question whether it is still there.
      ++devices_.at(w.device).device_faults;
      devices_.suspect(w.device);
      add_warning(fmt::format("device {}: the worker died in a device health check ({}); the "
                              "case was run again on another worker",
                              w.device, death_text(w, exit)));
      if (retried_.insert(t.index).second) pending_.push_front(t);
      return;
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
    // Shrink it on workers of its own, under the budget, unless enough are kept for its clause.
    const int kept =
        static_cast<int>(std::count_if(result_.deviations.begin(), result_.deviations.end(),
                                       [&](const Deviation &d) { return d.clause == p.clause; }));
    if (t.generated() && trace.in_sut && !saturated_.count(p.clause) &&
        kept + crash_shrinks_[p.clause] < cfg_.deviations_per_clause && !past_deadline()) {
      ++crash_shrinks_[p.clause];
      crash_queue_.push_back({t, p.kind, p.call, p.clause, trace.clause[0] != 0});
      pending_crashes_.emplace(t.index, std::move(p));
    } else {
      record_crash(p, nullptr, 0);
    }
  }

  // A worker died warming an op up (its first call: the op's small fixed valid call). That call
  // is charged like any crash or hang, the op is not warmed up again (its first judged call then
  // gets the case timeout), and the task that was waiting runs again.
  void warm_up_died(const WorkerProcess &w, const WorkerExit &exit, const Task &waiting,
                    const std::string &op_name) {
    pending_.push_front(waiting);
    const OpDescriptor *op = find_op(op_name);
    if (!op || !no_warm_up_.insert(op_name).second) return;
    const auto task = warm_up_task(*op, cfg_);
    if (!task) return;
    PendingCrash p;
    p.task = *task;
    p.kind = exit.timed_out ? "timeout" : "crash";
    p.call = exit.trace.call[0] ? exit.trace.call : "the SUT's calls";
    p.device = w.device;
    p.clause =
        exit.trace.clause[0] ? std::string(exit.trace.clause) : case_clause(*op, *task->stored);
    p.what = death_text(w, exit) + " (in the op's warm-up call, its first in a fresh worker)";
    record_crash(p, nullptr, 0);
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

  // Records a crash, hang or device fault, with its shrunk case when the shrink ran.
  void record_crash(const PendingCrash &p, const Case *shrunk, int steps) {
    ++result_.cases;
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

  void record(const Task &t, const nlohmann::json &r, int device) {
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
    d.device = device;
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

  // What the run's end adds to the result: the SUT's output, what it left running, the devices
  // and first calls.
  void finish_result() {
    if (pool_.output_bytes() > 0) {
      const fs::path file = fs::path(cfg_.out_dir) / "sut-output.txt";
      fs::create_directories(cfg_.out_dir);
      std::ofstream(file) << pool_.output();
      result_.warnings.push_back(fmt::format(
          "the SUT wrote {} bytes to stdout/stderr during its calls (not an ABI deviation; the "
          "first {} bytes are in {})",
          pool_.output_bytes(), pool_.output().size(), file.string()));
    }
    if (!pool_.leftovers().empty())
      result_.warnings.push_back(fmt::format(
          "the SUT left {} process(es) running after their worker ended ({}); aclnn-conform ended "
          "them (SIGKILL): a library should not leave processes behind (not an ABI deviation)",
          pool_.leftovers().size(), fmt::join(pool_.leftovers(), ", ")));
    result_.devices = devices_.usage();
    result_.first_calls = timings_;
    if (cfg_.progress) std::fprintf(stderr, "\n");
    result_.seconds = seconds_since(start_);
    finalize_statuses(result_);
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
  std::vector<std::string> files_, competitor_files_;  // the SUT's and the competitor's files
  std::vector<const OpDescriptor *> ops_;
  std::vector<std::string> exported_;  // the ops the first worker found exported
  std::string emulation_evidence_;     // why product emulation is on or off
  std::optional<nlohmann::json> emulation_answer_;
  std::string emulation_death_;
  int probing_worker_ = -1;
  bool setup_done_ = false;
  std::string start_error_;  // a device that could not be started during set-up
  std::map<int, int> start_failures_;
  DevicePool devices_;
  std::vector<TimingStats> timings_;
  std::set<std::string> no_warm_up_;  // ops whose warm-up killed a worker
  std::set<int64_t> retried_;         // tasks run again after a device fault
  std::deque<Task> pending_;
  std::deque<CrashShrink> crash_queue_;
  std::optional<CrashShrinker> shrinker_;
  bool candidate_in_flight_ = false;
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
