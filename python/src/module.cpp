// aclnn_conform._core: the C++ side of the Python module (python/aclnn_conform/, docs/python.md).
//
// - golden(): the oracle's outputs for one call, bound to the op's signature by the golden
//   subcommand's own code (campaign/golden.hpp, golden_case_of) and computed by the op
//   descriptor's check() and values(), exactly as `aclnn-conform golden` computes them.
// - compare(): one output judged by one standard: the ulp bound (VAL-TOL-1 part 2, the
//   condition-aware bound for sums), Ascend MERE/MARE, or a vendor kit's standard
//   (reference/compare.hpp, reference/kit_standards.hpp).
// - run(): a campaign (run_campaign) and the CLI's report files (campaign/outputs.hpp).
//
// Arrays cross as NumPy arrays of raw element bits (bf16 as uint16), dtypes by the project's
// names ("fp32", "bf16", ...). The Python package turns user arrays into these and back.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <streambuf>
#include <thread>

#include "campaign/campaign.hpp"
#include "campaign/devices.hpp"
#include "campaign/golden.hpp"
#include "campaign/kit_policy.hpp"
#include "campaign/kit_tally.hpp"
#include "campaign/outputs.hpp"
#include "campaign/result.hpp"
#include "properties/clauses.hpp"
#include "properties/op.hpp"
#include "reference/compare.hpp"
#include "reference/kit_standards.hpp"
#include "reference/promotion.hpp"

namespace py = pybind11;
using namespace aclnn_conform;

namespace {

DType dtype_of(const std::string &name) {
  const auto t = aclnn_ref::dtype_from_name(name);
  if (!t) throw py::value_error("unknown dtype '" + name + "'");
  return *t;
}

const OpDescriptor &op_of(const std::string &name) {
  const OpDescriptor *op = find_op(name);
  if (op == nullptr) throw py::value_error("unknown op '" + name + "'");
  return *op;
}

std::vector<int64_t> shape_of(const py::array &a) {
  return std::vector<int64_t>(a.shape(), a.shape() + a.ndim());
}

// Element strides of a, which must be non-negative multiples of the element size (the Python
// side copies other arrays first).
std::vector<int64_t> strides_of(const py::array &a, size_t size, const char *what) {
  std::vector<int64_t> s(static_cast<size_t>(a.ndim()));
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    const py::ssize_t b = a.strides()[i];
    if (b < 0 || b % static_cast<py::ssize_t>(size) != 0)
      throw py::value_error(std::string(what) + ": a negative or unaligned stride");
    s[static_cast<size_t>(i)] = b / static_cast<py::ssize_t>(size);
  }
  return s;
}

// A TensorArg with the array's view (shape, element strides) over a copy of the storage the view
// spans. When the array is a view into a contiguous root array, the storage starts at the root's
// first element and the offset is the view's, as a caller of the ABI would describe it.
TensorArg tensor_from_array(DType dtype, const py::array &a, const std::string &name) {
  const size_t size = aclnn_ref::dtype_size(dtype);
  if (static_cast<size_t>(a.itemsize()) != size)
    throw py::value_error(name + ": the array's elements are " + std::to_string(a.itemsize()) +
                          " bytes, " + std::string(aclnn_ref::dtype_name(dtype)) + " needs " +
                          std::to_string(size));
  TensorArg t;
  t.dtype = dtype;
  t.shape = shape_of(a);
  t.strides = strides_of(a, size, name.c_str());
  if (a.size() == 0) return t;  // no storage
  int64_t extent = 1;
  for (size_t i = 0; i < t.shape.size(); ++i) extent += (t.shape[i] - 1) * t.strides[i];
  const char *start = static_cast<const char *>(a.data());
  const char *from = start;
  py::object root = a, base = a.attr("base");
  while (py::isinstance<py::array>(base)) {
    root = base;
    base = base.attr("base");
  }
  if (!root.is(a)) {
    const auto r = root.cast<py::array>();
    const bool dense = r.attr("flags").attr("c_contiguous").cast<bool>() ||
                       r.attr("flags").attr("f_contiguous").cast<bool>();
    const char *rs = static_cast<const char *>(r.data());
    if (dense && rs <= start && (start - rs) % static_cast<ptrdiff_t>(size) == 0 &&
        start + extent * static_cast<int64_t>(size) <= rs + r.nbytes()) {
      t.offset = (start - rs) / static_cast<ptrdiff_t>(size);
      from = rs;
    }
  }
  t.storage.resize(static_cast<size_t>(t.offset + extent) * size);
  // An empty array's data pointer may be NULL, which memcpy must not be given even for 0 bytes.
  if (!t.storage.empty()) std::memcpy(t.storage.data(), from, t.storage.size());
  return t;
}

py::array bits_array(DType dtype, const std::vector<int64_t> &shape, const void *data) {
  return py::array(py::dtype(npy_descr(dtype)),
                   std::vector<py::ssize_t>(shape.begin(), shape.end()), data);
}

template <typename T>
py::object vector_array(const std::vector<T> &v, const std::vector<int64_t> &shape) {
  if (v.empty()) return py::none();
  if (static_cast<int64_t>(v.size()) != aclnn_ref::HostTensor(DType::kUInt8, shape).numel())
    return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
  return py::array_t<T>(std::vector<py::ssize_t>(shape.begin(), shape.end()), v.data());
}

// golden(op, tensors, attrs_json, product, variants): tensors is a list of (name, None) for NULL,
// (name, dtype, ndarray) for an input and (name, dtype, shape) for an output.
py::dict golden(const std::string &op_name, const py::list &tensors, const std::string &attrs_json,
                const std::string &product, const std::vector<std::string> &variants) {
  const OpDescriptor &op = op_of(op_name);
  for (const auto &v : variants)
    if (std::find(op.variants.begin(), op.variants.end(), v) == op.variants.end()) {
      std::string known;
      for (const auto &k : op.variants) known += (known.empty() ? "" : ", ") + k;
      throw py::value_error(op.name + " has no variant '" + v + "' (its variants: " + known + ")");
    }
  GoldenRequest r;
  r.source = "(aclnn_conform.golden)";
  r.op = op_name;
  r.product = product;
  r.variants = variants;
  try {
    r.attrs = nlohmann::json::parse(attrs_json);
  } catch (const nlohmann::json::exception &e) {
    throw py::value_error(std::string("attributes: ") + e.what());
  }
  for (const auto &item : tensors) {
    const auto t = item.cast<py::tuple>();
    GoldenTensor g;
    g.name = t[0].cast<std::string>();
    if (t.size() == 2 && t[1].is_none()) {
      g.arg = TensorArg::null();
    } else if (py::isinstance<py::array>(t[2])) {
      g.arg = tensor_from_array(dtype_of(t[1].cast<std::string>()), t[2].cast<py::array>(), g.name);
      g.has_file = true;
    } else {
      g.arg = TensorArg::contiguous(dtype_of(t[1].cast<std::string>()),
                                    t[2].cast<std::vector<int64_t>>());
    }
    r.tensors.push_back(std::move(g));
  }

  Case c;
  aclnn_ref::Verdict verdict;
  std::vector<aclnn_ref::ExpectedOutput> values;
  std::string error;
  {
    py::gil_scoped_release release;
    try {
      c = golden_case_of(r);
      aclnn_ref::VariantSet vs;
      for (const auto &n : variants) vs.add(n);
      verdict = op.check(c, vs);
      if (verdict.ok()) values = op.values(c, vs);
    } catch (const std::runtime_error &e) {
      error = e.what();
    }
  }
  if (!error.empty()) throw py::value_error(error);

  py::dict d;
  d["op"] = op.name;
  d["status"] = verdict.status;
  d["clause"] = verdict.clause;
  d["reason"] = verdict.reason;
  d["case"] = c.describe();
  py::list outputs;
  for (const auto &e : values) {
    py::dict o;
    o["name"] = e.name;
    o["dtype"] = std::string(aclnn_ref::dtype_name(e.values.dtype));
    o["shape"] = e.values.shape;
    o["written"] = e.written;
    o["bits"] = bits_array(e.values.dtype, e.values.shape, e.values.bytes.data());
    o["exact"] = vector_array(e.exact_nearest, e.values.shape);
    o["exact_error"] = vector_array(e.exact_error, e.values.shape);
    o["error_scale"] = vector_array(e.error_scale, e.values.shape);
    o["term_count"] = vector_array(e.term_count, e.values.shape);
    outputs.append(o);
  }
  d["outputs"] = outputs;
  return d;
}

template <typename T>
std::vector<T> vector_of(const py::object &o) {
  if (o.is_none()) return {};
  const auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(o);
  if (!a) throw py::value_error("expected an array");
  return std::vector<T>(a.data(), a.data() + a.size());
}

// compare(standard, dtype, got, record, exact, exact_error, error_scale, term_count, reference):
// got, record and reference are raw-bit arrays of one shape (reference may be None).
py::dict compare(const std::string &standard, const std::string &dtype_name, const py::array &got,
                 const py::array &record, const py::object &exact, const py::object &exact_error,
                 const py::object &error_scale, const py::object &term_count,
                 const py::object &reference) {
  const DType dtype = dtype_of(dtype_name);
  const size_t size = aclnn_ref::dtype_size(dtype);
  const auto shape = shape_of(got);
  if (shape_of(record) != shape) throw py::value_error("actual and expected differ in shape");
  aclnn_ref::ExpectedOutput e;
  e.name = "output";
  e.values = aclnn_ref::HostTensor(dtype, shape);
  {
    const auto rec = py::array::ensure(record, py::array::c_style);
    if (static_cast<size_t>(rec.nbytes()) != e.values.bytes.size())
      throw py::value_error("expected: wrong element size for " + dtype_name);
    if (!e.values.bytes.empty())  // an empty array's data may be NULL (UBSan: memcpy's nonnull)
      std::memcpy(e.values.bytes.data(), rec.data(), e.values.bytes.size());
  }
  e.exact_nearest = vector_of<double>(exact);
  e.exact_error = vector_of<double>(exact_error);
  e.error_scale = vector_of<double>(error_scale);
  e.term_count = vector_of<int64_t>(term_count);
  const int64_t n = e.values.numel();
  for (const auto *v : {&e.exact_nearest, &e.exact_error, &e.error_scale})
    if (!v->empty() && static_cast<int64_t>(v->size()) != n)
      throw py::value_error("the golden's exact values do not match its shape");
  if (static_cast<size_t>(got.itemsize()) != size)
    throw py::value_error("actual: wrong element size for " + dtype_name);
  const aclnn_ref::TensorView got_view{dtype, shape, strides_of(got, size, "actual"), 0,
                                       static_cast<const std::byte *>(got.data())};
  py::array ref_array;
  std::optional<aclnn_ref::TensorView> ref_view;
  if (!reference.is_none()) {
    ref_array = reference.cast<py::array>();
    if (shape_of(ref_array) != shape || static_cast<size_t>(ref_array.itemsize()) != size)
      throw py::value_error("reference: not the actual's shape and dtype");
    ref_view = aclnn_ref::TensorView{dtype, shape, strides_of(ref_array, size, "reference"), 0,
                                     static_cast<const std::byte *>(ref_array.data())};
  }

  py::dict d;
  d["standard"] = standard;
  d["dtype"] = dtype_name;
  if (standard == "ulp" || standard == "ascend") {
    const aclnn_ref::Tolerance tol = standard == "ascend"    ? aclnn_ref::Tolerance::ascend()
                                     : e.error_scale.empty() ? aclnn_ref::Tolerance::ulp()
                                                             : aclnn_ref::Tolerance::sum();
    aclnn_ref::Comparison cmp;
    {
      py::gil_scoped_release release;
      cmp = aclnn_ref::compare_output(e, got_view, tol);
    }
    d["verdict"] = cmp.pass ? "pass" : "fail";
    d["rule"] = standard == "ascend" ? "ascend" : e.error_scale.empty() ? "ulp" : "sum";
    d["summary"] = cmp.summary();
    d["details"] = cmp.details();
    py::dict m;
    m["elements"] = cmp.count;
    m["max_ulps"] = cmp.max_ulps;
    m["max_ulps_index"] = cmp.max_index;
    m["class_mismatches"] = cmp.class_mismatches;
    m["mismatches"] = cmp.mismatch_count;
    m["mere"] = cmp.ascend.mere;
    m["mare"] = cmp.ascend.mare;
    m["ascend_threshold"] = cmp.ascend.threshold;
    if (!e.error_scale.empty()) m["max_bound_ratio"] = cmp.max_bound_ratio;
    if (tol.kind == aclnn_ref::Tolerance::Kind::kUlp) m["ulp_bound"] = tol.ulp_bound(dtype);
    py::dict hist;
    for (int b = 0; b < aclnn_ref::kBucketCount; ++b)
      hist[aclnn_ref::bucket_label(b)] = cmp.histogram[static_cast<size_t>(b)];
    m["histogram"] = hist;
    d["measures"] = m;
    py::list listed;
    for (const auto &x : cmp.mismatches)
      listed.append(py::dict(py::arg("index") = x.index, py::arg("expected") = x.expected,
                             py::arg("actual") = x.got, py::arg("ulps") = x.ulps,
                             py::arg("why") = x.why));
    d["mismatch_list"] = listed;
    d["note"] = cmp.error;
    return d;
  }
  if (aclnn_ref::kits::find_standard(standard) == nullptr)
    throw py::value_error("unknown standard '" + standard + "' (aclnn_conform.standards())");
  aclnn_ref::kits::StandardOutcome k;
  {
    py::gil_scoped_release release;
    const auto values = aclnn_ref::kits::kit_values(e, got_view, ref_view ? &*ref_view : nullptr);
    k = aclnn_ref::kits::evaluate(standard, values.view());
  }
  d["verdict"] = aclnn_ref::kits::verdict_name(k.verdict);
  d["rule"] = aclnn_ref::kits::thresholds(standard, dtype);
  d["summary"] = k.measured;
  d["details"] = k.measured;
  py::dict m;
  m["score"] = k.score;
  m["worst_index"] = k.worst_index;
  m["warning"] = k.warning;
  m["measured"] = k.measured;
  d["measures"] = m;
  d["mismatch_list"] = py::list();
  d["note"] = k.note;
  return d;
}

py::list standards() {
  py::list l;
  l.append(py::dict(py::arg("id") = "ulp", py::arg("kit") = "aclnn-conform",
                    py::arg("name") = "VAL-TOL-1 part 2: the ulp bound (condition-aware for sums)",
                    py::arg("needs_reference") = false, py::arg("uses_reference") = false,
                    py::arg("source") = "spec/clauses.json VAL-TOL-1, reference/compare.hpp"));
  l.append(py::dict(py::arg("id") = "ascend", py::arg("kit") = "aclnn-conform",
                    py::arg("name") = "VAL-TOL-1 part 1: the Ascend precision standard (MERE/MARE)",
                    py::arg("needs_reference") = false, py::arg("uses_reference") = false,
                    py::arg("source") = "spec/clauses.json VAL-TOL-1, reference/compare.hpp"));
  for (const auto &s : aclnn_ref::kits::standards())
    l.append(py::dict(py::arg("id") = s.id, py::arg("kit") = s.kit, py::arg("name") = s.name,
                      py::arg("needs_reference") = s.needs_reference,
                      py::arg("uses_reference") = s.uses_reference, py::arg("source") = s.source));
  return l;
}

py::list ops() {
  py::list l;
  for (const auto *op : registry()) {
    py::dict d;
    d["name"] = op->name;
    d["abi_name"] = op->abi_name;
    d["outputs"] = op->outputs;
    d["clauses"] = op->clauses;
    d["variants"] = op->variants;
    l.append(d);
  }
  return l;
}

// Discards what the engine logs (quiet runs).
struct NullBuffer : std::streambuf {
  int overflow(int c) override { return c; }
};

volatile std::sig_atomic_t g_stop = 0;

// run(options): a campaign as `aclnn-conform run` runs it, with its report files; returns
// report.json's text. A KeyboardInterrupt stops it as SIGINT stops the CLI (reports marked
// INTERRUPTED are written), then is raised.
std::string run(const py::dict &o) {
  CampaignConfig cfg;
  const auto get = [&](const char *k) { return o.contains(k) ? o[k] : py::none(); };
  const auto has = [&](const char *k) { return o.contains(k) && !o[k].is_none(); };
  cfg.sut = has("sut") ? o["sut"].cast<std::string>() : "builtin";
  if (has("ops")) cfg.ops = o["ops"].cast<std::vector<std::string>>();
  if (has("budget")) cfg.budget_seconds = o["budget"].cast<double>();
  if (has("cases")) cfg.cases = o["cases"].cast<int64_t>();
  if (cfg.budget_seconds <= 0 && cfg.cases <= 0) cfg.budget_seconds = 60;
  if (has("seed")) cfg.seed = o["seed"].cast<uint64_t>();
  if (has("out")) cfg.out_dir = o["out"].cast<std::string>();
  cfg.jobs = has("jobs") ? o["jobs"].cast<int>()
                         : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (cfg.jobs < 1) throw py::value_error("jobs must be at least 1");
  if (has("devices")) {
    try {
      cfg.devices = parse_devices(o["devices"].cast<std::string>());
    } catch (const std::invalid_argument &e) {
      throw py::value_error(std::string("devices: ") + e.what());
    }
  }
  if (has("competitor")) cfg.competitor = o["competitor"].cast<std::string>();
  const std::string soc = has("soc") ? o["soc"].cast<std::string>() : "ascend910b";
  const auto product = product_from_name(soc);
  if (!product) throw py::value_error("soc: unknown product '" + soc + "'");
  cfg.product = *product;
  const std::string emulation =
      has("product_emulation") ? o["product_emulation"].cast<std::string>() : "auto";
  if (emulation != "auto" && emulation != "on" && emulation != "off")
    throw py::value_error("product_emulation: auto, on or off");
  cfg.product_emulation = emulation == "on"    ? ProductEmulation::kOn
                          : emulation == "off" ? ProductEmulation::kOff
                                               : ProductEmulation::kAuto;
  const std::string tier = has("tier") ? o["tier"].cast<std::string>() : "ci";
  if (tier != "smoke" && tier != "ci" && tier != "nightly")
    throw py::value_error("tier: smoke, ci or nightly");
  cfg.tier = tier == "smoke" ? Tier::kSmoke : tier == "nightly" ? Tier::kNightly : Tier::kCi;
  const std::string policy = has("policy") ? o["policy"].cast<std::string>() : "ulp";
  set_policy(cfg, policy);  // std::invalid_argument: ValueError
  if (const std::string why = policy_problem(cfg); !why.empty()) throw py::value_error(why);
  if (has("skips")) cfg.skips = o["skips"].cast<std::vector<std::string>>();
  if (has("xfails")) cfg.xfails = o["xfails"].cast<std::vector<std::string>>();
  if (has("expect_variants"))
    cfg.expect_variants = o["expect_variants"].cast<std::vector<std::string>>();
  if (has("clauses")) cfg.clause_pattern = o["clauses"].cast<std::string>();
  if (has("allow_incomplete")) cfg.allow_incomplete = o["allow_incomplete"].cast<bool>();
  if (has("case_timeout")) cfg.case_timeout_seconds = o["case_timeout"].cast<double>();
  if (has("first_call_timeout"))
    cfg.first_call_timeout_seconds = o["first_call_timeout"].cast<double>();
  if (has("use_corpus")) cfg.use_corpus = o["use_corpus"].cast<bool>();
  std::string shard_source = "default";
  if (has("shard")) {
    const auto s = o["shard"].cast<std::string>();
    const auto slash = s.find('/');
    try {
      cfg.shard_index = std::stoi(s.substr(0, slash));
      cfg.shard_count = std::stoi(s.substr(slash + 1));
    } catch (const std::exception &) {
      throw py::value_error("shard: I/N");
    }
    if (slash == std::string::npos || cfg.shard_count < 1 || cfg.shard_index < 0 ||
        cfg.shard_index >= cfg.shard_count)
      throw py::value_error("shard: I/N with 0 <= I < N");
    shard_source = "flag";
  }
  const bool quiet = has("quiet") && o["quiet"].cast<bool>();
  (void)get;
  g_stop = 0;
  cfg.stop_requested = &g_stop;

  NullBuffer null_buffer;
  std::ostream null_stream(&null_buffer);
  std::ostream &log = quiet ? null_stream : std::cerr;
  CampaignResult r;
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    auto done = std::async(std::launch::async, [&] { return run_campaign(cfg, log); });
    while (done.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) {
        PyErr_Clear();
        interrupted = true;
        g_stop = 1;
      }
    }
    r = done.get();  // rethrows the engine's set-up errors
  }
  if (r.tool_version.empty()) r.tool_version = conform_version();
  if (r.shard_source.empty()) r.shard_source = shard_source;
  r.allow_incomplete = cfg.allow_incomplete;
  r.expected_variants = cfg.expect_variants;
  r.clause_pattern = cfg.clause_pattern;
  r.interrupted = r.interrupted || interrupted;
  finalize_statuses(r);
  {
    py::gil_scoped_release release;
    write_campaign_outputs(r, cfg.out_dir, policy_name(cfg));
  }
  if (interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  return report_json_text(r);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "aclnn_conform's C++ core: goldens, standards and campaigns (use the package's API)";
  m.def("version", &conform_version);
  m.def("golden", &golden, py::arg("op"), py::arg("tensors"), py::arg("attrs_json"),
        py::arg("product"), py::arg("variants"));
  m.def("compare", &compare, py::arg("standard"), py::arg("dtype"), py::arg("got"),
        py::arg("record"), py::arg("exact"), py::arg("exact_error"), py::arg("error_scale"),
        py::arg("term_count"), py::arg("reference"));
  m.def("standards", &standards);
  m.def("thresholds", [](const std::string &id, const std::string &dtype) {
    return aclnn_ref::kits::thresholds(id, dtype_of(dtype));
  });
  m.def("ops", &ops);
  m.def("promote", [](const std::string &a, const std::string &b) -> std::optional<std::string> {
    const auto t = aclnn_ref::promote_types(dtype_of(a), dtype_of(b));
    if (!t) return std::nullopt;
    return std::string(aclnn_ref::dtype_name(*t));
  });
  m.def("policy_names", &policy_names);
  m.def("python_sut_not_applicable", &python_sut_not_applicable);
  m.def("run", &run, py::arg("options"));
}
