#include "campaign/golden.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "properties/op.hpp"

namespace aclnn_conform {
namespace {

namespace fs = std::filesystem;
using aclnn_ref::DType;

[[noreturn]] void fail(const std::string &what) {
  throw std::runtime_error("golden request: " + what);
}

// The op's tensor and attribute names (and attribute kinds) in signature order, read off one
// generated valid case.
Case signature_of(const OpDescriptor &op, Product product) {
  return op.gen_valid(product)(rc::Random(), 0).value();
}

std::string attr_kind(const AttrValue &a) {
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

AttrValue attr_from_json(const std::string &name, const nlohmann::json &j, const AttrValue &like) {
  if (j.is_null()) return std::monostate{};
  try {
    switch (like.index()) {
      case 1:  // double: a number, or text strtod reads (hex floats, "nan", "inf")
        if (j.is_string()) {
          const std::string t = j.get<std::string>();
          char *end = nullptr;
          const double v = std::strtod(t.c_str(), &end);
          if (end == t.c_str() || *end != '\0') fail("attribute " + name + ": bad number " + t);
          return v;
        }
        if (!j.is_number()) break;
        return j.get<double>();
      case 2:
        if (!j.is_number_integer()) break;
        return j.get<int64_t>();
      case 3:
        if (!j.is_array()) break;
        return j.get<std::vector<int64_t>>();
      case 4:
        if (!j.is_array()) break;
        return j.get<std::vector<bool>>();
      default:
        break;
    }
  } catch (const nlohmann::json::exception &) {
  }
  fail("attribute " + name + " must be a " + attr_kind(like) + " (or null), got " + j.dump());
}

std::vector<int64_t> int_list(const nlohmann::json &t, const char *key, const std::string &name) {
  try {
    return t.at(key).get<std::vector<int64_t>>();
  } catch (const nlohmann::json::exception &) {
    fail(fmt::format("tensor {}: \"{}\" must be an array of integers", name, key));
  }
}

std::string resolve(const nlohmann::json &request, const std::string &path) {
  if (fs::path(path).is_absolute() || !request.contains("base_dir")) return path;
  return (fs::path(request.at("base_dir").get<std::string>()) / path).string();
}

TensorArg tensor_from_json(const nlohmann::json &request, const nlohmann::json &t,
                           const std::string &name, bool output) {
  if (t.value("null", false)) return TensorArg::null();
  TensorArg a;
  if (!t.contains("dtype") || !t["dtype"].is_string()) fail("tensor " + name + ": no dtype");
  const auto dt = aclnn_ref::dtype_from_name(t["dtype"].get<std::string>());
  if (!dt) fail("tensor " + name + ": unknown dtype " + t["dtype"].get<std::string>());
  a.dtype = *dt;
  if (!t.contains("shape")) fail("tensor " + name + ": no shape");
  a.shape = int_list(t, "shape", name);
  for (int64_t d : a.shape)
    if (d < 0) fail("tensor " + name + ": negative dimension");
  a.strides =
      t.contains("strides") ? int_list(t, "strides", name) : aclnn_ref::contiguous_strides(a.shape);
  if (a.strides.size() != a.shape.size())
    fail("tensor " + name + ": strides and shape differ in rank");
  for (int64_t s : a.strides)
    if (s < 0) fail("tensor " + name + ": negative stride");
  a.offset = t.value("offset", int64_t{0});
  if (a.offset < 0) fail("tensor " + name + ": negative offset");
  const int64_t n = a.numel();
  int64_t extent = a.offset;
  if (n > 0) {
    extent = a.offset + 1;
    for (size_t d = 0; d < a.shape.size(); ++d) extent += (a.shape[d] - 1) * a.strides[d];
  }
  const size_t size = aclnn_ref::dtype_size(a.dtype);
  a.storage.assign(static_cast<size_t>(extent) * size, std::byte{0});

  std::vector<std::byte> data;
  if (t.contains("file") && !t["file"].is_null()) {
    data = read_bin(resolve(request, t["file"].get<std::string>()), static_cast<size_t>(n) * size);
  } else if (!output && n > 0) {
    fail("tensor " + name + ": an input needs a \"file\" with its data");
  }
  if (data.empty()) return a;
  // Place the row-major elements; elements sharing a storage element (zero strides) must agree.
  std::vector<int64_t> first_at(static_cast<size_t>(extent), -1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t pos = a.offset, flat = i;
    for (size_t d = a.shape.size(); d-- > 0;) {
      pos += (flat % a.shape[d]) * a.strides[d];
      flat /= a.shape[d];
    }
    const std::byte *src = data.data() + static_cast<size_t>(i) * size;
    std::byte *dst = a.storage.data() + static_cast<size_t>(pos) * size;
    int64_t &first = first_at[static_cast<size_t>(pos)];
    if (first >= 0 && std::memcmp(dst, src, size) != 0)
      fail(
          fmt::format("tensor {}: elements {} and {} share a storage element but differ in the "
                      "file",
                      name, first, i));
    if (first < 0) first = i;
    std::memcpy(dst, src, size);
  }
  return a;
}

std::string safe_file_stem(const std::string &name) {
  std::string s;
  for (char ch : name) s += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  return s.empty() ? "output" : s;
}

void write_bytes(const std::string &path, const std::string &prefix,
                 std::span<const std::byte> bytes) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + path);
  f.write(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

aclnn_ref::VariantSet variants_of(const nlohmann::json &request) {
  aclnn_ref::VariantSet v;
  if (request.contains("variants"))
    for (const auto &n : request["variants"]) v.add(n.get<std::string>());
  return v;
}

}  // namespace

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
  std::error_code ec;
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

Case golden_case(const nlohmann::json &request) {
  if (!request.is_object()) fail("not a JSON object");
  if (!request.contains("op") || !request["op"].is_string()) fail("no \"op\"");
  const std::string op_name = request["op"].get<std::string>();
  const OpDescriptor *op = find_op(op_name);
  if (op == nullptr) {
    std::vector<std::string> names;
    for (const auto *o : registry()) names.push_back(o->name);
    fail(fmt::format("unknown op {} (known: {})", op_name, fmt::join(names, ", ")));
  }
  Case c;
  c.op = op->name;
  const std::string product =
      request.value("product", std::string(product_name(Product::kAtlasA2)));
  const auto p = product_from_name(product);
  if (!p) fail("unknown product " + product);
  c.product = *p;

  const Case sig = signature_of(*op, c.product);
  const nlohmann::json tensors = request.value("tensors", nlohmann::json::array());
  if (!tensors.is_array()) fail("\"tensors\" must be an array");
  for (const auto &t : tensors) {
    const std::string n = t.value("name", std::string());
    if (sig.tensor(n) == nullptr) {
      std::vector<std::string> names;
      for (const auto &[sn, st] : sig.tensors) names.push_back(sn);
      fail(fmt::format("{} has no tensor \"{}\" (its tensors: {})", op->name, n,
                       fmt::join(names, ", ")));
    }
  }
  for (const auto &[name, like] : sig.tensors) {
    const auto it = std::find_if(tensors.begin(), tensors.end(),
                                 [&](const auto &t) { return t.value("name", "") == name; });
    if (it == tensors.end()) fail("tensor " + name + " is missing (use {\"null\": true} for NULL)");
    const bool output =
        std::find(op->outputs.begin(), op->outputs.end(), name) != op->outputs.end();
    c.tensors.emplace_back(name, tensor_from_json(request, *it, name, output));
  }

  const nlohmann::json attrs = request.value("attrs", nlohmann::json::object());
  if (!attrs.is_object()) fail("\"attrs\" must be an object");
  for (const auto &[k, v] : attrs.items())
    if (sig.attr(k) == nullptr) fail(fmt::format("{} has no attribute \"{}\"", op->name, k));
  for (const auto &[name, like] : sig.attrs) {
    if (!attrs.contains(name)) fail("attribute " + name + " (" + attr_kind(like) + ") is missing");
    c.attrs.emplace_back(name, attr_from_json(name, attrs[name], like));
  }
  c.refresh_views();
  return c;
}

nlohmann::json run_golden(const nlohmann::json &request, const std::string &out_dir) {
  const Case c = golden_case(request);
  const OpDescriptor &op = *find_op(c.op);
  const aclnn_ref::VariantSet variants = variants_of(request);
  const aclnn_ref::Verdict verdict = op.check(c, variants);

  nlohmann::json j;
  j["op"] = c.op;
  j["product"] = std::string(product_name(c.product));
  j["variants"] = variants.names();
  j["case"] = c.describe();
  j["status"] = verdict.status;
  j["clause"] = verdict.clause;
  j["reason"] = verdict.reason;
  j["outputs"] = nlohmann::json::array();
  fs::create_directories(out_dir);
  if (verdict.ok()) {
    for (const auto &e : op.values(c, variants)) {
      nlohmann::json o{{"name", e.name},
                       {"dtype", std::string(aclnn_ref::dtype_name(e.values.dtype))},
                       {"shape", e.values.shape},
                       {"written", e.written}};
      if (!e.written) {
        o["note"] = "the op must leave this output untouched: no golden data";
        j["outputs"].push_back(o);
        continue;
      }
      const std::string stem = safe_file_stem(e.name);
      write_bin((fs::path(out_dir) / (stem + ".bin")).string(), e.values.bytes);
      write_npy((fs::path(out_dir) / (stem + ".npy")).string(), e.values.dtype, e.values.shape,
                e.values.bytes);
      o["bin"] = stem + ".bin";
      o["npy"] = stem + ".npy";
      o["npy_descr"] = npy_descr(e.values.dtype);
      if (e.values.dtype == DType::kBFloat16)
        o["note"] =
            "bf16 has no NumPy dtype: the .npy holds the raw bits as <u2 "
            "(view as bfloat16, e.g. ml_dtypes, or shift left 16 into float32 bits)";
      j["outputs"].push_back(o);
    }
  }
  std::ofstream f(fs::path(out_dir) / "golden.json");
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error("cannot write " + (fs::path(out_dir) / "golden.json").string());
  return j;
}

}  // namespace aclnn_conform
