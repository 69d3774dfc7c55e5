"""The Python half of libaclnn_python_sut.so (python/sut/python_sut.cpp).

The adapter embeds the interpreter in a campaign worker, calls load() once
and call() for every op call (phase one). call() wraps the staged tensors as
NumPy arrays with the call's exact views (inputs read-only over the staged
memory; outputs writable, the same views over a copy of their storage),
calls the module's function, writes returned values into the output views
and answers (status, message, [each output's elements, row-major, or
None]), which phase two writes into the real output views. The calling
convention is docs/python.md's "Python modules as systems under test".
"""

import ctypes
import importlib
import importlib.util
import os
import sys
import traceback

import numpy as np

from . import bf16 as _bf16
from . import sut as _sut

ACLNN_ERR_INNER = 561000

_NUMPY = {
    "fp32": np.float32, "fp16": np.float16, "fp64": np.float64,
    "bf16": np.uint16, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
    "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "bool": np.bool_, "complex64": np.complex64,
    "complex128": np.complex128,
}

_state = {"module": None, "bf16": "bits", "arrays": "numpy"}


def load():
    """Imports the module ACLNN_PYTHON_SUT_MODULE names; "" or why not."""
    name = os.environ.get("ACLNN_PYTHON_SUT_MODULE", "")
    if not name:
        return ("ACLNN_PYTHON_SUT_MODULE is not set: run the campaign with "
                "--sut python:MODULE (a replay too)")
    # Like `python -c`, the folder the campaign was started from is on the path.
    start = os.environ.get("ACLNN_PYTHON_SUT_CWD", "")
    if start and start not in sys.path:
        sys.path.insert(0, start)
    try:
        if name.endswith(".py"):
            folder, file = os.path.split(os.path.abspath(name))
            sys.path.insert(0, folder)
            spec = importlib.util.spec_from_file_location(file[:-3], name)
            module = importlib.util.module_from_spec(spec)
            sys.modules[file[:-3]] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(name)
    except BaseException:  # noqa: B036 - the text goes to the report
        return "cannot import %s: %s" % (name, traceback.format_exc(limit=4))
    mode = getattr(module, "ACLNN_BF16", "bits")
    arrays = getattr(module, "ACLNN_ARRAYS", "numpy")
    if mode not in ("bits", "float32"):
        return "%s.ACLNN_BF16 must be 'bits' or 'float32', not %r" % (
            name, mode)
    if arrays not in ("numpy", "torch"):
        return "%s.ACLNN_ARRAYS must be 'numpy' or 'torch', not %r" % (
            name, arrays)
    if arrays == "torch":
        try:
            import torch  # noqa: F401
        except ImportError:
            return "%s.ACLNN_ARRAYS = 'torch' but PyTorch is not importable" % name
    _state.update(module=module, bf16=mode, arrays=arrays)
    return ""


def _view(t, writable):
    """The staged tensor t as an array over the adapter's memory."""
    address, nbytes, dtype, shape, strides, offset, _ = t
    np_type = np.dtype(_NUMPY[dtype])
    if any(d == 0 for d in shape) or nbytes == 0:
        return np.zeros(shape, dtype=np_type)
    buffer = (ctypes.c_char * nbytes).from_address(address)
    a = np.ndarray(shape, dtype=np_type, buffer=buffer,
                   offset=offset * np_type.itemsize,
                   strides=[s * np_type.itemsize for s in strides])
    a.flags.writeable = writable
    return a


def _scratch_view(t):
    """The staged output t's view over a writable copy of its storage."""
    address, nbytes, dtype, shape, strides, offset, _ = t
    np_type = np.dtype(_NUMPY[dtype])
    if any(d == 0 for d in shape) or nbytes == 0:
        return np.zeros(shape, dtype=np_type)
    storage = bytearray(ctypes.string_at(address, nbytes))
    return np.ndarray(shape, dtype=np_type, buffer=storage,
                      offset=offset * np_type.itemsize,
                      strides=[s * np_type.itemsize for s in strides])


def _present(a, dtype):
    """An array as the module receives it (bf16 per the module's choice)."""
    if dtype == "bf16":
        if _state["bf16"] == "float32":
            a = _bf16.to_float32(a)
        else:
            a = a.view(_sut.bfloat16_bits)
    if _state["arrays"] == "torch":
        import torch
        writable = a.flags.writeable
        if dtype == "bf16" and _state["bf16"] == "bits":
            t = torch.from_numpy(np.array(a, dtype=np.int16, copy=True))
            return t.view(torch.bfloat16)
        if dtype == "uint16" or dtype == "uint32" or dtype == "uint64":
            return a  # no PyTorch dtype: left as a NumPy array
        return torch.from_numpy(np.array(a, copy=True) if not writable else a)
    return a


def _to_numpy(value):
    """A returned value (NumPy array, scalar, PyTorch tensor) as a NumPy array."""
    if type(value).__module__.startswith("torch"):
        import torch
        value = value.detach().cpu()
        if value.dtype == torch.bfloat16:
            return value.view(torch.int16).numpy().view(np.uint16).view(
                _sut.bfloat16_bits)
        return value.numpy()
    return np.asarray(value) if not isinstance(value, np.ndarray) else value


def _store(scratch, dtype, value):
    """Assigns a returned value into an output's scratch array."""
    value = _to_numpy(value)
    if dtype == "bf16" and scratch.dtype == np.uint16:
        if not isinstance(value, _sut.bfloat16_bits) and value.dtype.kind in "fc":
            value = _bf16.from_float(value)
        scratch[...] = np.broadcast_to(np.asarray(value).view(np.uint16)
                                       if value.dtype == np.uint16 else value,
                                       scratch.shape)
        return
    scratch[...] = value


def call(op_name, kinds, args, soc, abi_name):
    """Runs the module's op_name on args; (status, message, outputs)."""
    module = _state["module"]
    outputs = kinds.count("O")
    function = getattr(module, op_name, None)
    if function is None:
        return (ACLNN_ERR_INNER,
                "python: SUT: the module defines no function %s (%s)" % (
                    op_name, abi_name), [None] * outputs)
    _sut._current["product"] = soc or "ascend910b"
    call_args, slots = [], []
    for kind, item in zip(kinds, args):
        if kind == "A" or item is None:
            call_args.append(item)
            if kind == "O":
                slots.append(None)
            continue
        dtype = item[2]
        if kind == "T":
            call_args.append(_present(_view(item, False), dtype))
            continue
        # An output: the same view (shape, strides, offset) over a scratch copy of its
        # storage, written in place by the module; phase two copies its elements into the
        # real view (bf16 in float32 mode: a float32 copy, rounded after the call).
        view = _scratch_view(item)
        s = view
        if dtype == "bf16" and _state["bf16"] == "float32":
            s = _bf16.to_float32(view)
        elif dtype == "bf16":
            s = view.view(_sut.bfloat16_bits)
        given = _present_output(s, dtype)
        slots.append((s, dtype, given, view))
        call_args.append(given)
    try:
        returned = function(*call_args)
    except BaseException as e:  # noqa: B036 - every failure is the call's answer
        status = getattr(e, "aclnn_status", None)
        if isinstance(status, int) and not isinstance(
                e, (KeyboardInterrupt, SystemExit)):
            message = getattr(e, "message", None) or str(e)
            return (int(status), message or "rejected", [None] * outputs)
        text = "".join(traceback.format_exception_only(type(e), e)).strip()
        tb = traceback.extract_tb(e.__traceback__)
        where = ""
        if tb:
            where = " (at %s:%d)" % (os.path.basename(tb[-1].filename),
                                     tb[-1].lineno)
        return (ACLNN_ERR_INNER, "python: SUT %s raised %s%s" % (
            op_name, text, where), [None] * outputs)
    try:
        if returned is not None:
            if not isinstance(returned, (tuple, list)):
                returned = (returned,)
            if len(returned) != len(slots):
                raise ValueError("returned %d values for %d outputs" % (
                    len(returned), len(slots)))
            for value, slot in zip(returned, slots):
                if value is not None and slot is not None:
                    _store(slot[0], slot[1], value)
        else:
            # Written in place: PyTorch tensors given for outputs are copied back.
            for slot in slots:
                if slot is not None and slot[2] is not slot[0]:
                    if type(slot[2]).__module__.startswith("torch"):
                        _store(slot[0], slot[1], slot[2])
        answer = []
        for slot in slots:
            if slot is None:
                answer.append(None)
                continue
            if slot[1] == "bf16" and slot[0].dtype == np.float32 and slot[0].size:
                slot[3][...] = _bf16.from_float(slot[0])
            view = slot[3]
            answer.append(np.ascontiguousarray(view).view(np.uint8).tobytes()
                          if view.size else b"")
        return (0, "", answer)
    except BaseException as e:  # noqa: B036
        text = "".join(traceback.format_exception_only(type(e), e)).strip()
        return (ACLNN_ERR_INNER, "python: SUT %s: its result cannot be "
                "written: %s" % (op_name, text), [None] * outputs)


def _present_output(s, dtype):
    """An output scratch array as the module receives it."""
    if _state["arrays"] != "torch" or s.dtype in (np.uint16, np.uint32,
                                                  np.uint64) and dtype != "bf16":
        return s
    import torch
    if dtype == "bf16" and s.dtype == np.uint16:
        return torch.from_numpy(np.asarray(s).view(np.int16)).view(
            torch.bfloat16)
    return torch.from_numpy(s)
