// One call of an op, fully described on the host: tensors (views over their own storage) in
// signature order, attributes, and the product whose gates apply. Serialises to JSON so a
// counterexample can be stored, replayed and turned into a standalone repro.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "properties/staging.hpp"
#include "reference/spec.hpp"

namespace aclnn_conform {

using aclnn_ref::Product;

// An attribute: absent/NULL, a double (eps), an integer (groupIdxType), an int array
// (normalizedShape), a bool array (outputMask).
using AttrValue =
    std::variant<std::monostate, double, int64_t, std::vector<int64_t>, std::vector<bool>>;

// In-place use (ABI-INPUT-1): the output is staged as exactly the input's view, over the input's
// storage. The Case still holds the output's TensorArg (the same dtype, view and storage as the
// input's before the call), so the oracle and the judge read it as usual.
struct Alias {
  std::string output, input;
  bool same_handle = true;  // one aclTensor for both; false: a second aclTensor over the memory
};

struct Case {
  std::string op;  // registry name, e.g. "GeluBackward"
  Product product = Product::kAtlasA2;
  std::vector<std::pair<std::string, TensorArg>> tensors;  // ABI parameter names, in order
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<Alias> aliases;  // in-place outputs (elementwise ops only)

  // The alias whose output (or input, with as_input) is name, or nullptr.
  const Alias *alias_of(std::string_view name, bool as_input = false) const;

  const TensorArg *tensor(std::string_view name) const;
  TensorArg *tensor(std::string_view name);
  const AttrValue *attr(std::string_view name) const;
  // The view of a present tensor for the oracle, or nullptr for a NULL argument.
  const aclnn_ref::TensorView *view(std::string_view name) const;
  // Rebuilds cached oracle views after the tensors changed (called by the accessors as needed).
  void refresh_views() const;

  // One line: op, product, every tensor's dtype/shape/strides/offset, attributes.
  std::string describe() const;
  // Elements of the present tensors' views, summed: the case's size, as shrinks and limits count.
  int64_t elements() const;

 private:
  // Oracle views point into this Case's own storage, so a copy starts with an empty cache.
  struct ViewCache {
    std::vector<std::pair<std::string, aclnn_ref::TensorView>> views;
    ViewCache() = default;
    ViewCache(const ViewCache &) {}
    ViewCache &operator=(const ViewCache &) {
      views.clear();
      return *this;
    }
  };
  mutable ViewCache cache_;
};

std::string_view product_name(Product p);  // "ascend910b", ...
std::optional<Product> product_from_name(std::string_view name);

nlohmann::json to_json(const Case &c);
// How rapidcheck prints a counterexample: the one-line description, then the case as JSON.
void showValue(const Case &c, std::ostream &os);
Case case_from_json(const nlohmann::json &j);  // throws std::runtime_error on malformed input

}  // namespace aclnn_conform
