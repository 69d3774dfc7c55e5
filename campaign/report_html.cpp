// report.html: one self-contained page a kernel engineer reads top-down. The summary first
// (verdict, coverage, an op x dtype grid), a table of contents, the causes (counterexamples of one
// failure signature grouped), then one section per op: its clauses with the deviating ones
// first, each linked to its counterexamples, each counterexample linked to its cause, repro and
// corpus entry; its precision standards and pictures per dtype. Inline CSS and SVG only: no
// scripts, no network. Counterexamples beyond a cause's first are folded in <details>, which
// browsers open when a link points inside.
//
// This file: the page's helpers, its style sheet, its head and the order of its sections
// (campaign/report_html_page.hpp lists the files of the others).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "campaign/climb.hpp"
#include "campaign/report.hpp"
#include "campaign/report_html_page.hpp"
#include "campaign/schedule.hpp"

namespace aclnn_conform {
namespace html_detail {

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

// The outcome's name as a CSS class: "not exercised" -> "notexercised".
std::string outcome_css(StandardResult::Outcome o) {
  std::string s = outcome_name(o);
  std::erase(s, ' ');
  return s;
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

Page::Page(const CampaignResult &res) : r(res), causes(group_causes(res)) {
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

std::vector<const AccuracyStats *> Page::rows_of(const std::string &op) const {
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
std::vector<std::string> Page::dtypes() const {
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

void Page::head() {
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       "<title>aclnn-conform report: " +
       h(r.sut) + "</title>\n<style>\n" + kCss + "</style>\n</head>\n<body>\n";
}

std::string Page::render() {
  head();
  summary();
  toc();
  cause_list();
  for (const auto &op : ops) op_section(op);
  op_section("common");
  standards_overview();
  s += worst_inputs_html(r);  // campaign/climb.hpp
  s += schedule_html(r);      // campaign/schedule.hpp
  coverage();
  skipped();
  tail();
  return s;
}

}  // namespace html_detail

std::string render_html(const CampaignResult &r) {
  return html_detail::Page(r).render();
}

}  // namespace aclnn_conform
