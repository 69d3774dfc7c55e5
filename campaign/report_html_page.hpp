// report.html's page (campaign/report.hpp: render_html), internal to aclnn::campaign. The page is
// written top-down by one Page, its sections defined one group per file:
//   report_html.cpp           the page's helpers (escaping, anchors, links, ranks), its style
//   sheet,
//                             its head and the order of its sections
//   report_html_summary.cpp   the summary (verdict, coverage, the op x dtype grid), the contents,
//                             the precision standards overview, coverage, skipped, warnings,
//                             identity
//   report_html_ops.cpp       the causes and the counterexamples, and one section per op: its
//                             clauses, counterexamples, precision standards and pictures per dtype
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "campaign/causes.hpp"
#include "campaign/precision.hpp"
#include "campaign/report_detail.hpp"
#include "campaign/result.hpp"

namespace aclnn_conform::html_detail {

using namespace report_detail;

std::string h(const std::string &s);  // escaped for HTML text
std::string status_span(const ClauseVerdict &c);
inline std::string badge(const std::string &css, const std::string &text) {
  return fmt::format("<span class=\"st st-{}\">{}</span>", css, h(text));
}
std::string outcome_css(StandardResult::Outcome o);
// Anchor names: clause IDs, op names and dtypes are [A-Za-z0-9_-] already.
std::string anchor(const std::string &s);
std::string op_anchor(const std::string &op);
std::string clause_anchor(const std::string &id);
std::string dev_anchor(size_t i);
std::string prec_anchor(const std::string &op, const std::string &dtype);
// A standard's column header in the overview table (the full names are in each op's section).
std::string short_name(const std::string &id);
std::string link(const std::string &target, const std::string &text);
// The dtype a counterexample is about: its first present tensor's.
std::string dtype_of(const Deviation &d);
int dtype_rank(const std::string &d);
// Statuses in the order a reader wants them: what is wrong first.
int status_rank(ClauseStatus s);
// The standard of record's outcome on a row (ulp or ascend, as --policy).
StandardResult::Outcome record_outcome(const std::vector<StandardResult> &st);

struct Page {
  const CampaignResult &r;
  std::vector<CauseGroup> causes;
  std::map<size_t, size_t> cause_of_dev;  // deviation index -> cause index
  std::vector<std::string> ops;           // op sections, in the run's order
  std::string s;

  explicit Page(const CampaignResult &res);
  std::string render();  // every section in order

  // report_html.cpp
  std::vector<const AccuracyStats *> rows_of(const std::string &op) const;
  std::vector<std::string> dtypes() const;
  void head();

  // report_html_summary.cpp
  void summary();
  void grid();
  void toc();
  void standards_overview();
  void kit_overview();
  void coverage();
  void skipped();
  void tail();

  // report_html_ops.cpp
  std::string dev_links(const std::string &clause) const;
  std::string cause_links(const std::string &clause) const;
  void deviation_card(size_t i, bool open);
  void cause_list();
  void cause_cards(const std::string &op);
  void clause_table(const std::string &op);
  void standards_table(const std::vector<StandardResult> &st);
  void precision(const std::string &op);
  void kit_table(const std::vector<StandardResult> &st);
  void op_section(const std::string &op);
};

}  // namespace aclnn_conform::html_detail
