// CampaignResult's one serialisation (campaign/result.hpp): report.json and shard reports
// (schema kSchemaVersion) and back; non-finite numbers as null plus a "<field>_nonfinite" string;
// a Deviation's JSON is also the worker pipe's failure record.
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "campaign/causes.hpp"
#include "campaign/result.hpp"

namespace aclnn_conform {

namespace {
ClauseStatus status_from_name(const std::string &s) {
  for (auto st : {ClauseStatus::kConforms, ClauseStatus::kDeviates, ClauseStatus::kNotReached,
                  ClauseStatus::kSkipped, ClauseStatus::kExpectedFailure,
                  ClauseStatus::kUnderTested, ClauseStatus::kConformsToVariant})
    if (clause_status_name(st) == s) return st;
  throw std::runtime_error("unknown clause status '" + s + "'");
}
}  // namespace

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
  j["unresolved_calls"] = r.unresolved_calls;
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
  if (!r.coverage.is_null()) j["coverage"] = r.coverage;
  if (!r.worst_inputs.is_null()) j["worst_inputs"] = r.worst_inputs;
  if (!r.climb.is_null()) j["climb"] = r.climb;
  if (!r.schedule.is_null()) j["schedule"] = r.schedule;
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
  r.unresolved_calls = j.value("unresolved_calls", std::vector<std::string>{});
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
  r.coverage = j.value("coverage", nlohmann::json());
  r.worst_inputs = j.value("worst_inputs", nlohmann::json());
  r.climb = j.value("climb", nlohmann::json());
  r.schedule = j.value("schedule", nlohmann::json());
  r.xfails = j.at("xfails").get<std::vector<std::string>>();
  return r;
}

}  // namespace aclnn_conform
