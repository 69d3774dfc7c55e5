// The campaign's records (campaign/campaign_run.hpp): what workers send
// (campaign/worker_protocol.hpp) tallied per clause, accuracy rows merged, deviations kept (at most
// deviations_per_clause per clause, new ones stored in the corpus), warnings once each; and what
// the run's end adds to the result, and the progress line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "campaign/campaign_run.hpp"
#include "campaign/corpus.hpp"
#include "campaign/worker_protocol.hpp"

namespace aclnn_conform::campaign_detail {

namespace fs = std::filesystem;

void Campaign::pump() {
  pool_.pump(
      100,
      [this](const WorkerProcess &w, const CallTrace &t) {
        hang_model_.observe(w.id, t);
        return allowance(w, t);
      },
      [this](WorkerProcess &w, const std::string &line) { handle_line(w, line); },
      [this](WorkerProcess &w, const WorkerExit &e) { finish(w, e); });
}

// One record from a worker (campaign/worker_protocol.hpp).
void Campaign::handle_line(WorkerProcess &w, const std::string &line) {
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
      coverage_.library(j.value("coverage", nlohmann::json()));
      return;
    case record_tag::kEmulation:
      emulation_answer_ = j;
      return;
    case record_tag::kFound:  // the task in hand deviated; its result comes after the shrink
      if (!w.outstanding.empty())
        found_at_[w.outstanding.front().task.index] = {seconds_since(start_), result_.cases + 1};
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
    coverage_.completed(t.index);  // seed mutations waiting for it may start
    climb_.completed(t.index);
    schedule_->on_outcome(t, {});  // no news: scheduling decisions waiting for it may be made
    task_completed(t);
    result_.warnings.push_back(fmt::format("{} ({}): the framework could not judge the case: {}",
                                           t.op->name, t.origin,
                                           j.value("error", std::string("?"))));
  }
}

TimingStats &Campaign::timing(const std::string &what) {
  for (auto &t : timings_)
    if (t.what == what) return t;
  timings_.push_back({what});
  return timings_.back();
}

// A warning once, however many workers send it.
void Campaign::add_warning(std::string w) {
  if (std::find(result_.warnings.begin(), result_.warnings.end(), w) == result_.warnings.end())
    result_.warnings.push_back(std::move(w));
}

void Campaign::tally(const std::string &clause, bool pass, const std::string &detail,
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

void Campaign::record(const Task &t, const nlohmann::json &r, int device) {
  ++result_.cases;
  task_completed(t);
  coverage_.observe(t, r);
  climb_.on_result(t, r);
  schedule_->on_outcome(t, outcome_of_result(r));
  if (const auto it = hang_suspects_.find(t.index); it != hang_suspects_.end())
    it->second = SecondRun::kReturned;
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
  if (const auto it = found_at_.find(t.index); it != found_at_.end()) {
    std::tie(d.found_at_seconds, d.found_at_case) = it->second;
    found_at_.erase(it);
  }
  d.op = t.op->name;
  d.origin = t.origin;
  d.device = device;
  if (!t.corpus_id.empty()) d.case_id = t.corpus_id;
  add_deviation(std::move(d));  // finalize_statuses derives the clause's fingerprint
}

// Keeps at most deviations_per_clause counterexamples per clause, those with the smallest
// seed-space positions (not the first to arrive: with several workers that order varies, and
// with it the kept cases and the variants that explain them), and stores new ones in the corpus,
// with the SUT they came from.
void Campaign::add_deviation(Deviation d) {
  int kept = 0;
  auto latest = result_.deviations.end();  // the kept one last in seed-space order
  for (auto it = result_.deviations.begin(); it != result_.deviations.end(); ++it) {
    if (it->clause != d.clause) continue;
    ++kept;
    if (latest == result_.deviations.end() || seed_space_before(*latest, *it)) latest = it;
  }
  if (kept >= cfg_.deviations_per_clause) {
    if (latest == result_.deviations.end() || !seed_space_before(d, *latest)) return;
    result_.deviations.erase(latest);  // an earlier one arrived late: it takes the slot
  }
  if (d.found_at_seconds <= 0) {  // a crash's is set when it was seen
    d.found_at_seconds = seconds_since(start_);
    d.found_at_case = result_.cases;
  }
  d.summary = d.minimal.describe();
  if (cfg_.use_corpus && d.case_id.empty()) store_in_corpus(d, result_, cfg_.out_dir);
  const std::string clause = d.clause;
  result_.deviations.push_back(std::move(d));
  update_saturation(clause);
}

// Once a clause has its counterexamples and every task before the last of them has completed, no
// earlier one can come: workers stop shrinking for it. Before that they shrink every deviation of
// the clause, so that the kept ones are shrunk whatever order they arrived in.
void Campaign::update_saturation(const std::string &clause) {
  if (saturated_.count(clause)) return;
  int kept = 0;
  int64_t last = std::numeric_limits<int64_t>::min();
  for (const auto &x : result_.deviations)
    if (x.clause == clause) {
      ++kept;
      last = std::max(last, seed_space_position(x.origin));
    }
  if (kept >= cfg_.deviations_per_clause &&
      (open_positions_.empty() || *open_positions_.begin() > last))
    saturated_.insert(clause);
}

void Campaign::task_completed(const Task &t) {
  const auto it = open_positions_.find(seed_space_position(t.origin));
  if (it == open_positions_.end()) return;
  const bool lowest = it == open_positions_.begin();
  open_positions_.erase(it);
  if (!lowest) return;  // the lowest open position did not move: no clause can saturate now
  std::set<std::string> full;
  for (const auto &x : result_.deviations)
    if (!saturated_.count(x.clause)) full.insert(x.clause);
  for (const auto &clause : full) update_saturation(clause);
}

// What the run's end adds to the result: the SUT's output, what it left running, the devices
// and first calls.
void Campaign::finish_result() {
  // In seed-space order, as a merge of shards lists them (arrival order varies with the workers).
  std::stable_sort(result_.deviations.begin(), result_.deviations.end(), seed_space_before);
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
  if (!hang_suspects_.empty()) {
    const auto ended = [&](SecondRun how) {
      return std::count_if(hang_suspects_.begin(), hang_suspects_.end(),
                           [&](const auto &s) { return s.second == how; });
    };
    const auto otherwise = ended(SecondRun::kPending);
    result_.warnings.push_back(fmt::format(
        "{} call(s) ran past the adaptive hang threshold ({:g} times what this run's usual "
        "slowest rate of {:.3g} ns per byte predicts for the case, at least {:g} s, at most the "
        "{:.3g} s case timeout) and were killed; their cases ran again on other workers with "
        "{:g} times the allowance: {} overran again and are recorded as hangs, {} returned and "
        "were judged as usual{}",
        hang_suspects_.size(), HangModel::kFactor, hang_model_.usual_ns_per_byte(),
        HangModel::kFloorSeconds, case_timeout(), HangModel::kConfirmFactor,
        ended(SecondRun::kOverran), ended(SecondRun::kReturned),
        otherwise > 0 ? fmt::format(", {} ended otherwise (e.g. crashed) or did not run again "
                                    "before the run ended",
                                    otherwise)
                      : ""));
  }
  result_.devices = devices_.usage();
  result_.first_calls = timings_;
  if (cfg_.use_corpus) coverage_.store_seeds(cfg_.out_dir);  // for later runs to start from
  result_.coverage = coverage_.summary();
  result_.climb = to_json(climb_.usage());
  if (generate_) result_.schedule = to_json(schedule_->usage());  // null in a replay
  result_.worst_inputs = nlohmann::json::array();
  for (const auto &w : climb_.worst()) result_.worst_inputs.push_back(to_json(w));
  if (cfg_.progress) std::fprintf(stderr, "\n");
  result_.seconds = seconds_since(start_);
  finalize_statuses(result_);
}

void Campaign::progress() {
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

}  // namespace aclnn_conform::campaign_detail
