// C++ text for repro programs (campaign/repro_detail.hpp): dtype enums, literals that read back
// exactly, comment-safe and string-literal text, byte arrays, variable names, indenting.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <set>

#include "campaign/repro_detail.hpp"

namespace aclnn_conform::repro_detail {

using aclnn_ref::DType;

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

}  // namespace aclnn_conform::repro_detail
