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
