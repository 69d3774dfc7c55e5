"""What a Python module tested with ``--sut python:MODULE`` uses.

A module defines the ops as functions taking the ABI's arguments in the
ABI's order (docs/python.md, "Python modules as systems under test"):

    gelu_backward(grad_output, self, grad_input)
    selu_backward(grad_output, result, grad_input)
    layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
                        weight, bias, output_mask,
                        grad_input, grad_weight, grad_bias)
    logit_grad(x, dy, eps, out)
    grouped_bias_add_grad(grad_y, group_idx, out)
    grouped_bias_add_grad_v2(grad_y, group_idx, group_idx_type, out)

Tensors are NumPy arrays with the call's exact views (inputs read-only);
a NULL tensor or array is None. A function fills its outputs in place
(``out[...] = value``) or returns the values (one array, or a tuple for
LayerNorm's three outputs, None for an output it leaves alone). It refuses
a call by raising Rejected(status, message). bf16 tensors are
``bfloat16_bits`` arrays (uint16 bit patterns) unless the module sets
``ACLNN_BF16 = "float32"``.
"""

import numpy as np

# aclnnStatus codes (ABI-STATUS-1).
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000

_current = {"product": "ascend910b"}


class Rejected(Exception):
    """A call the module refuses: the aclnnStatus it returns and the text
    aclGetRecentErrMsg() gives (name the parameter and the rule)."""

    def __init__(self, status, message=""):
        super().__init__(message or "rejected with status %d" % status)
        self.aclnn_status = int(status)
        self.status = int(status)
        self.message = message


class bfloat16_bits(np.ndarray):
    """A uint16 array holding bfloat16 bit patterns (NumPy has no bfloat16).

    Make one with ``array.view(bfloat16_bits)``; aclnn_conform.bf16 converts
    to and from float32."""

    def __new__(cls, input_array):
        a = np.asarray(input_array)
        if a.dtype != np.uint16:
            raise TypeError("bfloat16_bits holds uint16 bit patterns")
        return a.view(cls)

    def __array_finalize__(self, obj):
        pass


def is_bfloat16(a):
    """True for a bfloat16_bits array."""
    return isinstance(a, bfloat16_bits)


def product():
    """The product whose gates apply to the current call ("ascend910b",
    "ascend910_93", "ascend910", "ascend310p"): ACLNN_CPU_SOC as the campaign
    sets it for the call. A module without product gates ignores it."""
    return _current["product"]


_NAMES = {
    "float32": "fp32", "float16": "fp16", "float64": "fp64", "int8": "int8",
    "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "bool", "complex64": "complex64", "complex128": "complex128",
}


def dtype_of(a):
    """The aclnn dtype of an array the adapter passed, by the project's
    names: "fp32", "fp16", "bf16" (a bfloat16_bits array), "int32", ..."""
    if isinstance(a, bfloat16_bits):
        return "bf16"
    return _NAMES[np.asarray(a).dtype.name]


def promote(a, b):
    """The specification's promotion of two dtype names (ABI-PROMOTE-1), or
    None where the table has none. For modules that follow the table."""
    from . import _core
    return _core.promote(a, b)


def has_internal_overlap(a):
    """True if two distinct indices of a non-empty array reach one element
    (a zero stride over a dimension > 1, or overlapping strides): the
    specification rejects such an output (ABI-INPUT-1). Interleaved strides
    that never meet (shape [2, 3], strides [3, 2]) are no overlap."""
    a = np.asarray(a)
    if a.size <= 1:
        return False
    dims = [(abs(s), n) for s, n in zip(a.strides, a.shape) if n > 1]
    if any(s == 0 for s, _ in dims):
        return True
    # Strides that nest (each at least the reach of the smaller ones) cannot
    # meet; otherwise every element's offset is computed and compared.
    reach = a.itemsize
    nested = True
    for stride, n in sorted(dims):
        if stride < reach:
            nested = False
            break
        reach = stride * (n - 1) + reach
    if nested:
        return False
    offsets = np.zeros(1, dtype=np.int64)
    for stride, n in dims:
        offsets = (offsets[:, None] + stride * np.arange(n, dtype=np.int64)).reshape(-1)
    return np.unique(offsets).size != offsets.size
    dims = sorted((abs(s), n) for s, n in zip(a.strides, a.shape) if n > 1)
    reach = a.itemsize
    for stride, n in dims:
        if stride < reach:
            return True
        reach = stride * (n - 1) + reach
    return False
