"""--sut python:MODULE: a correct NumPy implementation is CONFORMANT with
the adapter's clauses listed as not applicable, one with a planted fault is
caught under the right clause, and PyTorch's functions run where PyTorch is
installed."""

import os
import subprocess

import pytest

import aclnn_conform as ac

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = ["GeluBackward", "SeluBackward", "LayerNormBackward", "LogitGrad",
       "GroupedBiasAddGrad", "GroupedBiasAddGradV2"]
# Each op's own clauses (GroupedBiasAddGradV2 shares GroupedBiasAddGrad's).
PREFIX = {"GeluBackward": "GELU-", "SeluBackward": "SELU-",
          "LayerNormBackward": "LN-", "LogitGrad": "LOGIT-",
          "GroupedBiasAddGrad": "GBAG-"}


def test_correct_numpy_module_is_conformant(tmp_path):
    r = ac.run(sut="python:numpy_ops", ops=OPS, cases=4000, tier="smoke",
               jobs=2, out=tmp_path, use_corpus=False)
    assert r["verdict"] == "CONFORMANT", ac.summary(r)
    assert r["ops"] == OPS
    # Every op's clauses were reached and conform (not merely not failed).
    for op, prefix in PREFIX.items():
        own = [c for c in r["clauses"] if c["id"].startswith(prefix)]
        assert own, op
        for c in own:
            assert c["status"] == "conforms" and c["reached"] >= max(
                1, c["min_cases"]), (c["id"], c["status"], c["reached"])
    assert r["sut"] == "python:numpy_ops"
    assert set(r["not_applicable"]) == set(ac._core.python_sut_not_applicable())
    assert r["not_applicable_reason"] == "not applicable to a python: SUT"
    status = {c["id"]: c["status"] for c in r["clauses"]}
    for clause in r["not_applicable"]:
        assert status[clause] == "skipped", clause
    assert status["SELU-ZERO-1"] == "conforms"
    md = (tmp_path / "report.md").read_text()
    assert "NOT APPLICABLE - not applicable to a python: SUT" in md
    assert "not judged (not applicable to a python: SUT)" in md
    xml = (tmp_path / "report.xml").read_text()
    assert 'skipped message="not applicable to a python: SUT"' in xml


def test_planted_fault_is_found_under_its_clause(tmp_path):
    r = ac.run(sut="python:numpy_ops_faulty", ops=["SeluBackward"],
               cases=1000, tier="smoke", jobs=2, out=tmp_path,
               use_corpus=False)
    assert r["verdict"] == "DEVIATIONS"
    deviating = {c["id"] for c in r["clauses"] if c["status"] == "deviates"}
    assert "SELU-ZERO-1" in deviating, ac.summary(r)
    zero = [c for c in r["clauses"] if c["id"] == "SELU-ZERO-1"][0]
    assert "le-zero" in zero["variants"]


def test_planted_faults_in_logit_and_gbag_are_found(tmp_path):
    """numpy_ops_faulty's GroupedBiasAddGrad (V1 and V2) sums one row too
    few per groupIdx group, its LogitGrad ignores eps: found under
    GBAG-VALUE-1 and LOGIT-VALUE-1, while the 3-D GroupedBiasAddGrad form
    and LayerNorm (unchanged) conform."""
    r = ac.run(sut="python:numpy_ops_faulty",
               ops=["LayerNormBackward", "LogitGrad", "GroupedBiasAddGrad",
                    "GroupedBiasAddGradV2"],
               cases=1500, tier="smoke", jobs=2, out=tmp_path,
               use_corpus=False)
    assert r["verdict"] == "DEVIATIONS", ac.summary(r)
    status = {c["id"]: c["status"] for c in r["clauses"]}
    assert status["GBAG-VALUE-1"] == "deviates", ac.summary(r)
    assert status["LOGIT-VALUE-1"] == "deviates", ac.summary(r)
    assert status["LOGIT-EPS-INF-1"] == "deviates", ac.summary(r)
    assert status["GBAG-VALUE-2"] == "conforms", ac.summary(r)
    assert all(s == "conforms" for c, s in status.items()
               if c.startswith("LN-")), ac.summary(r)
    # The kept counterexamples name the op they came from.
    gbag = [d for d in r["deviations"] if d.get("clause") == "GBAG-VALUE-1"]
    assert gbag and all(d["op"].startswith("GroupedBiasAddGrad")
                        for d in gbag), r["deviations"][:3]


def test_run_with_a_budget_on_the_builtin_library(tmp_path):
    """run(sut="builtin", budget="3s"): the campaign is bounded by the
    budget, not by a case count, as the report itself records."""
    r = ac.run(sut="builtin", budget="3s", ops=["GeluBackward", "LogitGrad"],
               tier="smoke", jobs=2, out=tmp_path, use_corpus=False)
    assert r["verdict"] == "CONFORMANT", ac.summary(r)
    assert r["sut"] == "builtin" and r["not_applicable"] == []
    assert r["cases"] > 0 and not r["interrupted"] and not r["aborted"]
    # A budget run spends its budget (no case limit ends it sooner) and ends
    # then: the 60 s default would apply had the budget been dropped.
    assert 3.0 <= r["seconds"] < 60, r["seconds"]
    md = (tmp_path / "report.md").read_text()
    assert "| Cases | %d |" % r["cases"] in md


def test_cli_takes_a_py_file(tmp_path, cli):
    env = dict(os.environ)
    p = subprocess.run(
        [cli, "run", "--sut", "python:" + os.path.join(HERE, "numpy_ops.py"),
         "--ops", "GeluBackward,SeluBackward", "--cases", "2500", "--tier",
         "smoke", "--jobs", "2", "--no-corpus", "--out", str(tmp_path), "--quiet"],
        capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "CONFORMANT" in p.stdout + p.stderr


def test_module_that_cannot_be_imported_is_a_setup_error(tmp_path, cli):
    bad = tmp_path / "broken_ops.py"
    bad.write_text("raise ImportError('planted import failure')\n")
    p = subprocess.run(
        [cli, "run", "--sut", "python:" + str(bad), "--ops", "SeluBackward",
         "--cases", "10", "--no-corpus", "--out", str(tmp_path / "out"),
         "--quiet"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert "planted import failure" in p.stderr


def test_torch_module(tmp_path):
    pytest.importorskip("torch")
    r = ac.run(sut="python:torch_ops", ops=["SeluBackward"], cases=600,
               tier="smoke", jobs=1, out=tmp_path, use_corpus=False)
    # PyTorch's elu_backward selects on y <= 0: SELU-ZERO-1's le-zero variant.
    zero = [c for c in r["clauses"] if c["id"] == "SELU-ZERO-1"][0]
    assert zero["status"] == "deviates" and "le-zero" in zero["variants"], \
        ac.summary(r)
    assert r["cases"] > 0
