// report.html's summary and closing sections (campaign/report_html_page.hpp): the verdict and
// coverage in a few lines, the op x dtype grid, the table of contents; after the op sections the
// precision standards side by side (and the vendor kits'), coverage per clause, everything
// skipped or not judged, the warnings and the run's identity.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "campaign/coverage.hpp"
#include "campaign/report_html_page.hpp"
#include "reference/kit_standards.hpp"

namespace aclnn_conform::html_detail {

void Page::summary() {
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
  s += coverage_html(r.coverage);  // edges reached, when the SUT is instrumented
  grid();
}

// Op x dtype: fail where a counted cause's counterexample has that dtype or the standard of
// record fails on the dtype's outputs; pass where outputs of that dtype were judged and
// nothing failed.
void Page::grid() {
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
         (total == 0 ? std::string("<span class=\"small\">judged under its family's clauses</span>")
          : dev      ? badge("fail", fmt::format("{} of {} deviate", dev, total))
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
        const auto st = precision_standards(row->precision, ulp_row(r, *row), r.policy, min_cases);
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

void Page::toc() {
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
  if (!r.worst_inputs.is_null()) s += "<li>" + link("worst", "Worst inputs") + "</li>\n";
  if (!r.schedule.is_null()) s += "<li>" + link("schedule", "How the budget was spent") + "</li>\n";
  s += "<li>" + link("coverage", "Coverage") + "</li>\n";
  s += "<li>" + link("skipped", "Skipped, expected failures, variants, unreached") + "</li>\n";
  s += "<li>" + link("warnings", "Warnings") + "</li>\n";
  s += "<li>" + link("run", "Run and SUT identity") + "</li>\n";
  s += "</ul>\n";
}

void Page::standards_overview() {
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
void Page::kit_overview() {
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

void Page::coverage() {
  s += "<h2 id=\"coverage\">Coverage</h2>\n<p>A clause is judged only when enough cases reach it: "
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

void Page::skipped() {
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
        why = listed_in(r.not_applicable, c.id) ? h(r.not_applicable_reason) + " &ndash; not judged"
              : listed_in(r.skipped, c.id)      ? "skipped by request &ndash; not checked"
                                                : "not selected by --clauses &ndash; not checked";
        break;
      case ClauseStatus::kExpectedFailure:
        why = fmt::format("expected failure (xfail) &ndash; {} deviation(s) in {} cases tolerated",
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

void Page::tail() {
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
  for (const auto &[k, val] : rows) s += "<tr><th>" + h(k) + "</th><td>" + h(val) + "</td></tr>\n";
  s += "</table>\n<p class=\"small muted\">" + h(kAccuracyIntro) + "</p>\n</body>\n</html>\n";
}

}  // namespace aclnn_conform::html_detail
