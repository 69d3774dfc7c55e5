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

#include "properties/op.hpp"
#include "reference/dtype.hpp"
#include "reference/host_tensor.hpp"
#include "reference/rounding.hpp"

namespace aclnn_conform {

namespace fs = std::filesystem;
using aclnn_ref::DType;

TtkImportError::TtkImportError(const std::string &f, int l, const std::string &what)
    : std::runtime_error(fmt::format("{}:{}: {}", f, l, what)), file(f), line(l) {}

// ---------------------------------------------------------------------------------------------
// Python literals

double PyValue::number() const {
  switch (kind) {
    case Kind::kInt:
      return static_cast<double>(i);
    case Kind::kFloat:
      return f;
    case Kind::kBool:
      return b ? 1 : 0;
    default:
      throw std::invalid_argument("not a number");
  }
}

namespace {

class PyParser {
 public:
  explicit PyParser(std::string_view t) : t_(t) {}

  PyValue parse() {
    PyValue v = value();
    skip_ws();
    if (p_ != t_.size()) fail("unexpected text after the value");
    return v;
  }

 private:
  std::string_view t_;
  size_t p_ = 0;

  [[noreturn]] void fail(const std::string &what) const {
    throw std::invalid_argument(
        fmt::format("not a Python literal at character {} of \"{}\": {}", p_ + 1, t_, what));
  }
  void skip_ws() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  bool eat(char c) {
    skip_ws();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }

  PyValue value() {
    skip_ws();
    if (p_ >= t_.size()) fail("the value is missing");
    const char c = t_[p_];
    if (c == '(' || c == '[') return sequence(c == '(' ? ')' : ']');
    if (c == '{') return dict();
    if (c == '\'' || c == '"') return string();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.')
      return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(fmt::format("unexpected '{}'", c));
  }

  PyValue sequence(char close) {
    ++p_;
    PyValue v;
    v.kind = PyValue::Kind::kList;
    if (eat(close)) return v;
    for (;;) {
      v.items.push_back(value());
      if (eat(close)) return v;
      if (!eat(',')) fail(fmt::format("expected ',' or '{}'", close));
      if (eat(close)) return v;  // a trailing comma: (1,)
    }
  }

  PyValue dict() {
    ++p_;
    PyValue v;
    v.kind = PyValue::Kind::kDict;
    if (eat('}')) return v;
    for (;;) {
      PyValue k = value();
      if (!eat(':')) fail("expected ':' in a dict");
      PyValue x = value();
      v.entries.emplace_back(std::move(k), std::move(x));
      if (eat('}')) return v;
      if (!eat(',')) fail("expected ',' or '}'");
      if (eat('}')) return v;
    }
  }

  PyValue string() {
    const char q = t_[p_++];
    PyValue v;
    v.kind = PyValue::Kind::kString;
    while (p_ < t_.size() && t_[p_] != q) {
      if (t_[p_] == '\\' && p_ + 1 < t_.size()) ++p_;
      v.s += t_[p_++];
    }
    if (p_ >= t_.size()) fail("unterminated string");
    ++p_;
    return v;
  }

  PyValue number() {
    const size_t start = p_;
    bool sign = false;
    if (t_[p_] == '-' || t_[p_] == '+') {
      sign = t_[p_] == '-';
      ++p_;
      skip_ws();
      // -inf, -nan
      if (p_ < t_.size() && std::isalpha(static_cast<unsigned char>(t_[p_]))) {
        PyValue n = name();
        if (n.kind != PyValue::Kind::kFloat) fail("a sign before a name that is not a number");
        if (sign) n.f = -n.f;
        return n;
      }
    }
    const size_t digits = p_;
    bool is_float = false;
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '_') {
        ++p_;
      } else if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
        ++p_;
        if ((c == 'e' || c == 'E') && p_ < t_.size() && (t_[p_] == '-' || t_[p_] == '+')) ++p_;
      } else {
        break;
      }
    }
    std::string text(t_.substr(digits, p_ - digits));
    std::erase(text, '_');
    if (text.empty()) fail("a number was expected");
    PyValue v;
    errno = 0;
    char *end = nullptr;
    if (!is_float) {
      const long long x = std::strtoll(text.c_str(), &end, 10);
      if (errno == ERANGE || *end) {
        p_ = start;
        fail("an integer out of range");
      }
      v.kind = PyValue::Kind::kInt;
      v.i = sign ? -x : x;
      return v;
    }
    const double x = std::strtod(text.c_str(), &end);
    if (*end) {
      p_ = start;
      fail("a malformed number");
    }
    v.kind = PyValue::Kind::kFloat;
    v.f = sign ? -x : x;
    return v;
  }

  PyValue name() {
    const size_t start = p_;
    while (p_ < t_.size() &&
           (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_' || t_[p_] == '.'))
      ++p_;
    const std::string n(t_.substr(start, p_ - start));
    PyValue v;
    if (n == "None") return v;
    if (n == "True" || n == "False" || n == "TRUE" || n == "FALSE" || n == "true" || n == "false") {
      v.kind = PyValue::Kind::kBool;
      v.b = n[0] == 'T' || n[0] == 't';
      return v;
    }
    if (n == "inf" || n == "Infinity" || n == "math.inf" || n == "np.inf") {
      v.kind = PyValue::Kind::kFloat;
      v.f = INFINITY;
      return v;
    }
    if (n == "nan" || n == "NaN" || n == "math.nan" || n == "np.nan") {
      v.kind = PyValue::Kind::kFloat;
      v.f = NAN;
      return v;
    }
    if (n == "float" && eat('(')) {  // float('inf'), float("-inf"), float('nan')
      const PyValue s = value();
      if (!eat(')') || s.kind != PyValue::Kind::kString) fail("float(...) of a string expected");
      v.kind = PyValue::Kind::kFloat;
      v.f = std::strtod(s.s.c_str(), nullptr);
      return v;
    }
    p_ = start;
    fail("unknown name '" + n + "'");
  }
};

}  // namespace

PyValue parse_py_literal(std::string_view text) {
  return PyParser(text).parse();
}

// ---------------------------------------------------------------------------------------------
// CSV

std::vector<CsvRecord> parse_csv(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  std::vector<CsvRecord> out;
  int line = 1;
  size_t p = 0;
  while (p < text.size()) {
    CsvRecord rec;
    rec.line = line;
    std::string cell;
    bool in_quotes = false, record_done = false, any = false;
    int quote_line = line;
    while (p < text.size() && !record_done) {
      const char c = text[p++];
      if (in_quotes) {
        if (c == '"') {
          if (p < text.size() && text[p] == '"') {
            cell += '"';
            ++p;
          } else {
            in_quotes = false;
          }
        } else {
          if (c == '\n') ++line;
          cell += c;
        }
        continue;
      }
      if (c == '"') {
        in_quotes = true;
        quote_line = line;
        any = true;
      } else if (c == ',') {
        rec.cells.push_back(std::move(cell));
        cell.clear();
        any = true;
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && p < text.size() && text[p] == '\n') ++p;
        ++line;
        record_done = true;
      } else {
        cell += c;
        any = true;
      }
    }
    if (in_quotes)
      throw std::invalid_argument(
          fmt::format("line {}: a quoted cell is never closed", quote_line));
    if (!any) continue;  // a blank line
    rec.cells.push_back(std::move(cell));
    const bool blank = std::all_of(rec.cells.begin(), rec.cells.end(), [](const std::string &s) {
      return std::all_of(s.begin(), s.end(),
                         [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); });
    });
    if (!blank) out.push_back(std::move(rec));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rows

namespace {

std::string trim(std::string s) {
  const auto ws = [](char c) { return std::isspace(static_cast<unsigned char>(c)); };
  while (!s.empty() && ws(s.back())) s.pop_back();
  size_t i = 0;
  while (i < s.size() && ws(s[i])) ++i;
  return s.substr(i);
}

std::string lower(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A field's literal, or an empty list for an empty cell (the kit's "()" defaults).
PyValue field(const std::map<std::string, std::string> &row, const std::string &name) {
  const auto it = row.find(name);
  if (it == row.end() || trim(it->second).empty()) {
    PyValue v;
    v.kind = PyValue::Kind::kList;
    return v;
  }
  try {
    return parse_py_literal(trim(it->second));
  } catch (const std::invalid_argument &e) {
    throw std::invalid_argument(name + ": " + e.what());
  }
}

bool empty_field(const PyValue &v) {
  return v.kind == PyValue::Kind::kNone || (v.kind == PyValue::Kind::kList && v.items.empty());
}

std::string text_of(const std::map<std::string, std::string> &row, const std::string &name) {
  const auto it = row.find(name);
  return it == row.end() ? "" : trim(it->second);
}

// The kit's dtype strings (docs/Test_Case_Generation.md), as aclnn-conform's dtypes.
DType dtype_of(const PyValue &v, const std::string &where) {
  if (v.kind != PyValue::Kind::kString)
    throw std::invalid_argument(where + ": a dtype string expected");
  const std::string s = lower(v.s);
  static const std::map<std::string, DType> names = {
      {"float16", DType::kFloat16},       {"fp16", DType::kFloat16},
      {"half", DType::kFloat16},          {"float32", DType::kFloat32},
      {"fp32", DType::kFloat32},          {"float", DType::kFloat32},
      {"float64", DType::kFloat64},       {"fp64", DType::kFloat64},
      {"double", DType::kFloat64},        {"bfloat16", DType::kBFloat16},
      {"bf16", DType::kBFloat16},         {"int8", DType::kInt8},
      {"int16", DType::kInt16},           {"int32", DType::kInt32},
      {"int64", DType::kInt64},           {"uint8", DType::kUInt8},
      {"uint16", DType::kUInt16},         {"uint32", DType::kUInt32},
      {"uint64", DType::kUInt64},         {"bool", DType::kBool},
      {"complex64", DType::kComplex64},   {"c64", DType::kComplex64},
      {"complex128", DType::kComplex128}, {"c128", DType::kComplex128}};
  const auto it = names.find(s);
  if (it == names.end())
    throw std::invalid_argument(where + ": dtype '" + v.s +
                                "' has no aclDataType aclnn-conform can stage");
  return it->second;
}

std::vector<int64_t> ints_of(const PyValue &v, const std::string &where) {
  if (v.kind == PyValue::Kind::kInt) return {v.i};
  if (v.kind != PyValue::Kind::kList)
    throw std::invalid_argument(where + ": a tuple of integers expected");
  std::vector<int64_t> out;
  for (const auto &x : v.items) {
    if (x.kind != PyValue::Kind::kInt)
      throw std::invalid_argument(where + ": a tuple of integers expected");
    out.push_back(x.i);
  }
  return out;
}

// Entry k of a per-tensor field: one entry applies to every tensor (the kit's compressed form).
const PyValue *entry(const PyValue &v, size_t k, size_t count, const std::string &name) {
  if (empty_field(v)) return nullptr;
  if (v.kind != PyValue::Kind::kList) throw std::invalid_argument(name + ": a tuple expected");
  if (v.items.size() == 1) return &v.items[0];
  if (v.items.size() != count)
    throw std::invalid_argument(
        fmt::format("{}: {} entries for the API's {} tensors (give one per tensor, or one for all)",
                    name, v.items.size(), count));
  return &v.items[k];
}

// The SoC names of a product as the kit's soc_series writes them (Ascend910B, Ascend910B3, ...).
bool soc_matches(const std::string &entry_name, Product product) {
  const std::string e = lower(entry_name);
  const std::string key = std::string(product_name(product));  // ascend910b, ascend910_93, ...
  if (e.rfind(key, 0) != 0) return false;
  const std::string rest = e.substr(key.size());
  if (product == Product::kAtlasTraining &&
      (rest == "a" || rest == "proa" || rest == "prob" || rest == "premiuma"))
    return true;
  return std::all_of(rest.begin(), rest.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Attribute types of the APIs aclnn-conform tests (their C types).
enum class AttrType { kDouble, kInt, kInts, kBools };
AttrType attr_type(const std::string &name) {
  if (name == "eps") return AttrType::kDouble;
  if (name == "groupIdxType") return AttrType::kInt;
  if (name == "normalizedShape") return AttrType::kInts;
  if (name == "outputMask") return AttrType::kBools;
  throw std::invalid_argument("no attribute type for '" + name + "'");
}

AttrValue attr_value(const PyValue &v, const std::string &name) {
  if (v.kind == PyValue::Kind::kNone) return std::monostate{};  // a NULL aclIntArray, ...
  const std::string where = "attributes['" + name + "']";
  switch (attr_type(name)) {
    case AttrType::kDouble:
      if (!v.is_number()) throw std::invalid_argument(where + ": a number expected");
      return v.number();
    case AttrType::kInt:
      if (v.kind != PyValue::Kind::kInt)
        throw std::invalid_argument(where + ": an integer expected");
      return v.i;
    case AttrType::kInts:
      return ints_of(v, where);
    case AttrType::kBools: {
      if (v.kind != PyValue::Kind::kList)
        throw std::invalid_argument(where + ": a list of booleans expected");
      std::vector<bool> out;
      for (const auto &x : v.items) {
        if (x.kind != PyValue::Kind::kBool)
          throw std::invalid_argument(where + ": a list of booleans expected");
        out.push_back(x.b);
      }
      return out;
    }
  }
  return std::monostate{};
}

void flatten_numbers(const PyValue &v, std::vector<double> &out, const std::string &where) {
  if (v.is_number()) {
    out.push_back(v.number());
    return;
  }
  if (v.kind != PyValue::Kind::kList) throw std::invalid_argument(where + ": numbers expected");
  for (const auto &x : v.items) flatten_numbers(x, out, where);
}

struct Range {
  double lo = -2, hi = 2;
  std::vector<double> must;  // the third and further values: placed in the data
};

Range range_of(const PyValue *v, const std::string &where) {
  Range r;
  if (!v || v->kind == PyValue::Kind::kNone) return r;
  if (v->kind != PyValue::Kind::kList || v->items.size() < 2)
    throw std::invalid_argument(where + ": (min, max[, values...]) expected");
  const auto bound = [&](const PyValue &x, double dflt) {
    if (x.kind == PyValue::Kind::kNone) return dflt;
    if (!x.is_number()) throw std::invalid_argument(where + ": bounds must be numbers or None");
    return x.number();
  };
  r.lo = bound(v->items[0], -2);
  r.hi = bound(v->items[1], 2);
  if (!(r.lo <= r.hi))
    throw std::invalid_argument(where + fmt::format(": min {} > max {}", r.lo, r.hi));
  if (r.lo != r.hi && !std::isfinite(r.hi - r.lo))
    throw std::invalid_argument(where + ": the bounds of a random range must be finite");
  for (size_t k = 2; k < v->items.size(); ++k) {
    if (!v->items[k].is_number()) throw std::invalid_argument(where + ": values must be numbers");
    r.must.push_back(v->items[k].number());
  }
  return r;
}

// The storage elements a view reaches (offset + the largest index), for a contiguous default.
int64_t span_of(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                int64_t offset) {
  int64_t last = offset;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return offset;
    last += (shape[d] - 1) * std::max<int64_t>(strides[d], 0);
  }
  return last + 1;
}

}  // namespace

Case ttk_row_case(const std::map<std::string, std::string> &row, const TtkImportOptions &opt,
                  uint64_t row_seed, std::string &skip_reason) {
  skip_reason.clear();
  const std::string enabled = lower(text_of(row, "is_enabled"));
  if (enabled == "false" || enabled == "0") {
    skip_reason = "is_enabled is False";
    return {};
  }
  const std::string api = text_of(row, "api_name");
  if (api.empty()) throw std::invalid_argument("api_name is empty");
  const OpDescriptor *op = nullptr;
  std::vector<std::string> known;
  for (const auto *d : registry()) {
    known.push_back(d->abi_name);
    if (d->abi_name == api) op = d;
  }
  if (!op)
    throw std::invalid_argument(fmt::format("api_name '{}' is not an API aclnn-conform tests ({})",
                                            api, fmt::join(known, ", ")));
  // soc_series: the row runs on the listed SoCs ('-' excludes one).
  const PyValue socs = field(row, "soc_series");
  if (!empty_field(socs)) {
    std::vector<std::string> names;
    if (socs.kind == PyValue::Kind::kString) names.push_back(socs.s);
    for (const auto &x : socs.items)
      if (x.kind == PyValue::Kind::kString) names.push_back(x.s);
    bool any_positive = false, included = false, excluded = false;
    for (const auto &n : names) {
      if (!n.empty() && n[0] == '-') {
        excluded |= soc_matches(n.substr(1), opt.product);
      } else {
        any_positive = true;
        included |= soc_matches(n, opt.product);
      }
    }
    if (excluded || (any_positive && !included)) {
      skip_reason = fmt::format("soc_series {} does not include {}", fmt::join(names, ", "),
                                product_name(opt.product));
      return {};
    }
  }
  if (!empty_field(field(row, "scalar_dtypes")))
    throw std::invalid_argument(api + " takes no aclScalar: scalar_dtypes must be empty");
  for (const char *manual : {"manual_tensor_binaries", "manual_golden_binaries"})
    if (!empty_field(field(row, manual)))
      throw std::invalid_argument(std::string(manual) +
                                  ": binary data files are not imported; give "
                                  "values by range or in attributes");

  // The API's parameters: a generated call names them in order (tensors) and by name (attributes).
  const Case proto = op->gen_valid(opt.product)(rc::Random(1), 1).value();
  const size_t count = proto.tensors.size();
  std::vector<std::string> tensor_names, attr_names;
  for (const auto &[n, t] : proto.tensors) tensor_names.push_back(n);
  for (const auto &[n, a] : proto.attrs) attr_names.push_back(n);

  const PyValue shapes = field(row, "tensor_view_shapes");
  if (shapes.kind != PyValue::Kind::kList || shapes.items.size() != count)
    throw std::invalid_argument(
        fmt::format("tensor_view_shapes: {} takes {} tensors ({}), the row gives {}", api, count,
                    fmt::join(tensor_names, ", "),
                    shapes.kind == PyValue::Kind::kList ? shapes.items.size() : 0));
  const PyValue dtypes = field(row, "tensor_dtypes"), formats = field(row, "tensor_formats"),
                strides = field(row, "tensor_view_strides"),
                offsets = field(row, "tensor_view_offsets"),
                storages = field(row, "tensor_storage_shapes"),
                ranges = field(row, "input_data_ranges"),
                outs = field(row, "output_tensor_indexes"), attrs = field(row, "attributes");
  if (empty_field(dtypes)) throw std::invalid_argument("tensor_dtypes is empty");
  if (!empty_field(attrs) && attrs.kind != PyValue::Kind::kDict)
    throw std::invalid_argument("attributes: a dict expected");

  // output_tensor_indexes, if given, must name the API's outputs.
  if (!empty_field(outs)) {
    std::set<int64_t> given, expected;
    for (int64_t k : ints_of(outs, "output_tensor_indexes"))
      given.insert(k < 0 ? k + static_cast<int64_t>(count) : k);
    for (size_t k = 0; k < count; ++k)
      if (std::find(op->outputs.begin(), op->outputs.end(), tensor_names[k]) != op->outputs.end())
        expected.insert(static_cast<int64_t>(k));
    if (given != expected)
      throw std::invalid_argument(fmt::format(
          "output_tensor_indexes ({}) are not {}'s outputs ({}: {})", fmt::join(given, ", "), api,
          fmt::join(expected, ", "), fmt::join(op->outputs, ", ")));
  }
  // Attributes: the API's, and tensor values by the tensor's name.
  std::map<std::string, const PyValue *> tensor_values;
  Case c;
  c.op = op->name;
  c.product = opt.product;
  std::set<std::string> given_attrs;
  for (const auto &[k, v] : attrs.entries) {
    if (k.kind != PyValue::Kind::kString)
      throw std::invalid_argument("attributes: keys must be strings");
    if (std::find(tensor_names.begin(), tensor_names.end(), k.s) != tensor_names.end()) {
      tensor_values[k.s] = &v;
    } else if (std::find(attr_names.begin(), attr_names.end(), k.s) != attr_names.end()) {
      given_attrs.insert(k.s);
    } else {
      throw std::invalid_argument(fmt::format(
          "attributes: '{}' is not a parameter of {} (attributes: {}; "
          "tensors: {})",
          k.s, api, attr_names.empty() ? "none" : fmt::format("{}", fmt::join(attr_names, ", ")),
          fmt::join(tensor_names, ", ")));
    }
  }
  for (const auto &n : attr_names) {
    if (!given_attrs.count(n))
      throw std::invalid_argument(
          fmt::format("attributes: {} needs '{}' (None passes NULL)", api, n));
    for (const auto &[k, v] : attrs.entries)
      if (k.s == n) c.attrs.emplace_back(n, attr_value(v, n));
  }

  std::mt19937_64 rng(row_seed);
  const auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1p-53; };
  int64_t bytes = 0;
  for (size_t k = 0; k < count; ++k) {
    const std::string &name = tensor_names[k];
    const std::string where = fmt::format("tensor {} ({})", k, name);
    const PyValue &shape_v = shapes.items[k];
    if (shape_v.kind == PyValue::Kind::kNone) {
      c.tensors.emplace_back(name, TensorArg::null());
      continue;
    }
    const auto shape = ints_of(shape_v, "tensor_view_shapes " + where);
    for (int64_t d : shape)
      if (d < 0)
        throw std::invalid_argument("tensor_view_shapes " + where + ": negative dimension");
    const PyValue *dt = entry(dtypes, k, count, "tensor_dtypes");
    if (!dt) throw std::invalid_argument("tensor_dtypes " + where + ": missing");
    const DType dtype = dtype_of(*dt, "tensor_dtypes " + where);
    if (const PyValue *f = entry(formats, k, count, "tensor_formats"))
      if (f->kind != PyValue::Kind::kNone &&
          (f->kind != PyValue::Kind::kString || lower(f->s) != "nd"))
        throw std::invalid_argument("tensor_formats " + where + ": only ND tensors are imported");
    TensorArg a;
    a.dtype = dtype;
    a.shape = shape;
    const PyValue *st = entry(strides, k, count, "tensor_view_strides");
    a.strides = st && st->kind != PyValue::Kind::kNone
                    ? ints_of(*st, "tensor_view_strides " + where)
                    : aclnn_ref::contiguous_strides(shape);
    if (a.strides.size() != shape.size())
      throw std::invalid_argument("tensor_view_strides " + where + ": one stride per dimension");
    const PyValue *off = entry(offsets, k, count, "tensor_view_offsets");
    a.offset = off && off->kind != PyValue::Kind::kNone
                   ? ints_of(*off, "tensor_view_offsets " + where).at(0)
                   : 0;
    if (a.offset < 0)
      throw std::invalid_argument("tensor_view_offsets " + where + ": negative offset");
    int64_t storage = span_of(a.shape, a.strides, a.offset);
    if (const PyValue *ss = entry(storages, k, count, "tensor_storage_shapes");
        ss && ss->kind != PyValue::Kind::kNone) {
      int64_t n = 1;
      for (int64_t d : ints_of(*ss, "tensor_storage_shapes " + where)) n *= d;
      if (n < storage)
        throw std::invalid_argument(fmt::format(
            "tensor_storage_shapes {}: {} elements, the view reaches {}", where, n, storage));
      storage = n;
    }
    bytes += storage * static_cast<int64_t>(aclnn_ref::dtype_size(dtype));
    if (bytes > opt.max_case_bytes) {
      skip_reason = fmt::format("its tensors hold more than {} MiB (import-ttk --max-mib)",
                                opt.max_case_bytes >> 20);
      return {};
    }
    a.storage.assign(static_cast<size_t>(storage) * aclnn_ref::dtype_size(dtype), std::byte{0});
    const int64_t n = a.numel();
    // Values: given by name in attributes, else drawn from the range.
    std::vector<double> values;
    if (const auto it = tensor_values.find(name); it != tensor_values.end()) {
      flatten_numbers(*it->second, values, "attributes['" + name + "']");
      if (values.size() == 1) values.assign(static_cast<size_t>(n), values[0]);
      if (static_cast<int64_t>(values.size()) != n)
        throw std::invalid_argument(
            fmt::format("attributes['{}']: {} values for {} elements", name, values.size(), n));
    } else {
      const Range r =
          range_of(entry(ranges, k, count, "input_data_ranges"), "input_data_ranges " + where);
      const bool integral = !aclnn_ref::is_floating(dtype) && !aclnn_ref::is_complex(dtype);
      values.resize(static_cast<size_t>(n));
      for (auto &v : values) {
        if (r.lo == r.hi) {
          v = r.lo;
        } else if (integral) {
          const double lo = std::ceil(r.lo), hi = std::floor(r.hi);
          v = lo > hi ? lo : lo + std::floor(uniform() * (hi - lo + 1));
          v = std::min(v, hi);
        } else {
          v = r.lo + (r.hi - r.lo) * uniform();
        }
      }
      // The range's further values appear in the data, at drawn places.
      std::vector<int64_t> places(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) places[static_cast<size_t>(i)] = i;
      std::shuffle(places.begin(), places.end(), rng);
      for (size_t m = 0; m < r.must.size() && m < places.size(); ++m)
        values[static_cast<size_t>(places[m])] = r.must[m];
    }
    for (int64_t i = 0; i < n; ++i)
      a.set_bits_at(i, aclnn_ref::bits_from_double(values[static_cast<size_t>(i)], dtype));
    c.tensors.emplace_back(name, std::move(a));
  }
  return c;
}

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
