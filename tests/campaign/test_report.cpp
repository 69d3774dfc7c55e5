// Reports: Markdown, JUnit XML (parsed by a standard XML parser) and self-contained HTML, rendered
// from a hand-built CampaignResult with every clause status, a deviation and accuracy rows.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "campaign/report.hpp"
#include "properties/clauses.hpp"
#include "reference/rounding.hpp"

namespace {
using namespace aclnn_conform;
using aclnn_ref::DType;
namespace fs = std::filesystem;

const std::string kNasty = "a<b & c>\"d\" 'e' \x01 bad\xff utf8 </failure> ]]> <script>x</script>";

Case small_case() {
  Case c;
  c.op = "GeluBackward";
  auto t = TensorArg::contiguous(DType::kFloat32, {2});
  t.set_bits_at(0, aclnn_ref::bits_from_double(-0.75, DType::kFloat32));
  t.set_bits_at(1, aclnn_ref::bits_from_double(2.5, DType::kFloat32));
  c.tensors.emplace_back("gradOutput", t);
  c.tensors.emplace_back("self", t);
  c.tensors.emplace_back("gradInput", TensorArg::contiguous(DType::kFloat32, {2}));
  return c;
}

// Clauses of the catalogue (GeluBackward's and the common ones), with one of each status.
CampaignResult sample_result() {
  CampaignResult r;
  r.sut = "libvendor.so";
  r.sut_identity = {"/opt/vendor/lib/libvendor.so.2.1", "libvendor.so.2", 4096,
                    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"};
  r.tool_version = "0.1.0";
  r.shard_source = "flag";
  r.product = "ascend910b";
  r.tier = "ci";
  r.policy = "ulp";
  r.seed = 0xC0FFEE;
  r.shard = "0/1";
  r.ops = {"GeluBackward"};
  r.cases = 1234;
  r.seconds = 12.5;
  for (const auto &info : clause_catalog()) {
    if (info.op != "GeluBackward" && info.op != "common") continue;
    ClauseVerdict v;
    v.id = info.id;
    v.op = info.op;
    v.reached = 10;
    v.min_cases = 5;
    v.seconds = 0.25;
    v.status = ClauseStatus::kConforms;
    r.clauses.push_back(v);
  }
  auto set = [&](const std::string &id, ClauseStatus st, int64_t reached, int64_t devs) {
    ClauseVerdict *v = r.clause(id);
    EXPECT_NE(v, nullptr) << id;
    if (!v) return;
    v->status = st;
    v->reached = reached;
    v->deviations = devs;
  };
  set("GELU-VALUE-1", ClauseStatus::kDeviates, 100, 7);
  r.clause("GELU-VALUE-1")->variants = {"tanh-approx"};
  r.clause("GELU-VALUE-1")->first_detail = "gradInput[1]: expected 0x3f800000 " + kNasty;
  set("GELU-BCAST-2", ClauseStatus::kDeviates, 50, 1);
  r.clause("GELU-BCAST-2")->first_detail = "expected 161002, got 0";
  set("GELU-EMPTY-1", ClauseStatus::kNotReached, 0, 0);
  set("GELU-SPECIAL-2", ClauseStatus::kSkipped, 0, 0);
  set("VAL-DET-1", ClauseStatus::kExpectedFailure, 5, 2);
  set("GELU-SPECIAL-1", ClauseStatus::kUnderTested, 3, 0);
  r.skipped = {"GELU-SPECIAL-2", "GeluBackwardProperty.Deterministic"};
  r.xfails = {"VAL-DET-1"};
  r.warnings = {"skip entry 'NO-SUCH-1' matched nothing"};

  Deviation d;
  d.op = "GeluBackward";
  d.clause = "GELU-VALUE-1";
  d.detail = "gradInput[1]: expected 0x3f800000 (1), got 0x3f800002 (1.0000002), 2 ulps " + kNasty;
  d.all_failures = "GELU-VALUE-1: " + d.detail + "\nVAL-TOL-1: 1 of 2 elements ``` fail";
  d.minimal = small_case();
  d.origin = "seed 0xc0ffee:valid:size 40";
  d.shrink_steps = 12;
  d.kind = "deviation";
  d.variants = {"tanh-approx"};
  d.repro_file = "repros/repro_GeluBackward_GELU-VALUE-1_1.cpp";
  d.call = "aclnnGeluBackward";
  d.found_at_case = 17;
  d.found_at_seconds = 1.5;
  d.case_id = "GeluBackward-GELU-VALUE-1-00ff";
  r.deviations.push_back(d);
  Deviation d2 = d;
  d2.clause = "GELU-BCAST-2";
  d2.detail = "expected 161002 (GELU-BCAST-2), got 0";
  d2.all_failures = d2.detail;
  d2.variants = {};
  d2.expected_status = 161002;
  d2.expected_clause = "GELU-BCAST-2";
  d2.got_status = 0;
  d2.kind = "crash";
  d2.call = "aclnnGeluBackwardGetWorkspaceSize";
  d2.case_id = "";
  d2.repro_file = "repros/repro_GeluBackward_GELU-BCAST-2_2.cpp";
  r.deviations.push_back(d2);

  AccuracyStats a;
  a.op = "GeluBackward";
  a.dtype = "fp32";
  a.elements = 1000;
  a.histogram = {900, 0, 80, 15, 3, 1, 1, 0, 0};
  a.max_ulps = 20;
  a.mere_weighted_sum = 1e-6 * 1000;
  a.mare = 3e-5;
  a.rules = {"ulp"};
  r.accuracy.push_back(a);
  AccuracyStats b = a;
  b.dtype = "fp16";
  b.histogram = {1000, 0, 0, 0, 0, 0, 0, 0, 0};
  b.max_ulps = 0;
  b.mere_weighted_sum = 0;
  b.mare = 0;
  b.rules = {};
  r.accuracy.push_back(b);
  // A sum output far off in ulps yet within its bound, and a NaN where a number was due.
  AccuracyStats sums = a;
  sums.op = "LayerNormBackward";
  sums.rules = {"sum"};
  sums.max_ulps = 7.26e19;
  sums.max_bound_ratio = 0.5;
  r.accuracy.push_back(sums);
  AccuracyStats nan_row = b;
  nan_row.op = "SeluBackward";
  nan_row.max_ulps = INFINITY;
  nan_row.mere_weighted_sum = INFINITY;
  nan_row.mare = INFINITY;
  r.accuracy.push_back(nan_row);
  return r;
}

bool contains(const std::string &s, const std::string &needle) {
  return s.find(needle) != std::string::npos;
}

struct RunResult {
  int exit_code = -1;
  std::string output;
};
RunResult run(const std::string &command) {
  RunResult r;
  FILE *p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

fs::path temp_dir(const std::string &name) {
  const fs::path d =
      fs::temp_directory_path() / ("aclnn_report_" + std::to_string(::getpid()) + "_" + name);
  fs::create_directories(d);
  return d;
}

TEST(ReportMarkdown, HasSummaryClausesDeviationsAccuracyAndSkips) {
  const CampaignResult r = sample_result();
  const std::string md = render_markdown(r);
  for (const char *needle :
       {"| SUT | libvendor.so |",
        "| SUT file | /opt/vendor/lib/libvendor.so.2.1 |",
        "| SUT SONAME | libvendor.so.2 |",
        "| SUT size | 4096 bytes |",
        "| SUT SHA-256 | 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 |",
        "| aclnn-conform | 0.1.0 |",
        "| Minimum cases per clause | 5 |",
        "| Product | ascend910b |",
        "| Tier | ci |",
        "| Accuracy policy | ulp |",
        "| Seed | 0xc0ffee |",
        "| Shard | 0/1 (from flag) |",
        "| Cases | 1234 |",
        "| Time | 12.5 s |",
        "**DEVIATIONS: 2 deviating clauses**",
        "## Clauses",
        "| GELU-VALUE-1 | GeluBackward | **deviates** | 100 | 5 | 7 | `tanh-approx` |",
        "| GELU-EMPTY-1 | GeluBackward | not reached | 0 | 5 | 0 |",
        "| GELU-SPECIAL-1 | GeluBackward | under-tested | 3 | 5 | 0 |",
        "## Coverage",
        "at least 5 in the ci tier",
        "- `GELU-EMPTY-1` (GeluBackward): NOT REACHED - reached by 0 of the 5 cases it needs.",
        "- `GELU-SPECIAL-1` (GeluBackward): UNDER-TESTED - reached by 3 of the 5 cases it needs.",
        "- Call in flight: `aclnnGeluBackwardGetWorkspaceSize`",
        "- Found after: 17 cases, 1.5 s",
        "- Re-run: `aclnn-conform replay OUT/corpus --case GeluBackward-GELU-VALUE-1-00ff`",
        "## Deviations",
        "### 1. GELU-VALUE-1 (GeluBackward)",
        "- Variants: matches variant `tanh-approx`",
        "### 2. GELU-BCAST-2 (GeluBackward)",
        "- Variants: no known variant",
        "- Kind: crash",
        "- Status: expected status 161002 (GELU-BCAST-2), got 0",
        "`repros/repro_GeluBackward_GELU-VALUE-1_1.cpp`",
        "`GeluBackward on ascend910b: gradOutput=fp32[2] self=fp32[2] gradInput=fp32[2]`",
        "(shrunk in 12 steps)",
        "## Accuracy",
        "| GeluBackward | fp32 | ulp bound (VAL-TOL-1 part 2) | 1000 | 20 | 900 | 0 | 80 |",
        "within (T = 0.0001221; information only, does not decide)",
        "| LayerNormBackward | fp32 | condition-aware sum bound | 1000 | > 256 (information) |",
        "| SeluBackward | fp16 | ulp bound (VAL-TOL-1 part 2); sum outputs: condition-aware sum "
        "bound | 1000 | class mismatch |",
        "## Skipped, expected failures, expected variants and unreached clauses",
        "Skipped by request (clause): `GELU-SPECIAL-2`",
        "Skipped by request (property): `GeluBackwardProperty.Deterministic`",
        "Expected failure (xfail, clause): `VAL-DET-1`",
        "Clause `GELU-SPECIAL-2` (GeluBackward): SKIPPED by request",
        "Clause `VAL-DET-1` (common): EXPECTED FAILURE (xfail) - 2 deviation(s) in 5 cases",
        "Clause `GELU-EMPTY-1` (GeluBackward): NOT REACHED",
        "Clause `GELU-SPECIAL-1` (GeluBackward): UNDER-TESTED - 3 of 5 cases.",
        "## Warnings",
        "skip entry 'NO-SUCH-1' matched nothing"})
    EXPECT_TRUE(contains(md, needle)) << needle << "\n---\n" << md;
  // No meaningless numbers and no "FAIL" for a rule that does not decide the verdict.
  EXPECT_FALSE(contains(md, "7.26e+19")) << md;
  EXPECT_FALSE(contains(md, "FAIL (T")) << md;
  // Every clause has its row, with an excerpt of its text.
  for (const auto &c : r.clauses) EXPECT_TRUE(contains(md, "| " + c.id + " | ")) << c.id;
  EXPECT_TRUE(contains(md, "gradOutput, self or gradInput is NULL: 161001. |"));
  // The failures block survives an embedded ``` (longer fence), tables stay one line per row.
  EXPECT_TRUE(contains(md, "````text\n"));
  EXPECT_FALSE(contains(md, "\xff"));
  // Outside fenced code blocks (shown verbatim by every renderer) no raw HTML gets through.
  std::string prose;
  bool in_block = false;
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      continue;
    }
    if (!in_block) prose += line + "\n";
  }
  EXPECT_FALSE(contains(prose, "<script>")) << prose;
  // Escaped the Markdown way (a backslash), not with HTML entities that code spans would show.
  EXPECT_TRUE(contains(prose, "\\<script\\>"));
  EXPECT_FALSE(contains(prose, "&lt;"));
  EXPECT_TRUE(contains(md, "VAL-TOL-1: 1 of 2 elements ``` fail\n"));  // verbatim in its block
}

// Every clause reached often enough, none deviating.
CampaignResult complete_result() {
  CampaignResult r = sample_result();
  for (auto &c : r.clauses) {
    if (c.status == ClauseStatus::kSkipped || c.status == ClauseStatus::kExpectedFailure) continue;
    c.status = ClauseStatus::kConforms;
    c.deviations = 0;
    c.reached = std::max<int64_t>(c.reached, c.min_cases);
  }
  r.deviations.clear();
  return r;
}

TEST(ReportMarkdown, ConformantWhenEveryClauseIsReachedAndNoneDeviates) {
  const CampaignResult r = complete_result();
  const std::string md = render_markdown(r);
  EXPECT_TRUE(contains(md, "| Verdict | **CONFORMANT** |")) << md;
  EXPECT_TRUE(contains(md, "## Deviations\n\nNone."));
  EXPECT_TRUE(contains(md, "Every selected clause was reached often enough."));
}

// The false green of issue 8: no deviation, but clauses not reached, was CONFORMANT.
TEST(ReportMarkdown, IncompleteWhenAClauseIsNotReached) {
  CampaignResult r = complete_result();
  r.clause("GELU-EMPTY-1")->reached = 0;
  r.clause("GELU-EMPTY-1")->status = ClauseStatus::kNotReached;
  std::string md = render_markdown(r);
  EXPECT_TRUE(contains(md, "| Verdict | **INCOMPLETE: 1 clause not reached, 0 under-tested** |"))
      << md;
  EXPECT_FALSE(contains(md, "**CONFORMANT"));
  r.allow_incomplete = true;
  md = render_markdown(r);
  EXPECT_TRUE(contains(md,
                       "| Verdict | **CONFORMANT (with 1 clause not reached or under-tested, "
                       "allowed by --allow-incomplete)** |"))
      << md;
  EXPECT_TRUE(contains(md, "| Incomplete coverage | allowed (--allow-incomplete) |"));
}

TEST(ReportMarkdown, InterruptedSaysSoEvenWithDeviations) {
  CampaignResult r = sample_result();
  r.interrupted = true;
  const std::string md = render_markdown(r);
  EXPECT_TRUE(contains(md,
                       "| Verdict | **INTERRUPTED: stopped after 1234 cases; the results cover "
                       "only what ran (2 deviating clauses found before the stop)** |"))
      << md;
  const std::string xml = render_junit(r);
  EXPECT_TRUE(contains(xml, "not reached: 0 of 5 cases (run interrupted)")) << xml;
}

TEST(ReportMarkdown, ExpectedVariantIsNamedNotCountedAsDeviation) {
  CampaignResult r = complete_result();
  ClauseVerdict *c = r.clause("GELU-VALUE-1");
  c->status = ClauseStatus::kConformsToVariant;
  c->deviations = 4;
  c->expected_variants_matched = {"tanh-approx"};
  r.expected_variants = {"tanh-approx"};
  Deviation d = sample_result().deviations.front();
  d.expected_variant = "tanh-approx";
  r.deviations.push_back(d);
  const std::string md = render_markdown(r);
  EXPECT_TRUE(contains(md, "| Verdict | **CONFORMANT** |")) << md;
  EXPECT_TRUE(contains(md, "| GELU-VALUE-1 | GeluBackward | conforms to variant tanh-approx |"))
      << md;
  EXPECT_TRUE(contains(md, "| Expected variants | tanh-approx |"));
  EXPECT_TRUE(contains(md, "- Expected variant: conforms to variant `tanh-approx`"));
  const std::string html = render_html(r);
  EXPECT_TRUE(
      contains(html, "<span class=\"st st-variant\">conforms to variant tanh-approx</span>"));
  const std::string xml = render_junit(r);
  EXPECT_TRUE(contains(xml, "failures=\"0\"")) << xml;
}

std::string python_check_xml(const fs::path &file) {
  // Parses with the standard library's DOM parser and prints a structural summary.
  const std::string script = R"(
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
root = d.documentElement
print('root', root.tagName, root.getAttribute('tests'), root.getAttribute('failures'))
for s in root.getElementsByTagName('testsuite'):
    print('suite', s.getAttribute('name'), s.getAttribute('tests'), s.getAttribute('failures'), s.getAttribute('skipped'))
for c in root.getElementsByTagName('testcase'):
    f = c.getElementsByTagName('failure')
    k = c.getElementsByTagName('skipped')
    assert not c.getElementsByTagName('properties'), 'properties inside a testcase'
    out = c.getElementsByTagName('system-out')[0].firstChild.data
    props = dict(zip(['reached', 'deviations'], __import__('re').search(r'reached by (\d+) cases .*?, (\d+) deviate', out).groups()))
    state = ('failure:' + f[0].getAttribute('type') + ':' + f[0].getAttribute('message')) if f else ('skipped:' + k[0].getAttribute('message') if k else 'pass')
    print('case', c.getAttribute('classname'), c.getAttribute('name'), props.get('reached'), props.get('deviations'), state)
)";
  const fs::path py = file.parent_path() / "check.py";
  std::ofstream(py) << script;
  const auto res = run("python3 " + py.string() + " " + file.string());
  return res.exit_code == 0 ? res.output : "PARSE FAILED\n" + res.output;
}

TEST(ReportJUnit, ParsesAndHasOneTestcasePerClause) {
  const CampaignResult r = sample_result();
  const std::string xml = render_junit(r);
  // Structure without a parser: one testcase per clause, balanced elements, no raw specials.
  size_t cases = 0;
  for (size_t p = 0; (p = xml.find("<testcase ", p)) != std::string::npos; ++p) ++cases;
  EXPECT_EQ(cases, r.clauses.size());
  EXPECT_TRUE(contains(xml, "<testsuite name=\"GeluBackward\""));
  EXPECT_TRUE(contains(xml, "<testsuite name=\"common\""));
  EXPECT_TRUE(contains(xml, "<testcase classname=\"aclnn.GeluBackward\" name=\"GELU-VALUE-1\""));
  EXPECT_TRUE(contains(xml, "<skipped message=\"not reached: 0 of 5 cases\"/>"));
  EXPECT_TRUE(contains(xml, "<skipped message=\"under-tested: 3 of 5 cases\"/>"));
  EXPECT_TRUE(contains(xml, "<skipped message=\"skipped by request\"/>"));
  EXPECT_TRUE(contains(xml, "time=\"12.500\""));  // real times: the run's, each clause's
  EXPECT_TRUE(contains(xml, "name=\"GELU-VALUE-1\" time=\"0.250\""));
  EXPECT_TRUE(contains(xml, "<property name=\"sut.sha256\" value=\"9f86d08"));
  EXPECT_FALSE(contains(xml, "time=\"0\""));
  // junit-10.xsd has no testsuites@skipped and no properties inside a testcase.
  const std::string root = xml.substr(
      xml.find("<testsuites "), xml.find('>', xml.find("<testsuites ")) - xml.find("<testsuites "));
  EXPECT_FALSE(contains(root, "skipped=")) << root;
  EXPECT_TRUE(contains(xml, "<skipped message=\"expected failure (xfail)\"/>"));
  EXPECT_FALSE(contains(xml, "<script>"));
  EXPECT_FALSE(contains(xml, "\x01"));
  EXPECT_FALSE(contains(xml, "\xff"));

  if (run("command -v python3").exit_code != 0)
    GTEST_SKIP() << "python3 not found: the XML was checked structurally only";
  const fs::path dir = temp_dir("junit");
  std::ofstream(dir / "report.xml") << xml;
  const std::string summary = python_check_xml(dir / "report.xml");
  ASSERT_FALSE(contains(summary, "PARSE FAILED")) << summary;
  EXPECT_TRUE(contains(summary, "root testsuites " + std::to_string(r.clauses.size()) + " 2"))
      << summary;
  EXPECT_TRUE(contains(summary, "suite GeluBackward")) << summary;
  EXPECT_TRUE(contains(summary, "suite common")) << summary;
  // The failure message is the first detail, unescaped back to the original text (the invalid
  // byte and the control character replaced).
  EXPECT_TRUE(contains(summary,
                       "case aclnn.GeluBackward GELU-VALUE-1 100 7 failure:deviation:gradInput[1]: "
                       "expected 0x3f800000 a<b & c>\"d\" 'e'  bad\xef\xbf\xbd utf8 </failure> ]]> "
                       "<script>x</script>"))
      << summary;
  EXPECT_TRUE(contains(summary,
                       "case aclnn.GeluBackward GELU-BCAST-2 50 1 failure:crash:expected 161002, "
                       "got 0"))
      << summary;
  EXPECT_TRUE(
      contains(summary, "case aclnn.GeluBackward GELU-EMPTY-1 0 0 skipped:not reached: 0 of 5"));
  EXPECT_TRUE(
      contains(summary, "case aclnn.GeluBackward GELU-SPECIAL-2 0 0 skipped:skipped by request"));
  EXPECT_TRUE(
      contains(summary, "case aclnn.common VAL-DET-1 5 2 skipped:expected failure (xfail)"));
  EXPECT_TRUE(contains(summary, "case aclnn.GeluBackward GELU-NULL-1 10 0 pass")) << summary;
  fs::remove_all(dir);
}

TEST(ReportHtml, IsSelfContainedEscapedAndHasAHistogramPerOpAndDtype) {
  const CampaignResult r = sample_result();
  const std::string html = render_html(r);
  EXPECT_TRUE(contains(html, "<!DOCTYPE html>"));
  EXPECT_TRUE(contains(html, "<style>"));
  // No scripts and no external resources; links only within the page or to files beside it.
  for (const char *bad :
       {"<script", "<link", "src=", "@import", "url(", "href=\"http", "href=\"//", "href=\"file:"})
    EXPECT_FALSE(contains(html, bad)) << bad;
  // Every internal link has its target: the summary grid, contents, causes, clauses and
  // counterexamples are linked both ways.
  const std::regex href("href=\"#([^\"]+)\""), id_attr(" id=\"([^\"]+)\"");
  std::set<std::string> ids, targets;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), id_attr);
       it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(ids.insert((*it)[1]).second) << "duplicate id " << (*it)[1];
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator();
       ++it)
    targets.insert((*it)[1]);
  for (const auto &t : targets) EXPECT_TRUE(ids.count(t)) << "#" << t << " has no target";
  for (const char *t : {"summary", "toc", "causes", "clause-GELU-VALUE-1", "dev-1", "dev-2",
                        "cause-1", "op-GeluBackward", "prec-GeluBackward-fp32", "standards"})
    EXPECT_TRUE(targets.count(t)) << t << " is not linked";
  // Deviating clauses come first in their op's table.
  const size_t table = html.find("id=\"op-GeluBackward-clauses\"");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(html.find("id=\"clause-GELU-BCAST-2\"", table),
            html.find("id=\"clause-GELU-NULL-1\"", table));
  // Each counterexample links its repro; the output's bytes are labelled as the pre-call fill.
  EXPECT_TRUE(contains(html, "<a href=\"repros/repro_GeluBackward_GELU-VALUE-1_1.cpp\">"));
  EXPECT_TRUE(contains(
      html, "gradInput<br><span class=\"small muted\">output: the bytes it held before the call"));
  // One inline SVG chart per op x dtype.
  size_t svgs = 0, closes = 0;
  for (size_t p = 0; (p = html.find("<svg ", p)) != std::string::npos; ++p) ++svgs;
  for (size_t p = 0; (p = html.find("</svg>", p)) != std::string::npos; ++p) ++closes;
  EXPECT_EQ(svgs, r.accuracy.size());
  EXPECT_EQ(closes, svgs);
  // Escaped text, colored statuses, the deviation's inputs and repro.
  EXPECT_TRUE(contains(html, "a&lt;b &amp; c&gt;&quot;d&quot; &#39;e&#39;"));
  EXPECT_TRUE(contains(html, "&lt;script&gt;x&lt;/script&gt;"));
  EXPECT_TRUE(contains(html, "<span class=\"st st-deviates\">deviates</span>"));
  EXPECT_TRUE(contains(html, "<span class=\"st st-xfail\">expected failure</span>"));
  EXPECT_TRUE(contains(html, "DEVIATIONS: 2 deviating clauses"));
  EXPECT_TRUE(contains(html, "<tr><th>SUT SHA-256</th><td>9f86d08"));
  EXPECT_TRUE(contains(html, "<span class=\"st st-undertested\">under-tested</span>"));
  EXPECT_TRUE(contains(html, "<h2 id=\"coverage\">Coverage</h2>"));
  EXPECT_TRUE(contains(html, "#9e9e9e"));  // grey bars: the sum row's ulps decide nothing
  EXPECT_FALSE(contains(html, "7.26e+19"));
  EXPECT_TRUE(contains(html, "repros/repro_GeluBackward_GELU-VALUE-1_1.cpp"));
  EXPECT_TRUE(contains(html, "-0.75 (0xbf400000), 2.5 (0x40200000)"));  // small case's elements
  EXPECT_TRUE(contains(html, "matches variant `tanh-approx`"));
  EXPECT_TRUE(contains(html, "MERE"));
  // Well-formed enough for a strict parser: the SVG fragments parse as XML.
  if (run("command -v python3").exit_code == 0) {
    const fs::path dir = temp_dir("html");
    std::string svg_doc = "<root>";
    for (size_t p = 0; (p = html.find("<svg ", p)) != std::string::npos;) {
      const size_t e = html.find("</svg>", p) + 6;
      svg_doc += html.substr(p, e - p);
      p = e;
    }
    svg_doc += "</root>";
    std::ofstream(dir / "svg.xml") << svg_doc;
    const auto res =
        run("python3 -c \"import sys,xml.dom.minidom as m; "
            "print(len(m.parse(sys.argv[1]).getElementsByTagName('rect')))\" " +
            (dir / "svg.xml").string());
    EXPECT_EQ(res.exit_code, 0) << res.output;
    EXPECT_EQ(res.output, std::to_string(aclnn_ref::kBucketCount * r.accuracy.size()) + "\n");
    fs::remove_all(dir);
  }
}

TEST(Report, WritesTheThreeFiles) {
  const fs::path dir = temp_dir("write") / "nested";
  write_reports(sample_result(), dir.string());
  for (const char *f : {"report.md", "report.xml", "report.html"}) {
    ASSERT_TRUE(fs::exists(dir / f)) << f;
    EXPECT_GT(fs::file_size(dir / f), 500u) << f;
  }
  fs::remove_all(dir.parent_path());
}

// Every report this suite renders validates: report.xml against junit-10.xsd (xmllint) and
// report.json against docs/report.schema.json (tests/reports/validate_reports.py).
TEST(Report, WrittenReportsValidateAgainstTheirSchemas) {
  const fs::path dir = temp_dir("schemas");
  std::vector<CampaignResult> results = {sample_result(), complete_result(), sample_result()};
  results[2].interrupted = true;
  results[2].allow_incomplete = true;
  results[2].expected_variants = {"tanh-approx"};
  for (size_t i = 0; i < results.size(); ++i) {
    const fs::path out = dir / std::to_string(i);
    write_reports(results[i], out.string());
    std::ofstream(out / "report.json") << report_json_text(results[i]);
    for (const auto &d : results[i].deviations) {  // the links must resolve
      fs::create_directories((out / d.repro_file).parent_path());
      std::ofstream(out / d.repro_file) << "// repro\n";
    }
  }
  const auto res =
      run("python3 " ACLNN_TEST_SOURCE_DIR "/tests/reports/validate_reports.py " + dir.string());
  EXPECT_EQ(res.exit_code, 0)
      << res.output << "\n(needs xmllint and python3-jsonschema: scripts/install-deps.sh)";
  EXPECT_TRUE(contains(res.output, "3 report.xml and 3 report.json checked, 0 problems"))
      << res.output;
  fs::remove_all(dir);
}

// The validator is not a rubber stamp: a report.xml with properties inside a testcase (as
// before issue 8) and a report.json with a string status fail.
TEST(Report, SchemaCheckRejectsTheOldFormats) {
  const fs::path dir = temp_dir("schemas_bad");
  const CampaignResult r = complete_result();
  write_reports(r, (dir / "xml").string());
  std::string xml = render_junit(r);
  const size_t at = xml.find("</testcase>");
  xml.insert(at, "<properties><property name=\"reached\" value=\"1\"/></properties>");
  std::ofstream(dir / "xml" / "report.xml") << xml;
  std::ofstream(dir / "xml" / "report.json") << report_json_text(r);
  auto res = run("python3 " ACLNN_TEST_SOURCE_DIR "/tests/reports/validate_reports.py " +
                 (dir / "xml").string());
  EXPECT_NE(res.exit_code, 0) << res.output;
  EXPECT_TRUE(contains(res.output, "not valid against junit-10.xsd")) << res.output;

  write_reports(r, (dir / "json").string());
  nlohmann::json j = to_json(sample_result());
  j["deviations"][0]["expected_status"] = "0";
  j["accuracy"][0]["mere"] = "inf";
  std::ofstream(dir / "json" / "report.json")
      << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  res = run("python3 " ACLNN_TEST_SOURCE_DIR "/tests/reports/validate_reports.py " +
            (dir / "json").string());
  EXPECT_NE(res.exit_code, 0) << res.output;
  EXPECT_TRUE(contains(res.output, "/deviations/0/expected_status")) << res.output;
  EXPECT_TRUE(contains(res.output, "/accuracy/0/mere")) << res.output;
  EXPECT_TRUE(contains(res.output, "does not resolve")) << res.output;  // repro links
  fs::remove_all(dir);
}

TEST(Report, EscapingHelpers) {
  EXPECT_EQ(xml_escape("<a href=\"x\">&'\n</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&#10;&lt;/a&gt;");
  EXPECT_EQ(html_escape("x\x02y\xc3\xa9\xc3"), "xy\xc3\xa9\xef\xbf\xbd");  // é kept, cut é fixed
  EXPECT_EQ(html_escape("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
}

}  // namespace
