// The --skips and --xfails files: one clause ID or property name per line, '#' starts a comment,
// spaces, tabs and a CR around an entry are ignored, blank lines skipped. Entries are not checked
// here: one that names no clause or property becomes a report warning (selection.hpp).
// Malformed (an error naming the file, the line and the problem): a NUL byte, bytes that are not
// UTF-8, a line over kClauseListMaxLine bytes, a file over kClauseListMaxBytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace aclnn_conform {

constexpr size_t kClauseListMaxLine = 4096;
constexpr size_t kClauseListMaxBytes = size_t{1} << 20;

struct ClauseList {
  std::vector<std::string> entries;
  std::string error;  // non-empty: the file is malformed ("<name>: line N: <problem>")
};

// Parses text, the contents of the file called name (used in the error).
ClauseList parse_clause_list(const std::string &name, std::string_view text);
// Reads the file at path (a regular file, at most kClauseListMaxBytes) and parses it; a file that
// cannot be read is an error too.
ClauseList read_clause_list(const std::string &path);

}  // namespace aclnn_conform
