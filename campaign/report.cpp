// The reports' shared parts (campaign/report.hpp; the renderers: report_markdown.cpp,
// report_junit.cpp, report_html*.cpp; accuracy rows: report_accuracy.cpp): clause counts, text
// made safe for XML and HTML, the run's identity, verdict and counts in words, the deviations and
// clauses the renderers list, and write_reports.
#include "campaign/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "campaign/causes.hpp"
#include "campaign/kit_tally.hpp"
#include "campaign/markdown.hpp"
#include "campaign/report_detail.hpp"
#include "properties/clauses.hpp"
#include "reference/compare.hpp"
#include "reference/dtype.hpp"

namespace aclnn_conform {

ClauseCounts clause_counts(const CampaignResult &r) {
  ClauseCounts c;
  for (const auto &v : r.clauses) {
    switch (v.status) {
      case ClauseStatus::kConforms:
        ++c.conforms;
        break;
      case ClauseStatus::kDeviates:
        ++c.deviates;
        break;
      case ClauseStatus::kNotReached:
        ++c.not_reached;
        break;
      case ClauseStatus::kSkipped:
        ++c.skipped;
        break;
      case ClauseStatus::kExpectedFailure:
        ++c.xfail;
        break;
      case ClauseStatus::kUnderTested:
        ++c.under_tested;
        break;
      case ClauseStatus::kConformsToVariant:
        ++c.variant;
        break;
    }
  }
  return c;
}

namespace report_detail {

// Valid UTF-8 only (invalid sequences become U+FFFD), without the C0 controls XML 1.0 forbids
// (tab, line feed and carriage return stay).
std::string clean_utf8(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  const auto *p = reinterpret_cast<const unsigned char *>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') out += static_cast<char>(c);
      ++i;
      continue;
    }
    int len = 0;
    uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0)
      len = 2, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0)
      len = 3, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0)
      len = 4, cp = c & 0x07;
    bool ok = len > 0 && i + len <= n;
    for (int k = 1; ok && k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80)
        ok = false;
      else
        cp = cp << 6 | (p[i + k] & 0x3f);
    }
    // Overlong forms, surrogates and values beyond U+10FFFF are invalid; so are U+FFFE/U+FFFF.
    if (ok) {
      const uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
      ok = cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) && cp != 0xfffe &&
           cp != 0xffff;
    }
    if (ok) {
      out.append(s, i, static_cast<size_t>(len));
      i += static_cast<size_t>(len);
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  return out;
}

std::string escape_markup(const std::string &s, bool newline_entities) {
  std::string out;
  for (char c : clean_utf8(s)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\n':
        out += newline_entities ? "&#10;" : "\n";
        break;
      case '\r':
        out += newline_entities ? "&#13;" : "\r";
        break;
      case '\t':
        out += newline_entities ? "&#9;" : "\t";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string attr(const std::string &s) {
  return escape_markup(s, true);
}

std::string status_css(ClauseStatus s) {
  switch (s) {
    case ClauseStatus::kConforms:
      return "conforms";
    case ClauseStatus::kDeviates:
      return "deviates";
    case ClauseStatus::kNotReached:
      return "notreached";
    case ClauseStatus::kSkipped:
      return "skipped";
    case ClauseStatus::kExpectedFailure:
      return "xfail";
    case ClauseStatus::kUnderTested:
      return "undertested";
    case ClauseStatus::kConformsToVariant:
      return "variant";
  }
  return "notreached";
}

std::string plural(int64_t n, const char *word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The verdict and why, in one line.
std::string verdict_text(const CampaignResult &r) {
  const Counts n = count(r);
  const Verdict v = r.verdict();
  std::string s = verdict_name(v);
  switch (v) {
    case Verdict::kInterrupted:
      s += fmt::format(": stopped after {}; the results cover only what ran",
                       plural(r.cases, "case"));
      if (n.deviates > 0)
        s += fmt::format(" ({} found before the stop)", plural(n.deviates, "deviating clause"));
      break;
    case Verdict::kDeviations:
      s += ": " + plural(n.deviates, "deviating clause");
      break;
    case Verdict::kIncomplete:
      s += fmt::format(": {} not reached, {} under-tested", plural(n.not_reached, "clause"),
                       n.under_tested);
      break;
    case Verdict::kConformant:
      if (n.incomplete() > 0)
        s += fmt::format(" (with {} not reached or under-tested, allowed by --allow-incomplete)",
                         plural(n.incomplete(), "clause"));
      break;
  }
  // Clauses that do not apply to this kind of SUT are never counted as conforming: say so.
  if (!r.not_applicable.empty())
    s += fmt::format("; {} not judged ({})",
                     plural(static_cast<int64_t>(r.not_applicable.size()), "clause"),
                     r.not_applicable_reason);
  return s;
}

std::string counts_text(const CampaignResult &r) {
  const Counts n = count(r);
  std::string s = fmt::format("{} clauses: {} conform", r.clauses.size(), n.conforms);
  if (n.variant > 0) s += fmt::format(", {} conform to an expected variant", n.variant);
  s +=
      fmt::format(", {} deviate, {} not reached, {} under-tested, {} skipped, {} expected failures",
                  n.deviates, n.not_reached, n.under_tested, n.skipped, n.xfail);
  return s;
}

// What a clause's status means, for its row (the expected variant named).
std::string status_label(const ClauseVerdict &c) {
  if (c.status == ClauseStatus::kConformsToVariant && !c.expected_variants_matched.empty())
    return fmt::format("conforms to variant {}", fmt::join(c.expected_variants_matched, ", "));
  return clause_status_name(c.status);
}

// The minimum reaching cases per clause, as one text: "10" if uniform, "5-20" otherwise.
std::string min_cases_text(const CampaignResult &r) {
  int64_t lo = -1, hi = 0;
  for (const auto &c : r.clauses) {
    if (c.status == ClauseStatus::kSkipped) continue;
    lo = lo < 0 ? c.min_cases : std::min(lo, c.min_cases);
    hi = std::max(hi, c.min_cases);
  }
  if (hi == 0) return "1 (no tier minimum set)";
  return lo == hi ? std::to_string(hi) : fmt::format("{}-{} (per clause, see the table)", lo, hi);
}

std::string size_text(int64_t bytes) {
  return fmt::format("{} bytes", bytes);
}

// The run's identity rows, shared by every format.
std::vector<std::pair<std::string, std::string>> identity_rows(const CampaignResult &r) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"SUT", r.sut},
      {"SUT file", r.sut_identity.path},
      {"SUT SONAME", r.sut_identity.soname.empty() ? "(none)" : r.sut_identity.soname},
      {"SUT size", size_text(r.sut_identity.size)},
      {"SUT SHA-256", r.sut_identity.sha256},
      {"Product", r.product},
      {"Tier", r.tier},
      {"Accuracy policy", r.policy},
      {"Seed", fmt::format("{:#x}", r.seed)},
      {"Shard", r.shard + (r.shard_source.empty() ? "" : " (from " + r.shard_source + ")")},
      {"Ops", fmt::format("{}", fmt::join(r.ops, ", "))},
      {"Cases", std::to_string(r.cases)},
      {"Time", fmt::format("{:.1f} s", r.seconds)},
      {"Minimum cases per clause", min_cases_text(r)},
      {"aclnn-conform", r.tool_version.empty() ? "(unknown)" : r.tool_version}};
  if (!r.expected_variants.empty())
    rows.emplace_back("Expected variants", fmt::format("{}", fmt::join(r.expected_variants, ", ")));
  if (!r.clause_pattern.empty()) rows.emplace_back("Clause selection", r.clause_pattern);
  if (r.allow_incomplete) rows.emplace_back("Incomplete coverage", "allowed (--allow-incomplete)");
  if (r.interrupted) rows.emplace_back("Interrupted", "yes: SIGINT/SIGTERM stopped the run");
  if (!r.aborted.empty()) rows.emplace_back("Aborted", r.aborted);
  if (!r.unresolved_calls.empty())
    rows.emplace_back("Unresolved calls",
                      fmt::format("{} (cut off unjudged by the stop; the verdict is at best "
                                  "INCOMPLETE): {}",
                                  r.unresolved_calls.size(), fmt::join(r.unresolved_calls, "; ")));
  if (r.sut_files.size() > 1) {
    std::string files;
    for (const auto &f : r.sut_files)
      files += fmt::format("{}{} (SONAME {}, {}, SHA-256 {})", files.empty() ? "" : "; ", f.path,
                           f.soname.empty() ? "none" : f.soname, size_text(f.size), f.sha256);
    rows.emplace_back("SUT files, in load order", files);
  }
  if (!r.devices.empty()) {
    std::string devices;
    for (const auto &d : r.devices) {
      devices += fmt::format("{}device {}: {} cases, {} worker(s)", devices.empty() ? "" : "; ",
                             d.id, d.cases, d.workers);
      if (d.device_faults) devices += fmt::format(", {} device fault(s)", d.device_faults);
      if (d.out_of_memory) devices += fmt::format(", out of memory {} time(s)", d.out_of_memory);
      if (d.retired) devices += ", retired: " + d.note;
    }
    rows.emplace_back("Devices", devices);
  }
  if (!r.first_calls.empty()) {
    std::string calls;
    const auto name = [](const std::string &what) -> std::string {
      if (what == "start") return "worker start";
      if (what == "kernel load") return "kernel load before a suspect's second run";
      return what + " warm-up";
    };
    for (const auto &t : r.first_calls)
      calls += fmt::format("{}{}: {} x, mean {:.3f} s, max {:.3f} s", calls.empty() ? "" : "; ",
                           name(t.what), t.count, t.mean_seconds(), t.max_seconds);
    rows.emplace_back("First calls", calls);
  }
  return rows;
}

std::string seed_text(uint64_t seed) {
  return fmt::format("{:#x}", seed);
}

std::string variants_text(const std::vector<std::string> &v) {
  if (v.empty()) return "no known variant";
  std::vector<std::string> q;
  for (const auto &n : v) q.push_back("`" + n + "`");
  return fmt::format("matches variant{} {}", v.size() == 1 ? "" : "s", fmt::join(q, ", "));
}

std::string excerpt(const std::string &text, size_t max) {
  std::string t = text;
  for (char &c : t)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (t.size() <= max) return t;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xc0) == 0x80) --cut;  // UTF-8 boundary
  return t.substr(0, cut) + "...";
}

std::string clause_text(const std::string &id) {
  const ClauseInfo *c = find_clause(id);
  return c ? c->text : std::string();
}

// The ops in the order their clauses first appear ("common" included).
std::vector<std::string> suite_order(const CampaignResult &r) {
  std::vector<std::string> ops;
  for (const auto &c : r.clauses)
    if (std::find(ops.begin(), ops.end(), c.op) == ops.end()) ops.push_back(c.op);
  return ops;
}

std::vector<const Deviation *> deviations_of(const CampaignResult &r, const std::string &clause) {
  std::vector<const Deviation *> out;
  for (const auto &d : r.deviations)
    if (d.clause == clause) out.push_back(&d);
  return out;
}

std::string expected_got(const Deviation &d) {
  if (d.expected_status == d.got_status && d.expected_status == 0) return "";
  return fmt::format("expected status {}{}, got {}", d.expected_status,
                     d.expected_clause.empty() ? "" : " (" + d.expected_clause + ")", d.got_status);
}

// Element values of a small case's present tensors, one line per tensor.
std::vector<std::pair<std::string, std::string>> small_case_values(const Case &c) {
  std::vector<std::pair<std::string, std::string>> out;
  if (c.elements() > kSmallCase) return out;
  for (const auto &[n, t] : c.tensors) {
    if (!t.present) continue;
    std::string line;
    const auto v = t.view();
    for (int64_t i = 0; i < t.numel(); ++i) {
      line += (i ? ", " : "") + fmt::format("{:.9g}", v.at(i));
      if (aclnn_ref::is_floating(t.dtype))
        line += fmt::format(" (0x{:0{}x})", t.bits_at(i), aclnn_ref::dtype_size(t.dtype) * 2);
    }
    out.emplace_back(n, line.empty() ? "(empty)" : line);
  }
  return out;
}

bool listed_in(const std::vector<std::string> &list, const std::string &id) {
  return std::find(list.begin(), list.end(), id) != list.end();
}

std::string item_kind(const std::string &entry) {
  return find_clause(entry) ? "clause" : "property";
}

void write_file(const std::filesystem::path &p, const std::string &text) {
  std::ofstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + p.string());
  f << text;
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

int64_t min_cases_of(const CampaignResult &r) {
  int64_t m = 0;
  for (const auto &c : r.clauses) m = std::max(m, c.min_cases);
  return m;
}

}  // namespace report_detail
using namespace report_detail;

std::string xml_escape(const std::string &s) {
  return escape_markup(s, true);
}
std::string html_escape(const std::string &s) {
  return escape_markup(s, false);
}

void write_reports(const CampaignResult &r, const std::string &out_dir) {
  namespace fs = std::filesystem;
  fs::create_directories(out_dir);
  write_file(fs::path(out_dir) / "report.md", render_markdown(r));
  write_file(fs::path(out_dir) / "report.xml", render_junit(r));
  write_file(fs::path(out_dir) / "report.html", render_html(r));
}

}  // namespace aclnn_conform
