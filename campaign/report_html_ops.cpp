// report.html's causes and op sections (campaign/report_html_page.hpp): the causes
// (counterexamples of one failure signature grouped), each counterexample's card linked to its
// cause, repro and corpus entry; then per op its clauses (deviating first), its counterexamples,
// its precision standards and pictures per dtype, and the vendor kits' standards.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "campaign/report_html_page.hpp"
#include "campaign/svg.hpp"
#include "properties/op.hpp"
#include "reference/compare.hpp"
#include "reference/dtype.hpp"
#include "reference/kit_standards.hpp"

namespace aclnn_conform::html_detail {

std::string Page::dev_links(const std::string &clause) const {
  std::vector<std::string> v;
  for (size_t i = 0; i < r.deviations.size(); ++i)
    if (r.deviations[i].clause == clause)
      v.push_back(link(dev_anchor(i), fmt::format("#{}", i + 1)));
  return fmt::format("{}", fmt::join(v, " "));
}

std::string Page::cause_links(const std::string &clause) const {
  std::vector<std::string> v;
  for (const auto &c : causes)
    if (std::count(c.clauses.begin(), c.clauses.end(), clause)) v.push_back(link(c.id, h(c.id)));
  return fmt::format("{}", fmt::join(v, " "));
}

void Page::deviation_card(size_t i, bool open) {
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
         h(fmt::format("{} cases, {:.1f} s", d.found_at_case, d.found_at_seconds)) + "</td></tr>\n";
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

void Page::cause_list() {
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

void Page::cause_cards(const std::string &op) {
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
        c.counts ? "" : " Every counterexample is explained by an expected variant or tolerated.");
    // The first counterexample's finding in one line; the cards stay folded (a link to one
    // opens it), so 100 counterexamples do not make a page of 100 screens.
    const Deviation &first = r.deviations[c.deviations.front()];
    s += "<pre class=\"finding\">" + h(excerpt(first.detail, 300)) + "</pre>\n";
    for (size_t i : c.deviations) deviation_card(i, false);
    s += "</div>\n";
  }
}

void Page::clause_table(const std::string &op) {
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

void Page::standards_table(const std::vector<StandardResult> &st) {
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

void Page::precision(const std::string &op) {
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
void Page::kit_table(const std::vector<StandardResult> &st) {
  s += "<table class=\"standards\">\n<tr><th>Vendor kit standard</th><th>Rule (this "
       "dtype)</th><th>Cases and worst case</th><th>Result</th><th>Source</th></tr>\n";
  for (const auto &x : st)
    if (!x.kit.empty())
      s += fmt::format(
          "<tr><td>{}{}<br><span class=\"small\">{}</span></td><td>{}</td><td>{}</td>"
          "<td>{}</td><td class=\"small\">{}</td></tr>\n",
          h(x.id), x.decides ? " <b>(decides)</b>" : "", h(x.name), h(x.thresholds), h(x.measured),
          badge(outcome_css(x.outcome), outcome_name(x.outcome)), h(x.source));
  s += "</table>\n";
}

void Page::op_section(const std::string &op) {
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

}  // namespace aclnn_conform::html_detail
