"""The module's goldens equal `aclnn-conform golden`'s bit for bit: random
inputs of every op and dtype, contiguous, strided and broadcast views, the
same inputs written as .bin files with a request the CLI reads."""

import json
import os
import subprocess

import numpy as np
import pytest

import aclnn_conform as ac
from aclnn_conform import golden

RNG = np.random.default_rng(2024)


def rand(shape, dtype):
    if dtype == "bf16":
        v = RNG.standard_normal(shape).astype(np.float32) * 3
        return ac.bf16.from_float(v).view(ac.sut.bfloat16_bits)
    return (RNG.standard_normal(shape) * 3).astype(dtype)


def strided(a):
    """The same values as a view with gaps (every other element) and an
    offset into a larger storage."""
    big = np.zeros((2,) + tuple(2 * d for d in a.shape), dtype=a.dtype)
    view = big[(1,) + tuple(slice(0, None, 2) for _ in a.shape)]
    view[...] = a
    return view.view(type(a)) if isinstance(a, ac.sut.bfloat16_bits) else view


def bits(a):
    return np.ascontiguousarray(np.asarray(a)).view(np.uint8)


def cli_golden(cli, tmp_path, op, tensors, attrs, variants=()):
    """Writes the request (views with their strides and offset) and .bin
    files, runs the CLI; {output name: raw bytes} and the summary."""
    entries = []
    for name, item in tensors:
        if item is None:
            entries.append({"name": name, "null": True})
            continue
        dtype, a = item
        if isinstance(a, tuple):  # an output: its shape
            entries.append({"name": name, "dtype": dtype, "shape": list(a)})
            continue
        raw = np.asarray(a)
        root = raw
        while isinstance(root.base, np.ndarray):
            root = root.base
        offset = (raw.__array_interface__["data"][0] -
                  root.__array_interface__["data"][0]) // raw.itemsize \
            if root is not raw else 0
        file = tmp_path / (name + ".bin")
        np.ascontiguousarray(raw).tofile(file)
        entries.append({"name": name, "dtype": dtype,
                        "shape": list(raw.shape),
                        "strides": [s // raw.itemsize for s in raw.strides],
                        "offset": int(offset), "file": str(file)})
    request = {"op": op, "variants": list(variants), "attrs": attrs,
               "tensors": entries}
    (tmp_path / "request.json").write_text(json.dumps(request))
    out = tmp_path / "out"
    p = subprocess.run([cli, "golden", str(tmp_path / "request.json"),
                        "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    summary = json.loads((out / "golden.json").read_text())
    result = {}
    for o in summary["outputs"]:
        if o["written"]:
            result[o["name"]] = (out / o["bin"]).read_bytes()
    return result, summary


FLOATS = ["float32", "float16", "bf16"]


def name_of(dtype):
    return {"float32": "fp32", "float16": "fp16", "bf16": "bf16"}[dtype]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", ["contiguous", "strided", "broadcast"])
@pytest.mark.parametrize("variant", [None, "tanh-approx"])
def test_gelu_backward(cli, tmp_path, dtype, layout, variant):
    dy, x = rand((3, 5), dtype), rand((3, 5), dtype)
    if layout == "strided":
        dy, x = strided(dy), strided(x)
    if layout == "broadcast":
        x = np.broadcast_to(rand((5,), dtype), (3, 5))
        if dtype == "bf16":
            x = x.view(ac.sut.bfloat16_bits)
    got = golden.gelu_backward(dy, x, variant=variant)
    want, _ = cli_golden(cli, tmp_path, "GeluBackward", [
        ("gradOutput", (name_of(dtype), dy)), ("self", (name_of(dtype), x)),
        ("gradInput", (name_of(dtype), (3, 5)))], {},
        [variant] if variant else [])
    assert bits(got).tobytes() == want["gradInput"]


@pytest.mark.parametrize("dtype", FLOATS + ["int32", "int8"])
def test_selu_backward(cli, tmp_path, dtype):
    if dtype in ("int32", "int8"):
        dy = RNG.integers(-20, 20, (4, 6)).astype(dtype)
        y = RNG.integers(-2, 20, (4, 6)).astype(dtype)
        t = dtype
    else:
        dy, y, t = strided(rand((4, 6), dtype)), rand((4, 6), dtype), \
            name_of(dtype)
    got = golden.selu_backward(dy, y)
    want, _ = cli_golden(cli, tmp_path, "SeluBackward", [
        ("gradOutput", (t, dy)), ("result", (t, y)),
        ("gradInput", (t, (4, 6)))], {})
    assert bits(got).tobytes() == want["gradInput"]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mask", [(True, True, True), (True, False, True)])
def test_layer_norm_backward(cli, tmp_path, dtype, mask):
    x, dy = rand((4, 8), dtype), strided(rand((4, 8), dtype))
    mean = RNG.standard_normal((4, 1)).astype(np.float32)
    rstd = (RNG.random((4, 1)) + 0.5).astype(np.float32)
    w = rand((8,), dtype)
    got = golden.layer_norm_backward(dy, x, [8], mean, rstd, weight=w,
                                     output_mask=mask)
    t = name_of(dtype)
    want, _ = cli_golden(cli, tmp_path, "LayerNormBackward", [
        ("gradOut", (t, dy)), ("input", (t, x)), ("mean", ("fp32", mean)),
        ("rstd", ("fp32", rstd)), ("weightOptional", (t, w)),
        ("biasOptional", None),
        ("gradInputOut", (t, (4, 8)) if mask[0] else None),
        ("gradWeightOut", ("fp32", (8,)) if mask[1] else None),
        ("gradBiasOut", ("fp32", (8,)) if mask[2] else None)],
        {"normalizedShape": [8], "outputMask": list(mask)})
    for name, value in zip(("gradInputOut", "gradWeightOut", "gradBiasOut"),
                           got):
        if value is None:
            assert name not in want
        else:
            assert bits(value).tobytes() == want[name], name


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("eps", [-1.0, 1e-6, 0.25])
def test_logit_grad(cli, tmp_path, dtype, eps):
    x = RNG.random((3, 7)).astype(np.float32)
    x = ac.bf16.from_float(x).view(ac.sut.bfloat16_bits) \
        if dtype == "bf16" else x.astype(dtype)
    dy = strided(rand((3, 7), dtype))
    got = golden.logit_grad(x, dy, eps)
    t = name_of(dtype)
    want, _ = cli_golden(cli, tmp_path, "LogitGrad", [
        ("x", (t, x)), ("dy", (t, dy)), ("out", (t, (3, 7)))],
        {"eps": float(eps).hex()})
    assert bits(got).tobytes() == want["out"]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("form", ["3d", "v1", "v2-sizes"])
def test_grouped_bias_add_grad(cli, tmp_path, dtype, form):
    t = name_of(dtype)
    if form == "3d":
        gy = strided(rand((3, 4, 5), dtype))
        got = golden.grouped_bias_add_grad(gy)
        tensors = [("gradY", (t, gy)), ("groupIdxOptional", None),
                   ("out", (t, (3, 5)))]
        op, attrs = "GroupedBiasAddGrad", {}
    else:
        gy = rand((10, 5), dtype)
        if form == "v1":
            idx = np.array([3, 3, 10], dtype=np.int64)
            got = golden.grouped_bias_add_grad(gy, idx)
            op, attrs = "GroupedBiasAddGrad", {}
        else:
            idx = np.array([3, 0, 7], dtype=np.int32)
            got = golden.grouped_bias_add_grad(gy, idx, group_idx_type=1)
            op, attrs = "GroupedBiasAddGradV2", {"groupIdxType": 1}
        tensors = [("gradY", (t, gy)),
                   ("groupIdxOptional", ("int64" if form == "v1" else "int32",
                                         idx)),
                   ("out", (t, (3, 5)))]
    want, _ = cli_golden(cli, tmp_path, op, tensors, attrs)
    assert bits(got).tobytes() == want["out"]


def test_rejection_names_status_and_clause():
    with pytest.raises(ac.SpecRejection) as e:
        golden.gelu_backward(np.ones(3, np.float64), np.ones(3, np.float32))
    assert e.value.status == 161002
    assert e.value.clause == "GELU-DTYPE-1"
    with pytest.raises(ac.SpecRejection) as e:
        golden.selu_backward(np.ones((2, 3), np.float32),
                             np.ones((3,), np.float32))
    assert e.value.clause == "SELU-SHAPE-1"


def test_variants_listed():
    assert "tanh-approx" in ac.variants("GeluBackward")
    with pytest.raises(ValueError):
        golden.gelu_backward(np.ones(2, np.float32), np.ones(2, np.float32),
                             variant="no-such-variant")


def test_negative_strides_and_fp16_dtype():
    x = np.linspace(-2, 2, 9).astype(np.float16)
    dy = np.ones(9, np.float16)
    a = golden.gelu_backward(dy[::-1], x[::-1])
    b = golden.gelu_backward(dy, x)[::-1]
    assert a.dtype == np.float16 and np.array_equal(a, b)


def test_explicit_bfloat16_dtype_for_uint16():
    v = ac.bf16.from_float(np.array([0.5, -1.0, 2.0], np.float32))
    a = golden.selu_backward(v, v, dtype="bfloat16")
    b = golden.selu_backward(v.view(ac.sut.bfloat16_bits),
                             v.view(ac.sut.bfloat16_bits))
    assert np.array_equal(np.asarray(a), np.asarray(b))
    assert ac.bf16.to_float32(a).dtype == np.float32


def test_torch_bfloat16_tensors():
    torch = pytest.importorskip("torch")
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.bfloat16)
    got = golden.gelu_backward(torch.ones_like(x), x)
    assert got.dtype == torch.bfloat16
    want = golden.gelu_backward(
        np.full(3, 0x3F80, np.uint16), x.view(torch.int16).numpy().view(
            np.uint16), dtype="bfloat16")
    assert np.array_equal(got.view(torch.int16).numpy().view(np.uint16),
                          np.asarray(want))


def test_golden_speed_is_recorded():
    """1e6 fp32 elements: one call, timed (the figures are in docs/python.md;
    this only checks that the call is not per-element Python)."""
    import time
    n = 1_000_000
    x = RNG.standard_normal(n).astype(np.float32)
    t = time.perf_counter()
    golden.selu_backward(x, x)
    assert time.perf_counter() - t < 60
