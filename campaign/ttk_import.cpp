// import-ttk (campaign/ttk_import.hpp): every row of the kit's case files read (ttk_parse.cpp),
// built into a case (ttk_case.cpp) and written as a corpus entry under a stable name, or skipped
// and listed; a row that cannot be read is an error naming its file and line.
#include "campaign/ttk_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <ostream>
#include <random>
#include <set>
#include <sstream>

#include "campaign/ttk_detail.hpp"
#include "properties/op.hpp"

namespace aclnn_conform {

namespace fs = std::filesystem;
using namespace ttk_detail;

TtkImportError::TtkImportError(const std::string &f, int l, const std::string &what)
    : std::runtime_error(fmt::format("{}:{}: {}", f, l, what)), file(f), line(l) {}

namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

std::string safe_name(const std::string &s) {
  std::string out;
  for (char c : s)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  if (out.size() > 80) out.resize(80);
  return out;
}

}  // namespace

TtkImportResult import_ttk(const std::vector<std::string> &files, const TtkImportOptions &opt,
                           std::ostream &log) {
  TtkImportResult res;
  const fs::path dir = fs::path(opt.out_dir) / "corpus";
  for (const auto &file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw TtkImportError(file, 0, "cannot read the file");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<CsvRecord> recs;
    try {
      recs = parse_csv(text);
    } catch (const std::invalid_argument &e) {
      throw TtkImportError(file, 0, e.what());
    }
    if (recs.empty()) throw TtkImportError(file, 1, "no header row (an empty file)");
    std::vector<std::string> header;
    for (const auto &h : recs[0].cells) header.push_back(trim(h));
    if (std::find(header.begin(), header.end(), "api_name") == header.end())
      throw TtkImportError(
          file, recs[0].line,
          "not an ACLNN-mode case file of ops-test-kit: no api_name column (kernel-mode "
          "files, with op_name, name kernels rather than aclnn APIs)");
    for (size_t r = 1; r < recs.size(); ++r) {
      const CsvRecord &rec = recs[r];
      if (rec.cells.size() > header.size())
        throw TtkImportError(
            file, rec.line,
            fmt::format("{} cells for {} columns (a cell with a comma must be quoted)",
                        rec.cells.size(), header.size()));
      std::map<std::string, std::string> row;
      for (size_t k = 0; k < rec.cells.size(); ++k) row[header[k]] = rec.cells[k];
      std::string name = trim(row["testcase_name"]);
      if (name.empty()) name = fmt::format("auto_testcase_name_{}", r);
      const uint64_t row_seed = opt.seed ^ fnv1a(name) ^ (static_cast<uint64_t>(rec.line) << 32);
      std::string skip;
      Case c;
      try {
        c = ttk_row_case(row, opt, row_seed, skip);
      } catch (const std::exception &e) {
        throw TtkImportError(file, rec.line, name + ": " + e.what());
      }
      if (!skip.empty()) {
        ++res.skipped;
        res.notes.push_back(fmt::format("{}:{} {}: skipped: {}", file, rec.line, name, skip));
        continue;
      }
      nlohmann::json entry = to_json(c);
      const std::string id =
          fmt::format("ttk-{}-{:08x}", safe_name(name),
                      fnv1a(fmt::format("{}:{}:{}", fs::path(file).filename().string(), rec.line,
                                        entry.dump())) &
                          0xffffffffu);
      entry["id"] = id;
      entry["origin"] =
          fmt::format("ttk {}:{} {}", fs::path(file).filename().string(), rec.line, name);
      nlohmann::json meta = {{"file", file}, {"line", rec.line}, {"testcase_name", name}};
      for (const char *k :
           {"precision_tolerances", "absolute_precision", "remark", "network_name", "priority"})
        if (!text_of(row, k).empty()) meta[k] = text_of(row, k);
      entry["ttk"] = meta;
      fs::create_directories(dir);
      const fs::path out = dir / (id + ".json");
      std::ofstream(out) << entry.dump(1) << "\n";
      res.files.push_back(fs::relative(out, opt.out_dir).string());
      ++res.imported;
      log << fmt::format("{}:{} {} -> {}\n", file, rec.line, name, res.files.back());
    }
  }
  return res;
}

}  // namespace aclnn_conform
