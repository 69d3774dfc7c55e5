#include "campaign/markdown.hpp"

#include <algorithm>

#include "campaign/report_detail.hpp"

namespace aclnn_conform::markdown {

namespace {

size_t run_length(const std::string &s, size_t at) {
  size_t n = 0;
  while (at + n < s.size() && s[at + n] == '`') ++n;
  return n;
}

// Where a code span opened by the backtick run of length n at `at` closes (the start of a run of
// exactly n backticks), or npos.
size_t closing_run(const std::string &s, size_t at, size_t n) {
  for (size_t p = at + n; p < s.size();) {
    if (s[p] != '`') {
      ++p;
      continue;
    }
    const size_t m = run_length(s, p);
    if (m == n) return p;
    p += m;
  }
  return std::string::npos;
}

}  // namespace

std::string cell(const std::string &text) {
  std::string s = report_detail::clean_utf8(text);
  for (char &c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string out;
  for (size_t p = 0; p < s.size();) {
    const char c = s[p];
    if (c == '`') {
      const size_t n = run_length(s, p);
      const size_t close = closing_run(s, p, n);
      if (close == std::string::npos) {  // literal backticks
        for (size_t k = 0; k < n; ++k) out += "\\`";
        p += n;
        continue;
      }
      // A code span: verbatim but for pipes, which a table cell must escape even here.
      for (size_t k = p; k < close + n; ++k)
        out += s[k] == '|' ? std::string("\\|") : std::string(1, s[k]);
      p = close + n;
      continue;
    }
    if (c == '|' || c == '<' || c == '>' || c == '&' || c == '\\') out += '\\';
    out += c;
    ++p;
  }
  return out;
}

std::string code(const std::string &text) {
  std::string s = report_detail::clean_utf8(text), out;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t')
      out += ' ';
    else if (c == '`')
      out += '\'';
    else if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return "`" + out + "`";
}

}  // namespace aclnn_conform::markdown
