// The campaign's dispatch (campaign/campaign_run.hpp): batches of queued and generated tasks to
// --jobs workers, each kept busy with up to two batches; and crash shrinking's driver, one
// candidate at a time on a worker set aside for it (the walk itself: campaign/crash_shrink.hpp).
#include <limits>

#include "campaign/campaign_run.hpp"
#include "campaign/selection.hpp"
#include "campaign/worker_protocol.hpp"

namespace aclnn_conform::campaign_detail {

// ---- Dispatch ----

bool Campaign::has_work() const {
  return !pending_.empty() || (climb_.holding() && !past_deadline()) ||
         (coverage_.holding() && !past_deadline()) ||
         (schedule_ && schedule_->holding() && !past_deadline()) ||
         (generate_ && !past_deadline() && (cfg_.cases <= 0 || generated_ < cfg_.cases));
}

// Up to kBatch tasks; a teardown task ends its batch (the worker exits after it).
std::vector<Task> Campaign::next_batch(bool &teardown) {
  std::vector<Task> batch;
  teardown = false;
  while (batch.size() < kBatch && !pending_.empty() && !teardown) {
    Task t = std::move(pending_.front());
    pending_.pop_front();
    // A stored case of an op the SUT lacks cannot run (its clauses stay "not reached").
    if (std::find(ops_.begin(), ops_.end(), t.op) == ops_.end()) {
      task_completed(t);
      continue;
    }
    teardown = t.teardown;
    batch.push_back(std::move(t));
  }
  // Climb tasks whose horizon every result has passed (campaign/climb.hpp); with no task in flight
  // anywhere none can pass it any more (a crash not yet recorded), so the first is let go.
  for (std::optional<Task> c;
       !teardown && batch.size() < kBatch && !past_deadline() && (c = climb_.release());)
    batch.push_back(std::move(*c));
  // Seed mutations whose horizon every result has passed (campaign/coverage.hpp), likewise.
  for (std::optional<Task> m;
       !teardown && batch.size() < kBatch && !past_deadline() && (m = coverage_.release());)
    batch.push_back(std::move(*m));
  // Held indices whose horizon has passed, decided in index order (campaign/schedule.hpp).
  const auto skip = [this](const Task &s) { skip_scheduled(s); };
  for (std::optional<Task> s; !teardown && batch.size() < kBatch && !past_deadline() &&
                              (s = schedule_->release(false, skip));)
    run_generated(std::move(*s), batch);
  while (!teardown && generate_ && batch.size() < kBatch && !past_deadline() &&
         (cfg_.cases <= 0 || generated_ < cfg_.cases)) {
    const int64_t k = next_k_ * cfg_.shard_count + cfg_.shard_index;
    ++next_k_;
    Task t = generated_task(ops_, cfg_, k);
    if (is_skipped(cfg_, t.property())) continue;
    ++generated_;
    task_opened(t);
    climb_.issued(k);
    coverage_.issued(k);
    schedule_->issued(k);
    if (!t.climb && coverage_.mutates(t)) {
      coverage_.hold(std::move(t));
      continue;
    }
    // Climbs are part of their op's valid unit: when it has shown nothing new for long, they
    // are skipped with its cases (campaign/schedule.hpp).
    const Schedule::Offer offer = schedule_->offer(t);
    if (offer == Schedule::Offer::kSkip) skip_scheduled(t);
    if (offer == Schedule::Offer::kRun) run_generated(std::move(t), batch);
  }
  if (batch.empty() && !teardown && climb_.holding() && !past_deadline() &&
      std::all_of(pool_.workers().begin(), pool_.workers().end(),
                  [](const WorkerProcess &w) { return w.outstanding.empty(); }))
    if (auto c = climb_.release(true)) batch.push_back(std::move(*c));
  if (batch.empty() && !teardown && coverage_.holding() && !past_deadline() &&
      std::all_of(pool_.workers().begin(), pool_.workers().end(),
                  [](const WorkerProcess &w) { return w.outstanding.empty(); }))
    if (auto m = coverage_.release(true)) batch.push_back(std::move(*m));
  if (batch.empty() && !teardown && schedule_->holding() && !past_deadline() &&
      std::all_of(pool_.workers().begin(), pool_.workers().end(),
                  [](const WorkerProcess &w) { return w.outstanding.empty(); }))
    if (auto s = schedule_->release(true, skip)) run_generated(std::move(*s), batch);
  return batch;
}

// A generated index the schedule runs: a climb waits for its own horizon (campaign/climb.hpp).
void Campaign::run_generated(Task t, std::vector<Task> &batch) {
  if (t.climb)
    climb_.hold(std::move(t));
  else
    batch.push_back(std::move(t));
}

// Not run: complete for everything that waits on lower indices, and not counted by --cases.
void Campaign::skip_scheduled(const Task &t) {
  --generated_;
  task_completed(t);
  climb_.completed(t.index);
  coverage_.completed(t.index);
}

// Keeps --jobs workers busy: each has up to two batches outstanding, so it never waits for the
// next. A worker that has run its share, or has nothing left to do, is told to end.
void Campaign::fill() {
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
        // The product emulation as resolved: the first worker started before its probe decided it.
        pool_.send(w, encode_command("tasks", {{"tasks", tasks},
                                               {"saturated", saturated_},
                                               {"product_emulation", emulating()},
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

long long Campaign::deadline_ns() const {
  return deadline_ == Clock::time_point::max()
             ? std::numeric_limits<long long>::max()
             : std::chrono::duration_cast<std::chrono::nanoseconds>(deadline_.time_since_epoch())
                   .count();
}

// ---- Crash shrinking: one candidate at a time, on a worker set aside for it ----

bool Campaign::has_shrink_worker() const {
  return std::any_of(pool_.workers().begin(), pool_.workers().end(),
                     [](const WorkerProcess &w) { return w.shrinking; });
}

void Campaign::manage_shrink() {
  while (!shrinker_ && !crash_queue_.empty()) {
    CrashShrink next = std::move(crash_queue_.front());
    crash_queue_.pop_front();
    // Its clause saturated while it waited: it comes after every kept one, and is recorded as it
    // was (counted, not kept).
    const auto it = pending_crashes_.find(next.task.index);
    if (saturated_.count(next.clause) && it != pending_crashes_.end()) {
      const PendingCrash p = std::move(it->second);
      pending_crashes_.erase(it);
      record_crash(p, nullptr, 0);
      continue;
    }
    shrinker_.emplace(std::move(next), cfg_, deadline_);
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
                                                   {"case", to_json(*candidate)},
                                                   {"product_emulation", emulating()}}));
  worker->outstanding.push_back({WorkItem::Kind::kCandidate, task});
  candidate_in_flight_ = true;
}

// Records the shrink's crash, with its smallest case when the walk ran (shrunk).
void Campaign::finish_shrink(bool shrunk) {
  const auto it = pending_crashes_.find(shrinker_->crash().task.index);
  if (it != pending_crashes_.end()) {
    if (shrunk)
      record_crash(it->second, &shrinker_->smallest(), shrinker_->steps());
    else
      record_crash(it->second, nullptr, 0);
    pending_crashes_.erase(it);
  }
  shrinker_.reset();
  candidate_in_flight_ = false;
}

}  // namespace aclnn_conform::campaign_detail
