// Markdown escaping for report.md (CommonMark with GitHub's tables). Markdown is not HTML: an
// entity such as "&gt;" inside a code span is shown as those four characters, so text is escaped
// by Markdown's own means - a backslash before a character that would be markup - and code spans
// are left as they are, where nothing but the span's own backticks is markup.
#pragma once

#include <string>

namespace aclnn_conform::markdown {

// Text for a table cell or a list item: one line (line breaks and tabs become spaces), pipes
// escaped (also inside code spans, as GitHub's tables need), '<', '>' and '&' escaped with a
// backslash outside code spans so no raw HTML or entity appears. A backtick run with a matching
// run later is a code span and kept verbatim; one without is escaped. Invalid UTF-8 becomes U+FFFD.
std::string cell(const std::string &s);

// One inline code span holding s verbatim (on one line; backticks become quotes, pipes escaped).
std::string code(const std::string &s);

}  // namespace aclnn_conform::markdown
