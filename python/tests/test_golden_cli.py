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
    tmp_path.mkdir(parents=True, exist_ok=True)
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


# ---- the holes an audit found: promotion, LayerNorm's bias and FLOAT
# weight, GroupedBiasAddGrad's index forms, broadcast views off GELU ----

NP_OF = {"fp32": "float32", "fp16": "float16", "int8": "int8",
         "int32": "int32", "int64": "int64", "uint8": "uint8", "bool": "bool"}


def rand_of(shape, t):
    """Random values of the aclnn dtype t (integers small, bool 0/1)."""
    if t == "bf16":
        return rand(shape, "bf16")
    if t == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if t in ("int8", "int32", "int64", "uint8"):
        low = 0 if t == "uint8" else -6
        return RNG.integers(low, 7, shape).astype(NP_OF[t])
    return rand(shape, NP_OF[t])


def broadcast(a, shape):
    """a as a zero-stride view of shape (bf16 bit patterns keep their
    type)."""
    b = np.broadcast_to(a, shape)
    return b.view(ac.sut.bfloat16_bits) \
        if isinstance(a, ac.sut.bfloat16_bits) else b


@pytest.mark.parametrize("dy_t,x_t", [
    ("int8", "fp16"), ("int32", "fp32"), ("fp16", "int8"), ("bool", "bf16"),
    ("fp16", "fp32"), ("fp32", "bf16"), ("bf16", "fp16"), ("uint8", "fp16")])
def test_gelu_backward_promotion(cli, tmp_path, dy_t, x_t):
    """Integer and mixed dtypes: the output is ABI-PROMOTE-1's dtype and the
    values the CLI's."""
    dy, x = rand_of((3, 5), dy_t), rand_of((3, 5), x_t)
    out_t = ac._core.promote(dy_t, x_t)
    got = golden.gelu_backward(dy, x)
    want, _ = cli_golden(cli, tmp_path, "GeluBackward", [
        ("gradOutput", (dy_t, dy)), ("self", (x_t, x)),
        ("gradInput", (out_t, (3, 5)))], {})
    assert ac.sut.dtype_of(got) == out_t
    assert bits(got).tobytes() == want["gradInput"]


@pytest.mark.parametrize("dtype,w_t", [("float16", "fp32"), ("bf16", "fp32"),
                                       ("float16", "fp16"),
                                       ("float32", "fp32")])
def test_layer_norm_backward_bias_and_float_weight(cli, tmp_path, dtype,
                                                   w_t):
    """bias present (validated, no part in the values) and a FLOAT weight on
    16-bit input (LN-DTYPE-1 allows it)."""
    t = name_of(dtype)
    x, dy = rand((2, 3, 8), dtype), rand((2, 3, 8), dtype)
    mean = RNG.standard_normal((2, 3, 1)).astype(np.float32)
    rstd = (RNG.random((2, 3, 1)) + 0.5).astype(np.float32)
    w, b = rand_of((8,), w_t), rand_of((8,), w_t)
    got = golden.layer_norm_backward(dy, x, [8], mean, rstd, weight=w,
                                     bias=b)
    want, _ = cli_golden(cli, tmp_path, "LayerNormBackward", [
        ("gradOut", (t, dy)), ("input", (t, x)), ("mean", ("fp32", mean)),
        ("rstd", ("fp32", rstd)), ("weightOptional", (w_t, w)),
        ("biasOptional", (w_t, b)), ("gradInputOut", (t, (2, 3, 8))),
        ("gradWeightOut", ("fp32", (8,))), ("gradBiasOut", ("fp32", (8,)))],
        {"normalizedShape": [8], "outputMask": [True, True, True]})
    for name, value in zip(("gradInputOut", "gradWeightOut", "gradBiasOut"),
                           got):
        assert bits(value).tobytes() == want[name], name
    # The bias takes no part in the values (LN-BIAS-1).
    without = golden.layer_norm_backward(dy, x, [8], mean, rstd, weight=w)
    for a, b_ in zip(got, without):
        assert bits(a).tobytes() == bits(b_).tobytes()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("form", ["v1-int32", "v2-type0-int64",
                                  "v2-type0-int32"])
def test_grouped_bias_add_grad_index_forms(cli, tmp_path, dtype, form):
    """V1 with INT32 end offsets, V2 with groupIdxType 0 (end offsets), an
    empty group among them."""
    t = name_of(dtype)
    gy = strided(rand((10, 5), dtype))
    idx_t = "int64" if form.endswith("int64") else "int32"
    idx = np.array([2, 2, 7, 10], dtype=NP_OF[idx_t])
    if form.startswith("v1"):
        got = golden.grouped_bias_add_grad(gy, idx)
        op, attrs = "GroupedBiasAddGrad", {}
    else:
        got = golden.grouped_bias_add_grad(gy, idx, group_idx_type=0)
        op, attrs = "GroupedBiasAddGradV2", {"groupIdxType": 0}
    want, _ = cli_golden(cli, tmp_path, op, [
        ("gradY", (t, gy)), ("groupIdxOptional", (idx_t, idx)),
        ("out", (t, (4, 5)))], attrs)
    assert bits(got).tobytes() == want["out"]


@pytest.mark.parametrize("dtype", FLOATS)
def test_broadcast_views_off_gelu(cli, tmp_path, dtype):
    """Zero-stride (broadcast) inputs on SELU, LogitGrad, LayerNorm and
    GroupedBiasAddGrad: the views' values, as the CLI reads the same
    strides."""
    t = name_of(dtype)
    # SeluBackward: result broadcast along rows.
    dy, y = rand((4, 6), dtype), broadcast(rand((6,), dtype), (4, 6))
    want, _ = cli_golden(cli, tmp_path / "selu", "SeluBackward", [
        ("gradOutput", (t, dy)), ("result", (t, y)),
        ("gradInput", (t, (4, 6)))], {})
    assert bits(golden.selu_backward(dy, y)).tobytes() == want["gradInput"]
    # LogitGrad: dy broadcast along columns (stride 0 on dim 1).
    x = RNG.random((3, 7)).astype(np.float32)
    x = ac.bf16.from_float(x).view(ac.sut.bfloat16_bits) \
        if dtype == "bf16" else x.astype(dtype)
    d = broadcast(rand((3, 1), dtype), (3, 7))
    want, _ = cli_golden(cli, tmp_path / "logit", "LogitGrad", [
        ("x", (t, x)), ("dy", (t, d)), ("out", (t, (3, 7)))],
        {"eps": (1e-3).hex()})
    assert bits(golden.logit_grad(x, d, 1e-3)).tobytes() == want["out"]
    # LayerNormBackward: gradOut and the weight broadcast.
    xi = rand((4, 8), dtype)
    go = broadcast(rand((8,), dtype), (4, 8))
    w = broadcast(rand((1,), dtype), (8,))
    mean = RNG.standard_normal((4, 1)).astype(np.float32)
    rstd = (RNG.random((4, 1)) + 0.5).astype(np.float32)
    got = golden.layer_norm_backward(go, xi, [8], mean, rstd, weight=w)
    want, _ = cli_golden(cli, tmp_path / "ln", "LayerNormBackward", [
        ("gradOut", (t, go)), ("input", (t, xi)), ("mean", ("fp32", mean)),
        ("rstd", ("fp32", rstd)), ("weightOptional", (t, w)),
        ("biasOptional", None), ("gradInputOut", (t, (4, 8))),
        ("gradWeightOut", ("fp32", (8,))), ("gradBiasOut", ("fp32", (8,)))],
        {"normalizedShape": [8], "outputMask": [True, True, True]})
    for name, value in zip(("gradInputOut", "gradWeightOut", "gradBiasOut"),
                           got):
        assert bits(value).tobytes() == want[name], name
    # GroupedBiasAddGrad: one row of gradY repeated over C (stride 0).
    gy = broadcast(rand((3, 1, 5), dtype), (3, 4, 5))
    want, _ = cli_golden(cli, tmp_path / "gbag", "GroupedBiasAddGrad", [
        ("gradY", (t, gy)), ("groupIdxOptional", None),
        ("out", (t, (3, 5)))], {})
    assert bits(golden.grouped_bias_add_grad(gy)).tobytes() == want["out"]
