// Coverage guidance (campaign/coverage.hpp): the SanitizerCoverage callbacks a worker gives an
// instrumented SUT, the per-task edge sets, and the campaign's deterministic novelty.
#include "campaign/coverage.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <set>
#include <stdexcept>

#include "campaign/task.hpp"

namespace {

// One instrumented module (a shared object, or the executable): its inline 8-bit counters, one
// per edge, and its PC table (two words per edge: the PC and flags).
struct Module {
  uint8_t *begin = nullptr, *end = nullptr;
  size_t pcs = 0;
};

// Filled by the callbacks while the dynamic loader runs the modules' constructors (one thread).
std::vector<Module> &modules() {
  static std::vector<Module> m;
  return m;
}
size_t sut_modules = static_cast<size_t>(-1);  // modules() beyond this are not the SUT's
std::vector<uint32_t> snapshot;
bool snapshot_taken = false;

size_t counted_modules() {
  return std::min(sut_modules, modules().size());
}

}  // namespace

// SanitizerCoverage's callbacks: an instrumented module's constructor calls them with its own
// sections. They are strong undefined symbols in such a module (dlopen fails without them), so
// the executables export them (campaign/CMakeLists.txt: --export-dynamic-symbol).
extern "C" __attribute__((visibility("default"))) void __sanitizer_cov_8bit_counters_init(
    uint8_t *begin, uint8_t *end) {
  if (begin == end) return;
  // The program's own instrumented code (a worker built with the instrumented library's objects
  // linked in) is not the SUT's: only shared objects count.
  Dl_info in{}, self{};
  if (dladdr(begin, &in) && dladdr(reinterpret_cast<void *>(&counted_modules), &self) &&
      in.dli_fbase == self.dli_fbase)
    return;
  // A module is registered once, whatever calls it (the loader runs each constructor once).
  for (const auto &m : modules())
    if (m.begin == begin) return;
  modules().push_back({begin, end, 0});
}

extern "C" __attribute__((visibility("default"))) void __sanitizer_cov_pcs_init(
    const uintptr_t *begin, const uintptr_t *end) {
  // Called after the module's counters_init: the PC table of the module registered last.
  if (!modules().empty() && modules().back().pcs == 0)
    modules().back().pcs = static_cast<size_t>(end - begin) / 2;
}

namespace aclnn_conform {

void coverage_sut_loaded() {
  sut_modules = modules().size();
}

nlohmann::json coverage_library() {
  size_t edges = 0, pcs = 0;
  for (size_t i = 0; i < counted_modules(); ++i) {
    edges += static_cast<size_t>(modules()[i].end - modules()[i].begin);
    pcs += modules()[i].pcs;
  }
  return {{"modules", counted_modules()}, {"edges", edges}, {"pcs", pcs}};
}

namespace {
void zero_counters() {
  for (size_t i = 0; i < counted_modules(); ++i)
    std::memset(modules()[i].begin, 0, static_cast<size_t>(modules()[i].end - modules()[i].begin));
}
std::vector<uint32_t> hit_edges() {
  std::vector<uint32_t> out;
  uint32_t base = 0;
  for (size_t i = 0; i < counted_modules(); ++i) {
    const Module &m = modules()[i];
    for (const uint8_t *p = m.begin; p < m.end; ++p)
      if (*p) out.push_back(base + static_cast<uint32_t>(p - m.begin));
    base += static_cast<uint32_t>(m.end - m.begin);
  }
  return out;
}
std::vector<bool> seen;  // edges some call of this process has reached
}  // namespace

void coverage_reset() {
  zero_counters();
  snapshot.clear();
  snapshot_taken = false;
}

bool coverage_snapshot() {
  snapshot = hit_edges();
  snapshot_taken = counted_modules() > 0;
  bool fresh = false;
  for (const uint32_t e : snapshot) {
    if (e >= seen.size()) seen.resize(e + 1);
    fresh |= !seen[e];
    seen[e] = true;
  }
  if (fresh) zero_counters();  // for the confirming call
  return fresh;
}

void coverage_confirm() {
  const std::vector<uint32_t> again = hit_edges();
  std::vector<uint32_t> both;
  std::set_intersection(snapshot.begin(), snapshot.end(), again.begin(), again.end(),
                        std::back_inserter(both));
  snapshot = std::move(both);
}

void coverage_attach(nlohmann::json &result) {
  if (!snapshot_taken) return;
  result["edges"] = encode_edges(snapshot);
  snapshot.clear();
  snapshot_taken = false;
}

nlohmann::json encode_edges(const std::vector<uint32_t> &edges) {
  nlohmann::json out = nlohmann::json::array();
  uint32_t last = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    out.push_back(i == 0 ? edges[i] : edges[i] - last);
    last = edges[i];
  }
  return out;
}

std::vector<uint32_t> decode_edges(const nlohmann::json &j) {
  if (!j.is_array()) throw std::runtime_error("edges: not a list");
  std::vector<uint32_t> out;
  out.reserve(j.size());
  uint64_t at = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_unsigned()) throw std::runtime_error("edges: not an index");
    const uint64_t d = j[i].get<uint64_t>();
    if (i > 0 && d == 0) throw std::runtime_error("edges: not ascending");
    at = i == 0 ? d : at + d;
    if (at > UINT32_MAX) throw std::runtime_error("edges: index out of range");
    out.push_back(static_cast<uint32_t>(at));
  }
  return out;
}

// ---- The campaign's side ----

namespace {

// The counts a coverage summary reports besides its edge sets (a single run's, or a merge's).
struct CoverageCounts {
  int64_t modules = 0, edges = 0, cases = 0, seed_count = 0, mutations = 0, without_seed = 0,
          stored = 0;
};

// report.json's coverage object, built the same way for a run and for a merge of shards.
nlohmann::json coverage_json(const std::set<uint32_t> &reached,
                             const std::map<std::string, std::set<uint32_t>> &per_op,
                             const CoverageCounts &n, nlohmann::json seeds) {
  nlohmann::json ops = nlohmann::json::object(), op_edges = nlohmann::json::object();
  for (const auto &[op, edges] : per_op) {
    ops[op] = edges.size();
    op_edges[op] = encode_edges({edges.begin(), edges.end()});
  }
  return {{"instrumented", true},
          {"modules", n.modules},
          {"edges", n.edges},
          {"edges_reached", reached.size()},
          {"reached_edges", encode_edges({reached.begin(), reached.end()})},
          {"cases_with_edges", n.cases},
          {"ops", ops},
          {"op_edges", op_edges},
          {"seed_count", n.seed_count},
          {"seeds", std::move(seeds)},
          {"seed_mutations", n.mutations},
          {"seed_mutations_without_seed", n.without_seed},
          {"seeds_stored", n.stored}};
}

}  // namespace

void CoverageTracker::library(const nlohmann::json &hello) {
  if (!hello.is_object() || hello.value("modules", 0) <= 0) return;
  instrumented_ = true;
  library_ = hello;
}

void CoverageTracker::observe(const Task &t, const nlohmann::json &result) {
  if (t.index >= 0) frontier_.completed(t.index);
  if (t.index >= 0 && !t.generated()) ++mutations_;  // a seed mutation ran
  if (!result.contains("edges")) return;
  Observed o;
  o.op = t.op ? t.op->name : "?";
  o.origin = t.origin;
  o.kind = t.property();
  try {
    o.edges = decode_edges(result.at("edges"));
  } catch (const std::exception &) {
    return;  // a malformed list guides nothing
  }
  if (t.index >= 0) o.task = std::make_shared<const Task>(t);
  // A task run twice (again after a device fault or a suspected hang) counts once: its first.
  // Generated indices and the seed mutations that took their place share one order.
  observed_.emplace(std::make_tuple(t.index < 0 ? 0 : 1, t.index, t.origin), std::move(o));
}

nlohmann::json CoverageTracker::summary() const {
  if (!instrumented_)
    return {{"instrumented", false}, {"note", "no coverage (library not instrumented)"}};
  std::set<uint32_t> reached;
  std::map<std::string, std::set<uint32_t>> per_op;
  nlohmann::json seeds = nlohmann::json::array();
  int64_t seed_count = 0;
  for (const auto &[key, o] : observed_) {
    size_t fresh = 0;
    for (const uint32_t e : o.edges) fresh += reached.insert(e).second;
    per_op[o.op].insert(o.edges.begin(), o.edges.end());
    if (fresh == 0) continue;
    ++seed_count;
    if (seeds.size() < kListedSeeds)
      seeds.push_back({{"index", std::get<1>(key)},
                       {"op", o.op},
                       {"property", o.kind},
                       {"origin", o.origin},
                       {"new_edges", fresh}});
  }
  CoverageCounts n;
  n.modules = library_.value("modules", int64_t{0});
  n.edges = library_.value("edges", int64_t{0});
  n.cases = static_cast<int64_t>(observed_.size());
  n.seed_count = seed_count;
  n.mutations = mutations_;
  n.without_seed = mutations_of_none_;
  n.stored = stored_;
  return coverage_json(reached, per_op, n, std::move(seeds));
}

nlohmann::json merge_coverage(const std::vector<nlohmann::json> &shards) {
  if (shards.empty() || std::all_of(shards.begin(), shards.end(),
                                    [](const nlohmann::json &c) { return c.is_null(); }))
    return nullptr;
  const auto instrumented = [](const nlohmann::json &c) {
    return c.is_object() && c.value("instrumented", false);
  };
  if (std::none_of(shards.begin(), shards.end(), instrumented)) return shards.front();
  for (const auto &c : shards)
    if (!instrumented(c) || !c.contains("reached_edges") || !c.contains("op_edges"))
      return {{"instrumented", false},
              {"note",
               "coverage not merged: a shard has no edge lists (not instrumented, or a report of "
               "an older aclnn-conform)"}};
  std::set<uint32_t> reached;
  std::map<std::string, std::set<uint32_t>> per_op;
  nlohmann::json seeds = nlohmann::json::array();
  CoverageCounts n;
  for (const auto &c : shards) {
    for (const uint32_t e : decode_edges(c.at("reached_edges"))) reached.insert(e);
    for (const auto &[op, list] : c.at("op_edges").items())
      for (const uint32_t e : decode_edges(list)) per_op[op].insert(e);
    for (const auto &s : c.value("seeds", nlohmann::json::array())) seeds.push_back(s);
    n.cases += c.value("cases_with_edges", int64_t{0});
    n.seed_count += c.value("seed_count", int64_t{0});
    n.mutations += c.value("seed_mutations", int64_t{0});
    n.without_seed += c.value("seed_mutations_without_seed", int64_t{0});
    n.stored += c.value("seeds_stored", int64_t{0});
  }
  std::stable_sort(seeds.begin(), seeds.end(),
                   [](const nlohmann::json &a, const nlohmann::json &b) {
                     return a.value("index", int64_t{0}) < b.value("index", int64_t{0});
                   });
  if (seeds.size() > CoverageTracker::kListedSeeds)
    seeds.erase(seeds.begin() + CoverageTracker::kListedSeeds, seeds.end());
  const nlohmann::json &first = shards.front();
  n.modules = first.value("modules", int64_t{0});
  n.edges = first.value("edges", int64_t{0});
  nlohmann::json merged = coverage_json(reached, per_op, n, std::move(seeds));
  merged["seeds_within_shards"] = true;
  return merged;
}

std::string coverage_markdown(const nlohmann::json &c) {
  if (!c.is_object()) return "";
  if (!c.value("instrumented", false))
    return "**Edge coverage:** " + c.value("note", std::string("none")) + "\n\n";
  std::string s = fmt::format(
      "**Edge coverage:** {} of {} edges reached ({} instrumented module(s)); {} seed(s) (cases "
      "that reached new edges{}, in index order); {} seed mutation(s) run",
      c.value("edges_reached", 0), c.value("edges", 0), c.value("modules", 0),
      c.value("seed_count", 0),
      c.value("seeds_within_shards", false) ? " within their shard: a merge" : "",
      c.value("seed_mutations", 0));
  if (c.contains("ops") && !c["ops"].empty()) {
    std::string per;
    for (const auto &[op, n] : c["ops"].items())
      per += fmt::format("{}{} {}", per.empty() ? "" : ", ", op, n.get<int64_t>());
    s += "; per op: " + per;
  }
  return s + ".\n\n";
}

std::string coverage_html(const nlohmann::json &c) {
  // Op names, numbers and fixed words only: nothing here needs escaping.
  const std::string md = coverage_markdown(c);
  if (md.empty()) return "";
  std::string text = md.substr(0, md.find("\n\n"));
  const std::string bold = "**Edge coverage:**";
  if (text.rfind(bold, 0) == 0) text = "<strong>Edge coverage:</strong>" + text.substr(bold.size());
  return "<p class=\"coverage\">" + text + "</p>\n";
}

}  // namespace aclnn_conform
