// import-ttk's case building (campaign/ttk_import.hpp): one row of the kit's case file (cells by
// column name) as a Case - the API's op, its tensors in parameter order with their dtypes, views
// and values drawn from the row's ranges, its attributes by name - or the reason it is skipped.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>

#include "campaign/ttk_detail.hpp"
#include "campaign/ttk_import.hpp"
#include "properties/op.hpp"
#include "reference/dtype.hpp"
#include "reference/host_tensor.hpp"
#include "reference/rounding.hpp"

namespace aclnn_conform {

using aclnn_ref::DType;

using namespace ttk_detail;

namespace {

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

}  // namespace aclnn_conform
