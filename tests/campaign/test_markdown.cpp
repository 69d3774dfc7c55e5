// Markdown escaping (campaign/markdown.hpp): report.md printed clause texts as
// "`workspaceSize &gt; 0`" - HTML entities, which a code span shows as they are. Text is escaped
// the Markdown way (backslashes) outside code spans, code spans stay verbatim, no raw HTML gets
// through, and a table cell stays one cell.
#include <gtest/gtest.h>

#include "campaign/markdown.hpp"
#include "campaign/report.hpp"
#include "campaign/result.hpp"

namespace {

using namespace aclnn_conform;

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

TEST(Markdown, CodeSpansAreVerbatim) {
  EXPECT_EQ(markdown::cell("with `workspaceSize > 0` and `workspace == NULL`: 161001"),
            "with `workspaceSize > 0` and `workspace == NULL`: 161001");
  EXPECT_EQ(markdown::cell("``a ` b`` <c>"), "``a ` b`` \\<c\\>");  // a double-backtick span
}

TEST(Markdown, ProseIsEscapedWithBackslashesNotEntities) {
  EXPECT_EQ(markdown::cell("a<b & c>d"), "a\\<b \\& c\\>d");
  EXPECT_EQ(markdown::cell("&gt; stays literal"), "\\&gt; stays literal");
  EXPECT_EQ(markdown::cell("<script>x</script>"), "\\<script\\>x\\</script\\>");
  EXPECT_EQ(markdown::cell("C:\\path"), "C:\\\\path");
}

TEST(Markdown, OneCellOneLine) {
  EXPECT_EQ(markdown::cell("a|b\nc\td"), "a\\|b c d");
  EXPECT_EQ(markdown::cell("`x | y`"), "`x \\| y`");  // GitHub's tables split on | in spans too
  // An unmatched backtick is a literal backtick, escaped so it opens no span.
  EXPECT_EQ(markdown::cell("it's `open"), "it's \\`open");
  EXPECT_EQ(markdown::code("a`b|c\nd"), "`a'b\\|c d`");
  EXPECT_EQ(markdown::cell("bad\xff"), "bad\xef\xbf\xbd");
}

TEST(Markdown, ReportShowsClauseTextsAsWritten) {
  CampaignResult r;
  r.sut = "builtin";
  r.policy = "ulp";
  r.tier = "ci";
  r.product = "ascend910b";
  ClauseVerdict v;
  v.id = "ABI-TWOPHASE-3";
  v.op = "common";
  v.reached = 3;
  v.status = ClauseStatus::kConforms;
  r.clauses.push_back(v);
  const std::string md = render_markdown(r);
  EXPECT_TRUE(contains(md, "`workspaceSize > 0`")) << md;
  EXPECT_FALSE(contains(md, "&gt;")) << md;
  EXPECT_FALSE(contains(md, "&lt;")) << md;
}

}  // namespace
