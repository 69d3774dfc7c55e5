"""numpy_ops.py with planted faults the campaign must find, each under its
clause:

- SeluBackward takes y = 0 on the negative branch (the le-zero variant of
  SELU-ZERO-1): found under SELU-ZERO-1.
- GroupedBiasAddGrad and V2 sum one row too few in every group given by
  groupIdx (the 3-D form without groupIdx is right): found under
  GBAG-VALUE-1, while GBAG-VALUE-2 conforms.
- LogitGrad ignores eps (every eps is taken as eps < 0, the range [0, 1]):
  found under LOGIT-VALUE-1.

Everything else is numpy_ops.py's.
"""

import numpy as np

import numpy_ops
from numpy_ops import gelu_backward, layer_norm_backward  # noqa: F401


def selu_backward(grad_output, result, grad_input):
    return numpy_ops.selu_backward(grad_output, result, grad_input,
                                   positive=np.greater)  # the planted fault


def grouped_bias_add_grad(grad_y, group_idx, out):
    return numpy_ops._gbag("aclnnGroupedBiasAddGrad", grad_y, group_idx, 0,
                           out, False, rows_short=1)  # the planted fault


def grouped_bias_add_grad_v2(grad_y, group_idx, group_idx_type, out):
    return numpy_ops._gbag("aclnnGroupedBiasAddGradV2", grad_y, group_idx,
                           group_idx_type, out, True, rows_short=1)


def logit_grad(x, dy, eps, out):
    return numpy_ops.logit_grad(x, dy, -1.0, out)  # the planted fault
