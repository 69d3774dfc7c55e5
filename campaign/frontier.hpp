// Which generated indices of a shard have completed, for work that must not depend on the order
// in which results arrive: a task that reads what earlier indices found (a climb's start, a seed
// to mutate) waits until every index below its horizon has completed, so that with any number of
// workers it reads the same records, and the same seed gives the same cases and report.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <set>
#include <utility>

namespace aclnn_conform {

class Frontier {
 public:
  // Indices are issued in increasing order (a shard's k = i, i + N, i + 2N, ...).
  void issued(int64_t k) {
    in_flight_.insert(k);
    next_ = k + 1;
  }
  // A result (or a final crash) for k: it will not run again. Unknown indices are ignored.
  void completed(int64_t k) { in_flight_.erase(k); }
  // Every index issued below k has completed (indices never issued count as completed).
  bool complete_below(int64_t k) const { return lowest_open() >= k; }
  // The lowest issued index not yet completed, or the next index to be issued.
  int64_t lowest_open() const { return in_flight_.empty() ? next_ : *in_flight_.begin(); }
  bool all_complete() const { return in_flight_.empty(); }

 private:
  std::set<int64_t> in_flight_;
  int64_t next_ = std::numeric_limits<int64_t>::min();
};

// Tasks held back until the frontier passes their horizon, released in index order.
template <typename T>
class Deferred {
 public:
  void hold(int64_t horizon, T t) { held_.emplace_back(horizon, std::move(t)); }
  bool empty() const { return held_.empty(); }
  size_t size() const { return held_.size(); }
  // The first held task whose horizon the frontier has passed (every index below it completed).
  // Held in issue order, so the first one is the one released first.
  bool ready(const Frontier &f) const {
    return !held_.empty() && f.complete_below(held_.front().first);
  }
  T take() {
    T t = std::move(held_.front().second);
    held_.pop_front();
    return t;
  }

 private:
  std::deque<std::pair<int64_t, T>> held_;
};

}  // namespace aclnn_conform
