// The --skips / --xfails files (campaign/clause_lists.hpp): entries, comments and trimming, and
// what makes a file malformed (an error naming the file, the line and the problem).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "campaign/clause_lists.hpp"

namespace {
using namespace aclnn_conform;
using Entries = std::vector<std::string>;
namespace fs = std::filesystem;

TEST(ClauseLists, EntriesCommentsAndTrimming) {
  const ClauseList l = parse_clause_list(
      "skips.txt",
      "# skipped on this product\nGELU-VAL-1\n  LN-SHAPE-2\t# trailing comment\r\n\n \t\r\n"
      "GeluBackward/valid\nlast without newline");
  EXPECT_EQ(l.error, "");
  EXPECT_EQ(l.entries,
            (Entries{"GELU-VAL-1", "LN-SHAPE-2", "GeluBackward/valid", "last without newline"}));
  EXPECT_EQ(parse_clause_list("x", "").entries, Entries{});
  EXPECT_EQ(parse_clause_list("x", "\n\n#only\n").entries, Entries{});
  // Unknown IDs are not this reader's business (they become report warnings).
  EXPECT_EQ(parse_clause_list("x", "NO-SUCH-CLAUSE\n").entries, Entries{"NO-SUCH-CLAUSE"});
  // UTF-8 is text: a comment or an entry may hold it.
  EXPECT_EQ(parse_clause_list("x", "A-1 # \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80\n").entries,
            Entries{"A-1"});
}

TEST(ClauseLists, MalformedFilesNameFileLineAndProblem) {
  auto error = [](std::string_view text) {
    const ClauseList l = parse_clause_list("skips.txt", text);
    EXPECT_TRUE(l.entries.empty() || l.error.empty());
    return l.error;
  };
  EXPECT_EQ(error(std::string_view("A-1\nB-\0-2\n", 10)),
            "skips.txt: line 2: NUL byte (not a text file?)");
  EXPECT_EQ(error("A-1\n\nC-\xff\n"), "skips.txt: line 3: byte 3 is not UTF-8");
  EXPECT_EQ(error("\xc3"), "skips.txt: line 1: byte 1 is not UTF-8");              // truncated
  EXPECT_EQ(error("\xc0\xaf"), "skips.txt: line 1: byte 1 is not UTF-8");          // overlong
  EXPECT_EQ(error("\xed\xa0\x80"), "skips.txt: line 1: byte 1 is not UTF-8");      // surrogate
  EXPECT_EQ(error("\xf4\x90\x80\x80"), "skips.txt: line 1: byte 1 is not UTF-8");  // > U+10FFFF
  EXPECT_EQ(error("# \x80 in a comment"), "skips.txt: line 1: byte 3 is not UTF-8");
  EXPECT_EQ(error("A\n" + std::string(kClauseListMaxLine + 1, 'x')),
            "skips.txt: line 2: line longer than 4096 bytes");
  EXPECT_EQ(error(std::string(kClauseListMaxLine, 'x')), "");
  EXPECT_EQ(error(std::string(kClauseListMaxBytes + 1, '\n')),
            "skips.txt: line 1: the file is over 1048576 bytes");
}

TEST(ClauseLists, ReadsFilesAndRefusesWhatIsNotOne) {
  const fs::path dir = fs::temp_directory_path() / ("aclnn_lists_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "xfails.txt";
  std::ofstream(file) << "LG-EPS-1\n# c\nGBAG-EMPTY-1\n";
  const ClauseList l = read_clause_list(file.string());
  EXPECT_EQ(l.error, "");
  EXPECT_EQ(l.entries, (Entries{"LG-EPS-1", "GBAG-EMPTY-1"}));
  std::ofstream(file, std::ios::binary) << std::string("A\0", 2);
  EXPECT_EQ(read_clause_list(file.string()).error,
            file.string() + ": line 1: NUL byte (not a text file?)");
  EXPECT_EQ(read_clause_list(dir.string()).error, dir.string() + ": not a regular file");
  EXPECT_EQ(read_clause_list((dir / "none").string())
                .error.rfind((dir / "none").string() + ": cannot read: ", 0),
            0u);
  // A device would never end; it is refused before reading.
  EXPECT_EQ(read_clause_list("/dev/zero").error, "/dev/zero: not a regular file");
  fs::remove_all(dir);
}

}  // namespace
