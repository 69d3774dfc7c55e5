#include "campaign/corpus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <ostream>
#include <stdexcept>

namespace aclnn_conform {

namespace fs = std::filesystem;

namespace {
uint64_t fnv1a(const std::string &s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}
}  // namespace

std::vector<fs::path> corpus_files(const std::vector<std::string> &paths) {
  std::vector<fs::path> files;
  for (const auto &p : paths) {
    if (fs::is_directory(p)) {
      for (const auto &e : fs::directory_iterator(p))
        if (e.path().extension() == ".json") files.push_back(e.path());
    } else if (fs::exists(p)) {
      files.emplace_back(p);
    } else {
      throw std::invalid_argument("replay: no such file or directory: " + p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::deque<Task> load_corpus(const std::vector<std::string> &paths, const std::string &only_id,
                             std::ostream &log) {
  std::deque<Task> tasks;
  const std::vector<fs::path> files = corpus_files(paths);
  int64_t k = 0;
  for (const auto &f : files) {
    if (!only_id.empty() && f.stem().string() != only_id) continue;
    try {
      std::ifstream in(f);
      auto c = std::make_shared<Case>(case_from_json(nlohmann::json::parse(in)));
      const OpDescriptor *op = find_op(c->op);
      if (!op) throw std::runtime_error("unknown op " + c->op);
      Task t;
      t.index = -1 - k++;
      t.op = op;
      t.kind = Task::Kind::kCorpus;
      t.stored = std::move(c);
      t.origin = "corpus " + f.filename().string();
      t.corpus_id = f.stem().string();
      tasks.push_back(std::move(t));
    } catch (const std::exception &e) {
      log << "warning: skipping corpus file " << f << ": " << e.what() << "\n";
    }
  }
  if (!only_id.empty() && tasks.empty())
    throw std::invalid_argument("no corpus entry with id '" + only_id + "'");
  return tasks;
}

void store_in_corpus(Deviation &d, const CampaignResult &run, const std::string &out_dir) {
  nlohmann::json entry = to_json(d.minimal);
  const std::string text = entry.dump();
  d.case_id = fmt::format("{}-{}-{:016x}", d.op, d.clause, fnv1a(text));
  // The entry is the case itself (readable by case_from_json) plus where it came from.
  entry["id"] = d.case_id;
  entry["clause"] = d.clause;
  entry["kind"] = d.kind;
  entry["call"] = d.call;
  entry["sut"] = to_json(run.sut_identity);
  // Every file of the SUT (path, SONAME, size, SHA-256) in load order: a split library is one
  // build only if each of its files is the same.
  entry["sut_file_identities"] = nlohmann::json::array();
  for (const auto &f : run.sut_files) entry["sut_file_identities"].push_back(to_json(f));
  // A library split over several files (or "cann") is loaded again as it was given.
  if (run.sut_files.size() > 1) {
    std::string spec;
    for (const auto &f : run.sut_files) spec += (spec.empty() ? "" : ":") + f.path;
    entry["sut_files"] = spec;
  }
  entry["product_of_record"] = run.product;
  entry["tool_version"] = run.tool_version;
  const fs::path dir = fs::path(out_dir) / "corpus";
  fs::create_directories(dir);
  const fs::path file = dir / (d.case_id + ".json");
  if (!fs::exists(file)) std::ofstream(file) << entry.dump(1) << "\n";
  d.corpus_file = fs::relative(file, out_dir).string();
}

}  // namespace aclnn_conform
