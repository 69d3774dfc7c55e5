// The corpus: counterexamples stored as JSON files (the case itself, readable by case_from_json,
// plus where it came from), replayed first by the next campaign in the same output directory and
// by `aclnn-conform replay`.
#pragma once

#include <deque>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "campaign/result.hpp"
#include "campaign/task.hpp"

namespace aclnn_conform {

// The corpus files among paths (directories: their *.json files), sorted; throws
// std::invalid_argument naming a path that does not exist.
std::vector<std::filesystem::path> corpus_files(const std::vector<std::string> &paths);

// The stored cases among paths as corpus tasks (negative indices, in file order); only the entry
// whose id (file stem) is only_id unless that is "". An unreadable file is skipped with a warning
// on log; throws std::invalid_argument if only_id names no entry.
std::deque<Task> load_corpus(const std::vector<std::string> &paths, const std::string &only_id,
                             std::ostream &log);

// Stores d's minimal case in <out_dir>/corpus under a content-derived id ("<op>-<clause>-<hash>";
// an existing file of that id is kept), with the SUT, product and tool version of run. Sets
// d.case_id and d.corpus_file (relative to out_dir).
void store_in_corpus(Deviation &d, const CampaignResult &run, const std::string &out_dir);

}  // namespace aclnn_conform
