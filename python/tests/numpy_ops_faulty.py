"""numpy_ops.py with one planted fault: SeluBackward takes y = 0 on the
negative branch (the le-zero variant of SELU-ZERO-1), a bug the campaign must
find under SELU-ZERO-1. Everything else is numpy_ops.py's.
"""

import numpy as np

import numpy_ops
from numpy_ops import gelu_backward  # noqa: F401 (an op of this SUT)


def selu_backward(grad_output, result, grad_input):
    return numpy_ops.selu_backward(grad_output, result, grad_input,
                                   positive=np.greater)  # the planted fault
