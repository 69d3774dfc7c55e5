"""PyTorch's own SELU derivative as a python: SUT (ACLNN_ARRAYS = "torch":
tensors arrive as torch tensors, bf16 as torch.bfloat16). Only the checks
PyTorch makes itself, plus NULL: a real framework's operator, tested."""

import torch

from aclnn_conform.sut import Rejected, ACLNN_ERR_PARAM_NULLPTR

ACLNN_ARRAYS = "torch"

LAMBDA = 1.0507009873554804934193349852946
ALPHA = 1.6732632423543772848170429916717


def selu_backward(grad_output, result, grad_input):
    if grad_output is None or result is None or grad_input is None:
        raise Rejected(ACLNN_ERR_PARAM_NULLPTR, "a tensor is NULL")
    return torch.ops.aten.elu_backward(grad_output, ALPHA, LAMBDA, 1.0, True,
                                       result)
