#include "campaign/causes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <regex>

namespace aclnn_conform {
namespace {

// A message's class: numbers, hex and double-quoted names (kernel and parameter names) do not
// make another cause; single-quoted words (a dtype such as 'Half') do.
std::string normalise(std::string s) {
  static const std::regex abi_prefix(R"(^\s*aclnn\w+:\s*)");
  static const std::regex quoted("\"[^\"]*\"");
  static const std::regex hex("0x[0-9a-fA-F]+");
  static const std::regex number(R"([-+]?\d+(\.\d+)?([eE][-+]?\d+)?)");
  static const std::regex spaces(R"(\s+)");
  s = std::regex_replace(s, abi_prefix, "");
  s = std::regex_replace(s, quoted, "\"...\"");
  s = std::regex_replace(s, hex, "#");
  s = std::regex_replace(s, number, "#");
  s = std::regex_replace(s, spaces, " ");
  if (s.size() > 100) s = s.substr(0, 100) + "...";
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The kind of value error in a judge's detail of a value clause.
std::string value_error_of(const std::string &detail) {
  static const std::regex klass(R"(class: (expected [^,]+, got [A-Za-z+\-]+))");
  std::smatch m;
  if (std::regex_search(detail, m, klass)) return "class mismatch: " + m[1].str();
  if (detail.find("must not be written") != std::string::npos)
    return "wrote an output it must leave untouched";
  if (detail.find("> bound") != std::string::npos)
    return "sum error beyond its condition-aware bound";
  if (detail.find(" ulps > ") != std::string::npos) return "ulp error beyond the bound";
  if (detail.find("sign") != std::string::npos && detail.find("zero") != std::string::npos)
    return "sign of zero";
  return "";
}

}  // namespace

CauseGroup cause_of(const Deviation &d) {
  CauseGroup g;
  g.op = d.op;
  g.kind = d.kind.empty() ? "deviation" : d.kind;
  g.expected_status = d.expected_status;
  g.got_status = d.got_status;
  g.variant = fmt::format("{}", fmt::join(d.variants, ", "));
  if (g.kind != "deviation") {
    // A crash or hang: where it died and how.
    g.message_class = normalise(d.call) + ": " + normalise(d.detail);
    g.title = fmt::format("{} {} in {}", g.op, g.kind, d.call.empty() ? "the SUT" : d.call);
  } else if (d.expected_status != 0 && d.got_status == 0) {
    // A check the SUT does not make: the clause that demands the status is the cause.
    g.message_class = "accepted a call " + d.expected_clause + " rejects";
    g.title = fmt::format("{} accepts calls that {} rejects with {}", g.op, d.expected_clause,
                          d.expected_status);
  } else if (d.got_status != d.expected_status) {
    // A status of its own: the SUT's words say why (after "in phase N: ").
    std::string msg = d.detail;
    const auto at = msg.find(" in phase ");
    if (at != std::string::npos) {
      const auto colon = msg.find(": ", at);
      msg = colon == std::string::npos ? msg.substr(at) : msg.substr(colon + 2);
    }
    g.message_class = normalise(msg);
    g.title =
        d.expected_status == 0
            ? fmt::format("{} rejects valid calls with {}: {}", g.op, d.got_status, g.message_class)
            : fmt::format("{} returns {} where {} is due: {}", g.op, d.got_status,
                          d.expected_status, g.message_class);
  } else {
    g.value_error = value_error_of(d.detail);
    if (g.value_error.empty()) g.message_class = normalise(d.detail);
    g.title = fmt::format("{}: {}", g.op, g.value_error.empty() ? g.message_class : g.value_error);
  }
  if (!g.variant.empty()) g.title += " (variant " + g.variant + ")";
  // A crash or hang is one defect whatever status the call was due: no status came.
  if (g.kind != "deviation") g.expected_status = g.got_status = 0;
  g.signature = fmt::format("{}|{}|{}->{}|{}|{}|{}", g.op, g.kind, g.expected_status, g.got_status,
                            g.message_class, g.variant, g.value_error);
  return g;
}

std::vector<CauseGroup> group_causes(const CampaignResult &r) {
  std::vector<CauseGroup> groups;
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < r.deviations.size(); ++i) {
    const Deviation &d = r.deviations[i];
    CauseGroup g = cause_of(d);
    auto [it, added] = at.try_emplace(g.signature, groups.size());
    if (added) {
      g.counts = false;
      groups.push_back(std::move(g));
    }
    CauseGroup &t = groups[it->second];
    t.deviations.push_back(i);
    if (std::find(t.clauses.begin(), t.clauses.end(), d.clause) == t.clauses.end())
      t.clauses.push_back(d.clause);
    // It counts if any of its counterexamples is neither explained nor tolerated.
    const ClauseVerdict *c = r.clause(d.clause);
    const bool tolerated =
        c && (c->status == ClauseStatus::kExpectedFailure || c->status == ClauseStatus::kSkipped);
    if (d.expected_variant.empty() && !tolerated) t.counts = true;
  }
  // Clauses in spec order.
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < r.clauses.size(); ++i) order[r.clauses[i].id] = i;
  for (auto &g : groups)
    std::stable_sort(g.clauses.begin(), g.clauses.end(), [&](const auto &a, const auto &b) {
      return order.count(a) && order.count(b) ? order[a] < order[b] : a < b;
    });
  std::stable_sort(groups.begin(), groups.end(), [](const CauseGroup &a, const CauseGroup &b) {
    if (a.counts != b.counts) return a.counts;
    if (a.clauses.size() != b.clauses.size()) return a.clauses.size() > b.clauses.size();
    return a.deviations.size() > b.deviations.size();
  });
  for (size_t i = 0; i < groups.size(); ++i) groups[i].id = fmt::format("cause-{}", i + 1);
  return groups;
}

}  // namespace aclnn_conform
