#include "campaign/result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "campaign/causes.hpp"

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
ClauseStatus status_from_name(const std::string &s) {
  for (auto st : {ClauseStatus::kConforms, ClauseStatus::kDeviates, ClauseStatus::kNotReached,
                  ClauseStatus::kSkipped, ClauseStatus::kExpectedFailure,
                  ClauseStatus::kUnderTested, ClauseStatus::kConformsToVariant})
    if (clause_status_name(st) == s) return st;
  throw std::runtime_error("unknown clause status '" + s + "'");
}
bool listed(const std::vector<std::string> &list, const std::string &id) {
  return std::find(list.begin(), list.end(), id) != list.end();
}
}  // namespace

Verdict CampaignResult::verdict() const {
  if (interrupted) return Verdict::kInterrupted;
  if (!conformant()) return Verdict::kDeviations;
  // A run whose devices all failed covers only what ran, whatever --allow-incomplete says.
  if (!aborted.empty()) return Verdict::kIncomplete;
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

nlohmann::json json_number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

double number_from_json(const nlohmann::json &j) {
  if (j.is_number()) return j.get<double>();
  const std::string s = j.get<std::string>();
  return s == "inf" ? INFINITY : s == "-inf" ? -INFINITY : NAN;
}

void put_number(nlohmann::json &j, const std::string &key, double v) {
  if (std::isfinite(v)) {
    j[key] = v;
    return;
  }
  j[key] = nullptr;
  j[key + "_nonfinite"] = std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

double get_number(const nlohmann::json &j, const std::string &key) {
  const auto &v = j.at(key);
  if (v.is_number()) return v.get<double>();
  const std::string s = j.at(key + "_nonfinite").get<std::string>();
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  if (s == "nan") return NAN;
  throw std::runtime_error(key + "_nonfinite: '" + s + "' is not inf, -inf or nan");
}

nlohmann::json to_json(const SutIdentity &s) {
  return {{"path", s.path}, {"soname", s.soname}, {"size", s.size}, {"sha256", s.sha256}};
}

SutIdentity sut_identity_from_json(const nlohmann::json &j) {
  SutIdentity s;
  s.path = j.at("path");
  s.soname = j.at("soname");
  s.size = j.at("size");
  s.sha256 = j.at("sha256");
  return s;
}

nlohmann::json to_json(const Deviation &d) {
  return {{"op", d.op},
          {"device", d.device},
          {"clause", d.clause},
          {"kind", d.kind},
          {"call", d.call},
          {"detail", d.detail},
          {"summary", d.summary},
          {"all_failures", d.all_failures},
          {"variants", d.variants},
          {"consistent_variants", d.consistent_variants},
          {"expected_variant", d.expected_variant},
          {"origin", d.origin},
          {"shrink_steps", d.shrink_steps},
          {"found_at_seconds", d.found_at_seconds},
          {"found_at_case", d.found_at_case},
          {"expected_status", d.expected_status},
          {"expected_clause", d.expected_clause},
          {"got_status", d.got_status},
          {"case_id", d.case_id},
          {"repro_file", d.repro_file},
          {"corpus_file", d.corpus_file},
          {"case_description", d.minimal.describe()},
          {"case", to_json(d.minimal)}};
}

Deviation deviation_from_json(const nlohmann::json &d) {
  Deviation v;
  v.op = d.at("op");
  v.clause = d.at("clause");
  v.kind = d.at("kind");
  v.call = d.at("call");
  v.detail = d.at("detail");
  v.summary = d.at("summary");
  v.all_failures = d.at("all_failures");
  v.variants = d.at("variants").get<std::vector<std::string>>();
  v.consistent_variants = d.at("consistent_variants").get<std::vector<std::string>>();
  v.expected_variant = d.at("expected_variant");
  v.origin = d.at("origin");
  v.shrink_steps = d.at("shrink_steps");
  v.found_at_seconds = d.at("found_at_seconds");
  v.found_at_case = d.at("found_at_case");
  v.expected_status = d.at("expected_status");
  v.expected_clause = d.at("expected_clause");
  v.got_status = d.at("got_status");
  v.case_id = d.at("case_id");
  v.repro_file = d.at("repro_file");
  v.corpus_file = d.at("corpus_file");
  v.minimal = case_from_json(d.at("case"));
  v.device = d.value("device", -1);
  return v;
}

nlohmann::json to_json(const CampaignResult &r) {
  nlohmann::json j;
  j["schema"] = r.schema;
  j["tool_version"] = r.tool_version;
  j["sut"] = r.sut;
  j["sut_identity"] = to_json(r.sut_identity);
  j["sut_files"] = nlohmann::json::array();
  for (const auto &f : r.sut_files) j["sut_files"].push_back(to_json(f));
  j["devices"] = nlohmann::json::array();
  for (const auto &d : r.devices)
    j["devices"].push_back({{"id", d.id},
                            {"cases", d.cases},
                            {"workers", d.workers},
                            {"device_faults", d.device_faults},
                            {"out_of_memory", d.out_of_memory},
                            {"retired", d.retired},
                            {"note", d.note}});
  j["first_calls"] = nlohmann::json::array();
  for (const auto &t : r.first_calls)
    j["first_calls"].push_back({{"what", t.what},
                                {"count", t.count},
                                {"total_seconds", t.total_seconds},
                                {"max_seconds", t.max_seconds}});
  j["aborted"] = r.aborted;
  j["competitor"] = r.competitor;
  j["product"] = r.product;
  j["tier"] = r.tier;
  j["policy"] = r.policy;
  j["seed"] = r.seed;
  j["shard"] = r.shard;
  j["shard_source"] = r.shard_source;
  j["ops"] = r.ops;
  j["cases"] = r.cases;
  j["seconds"] = r.seconds;
  j["verdict"] = verdict_name(r.verdict());
  j["conformant"] = r.verdict() == Verdict::kConformant;
  j["interrupted"] = r.interrupted;
  j["allow_incomplete"] = r.allow_incomplete;
  j["expected_variants"] = r.expected_variants;
  j["clause_pattern"] = r.clause_pattern;
  j["clauses"] = nlohmann::json::array();
  for (const auto &c : r.clauses)
    j["clauses"].push_back({{"id", c.id},
                            {"op", c.op},
                            {"status", clause_status_name(c.status)},
                            {"reached", c.reached},
                            {"min_cases", c.min_cases},
                            {"deviations", c.deviations},
                            {"seconds", c.seconds},
                            {"variants", c.variants},
                            {"expected_variants_matched", c.expected_variants_matched},
                            {"explained_by_variant", c.explained_by_variant},
                            {"first_detail", c.first_detail}});
  j["deviations"] = nlohmann::json::array();
  for (const auto &d : r.deviations) j["deviations"].push_back(to_json(d));
  j["accuracy"] = nlohmann::json::array();
  for (const auto &a : r.accuracy) {
    nlohmann::json hist = nlohmann::json::object();
    for (int b = 0; b < aclnn_ref::kBucketCount; ++b)
      hist[aclnn_ref::bucket_label(b)] = a.histogram[static_cast<size_t>(b)];
    nlohmann::json row = {
        {"op", a.op}, {"dtype", a.dtype}, {"elements", a.elements}, {"histogram", hist}};
    put_number(row, "max_ulps", a.max_ulps);
    put_number(row, "mere", a.mere());
    put_number(row, "mare", a.mare);
    row["rules"] = a.rules;
    put_number(row, "max_bound_ratio", a.max_bound_ratio);
    if (a.precision.cases > 0) row["precision"] = to_json(a.precision);
    j["accuracy"].push_back(std::move(row));
  }
  // Derived from the counterexamples (recomputed when read back): causes and clauses counted
  // apart, since one cause can touch many clauses.
  j["causes"] = nlohmann::json::array();
  int64_t counting = 0;
  for (const auto &g : group_causes(r)) {
    counting += g.counts ? 1 : 0;
    j["causes"].push_back({{"id", g.id},
                           {"title", g.title},
                           {"signature", g.signature},
                           {"op", g.op},
                           {"kind", g.kind},
                           {"expected_status", g.expected_status},
                           {"got_status", g.got_status},
                           {"message_class", g.message_class},
                           {"variant", g.variant},
                           {"value_error", g.value_error},
                           {"counts", g.counts},
                           {"clauses", g.clauses},
                           {"deviations", g.deviations}});
  }
  j["cause_count"] = counting;
  j["deviating_clause_count"] =
      std::count_if(r.clauses.begin(), r.clauses.end(),
                    [](const ClauseVerdict &c) { return c.status == ClauseStatus::kDeviates; });
  j["warnings"] = r.warnings;
  j["skipped"] = r.skipped;
  j["not_applicable"] = r.not_applicable;
  j["not_applicable_reason"] = r.not_applicable_reason;
  j["xfails"] = r.xfails;
  return j;
}

std::string report_json_text(const CampaignResult &r) {
  return to_json(r).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

CampaignResult result_from_json(const nlohmann::json &j) {
  CampaignResult r;
  r.schema = j.at("schema").get<int>();
  if (r.schema != kSchemaVersion)
    throw std::runtime_error("report schema " + std::to_string(r.schema) + " is not " +
                             std::to_string(kSchemaVersion));
  r.tool_version = j.at("tool_version");
  r.sut = j.at("sut");
  r.sut_identity = sut_identity_from_json(j.at("sut_identity"));
  for (const auto &f : j.at("sut_files")) r.sut_files.push_back(sut_identity_from_json(f));
  for (const auto &d : j.at("devices")) {
    DeviceUsage u;
    u.id = d.at("id");
    u.cases = d.at("cases");
    u.workers = d.at("workers");
    u.device_faults = d.at("device_faults");
    u.out_of_memory = d.at("out_of_memory");
    u.retired = d.at("retired");
    u.note = d.at("note");
    r.devices.push_back(u);
  }
  for (const auto &t : j.at("first_calls")) {
    TimingStats s;
    s.what = t.at("what");
    s.count = t.at("count");
    s.total_seconds = t.at("total_seconds");
    s.max_seconds = t.at("max_seconds");
    r.first_calls.push_back(s);
  }
  r.aborted = j.at("aborted");
  r.competitor = j.at("competitor");
  r.product = j.at("product");
  r.tier = j.at("tier");
  r.policy = j.at("policy");
  r.seed = j.at("seed");
  r.shard = j.at("shard");
  r.shard_source = j.value("shard_source", "");
  r.ops = j.at("ops").get<std::vector<std::string>>();
  r.cases = j.at("cases");
  r.seconds = j.at("seconds");
  r.interrupted = j.at("interrupted");
  r.allow_incomplete = j.at("allow_incomplete");
  r.expected_variants = j.at("expected_variants").get<std::vector<std::string>>();
  r.clause_pattern = j.at("clause_pattern");
  for (const auto &c : j.at("clauses")) {
    ClauseVerdict v;
    v.id = c.at("id");
    v.op = c.at("op");
    v.status = status_from_name(c.at("status"));
    v.reached = c.at("reached");
    v.min_cases = c.at("min_cases");
    v.deviations = c.at("deviations");
    v.seconds = c.at("seconds");
    v.variants = c.at("variants").get<std::vector<std::string>>();
    v.expected_variants_matched = c.at("expected_variants_matched").get<std::vector<std::string>>();
    v.explained_by_variant = c.value("explained_by_variant", int64_t{0});
    v.first_detail = c.at("first_detail");
    r.clauses.push_back(std::move(v));
  }
  for (const auto &d : j.at("deviations")) r.deviations.push_back(deviation_from_json(d));
  for (const auto &a : j.at("accuracy")) {
    AccuracyStats s;
    s.op = a.at("op");
    s.dtype = a.at("dtype");
    s.elements = a.at("elements");
    s.max_ulps = get_number(a, "max_ulps");
    s.mere_weighted_sum = get_number(a, "mere") * static_cast<double>(s.elements);
    s.mare = get_number(a, "mare");
    s.rules = a.at("rules").get<std::vector<std::string>>();
    s.max_bound_ratio = get_number(a, "max_bound_ratio");
    for (int b = 0; b < aclnn_ref::kBucketCount; ++b)
      s.histogram[static_cast<size_t>(b)] = a.at("histogram").at(aclnn_ref::bucket_label(b));
    if (a.contains("precision")) {
      s.precision = precision_from_json(a.at("precision"));
      s.precision.op = s.op;
      s.precision.dtype = s.dtype;
    }
    r.accuracy.push_back(std::move(s));
  }
  r.warnings = j.at("warnings").get<std::vector<std::string>>();
  r.skipped = j.at("skipped").get<std::vector<std::string>>();
  r.not_applicable = j.value("not_applicable", std::vector<std::string>{});
  r.not_applicable_reason = j.value("not_applicable_reason", std::string{});
  r.xfails = j.at("xfails").get<std::vector<std::string>>();
  return r;
}

namespace {
// Where a counterexample lies in the seed space: stored cases (replayed first) before generated
// ones, generated ones by their index ("seed 0x.. index K ...").
int64_t seed_space_position(const Deviation &d) {
  const auto at = d.origin.find(" index ");
  if (at == std::string::npos) return -1;
  return std::strtoll(d.origin.c_str() + at + 7, nullptr, 10);
}
}  // namespace

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
      std::stable_sort(m.deviations.begin(), m.deviations.end(), [](const auto &a, const auto &b) {
        return seed_space_position(a) < seed_space_position(b);
      });
      std::unordered_map<std::string, size_t> kept;
      std::erase_if(m.deviations,
                    [&](const Deviation &d) { return ++kept[d.clause] > kKeptPerClause; });
    }
  }
  std::stable_sort(m.deviations.begin(), m.deviations.end(), [](const auto &a, const auto &b) {
    return seed_space_position(a) < seed_space_position(b);
  });
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
  return m;
}

}  // namespace aclnn_conform
