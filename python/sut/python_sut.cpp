// libaclnn_python_sut.so: the aclnn ABI presented for a Python module that defines the ops as
// functions on arrays (`aclnn-conform run --sut python:MODULE`, docs/python.md). Workers load it
// like any SUT; it embeds the Python interpreter (libpython3) and imports MODULE, named by the
// environment variable ACLNN_PYTHON_SUT_MODULE (campaign/sut_identity.cpp sets it for python:).
//
// What the adapter answers itself, and a campaign therefore reports as not applicable
// (python_sut_not_applicable(), campaign/result.hpp): the host runtime, tensors, arrays and
// executors are the project's one implementation (impl/'s aclnn_host_runtime, as suts/ link it);
// the two-phase protocol (phase one calls the module and keeps its results, phase two writes them
// into the output views), the NULL workspaceSize/executor checks, the dtype enum's mapping and
// formats. Everything about the op is the module's: NULL tensors arrive as None, and whatever the
// module accepts, rejects (aclnn_conform.Rejected(status, message)) or computes is judged.
//
// The marshalling (arrays over the staged memory, scratch outputs, bf16 conventions, the call,
// rejections) is Python: aclnn_conform/_sut_bridge.py. This file builds its arguments and applies
// its answer.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "impl/dtype.hpp"
#include "impl/executor.hpp"
#include "impl/status.hpp"
#include "impl/tensor.hpp"

#ifndef ACLNN_PYTHON_SUT_PYDIR_REL
#define ACLNN_PYTHON_SUT_PYDIR_REL ""
#endif

namespace {

// The bridge module's call(), or the reason the interpreter or the module could not be loaded
// (then every op call fails with ACLNN_ERR_INNER and that text).
struct Bridge {
  PyObject *call = nullptr;
  std::string error;
};

std::string python_error_text() {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  std::string text = "unknown Python error";
  if (value != nullptr) {
    if (PyObject *s = PyObject_Str(value)) {
      if (const char *c = PyUnicode_AsUTF8(s)) text = c;
      Py_DECREF(s);
    }
  }
  if (type != nullptr)
    if (PyObject *n = PyObject_GetAttrString(type, "__name__")) {
      if (const char *c = PyUnicode_AsUTF8(n)) text = std::string(c) + ": " + text;
      Py_DECREF(n);
    }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  PyErr_Clear();
  return text;
}

// The folder of this library (for the aclnn_conform package beside it or under the prefix).
std::filesystem::path own_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&own_dir), &info) == 0 || info.dli_fname == nullptr)
    return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

Bridge load_bridge() {
  Bridge b;
  // The worker dlopen()s this library with local symbols; extension modules (NumPy's) resolve
  // the interpreter's symbols globally, so libpython is promoted to RTLD_GLOBAL first.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&Py_InitializeEx), &info) != 0 && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  if (!Py_IsInitialized()) {
    Py_InitializeEx(0);  // 0: the worker's signal handlers stay its own
    PyEval_SaveThread();
  }
  const PyGILState_STATE gil = PyGILState_Ensure();
  // The aclnn_conform package: beside this library in the build tree, else the installed
  // package (ACLNN_PYTHON_SUT_PYDIR_REL from the libexec folder), else on the interpreter's path.
  const std::filesystem::path dir = own_dir();
  std::vector<std::string> paths;
  if (!dir.empty()) {
    if (std::filesystem::exists(dir / "aclnn_conform" / "_sut_bridge.py"))
      paths.push_back(dir.string());
    const std::string rel = ACLNN_PYTHON_SUT_PYDIR_REL;
    if (!rel.empty() && std::filesystem::exists(dir / rel / "aclnn_conform" / "_sut_bridge.py"))
      paths.push_back((dir / rel).lexically_normal().string());
  }
  if (PyObject *sys_path = PySys_GetObject("path"))  // borrowed
    for (auto it = paths.rbegin(); it != paths.rend(); ++it)
      if (PyObject *p = PyUnicode_FromString(it->c_str())) {
        PyList_Insert(sys_path, 0, p);
        Py_DECREF(p);
      }
  PyObject *bridge = PyImport_ImportModule("aclnn_conform._sut_bridge");
  if (bridge == nullptr) {
    b.error = "python: SUT: cannot import aclnn_conform._sut_bridge: " + python_error_text();
  } else {
    PyObject *loaded = PyObject_CallMethod(bridge, "load", nullptr);
    if (loaded == nullptr) {
      b.error = "python: SUT: " + python_error_text();
    } else {
      if (PyUnicode_Check(loaded) && PyUnicode_GetLength(loaded) > 0)
        b.error = PyUnicode_AsUTF8(loaded);
      Py_DECREF(loaded);
    }
    if (b.error.empty()) b.call = PyObject_GetAttrString(bridge, "call");
    if (b.error.empty() && b.call == nullptr) b.error = "python: SUT: " + python_error_text();
    Py_DECREF(bridge);
  }
  PyGILState_Release(gil);
  return b;
}

// Loaded once per process, when the library is loaded (so a worker's start covers it).
const Bridge &bridge() {
  static const Bridge b = load_bridge();
  return b;
}

// A module that cannot be imported is a set-up error, not a deviation of every call: the worker
// that loads this library says why on stderr and ends before it answers, which the campaign
// reports as a worker that could not start (exit 2). Without ACLNN_PYTHON_SUT_MODULE (a program
// that links the library, e.g. a repro, run without it) calls fail with the reason instead.
__attribute__((constructor)) void load_at_start() {
  const char *module = std::getenv("ACLNN_PYTHON_SUT_MODULE");
  if (module == nullptr || *module == '\0') return;
  const Bridge &b = bridge();
  if (b.call == nullptr) {
    std::fprintf(stderr, "aclnn python: SUT: %s\n", b.error.c_str());
    std::fflush(stderr);
    std::_Exit(70);
  }
}

// One argument of an op in ABI order.
struct TensorArg {
  const aclTensor *t;
  bool output;
};
struct IntArrayArg {
  const aclIntArray *a;
};
struct BoolArrayArg {
  const aclBoolArray *a;
};
using Arg = std::variant<TensorArg, IntArrayArg, BoolArrayArg, double, int64_t>;

const char *dtype_name(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
      return "fp32";
    case ACL_FLOAT16:
      return "fp16";
    case ACL_BF16:
      return "bf16";
    case ACL_DOUBLE:
      return "fp64";
    case ACL_INT8:
      return "int8";
    case ACL_INT16:
      return "int16";
    case ACL_INT32:
      return "int32";
    case ACL_INT64:
      return "int64";
    case ACL_UINT8:
      return "uint8";
    case ACL_UINT16:
      return "uint16";
    case ACL_UINT32:
      return "uint32";
    case ACL_UINT64:
      return "uint64";
    case ACL_BOOL:
      return "bool";
    case ACL_COMPLEX64:
      return "complex64";
    case ACL_COMPLEX128:
      return "complex128";
    default:
      return nullptr;
  }
}

PyObject *int_list(const std::vector<int64_t> &v) {
  PyObject *t = PyTuple_New(static_cast<Py_ssize_t>(v.size()));
  for (size_t i = 0; i < v.size(); ++i)
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(v[i]));
  return t;
}

// (address, storage bytes, dtype, shape, strides, offset, is_output) for a tensor; None for NULL.
PyObject *tensor_tuple(const aclTensor &t, const char *dtype, bool output) {
  const size_t esize = aclnn_cpu::dtype_size(t.dtype);
  int64_t storage = 1;
  for (int64_t d : t.storage_dims) storage *= d;
  return Py_BuildValue(
      "(KLsNNLO)", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(t.data)),
      static_cast<long long>(storage * static_cast<int64_t>(esize)), dtype, int_list(t.view_dims),
      int_list(t.strides), static_cast<long long>(t.offset), output ? Py_True : Py_False);
}

// What phase two writes: each output's elements, row-major, into its view (captured by value).
struct OutputWrite {
  aclTensor view;
  std::vector<char> bytes;
};

void write_view(const OutputWrite &w) {
  const aclTensor &t = w.view;
  const size_t esize = aclnn_cpu::dtype_size(t.dtype);
  const int64_t n = aclnn_cpu::numel(t);
  if (n == 0 || w.bytes.size() != static_cast<size_t>(n) * esize) return;
  char *base = static_cast<char *>(t.data);
  const size_t rank = t.view_dims.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t pos = t.offset;
    for (size_t d = 0; d < rank; ++d) pos += index[d] * t.strides[d];
    std::memcpy(base + pos * static_cast<int64_t>(esize), w.bytes.data() + i * esize, esize);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < t.view_dims[d]) break;
      index[d] = 0;
    }
  }
}

// Phase one: the module's function on the staged tensors; on success an executor that writes
// the results.
aclnnStatus call_module(const char *op, const char *op_name, const std::vector<Arg> &args,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
  aclnn_cpu::clear_error();
  if (workspaceSize == nullptr || executor == nullptr)
    return aclnn_cpu::fail(ACLNN_ERR_PARAM_NULLPTR, op, "workspaceSize or executor is NULL");
  for (const auto &a : args)
    if (const auto *t = std::get_if<TensorArg>(&a); t && t->t && !dtype_name(t->t->dtype))
      return aclnn_cpu::fail(ACLNN_ERR_PARAM_INVALID, op, "dtype {} is not an aclDataType",
                             static_cast<int>(t->t->dtype));
  const Bridge &b = bridge();
  if (b.call == nullptr) return aclnn_cpu::fail(ACLNN_ERR_INNER, op, "{}", b.error);

  const PyGILState_STATE gil = PyGILState_Ensure();
  struct Release {
    PyGILState_STATE g;
    ~Release() { PyGILState_Release(g); }
  } release{gil};
  std::string kinds;
  PyObject *list = PyList_New(0);
  std::vector<const aclTensor *> outputs;
  for (const auto &a : args) {
    PyObject *item = nullptr;
    if (const auto *t = std::get_if<TensorArg>(&a)) {
      kinds += t->output ? 'O' : 'T';
      if (t->output) outputs.push_back(t->t);
      if (t->t == nullptr) {
        item = Py_NewRef(Py_None);
      } else {
        item = tensor_tuple(*t->t, dtype_name(t->t->dtype), t->output);
      }
    } else if (const auto *ia = std::get_if<IntArrayArg>(&a)) {
      kinds += 'A';
      item = ia->a ? int_list(ia->a->values) : Py_NewRef(Py_None);
    } else if (const auto *ba = std::get_if<BoolArrayArg>(&a)) {
      kinds += 'A';
      if (ba->a == nullptr) {
        item = Py_NewRef(Py_None);
      } else {
        item = PyTuple_New(static_cast<Py_ssize_t>(ba->a->values.size()));
        for (size_t i = 0; i < ba->a->values.size(); ++i)
          PyTuple_SET_ITEM(item, static_cast<Py_ssize_t>(i),
                           PyBool_FromLong(ba->a->values[i] ? 1 : 0));
      }
    } else if (const auto *d = std::get_if<double>(&a)) {
      kinds += 'A';
      item = PyFloat_FromDouble(*d);
    } else {
      kinds += 'A';
      item = PyLong_FromLongLong(std::get<int64_t>(a));
    }
    PyList_Append(list, item);
    Py_DECREF(item);
  }
  const char *soc = std::getenv("ACLNN_CPU_SOC");
  PyObject *result =
      PyObject_CallFunction(b.call, "ssNss", op_name, kinds.c_str(), list, soc ? soc : "", op);
  if (result == nullptr)
    return aclnn_cpu::fail(ACLNN_ERR_INNER, op, "python: SUT bridge failed: {}",
                           python_error_text());
  // (status, message, [bytes or None per output])
  long status = 0;
  const char *message = nullptr;
  PyObject *written = nullptr;
  if (!PyArg_ParseTuple(result, "lzO", &status, &message, &written) || !PyList_Check(written) ||
      PyList_Size(written) != static_cast<Py_ssize_t>(outputs.size())) {
    const std::string why = PyErr_Occurred() ? python_error_text() : "malformed answer";
    Py_DECREF(result);
    return aclnn_cpu::fail(ACLNN_ERR_INNER, op, "python: SUT bridge: {}", why);
  }
  if (status != 0) {
    const std::string text = message ? message : "";
    Py_DECREF(result);
    return aclnn_cpu::fail(static_cast<aclnnStatus>(status), op, "{}",
                           text.empty() ? "rejected by the module" : text);
  }
  auto writes = std::make_shared<std::vector<OutputWrite>>();
  for (size_t i = 0; i < outputs.size(); ++i) {
    PyObject *bytes = PyList_GetItem(written, static_cast<Py_ssize_t>(i));  // borrowed
    if (outputs[i] == nullptr || bytes == Py_None) continue;
    char *data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(bytes, &data, &size) != 0) {
      const std::string why = python_error_text();
      Py_DECREF(result);
      return aclnn_cpu::fail(ACLNN_ERR_INNER, op, "python: SUT bridge: {}", why);
    }
    writes->push_back({*outputs[i], std::vector<char>(data, data + size)});
  }
  Py_DECREF(result);
  return aclnn_cpu::publish_executor_with_status(
      op, 0,
      [writes](void *) {
        for (const auto &w : *writes) write_view(w);
        return ACLNN_SUCCESS;
      },
      workspaceSize, executor);
}

aclnnStatus guarded(const char *op, const char *name, const std::vector<Arg> &args,
                    uint64_t *workspaceSize, aclOpExecutor **executor) {
  return aclnn_cpu::guard_abi(op,
                              [&] { return call_module(op, name, args, workspaceSize, executor); });
}

aclnnStatus run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor) {
  return aclnn_cpu::run_executor(op, workspace, workspaceSize, executor);
}

}  // namespace

extern "C" {

aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                              const aclTensor *gradInput, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
  return guarded("aclnnGeluBackward", "gelu_backward",
                 {TensorArg{gradOutput, false}, TensorArg{self, false}, TensorArg{gradInput, true}},
                 workspaceSize, executor);
}
aclnnStatus aclnnGeluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              aclrtStream) {
  return run("aclnnGeluBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *result,
                                              aclTensor *gradInput, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
  return guarded(
      "aclnnSeluBackward", "selu_backward",
      {TensorArg{gradOutput, false}, TensorArg{result, false}, TensorArg{gradInput, true}},
      workspaceSize, executor);
}
aclnnStatus aclnnSeluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              aclrtStream) {
  return run("aclnnSeluBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return guarded(
      "aclnnLayerNormBackward", "layer_norm_backward",
      {TensorArg{gradOut, false}, TensorArg{input, false}, IntArrayArg{normalizedShape},
       TensorArg{mean, false}, TensorArg{rstd, false}, TensorArg{weightOptional, false},
       TensorArg{biasOptional, false}, BoolArrayArg{outputMask}, TensorArg{gradInputOut, true},
       TensorArg{gradWeightOut, true}, TensorArg{gradBiasOut, true}},
      workspaceSize, executor);
}
aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream) {
  return run("aclnnLayerNormBackward", workspace, workspaceSize, executor);
}

aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x, const aclTensor *dy, double eps,
                                           const aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
  return guarded("aclnnLogitGrad", "logit_grad",
                 {TensorArg{x, false}, TensorArg{dy, false}, eps, TensorArg{out, true}},
                 workspaceSize, executor);
}
aclnnStatus aclnnLogitGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                           aclrtStream) {
  return run("aclnnLogitGrad", workspace, workspaceSize, executor);
}

aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(const aclTensor *gradY,
                                                    const aclTensor *groupIdxOptional,
                                                    aclTensor *out, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor) {
  return guarded(
      "aclnnGroupedBiasAddGrad", "grouped_bias_add_grad",
      {TensorArg{gradY, false}, TensorArg{groupIdxOptional, false}, TensorArg{out, true}},
      workspaceSize, executor);
}
aclnnStatus aclnnGroupedBiasAddGrad(void *workspace, uint64_t workspaceSize,
                                    aclOpExecutor *executor, aclrtStream) {
  return run("aclnnGroupedBiasAddGrad", workspace, workspaceSize, executor);
}

aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(const aclTensor *gradY,
                                                      const aclTensor *groupIdxOptional,
                                                      int64_t groupIdxType, aclTensor *out,
                                                      uint64_t *workspaceSize,
                                                      aclOpExecutor **executor) {
  return guarded("aclnnGroupedBiasAddGradV2", "grouped_bias_add_grad_v2",
                 {TensorArg{gradY, false}, TensorArg{groupIdxOptional, false}, groupIdxType,
                  TensorArg{out, true}},
                 workspaceSize, executor);
}
aclnnStatus aclnnGroupedBiasAddGradV2(void *workspace, uint64_t workspaceSize,
                                      aclOpExecutor *executor, aclrtStream) {
  return run("aclnnGroupedBiasAddGradV2", workspace, workspaceSize, executor);
}

}  // extern "C"
