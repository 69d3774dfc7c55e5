// Fuzz target: a --skips / --xfails file (campaign/clause_lists.cpp), parsed from the bytes and
// read back from a file holding them (read_clause_list must agree with parse_clause_list). A
// malformed file must be refused naming the file and the line, with no entries; an accepted one
// gives entries that are trimmed, comment-free, single-line, NUL-free UTF-8 of bounded length, and
// each entry on its own parses to itself.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "campaign/clause_lists.hpp"

namespace {
namespace fs = std::filesystem;
using namespace aclnn_conform;

void require(bool ok, const char *what, const std::string &detail = "") {
  if (ok) return;
  std::fprintf(stderr, "clause_list finding: %s %s\n", what, detail.c_str());
  std::abort();
}

// tmpfs when there is one: rewriting a file on ext4 flushes it to disk at close (a few ms).
fs::path scratch_dir() {
  std::error_code ec;
  return fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
}

std::string list_path_name() {
  return (scratch_dir() / ("aclnn_fuzz_skips_" + std::to_string(::getpid()) + ".txt")).string();
}

const std::string &list_path() {
  static const std::string p = [] {
    // The name again at exit: `p` is destroyed before this runs.
    std::atexit([] { std::remove(list_path_name().c_str()); });
    return list_path_name();
  }();
  return p;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  const ClauseList l = parse_clause_list("skips.txt", text);
  if (!l.error.empty()) {
    require(l.error.rfind("skips.txt: line ", 0) == 0 && l.error.size() > 18,
            "an error that does not name the file, line and problem:", l.error);
    require(l.entries.empty(), "entries returned with an error");
  } else {
    for (const auto &e : l.entries) {
      require(!e.empty() && e.size() <= kClauseListMaxLine, "empty or over-long entry", e);
      require(e.find_first_of(std::string("#\n\0", 3)) == std::string::npos,
              "an entry holding '#', a newline or NUL", e);
      require(std::string_view(" \t\r").find(e.front()) == std::string_view::npos &&
                  std::string_view(" \t\r").find(e.back()) == std::string_view::npos,
              "an entry not trimmed", e);
      const ClauseList again = parse_clause_list("entry", e);
      require(again.error.empty() && again.entries.size() == 1 && again.entries[0] == e,
              "an entry that does not parse to itself", e);
    }
  }
  {
    std::ofstream f(list_path(), std::ios::binary | std::ios::trunc);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  const ClauseList from_file = read_clause_list(list_path());
  require(from_file.entries == l.entries, "the file reader disagrees with the parser");
  require(from_file.error.empty() == l.error.empty() &&
              (l.error.empty() || from_file.error == list_path() + l.error.substr(9)),
          "the file reader's error differs", from_file.error + " vs " + l.error);
  return 0;
}
