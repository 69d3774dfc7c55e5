#include "campaign/repro.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "reference/dtype.hpp"

namespace aclnn_conform {

namespace repro_detail {
// The fixed part of every repro: macros, the tensor record and its helpers. The text of
// campaign/repro/prelude.cpp after its marker line (generated: repro_prelude_data.cpp).
extern const char *const kPrelude;
}  // namespace repro_detail

namespace {

using aclnn_ref::DType;
namespace fs = std::filesystem;

const char *acl_dtype_enum(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "ACL_FLOAT";
    case DType::kFloat16:
      return "ACL_FLOAT16";
    case DType::kInt8:
      return "ACL_INT8";
    case DType::kInt32:
      return "ACL_INT32";
    case DType::kUInt8:
      return "ACL_UINT8";
    case DType::kInt16:
      return "ACL_INT16";
    case DType::kUInt16:
      return "ACL_UINT16";
    case DType::kUInt32:
      return "ACL_UINT32";
    case DType::kInt64:
      return "ACL_INT64";
    case DType::kUInt64:
      return "ACL_UINT64";
    case DType::kFloat64:
      return "ACL_DOUBLE";
    case DType::kBool:
      return "ACL_BOOL";
    case DType::kBFloat16:
      return "ACL_BF16";
    case DType::kComplex64:
      return "ACL_COMPLEX64";
    case DType::kComplex128:
      return "ACL_COMPLEX128";
  }
  return "ACL_DT_UNDEFINED";
}

// A double as a C++17 literal that reads back exactly.
std::string double_literal(double v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "HUGE_VAL" : "-HUGE_VAL";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  return fmt::format("{:a}", v);
}

// Text safe inside a /* */ or // comment (no "*/", no line breaks).
std::string comment_text(std::string s) {
  for (char &ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  size_t p;
  while ((p = s.find("*/")) != std::string::npos) s.replace(p, 2, "* /");
  return s;
}

// A C string literal.
std::string c_string(const std::string &s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\', out += static_cast<char>(ch);
    else if (ch == '\n')
      out += "\\n";
    else if (ch < 0x20 || ch >= 0x7f)
      out += fmt::format("\\{:03o}", ch);  // octal escapes never swallow following digits
    else if (ch == '?')
      out += "\\?";  // no trigraphs
    else
      out += static_cast<char>(ch);
  }
  return out + "\"";
}

std::string byte_array(const std::vector<std::byte> &bytes, const std::string &indent) {
  std::string s = "{";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 16 == 0) {
      s += '\n';
      s += indent;
    }
    s += fmt::format("0x{:02x},", static_cast<unsigned>(bytes[i]));
    if (i % 16 != 15 && i + 1 != bytes.size()) s += ' ';
  }
  if (!bytes.empty()) {
    s += '\n';
    s.append(indent, 0, indent.size() >= 2 ? indent.size() - 2 : 0);
  }
  return s + "}";
}

std::string var_name(const std::string &param) {
  static const std::set<std::string> taken = {"ret",        "workspaceSize",
                                              "executor",   "stream",
                                              "deviceId",   "workspaceAddr",
                                              "deviations", "args",
                                              "main",       "ran",
                                              "Init",       "kGuard",
                                              "nullptr",    "normalizedShape",
                                              "outputMask"};
  std::string v;
  for (char ch : param) v += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  if (v.empty() || std::isdigit(static_cast<unsigned char>(v[0]))) v = "t_" + v;
  if (taken.count(v)) v += "Tensor";
  return v;
}

const aclnn_ref::ExpectedOutput *find_expected(const std::vector<aclnn_ref::ExpectedOutput> &ev,
                                               const std::string &name) {
  for (const auto &e : ev)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

AcceptedRange accepted_range(const aclnn_ref::ExpectedOutput &e, int64_t index,
                             const aclnn_ref::Tolerance &tol, double sum_unit_roundoff) {
  const aclnn_ref::AcceptedInterval r =
      aclnn_ref::accepted_interval(e, index, tol, sum_unit_roundoff);
  return {r.lo, r.hi};
}

namespace {

// Indents every line of a statement block by `pad`.
std::string indented(const std::string &text, const std::string &pad) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (!line.empty()) out += pad + line;
    out += "\n";
    start = end + 1;
  }
  return out;
}

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
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

}  // namespace

std::string repro_probe(const std::string &call, const std::string &clause) {
  static const std::vector<std::string> kProbes = {"ABI-TWOPHASE-2", "ABI-TWOPHASE-3",
                                                   "ABI-TWOPHASE-4"};
  const std::string prefix = "protocol probe ";
  const std::string named = call.rfind(prefix, 0) == 0 ? call.substr(prefix.size()) : clause;
  if (std::find(kProbes.begin(), kProbes.end(), named) != kProbes.end()) return named;
  // A failing message check of a probe call belongs to the probe that made the call.
  if (named == "ABI-ERRMSG-1" && call.rfind(prefix, 0) == 0) return "ABI-TWOPHASE-2";
  return "";
}

std::string repro_include_dir() {
#ifdef ACLNN_SOURCE_INCLUDE_DIR
  if (fs::exists(fs::path(ACLNN_SOURCE_INCLUDE_DIR) / "acl" / "acl.h"))
    return ACLNN_SOURCE_INCLUDE_DIR;
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "include";
    if (fs::exists(installed / "acl" / "acl.h")) return installed.string();
  }
  return "<aclnn-conform>/include";
}

void write_repros(CampaignResult &r, const std::string &out_dir, const ReproOptions &base) {
  std::map<std::string, int> counts;
  for (auto &d : r.deviations) {
    const OpDescriptor *op = find_op(d.op);
    if (!op) continue;
    const auto verdict = op->check(d.minimal, {});
    std::vector<aclnn_ref::ExpectedOutput> values;
    if (verdict.ok()) values = op->values(d.minimal, {});
    const std::string name = "repros/" + repro_file_name(d.op, d.clause, ++counts[d.op + d.clause]);
    ReproOptions o = base;
    o.title = fmt::format("{} ({}{}): {}", d.clause, d.kind, d.call.empty() ? "" : " in " + d.call,
                          d.detail.substr(0, 200));
    o.sut_path = r.sut_identity.path.empty() ? r.sut : r.sut_identity.path;
    o.sut_sha256 = r.sut_identity.sha256;
    if (r.sut_files.size() > 1)
      for (const auto &f : r.sut_files) o.sut_files.push_back(f.path);
    o.device = std::max(d.device, 0);
    o.include_dir = repro_include_dir();
    o.file_name = fs::path(name).filename().string();
    o.probe = repro_probe(d.call, d.clause);
    fs::create_directories(fs::path(out_dir) / "repros");
    std::ofstream(fs::path(out_dir) / name) << repro_program(*op, d.minimal, verdict, values, o);
    d.repro_file = name;
  }
}

std::string repro_file_name(const std::string &op, const std::string &clause, int n) {
  std::string s = fmt::format("repro_{}_{}_{}.cpp", op, clause.empty() ? "case" : clause, n);
  for (char &ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
      ch = '_';
  return s;
}

namespace {

// What every step of a repro program reads: the call, what is expected of it, the policy, and the
// names of the tensors' variables.
struct ReproPlan {
  const OpDescriptor &op;
  const Case &c;
  const aclnn_ref::Verdict &expected_verdict;
  const std::vector<aclnn_ref::ExpectedOutput> &expected_values;
  const ReproOptions &options;
  std::string soc;
  bool expect_error = false;
  // A clause stating preconditions the caller must guarantee (OpDescriptor::
  // caller_precondition_clauses): any status is acceptable, but the SUT must not crash or write
  // outside its outputs (as properties/judge.cpp judges it).
  bool any_status = false;
  bool ascend = false;
  const char *policy = "ulp";
  std::vector<std::string> vars, phase_one_args;
  // In-place use: an aliased output has no storage of its own; it is the input's ReproTensor
  // (argvars), and that input may change within its view like an output.
  std::vector<std::string> argvars;

  ReproPlan(const OpDescriptor &op_, const Case &c_, const aclnn_ref::Verdict &verdict,
            const std::vector<aclnn_ref::ExpectedOutput> &values, const ReproOptions &options_)
      : op(op_), c(c_), expected_verdict(verdict), expected_values(values), options(options_) {
    soc = std::string(product_name(c.product));
    expect_error = !expected_verdict.ok();
    any_status =
        expect_error &&
        std::find(op.caller_precondition_clauses.begin(), op.caller_precondition_clauses.end(),
                  expected_verdict.clause) != op.caller_precondition_clauses.end();
    ascend = options.tolerance.kind == aclnn_ref::Tolerance::Kind::kAscend;
    policy = ascend                                                         ? "ascend"
             : options.tolerance.kind == aclnn_ref::Tolerance::Kind::kExact ? "exact"
             : options.tolerance.kind == aclnn_ref::Tolerance::Kind::kSum   ? "sum"
                                                                            : "ulp";
    for (const auto &[name, t] : c.tensors) {
      vars.push_back(var_name(name));
      phase_one_args.push_back(t.present ? vars.back() : "nullptr");
    }
    argvars = vars;
    for (size_t i = 0; i < c.tensors.size(); ++i)
      if (const Alias *a = c.alias_of(c.tensors[i].first)) argvars[i] = var_name(a->input);
  }

  bool is_output(const std::string &name) const {
    return std::find(op.outputs.begin(), op.outputs.end(), name) != op.outputs.end() ||
           c.alias_of(name, true) != nullptr;
  }
};

// The prologue, part one: how to build and run it, what it checks, its includes and helpers.
std::string repro_file_header(const ReproPlan &p) {
  const OpDescriptor &op = p.op;
  const Case &c = p.c;
  const aclnn_ref::Verdict &expected_verdict = p.expected_verdict;
  const ReproOptions &options = p.options;
  const bool expect_error = p.expect_error, any_status = p.any_status;
  const char *policy = p.policy;
  std::string s;
  // One-line instructions first, so a user (and aclnn-conform's terminal summary) finds them.
  const std::string stem =
      options.file_name.empty() ? "repro" : fs::path(options.file_name).stem().string();
  const std::string src = options.file_name.empty() ? "repro.cpp" : options.file_name;
  const std::string inc =
      options.include_dir.empty() ? "<aclnn-conform>/include" : options.include_dir;
  if (!options.sut_path.empty()) {
    // Every file of the SUT in load order, each folder once on the rpath.
    std::string libraries, rpath;
    for (const auto &f : options.sut_files.empty() ? std::vector<std::string>{options.sut_path}
                                                   : options.sut_files) {
      libraries += (libraries.empty() ? "" : " ") + f;
      std::string dir = fs::path(f).parent_path().string();
      if (dir.empty()) dir = ".";
      if (("," + rpath + ",").find("," + dir + ",") == std::string::npos)
        rpath += (rpath.empty() ? "" : ",") + dir;
    }
    s += fmt::format("// build: c++ -std=c++17 -I{} {} -o {} {} -Wl,-rpath,{}\n", inc, src, stem,
                     libraries, rpath);
    s += fmt::format("// run: ./{}\n", stem);
    s += fmt::format("// SUT: {} (sha256 {})\n", options.sut_path,
                     options.sut_sha256.empty() ? "unknown" : options.sut_sha256);
  }
  s += "/**\n";
  if (!options.title.empty()) s += " * " + comment_text(options.title) + "\n *\n";
  s += fmt::format(" * Standalone repro generated by aclnn-conform for {}, in the vendor's\n",
                   op.abi_name);
  s += " * call-example style. It uses only the vendor ABI (acl/acl.h and the op's header).\n";
  s += " *\n * Case: " + comment_text(c.describe()) + "\n";
  if (expect_error)
    s += fmt::format(
        " * Expected: status {} ({}{})\n", expected_verdict.status,
        comment_text(expected_verdict.clause),
        expected_verdict.reason.empty() ? "" : ": " + comment_text(expected_verdict.reason));
  else
    s += fmt::format(
        " * Expected: status 0, then every output element within the accepted range of its value\n"
        " *   of record (policy: {}; NaN matches any NaN, +0 == -0), outputs the op must not\n"
        " *   write unchanged, inputs unchanged, no write outside any view or storage.\n",
        policy);
  if (any_status)
    s += " * Any status is acceptable here (" + comment_text(expected_verdict.clause) +
         "): the call must not crash or write outside its outputs.\n";
  if (!options.probe.empty())
    s += " * Probe: " + options.probe +
         " - the program makes that rule's calls instead of the plain two-phase call.\n";
  if (!options.sut_path.empty())
    s += " *\n * Build against the library it was found on: the \"// build:\" line above.\n"
         " * Against another library exporting the ABI:\n"
         " *   c++ -std=c++17 -I<aclnn-conform>/include repro.cpp <path of the library> \\\n"
         " *       -Wl,-rpath,<dir of the library>\n";
  else
    s +=
        " *\n * Build against the built-in CPU library:\n"
        " *   c++ -std=c++17 -I<repo>/include repro.cpp -L<dir of libaclnn_cpu.so> -laclnn_cpu \\\n"
        " *       -Wl,-rpath,<dir of libaclnn_cpu.so>\n";
  s += " * or against a vendor toolkit:\n"
       " *   c++ -std=c++17 -I$ASCEND_HOME_PATH/include repro.cpp -L$ASCEND_HOME_PATH/lib64 \\\n"
       " *       -lascendcl -lnnopbase -lopapi\n"
       " * Exit status: 0 the SUT conforms on this case, 1 it deviates, 2 the runtime failed.\n"
       " */\n";
  if (!options.sut_path.empty()) s += "#include <dlfcn.h>\n\n";
  s += "#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n"
       "#include <cstring>\n#include <vector>\n\n#include \"acl/acl.h\"\n";
  s += "#include \"" + op.header + "\"\n\n";
  s += repro_detail::kPrelude;
  return s;
}

// The prologue, part two: main() up to an initialised runtime (the product, the linked SUT).
std::string repro_main_prologue(const ReproPlan &p) {
  const OpDescriptor &op = p.op;
  const Case &c = p.c;
  const ReproOptions &options = p.options;
  const std::string &soc = p.soc;
  std::string s;
  s += "\nint main() {\n";
  if (c.product != Product::kAtlasA2)
    s += fmt::format(
        "  // The case is for {}: the built-in CPU library reads the product whose gates apply\n"
        "  // from ACLNN_CPU_SOC (vendor libraries ignore it; run on that product instead).\n"
        "  setenv(\"ACLNN_CPU_SOC\", {}, 1);\n\n",
        soc, c_string(soc));
  if (!options.sut_path.empty())
    s += fmt::format(
        "  // The library this program is about, and the one the loader linked (they must match).\n"
        "  LOG_PRINT(\"repro of: %s (sha256 %s)\\n\", {}, {});\n"
        "  {{\n"
        "    Dl_info info{{}};\n"
        "    if (dladdr(reinterpret_cast<void *>(&{}), &info) != 0 && info.dli_fname != nullptr) "
        "{{\n"
        "      LOG_PRINT(\"linked SUT: %s\\n\", info.dli_fname);\n"
        "    }}\n"
        "    fflush(stdout);  // the call below may crash or hang\n"
        "  }}\n",
        c_string(options.sut_path), c_string(options.sut_sha256), op.phase_two_name);
  s += "  // 1. （固定写法）device/stream初始化\n";
  s += fmt::format("  int32_t deviceId = {};\n", options.device);
  s += "  aclrtStream stream = nullptr;\n"
       "  auto ret = Init(deviceId, &stream);\n"
       "  CHECK_RET(ret == 0, LOG_PRINT(\"Init acl failed. ERROR: %d\\n\", ret); return 2);\n"
       "  int deviations = 0;\n\n";

  return s;
}

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

// The checks of one output against its values of record (valid calls).
std::string repro_output_check(const ReproPlan &p, size_t i) {
  const Case &c = p.c;
  const std::vector<aclnn_ref::ExpectedOutput> &expected_values = p.expected_values;
  const ReproOptions &options = p.options;
  const std::vector<std::string> &vars = p.vars;
  const std::vector<std::string> &argvars = p.argvars;
  const bool ascend = p.ascend;
  std::string s;
  const auto &[name, t] = c.tensors[i];
  if (!t.present || !p.is_output(name)) return s;
  const auto *e = find_expected(expected_values, name);
  if (e == nullptr) return s;
  if (!e->written) {
    s += fmt::format(
        "    // {} must not be written (its value of record is \"untouched\").\n"
        "    if ({}Arg.after != {}Arg.storage) {{\n"
        "      LOG_PRINT(\"DEVIATION: {} must not be written but was modified\\n\");\n"
        "      deviations++;\n"
        "    }}\n",
        name, argvars[i], argvars[i], name);
    return s;
  }
  const int64_t n = e->values.numel();
  if (e->values.dtype != t.dtype || n != t.numel()) {
    s += fmt::format(
        "    // {}: the oracle's output ({} [{}]) does not match the tensor; "
        "not compared.\n",
        name, aclnn_ref::dtype_name(e->values.dtype), fmt::join(e->values.shape, ","));
    return s;
  }
  const bool have_exact = static_cast<int64_t>(e->exact_nearest.size()) == n;
  s += fmt::format(
      "    // Values of record of {} (row-major over its view): bits, accepted [lo, hi], "
      "exact.\n"
      "    static const std::vector<Expected> k{}Expected = {{\n",
      name, vars[i]);
  for (int64_t k = 0; k < n; ++k) {
    const AcceptedRange r = accepted_range(*e, k, options.tolerance, options.sum_unit_roundoff);
    const double exact = have_exact ? e->exact_nearest[static_cast<size_t>(k)] : e->values.at(k);
    s += fmt::format("        {{0x{:x}, {}, {}, {}}},\n", e->values.bits(k), double_literal(r.lo),
                     double_literal(r.hi), double_literal(exact));
  }
  s += "    };\n";
  std::string checked = argvars[i] + "Arg";
  if (argvars[i] != vars[i]) {  // in-place: the input's storage, named as the output
    checked = vars[i] + "InPlace";
    s += fmt::format("    ReproTensor {} = {}Arg;  // {} is {}'s view\n    {}.name = {};\n",
                     checked, argvars[i], name, c.alias_of(name)->input, checked, c_string(name));
  }
  s += fmt::format("    deviations += CheckOutput({}, k{}Expected, {}, {}, {});\n", checked,
                   vars[i], ascend ? "true" : "false",
                   double_literal(aclnn_ref::ascend_threshold(t.dtype)), options.max_printed);
  return s;
}

// The checks after the call: guards, unchanged inputs, then (valid calls) every output.
std::string repro_checks(const ReproPlan &p) {
  std::string s;
  // Values of record.
  s += "\n  // 5. Copy every storage back; check guards, inputs, outputs.\n";
  s +=
      "  for (ReproTensor *t : args) {\n"
      "    ret = ReadBack(*t);\n"
      "    CHECK_RET(ret == 0, return 2);\n"
      "    if (!t->guardsIntact) {\n"
      "      LOG_PRINT(\"DEVIATION (ABI-INPUT-1): wrote outside the storage of %s\\n\", t->name);\n"
      "      deviations++;\n"
      "    }\n"
      "    // Inputs never change; outputs only within their views, and only if the call ran.\n"
      "    deviations += CheckUnchanged(*t, !t->isOutput || !ran);\n"
      "  }\n";
  if (!p.expect_error) {
    s += "  if (ran) {\n";
    for (size_t i = 0; i < p.c.tensors.size(); ++i) s += repro_output_check(p, i);
    s += "  }\n";
  }
  return s;
}

// The epilogue: releases everything and prints the result.
std::string repro_epilogue() {
  std::string s;
  s += "\n  // 6. 释放aclTensor和device资源\n"
       "  for (ReproTensor *t : args) {\n"
       "    if (t->tensor != nullptr) {\n"
       "      aclDestroyTensor(t->tensor);\n"
       "    }\n"
       "    if (t->deviceAddr != nullptr) {\n"
       "      aclrtFree(t->deviceAddr);\n"
       "    }\n"
       "  }\n"
       "  aclrtDestroyStream(stream);\n"
       "  aclrtResetDevice(deviceId);\n"
       "  aclFinalize();\n";
  s += "  LOG_PRINT(\"%s\\n\", deviations == 0 ? \"RESULT: conforms\" : \"RESULT: deviates\");\n"
       "  return deviations == 0 ? 0 : 1;\n"
       "}\n";
  return s;
}

}  // namespace

std::string repro_program(const OpDescriptor &op, const Case &c,
                          const aclnn_ref::Verdict &expected_verdict,
                          const std::vector<aclnn_ref::ExpectedOutput> &expected_values,
                          const ReproOptions &options) {
  const ReproPlan p(op, c, expected_verdict, expected_values, options);
  std::string s = repro_file_header(p) + repro_main_prologue(p) + repro_staging(p);
  if (!options.probe.empty())
    s += probe_section(op, op.repro_phase_one(c, p.phase_one_args), options.probe);
  else
    s += repro_two_phase_call(p) + repro_checks(p);
  return s + repro_epilogue();
}

}  // namespace aclnn_conform
