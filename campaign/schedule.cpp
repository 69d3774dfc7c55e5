// Adaptive scheduling (campaign/schedule.hpp): decisions, news, and the report's account of them.
#include "campaign/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "campaign/climb.hpp"
#include "campaign/coverage.hpp"
#include "campaign/markdown.hpp"
#include "campaign/report_html_page.hpp"
#include "campaign/result.hpp"
#include "properties/splitmix.hpp"

namespace aclnn_conform {
namespace {

// The second hash of k, uniform in [0, 1): independent of the task's own (generated_task).
double accept_draw(int64_t k) {
  const uint64_t h = splitmix64(static_cast<uint64_t>(k) ^ 0x3c6ef372fe94f82bull);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

}  // namespace

TaskOutcome outcome_of_result(const nlohmann::json &r) {
  TaskOutcome o;
  if (r.contains("results"))
    for (const auto &cr : r.at("results")) {
      o.reached.push_back(cr.at(0).get<std::string>());
      o.signatures.push_back(o.reached.back() + (cr.at(1).get<bool>() ? " pass" : " fail"));
    }
  if (r.contains("worst"))
    for (const auto &wj : r.at("worst")) {
      const WorstInput w = worst_input_from_json(wj);
      if (!(w.ulps > 0)) continue;
      const int bucket = std::isfinite(w.ulps) ? std::ilogb(w.ulps) : 4096;
      auto [it, added] = o.error_buckets.try_emplace(w.dtype, bucket);
      if (!added) it->second = std::max(it->second, bucket);
    }
  if (r.contains("edges")) {
    try {
      o.edges = decode_edges(r.at("edges"));
    } catch (const std::exception &) {
    }
  }
  return o;
}

Schedule::Schedule(bool enabled, std::string why_off, int shard_count, int64_t lag,
                   std::map<std::string, std::vector<std::string>> op_clauses, int64_t min_reach)
    : shards_(std::max(1, shard_count)), op_clauses_(std::move(op_clauses)) {
  usage_.enabled = enabled;
  usage_.why_off = enabled ? "" : std::move(why_off);
  usage_.lag = lag;
  usage_.floor = kFloor;
  usage_.fresh = kFresh;
  usage_.min_reach = min_reach;
}

// Large cases are in their op's valid unit: a unit of their own, kept whole by the news that their
// many elements bring while the small cases' units fall to the floor, would take most of the time.
std::string Schedule::unit_of(const Task &t) {
  return t.property();
}

Schedule::Unit &Schedule::unit(const std::string &name) {
  auto [it, added] = units_.try_emplace(name);
  if (added) it->second.u.unit = name;
  return it->second;
}

Schedule::Offer Schedule::offer(const Task &t) {
  Unit &u = unit(unit_of(t));
  ++u.u.seen;
  if (!usage_.enabled || accept_draw(t.index) < kFloor) {
    ++u.u.run;
    return Offer::kRun;
  }
  const int64_t horizon = t.index - usage_.lag * shards_;
  // Decisions are made in index order: behind a held task, every later one waits too.
  if (held_.empty() && frontier_.complete_below(horizon))
    return decide(t) ? Offer::kRun : Offer::kSkip;
  held_.hold(horizon, t);
  return Offer::kHold;
}

double Schedule::share(const std::string &unit_name, const std::string &op) const {
  // The tier's minimum first: every clause of the op that the stream reaches (one it never
  // reaches gains nothing from more of the stream) keeps the op's units whole until it has
  // min_reach reaching cases.
  if (const auto it = op_clauses_.find(op); it != op_clauses_.end())
    for (const auto &clause : it->second) {
      const auto r = reach_.find(clause);
      if (r != reach_.end() && r->second < usage_.min_reach) return 1;
    }
  const auto it = units_.find(unit_name);
  if (it == units_.end() || it->second.runs_since_news < kFresh) return 1;
  return std::max(kFloor, static_cast<double>(kFresh) / it->second.runs_since_news);
}

bool Schedule::decide(const Task &t) {
  absorb_below(t.index - usage_.lag * shards_);
  const std::string name = unit_of(t);
  Unit &u = unit(name);
  u.u.share = share(name, t.op->name);
  const bool run = accept_draw(t.index) < u.u.share;
  ++(run ? u.u.run : u.u.skipped);
  if (!run) frontier_.completed(t.index);
  return run;
}

void Schedule::absorb_below(int64_t horizon) {
  for (auto it = completed_.begin(); it != completed_.end() && it->first < horizon;) {
    Unit &u = unit(it->second.unit);
    const TaskOutcome &o = it->second.outcome;
    for (const auto &clause : o.reached) ++reach_[clause];
    if (unit_news(u, o)) {
      ++u.u.news;
      u.u.last_news = it->first;
      u.runs_since_news = 0;
    } else {
      ++u.runs_since_news;
    }
    it = completed_.erase(it);
  }
  absorbed_to_ = std::max(absorbed_to_, horizon);
}

bool Schedule::unit_news(Unit &u, const TaskOutcome &o) {
  bool news = false;
  for (const auto &s : o.signatures) news |= u.signatures.insert(s).second;
  for (const auto &[dtype, bucket] : o.error_buckets) {
    auto [it, added] = u.buckets.try_emplace(dtype, bucket);
    if (!added && bucket > it->second)
      it->second = bucket;
    else if (!added)
      continue;
    news = true;  // a dtype's first error, or a larger one
  }
  for (const uint32_t e : o.edges) news |= u.edges.insert(e).second;
  return news;
}

void Schedule::on_outcome(const Task &t, TaskOutcome o) {
  frontier_.completed(t.index);
  if (!usage_.enabled || t.index < 0 || t.index < absorbed_to_) return;  // absorbed already
  completed_.try_emplace(t.index, Pending{unit_of(t), t.op->name, std::move(o)});
}

ScheduleUsage Schedule::usage() const {
  ScheduleUsage u = usage_;
  for (const auto &[name, x] : units_) u.units.push_back(x.u);
  return u;
}

}  // namespace aclnn_conform

// ---- report.json and the reports ----

namespace aclnn_conform {

nlohmann::json to_json(const ScheduleUsage &u) {
  nlohmann::json j = {{"enabled", u.enabled}};
  if (!u.enabled) {
    j["why_off"] = u.why_off;
    return j;
  }
  j["lag"] = u.lag;
  j["floor"] = u.floor;
  j["fresh"] = u.fresh;
  j["min_reach"] = u.min_reach;
  j["units"] = nlohmann::json::array();
  for (const auto &x : u.units) {
    nlohmann::json e = {{"unit", x.unit},       {"seen", x.seen}, {"run", x.run},
                        {"skipped", x.skipped}, {"news", x.news}, {"last_news_index", x.last_news}};
    if (x.share >= 0) e["share"] = x.share;
    j["units"].push_back(std::move(e));
  }
  return j;
}

ScheduleUsage schedule_usage_from_json(const nlohmann::json &j) {
  ScheduleUsage u;
  if (!j.is_object()) return u;
  u.enabled = j.value("enabled", false);
  u.why_off = j.value("why_off", std::string());
  u.lag = j.value("lag", int64_t{0});
  u.floor = j.value("floor", 0.0);
  u.fresh = j.value("fresh", int64_t{0});
  u.min_reach = j.value("min_reach", int64_t{0});
  if (j.contains("units"))
    for (const auto &e : j.at("units")) {
      ScheduleUnit x;
      x.unit = e.value("unit", std::string());
      x.seen = e.value("seen", int64_t{0});
      x.run = e.value("run", int64_t{0});
      x.skipped = e.value("skipped", int64_t{0});
      x.news = e.value("news", int64_t{0});
      x.last_news = e.value("last_news_index", int64_t{-1});
      x.share = e.value("share", -1.0);
      u.units.push_back(std::move(x));
    }
  return u;
}

void merge_schedule(CampaignResult &merged, const std::vector<CampaignResult> &shards) {
  merged.schedule = nullptr;
  bool any = false;
  ScheduleUsage sum;
  std::map<std::string, ScheduleUnit> units;
  for (const auto &s : shards) {
    if (!s.schedule.is_object()) continue;
    const ScheduleUsage u = schedule_usage_from_json(s.schedule);
    if (!any) sum = u;
    any = true;
    sum.enabled = sum.enabled || u.enabled;
    if (sum.why_off.empty()) sum.why_off = u.why_off;
    for (const auto &x : u.units) {
      auto [it, added] = units.try_emplace(x.unit, x);
      if (added) continue;
      it->second.seen += x.seen;
      it->second.run += x.run;
      it->second.skipped += x.skipped;
      it->second.news += x.news;
      it->second.last_news = std::max(it->second.last_news, x.last_news);
    }
  }
  if (!any) return;
  sum.units.clear();
  for (auto &[name, x] : units) {
    x.share = -1;  // each shard's own: not a figure of the merge
    sum.units.push_back(std::move(x));
  }
  merged.schedule = to_json(sum);
}

namespace {

struct ScheduleText {
  std::string intro;
  std::vector<std::vector<std::string>> rows;  // unit, seen, run, skipped, news, last, share
};

ScheduleText schedule_text(const CampaignResult &r) {
  ScheduleText t;
  const ScheduleUsage u = schedule_usage_from_json(r.schedule);
  if (!u.enabled) {
    t.intro = "Adaptive scheduling was off (" + u.why_off +
              "): every generated index ran, each unit (op, kind) in its uniform share.";
    return t;
  }
  // Indices still held at the end (their horizon not complete) are neither run nor skipped.
  int64_t seen = 0, run = 0, skipped = 0;
  for (const auto &x : u.units) seen += x.seen, run += x.run, skipped += x.skipped;
  t.intro = fmt::format(
      "Adaptive scheduling: of {} generated indices (seed mutations aside), {} ran and "
      "{} were skipped. A unit keeps its whole share while it produces news (a clause result, "
      "error bucket, crash or edge it had not produced) within its last {} runs, and while a "
      "clause of its op has fewer than {} reaching cases; then its share falls, never below {} "
      "of the uniform one. Decisions read only outcomes at least {} indices (per shard) back, so "
      "the same seed runs the same indices with any number of workers.",
      seen, run, skipped, u.fresh, u.min_reach, u.floor, u.lag);
  for (const auto &x : u.units)
    t.rows.push_back({x.unit, std::to_string(x.seen), std::to_string(x.run),
                      std::to_string(x.skipped), std::to_string(x.news),
                      x.last_news < 0 ? "-" : std::to_string(x.last_news),
                      x.share < 0 ? "-" : fmt::format("{:.2f}", x.share)});
  return t;
}

const char *const kColumns[] = {
    "Unit", "Seen", "Run", "Skipped", "News", "Last news (index)", "Share at the end"};

}  // namespace

std::string schedule_markdown(const CampaignResult &r) {
  if (r.schedule.is_null()) return "";
  const ScheduleText t = schedule_text(r);
  std::string s = "## How the budget was spent\n\n" + t.intro + "\n\n";
  if (t.rows.empty()) return s;
  s += "|";
  for (const char *c : kColumns) s += fmt::format(" {} |", c);
  s += "\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto &row : t.rows) {
    s += "|";
    for (const auto &c : row) s += " " + markdown::cell(c) + " |";
    s += "\n";
  }
  return s + "\n";
}

std::string schedule_html(const CampaignResult &r) {
  using html_detail::h;
  if (r.schedule.is_null()) return "";
  const ScheduleText t = schedule_text(r);
  std::string s = "<h2 id=\"schedule\">How the budget was spent</h2>\n<p>" + h(t.intro) + "</p>\n";
  if (t.rows.empty()) return s;
  s += "<table>\n<tr>";
  for (const char *c : kColumns) s += fmt::format("<th>{}</th>", c);
  s += "</tr>\n";
  for (const auto &row : t.rows) {
    s += "<tr>";
    for (const auto &c : row) s += "<td>" + h(c) + "</td>";
    s += "</tr>\n";
  }
  return s + "</table>\n";
}

}  // namespace aclnn_conform
