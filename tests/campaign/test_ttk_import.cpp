// import-ttk (campaign/ttk_import.hpp): the kit's Python literals and CSV, the rows of the case
// files the project writes in the kit's format (tests/campaign/ttk/), every refusal naming its
// file and line, and the imported corpus replayed on the built-in library with the verdicts the
// specification gives (a row it forbids is judged as the error it expects).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/corpus.hpp"
#include "campaign/ttk_import.hpp"
#include "properties/op.hpp"

namespace {

using namespace aclnn_conform;
namespace fs = std::filesystem;

const std::string kDir = std::string(ACLNN_TEST_SOURCE_DIR) + "/tests/campaign/ttk/";

fs::path scratch(const std::string &name) {
  const fs::path p =
      fs::temp_directory_path() / ("aclnn-ttk-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  return p;
}

TEST(PyLiteral, TheKitsCellValues) {
  const PyValue t = parse_py_literal("((4, 16), None, (1,), ())");
  ASSERT_EQ(t.kind, PyValue::Kind::kList);
  ASSERT_EQ(t.items.size(), 4u);
  EXPECT_EQ(t.items[0].items[1].i, 16);
  EXPECT_EQ(t.items[1].kind, PyValue::Kind::kNone);
  EXPECT_EQ(t.items[2].items.size(), 1u);
  EXPECT_TRUE(t.items[3].items.empty());
  const PyValue d = parse_py_literal("{'outputMask': [True, False], 'eps': 1.00E-03, 'k': -0.0}");
  ASSERT_EQ(d.entries.size(), 3u);
  EXPECT_TRUE(d.entries[0].second.items[0].b);
  EXPECT_EQ(d.entries[1].second.f, 1e-3);
  EXPECT_TRUE(std::signbit(d.entries[2].second.f));
  const PyValue r = parse_py_literal("((-1, 1, -0.0, inf, -inf, nan),)");
  const auto &v = r.items[0].items;
  EXPECT_TRUE(std::isinf(v[3].f) && v[3].f > 0);
  EXPECT_TRUE(std::isinf(v[4].f) && v[4].f < 0);
  EXPECT_TRUE(std::isnan(v[5].f));
  EXPECT_EQ(parse_py_literal("\"('float16','float32')\"").kind, PyValue::Kind::kString);
  EXPECT_EQ(parse_py_literal("float('-inf')").f, -INFINITY);
  EXPECT_THROW(parse_py_literal("((1, 2)"), std::invalid_argument);
  EXPECT_THROW(parse_py_literal("(1, 2) x"), std::invalid_argument);
  EXPECT_THROW(parse_py_literal("open('f')"), std::invalid_argument);
}

TEST(Csv, QuotesLinesAndBlankLines) {
  const auto recs = parse_csv("a,b,c\r\n\r\n1,\"x, \"\"y\"\"\",3\n\"multi\nline\",,\n");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[1].line, 3);
  EXPECT_EQ(recs[1].cells[1], "x, \"y\"");
  EXPECT_EQ(recs[2].line, 4);
  EXPECT_EQ(recs[2].cells[0], "multi\nline");
  EXPECT_EQ(recs[2].cells.size(), 3u);
  EXPECT_THROW(parse_csv("a\n\"open\n"), std::invalid_argument);
}

TEST(TtkImport, RowsBecomeCases) {
  const fs::path out = scratch("rows");
  TtkImportOptions opt;
  opt.out_dir = out.string();
  std::ostringstream log;
  const auto res = import_ttk(
      {kDir + "ttk_aclnn_gelu_backward.csv", kDir + "ttk_aclnn_other_ops.csv"}, opt, log);
  EXPECT_EQ(res.imported, 7 + 9);
  EXPECT_EQ(res.skipped, 2);  // is_enabled False, and a row for every SoC but ascend910b
  ASSERT_EQ(res.notes.size(), 2u);
  EXPECT_NE(res.notes[0].find("ttk_aclnn_gelu_backward.csv:9 gelu_bwd_disabled: skipped"),
            std::string::npos)
      << res.notes[0];
  EXPECT_NE(res.notes[1].find("soc_series"), std::string::npos);
  // Every entry is a corpus case; the strided bf16 row keeps its view.
  std::ostringstream warn;
  const auto tasks = load_corpus({(out / "corpus").string()}, "", warn);
  EXPECT_EQ(tasks.size(), 16u);
  EXPECT_TRUE(warn.str().empty()) << warn.str();
  bool strided = false, specials = false, fixed = false;
  for (const auto &f : fs::directory_iterator(out / "corpus")) {
    std::ifstream in(f.path());
    const auto j = nlohmann::json::parse(in);
    EXPECT_TRUE(j.contains("ttk"));
    const Case c = case_from_json(j);
    if (j.at("ttk").at("testcase_name") == "gelu_bwd_bf16_strided") {
      strided = true;
      const TensorArg *dy = c.tensor("gradOutput");
      EXPECT_EQ(dy->strides, (std::vector<int64_t>{8, 1}));
      EXPECT_EQ(dy->offset, 2);
      EXPECT_EQ(dy->storage_elements(), 24);
      EXPECT_EQ(dy->dtype, aclnn_ref::DType::kBFloat16);
    }
    if (j.at("ttk").at("testcase_name") == "gelu_bwd_fp16_broadcast") {
      // The range's further values appear in the data: 0, -0, inf, -inf, NaN.
      const auto v = c.tensor("self")->view();
      int inf = 0, ninf = 0, nan = 0;
      for (int64_t i = 0; i < v.numel(); ++i) {
        const double x = v.at(i);
        inf += x == INFINITY;
        ninf += x == -INFINITY;
        nan += std::isnan(x);
        if (!std::isnan(x) && std::isfinite(x)) EXPECT_TRUE(x >= -4 && x <= 4);
      }
      specials = inf == 1 && ninf == 1 && nan == 1;
    }
    if (j.at("ttk").at("testcase_name") == "gelu_bwd_fixed_values") {
      fixed = true;
      EXPECT_EQ(c.tensor("self")->view().at(5), 3.0);
      EXPECT_EQ(c.tensor("gradOutput")->view().at(0), 1.0);
    }
    if (j.at("ttk").at("testcase_name") == "gbag_v2_fp16_sizes") {
      EXPECT_EQ(c.tensor("groupIdxOptional")->view().at(2), 5.0);
      EXPECT_EQ(std::get<int64_t>(*c.attr("groupIdxType")), 1);
    }
    if (j.at("ttk").at("testcase_name") == "layer_norm_bwd_null_shape")
      EXPECT_TRUE(std::holds_alternative<std::monostate>(*c.attr("normalizedShape")));
  }
  EXPECT_TRUE(strided && specials && fixed);
  // The same seed draws the same values.
  const fs::path again = scratch("rows-again");
  opt.out_dir = again.string();
  import_ttk({kDir + "ttk_aclnn_gelu_backward.csv"}, opt, log);
  for (const auto &f : fs::directory_iterator(again / "corpus"))
    EXPECT_TRUE(fs::exists(out / "corpus" / f.path().filename())) << f.path();
  fs::remove_all(out);
  fs::remove_all(again);
}

TEST(TtkImport, RefusalsNameTheFileAndLine) {
  TtkImportOptions opt;
  opt.out_dir = scratch("bad").string();
  std::ostringstream log;
  const auto refusal = [&](const std::string &file) {
    try {
      import_ttk({kDir + file}, opt, log);
    } catch (const TtkImportError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string literal = refusal("bad_literal.csv");
  EXPECT_NE(literal.find("bad_literal.csv:3: broken_row: tensor_view_shapes: not a Python literal"),
            std::string::npos)
      << literal;
  const std::string api = refusal("bad_api.csv");
  EXPECT_NE(api.find("bad_api.csv:2: add_row: api_name 'aclnnAdd' is not an API"),
            std::string::npos)
      << api;
  EXPECT_NE(
      refusal("bad_kernel_mode.csv").find("bad_kernel_mode.csv:1: not an ACLNN-mode case file"),
      std::string::npos);
  const std::string attr = refusal("bad_attribute.csv");
  EXPECT_NE(
      attr.find("bad_attribute.csv:4: logit_no_eps: attributes: 'epsilon' is not a parameter"),
      std::string::npos)
      << attr;
  EXPECT_NE(refusal("no_such_file.csv").find("cannot read"), std::string::npos);
  fs::remove_all(opt.out_dir);
}

// The imported rows replayed on the built-in library: it conforms on every one, the rows the
// specification forbids included (each is judged as the error it expects).
TEST(TtkImport, ReplayJudgesEveryRow) {
  const fs::path out = scratch("replay");
  TtkImportOptions opt;
  opt.out_dir = out.string();
  std::ostringstream log;
  import_ttk({kDir + "ttk_aclnn_gelu_backward.csv", kDir + "ttk_aclnn_other_ops.csv"}, opt, log);
  CampaignConfig cfg;
  cfg.jobs = 1;
  cfg.out_dir = (out / "replay").string();
  std::vector<std::string> paths;
  for (const auto &f : corpus_files({(out / "corpus").string()})) paths.push_back(f.string());
  std::ostringstream rlog;
  const CampaignResult r = replay_cases(cfg, paths, rlog);
  EXPECT_EQ(r.cases, 16);
  EXPECT_TRUE(r.deviations.empty()) << (r.deviations.empty() ? "" : r.deviations[0].all_failures);
  // The forbidden rows reached their error clauses.
  for (const char *id : {"GELU-DTYPE-1", "GELU-BCAST-2", "GELU-NULL-1", "LN-NULL-1"}) {
    const ClauseVerdict *v = r.clause(id);
    ASSERT_TRUE(v) << id;
    EXPECT_GE(v->reached, 1) << id;
    EXPECT_EQ(v->deviations, 0) << id;
  }
  // Every kit standard judged the valid rows.
  bool kits = false;
  for (const auto &a : r.accuracy)
    for (const auto &k : a.precision.kits) kits |= k.judged > 0;
  EXPECT_TRUE(kits);
  fs::remove_all(out);
}

}  // namespace
