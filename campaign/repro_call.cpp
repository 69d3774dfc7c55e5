// A repro program's call (campaign/repro_detail.hpp): the case's tensors staged (storage bytes,
// views, handles), then the plain two-phase call with its status checks, or a protocol probe's
// calls instead.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "campaign/repro_detail.hpp"

namespace aclnn_conform::repro_detail {

namespace {

// Staging, one tensor: its view in a comment and its ReproTensor (storage bytes, view, dtype).
std::string repro_stage_tensor(const ReproPlan &p, size_t i) {
  const Case &c = p.c;
  const std::vector<std::string> &vars = p.vars;
  std::string s;
  const auto &[name, t] = c.tensors[i];
  if (!t.present) {
    s += fmt::format("  // {}: NULL (passed as nullptr)\n", name);
    return s;
  }
  if (const Alias *a = c.alias_of(name)) {
    s += fmt::format(
        "  // {}: in-place, exactly the view of {} ({})\n", name, a->input,
        a->same_handle ? "the same aclTensor" : "a second aclTensor over the same memory");
    return s;
  }
  s += fmt::format("  // {}: {} [{}], strides [{}], offset {}, storage {} elements\n", name,
                   aclnn_ref::dtype_name(t.dtype), fmt::join(t.shape, ", "),
                   fmt::join(t.strides, ", "), t.offset, t.storage_elements());
  if (t.numel() > 0 && t.numel() <= 16) {
    std::string vals;
    const auto v = t.view();
    for (int64_t k = 0; k < t.numel(); ++k)
      vals += (k ? ", " : "") + fmt::format("{:.9g}", v.at(k));
    s += "  //   view values: " + comment_text(vals) + "\n";
  }
  s += fmt::format(
      "  ReproTensor {}Arg{{{}, {}, {}, {}, {{{}}}, {{{}}}, {}, {}, nullptr, nullptr, {{}}, "
      "true}};\n",
      vars[i], c_string(name), p.is_output(name) ? "true" : "false", acl_dtype_enum(t.dtype),
      aclnn_ref::dtype_size(t.dtype), fmt::join(t.shape, ", "), fmt::join(t.strides, ", "),
      t.offset, byte_array(t.storage, "      "));
  return s;
}

// Staging, one tensor's aclTensor handle (a second handle over the input's memory for an
// in-place view that is not the same handle).
std::string repro_tensor_handle(const ReproPlan &p, size_t i) {
  const Case &c = p.c;
  const std::vector<std::string> &vars = p.vars;
  const std::vector<std::string> &argvars = p.argvars;
  std::string s;
  if (!c.tensors[i].second.present) return s;
  const Alias *a = c.alias_of(c.tensors[i].first);
  if (a && !a->same_handle) {
    const std::string &in = argvars[i];
    s += fmt::format(
        "  // In-place: a second aclTensor over {0}'s memory, exactly its view.\n"
        "  const int64_t {1}StorageDims[1] = {{static_cast<int64_t>({0}Arg.storage.size() / "
        "{0}Arg.elementSize)}};\n"
        "  aclTensor *{1} = aclCreateTensor({0}Arg.shape.data(), {0}Arg.shape.size(), "
        "{0}Arg.dataType, {0}Arg.strides.data(), {0}Arg.offset, aclFormat::ACL_FORMAT_ND, "
        "{1}StorageDims, 1, static_cast<unsigned char *>({0}Arg.deviceAddr) + kGuardBytes);\n"
        "  CHECK_RET({1} != nullptr, LOG_PRINT(\"DEVIATION (ABI-TENSOR-1): aclCreateTensor "
        "refused the in-place view\\n\"); return 1);\n",
        in, vars[i]);
  } else {
    s += fmt::format("  aclTensor *{} = {}Arg.tensor;\n", vars[i], argvars[i]);
  }
  return s;
}

}  // namespace

// Staging: every tensor, then their device copies and handles.
std::string repro_staging(const ReproPlan &p) {
  const Case &c = p.c;
  const std::vector<std::string> &vars = p.vars;
  std::string s =
      "  // 2. The tensors of the case: storage bytes (little-endian), view and dtype.\n";
  for (size_t i = 0; i < c.tensors.size(); ++i) s += repro_stage_tensor(p, i);
  s += "  std::vector<ReproTensor *> args = {";
  {
    bool first = true;
    for (size_t i = 0; i < c.tensors.size(); ++i) {
      if (!c.tensors[i].second.present || c.alias_of(c.tensors[i].first)) continue;
      s += (first ? "" : ", ") + ("&" + vars[i] + "Arg");
      first = false;
    }
  }
  s += "};\n";
  s += "  for (ReproTensor *t : args) {\n"
       "    ret = CreateAclTensor(*t);\n"
       "    CHECK_RET(ret != 2, return 2);\n"
       "    CHECK_RET(ret == 0, return 1);\n"
       "  }\n";
  for (size_t i = 0; i < c.tensors.size(); ++i) s += repro_tensor_handle(p, i);
  return s;
}

// The two-phase call and its status checks.
std::string repro_two_phase_call(const ReproPlan &p) {
  const OpDescriptor &op = p.op;
  const Case &c = p.c;
  const aclnn_ref::Verdict &expected_verdict = p.expected_verdict;
  const bool expect_error = p.expect_error, any_status = p.any_status;
  std::string s;
  s += "\n  // 3. 调用CANN算子库API: the first phase\n"
       "  uint64_t workspaceSize = 0;\n"
       "  aclOpExecutor *executor = nullptr;\n";
  std::string phase_one = op.repro_phase_one(c, p.phase_one_args);
  s += indented(phase_one, "  ");
  const std::string ws_name = op.phase_two_name + "GetWorkspaceSize";
  s += fmt::format("  LOG_PRINT(\"{} returned %d\\n\", static_cast<int>(ret));\n", ws_name);
  s += "  if (ret != 0) {\n"
       "    const char *msg = aclGetRecentErrMsg();\n"
       "    LOG_PRINT(\"aclGetRecentErrMsg: %s\\n\", msg != nullptr ? msg : \"(null)\");\n"
       "  }\n";
  s += "  bool ran = false;  // both phases succeeded: outputs may have been written\n";
  // The second phase, when the first succeeded and the case is valid (or any status goes).
  std::string phase_two =
      "    // 根据第一段接口计算出的workspaceSize申请device内存\n"
      "    void *workspaceAddr = nullptr;\n"
      "    if (workspaceSize > 0) {\n"
      "      ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);\n"
      "      CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT(\"allocate workspace failed. ERROR: %d\\n\", "
      "ret);\n"
      "                return 2);\n"
      "    }\n";
  phase_two += fmt::format("    // 调用{}第二段接口\n", op.phase_two_name);
  phase_two += fmt::format("    ret = {}(workspaceAddr, workspaceSize, executor, stream);\n",
                           op.phase_two_name);
  phase_two += fmt::format("    LOG_PRINT(\"{} returned %d\\n\", static_cast<int>(ret));\n",
                           op.phase_two_name);
  if (any_status)
    phase_two += "    ran = true;  // any status; outputs may change within their views\n";
  else
    phase_two +=
        "    if (ret != 0) {\n"
        "      LOG_PRINT(\"DEVIATION: a valid call was rejected with %d in the second phase\\n\", "
        "static_cast<int>(ret));\n"
        "      deviations++;\n"
        "    } else {\n"
        "      ran = true;\n"
        "    }\n";
  phase_two +=
      "    // 4. （固定写法）同步等待任务执行结束\n"
      "    ret = aclrtSynchronizeStream(stream);\n"
      "    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT(\"aclrtSynchronizeStream failed. ERROR: "
      "%d\\n\", "
      "ret);\n"
      "              return 2);\n"
      "    if (workspaceSize > 0) {\n"
      "      aclrtFree(workspaceAddr);\n"
      "    }\n";
  if (any_status) {
    s += "  if (ret == 0) {\n" + phase_two + "  }\n";
  } else if (expect_error) {
    const std::string why =
        expected_verdict.reason.empty() ? std::string("invalid call") : expected_verdict.reason;
    s += fmt::format(
        "  if (ret != {}) {{\n"
        "    LOG_PRINT(\"DEVIATION (%s): expected status {} (%s), got %d\\n\", {}, {},\n"
        "              static_cast<int>(ret));\n"
        "    deviations++;\n"
        "  }}\n",
        expected_verdict.status, expected_verdict.status, c_string(expected_verdict.clause),
        c_string(why));
  } else {
    s += "  if (ret != 0) {\n"
         "    LOG_PRINT(\"DEVIATION: a valid call was rejected with %d in the first phase\\n\", "
         "static_cast<int>(ret));\n"
         "    deviations++;\n"
         "  } else {\n" +
         phase_two + "  }\n";
  }
  return s;
}

// The calls of one protocol probe (properties/protocol.cpp), each checked against its status.
std::string probe_section(const OpDescriptor &op, const std::string &phase_one,
                          const std::string &probe) {
  const std::string ws_name = op.phase_two_name + "GetWorkspaceSize";
  const auto expect = [&](const std::string &what, int status, const std::string &clause) {
    return fmt::format(
        "  LOG_PRINT(\"{} returned %d\\n\", static_cast<int>(ret));\n"
        "  if (ret != 0) {{\n"
        "    const char *msg = aclGetRecentErrMsg();\n"
        "    LOG_PRINT(\"aclGetRecentErrMsg: %s\\n\", msg != nullptr ? msg : \"(null)\");\n"
        "  }}\n"
        "  if (ret != {}) {{\n"
        "    LOG_PRINT(\"DEVIATION ({}): {} must return {}\\n\");\n"
        "    deviations++;\n"
        "  }}\n",
        what, status, clause, what, status);
  };
  std::string s = "\n  // 3. The calls of the protocol probe " + probe +
                  "\n"
                  "  uint64_t workspaceSize = 0;\n"
                  "  aclOpExecutor *executor = nullptr;\n";
  if (probe == "ABI-TWOPHASE-2") {
    s += "  {  // phase one with workspaceSize == NULL\n" +
         indented(replaced(phase_one, "&workspaceSize", "nullptr"), "  ") + "  }\n";
    s += expect(ws_name + "(workspaceSize = NULL)", 161001, probe);
    s += "  {  // phase one with executor == NULL\n" +
         indented(replaced(phase_one, "&executor", "nullptr"), "  ") + "  }\n";
    s += expect(ws_name + "(executor = NULL)", 161001, probe);
    return s;
  }
  s += "  {\n" + indented(phase_one, "  ") + "  }\n";
  s += fmt::format(
      "  LOG_PRINT(\"{} returned %d\\n\", static_cast<int>(ret));\n"
      "  CHECK_RET(ret == 0, LOG_PRINT(\"DEVIATION: the valid first call was rejected\\n\"); "
      "deviations++);\n"
      "  void *workspaceAddr = nullptr;\n"
      "  if (ret == 0 && workspaceSize > 0) {{\n"
      "    ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);\n"
      "    CHECK_RET(ret == ACL_SUCCESS, return 2);\n"
      "  }}\n",
      ws_name);
  const std::string run = op.phase_two_name;
  if (probe == "ABI-TWOPHASE-3") {
    s += fmt::format("  ret = {}(workspaceAddr, workspaceSize, nullptr, stream);\n", run);
    s += expect(run + "(executor = NULL)", 161001, probe);
    s += "  if (workspaceSize > 0) {\n";
    s += fmt::format("    ret = {}(nullptr, workspaceSize, executor, stream);\n", run);
    s += indented(expect(run + "(workspace = NULL, workspaceSize > 0)", 161001, probe), "  ");
    s += fmt::format("    ret = {}(workspaceAddr, workspaceSize - 1, executor, stream);\n", run);
    s += indented(expect(run + "(workspaceSize - 1)", 161002, probe), "  ");
    s += "  }\n";
  } else {  // ABI-TWOPHASE-4: the executor runs once
    s += fmt::format("  ret = {}(workspaceAddr, workspaceSize, executor, stream);\n", run);
    s += expect(run + "(first run)", 0, probe);
    s += "  aclrtSynchronizeStream(stream);\n";
    s += fmt::format("  ret = {}(workspaceAddr, workspaceSize, executor, stream);\n", run);
    s += expect(run + "(the same executor a second time)", 161002, probe);
  }
  s += "  if (workspaceAddr != nullptr) {\n    aclrtFree(workspaceAddr);\n  }\n";
  return s;
}

}  // namespace aclnn_conform::repro_detail
