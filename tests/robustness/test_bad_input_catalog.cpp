// The bad-input catalog (docs/robustness.md): every error row of the edge tables (each op's error
// clauses) plus the runtime and tensor entries below. Each entry must give its documented status,
// an aclGetRecentErrMsg() naming the offending parameter, and leave every input and output byte
// unchanged. ACLNN_CATALOG_MD=<file> writes the catalog with its observed results as a Markdown
// table (how docs/robustness.md's table is made).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "edge_cases/edge_case.hpp"
#include "properties/clauses.hpp"
#include "properties/generic.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"

namespace {
using namespace aclnn_conform;

struct CatalogRow {
  std::string entry, expected, observed, message;
  bool untouched;
};
std::vector<CatalogRow> &catalog() {
  static std::vector<CatalogRow> rows;
  return rows;
}

class CatalogWriter : public ::testing::Environment {
 public:
  void TearDown() override {
    const char *path = std::getenv("ACLNN_CATALOG_MD");
    if (path == nullptr) return;
    std::ofstream out(path);
    out << "| entry | documented | observed | aclGetRecentErrMsg() | bytes unchanged |\n"
           "|---|---|---|---|---|\n";
    for (const auto &r : catalog()) {
      std::string msg = r.message;
      for (char &c : msg)
        if (c == '|') c = '/';
      out << "| " << r.entry << " | " << r.expected << " | " << r.observed << " | " << msg << " | "
          << (r.untouched ? "yes" : "NO") << " |\n";
    }
  }
};
const auto *const kWriter = ::testing::AddGlobalTestEnvironment(new CatalogWriter);

// ---- A: the error rows of every edge table ----------------------------------------------------

std::string error_row_entry(const EdgeCase &row) {
  return row.call.op + " " + row.clause + ": " + row.title;
}

std::vector<EdgeCase> error_rows() {
  std::vector<EdgeCase> rows;
  for (auto &r : all_edge_cases())
    if (r.expected_status != 0) rows.push_back(r);
  return rows;
}

class ErrorClause : public ::testing::TestWithParam<EdgeCase> {};

TEST_P(ErrorClause, DocumentedStatusMessageNamesParameterNothingTouched) {
  const EdgeCase &row = GetParam();
  const OpDescriptor *op = find_op(row.call.op);
  ASSERT_NE(op, nullptr);
  const Outcome o = run_case(builtin_sut(), *op, row.call);
  EXPECT_EQ(o.status, row.expected_status) << o.message;
  // The judge checks ABI-INPUT-1 (inputs unchanged), untouched outputs on a refused call, the
  // guards around every storage and a non-empty message (ABI-ERRMSG-1).
  const Judgement j = judge(*op, row.call, o);
  EXPECT_TRUE(j.pass()) << row.call.describe() << "\n" << j.failures();
  // The message names a parameter of the call (tensor or attribute), or the product for the
  // platform rows (ABI-SOC-*), which no parameter causes.
  bool named = row.clause.rfind("ABI-SOC", 0) == 0 && o.message.find("Atlas") != std::string::npos;
  for (const auto &[name, t] : row.call.tensors) named |= o.message.find(name) != std::string::npos;
  for (const auto &[name, a] : row.call.attrs) named |= o.message.find(name) != std::string::npos;
  EXPECT_TRUE(named) << "message names no parameter: " << o.message;
  catalog().push_back({error_row_entry(row), std::to_string(row.expected_status),
                       std::to_string(o.status), o.message, j.pass()});
}

std::string row_name(const ::testing::TestParamInfo<EdgeCase> &info) {
  std::string name =
      info.param.call.op + "_" + info.param.clause + "_" + std::to_string(info.index);
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}
INSTANTIATE_TEST_SUITE_P(EdgeTables, ErrorClause, ::testing::ValuesIn(error_rows()), row_name);

// ---- B: runtime, tensor and executor entries ---------------------------------------------------

// Byte buffers whose every byte is compared before and after an entry.
struct Memory {
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<std::vector<uint8_t>> before;
  void *add(size_t bytes, uint8_t fill) {
    buffers.emplace_back(bytes, fill);
    for (size_t i = 0; i < bytes; ++i) buffers.back()[i] = static_cast<uint8_t>(fill + i * 13);
    return buffers.back().data();
  }
  void snapshot() { before = buffers; }
  bool untouched() const { return before == buffers; }
};

void record(const std::string &entry, int expected, int observed, const std::string &param,
            const Memory &m) {
  const std::string msg = aclGetRecentErrMsg();
  EXPECT_EQ(observed, expected) << entry << ": " << msg;
  EXPECT_NE(msg.find(param), std::string::npos)
      << entry << ": message does not name " << param << ": " << msg;
  EXPECT_TRUE(m.untouched()) << entry << ": bytes changed";
  catalog().push_back(
      {entry, std::to_string(expected), std::to_string(observed), msg, m.untouched()});
}

// aclCreateTensor refusals: NULL, with the reason.
void expect_tensor_refused(const std::string &entry, std::vector<int64_t> dims,
                           std::vector<int64_t> strides, int64_t offset,
                           std::vector<int64_t> storage, aclDataType dt, const std::string &param) {
  Memory m;
  void *data = m.add(64, 1);
  m.snapshot();
  aclTensor *t = aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), offset,
                                 ACL_FORMAT_ND, storage.data(), storage.size(), data);
  EXPECT_EQ(t, nullptr) << entry;
  if (t) aclDestroyTensor(t);
  const std::string msg = aclGetRecentErrMsg();
  EXPECT_NE(msg.find(param), std::string::npos) << entry << ": " << msg;
  EXPECT_TRUE(m.untouched());
  catalog().push_back(
      {"aclCreateTensor: " + entry, "NULL", t ? "a tensor" : "NULL", msg, m.untouched()});
}

constexpr int64_t kBig = int64_t{1} << 32;

TEST(BadInputCatalog, TensorElementCountOverflowsInt64) {
  expect_tensor_refused("element count 2^32 * 2^32 overflows int64", {kBig, kBig}, {0, 0}, 0, {1},
                        ACL_FLOAT, "viewDims");
  expect_tensor_refused("element count overflows even with a zero dim first", {0, kBig, kBig},
                        {1, 1, 1}, 0, {1}, ACL_FLOAT, "viewDims");
  expect_tensor_refused("storage bytes (2^61 floats) overflow int64", {1}, {1}, 0,
                        {int64_t{1} << 61}, ACL_FLOAT, "storageDims");
}

TEST(BadInputCatalog, TensorViewPastItsStorage) {
  expect_tensor_refused("view [4] at offset 1 over storage [4]", {4}, {1}, 1, {4}, ACL_FLOAT,
                        "storageDims");
  expect_tensor_refused("view [2,3] strides [4,1] over storage [6]", {2, 3}, {4, 1}, 0, {6},
                        ACL_FLOAT, "storageDims");
  expect_tensor_refused("empty view at offset INT64_MAX (byte position overflows int64)", {0}, {1},
                        INT64_MAX, {0}, ACL_FLOAT, "offset");
  expect_tensor_refused("stride INT64_MAX over a dim of size 1 (byte step overflows int64)", {1, 2},
                        {INT64_MAX, 1}, 0, {2}, ACL_FLOAT, "stride");
  expect_tensor_refused("reach overflows int64 (stride 2^62)", {4}, {int64_t{1} << 62}, 0, {8},
                        ACL_FLOAT, "storageDims");
}

TEST(BadInputCatalog, TensorNegativeOrUnknownFields) {
  expect_tensor_refused("negative dim", {2, -1}, {1, 1}, 0, {8}, ACL_FLOAT, "viewDims");
  expect_tensor_refused("negative stride", {2}, {-1}, 1, {8}, ACL_FLOAT, "stride");
  expect_tensor_refused("negative offset", {2}, {1}, -1, {8}, ACL_FLOAT, "offset");
  expect_tensor_refused("dtype 99", {2}, {1}, 0, {8}, static_cast<aclDataType>(99), "dataType");
  expect_tensor_refused("65 dims", std::vector<int64_t>(65, 1), std::vector<int64_t>(65, 1), 0, {8},
                        ACL_FLOAT, "viewDimsNum");
}

// A small GeluBackward FLOAT [8] call over buffers in `m`.
struct GeluCall {
  Memory m;
  aclTensor *dy, *x, *out;
  explicit GeluCall(int64_t out_stride = 1, int64_t out_offset = 0, bool out_in_x = false) {
    const int64_t d[] = {8}, s1[] = {1}, so[] = {out_stride}, st[] = {16};
    void *dy_data = m.add(64, 3), *x_data = m.add(64, 5);
    void *out_data = out_in_x ? x_data : m.add(64, 7);
    dy = aclCreateTensor(d, 1, ACL_FLOAT, s1, 0, ACL_FORMAT_ND, st, 1, dy_data);
    x = aclCreateTensor(d, 1, ACL_FLOAT, s1, 0, ACL_FORMAT_ND, st, 1, x_data);
    out = aclCreateTensor(d, 1, ACL_FLOAT, so, out_offset, ACL_FORMAT_ND, st, 1, out_data);
    m.snapshot();
  }
  ~GeluCall() {
    aclDestroyTensor(dy);
    aclDestroyTensor(x);
    aclDestroyTensor(out);
  }
  int phase_one(uint64_t *ws, aclOpExecutor **ex) {
    return aclnnGeluBackwardGetWorkspaceSize(dy, x, out, ws, ex);
  }
};

TEST(BadInputCatalog, OverlappingOutputViews) {
  {
    GeluCall c(/*out_stride=*/0);
    ASSERT_NE(c.out, nullptr);
    uint64_t ws;
    aclOpExecutor *ex;
    record("GeluBackward: gradInput with stride 0 (distinct indices share an element)",
           ACLNN_ERR_PARAM_INVALID, c.phase_one(&ws, &ex), "gradInput", c.m);
  }
  {
    GeluCall c(1, /*out_offset=*/1, /*out_in_x=*/true);
    ASSERT_NE(c.out, nullptr);
    uint64_t ws;
    aclOpExecutor *ex;
    record("GeluBackward: gradInput overlaps self shifted by one element", ACLNN_ERR_PARAM_INVALID,
           c.phase_one(&ws, &ex), "gradInput", c.m);
  }
}

TEST(BadInputCatalog, ExecutorRunTwiceByAnotherOpOrNull) {
  GeluCall c;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(c.phase_one(&ws, &ex), 0);
  c.m.snapshot();
  record("SeluBackward phase two given GeluBackward's executor", ACLNN_ERR_PARAM_INVALID,
         aclnnSeluBackward(nullptr, ws, ex, nullptr), "executor", c.m);
  ASSERT_EQ(aclnnGeluBackward(nullptr, ws, ex, nullptr), 0);
  c.m.snapshot();
  record("GeluBackward executor run a second time", ACLNN_ERR_PARAM_INVALID,
         aclnnGeluBackward(nullptr, ws, ex, nullptr), "executor", c.m);
  record("GeluBackward phase two with a NULL executor", ACLNN_ERR_PARAM_NULLPTR,
         aclnnGeluBackward(nullptr, 0, nullptr, nullptr), "executor", c.m);
  record("GeluBackward phase one with NULL executor out-parameter", ACLNN_ERR_PARAM_NULLPTR,
         c.phase_one(&ws, nullptr), "executor", c.m);
  record("GeluBackward phase one with NULL workspaceSize out-parameter", ACLNN_ERR_PARAM_NULLPTR,
         c.phase_one(nullptr, &ex), "workspaceSize", c.m);
}

TEST(BadInputCatalog, WorkspaceSmallerThanAskedOrNull) {
  // LayerNormBackward FLOAT [4, 8] asks for a workspace (its column reductions).
  Memory m;
  const int64_t dims[] = {4, 8}, strides[] = {8, 1}, st[] = {32}, sdims[] = {4, 1}, sstr[] = {1, 1},
                sst[] = {4}, wd[] = {8}, ws1[] = {1}, wst[] = {8};
  auto mk = [&](const int64_t *d, uint64_t r, const int64_t *s, const int64_t *sd, size_t bytes,
                uint8_t fill) {
    return aclCreateTensor(d, r, ACL_FLOAT, s, 0, ACL_FORMAT_ND, sd, 1, m.add(bytes, fill));
  };
  aclTensor *dy = mk(dims, 2, strides, st, 128, 1), *x = mk(dims, 2, strides, st, 128, 2),
            *mean = mk(sdims, 2, sstr, sst, 16, 3), *rstd = mk(sdims, 2, sstr, sst, 16, 4),
            *gi = mk(dims, 2, strides, st, 128, 5), *gw = mk(wd, 1, ws1, wst, 32, 6),
            *gb = mk(wd, 1, ws1, wst, 32, 7);
  const int64_t ns_v[] = {8};
  const bool mask_v[] = {true, true, true};
  aclIntArray *ns = aclCreateIntArray(ns_v, 1);
  aclBoolArray *mask = aclCreateBoolArray(mask_v, 3);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(dy, x, ns, mean, rstd, nullptr, nullptr, mask,
                                                   gi, gw, gb, &ws, &ex),
            0)
      << aclGetRecentErrMsg();
  ASSERT_GT(ws, 0u) << "LayerNormBackward asks no workspace here; pick a call that does";
  std::vector<uint8_t> workspace(ws);
  m.snapshot();
  record("LayerNormBackward phase two with workspaceSize one byte short", ACLNN_ERR_PARAM_INVALID,
         aclnnLayerNormBackward(workspace.data(), ws - 1, ex, nullptr), "workspaceSize", m);
  record("LayerNormBackward phase two with a NULL workspace of the asked size",
         ACLNN_ERR_PARAM_NULLPTR, aclnnLayerNormBackward(nullptr, ws, ex, nullptr), "workspace", m);
  EXPECT_EQ(aclnnLayerNormBackward(workspace.data(), ws, ex, nullptr), 0);  // still runnable
  for (aclTensor *t : {dy, x, mean, rstd, gi, gw, gb}) aclDestroyTensor(t);
  aclDestroyIntArray(ns);
  aclDestroyBoolArray(mask);
}

TEST(BadInputCatalog, MemcpyBadKindsAndSizes) {
  Memory m;
  auto *dst = static_cast<uint8_t *>(m.add(32, 9));
  auto *src = static_cast<uint8_t *>(m.add(32, 11));
  m.snapshot();
  record("aclrtMemcpy kind -1", ACL_ERROR_INVALID_PARAM,
         aclrtMemcpy(dst, 32, src, 16, static_cast<aclrtMemcpyKind>(-1)), "kind", m);
  record("aclrtMemcpy kind 4", ACL_ERROR_INVALID_PARAM,
         aclrtMemcpy(dst, 32, src, 16, static_cast<aclrtMemcpyKind>(4)), "kind", m);
  record("aclrtMemcpy count 33 > destMax 32", ACL_ERROR_INVALID_PARAM,
         aclrtMemcpy(dst, 32, src, 33, ACL_MEMCPY_HOST_TO_DEVICE), "destMax", m);
  record("aclrtMemcpy count SIZE_MAX > destMax", ACL_ERROR_INVALID_PARAM,
         aclrtMemcpy(dst, 32, src, SIZE_MAX, ACL_MEMCPY_DEVICE_TO_HOST), "destMax", m);
  record("aclrtMemcpy NULL dst, count 8", ACL_ERROR_INVALID_PARAM,
         aclrtMemcpy(nullptr, 32, src, 8, ACL_MEMCPY_HOST_TO_HOST), "dst", m);
  record("aclrtMemcpy NULL src, count 8", ACL_ERROR_INVALID_PARAM,
         aclrtMemcpy(dst, 32, nullptr, 8, ACL_MEMCPY_DEVICE_TO_DEVICE), "src", m);
}

TEST(BadInputCatalog, MallocBadSizesAndPolicies) {
  Memory m;
  void *p = nullptr;
  record("aclrtMalloc size 0", ACL_ERROR_INVALID_PARAM,
         aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), "size", m);
  record("aclrtMalloc policy 7", ACL_ERROR_INVALID_PARAM,
         aclrtMalloc(&p, 64, static_cast<aclrtMemMallocPolicy>(7)), "policy", m);
  record("aclrtMalloc size SIZE_MAX - 1 (rounding would wrap)", ACL_ERROR_BAD_ALLOC,
         aclrtMalloc(&p, SIZE_MAX - 1, ACL_MEM_MALLOC_NORMAL_ONLY), "size", m);
  record("aclrtMalloc NULL devPtr", ACL_ERROR_INVALID_PARAM,
         aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), "devPtr", m);
  EXPECT_EQ(p, nullptr);
}

// ---- C: the table in docs/robustness.md is this catalog's -------------------------------------

// Rows of the catalog table in docs/robustness.md: entry -> cells (entry, documented, observed,
// message, bytes unchanged).
std::map<std::string, std::vector<std::string>> documented_table() {
  std::map<std::string, std::vector<std::string>> rows;
  std::ifstream doc(ACLNN_SOURCE_DIR "/docs/robustness.md");
  bool in_table = false;
  std::string line;
  while (std::getline(doc, line)) {
    if (line.rfind("| entry | documented | observed |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("|---", 0) == 0) continue;
    if (line.rfind("| ", 0) != 0) break;
    std::vector<std::string> cells;
    size_t at = 1;
    for (size_t bar; (bar = line.find('|', at)) != std::string::npos; at = bar + 1) {
      std::string cell = line.substr(at, bar - at);
      cell.erase(0, cell.find_first_not_of(' '));
      cell.erase(cell.find_last_not_of(' ') + 1);
      cells.push_back(cell);
    }
    if (cells.size() == 5) rows[cells[0]] = cells;
  }
  return rows;
}

// The documented table is complete and agrees with the code: every error row of the edge tables is
// in it with its documented status; every entry in it observed its documented status and left
// every byte unchanged; every error clause of the specification has an entry. (Regenerate with
// ACLNN_CATALOG_MD=<file> build/tests/bad_input_tests after changing the catalog.)
TEST(Catalog, DocumentedTableCoversEveryErrorRowAndClause) {
  const auto doc = documented_table();
  ASSERT_GT(doc.size(), 100u) << "no catalog table found in docs/robustness.md";
  for (const auto &row : error_rows()) {
    const auto it = doc.find(error_row_entry(row));
    ASSERT_NE(it, doc.end()) << "docs/robustness.md lacks " << error_row_entry(row);
    EXPECT_EQ(it->second[1], std::to_string(row.expected_status)) << it->first;
  }
  for (const auto &[entry, cells] : doc) {
    EXPECT_EQ(cells[1], cells[2]) << entry << ": observed differs from documented";
    EXPECT_EQ(cells[4], "yes") << entry << ": bytes changed";
    EXPECT_FALSE(cells[3].empty()) << entry << ": no message";
  }
  for (const auto &c : clause_catalog()) {
    if (c.kind != "error") continue;
    bool listed = false;
    for (const auto &[entry, cells] : doc)
      listed |= entry.find(" " + c.id + ": ") != std::string::npos;
    EXPECT_TRUE(listed) << "error clause " << c.id << " has no catalog entry";
  }
}

}  // namespace
