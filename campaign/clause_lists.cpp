#include "campaign/clause_lists.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace aclnn_conform {
namespace {

// Length of the well-formed UTF-8 sequence at s[i] (1-4), or 0 if it is malformed (stray
// continuation byte, truncated, overlong, surrogate, above U+10FFFF).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return len;
}

}  // namespace

ClauseList parse_clause_list(const std::string &name, std::string_view text) {
  ClauseList out;
  const auto malformed = [&](size_t line, const std::string &problem) {
    out.entries.clear();
    out.error = fmt::format("{}: line {}: {}", name, line, problem);
    return out;
  };
  if (text.size() > kClauseListMaxBytes)
    return malformed(1, fmt::format("the file is over {} bytes", kClauseListMaxBytes));
  size_t line_no = 0;
  for (size_t start = 0; start < text.size();) {
    ++line_no;
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.size() > kClauseListMaxLine)
      return malformed(line_no, fmt::format("line longer than {} bytes", kClauseListMaxLine));
    for (size_t i = 0; i < line.size();) {
      if (line[i] == '\0') return malformed(line_no, "NUL byte (not a text file?)");
      const size_t n = utf8_sequence(line, i);
      if (n == 0) return malformed(line_no, fmt::format("byte {} is not UTF-8", i + 1));
      i += n;
    }
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
    out.entries.emplace_back(line);
  }
  return out;
}

ClauseList read_clause_list(const std::string &path) {
  namespace fs = std::filesystem;
  ClauseList out;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec) {
    out.error = fmt::format("{}: cannot read: {}", path, ec.message());
    return out;
  }
  // A FIFO or a device could block or never end.
  if (!fs::is_regular_file(status)) {
    out.error = path + ": not a regular file";
    return out;
  }
  // Read at most one byte over the limit (a file may grow between the size and the read).
  const auto size = fs::file_size(path, ec);
  if (ec) {
    out.error = fmt::format("{}: cannot read: {}", path, ec.message());
    return out;
  }
  std::string text(std::min<uintmax_t>(size, kClauseListMaxBytes + 1), '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in && !(in.eof() && !in.bad())) {
    out.error = path + ": cannot read";
    return out;
  }
  text.resize(static_cast<size_t>(in.gcount()));
  return parse_clause_list(path, text);
}

}  // namespace aclnn_conform
