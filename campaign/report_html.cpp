// report.html: one self-contained page a kernel engineer reads top-down. The summary first
// (verdict, coverage, an op x dtype grid), a table of contents, the causes (counterexamples of one
// failure signature grouped), then one section per op: its clauses with the deviating ones
// first, each linked to its counterexamples, each counterexample linked to its cause, repro and
// corpus entry; its precision standards and pictures per dtype. Inline CSS and SVG only: no
// scripts, no network. Counterexamples beyond a cause's first are folded in <details>, which
// browsers open when a link points inside.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "campaign/causes.hpp"
#include "campaign/precision.hpp"
#include "campaign/report.hpp"
#include "campaign/report_detail.hpp"
#include "campaign/svg.hpp"
#include "properties/op.hpp"
#include "reference/compare.hpp"
#include "reference/dtype.hpp"
#include "reference/kit_standards.hpp"

namespace aclnn_conform {
namespace {

using namespace report_detail;

constexpr const char *kCss =
    R"(body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;color:#222;max-width:1360px;padding:0 1em;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.3em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:1.8em}
h3{margin-top:1.4em}h4{margin:1em 0 .3em}
table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;font-size:.9em}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{font-size:1.3em;font-weight:bold;padding:.4em .8em;display:inline-block;border-radius:4px}
.ok{background:#d8f3d8;color:#145214}.bad{background:#fadada;color:#7a1010}.warn{background:#fff3c4;color:#6b5200}
.st{font-weight:bold;border-radius:3px;padding:0 .4em;white-space:nowrap}
.st-conforms,.st-pass{background:#d8f3d8;color:#145214}.st-deviates,.st-fail{background:#fadada;color:#7a1010}
.st-notreached,.st-none,.st-notexercised,.st-notjudged{background:#eee;color:#555}.st-skipped{background:#fff3c4;color:#6b5200}
.st-xfail{background:#ffe0c2;color:#7a3d00}.st-undertested{background:#ffe9a8;color:#6b5200}
.st-variant,.st-info{background:#dbe9fb;color:#123c73}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
code{background:#f3f3f3;padding:0 .2em;word-break:break-word}
.cause{border:1px solid #e0b4b4;border-radius:4px;padding:.2em 1em .6em;margin:1em 0}
.cause.quiet{border-color:#b4c8e0}
details.dev{border-left:3px solid #e0b4b4;margin:.5em 0;padding:.1em .8em}
details.dev>summary{cursor:pointer;font-weight:600}
.toc{columns:2;max-width:900px}.toc li{break-inside:avoid}
.grid td{text-align:center}.grid td.opname{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}.chart{border:1px solid #ddd;padding:.5em}
svg text{font-family:sans-serif;font-size:10px}
.muted{color:#666}.small{font-size:.85em}
table.standards td,table.standards th{font-size:.8em;padding:.15em .4em}pre.finding{margin:.3em 0;font-size:.85em}
td.id{white-space:nowrap}
.precrow{display:flex;gap:1em;align-items:flex-start}.prectable{flex:1 1 0;min-width:0}
.precharts{flex:0 0 482px;display:flex;flex-direction:column;gap:.5em}.precharts .chart{overflow:hidden}
table.overview td,table.overview th{font-size:.78em;padding:.2em .3em}table.overview .st{white-space:normal}
)";

std::string h(const std::string &s) {
  return html_escape(s);
}

std::string status_span(const ClauseVerdict &c) {
  return fmt::format("<span class=\"st st-{}\">{}</span>", status_css(c.status),
                     h(status_label(c)));
}

std::string badge(const std::string &css, const std::string &text) {
  return fmt::format("<span class=\"st st-{}\">{}</span>", css, h(text));
}

std::string outcome_css(StandardResult::Outcome o) {
  switch (o) {
    case StandardResult::Outcome::kPass:
      return "pass";
    case StandardResult::Outcome::kFail:
      return "fail";
    case StandardResult::Outcome::kInfo:
      return "info";
    case StandardResult::Outcome::kNotExercised:
      return "notexercised";
    case StandardResult::Outcome::kNotJudged:
      return "notjudged";
  }
  return "info";
}

// Anchor names: clause IDs, op names and dtypes are [A-Za-z0-9_-] already.
std::string anchor(const std::string &s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out;
}
std::string op_anchor(const std::string &op) {
  return "op-" + anchor(op);
}
std::string clause_anchor(const std::string &id) {
  return "clause-" + anchor(id);
}
std::string dev_anchor(size_t i) {
  return fmt::format("dev-{}", i + 1);
}
std::string prec_anchor(const std::string &op, const std::string &dtype) {
  return "prec-" + anchor(op) + "-" + anchor(dtype);
}
// A standard's column header in the overview table (the full names are in each op's section).
std::string short_name(const std::string &id) {
  static const std::map<std::string, std::string> names = {{"ulp", "ulp"},
                                                           {"ascend", "MERE/MARE"},
                                                           {"double-thousandth", "1e-3"},
                                                           {"double-ten-thousandth", "1e-4"},
                                                           {"rmse", "RMSE"},
                                                           {"small-value", "small values"},
                                                           {"inf-nan", "inf/NaN"},
                                                           {"competitor-mere", "vs MERE"},
                                                           {"competitor-mare", "vs MARE"},
                                                           {"competitor-rmse", "vs RMSE"},
                                                           {"competitor-small", "vs small"}};
  const auto it = names.find(id);
  return it == names.end() ? id : it->second;
}

std::string link(const std::string &target, const std::string &text) {
  return "<a href=\"#" + attr(target) + "\">" + text + "</a>";
}

// The dtype a counterexample is about: its first present tensor's.
std::string dtype_of(const Deviation &d) {
  for (const auto &[n, t] : d.minimal.tensors)
    if (t.present) return std::string(aclnn_ref::dtype_name(t.dtype));
  return "";
}

int dtype_rank(const std::string &d) {
  static const std::vector<std::string> order = {"fp32", "fp16", "bf16", "other"};
  const auto it = std::find(order.begin(), order.end(), d);
  return it == order.end() ? 100 : static_cast<int>(it - order.begin());
}

// Statuses in the order a reader wants them: what is wrong first.
int status_rank(ClauseStatus s) {
  switch (s) {
    case ClauseStatus::kDeviates:
      return 0;
    case ClauseStatus::kUnderTested:
      return 1;
    case ClauseStatus::kNotReached:
      return 2;
    case ClauseStatus::kExpectedFailure:
      return 3;
    case ClauseStatus::kConformsToVariant:
      return 4;
    case ClauseStatus::kSkipped:
      return 5;
    case ClauseStatus::kConforms:
      return 6;
  }
  return 7;
}

// The standard of record's outcome on a row (ulp or ascend, as --policy).
StandardResult::Outcome record_outcome(const std::vector<StandardResult> &st) {
  for (const auto &s : st)
    if (s.decides) return s.outcome;
  return StandardResult::Outcome::kInfo;
}

struct Page {
  const CampaignResult &r;
  std::vector<CauseGroup> causes;
  std::map<size_t, size_t> cause_of_dev;  // deviation index -> cause index
  std::vector<std::string> ops;           // op sections, in the run's order
  std::string s;

  explicit Page(const CampaignResult &res) : r(res), causes(group_causes(res)) {
    for (size_t c = 0; c < causes.size(); ++c)
      for (size_t d : causes[c].deviations) cause_of_dev[d] = c;
    for (const auto &op : suite_order(r))
      if (op != "common") ops.push_back(op);
    // Every op the result speaks of gets a section, also one whose clauses were not selected.
    std::vector<std::string> more = r.ops;
    for (const auto &a : r.accuracy) more.push_back(a.op);
    for (const auto &d : r.deviations) more.push_back(d.op);
    for (const auto &op : more)
      if (op != "common" && std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
    // Ops with deviating clauses first (sections, contents and grid alike), else the run's order.
    std::stable_sort(ops.begin(), ops.end(), [&](const auto &a, const auto &b) {
      auto deviates = [&](const std::string &op) {
        return std::any_of(r.clauses.begin(), r.clauses.end(), [&](const auto &c) {
          return c.op == op && c.status == ClauseStatus::kDeviates;
        });
      };
      return deviates(a) > deviates(b);
    });
  }

  std::vector<const AccuracyStats *> rows_of(const std::string &op) const {
    std::vector<const AccuracyStats *> v;
    for (const auto &a : r.accuracy)
      if (a.op == op) v.push_back(&a);
    std::stable_sort(v.begin(), v.end(), [](const auto *a, const auto *b) {
      return dtype_rank(a->dtype) != dtype_rank(b->dtype)
                 ? dtype_rank(a->dtype) < dtype_rank(b->dtype)
                 : a->dtype < b->dtype;
    });
    return v;
  }

  // The grid's columns: the floating dtypes the ops compute in, then "other" for counterexamples
  // whose first tensor has another dtype (an invalid call's int32, fp64, ...).
  std::vector<std::string> dtypes() const {
    std::set<std::string> seen;
    for (const auto &a : r.accuracy)
      if (dtype_rank(a.dtype) < 3) seen.insert(a.dtype);
    for (const auto &d : r.deviations)
      if (const auto t = dtype_of(d); !t.empty()) seen.insert(dtype_rank(t) < 3 ? t : "other");
    std::vector<std::string> v(seen.begin(), seen.end());
    std::stable_sort(v.begin(), v.end(), [](const auto &a, const auto &b) {
      return dtype_rank(a) != dtype_rank(b) ? dtype_rank(a) < dtype_rank(b) : a < b;
    });
    return v;
  }

  void head() {
    s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>aclnn-conform report: " +
         h(r.sut) + "</title>\n<style>\n" + kCss + "</style>\n</head>\n<body>\n";
  }

  void summary() {
    s += "<h1 id=\"summary\">aclnn-conform conformance report</h1>\n";
    s += "<p class=\"muted\">SUT <code>" + h(r.sut) + "</code> &middot; " + h(r.product) +
         " &middot; tier " + h(r.tier) + " &middot; policy " + h(r.policy) + " &middot; seed " +
         h(fmt::format("{:#x}", r.seed)) + " &middot; " +
         h(fmt::format("{} cases, {:.1f} s", r.cases, r.seconds)) +
         (r.competitor.empty() ? "" : " &middot; competitor <code>" + h(r.competitor) + "</code>") +
         "</p>\n";
    const Verdict v = r.verdict();
    s += fmt::format("<p class=\"verdict {}\">{}</p>\n",
                     v == Verdict::kConformant   ? "ok"
                     : v == Verdict::kDeviations ? "bad"
                                                 : "warn",
                     h(verdict_text(r)));
    const Counts n = count(r);
    const auto counting =
        std::count_if(causes.begin(), causes.end(), [](const auto &c) { return c.counts; });
    s += fmt::format("<p><b>{}</b> behind <b>{}</b> ({} kept counterexamples). {}.</p>\n",
                     h(plural(counting, "cause")), h(plural(n.deviates, "deviating clause")),
                     r.deviations.size(), h(counts_text(r)));
    // Coverage in one line.
    int64_t reached = 0, judged = 0;
    for (const auto &c : r.clauses) {
      if (c.status == ClauseStatus::kSkipped) continue;
      ++judged;
      if (c.reached >= std::max<int64_t>(c.min_cases, 1)) ++reached;
    }
    s += fmt::format(
        "<p>Coverage: {} of {} selected clauses reached by at least their minimum of cases "
        "({}); see {}.</p>\n",
        reached, judged, h(min_cases_text(r)), link("coverage", "Coverage"));
    grid();
  }

  // Op x dtype: fail where a counted cause's counterexample has that dtype or the standard of
  // record fails on the dtype's outputs; pass where outputs of that dtype were judged and
  // nothing failed.
  void grid() {
    const auto dts = dtypes();
    s += "<table class=\"grid\">\n<tr><th>Op</th><th>Clauses</th>";
    for (const auto &d : dts) s += "<th>" + h(d) + "</th>";
    s += "</tr>\n";
    const int64_t min_cases = min_cases_of(r);
    for (const auto &op : ops) {
      int64_t dev = 0, total = 0;
      for (const auto &c : r.clauses)
        if (c.op == op) {
          ++total;
          dev += c.status == ClauseStatus::kDeviates;
        }
      s += "<tr><td class=\"opname\">" + link(op_anchor(op), h(op)) + "</td><td>" +
           (total == 0
                ? std::string("<span class=\"small\">judged under its family's clauses</span>")
            : dev ? badge("fail", fmt::format("{} of {} deviate", dev, total))
                  : badge("pass", fmt::format("none of {} deviates", total))) +
           "</td>";
      for (const auto &d : dts) {
        std::set<size_t> failing;
        for (size_t i = 0; i < r.deviations.size(); ++i) {
          const auto &dv = r.deviations[i];
          const std::string t = dtype_of(dv);
          const std::string column = dtype_rank(t) < 3 ? t : "other";
          if (dv.op == op && column == d && causes[cause_of_dev[i]].counts)
            failing.insert(cause_of_dev[i]);
        }
        const AccuracyStats *row = nullptr;
        for (const auto *a : rows_of(op))
          if (a->dtype == d) row = a;
        bool record_fails = false, judged = false;
        if (row && row->elements > 0) {
          judged = true;
          const auto st =
              precision_standards(row->precision, ulp_row(r, *row), r.policy, min_cases);
          record_fails = record_outcome(st) == StandardResult::Outcome::kFail;
        }
        std::string cell;
        if (!failing.empty() || record_fails) {
          std::string why;
          if (!failing.empty()) why = plural(static_cast<int64_t>(failing.size()), "cause");
          if (record_fails) why += std::string(why.empty() ? "" : " + ") + r.policy;
          cell = badge("fail", why);
        } else if (judged) {
          cell = badge("pass", "pass");
        } else {
          cell = badge("none", "not judged");
        }
        const std::string target = row ? prec_anchor(op, d) : op_anchor(op);
        s += "<td>" + link(target, cell) + "</td>";
      }
      s += "</tr>\n";
    }
    s += "</table>\n<p class=\"small muted\">A cell names the causes (counted against the "
         "verdict) with a kept counterexample (at most 3 per clause, so a dtype can miss a cause "
         "its clause has) of that op whose first tensor has that dtype (\"other\": "
         "any non-floating dtype), and the accuracy policy when the standard of record "
         "(--policy " +
         h(r.policy) +
         ") fails on that dtype's compared outputs; \"not judged\": no output of that dtype was "
         "compared and nothing deviated.</p>\n";
  }

  void toc() {
    s += "<h2 id=\"toc\">Contents</h2>\n<ul class=\"toc\">\n";
    s += "<li>" + link("summary", "Summary") + "</li>\n";
    s += "<li>" + link("causes", fmt::format("Causes ({})", causes.size())) + "</li>\n";
    for (const auto &op : ops) {
      int64_t dev = 0;
      for (const auto &c : r.clauses) dev += c.op == op && c.status == ClauseStatus::kDeviates;
      s += "<li>" + link(op_anchor(op), h(op)) +
           (dev ? " " + badge("fail", fmt::format("{} deviate", dev)) : "") + "<ul>";
      s += "<li>" + link(op_anchor(op) + "-clauses", "Clauses") + "</li>";
      for (const auto *a : rows_of(op))
        s += "<li>" + link(prec_anchor(op, a->dtype), "Precision " + h(a->dtype)) + "</li>";
      s += "</ul></li>\n";
    }
    s += "<li>" + link(op_anchor("common"), "Common clauses (ABI, values, protocol)") + "</li>\n";
    s += "<li>" + link("standards", "Precision standards, all ops") + "</li>\n";
    s += "<li>" + link("coverage", "Coverage") + "</li>\n";
    s += "<li>" + link("skipped", "Skipped, expected failures, variants, unreached") + "</li>\n";
    s += "<li>" + link("warnings", "Warnings") + "</li>\n";
    s += "<li>" + link("run", "Run and SUT identity") + "</li>\n";
    s += "</ul>\n";
  }

  std::string dev_links(const std::string &clause) const {
    std::vector<std::string> v;
    for (size_t i = 0; i < r.deviations.size(); ++i)
      if (r.deviations[i].clause == clause)
        v.push_back(link(dev_anchor(i), fmt::format("#{}", i + 1)));
    return fmt::format("{}", fmt::join(v, " "));
  }
  std::string cause_links(const std::string &clause) const {
    std::vector<std::string> v;
    for (const auto &c : causes)
      if (std::count(c.clauses.begin(), c.clauses.end(), clause)) v.push_back(link(c.id, h(c.id)));
    return fmt::format("{}", fmt::join(v, " "));
  }

  void deviation_card(size_t i, bool open) {
    const Deviation &d = r.deviations[i];
    const OpDescriptor *op = find_op(d.op);
    s += fmt::format("<details class=\"dev\" id=\"{}\"{}>\n<summary>#{} {} &ndash; {}</summary>\n",
                     dev_anchor(i), open ? " open" : "", i + 1, h(d.clause),
                     h(excerpt(d.summary.empty() ? d.minimal.describe() : d.summary, 120)));
    s += "<table>\n";
    s += "<tr><th>Clause</th><td>" +
         link(clause_anchor(d.clause), "<code>" + h(d.clause) + "</code>") + " (" +
         h(d.kind.empty() ? "deviation" : d.kind) + ")</td></tr>\n";
    if (!d.expected_variant.empty())
      s += "<tr><th>Expected variant</th><td>conforms to variant <code>" + h(d.expected_variant) +
           "</code> (--expect-variant): does not count against the verdict</td></tr>\n";
    s += "<tr><th>Variants</th><td>" + h(variants_text(d.variants)) + "</td></tr>\n";
    s += "<tr><th>Case</th><td><code>" + h(d.summary.empty() ? d.minimal.describe() : d.summary) +
         "</code></td></tr>\n";
    if (!d.call.empty())
      s += "<tr><th>Call in flight</th><td><code>" + h(d.call) + "</code></td></tr>\n";
    if (!expected_got(d).empty())
      s += "<tr><th>Status</th><td>" + h(expected_got(d)) + "</td></tr>\n";
    if (!d.origin.empty())
      s += "<tr><th>Origin</th><td>" +
           h(fmt::format("{} (shrunk in {} steps)", d.origin, d.shrink_steps)) + "</td></tr>\n";
    if (d.found_at_case > 0 || d.found_at_seconds > 0)
      s += "<tr><th>Found after</th><td>" +
           h(fmt::format("{} cases, {:.1f} s", d.found_at_case, d.found_at_seconds)) +
           "</td></tr>\n";
    // Files next to the report: relative links, no network.
    s += "<tr><th>Repro</th><td>" +
         (d.repro_file.empty()
              ? std::string("(none written)")
              : "<a href=\"" + attr(d.repro_file) + "\"><code>" + h(d.repro_file) + "</code></a>") +
         "</td></tr>\n";
    if (!d.corpus_file.empty())
      s += "<tr><th>Corpus entry</th><td><a href=\"" + attr(d.corpus_file) + "\"><code>" +
           h(d.corpus_file) + "</code></a></td></tr>\n";
    if (!d.case_id.empty())
      s += "<tr><th>Re-run</th><td><code>aclnn-conform replay OUT/corpus --case " + h(d.case_id) +
           "</code></td></tr>\n";
    const auto values = small_case_values(d.minimal);
    for (const auto &[name, line] : values) {
      const bool output = op && std::count(op->outputs.begin(), op->outputs.end(), name);
      s += "<tr><th>" + h(name) +
           (output ? "<br><span class=\"small muted\">output: the bytes it held before the call "
                     "(fill), not a result</span>"
                   : "") +
           "</th><td><code>" + h(line) + "</code></td></tr>\n";
    }
    if (values.empty())
      s += "<tr><th>Inputs</th><td>(more than " + std::to_string(kSmallCase) +
           " elements: see the repro or the corpus entry)</td></tr>\n";
    s += "</table>\n<pre>" + h(d.all_failures.empty() ? d.detail : d.all_failures) +
         "</pre>\n</details>\n";
  }

  void cause_list() {
    s += "<h2 id=\"causes\">Causes</h2>\n";
    s += "<p>Counterexamples with the same failure signature (op, kind, status pair, message "
         "class, variant, kind of value error) are one cause, listed once with every clause it "
         "touches. Causes that count against the verdict come first, then by the number of "
         "clauses. Each counterexample is listed under its cause only; clause rows link "
         "here.</p>\n";
    if (causes.empty()) s += "<p>None: no counterexample was kept.</p>\n";
    if (causes.empty()) return;
    s += "<table>\n<tr><th>Cause</th><th>Op</th><th>What</th><th>Clauses</th><th>Counterexamples</"
         "th></tr>\n";
    for (const auto &c : causes) {
      std::vector<std::string> cl, dv;
      for (const auto &id : c.clauses) cl.push_back(link(clause_anchor(id), h(id)));
      for (size_t i : c.deviations) dv.push_back(link(dev_anchor(i), fmt::format("#{}", i + 1)));
      s += fmt::format(
          "<tr><td class=\"id\">{}</td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td></tr>\n",
          link(c.id, h(c.id)), h(c.op), h(c.title),
          c.counts ? "" : " " + badge("variant", "explained or tolerated"), fmt::join(cl, ", "),
          fmt::join(dv, " "));
    }
    s += "</table>\n";
  }

  void cause_cards(const std::string &op) {
    for (const auto &c : causes) {
      if (c.op != op) continue;
      std::vector<std::string> cl;
      for (const auto &id : c.clauses) cl.push_back(link(clause_anchor(id), h(id)));
      s += fmt::format("<div class=\"cause{}\" id=\"{}\">\n<h4>{}: {}</h4>\n",
                       c.counts ? "" : " quiet", attr(c.id), h(c.id), h(c.title));
      s += fmt::format(
          "<p class=\"small\" title=\"signature: {3}\">{0}, touching {1}: {2}.{4}</p>\n",
          h(plural(static_cast<int64_t>(c.deviations.size()), "counterexample")),
          h(plural(static_cast<int64_t>(c.clauses.size()), "clause")), fmt::join(cl, ", "),
          h(c.signature),
          c.counts ? ""
                   : " Every counterexample is explained by an expected variant or tolerated.");
      // The first counterexample's finding in one line; the cards stay folded (a link to one
      // opens it), so 100 counterexamples do not make a page of 100 screens.
      const Deviation &first = r.deviations[c.deviations.front()];
      s += "<pre class=\"finding\">" + h(excerpt(first.detail, 300)) + "</pre>\n";
      for (size_t i : c.deviations) deviation_card(i, false);
      s += "</div>\n";
    }
  }

  void clause_table(const std::string &op) {
    std::vector<const ClauseVerdict *> cs;
    for (const auto &c : r.clauses)
      if (c.op == op) cs.push_back(&c);
    std::stable_sort(cs.begin(), cs.end(), [](const auto *a, const auto *b) {
      return status_rank(a->status) < status_rank(b->status);
    });
    s += "<table id=\"" + attr(op_anchor(op)) +
         "-clauses\">\n<tr><th>Clause</th><th>Status</th>"
         "<th>Reached / min</th><th>Deviations</th><th>Causes</th><th>Counterexamples</th>"
         "<th>Variants matched</th><th>Text</th></tr>\n";
    for (const auto *c : cs)
      s += fmt::format(
          "<tr id=\"{}\"><td><code>{}</code></td><td>{}</td><td class=\"n\">{} / {}</td>"
          "<td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td title=\"{}\">{}</td></tr>\n",
          attr(clause_anchor(c->id)), h(c->id), status_span(*c), c->reached, c->min_cases,
          c->deviations, cause_links(c->id), dev_links(c->id),
          h(fmt::format("{}", fmt::join(c->variants, ", "))), attr(clause_text(c->id)),
          h(excerpt(clause_text(c->id))));
    s += "</table>\n";
  }

  void standards_table(const std::vector<StandardResult> &st) {
    s += "<table class=\"standards\">\n<tr><th>Standard</th><th>Rule (this "
         "dtype)</th><th>Measured</th><th>Result</th>"
         "<th>Asks for</th></tr>\n";
    for (const auto &x : st)
      if (x.kit.empty())
        s += fmt::format("<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td></tr>\n",
                         h(x.name), x.decides ? " <b>(judge of record)</b>" : "", h(x.thresholds),
                         h(x.measured), badge(outcome_css(x.outcome), outcome_name(x.outcome)),
                         h(x.needs), x.enough ? "" : " " + badge("undertested", "too few"));
    s += "</table>\n";
  }

  void precision(const std::string &op) {
    const int64_t min_cases = min_cases_of(r);
    for (const auto *a : rows_of(op)) {
      s += "<h4 id=\"" + attr(prec_anchor(op, a->dtype)) + "\">Precision: " + h(op) + " " +
           h(a->dtype) + "</h4>\n";
      const PrecisionStats &p = a->precision;
      s += fmt::format(
          "<p class=\"small\">{} compared elements ({}); {} cases with outputs of this dtype in "
          "the "
          "precision tallies. Judged by: {}.</p>\n",
          a->elements, h(judged_by(r, *a)), p.cases,
          h(ulps_decide(r, *a) ? "the ulp bound" : judged_by(r, *a)));
      // The standards and the pictures side by side: one screen per op and dtype.
      s += "<div class=\"precrow\"><div class=\"prectable\">\n";
      standards_table(precision_standards(p, ulp_row(r, *a), r.policy, min_cases));
      s += "</div>\n";
      const bool decides = ulps_decide(r, *a);
      s += "<div class=\"precharts\">\n<div class=\"chart\"><div><b>ULP errors</b> (value of "
           "record; " +
           h(fmt::format("{} elements, max {}", a->elements, max_ulps_text(*a))) +
           (decides ? "" : "; information: not the verdict rule") + ")</div>\n" +
           histogram_svg(*a, decides) + "\n</div>\n";
      const auto t = aclnn_ref::dtype_from_name(a->dtype);
      const bool sums = p.axis == "condition number";
      const std::string sc =
          scatter_svg(p, sums || !t ? 0 : aclnn_ref::Tolerance::ulp().ulp_bound(*t));
      if (!sc.empty())
        s += fmt::format(
            "<div class=\"chart\"><div><b>Error against {}</b> ({} sampled elements in blue, the "
            "{} largest errors in red)</div>\n{}\n</div>\n",
            h(p.axis), p.samples.size(), p.worst.size(), sc);
      else
        s += "<div class=\"chart muted small\">No error picture: this output has no input of its "
             "shape to plot against and is not a sum.</div>\n";
      s += "</div></div>\n";
      kit_table(precision_standards(p, ulp_row(r, *a), r.policy, min_cases));
    }
  }

  // The vendor kits' standards of one op and dtype: cases judged and passed, the worst case.
  void kit_table(const std::vector<StandardResult> &st) {
    s += "<table class=\"standards\">\n<tr><th>Vendor kit standard</th><th>Rule (this "
         "dtype)</th><th>Cases and worst case</th><th>Result</th><th>Source</th></tr>\n";
    for (const auto &x : st)
      if (!x.kit.empty())
        s += fmt::format(
            "<tr><td>{}{}<br><span class=\"small\">{}</span></td><td>{}</td><td>{}</td>"
            "<td>{}</td><td class=\"small\">{}</td></tr>\n",
            h(x.id), x.decides ? " <b>(decides)</b>" : "", h(x.name), h(x.thresholds),
            h(x.measured), badge(outcome_css(x.outcome), outcome_name(x.outcome)), h(x.source));
    s += "</table>\n";
  }

  void op_section(const std::string &op) {
    int64_t dev = 0, total = 0;
    for (const auto &c : r.clauses)
      if (c.op == op) {
        ++total;
        dev += c.status == ClauseStatus::kDeviates;
      }
    s += "<h2 id=\"" + attr(op_anchor(op)) + "\">" + h(op == "common" ? "Common clauses" : op) +
         "</h2>\n";
    const auto n_causes =
        std::count_if(causes.begin(), causes.end(), [&](const auto &c) { return c.op == op; });
    s += fmt::format("<p>{} of {} clauses deviate; {} with counterexamples here. {}</p>\n", dev,
                     total, h(plural(n_causes, "cause")), link("toc", "Back to contents"));
    s += "<h3>Clauses</h3>\n";
    clause_table(op);
    if (n_causes > 0) {
      s += "<h3>Causes and counterexamples</h3>\n";
      cause_cards(op);
    }
    if (op != "common" && !rows_of(op).empty()) {
      s += "<h3>Precision by dtype</h3>\n";
      precision(op);
    }
  }

  void standards_overview() {
    s += "<h2 id=\"standards\">Precision standards, all ops</h2>\n";
    s += "<p>Every standard below is measured in this one run, on the same compared outputs. Only "
         "the judge of record (--policy " +
         h(r.policy) +
         ") decides the verdict; the others are reported. Errors are against the exact value "
         "(the oracle's, before its one rounding to the output dtype; integers are exact). "
         "Thresholds: ulp &le; 1 "
         "(fp16, bf16) or 2 (fp32) for elementwise outputs, condition-aware bound for sums; Ascend "
         "MERE &lt; T and MARE &lt; 10 T with T = 2^-10 fp16, 2^-7 bf16, 2^-13 fp32; double "
         "thousandth / ten-thousandth: share of elements with relative error &gt; 1e-3 / 1e-4 "
         "below 1e-3 / 1e-4 (elements with |exact| at least the small-value threshold); small "
         "values: |exact| below 2^-11 fp16, 2^-8 bf16, 2^-14 fp32, an error when |err| &gt; "
         "2^-16 (fp16, bf16) or 2^-30 (fp32); inf/NaN: every element in the exact value's class; "
         "with --competitor: SUT/competitor ratios MERE &le; 2, MARE &le; 10, RMSE &le; 2, "
         "small-value errors &le; 2 on the cases both ran successfully.</p>\n";
    if (r.accuracy.empty()) {
      s += "<p>No outputs compared.</p>\n";
      return;
    }
    const int64_t min_cases = min_cases_of(r);
    std::vector<std::string> ids, names;
    for (const auto &op : ops)
      for (const auto *a : rows_of(op))
        for (const auto &x : precision_standards(a->precision, ulp_row(r, *a), r.policy, min_cases))
          if (x.kit.empty() && std::find(ids.begin(), ids.end(), x.id) == ids.end()) {
            ids.push_back(x.id);
            names.push_back(short_name(x.id));
          }
    s += "<table class=\"overview\">\n<tr><th>Op</th><th>Dtype</th><th>Cases</th><th>Elements</th>";
    for (const auto &n : names) s += "<th>" + h(n) + "</th>";
    s += "</tr>\n";
    for (const auto &op : ops)
      for (const auto *a : rows_of(op)) {
        const auto st = precision_standards(a->precision, ulp_row(r, *a), r.policy, min_cases);
        s += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
                         link(prec_anchor(op, a->dtype), h(op)), h(a->dtype), a->precision.cases,
                         a->elements);
        for (const auto &id : ids) {
          const auto it =
              std::find_if(st.begin(), st.end(), [&](const auto &x) { return x.id == id; });
          if (it == st.end()) {
            s += "<td></td>";
            continue;
          }
          s += "<td title=\"" + attr(it->measured) + "\">" +
               badge(outcome_css(it->outcome), outcome_name(it->outcome)) +
               (it->decides ? " <b>*</b>" : "") +
               (it->enough ? "" : " <span class=\"small\">few</span>") + "</td>";
        }
        s += "</tr>\n";
      }
    s += "</table>\n<p class=\"small\">Columns: ulp (VAL-TOL-1 part 2), MERE/MARE (Ascend, "
         "VAL-TOL-1 part 1), 1e-3 and 1e-4 (double thousandth, double ten-thousandth), RMSE, small "
         "values, inf/NaN consistency, and with a competitor the SUT/competitor ratios (vs ...); "
         "hover a cell for what was measured. <b>*</b> the judge of record. \"few\": the run gave "
         "the "
         "standard less than it asks for (each row's section says what).</p>\n";
    kit_overview();
  }

  // The vendor kits' standards side by side: one column per standard, cases passed of judged.
  void kit_overview() {
    const int64_t min_cases = min_cases_of(r);
    s += "<h3>Vendor kits' standards, all ops</h3>\n<p class=\"small\">ops-test-kit (TTK) and "
         "msprobe standards by the kits' names, each judged per case (a case passes when each of "
         "its outputs of the row's dtype passes); a cell gives the cases passed of those judged, "
         "hover it for the worst case. \"not judged\": the standard compares with another device "
         "and the run had none (--competitor). Under a kit policy the value classes (NaN, inf), "
         "status codes, untouched and integer outputs are still judged exactly. "
         "docs/standards.md has every rule and its source.</p>\n";
    for (const char *kit : {"TTK", "msprobe"}) {
      s += "<table class=\"overview\">\n<tr><th>Op</th><th>Dtype</th>";
      for (const auto &st : aclnn_ref::kits::standards())
        if (st.kit == kit)
          s += "<th>" + h(st.id.substr(st.id.find('-') + 1)) +
               (r.policy == st.id ? " <b>*</b>" : "") + "</th>";
      s += "</tr>\n";
      for (const auto &op : ops)
        for (const auto *a : rows_of(op)) {
          if (a->precision.cases == 0) continue;
          s += fmt::format("<tr><td>{}</td><td>{}</td>", link(prec_anchor(op, a->dtype), h(op)),
                           h(a->dtype));
          for (const auto &x :
               precision_standards(a->precision, ulp_row(r, *a), r.policy, min_cases)) {
            if (x.kit != kit) continue;
            const auto pass = x.measured.find(" cases pass");
            const std::string counts = pass == std::string::npos
                                           ? std::string()
                                           : fmt::format(" {}", x.measured.substr(0, pass));
            s += "<td title=\"" + attr(x.measured) + "\">" +
                 badge(outcome_css(x.outcome), outcome_name(x.outcome)) + "<span class=\"small\">" +
                 h(counts) + "</span>" + (x.decides ? " <b>*</b>" : "") + "</td>";
          }
          s += "</tr>\n";
        }
      s += "</table>\n";
    }
    s += "<p class=\"small\"><b>*</b> the deciding standard (--policy).</p>\n";
  }

  void coverage() {
    s +=
        "<h2 id=\"coverage\">Coverage</h2>\n<p>A clause is judged only when enough cases reach it: "
        "at least " +
        h(min_cases_text(r)) + " in the " + h(r.tier) +
        " tier. Below that it is <i>under-tested</i> (<i>not reached</i> with none), and the "
        "verdict is INCOMPLETE (exit 3) unless <code>--allow-incomplete</code> is "
        "given.</p>\n<ul>\n";
    bool short_of = false;
    for (const auto &c : r.clauses) {
      if (c.status != ClauseStatus::kNotReached && c.status != ClauseStatus::kUnderTested) continue;
      s += fmt::format("<li>{} ({}): {} reached by {} of the {} cases it needs{}</li>\n",
                       link(clause_anchor(c.id), "<code>" + h(c.id) + "</code>"), h(c.op),
                       status_span(c), c.reached, std::max<int64_t>(c.min_cases, 1),
                       r.allow_incomplete ? " (allowed by --allow-incomplete)" : "");
      short_of = true;
    }
    if (!short_of) s += "<li>Every selected clause was reached often enough.</li>\n";
    s += "</ul>\n";
  }

  void skipped() {
    s += "<h2 id=\"skipped\">Skipped, expected failures, expected variants and unreached "
         "clauses</h2>\n"
         "<p>Nothing below is a conformance statement: each entry is a property that did not run, "
         "or whose failure was tolerated or explained by an expected variant, or a clause too few "
         "cases exercised.</p>\n<ul>\n";
    bool any = false;
    for (const auto &e : r.skipped) {
      s += "<li>Skipped by request (" + h(item_kind(e)) + "): <code>" + h(e) +
           "</code> &ndash; not checked in this campaign.</li>\n";
      any = true;
    }
    for (const auto &e : r.xfails) {
      s += "<li>Expected failure (xfail, " + h(item_kind(e)) + "): <code>" + h(e) +
           "</code> &ndash; failures are tolerated and do not count against the verdict.</li>\n";
      any = true;
    }
    for (const auto &c : r.clauses) {
      std::string why;
      switch (c.status) {
        case ClauseStatus::kConforms:
        case ClauseStatus::kDeviates:
          continue;
        case ClauseStatus::kSkipped:
          why = listed_in(r.not_applicable, c.id)
                    ? h(r.not_applicable_reason) + " &ndash; not judged"
                : listed_in(r.skipped, c.id) ? "skipped by request &ndash; not checked"
                                             : "not selected by --clauses &ndash; not checked";
          break;
        case ClauseStatus::kExpectedFailure:
          why =
              fmt::format("expected failure (xfail) &ndash; {} deviation(s) in {} cases tolerated",
                          c.deviations, c.reached);
          break;
        case ClauseStatus::kConformsToVariant:
          why = fmt::format(
              "&ndash; {} of {} cases follow the expected variant, not the behaviour of record",
              c.deviations, c.reached);
          break;
        case ClauseStatus::kNotReached:
          why = "&ndash; no case exercised it";
          break;
        case ClauseStatus::kUnderTested:
          why = fmt::format("&ndash; {} of {} cases", c.reached, c.min_cases);
          break;
      }
      s += "<li>Clause " + link(clause_anchor(c.id), "<code>" + h(c.id) + "</code>") + " (" +
           h(c.op) + "): " + status_span(c) + " " + why + "</li>\n";
      any = true;
    }
    if (!any) s += "<li>None: every clause was exercised and judged.</li>\n";
    s += "</ul>\n";
  }

  void tail() {
    s += "<h2 id=\"warnings\">Warnings</h2>\n";
    if (r.warnings.empty()) {
      s += "<p>None.</p>\n";
    } else {
      s += "<ul>\n";
      for (const auto &w : r.warnings) s += "<li>" + h(w) + "</li>\n";
      s += "</ul>\n";
    }
    s += "<h2 id=\"run\">Run and SUT identity</h2>\n<table>\n";
    auto rows = identity_rows(r);
    if (!r.competitor.empty()) rows.emplace_back("Competitor", r.competitor);
    rows.emplace_back("Clauses", counts_text(r));
    for (const auto &[k, val] : rows)
      s += "<tr><th>" + h(k) + "</th><td>" + h(val) + "</td></tr>\n";
    s += "</table>\n<p class=\"small muted\">" + h(kAccuracyIntro) + "</p>\n</body>\n</html>\n";
  }

  std::string render() {
    head();
    summary();
    toc();
    cause_list();
    for (const auto &op : ops) op_section(op);
    op_section("common");
    standards_overview();
    coverage();
    skipped();
    tail();
    return s;
  }
};

}  // namespace

std::string render_html(const CampaignResult &r) {
  return Page(r).render();
}

}  // namespace aclnn_conform
