#include "campaign/golden.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidcheck.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "properties/op.hpp"

namespace aclnn_conform {
namespace {

namespace fs = std::filesystem;
using aclnn_ref::DType;

[[noreturn]] void fail(const std::string &source, const std::string &what) {
  golden_request_error(source, what);
}

// The op's tensor and attribute names (and attribute kinds) in signature order, read off one
// generated valid case.
Case signature_of(const OpDescriptor &op, Product product) {
  return op.gen_valid(product)(rc::Random(), 0).value();
}

std::string safe_file_stem(const std::string &name) {
  std::string s;
  for (char ch : name) s += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  return s.empty() ? "output" : s;
}

// The parsed request bound to its op's signature (consumes r's tensors).
Case case_of(GoldenRequest &r) {
  const std::string &source = r.source;
  const OpDescriptor *op = find_op(r.op);
  if (op == nullptr) {
    std::vector<std::string> names;
    for (const auto *o : registry()) names.push_back(o->name);
    fail(source, fmt::format("unknown op {} (known: {})", r.op, fmt::join(names, ", ")));
  }
  Case c;
  c.op = op->name;
  const std::string product =
      r.product.empty() ? std::string(product_name(Product::kAtlasA2)) : r.product;
  const auto p = product_from_name(product);
  if (!p) fail(source, "unknown product " + product);
  c.product = *p;

  const Case sig = signature_of(*op, c.product);
  for (const auto &t : r.tensors) {
    if (sig.tensor(t.name) == nullptr) {
      std::vector<std::string> names;
      for (const auto &[sn, st] : sig.tensors) names.push_back(sn);
      fail(source, fmt::format("{} has no tensor \"{}\" (its tensors: {})", op->name, t.name,
                               fmt::join(names, ", ")));
    }
  }
  for (const auto &[name, like] : sig.tensors) {
    const auto it = std::find_if(r.tensors.begin(), r.tensors.end(),
                                 [&](const auto &t) { return t.name == name; });
    if (it == r.tensors.end())
      fail(source, "tensor " + name + " is missing (use {\"null\": true} for NULL)");
    const bool output =
        std::find(op->outputs.begin(), op->outputs.end(), name) != op->outputs.end();
    if (!output && it->arg.present && !it->has_file && it->arg.numel() > 0)
      fail(source, "tensor " + name + ": an input needs a \"file\" with its data");
    c.tensors.emplace_back(name, std::move(it->arg));
  }

  for (const auto &[k, v] : r.attrs.items())
    if (sig.attr(k) == nullptr)
      fail(source, fmt::format("{} has no attribute \"{}\"", op->name, k));
  for (const auto &[name, like] : sig.attrs) {
    if (!r.attrs.contains(name))
      fail(source, "attribute " + name + " (" + golden_attr_kind(like) + ") is missing");
    c.attrs.emplace_back(name, golden_attr_from_json(source, name, r.attrs[name], like));
  }
  c.refresh_views();
  return c;
}

}  // namespace

Case golden_case_of(GoldenRequest &request) {
  return case_of(request);
}

Case golden_case(const nlohmann::json &request, const std::string &source) {
  GoldenRequest r = parse_golden_request(request, source);
  return case_of(r);
}

nlohmann::json run_golden(const nlohmann::json &request, const std::string &out_dir,
                          const std::string &source) {
  GoldenRequest r = parse_golden_request(request, source);
  const Case c = case_of(r);
  const OpDescriptor &op = *find_op(c.op);
  aclnn_ref::VariantSet variants;
  for (const auto &n : r.variants) variants.add(n);
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
