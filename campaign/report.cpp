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
    s += fmt::format("; {} not judged ({})", plural(static_cast<int64_t>(r.not_applicable.size()),
                                                    "clause"),
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
    for (const auto &t : r.first_calls)
      calls += fmt::format("{}{}: {} x, mean {:.3f} s, max {:.3f} s", calls.empty() ? "" : "; ",
                           t.what == "start" ? "worker start" : t.what + " warm-up", t.count,
                           t.mean_seconds(), t.max_seconds);
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

// A Markdown table cell (campaign/markdown.hpp: Markdown's own escaping, never HTML entities).
std::string md_cell(const std::string &s) {
  return markdown::cell(s);
}

// A fenced code block whose fence is longer than any run of backticks inside.
std::string md_code_block(const std::string &s) {
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string body = clean_utf8(s);
  if (body.empty() || body.back() != '\n') body += '\n';
  return fence + "text\n" + body + fence + "\n";
}

// Inline code span (backticks inside are replaced, the text stays one line).
std::string md_code(const std::string &s) {
  return markdown::code(s);
}

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  return fmt::format("{:.4g}", v);
}

// Ascend precision standard of an accuracy row: pass iff MERE < T and MARE < 10 T.
AscendRow ascend_row(const AccuracyStats &a) {
  AscendRow row;
  const auto t = aclnn_ref::dtype_from_name(a.dtype);
  if (!t || !aclnn_ref::is_floating(*t) || a.elements == 0) return row;
  row.known = true;
  row.threshold = aclnn_ref::ascend_threshold(*t);
  row.pass = a.mere() < row.threshold && a.mare < 10 * row.threshold;
  return row;
}

bool ascend_policy(const CampaignResult &r) {
  return r.policy == "ascend";
}

// The rule that judged an accuracy row's outputs (the policy's, and per output the rule the judge
// applied: sums are judged by the condition-aware bound, not by ulps).
std::string rule_name(const std::string &rule) {
  if (rule == "ulp") return "ulp bound (VAL-TOL-1 part 2)";
  if (rule == "sum") return "condition-aware sum bound";
  if (rule == "ascend") return "Ascend MERE/MARE (VAL-TOL-1 part 1)";
  if (rule == "exact") return "exact";
  return rule;
}
std::string judged_by(const CampaignResult &r, const AccuracyStats &a) {
  if (ascend_policy(r)) return rule_name("ascend");
  if (is_kit_policy(r.policy))
    return r.policy +
           " (vendor kit standard; value classes and integer outputs exact; outputs it "
           "cannot judge: " +
           rule_name("ulp") + ")";
  if (a.rules.empty()) return rule_name("ulp") + "; sum outputs: " + rule_name("sum");
  std::vector<std::string> names;
  for (const auto &rule : a.rules) names.push_back(rule_name(rule));
  return fmt::format("{}", fmt::join(names, "; "));
}
// Whether the ulp distance decides this row: under the ascend policy, or for sums alone, it is
// shown for information.
bool ulps_decide(const CampaignResult &r, const AccuracyStats &a) {
  if (ascend_policy(r) || is_kit_policy(r.policy)) return false;
  return a.rules.empty() ||
         std::any_of(a.rules.begin(), a.rules.end(), [](const auto &x) { return x == "ulp"; });
}

// The largest ulp distance, never a meaningless number: beyond the histogram's last bucket it
// says so, a class mismatch (e.g. NaN for a number) is named.
std::string max_ulps_text(const AccuracyStats &a) {
  if (a.elements == 0) return "-";
  if (!std::isfinite(a.max_ulps)) return "class mismatch";
  if (a.max_ulps > 256) return "> 256";
  return fmt::format("{:.4g}", a.max_ulps);
}

// The Ascend standard's cell: decisive under the ascend policy, information otherwise.
std::string ascend_text(const CampaignResult &r, const AccuracyStats &a) {
  const AscendRow row = ascend_row(a);
  if (!row.known) return "n/a";
  return ascend_policy(r)
             ? fmt::format("{} (T = {}; decides)", row.pass ? "PASS" : "FAIL", num(row.threshold))
             : fmt::format("{} (T = {}; information only, does not decide)",
                           row.pass ? "within" : "outside", num(row.threshold));
}

const char *const kAccuracyIntro =
    "Every compared output element against the oracle (ulps measured at the exact value, "
    "VAL-TOL-1). Each row names the rule that "
    "judged it; the verdict follows only that rule (the campaign's policy: ulp, ascend or a vendor "
    "kit's standard; under a kit standard the value class of every element - NaN, inf, finite - "
    "and every exact-value clause - status codes, untouched outputs, integer outputs - are judged "
    "as under ulp). Sums "
    "(LayerNormBackward's and GroupedBiasAddGrad's reductions) are judged by the condition-aware "
    "sum bound, so their ulp distances are information. The Ascend precision standard (MERE < T "
    "and MARE < 10 T) decides only under --policy ascend. \"Max ulps\" is the largest distance "
    "between values of the same class; \"> 256\" is beyond the histogram's last bucket and "
    "\"class mismatch\" means an element of another class (NaN, inf or zero where a number was "
    "due), counted in the \"class\" bucket.";

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
  int64_t total = 0;
  for (const auto &[n, t] : c.tensors)
    if (t.present) total += t.numel();
  if (total > kSmallCase) return out;
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

// The ulp standard on a row: elementwise outputs within the dtype's bound, sums within theirs.
UlpRow ulp_row(const CampaignResult &r, const AccuracyStats &a) {
  UlpRow u;
  u.mere = a.mere();
  u.mare = a.mare;
  if (a.elements == 0) return u;
  u.known = true;
  const auto t = aclnn_ref::dtype_from_name(a.dtype);
  const double bound = t ? aclnn_ref::Tolerance::ulp().ulp_bound(*t) : 2;
  const bool has_sum = std::count(a.rules.begin(), a.rules.end(), "sum") > 0;
  const bool has_ulp = a.rules.empty() || std::count(a.rules.begin(), a.rules.end(), "ulp") > 0;
  const int64_t klass = a.histogram[aclnn_ref::kBClass];
  if (has_sum && !ascend_policy(r)) {
    u.pass = a.max_bound_ratio <= 1 && klass == 0;
    u.measured =
        fmt::format("largest |err| / bound {}, {} class mismatches", num(a.max_bound_ratio), klass);
    if (has_ulp)
      u.measured += "; elementwise outputs share the row (max ulps " + max_ulps_text(a) + ")";
  } else {
    u.pass = a.max_ulps <= bound && klass == 0;
    u.measured = fmt::format("max {} ulps (bound {}), {} class mismatches", max_ulps_text(a),
                             num(bound), klass);
  }
  return u;
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

// ---------------------------------------------------------------------------------- Markdown

std::string render_markdown(const CampaignResult &r) {
  std::string s = "# aclnn-conform conformance report\n\n";
  s += "| | |\n|---|---|\n";
  for (const auto &[k, v] : identity_rows(r)) s += "| " + md_cell(k) + " | " + md_cell(v) + " |\n";
  s += "| Verdict | **" + md_cell(verdict_text(r)) + "** |\n\n";
  const auto causes = group_causes(r);
  const auto counting =
      std::count_if(causes.begin(), causes.end(), [](const CauseGroup &c) { return c.counts; });
  s += fmt::format("{}; {} found. **{}** behind **{}** (see Causes).\n\n", counts_text(r),
                   plural(static_cast<int64_t>(r.deviations.size()), "deviation"),
                   plural(counting, "cause"), plural(count(r).deviates, "deviating clause"));

  s += "## Causes\n\n";
  if (causes.empty()) s += "None: no counterexample was kept.\n\n";
  if (!causes.empty()) {
    s += "Counterexamples with the same failure signature (op, kind, status pair, message class, "
         "variant, kind of value error) are one cause, listed once with the clauses it touches; "
         "the numbers are those of the Deviations section.\n\n";
    s += "| Cause | Op | What | Clauses | Counterexamples | Counts |\n|---|---|---|---|---|---|\n";
    for (const auto &c : causes) {
      std::vector<std::string> devs;
      for (size_t i : c.deviations) devs.push_back(fmt::format("{}", i + 1));
      s +=
          fmt::format("| {} | {} | {} | {} | {} | {} |\n", c.id, md_cell(c.op), md_cell(c.title),
                      md_cell(fmt::format("{}", fmt::join(c.clauses, ", "))), fmt::join(devs, ", "),
                      c.counts ? "yes" : "no (expected variant or tolerated)");
    }
    s += "\n";
  }

  s += "## Clauses\n\n";
  s += "| Clause | Op | Status | Reached | Min | Deviations | Variants matched | Text |\n";
  s += "|---|---|---|---:|---:|---:|---|---|\n";
  for (const auto &c : r.clauses) {
    std::string st = md_cell(status_label(c));
    if (c.status == ClauseStatus::kDeviates) st = "**" + st + "**";
    std::vector<std::string> vs;
    for (const auto &v : c.variants) vs.push_back(md_code(v));
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_cell(c.id), md_cell(c.op),
                     st, c.reached, c.min_cases, c.deviations, fmt::join(vs, ", "),
                     md_cell(excerpt(clause_text(c.id))));
  }
  s += "\n";

  s += "## Coverage\n\n";
  s += "A clause is judged only when enough cases reach it: at least " + min_cases_text(r) +
       " in the " + md_cell(r.tier) +
       " tier. Below that it is *under-tested* (*not reached* with none), and the verdict is "
       "INCOMPLETE (exit 3) unless `--allow-incomplete` is given.\n\n";
  bool short_of = false;
  for (const auto &c : r.clauses) {
    if (c.status != ClauseStatus::kNotReached && c.status != ClauseStatus::kUnderTested) continue;
    s += fmt::format("- {} ({}): {} - reached by {} of the {} cases it needs{}.\n", md_code(c.id),
                     md_cell(c.op),
                     c.status == ClauseStatus::kNotReached ? "NOT REACHED" : "UNDER-TESTED",
                     c.reached, std::max<int64_t>(c.min_cases, 1),
                     r.allow_incomplete ? " (allowed by --allow-incomplete)" : "");
    short_of = true;
  }
  if (!short_of) s += "Every selected clause was reached often enough.\n";
  s += "\n";

  s += "## Deviations\n\n";
  if (r.deviations.empty()) s += "None.\n\n";
  for (size_t i = 0; i < r.deviations.size(); ++i) {
    const Deviation &d = r.deviations[i];
    s += fmt::format("### {}. {} ({})\n\n", i + 1, md_cell(d.clause), md_cell(d.op));
    s += "- Kind: " + md_cell(d.kind.empty() ? "deviation" : d.kind) + "\n";
    if (!d.expected_variant.empty())
      s += "- Expected variant: conforms to variant " + md_code(d.expected_variant) +
           " (--expect-variant), so it does not count against the verdict\n";
    s += "- Variants: " + variants_text(d.variants) + "\n";
    s += "- Case: " + md_code(d.summary.empty() ? d.minimal.describe() : d.summary) + "\n";
    if (!d.call.empty()) s += "- Call in flight: " + md_code(d.call) + "\n";
    if (!expected_got(d).empty()) s += "- Status: " + md_cell(expected_got(d)) + "\n";
    if (!d.detail.empty()) s += "- Detail: " + md_cell(d.detail) + "\n";
    if (!d.origin.empty())
      s += fmt::format("- Origin: {} (shrunk in {} steps)\n", md_cell(d.origin), d.shrink_steps);
    if (d.found_at_case > 0 || d.found_at_seconds > 0)
      s += fmt::format("- Found after: {} cases, {:.1f} s\n", d.found_at_case, d.found_at_seconds);
    s += "- Repro: " +
         (d.repro_file.empty() ? std::string("(none written)") : md_code(d.repro_file)) + "\n";
    if (!d.corpus_file.empty()) s += "- Corpus entry: " + md_code(d.corpus_file) + "\n";
    if (!d.case_id.empty())
      s += "- Re-run: " + md_code("aclnn-conform replay OUT/corpus --case " + d.case_id) + "\n";
    s += "\nFailures:\n\n" + md_code_block(d.all_failures.empty() ? d.detail : d.all_failures) +
         "\n";
  }

  s += "## Accuracy\n\n";
  if (r.accuracy.empty()) {
    s += "No outputs compared.\n\n";
  } else {
    s += std::string(kAccuracyIntro) + "\n\n";
    s += "| Op | Dtype | Judged by | Elements | Max ulps |";
    for (int b = 0; b < aclnn_ref::kBucketCount; ++b)
      s += fmt::format(" {} |", md_cell(aclnn_ref::bucket_label(b)));
    s += " MERE | MARE | Ascend standard |\n|---|---|---|---:|---:|";
    for (int b = 0; b < aclnn_ref::kBucketCount; ++b) s += "---:|";
    s += "---:|---:|---|\n";
    for (const auto &a : r.accuracy) {
      s += fmt::format("| {} | {} | {} | {} | {}{} |", md_cell(a.op), md_cell(a.dtype),
                       md_cell(judged_by(r, a)), a.elements, max_ulps_text(a),
                       ulps_decide(r, a) ? "" : " (information)");
      for (int b = 0; b < aclnn_ref::kBucketCount; ++b) s += fmt::format(" {} |", a.histogram[b]);
      s += fmt::format(" {} | {} | {} |\n", num(a.mere()), num(a.mare), ascend_text(r, a));
    }
    s += "\n";
    // Every precision standard of this run, per op and dtype (the HTML report has the pictures).
    s += "### Precision standards\n\n";
    s += "Measured in this run on the same outputs; only the judge of record (--policy " +
         r.policy +
         ") decides the verdict. Errors are against the exact value (integers are exact).\n\n";
    s += "| Op | Dtype | Standard | Rule | Measured | Result | Asks for |\n"
         "|---|---|---|---|---|---|---|\n";
    for (const auto &a : r.accuracy)
      for (const auto &x :
           precision_standards(a.precision, ulp_row(r, a), r.policy, min_cases_of(r)))
        if (x.kit.empty())
          s += fmt::format(
              "| {} | {} | {}{} | {} | {} | {} | {}{} |\n", md_cell(a.op), md_cell(a.dtype),
              md_cell(x.name), x.decides ? " (judge of record)" : "", md_cell(x.thresholds),
              md_cell(x.measured),
              x.outcome == StandardResult::Outcome::kFail ? "**fail**" : outcome_name(x.outcome),
              md_cell(x.needs), x.enough ? "" : " (too few)");
    s += "\n";
    s += render_kit_standards_markdown(r);
  }

  s += "## Skipped, expected failures, expected variants and unreached clauses\n\n";
  s += "Nothing below is a conformance statement: each entry is a property that did not run, or "
       "whose failure was tolerated or explained by an expected variant, or a clause too few "
       "cases exercised.\n\n";
  bool any = false;
  for (const auto &e : r.skipped) {
    s += "- Skipped by request (" + item_kind(e) + "): " + md_code(e) +
         " - not checked in this campaign.\n";
    any = true;
  }
  for (const auto &e : r.xfails) {
    s += "- Expected failure (xfail, " + item_kind(e) + "): " + md_code(e) +
         " - failures are tolerated and do not count against the verdict.\n";
    any = true;
  }
  for (const auto &c : r.clauses) {
    if (c.status == ClauseStatus::kSkipped)
      s += "- Clause " + md_code(c.id) + " (" + md_cell(c.op) + "): " +
           (listed_in(r.not_applicable, c.id)
                ? "NOT APPLICABLE - " + md_cell(r.not_applicable_reason) + ": not judged.\n"
                : std::string("SKIPPED ") +
                      (listed_in(r.skipped, c.id) ? "by request" : "by selection (--clauses)") +
                      " - not checked.\n");
    else if (c.status == ClauseStatus::kExpectedFailure)
      s += fmt::format(
          "- Clause {} ({}): EXPECTED FAILURE (xfail) - {} deviation(s) in {} cases "
          "tolerated{}.\n",
          md_code(c.id), md_cell(c.op), c.deviations, c.reached,
          c.first_detail.empty() ? "" : "; first: " + md_cell(c.first_detail));
    else if (c.status == ClauseStatus::kConformsToVariant)
      s += fmt::format(
          "- Clause {} ({}): CONFORMS TO VARIANT {} - {} of {} cases follow the expected variant, "
          "not the behaviour of record.\n",
          md_code(c.id), md_cell(c.op),
          md_cell(fmt::format("{}", fmt::join(c.expected_variants_matched, ", "))), c.deviations,
          c.reached);
    else if (c.status == ClauseStatus::kNotReached)
      s += "- Clause " + md_code(c.id) + " (" + md_cell(c.op) +
           "): NOT REACHED - no case exercised it.\n";
    else if (c.status == ClauseStatus::kUnderTested)
      s += fmt::format("- Clause {} ({}): UNDER-TESTED - {} of {} cases.\n", md_code(c.id),
                       md_cell(c.op), c.reached, c.min_cases);
    else
      continue;
    any = true;
  }
  if (!any) s += "None: every clause was exercised and judged.\n";
  s += "\n## Warnings\n\n";
  if (r.warnings.empty()) s += "None.\n";
  for (const auto &w : r.warnings) s += "- " + md_cell(w) + "\n";
  return s;
}

// ---------------------------------------------------------------------------------- JUnit XML

// Follows junit-10.xsd (tests/schemas/), which Jenkins' xUnit and GitLab read: run properties
// at testsuite level only, a clause's counts in its <system-out>, real times (a clause's time
// is that of the cases that reached it; cases reach several clauses, so a suite's time is its
// slowest clause's, not a sum).
std::string render_junit(const CampaignResult &r) {
  const Counts total = count(r);
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format(
      "<testsuites name=\"aclnn-conform\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
      "time=\"{:.3f}\">\n",
      r.clauses.size(), total.deviates, std::max(0.0, r.seconds));
  for (const auto &op : suite_order(r)) {
    int64_t tests = 0, failures = 0, skipped = 0, reached = 0, deviations = 0;
    double seconds = 0;
    for (const auto &c : r.clauses) {
      if (c.op != op) continue;
      ++tests;
      reached += c.reached;
      deviations += c.deviations;
      seconds = std::max(seconds, c.seconds);
      if (c.status == ClauseStatus::kDeviates)
        ++failures;
      else if (c.status != ClauseStatus::kConforms && c.status != ClauseStatus::kConformsToVariant)
        ++skipped;
    }
    s += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
        "time=\"{:.3f}\">\n",
        attr(op), tests, failures, skipped, seconds);
    s += "    <properties>\n";
    std::vector<std::pair<std::string, std::string>> props = {
        {"sut", r.sut},
        {"sut.path", r.sut_identity.path},
        {"sut.soname", r.sut_identity.soname},
        {"sut.size", std::to_string(r.sut_identity.size)},
        {"sut.sha256", r.sut_identity.sha256},
        {"product", r.product},
        {"tier", r.tier},
        {"policy", r.policy},
        {"seed", seed_text(r.seed)},
        {"shard", r.shard},
        {"version", r.tool_version},
        {"cases", std::to_string(r.cases)},
        {"reached", std::to_string(reached)},
        {"deviations", std::to_string(deviations)},
        {"verdict", verdict_text(r)}};
    if (!r.expected_variants.empty())
      props.emplace_back("expected_variants",
                         fmt::format("{}", fmt::join(r.expected_variants, ",")));
    // Every precision standard on each of this op's dtypes, the vendor kits' included.
    for (const auto &a : r.accuracy) {
      if (a.op != op) continue;
      for (const auto &x :
           precision_standards(a.precision, ulp_row(r, a), r.policy, min_cases_of(r)))
        props.emplace_back("precision." + a.dtype + "." + x.id,
                           fmt::format("{}{}: {}", outcome_name(x.outcome),
                                       x.decides ? " (decides)" : "", x.measured));
    }
    for (const auto &[k, v] : props)
      s += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", attr(k), attr(v));
    s += "    </properties>\n";
    for (const auto &c : r.clauses) {
      if (c.op != op) continue;
      s += fmt::format("    <testcase classname=\"aclnn.{}\" name=\"{}\" time=\"{:.3f}\">\n",
                       attr(c.op), attr(c.id), std::max(0.0, c.seconds));
      switch (c.status) {
        case ClauseStatus::kDeviates: {
          const auto devs = deviations_of(r, c.id);
          std::string type = "deviation", body;
          if (!devs.empty() && !devs.front()->kind.empty()) type = devs.front()->kind;
          body = fmt::format("{} of {} cases deviate; {}.\n", c.deviations, c.reached,
                             variants_text(c.variants));
          for (const Deviation *d : devs) {
            body += "\ncase: " + (d->summary.empty() ? d->minimal.describe() : d->summary) + "\n";
            if (!d->call.empty()) body += "call: " + d->call + "\n";
            if (!expected_got(*d).empty()) body += expected_got(*d) + "\n";
            if (!d->repro_file.empty()) body += "repro: " + d->repro_file + "\n";
            if (!d->case_id.empty())
              body += "re-run: aclnn-conform replay --case " + d->case_id + "\n";
            body += d->all_failures.empty() ? d->detail + "\n" : d->all_failures + "\n";
          }
          std::string message = c.first_detail;
          if (message.empty() && !devs.empty()) message = devs.front()->detail;
          if (message.empty()) message = "deviates";
          s += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                           attr(message), attr(type), html_escape(body));
          break;
        }
        case ClauseStatus::kNotReached:
          s += fmt::format(
              "      <skipped message=\"{}\"/>\n",
              attr(fmt::format("not reached: 0 of {} cases{}", std::max<int64_t>(c.min_cases, 1),
                               r.interrupted ? " (run interrupted)" : "")));
          break;
        case ClauseStatus::kUnderTested:
          s +=
              fmt::format("      <skipped message=\"{}\"/>\n",
                          attr(fmt::format("under-tested: {} of {} cases{}", c.reached, c.min_cases,
                                           r.interrupted ? " (run interrupted)" : "")));
          break;
        case ClauseStatus::kSkipped:
          s += fmt::format("      <skipped message=\"{}\"/>\n",
                           listed_in(r.not_applicable, c.id) ? attr(r.not_applicable_reason)
                           : listed_in(r.skipped, c.id)      ? "skipped by request"
                                                             : "not selected (--clauses)");
          break;
        case ClauseStatus::kExpectedFailure:
          s += "      <skipped message=\"expected failure (xfail)\"/>\n";
          break;
        case ClauseStatus::kConformsToVariant:
        case ClauseStatus::kConforms:
          break;
      }
      s += fmt::format("      <system-out>{}</system-out>\n",
                       html_escape(fmt::format(
                           "{}: reached by {} cases (minimum {}), {} deviate{}", status_label(c),
                           c.reached, c.min_cases, c.deviations,
                           c.variants.empty() ? std::string() : "; " + variants_text(c.variants))));
      s += "    </testcase>\n";
    }
    s += "  </testsuite>\n";
  }
  s += "</testsuites>\n";
  return s;
}

void write_reports(const CampaignResult &r, const std::string &out_dir) {
  namespace fs = std::filesystem;
  fs::create_directories(out_dir);
  write_file(fs::path(out_dir) / "report.md", render_markdown(r));
  write_file(fs::path(out_dir) / "report.xml", render_junit(r));
  write_file(fs::path(out_dir) / "report.html", render_html(r));
}

}  // namespace aclnn_conform
