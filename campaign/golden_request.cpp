#include "campaign/golden_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

namespace aclnn_conform {

void golden_request_error(const std::string &source, const std::string &what) {
  throw std::runtime_error("golden request" + (source.empty() ? "" : " " + source) + ": " + what);
}

namespace {

namespace fs = std::filesystem;
using aclnn_ref::DType;

[[noreturn]] void fail(const std::string &source, const std::string &what) {
  golden_request_error(source, what);
}

std::string type_of(const nlohmann::json &j) {
  return j.type_name();
}

std::string string_field(const std::string &source, const nlohmann::json &obj, const char *key,
                         const std::string &where) {
  const auto &v = obj.at(key);
  if (!v.is_string())
    fail(source, fmt::format("{}\"{}\" must be a string, got {}", where, key, type_of(v)));
  return v.get<std::string>();
}

std::vector<int64_t> int_list(const std::string &source, const nlohmann::json &t, const char *key,
                              const std::string &name) {
  const auto &v = t.at(key);
  bool ok = v.is_array();
  if (ok)
    for (const auto &e : v)
      ok = ok &&
           (e.is_number_integer() && !(e.is_number_unsigned() && e.get<uint64_t>() > INT64_MAX));
  if (!ok) fail(source, fmt::format("tensor {}: \"{}\" must be an array of integers", name, key));
  return v.get<std::vector<int64_t>>();
}

std::string resolve(const std::string &base_dir, const std::string &path) {
  if (base_dir.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(base_dir) / path).string();
}

// a * b + c for non-negative operands, or -1 if it exceeds int64.
int64_t mul_add(int64_t a, int64_t b, int64_t c) {
  int64_t p = 0, s = 0;
  if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, &s)) return -1;
  return s;
}

GoldenTensor tensor_from_json(const std::string &source, const std::string &base_dir,
                              const nlohmann::json &t, int64_t max_storage_bytes) {
  if (!t.is_object())
    fail(source, "every entry of \"tensors\" must be an object, got " + type_of(t));
  if (!t.contains("name")) fail(source, "a tensor without \"name\"");
  GoldenTensor g;
  g.name = string_field(source, t, "name", "tensor ");
  const std::string &name = g.name;
  const std::string where = "tensor " + name + ": ";
  if (t.contains("null")) {
    if (!t["null"].is_boolean()) fail(source, where + "\"null\" must be true or false");
    if (t["null"].get<bool>()) {
      g.arg = TensorArg::null();
      return g;
    }
  }
  TensorArg &a = g.arg;
  if (!t.contains("dtype")) fail(source, where + "no dtype");
  const std::string dtype_name = string_field(source, t, "dtype", where);
  const auto dt = aclnn_ref::dtype_from_name(dtype_name);
  if (!dt) fail(source, where + "unknown dtype " + dtype_name);
  a.dtype = *dt;
  if (!t.contains("shape")) fail(source, where + "no shape");
  a.shape = int_list(source, t, "shape", name);
  for (int64_t d : a.shape)
    if (d < 0) fail(source, where + "negative dimension");
  a.strides = t.contains("strides") ? int_list(source, t, "strides", name)
                                    : aclnn_ref::contiguous_strides(a.shape);
  if (a.strides.size() != a.shape.size()) fail(source, where + "strides and shape differ in rank");
  for (int64_t s : a.strides)
    if (s < 0) fail(source, where + "negative stride");
  if (t.contains("offset")) {
    const auto &o = t["offset"];
    if (!o.is_number_integer() || (o.is_number_unsigned() && o.get<uint64_t>() > INT64_MAX))
      fail(source, where + "\"offset\" must be an integer");
    a.offset = o.get<int64_t>();
  }
  if (a.offset < 0) fail(source, where + "negative offset");

  // Elements of the view and of the storage it spans, without overflow and within the bound.
  const auto size = static_cast<int64_t>(aclnn_ref::dtype_size(a.dtype));
  const auto too_large = [&] {
    fail(source, fmt::format("{}the view or the storage it spans exceeds {} bytes", where,
                             max_storage_bytes));
  };
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : a.shape) empty = empty || d == 0;
  if (empty) n = 0;
  for (int64_t d : a.shape)
    if (!empty && (n = mul_add(n, d, 0)) < 0) too_large();
  int64_t extent = a.offset;
  if (n > 0) {
    extent = mul_add(a.offset, 1, 1);
    for (size_t d = 0; d < a.shape.size() && extent >= 0; ++d)
      extent = mul_add(a.shape[d] - 1, a.strides[d], extent);
  }
  if (extent < 0 || mul_add(extent, size, 0) < 0 || extent * size > max_storage_bytes ||
      n * size > max_storage_bytes)
    too_large();
  a.storage.assign(static_cast<size_t>(extent * size), std::byte{0});

  if (!t.contains("file") || t["file"].is_null()) return g;
  const std::string file = string_field(source, t, "file", where);
  std::vector<std::byte> data;
  try {
    data = read_bin(resolve(base_dir, file), static_cast<size_t>(n * size));
  } catch (const std::runtime_error &e) {
    fail(source, where + e.what());
  }
  g.has_file = true;
  // Place the row-major elements; elements sharing a storage element (zero strides) must agree.
  std::vector<int64_t> first_at(static_cast<size_t>(extent), -1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t pos = a.offset, flat = i;
    for (size_t d = a.shape.size(); d-- > 0;) {
      pos += (flat % a.shape[d]) * a.strides[d];
      flat /= a.shape[d];
    }
    const std::byte *src = data.data() + i * size;
    std::byte *dst = a.storage.data() + pos * size;
    int64_t &first = first_at[static_cast<size_t>(pos)];
    if (first >= 0 && std::memcmp(dst, src, static_cast<size_t>(size)) != 0)
      fail(source, fmt::format("{}elements {} and {} share a storage element but differ in the "
                               "file",
                               where, first, i));
    if (first < 0) first = i;
    std::memcpy(dst, src, static_cast<size_t>(size));
  }
  return g;
}

void write_bytes(const std::string &path, const std::string &prefix,
                 std::span<const std::byte> bytes) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + path);
  f.write(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

GoldenRequest parse_golden_request(const nlohmann::json &request, const std::string &source,
                                   int64_t max_storage_bytes) {
  GoldenRequest r;
  r.source = source;
  if (!request.is_object()) fail(source, "not a JSON object");
  if (!request.contains("op") || !request["op"].is_string()) fail(source, "no \"op\" (a string)");
  r.op = request["op"].get<std::string>();
  if (request.contains("product")) r.product = string_field(source, request, "product", "");
  if (request.contains("variants")) {
    const auto &v = request["variants"];
    if (!v.is_array()) fail(source, "\"variants\" must be an array of strings");
    for (const auto &e : v) {
      if (!e.is_string()) fail(source, "\"variants\" must be an array of strings");
      r.variants.push_back(e.get<std::string>());
    }
  }
  const std::string base_dir =
      request.contains("base_dir") ? string_field(source, request, "base_dir", "") : "";
  r.attrs = request.value("attrs", nlohmann::json::object());
  if (!r.attrs.is_object()) fail(source, "\"attrs\" must be an object");
  const nlohmann::json tensors = request.value("tensors", nlohmann::json::array());
  if (!tensors.is_array()) fail(source, "\"tensors\" must be an array");
  std::set<std::string> seen;
  for (const auto &t : tensors) {
    r.tensors.push_back(tensor_from_json(source, base_dir, t, max_storage_bytes));
    if (!seen.insert(r.tensors.back().name).second)
      fail(source, "tensor " + r.tensors.back().name + " is given twice");
  }
  return r;
}

std::string golden_attr_kind(const AttrValue &a) {
  switch (a.index()) {
    case 1:
      return "number";
    case 2:
      return "integer";
    case 3:
      return "array of integers";
    case 4:
      return "array of booleans";
    default:
      return "null";
  }
}

AttrValue golden_attr_from_json(const std::string &source, const std::string &name,
                                const nlohmann::json &j, const AttrValue &like) {
  if (j.is_null()) return std::monostate{};
  const auto is_int64 = [](const nlohmann::json &e) {
    return e.is_number_integer() && !(e.is_number_unsigned() && e.get<uint64_t>() > INT64_MAX);
  };
  switch (like.index()) {
    case 1:  // double: a number, or text strtod reads (hex floats, "nan", "inf")
      if (j.is_string()) {
        const std::string t = j.get<std::string>();
        char *end = nullptr;
        const double v = std::strtod(t.c_str(), &end);
        if (end == t.c_str() || *end != '\0' || t.size() != std::strlen(t.c_str()))
          fail(source, "attribute " + name + ": bad number " + nlohmann::json(t).dump());
        return v;
      }
      if (j.is_number()) return j.get<double>();
      break;
    case 2:
      if (is_int64(j)) return j.get<int64_t>();
      break;
    case 3:
      if (j.is_array() && std::all_of(j.begin(), j.end(), is_int64))
        return j.get<std::vector<int64_t>>();
      break;
    case 4:
      if (j.is_array() &&
          std::all_of(j.begin(), j.end(), [](const auto &e) { return e.is_boolean(); }))
        return j.get<std::vector<bool>>();
      break;
    default:
      break;
  }
  fail(source, "attribute " + name + " must be a " + golden_attr_kind(like) + " (or null), got " +
                   j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string npy_descr(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat16:
      return "<f2";
    case DType::kFloat64:
      return "<f8";
    case DType::kBFloat16:
      return "<u2";  // no NumPy dtype: the raw bits
    case DType::kInt8:
      return "|i1";
    case DType::kUInt8:
      return "|u1";
    case DType::kBool:
      return "|b1";
    case DType::kInt16:
      return "<i2";
    case DType::kUInt16:
      return "<u2";
    case DType::kInt32:
      return "<i4";
    case DType::kUInt32:
      return "<u4";
    case DType::kInt64:
      return "<i8";
    case DType::kUInt64:
      return "<u8";
    case DType::kComplex64:
      return "<c8";
    case DType::kComplex128:
      return "<c16";
  }
  throw std::runtime_error("no NumPy descr for this dtype");
}

std::string npy_header(DType dtype, const std::vector<int64_t> &shape) {
  std::string shape_text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    shape_text += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) shape_text += ",";
  shape_text += ")";
  std::string dict = "{'descr': '" + npy_descr(dtype) +
                     "', 'fortran_order': False, 'shape': " + shape_text + ", }";
  // magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 0xffff) throw std::runtime_error("npy header too long");
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(dict.size() & 0xff);
  h += static_cast<char>(dict.size() >> 8);
  return h + dict;
}

void write_npy(const std::string &path, DType dtype, const std::vector<int64_t> &shape,
               std::span<const std::byte> bytes) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (bytes.size() != static_cast<size_t>(n) * aclnn_ref::dtype_size(dtype))
    throw std::runtime_error(fmt::format("write_npy {}: {} bytes for {} elements of {}", path,
                                         bytes.size(), n, aclnn_ref::dtype_name(dtype)));
  write_bytes(path, npy_header(dtype, shape), bytes);
}

void write_bin(const std::string &path, std::span<const std::byte> bytes) {
  write_bytes(path, "", bytes);
}

std::vector<std::byte> read_bin(const std::string &path, size_t expected_bytes) {
  // A FIFO or a device would block or never end: only regular files are read.
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec) throw std::runtime_error("cannot read " + path + ": " + ec.message());
  if (!fs::is_regular_file(status)) throw std::runtime_error(path + " is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (ec) throw std::runtime_error("cannot read " + path + ": " + ec.message());
  if (size != expected_bytes)
    throw std::runtime_error(
        fmt::format("{} holds {} bytes, expected {}", path, size, expected_bytes));
  std::vector<std::byte> out(expected_bytes);
  std::ifstream f(path, std::ios::binary);
  if (!f.read(reinterpret_cast<char *>(out.data()), static_cast<std::streamsize>(out.size())))
    throw std::runtime_error("cannot read " + path);
  return out;
}

}  // namespace aclnn_conform
