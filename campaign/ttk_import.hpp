// The vendor's case files: `aclnn-conform import-ttk FILE.csv... --out DIR` turns the rows of
// ops-test-kit's ACLNN-mode case files (ttk_aclnn_*.csv: testcase_name, api_name,
// tensor_view_shapes, tensor_dtypes, attributes, input_data_ranges, ...) into corpus entries
// (DIR/corpus/*.json, the JSON campaign/corpus.cpp stores) that `run --out DIR` replays first and
// `replay DIR/corpus --sut LIB` runs on any library, judged like any other case.
//
// A row is one call: its tensors in the API's parameter order (None: a NULL tensor), their
// dtypes, views (shape, strides, offset, storage shape), values drawn from the row's ranges
// (seeded; the third and further values of a range are placed in the data, as the kit does) or
// given in `attributes` by the tensor's name, and the API's attributes by name. A row the
// specification forbids (a dtype, a shape, a NULL the op rejects) is imported as it is and judged
// as the error the specification expects. A row the importer cannot read - not CSV, no api_name,
// an API aclnn-conform does not test, a field that is not the kit's Python literal, a tensor or
// attribute the API does not have - is a TtkImportError naming the file and the line. Rows that
// are disabled (is_enabled False), for another SoC (soc_series) or larger than the size limit are
// skipped and listed. docs/standards.md describes the format as the kit's files write it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "properties/case.hpp"

namespace aclnn_conform {

struct TtkImportError : std::runtime_error {
  TtkImportError(const std::string &file, int line, const std::string &what);
  std::string file;
  int line = 0;
};

// A Python literal as the kit's CSV cells hold them (the kit evals them): None, True/False,
// integers, floats (1e-8, -0.0, inf, nan), 'strings', tuples and lists, dicts.
struct PyValue {
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kList, kDict } kind = Kind::kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<PyValue> items;                        // kList (tuples too)
  std::vector<std::pair<PyValue, PyValue>> entries;  // kDict
  bool is_number() const {
    return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool;
  }
  double number() const;  // kInt, kFloat, kBool as a double
};
// Throws std::invalid_argument saying where the text stops being a literal.
PyValue parse_py_literal(std::string_view text);

// One CSV record: its cells and the line it starts on (1-based; quoted cells may span lines).
struct CsvRecord {
  int line = 0;
  std::vector<std::string> cells;
};
// RFC 4180 CSV ("" in a quoted cell is one "); blank lines are skipped. Throws
// std::invalid_argument (with the line) on an unterminated quote.
std::vector<CsvRecord> parse_csv(std::string_view text);

struct TtkImportOptions {
  std::string out_dir = "ttk-import";
  Product product = Product::kAtlasA2;  // the product every imported case is a call on
  uint64_t seed = 1;                    // of the values drawn from the ranges
  int64_t max_case_bytes = 64ll << 20;  // a row whose tensors hold more is skipped
};

struct TtkImportResult {
  int imported = 0, skipped = 0;
  std::vector<std::string> files;  // corpus entries written (relative to out_dir)
  std::vector<std::string> notes;  // one per skipped row: "FILE:LINE NAME: why"
};

// The case of one row (cells by column name); throws std::invalid_argument with the reason.
// skip_reason is set (and the case is not built) for a row that is skipped rather than imported.
Case ttk_row_case(const std::map<std::string, std::string> &row, const TtkImportOptions &opt,
                  uint64_t row_seed, std::string &skip_reason);

// Imports every row of the files; throws TtkImportError on the first row it cannot read (files
// already written stay). Writes out_dir/corpus/<id>.json.
TtkImportResult import_ttk(const std::vector<std::string> &files, const TtkImportOptions &opt,
                           std::ostream &log);

}  // namespace aclnn_conform
