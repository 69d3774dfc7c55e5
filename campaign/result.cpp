// CampaignResult's meaning (campaign/result.hpp): clause status and verdict names, the verdict, the
// statuses finalize_statuses derives from tallies, skips, expected failures and variants, and the
// merging of accuracy rows and of shards into one result. Its serialisation: result_json.cpp.
#include "campaign/result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "campaign/causes.hpp"
#include "campaign/climb.hpp"
#include "campaign/coverage.hpp"
#include "campaign/schedule.hpp"

namespace aclnn_conform {

std::string clause_status_name(ClauseStatus s) {
  switch (s) {
    case ClauseStatus::kConforms:
      return "conforms";
    case ClauseStatus::kDeviates:
      return "deviates";
    case ClauseStatus::kNotReached:
      return "not reached";
    case ClauseStatus::kSkipped:
      return "skipped";
    case ClauseStatus::kExpectedFailure:
      return "expected failure";
    case ClauseStatus::kUnderTested:
      return "under-tested";
    case ClauseStatus::kConformsToVariant:
      return "conforms to variant";
  }
  return "unknown";
}

std::string conform_version() {
  return ACLNN_CONFORM_VERSION;
}

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kConformant:
      return "CONFORMANT";
    case Verdict::kDeviations:
      return "DEVIATIONS";
    case Verdict::kIncomplete:
      return "INCOMPLETE";
    case Verdict::kInterrupted:
      return "INTERRUPTED";
  }
  return "unknown";
}

namespace {
bool listed(const std::vector<std::string> &list, const std::string &id) {
  return std::find(list.begin(), list.end(), id) != list.end();
}
}  // namespace

Verdict CampaignResult::verdict() const {
  if (interrupted) return Verdict::kInterrupted;
  if (!conformant()) return Verdict::kDeviations;
  // A run whose devices all failed covers only what ran, whatever --allow-incomplete says.
  if (!aborted.empty()) return Verdict::kIncomplete;
  // A call cut off unjudged may have been a hang: the evidence is not there either way.
  if (!unresolved_calls.empty()) return Verdict::kIncomplete;
  if (!allow_incomplete && std::any_of(clauses.begin(), clauses.end(), [](const auto &c) {
        return c.status == ClauseStatus::kNotReached || c.status == ClauseStatus::kUnderTested;
      }))
    return Verdict::kIncomplete;
  return Verdict::kConformant;
}

void TimingStats::add(double seconds) {
  ++count;
  total_seconds += seconds;
  max_seconds = std::max(max_seconds, seconds);
}

void TimingStats::merge(const TimingStats &o) {
  count += o.count;
  total_seconds += o.total_seconds;
  max_seconds = std::max(max_seconds, o.max_seconds);
}

bool CampaignResult::conformant() const {
  return std::none_of(clauses.begin(), clauses.end(),
                      [](const auto &c) { return c.status == ClauseStatus::kDeviates; });
}

const ClauseVerdict *CampaignResult::clause(const std::string &id) const {
  for (const auto &c : clauses)
    if (c.id == id) return &c;
  return nullptr;
}

ClauseVerdict *CampaignResult::clause(const std::string &id) {
  for (auto &c : clauses)
    if (c.id == id) return &c;
  return nullptr;
}

void finalize_statuses(CampaignResult &r) {
  std::optional<std::regex> pattern;
  if (!r.clause_pattern.empty()) pattern.emplace(r.clause_pattern, std::regex::ECMAScript);
  // A kept counterexample is explained by an expected variant under which it conforms strictly.
  for (auto &d : r.deviations) {
    d.expected_variant.clear();
    for (const auto &v : r.expected_variants)
      if (listed(d.variants, v)) {
        d.expected_variant = v;
        break;
      }
  }
  for (auto &c : r.clauses) {
    // The fingerprint: variants that strictly explain some kept counterexample of the clause and
    // that none of them contradicts.
    std::vector<std::string> named;
    bool any = false, all_expected = true;
    for (const auto &d : r.deviations) {
      if (d.clause != c.id) continue;
      any = true;
      all_expected = all_expected && !d.expected_variant.empty();
      for (const auto &v : d.variants)
        if (!listed(named, v)) named.push_back(v);
    }
    for (const auto &d : r.deviations) {
      if (d.clause != c.id) continue;
      std::erase_if(named, [&](const std::string &v) {
        return !listed(d.variants, v) && !listed(d.consistent_variants, v);
      });
    }
    if (any) c.variants = named;
    if (any) c.expected_variants_matched.clear();
    if (any && all_expected)
      for (const auto &d : r.deviations)
        if (d.clause == c.id && !listed(c.expected_variants_matched, d.expected_variant))
          c.expected_variants_matched.push_back(d.expected_variant);
    if (listed(r.skipped, c.id) || listed(r.not_applicable, c.id) ||
        (pattern && !std::regex_search(c.id, *pattern)))
      c.status = ClauseStatus::kSkipped;
    else if (c.deviations > 0 && listed(r.xfails, c.id))
      c.status = ClauseStatus::kExpectedFailure;
    else if (c.deviations > 0)
      c.status = any && all_expected ? ClauseStatus::kConformsToVariant : ClauseStatus::kDeviates;
    else if (c.explained_by_variant > 0)
      c.status = ClauseStatus::kConformsToVariant;
    else if (c.reached == 0)
      c.status = ClauseStatus::kNotReached;
    else if (c.reached < c.min_cases)
      c.status = ClauseStatus::kUnderTested;
    else
      c.status = ClauseStatus::kConforms;
  }
}

int64_t seed_space_position(const std::string &origin) {
  // A stored corpus ("corpus ID") is replayed before anything else: its cases are the known
  // counterexamples a run checks first, and keeps first.
  if (origin.rfind("corpus ", 0) == 0) return std::numeric_limits<int64_t>::min();
  // Edge rows ("edge row N CLAUSE: ...") run next, in the table's order, however the shards
  // split them: a merge keeps the rows' counterexamples in that order, as one process does.
  constexpr std::string_view kEdgeRow = "edge row ";
  if (origin.rfind(kEdgeRow, 0) == 0)
    return std::numeric_limits<int32_t>::min() +
           std::strtoll(origin.c_str() + kEdgeRow.size(), nullptr, 10);
  const auto at = origin.find(" index ");
  if (at == std::string::npos) return -1;
  return std::strtoll(origin.c_str() + at + 7, nullptr, 10);
}

bool seed_space_before(const Deviation &a, const Deviation &b) {
  const int64_t pa = seed_space_position(a.origin), pb = seed_space_position(b.origin);
  return pa != pb ? pa < pb : a.origin < b.origin;
}

AccuracyStats &accuracy_row(std::vector<AccuracyStats> &rows, const std::string &op,
                            const std::string &dtype) {
  auto it = std::find_if(rows.begin(), rows.end(),
                         [&](const AccuracyStats &a) { return a.op == op && a.dtype == dtype; });
  if (it != rows.end()) return *it;
  AccuracyStats a;
  a.op = op;
  a.dtype = dtype;
  rows.push_back(std::move(a));
  return rows.back();
}

void merge_accuracy(AccuracyStats &into, const AccuracyStats &from) {
  into.elements += from.elements;
  for (size_t b = 0; b < into.histogram.size(); ++b) into.histogram[b] += from.histogram[b];
  into.max_ulps = std::max(into.max_ulps, from.max_ulps);
  into.mere_weighted_sum += from.mere_weighted_sum;
  into.mare = std::max(into.mare, from.mare);
  into.max_bound_ratio = std::max(into.max_bound_ratio, from.max_bound_ratio);
  for (const auto &rule : from.rules)
    if (!listed(into.rules, rule)) into.rules.push_back(rule);
  // The precision row names its op and dtype (precision_standards reads the dtype).
  if (into.precision.op.empty()) {
    into.precision.op = from.precision.op;
    into.precision.dtype = from.precision.dtype;
  }
  into.precision.merge(from.precision);
}

CampaignResult merge_results(const std::vector<CampaignResult> &shards) {
  if (shards.empty()) throw std::runtime_error("nothing to merge");
  // One pass over the shards with hash lookups, so 1,000 shards merge in linear time. Only the
  // counterexamples a single process would keep survive (per clause, the first
  // kKeptPerClause in seed-space order), so the merged report does not grow with the shard count.
  constexpr size_t kKeptPerClause = 3;  // CampaignConfig::deviations_per_clause's default
  CampaignResult m = shards.front();
  std::unordered_set<std::string> shard_names = {m.shard},
                                  warnings(m.warnings.begin(), m.warnings.end());
  std::set<std::string> sources = {m.shard_source};
  std::unordered_map<std::string, size_t> clause_at, accuracy_at;
  for (size_t i = 0; i < m.clauses.size(); ++i) clause_at[m.clauses[i].id] = i;
  for (size_t i = 0; i < m.accuracy.size(); ++i)
    accuracy_at[m.accuracy[i].op + '\n' + m.accuracy[i].dtype] = i;
  for (size_t i = 1; i < shards.size(); ++i) {
    const CampaignResult &s = shards[i];
    if (s.sut != m.sut || s.product != m.product || s.seed != m.seed || s.policy != m.policy ||
        s.sut_identity.sha256 != m.sut_identity.sha256 ||
        s.expected_variants != m.expected_variants || s.clause_pattern != m.clause_pattern ||
        s.competitor != m.competitor)
      throw std::runtime_error("shard " + s.shard +
                               " is of another campaign (SUT, its SHA-256, product, seed, "
                               "policy, expected variants, clause pattern or competitor differ)");
    if (!shard_names.insert(s.shard).second)
      throw std::runtime_error("shard " + s.shard + " appears twice");
    sources.insert(s.shard_source);
    m.cases += s.cases;
    m.seconds = std::max(m.seconds, s.seconds);
    m.interrupted = m.interrupted || s.interrupted;
    m.allow_incomplete = m.allow_incomplete && s.allow_incomplete;
    if (m.aborted.empty()) m.aborted = s.aborted;
    m.unresolved_calls.insert(m.unresolved_calls.end(), s.unresolved_calls.begin(),
                              s.unresolved_calls.end());
    // Shards may run on other machines: a device id is counted per id over all of them.
    for (const auto &d : s.devices) {
      auto it = std::find_if(m.devices.begin(), m.devices.end(),
                             [&](const DeviceUsage &x) { return x.id == d.id; });
      if (it == m.devices.end()) {
        m.devices.push_back(d);
        continue;
      }
      it->cases += d.cases;
      it->workers += d.workers;
      it->device_faults += d.device_faults;
      it->out_of_memory += d.out_of_memory;
      it->retired = it->retired || d.retired;
      if (it->note.empty()) it->note = d.note;
    }
    for (const auto &t : s.first_calls) {
      auto it = std::find_if(m.first_calls.begin(), m.first_calls.end(),
                             [&](const TimingStats &x) { return x.what == t.what; });
      if (it == m.first_calls.end())
        m.first_calls.push_back(t);
      else
        it->merge(t);
    }
    for (const auto &c : s.clauses) {
      const auto [it, added] = clause_at.try_emplace(c.id, m.clauses.size());
      if (added) {
        m.clauses.push_back(c);
        continue;
      }
      ClauseVerdict &t = m.clauses[it->second];
      t.reached += c.reached;
      t.deviations += c.deviations;
      t.seconds += c.seconds;
      t.explained_by_variant += c.explained_by_variant;
      for (const auto &v : c.expected_variants_matched)
        if (!listed(t.expected_variants_matched, v)) t.expected_variants_matched.push_back(v);
      // The minimum is the campaign's, over all shards together.
      t.min_cases = std::max(t.min_cases, c.min_cases);
      if (t.first_detail.empty()) t.first_detail = c.first_detail;
    }
    m.deviations.insert(m.deviations.end(), s.deviations.begin(), s.deviations.end());
    for (const auto &a : s.accuracy) {
      const auto [it, added] = accuracy_at.try_emplace(a.op + '\n' + a.dtype, m.accuracy.size());
      if (added) {
        m.accuracy.push_back(a);
        continue;
      }
      merge_accuracy(m.accuracy[it->second], a);
    }
    for (const auto &w : s.warnings)
      if (warnings.insert(w).second) m.warnings.push_back(w);
    // Keep the deviations bounded as shards come in: at most kKeptPerClause per clause.
    if (m.deviations.size() > kKeptPerClause * m.clauses.size()) {
      std::stable_sort(m.deviations.begin(), m.deviations.end(), seed_space_before);
      std::unordered_map<std::string, size_t> kept;
      std::erase_if(m.deviations,
                    [&](const Deviation &d) { return ++kept[d.clause] > kKeptPerClause; });
    }
  }
  std::stable_sort(m.deviations.begin(), m.deviations.end(), seed_space_before);
  std::unordered_map<std::string, size_t> kept;
  std::erase_if(m.deviations,
                [&](const Deviation &d) { return ++kept[d.clause] > kKeptPerClause; });
  // Shards in index order ("0/4,1/4,..."), then any name that is not I/N.
  std::vector<std::string> names(shard_names.begin(), shard_names.end());
  std::sort(names.begin(), names.end(), [](const std::string &a, const std::string &b) {
    const long long ia = std::atoll(a.c_str()), ib = std::atoll(b.c_str());
    return ia != ib ? ia < ib : a < b;
  });
  m.shard.clear();
  for (const auto &n : names) m.shard += (m.shard.empty() ? "" : ",") + n;
  m.shard_source.clear();
  for (const auto &src : sources) m.shard_source += (m.shard_source.empty() ? "" : ",") + src;
  finalize_statuses(m);
  merge_climb(m, shards);     // worst inputs and climbing (campaign/climb.hpp)
  merge_schedule(m, shards);  // the budget's use, per unit (campaign/schedule.hpp)
  std::vector<nlohmann::json> coverage;
  for (const auto &s : shards) coverage.push_back(s.coverage);
  m.coverage = merge_coverage(coverage);  // edge coverage (campaign/coverage.hpp)
  return m;
}

}  // namespace aclnn_conform
