"""Exact goldens: the oracle's outputs for one call of an op.

Each function takes the op's inputs (NumPy arrays of any strides, including
broadcast views with zero strides, or PyTorch tensors where PyTorch is
installed) and attributes with the op's parameter names, and returns the
value of record of every output: the op's formula evaluated exactly and
rounded once to the output dtype, bit for bit what ``aclnn-conform golden``
writes for the same call (the same C++ code path: campaign/golden.cpp's
binding and the op descriptor's check() and values()).

dtypes: float32, float16 and float64 arrays are fp32, fp16 and fp64. NumPy
has no bfloat16: a bf16 tensor is a ``torch.bfloat16`` tensor, an
``aclnn_conform.sut.bfloat16_bits`` array, or a uint16 array of bit patterns
with ``dtype="bfloat16"`` (for every floating input given as uint16, or a
dict {parameter: dtype}). bf16 outputs come back as bfloat16_bits arrays
(uint16 bit patterns), or torch.bfloat16 tensors when an input was a torch
tensor.

Common keywords: ``variant`` (a name or a list: the specification's variants,
``aclnn-conform list variants``), ``product`` (ascend910b, ascend910_93,
ascend910, ascend310p), ``out_dtype`` (an output's dtype where the op allows
a choice; a name or {output: name}), ``full=True`` (a Golden with every
output's exact values, for compare()). A call the specification rejects
raises SpecRejection with the aclnn status and the deciding clause.
"""

import collections
import json
import math

import numpy as np

from . import _core
from . import sut as _sut

__all__ = [
    "SpecRejection", "Golden", "GoldenOutput", "gelu_backward",
    "selu_backward", "layer_norm_backward", "logit_grad",
    "grouped_bias_add_grad", "call",
]


class SpecRejection(ValueError):
    """The specification rejects the call: ``status`` (161001, 161002, ...),
    ``clause`` (the deciding clause, e.g. GELU-DTYPE-1) and ``reason``."""

    def __init__(self, op, status, clause, reason, case):
        super().__init__("%s: status %d by %s: %s" % (op, status, clause,
                                                      reason))
        self.op = op
        self.status = status
        self.clause = clause
        self.reason = reason
        self.case = case


_FROM_NUMPY = {
    "float32": "fp32", "float16": "fp16", "float64": "fp64",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
    "uint64": "uint64", "bool": "bool", "complex64": "complex64",
    "complex128": "complex128",
}
_ALIASES = {
    "bfloat16": "bf16", "bf16": "bf16", "float32": "fp32", "fp32": "fp32",
    "float": "fp32", "float16": "fp16", "half": "fp16", "fp16": "fp16",
    "float64": "fp64", "double": "fp64", "fp64": "fp64",
}
_RAW_NUMPY = {
    "fp32": np.float32, "fp16": np.float16, "fp64": np.float64,
    "bf16": np.uint16, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
    "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "bool": np.bool_, "complex64": np.complex64, "complex128": np.complex128,
}


def dtype_name(dtype):
    """The project's name of a dtype given as a name, NumPy dtype or torch
    dtype ("bfloat16" -> "bf16", np.float16 -> "fp16", ...)."""
    if dtype is None:
        return None
    text = str(dtype)
    if text.startswith("torch."):
        text = text[len("torch."):]
    if text in _ALIASES:
        return _ALIASES[text]
    if text in _RAW_NUMPY:
        return text
    try:
        return _FROM_NUMPY[np.dtype(dtype).name]
    except TypeError:
        raise ValueError("unknown dtype %r" % (dtype,)) from None


def _is_torch(x):
    return type(x).__module__.startswith("torch")


def as_raw(x, dtype=None):
    """(raw NumPy array, dtype name) of an array or tensor: the element bits
    as the ABI holds them (bf16 as uint16)."""
    if _is_torch(x):
        import torch
        t = x.detach().cpu()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16), "bf16"
        return t.numpy(), dtype_name(t.dtype)
    if isinstance(x, _sut.bfloat16_bits):
        return np.asarray(x).view(np.uint16), "bf16"
    a = np.asarray(x)
    name = _FROM_NUMPY.get(a.dtype.name)
    if name is None:
        raise TypeError("unsupported array dtype %s" % a.dtype)
    if dtype is not None:
        wanted = dtype_name(dtype)
        if wanted == "bf16":
            if a.dtype != np.uint16:
                raise TypeError("dtype='bfloat16' needs uint16 bit patterns, "
                                "got %s" % a.dtype)
            return a, "bf16"
        if wanted != name:
            raise TypeError("the array is %s, not %s" % (name, wanted))
    return a, name


def _prepare(a):
    """An array the core can describe: non-negative strides that are
    multiples of the element size (others are copied; values are the same)."""
    if a.ndim and any(s < 0 or s % a.itemsize for s in a.strides):
        return np.ascontiguousarray(a)
    return a


def _attr_json(value):
    """Attributes as the golden request takes them: doubles as hex text
    (exact), NaN and inf by name."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v.hex()
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_attr_json(v) for v in value]
    raise TypeError("unsupported attribute value %r" % (value,))


class GoldenOutput:
    """One output of a golden: ``bits`` (the value of record's raw elements,
    bf16 as uint16), ``exact`` (the exact value rounded to the nearest
    double; None where the oracle keeps none), ``exact_error``,
    ``error_scale`` and ``term_count`` (sums: the condition-aware bound's
    inputs), ``written`` (False: the op must leave this output untouched)."""

    def __init__(self, d, torch_out=False):
        self.name = d["name"]
        self.dtype = d["dtype"]
        self.shape = tuple(d["shape"])
        self.written = d["written"]
        self.bits = d["bits"]
        self.exact = d["exact"]
        self.exact_error = d["exact_error"]
        self.error_scale = d["error_scale"]
        self.term_count = d["term_count"]
        self._torch = torch_out

    def array(self):
        """The value of record as the caller's kind of array (bf16 as
        bfloat16_bits, or torch.bfloat16 when the inputs were torch)."""
        if not self.written:
            return None
        if self._torch:
            import torch
            if self.dtype == "bf16":
                return torch.from_numpy(
                    self.bits.view(np.int16).copy()).view(torch.bfloat16)
            return torch.from_numpy(self.bits.copy())
        if self.dtype == "bf16":
            return self.bits.view(_sut.bfloat16_bits)
        return self.bits

    def __repr__(self):
        return "GoldenOutput(%s, %s%s%s)" % (
            self.name, self.dtype, list(self.shape),
            "" if self.written else ", not written")


class Golden:
    """Every output of one call: ``outputs`` {ABI name: GoldenOutput}, in
    the op's order; ``op``, ``case`` (the call in one line)."""

    def __init__(self, d, torch_out):
        self.op = d["op"]
        self.case = d["case"]
        self.outputs = collections.OrderedDict(
            (o["name"], GoldenOutput(o, torch_out)) for o in d["outputs"])

    def __getitem__(self, name):
        return self.outputs[name]

    def arrays(self):
        return tuple(o.array() for o in self.outputs.values())

    def __repr__(self):
        return "Golden(%s: %s)" % (self.op, ", ".join(
            repr(o) for o in self.outputs.values()))


def _input(name, x, dtypes):
    """(name, dtype, raw array) of an input, or (name, None) for None."""
    if x is None:
        return (name, None)
    dtype = dtypes.get(name) if isinstance(dtypes, dict) else None
    if dtype is None and isinstance(dtypes, str):
        a = np.asarray(x) if not _is_torch(x) else None
        if a is not None and a.dtype == np.uint16:
            dtype = dtypes
    raw, dt = as_raw(x, dtype)
    return (name, dt, _prepare(raw))


def _pick(value, name, default):
    if isinstance(value, dict):
        return dtype_name(value.get(name)) or default
    return dtype_name(value) or default


def _broadcast(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return tuple(shapes[0])


def _promote(a, b):
    return _core.promote(a, b) or a


def call(op, tensors, attrs=None, *, variant=None, product=None, full=False,
         torch_out=False):
    """The oracle on one call described in the ABI's names, as a golden
    request describes it: tensors is a list of (name, None) for NULL,
    (name, dtype, array) for an input and (name, dtype, shape) for an
    output; attrs a dict of the op's attributes. Returns a Golden."""
    variants = [variant] if isinstance(variant, str) else list(variant or [])
    attrs_json = json.dumps({k: _attr_json(v) for k, v in
                             (attrs or {}).items()})
    d = _core.golden(op, list(tensors), attrs_json, product or "", variants)
    if d["status"] != 0:
        raise SpecRejection(d["op"], d["status"], d["clause"], d["reason"],
                            d["case"])
    return Golden(d, torch_out)


def _finish(g, full, single):
    if full:
        return g
    arrays = g.arrays()
    return arrays[0] if single else arrays


def _torch_in(*xs):
    return any(_is_torch(x) for x in xs if x is not None)


def gelu_backward(grad_output, self, *, dtype=None, out_dtype=None,
                  variant=None, product=None, full=False):
    """aclnnGeluBackward's gradInput for (gradOutput, self): broadcast
    shape, promoted dtype unless out_dtype says otherwise. Variants:
    "tanh-approx" (the tanh form), see aclnn_conform.variants()."""
    dy = _input("gradOutput", grad_output, dtype)
    x = _input("self", self, dtype)
    shape = _broadcast(dy[2].shape, x[2].shape)
    out = ("gradInput", _pick(out_dtype, "gradInput", _promote(dy[1], x[1])),
           shape)
    g = call("GeluBackward", [dy, x, out], {}, variant=variant,
             product=product, torch_out=_torch_in(grad_output, self))
    return _finish(g, full, True)


def selu_backward(grad_output, result, *, dtype=None, out_dtype=None,
                  variant=None, product=None, full=False):
    """aclnnSeluBackward's gradInput for (gradOutput, result)."""
    dy = _input("gradOutput", grad_output, dtype)
    y = _input("result", result, dtype)
    out = ("gradInput", _pick(out_dtype, "gradInput", dy[1]), dy[2].shape)
    g = call("SeluBackward", [dy, y, out], {}, variant=variant,
             product=product, torch_out=_torch_in(grad_output, result))
    return _finish(g, full, True)


LayerNormGrads = collections.namedtuple(
    "LayerNormGrads", ["grad_input", "grad_weight", "grad_bias"])


def layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
                        weight=None, bias=None,
                        output_mask=(True, True, True), *, dtype=None,
                        out_dtype=None, variant=None, product=None,
                        full=False):
    """aclnnLayerNormBackward: (grad_input, grad_weight, grad_bias), None
    for an output whose mask bit is false. gradWeight and gradBias are
    FLOAT (LN-DTYPE-2) unless out_dtype says otherwise (the
    "any-float-grads" variant)."""
    dy = _input("gradOut", grad_out, dtype)
    x = _input("input", input, dtype)
    ns = [int(d) for d in normalized_shape] \
        if normalized_shape is not None else None
    mask = [bool(b) for b in output_mask] if output_mask is not None else None
    ns_shape = tuple(ns or ())
    on = mask if mask is not None else [True, True, True]

    def output(name, index, dt, shape):
        if len(on) == 3 and not on[index]:
            return (name, None)
        return (name, _pick(out_dtype, name, dt), shape)
    tensors = [
        dy, x, _input("mean", mean, dtype), _input("rstd", rstd, dtype),
        _input("weightOptional", weight, dtype),
        _input("biasOptional", bias, dtype),
        output("gradInputOut", 0, x[1], x[2].shape),
        output("gradWeightOut", 1, "fp32", ns_shape),
        output("gradBiasOut", 2, "fp32", ns_shape),
    ]
    g = call("LayerNormBackward", tensors,
             {"normalizedShape": ns, "outputMask": mask}, variant=variant,
             product=product,
             torch_out=_torch_in(grad_out, input, mean, rstd, weight, bias))
    if full:
        return g
    by_name = {n: o.array() for n, o in g.outputs.items()}
    return LayerNormGrads(by_name.get("gradInputOut"),
                          by_name.get("gradWeightOut"),
                          by_name.get("gradBiasOut"))


def logit_grad(x, dy, eps=-1.0, *, dtype=None, out_dtype=None, variant=None,
               product=None, full=False):
    """aclnnLogitGrad's out for (x, dy, eps); eps < 0: no clamping."""
    xs = _input("x", x, dtype)
    d = _input("dy", dy, dtype)
    out = ("out", _pick(out_dtype, "out", xs[1]), xs[2].shape)
    g = call("LogitGrad", [xs, d, out], {"eps": float(eps)}, variant=variant,
             product=product, torch_out=_torch_in(x, dy))
    return _finish(g, full, True)


def grouped_bias_add_grad(grad_y, group_idx=None, group_idx_type=None, *,
                          dtype=None, out_dtype=None, variant=None,
                          product=None, full=False):
    """aclnnGroupedBiasAddGrad's out [G, H]: without group_idx, gradY
    [G, C, H] summed over C; with it, gradY [rows, H] summed over each
    group's rows. group_idx_type=None calls V1; 0 (end offsets) or 1
    (group sizes) call V2 (aclnnGroupedBiasAddGradV2)."""
    gy = _input("gradY", grad_y, dtype)
    idx = _input("groupIdxOptional", group_idx, None)
    shape = gy[2].shape
    if group_idx is not None:
        out_shape = (int(idx[2].shape[0]) if idx[2].ndim else 0,
                     shape[-1] if shape else 0)
    else:
        out_shape = (shape[0] if shape else 0, shape[-1] if shape else 0)
    out = ("out", _pick(out_dtype, "out", gy[1]), out_shape)
    v2 = group_idx_type is not None
    attrs = {"groupIdxType": int(group_idx_type)} if v2 else {}
    g = call("GroupedBiasAddGradV2" if v2 else "GroupedBiasAddGrad",
             [gy, idx, out], attrs, variant=variant, product=product,
             torch_out=_torch_in(grad_y))
    return _finish(g, full, True)
