"""compare() and standards(): every standard the reports know, verdicts on
both sides of a bound, "not judged" without a reference device."""

import numpy as np
import pytest

import aclnn_conform as ac
from aclnn_conform import golden


def gelu_case(n=256, dtype=np.float32):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(n) * 2).astype(dtype)
    dy = rng.standard_normal(n).astype(dtype)
    return golden.gelu_backward(dy, x, full=True)["gradInput"]


def test_standards_listed():
    ids = [s["id"] for s in ac.standards()]
    assert ids[:2] == ["ulp", "ascend"]
    assert len(ids) == 16
    assert "ttk-mixed" in ids and "msprobe-benchmark" in ids
    assert set(ac.policies()) >= set(ids)


@pytest.mark.parametrize("standard", [s["id"] for s in ac.standards()])
def test_golden_itself_passes_or_is_not_judged(standard):
    g = gelu_case()
    r = ac.compare(g.array(), g, standard=standard)
    info = {s["id"]: s for s in ac.standards()}[standard]
    if info["needs_reference"]:
        assert r.verdict == "not judged" and not r.passed
        assert "not judged" in str(r)
        r = ac.compare(g.array(), g, standard=standard, reference=g.array())
    assert r.passed, r


def test_ulp_bound_both_sides():
    g = gelu_case()
    record = g.array()
    one_ulp = np.nextafter(record, np.float32(np.inf))
    assert ac.compare(one_ulp, g).passed  # fp32: 2 ulps
    far = record * np.float32(1.001)
    r = ac.compare(far, g)
    assert not r.passed and r.measures["max_ulps"] > 2
    assert "ulp" in str(r)


def test_kit_standard_fails_a_bad_result():
    g = gelu_case()
    bad = g.array() + np.float32(0.5)
    for standard in ("ttk-mixed", "ttk-binary", "msprobe-binary_consistency",
                     "ascend"):
        r = ac.compare(bad, g, standard=standard)
        assert r.verdict == "fail", r


def test_plain_arrays_and_bfloat16_dtype():
    g = golden.gelu_backward(np.ones(8, np.uint16) * 0x3F80,
                             np.arange(8, dtype=np.uint16) * 0x400 + 0x3C00,
                             dtype="bfloat16", full=True)["gradInput"]
    plain = np.asarray(g.array()).astype(np.uint16)
    r = ac.compare(plain, plain, dtype="bfloat16", standard="ulp")
    assert r.passed and r.dtype == "bf16" and not r.exact_known
    with pytest.raises(ValueError):
        ac.compare(np.ones(3, np.float32), np.ones(3, np.float16))


def test_sum_outputs_use_the_condition_aware_bound():
    rng = np.random.default_rng(3)
    gy = rng.standard_normal((64, 8)).astype(np.float32)
    g = golden.grouped_bias_add_grad(gy, np.array([64], np.int64),
                                     full=True)["out"]
    r = ac.compare(gy.sum(axis=0, keepdims=True), g)
    assert r.rule == "sum" and "max_bound_ratio" in r.measures
    assert r.passed, r


def test_torch_tensors_compare():
    torch = pytest.importorskip("torch")
    g = gelu_case()
    r = ac.compare(torch.from_numpy(g.array()), g, standard="ttk-mixed")
    assert r.passed, r
