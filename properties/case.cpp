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

const Alias *Case::alias_of(std::string_view name, bool as_input) const {
  for (const auto &a : aliases)
    if ((as_input ? a.input : a.output) == name) return &a;
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

int64_t Case::elements() const {
  int64_t n = 0;
  for (const auto &[name, t] : tensors)
    if (t.present) n += t.numel();
  return n;
}

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
  for (const auto &a : aliases)
    s += fmt::format(" in-place {}={}{}", a.output, a.input,
                     a.same_handle ? "" : " (second aclTensor over its memory)");
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
  if (!c.aliases.empty()) {
    j["aliases"] = nlohmann::json::array();
    for (const auto &a : c.aliases)
      j["aliases"].push_back(
          {{"output", a.output}, {"input", a.input}, {"same_handle", a.same_handle}});
  }
  return j;
}

void showValue(const Case &c, std::ostream &os) {
  os << c.describe() << "\n" << to_json(c).dump();
}

namespace {
// Strict readers for hand-edited files: a wrong type or a number that does not fit is an error
// naming the field, never a silent (or undefined) conversion.
int64_t int_field(const nlohmann::json &v, const std::string &what) {
  if (v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
    return v.get<int64_t>();
  throw std::runtime_error("case: " + what + " must be an integer that fits int64, not " +
                           v.dump());
}
std::vector<int64_t> ints_field(const nlohmann::json &v, const std::string &what) {
  if (!v.is_array()) throw std::runtime_error("case: " + what + " must be an array of integers");
  std::vector<int64_t> out;
  for (const auto &e : v) out.push_back(int_field(e, what + " element"));
  return out;
}
// A present tensor must describe a view inside its own storage bytes (what the harness and the
// oracle will read).
void check_geometry(const TensorArg &t, const std::string &name) {
  const std::string what = "case: tensor " + name;
  if (t.strides.size() != t.shape.size())
    throw std::runtime_error(what + " has " + std::to_string(t.strides.size()) + " strides for " +
                             std::to_string(t.shape.size()) + " dims");
  if (t.offset < 0) throw std::runtime_error(what + " has a negative offset");
  int64_t n = 1, reach = t.offset;
  bool empty = false;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] < 0 || t.strides[i] < 0)
      throw std::runtime_error(what + " has a negative dim or stride");
    empty |= t.shape[i] == 0;
    if (t.shape[i] != 0 && __builtin_mul_overflow(n, t.shape[i], &n))
      throw std::runtime_error(what + " has an element count that overflows int64");
  }
  if (empty) return;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    int64_t step;
    if (__builtin_mul_overflow(t.shape[i] - 1, t.strides[i], &step) ||
        __builtin_add_overflow(reach, step, &reach))
      throw std::runtime_error(what + " reaches past int64");
  }
  const auto esize = static_cast<int64_t>(aclnn_ref::dtype_size(t.dtype));
  int64_t end;
  if (__builtin_add_overflow(reach, 1, &end) || __builtin_mul_overflow(end, esize, &end) ||
      end > static_cast<int64_t>(t.storage.size()))
    throw std::runtime_error(what + " reaches past its storage_hex (" +
                             std::to_string(t.storage.size()) + " bytes)");
}
}  // namespace

Case case_from_json(const nlohmann::json &j) {
  Case c;
  c.op = j.at("op").get<std::string>();
  const auto p = product_from_name(j.at("product").get<std::string>());
  if (!p) throw std::runtime_error("unknown product in case");
  c.product = *p;
  for (const auto &tj : j.at("tensors")) {
    TensorArg t;
    const std::string name = tj.at("name").get<std::string>();
    t.present = tj.at("present").get<bool>();
    if (t.present) {
      const auto dt = aclnn_ref::dtype_from_name(tj.at("dtype").get<std::string>());
      if (!dt) throw std::runtime_error("unknown dtype in case");
      t.dtype = *dt;
      t.shape = ints_field(tj.at("shape"), name + ".shape");
      t.strides = ints_field(tj.at("strides"), name + ".strides");
      t.offset = int_field(tj.at("offset"), name + ".offset");
      t.storage = from_hex(tj.at("storage_hex").get<std::string>());
      check_geometry(t, name);
    }
    c.tensors.emplace_back(name, std::move(t));
  }
  for (const auto &aj : j.at("attrs")) {
    AttrValue a;
    const std::string name = aj.at("name").get<std::string>();
    if (aj.contains("double"))
      a = std::strtod(aj["double"].get<std::string>().c_str(), nullptr);
    else if (aj.contains("int"))
      a = int_field(aj["int"], name);
    else if (aj.contains("ints"))
      a = ints_field(aj["ints"], name);
    else if (aj.contains("bools"))
      a = aj["bools"].get<std::vector<bool>>();
    c.attrs.emplace_back(name, a);
  }
  if (j.contains("aliases")) {
    for (const auto &aj : j.at("aliases")) {
      Alias a{aj.at("output").get<std::string>(), aj.at("input").get<std::string>(),
              aj.value("same_handle", true)};
      // The runner stages the output as the input: both descriptions must be the same view.
      const TensorArg *o = c.tensor(a.output), *i = c.tensor(a.input);
      if (!o || !i || !o->present || !i->present || o->dtype != i->dtype || o->shape != i->shape ||
          o->strides != i->strides || o->offset != i->offset || o->storage != i->storage)
        throw std::runtime_error("case: alias " + a.output + "=" + a.input +
                                 " names tensors that are not the same present view");
      c.aliases.push_back(std::move(a));
    }
  }
  return c;
}

}  // namespace aclnn_conform
