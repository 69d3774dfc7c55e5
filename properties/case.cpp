#include "properties/case.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace aclnn_conform {

const TensorArg *Case::tensor(std::string_view name) const {
  for (const auto &[n, t] : tensors)
    if (n == name) return &t;
  return nullptr;
}

TensorArg *Case::tensor(std::string_view name) {
  cache_.views.clear();
  for (auto &[n, t] : tensors)
    if (n == name) return &t;
  return nullptr;
}

const AttrValue *Case::attr(std::string_view name) const {
  for (const auto &[n, a] : attrs)
    if (n == name) return &a;
  return nullptr;
}

void Case::refresh_views() const {
  cache_.views.clear();
  for (const auto &[n, t] : tensors)
    if (t.present) cache_.views.emplace_back(n, t.view());
}

const aclnn_ref::TensorView *Case::view(std::string_view name) const {
  if (cache_.views.empty()) refresh_views();
  for (const auto &[n, v] : cache_.views)
    if (n == name) return &v;
  return nullptr;
}

std::string_view product_name(Product p) {
  switch (p) {
    case Product::kAtlasA2:
      return "ascend910b";
    case Product::kAtlasA3:
      return "ascend910_93";
    case Product::kAtlasTraining:
      return "ascend910";
    case Product::kAtlasInference:
      return "ascend310p";
  }
  return "unknown";
}

std::optional<Product> product_from_name(std::string_view name) {
  for (Product p :
       {Product::kAtlasA2, Product::kAtlasA3, Product::kAtlasTraining, Product::kAtlasInference})
    if (product_name(p) == name) return p;
  return std::nullopt;
}

namespace {
std::string attr_text(const AttrValue &a) {
  return std::visit(
      [](const auto &v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return "NULL";
        else if constexpr (std::is_same_v<T, double>)
          return fmt::format("{}", v);
        else if constexpr (std::is_same_v<T, int64_t>)
          return fmt::format("{}", v);
        else
          return fmt::format("[{}]", fmt::join(v, ","));
      },
      a);
}

std::string to_hex(const std::vector<std::byte> &bytes) {
  static const char *digits = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (std::byte b : bytes) {
    s += digits[static_cast<unsigned>(b) >> 4];
    s += digits[static_cast<unsigned>(b) & 15];
  }
  return s;
}

std::vector<std::byte> from_hex(const std::string &s) {
  if (s.size() % 2) throw std::runtime_error("odd-length hex storage");
  auto nibble = [](char c) -> unsigned {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw std::runtime_error("bad hex digit in storage");
  };
  std::vector<std::byte> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = std::byte(static_cast<unsigned char>(nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1])));
  return out;
}
}  // namespace

std::string Case::describe() const {
  std::string s = fmt::format("{} on {}:", op, product_name(product));
  for (const auto &[n, t] : tensors) {
    if (!t.present) {
      s += fmt::format(" {}=NULL", n);
      continue;
    }
    s += fmt::format(" {}={}[{}]", n, aclnn_ref::dtype_name(t.dtype), fmt::join(t.shape, ","));
    if (t.strides != aclnn_ref::contiguous_strides(t.shape) || t.offset)
      s += fmt::format("(strides [{}] offset {})", fmt::join(t.strides, ","), t.offset);
  }
  for (const auto &[n, a] : attrs) s += fmt::format(" {}={}", n, attr_text(a));
  return s;
}

nlohmann::json to_json(const Case &c) {
  nlohmann::json j;
  j["op"] = c.op;
  j["product"] = std::string(product_name(c.product));
  j["tensors"] = nlohmann::json::array();
  for (const auto &[n, t] : c.tensors) {
    nlohmann::json tj{{"name", n}, {"present", t.present}};
    if (t.present) {
      tj["dtype"] = std::string(aclnn_ref::dtype_name(t.dtype));
      tj["shape"] = t.shape;
      tj["strides"] = t.strides;
      tj["offset"] = t.offset;
      tj["storage_hex"] = to_hex(t.storage);
    }
    j["tensors"].push_back(tj);
  }
  j["attrs"] = nlohmann::json::array();
  for (const auto &[n, a] : c.attrs) {
    nlohmann::json aj{{"name", n}};
    std::visit(
        [&](const auto &v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::monostate>)
            aj["null"] = true;
          else if constexpr (std::is_same_v<T, double>) {
            // Doubles as hex-float text keep NaN/inf and every bit exactly.
            aj["double"] = fmt::format("{:a}", v);
          } else if constexpr (std::is_same_v<T, int64_t>)
            aj["int"] = v;
          else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
            aj["ints"] = v;
          else
            aj["bools"] = v;
        },
        a);
    j["attrs"].push_back(aj);
  }
  return j;
}

void showValue(const Case &c, std::ostream &os) {
  os << c.describe() << "\n" << to_json(c).dump();
}

Case case_from_json(const nlohmann::json &j) {
  Case c;
  c.op = j.at("op").get<std::string>();
  const auto p = product_from_name(j.at("product").get<std::string>());
  if (!p) throw std::runtime_error("unknown product in case");
  c.product = *p;
  for (const auto &tj : j.at("tensors")) {
    TensorArg t;
    t.present = tj.at("present").get<bool>();
    if (t.present) {
      const auto dt = aclnn_ref::dtype_from_name(tj.at("dtype").get<std::string>());
      if (!dt) throw std::runtime_error("unknown dtype in case");
      t.dtype = *dt;
      t.shape = tj.at("shape").get<std::vector<int64_t>>();
      t.strides = tj.at("strides").get<std::vector<int64_t>>();
      t.offset = tj.at("offset").get<int64_t>();
      t.storage = from_hex(tj.at("storage_hex").get<std::string>());
    }
    c.tensors.emplace_back(tj.at("name").get<std::string>(), std::move(t));
  }
  for (const auto &aj : j.at("attrs")) {
    AttrValue a;
    if (aj.contains("double"))
      a = std::strtod(aj["double"].get<std::string>().c_str(), nullptr);
    else if (aj.contains("int"))
      a = aj["int"].get<int64_t>();
    else if (aj.contains("ints"))
      a = aj["ints"].get<std::vector<int64_t>>();
    else if (aj.contains("bools"))
      a = aj["bools"].get<std::vector<bool>>();
    c.attrs.emplace_back(aj.at("name").get<std::string>(), a);
  }
  return c;
}

}  // namespace aclnn_conform
