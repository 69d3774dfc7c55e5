"""run(): a conformance campaign from Python, as ``aclnn-conform run`` runs it.

The same engine (run_campaign: fresh exec'd worker processes, isolation,
shrinking, corpus) and the same report files (report.json/md/html/xml,
repros); the result is report.json's content as a dict.
"""

import contextlib
import importlib.util
import inspect
import json
import os
import re

from . import _core, _paths

__all__ = ["run", "summary", "SUT_FUNCTIONS"]

# The function a python: SUT module defines for each op (docs/python.md).
SUT_FUNCTIONS = {
    "GeluBackward": "gelu_backward",
    "SeluBackward": "selu_backward",
    "LayerNormBackward": "layer_norm_backward",
    "LogitGrad": "logit_grad",
    "GroupedBiasAddGrad": "grouped_bias_add_grad",
    "GroupedBiasAddGradV2": "grouped_bias_add_grad_v2",
}


def _seconds(budget):
    if budget is None or isinstance(budget, (int, float)):
        return budget
    m = re.fullmatch(r"\s*([0-9.]+)\s*(s|m|h)?\s*", str(budget))
    if not m:
        raise ValueError("budget: seconds, or text like 90s, 2m, 1.5h")
    return float(m.group(1)) * {"s": 1, "m": 60, "h": 3600, None: 1}[
        m.group(2)]


@contextlib.contextmanager
def _environment(changes):
    old = {k: os.environ.get(k) for k in changes}
    try:
        for k, v in changes.items():
            os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _python_module(name):
    """(folder to put on the workers' PYTHONPATH, the module) of a
    python: SUT, imported here to learn which ops it defines."""
    if name.endswith(".py"):
        path = os.path.abspath(name)
        spec = importlib.util.spec_from_file_location(
            os.path.basename(path)[:-3], path)
        if spec is None:
            raise ModuleNotFoundError("python: SUT %s: no such file" % name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return None, module
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("python: SUT: no module named %r" % name)
    folder = os.path.dirname(os.path.abspath(spec.origin))
    for _ in range(name.count(".") + (1 if spec.submodule_search_locations
                                      else 0)):
        folder = os.path.dirname(folder)
    module = importlib.import_module(name)
    return folder, module


def run(sut="builtin", budget=None, cases=None, ops=None, seed=1,
        out="campaign-out", jobs=None, policy="ulp", devices=None,
        competitor=None, tier="ci", soc="ascend910b", skips=None,
        xfails=None, expect_variants=None, clauses=None,
        allow_incomplete=False, product_emulation="auto", case_timeout=None,
        first_call_timeout=None, shard=None, use_corpus=True, quiet=True):
    """Runs a campaign and returns report.json's content (a dict).

    sut: "builtin", a library path (or paths joined by ':'), "cann", or
    "python:MODULE" (a module name importable here, or a .py file) for a
    Python module that defines the ops (docs/python.md); for a python: SUT
    without ``ops``, the ops the module defines are tested. budget: seconds
    or text ("90s", "2m"); without budget and cases, 60 s. The other
    arguments are the CLI's options of the same names (``aclnn-conform run
    --help``). The verdict is report["verdict"]: CONFORMANT, DEVIATIONS,
    INCOMPLETE or INTERRUPTED. Workers are the installed or built
    aclnn-conform-worker (ACLNN_CONFORM_WORKER overrides)."""
    env = {}
    if not os.environ.get("ACLNN_CONFORM_WORKER") and _paths.worker():
        env["ACLNN_CONFORM_WORKER"] = _paths.worker()
    if str(sut).startswith("python:"):
        if not os.environ.get("ACLNN_PYTHON_SUT_ADAPTER") and _paths.adapter():
            env["ACLNN_PYTHON_SUT_ADAPTER"] = _paths.adapter()
        folder, module = _python_module(str(sut)[len("python:"):])
        if folder:
            env["PYTHONPATH"] = os.pathsep.join(
                [folder] + [p for p in os.environ.get("PYTHONPATH", "").split(
                    os.pathsep) if p])
        if ops is None:
            ops = [op for op, fn in SUT_FUNCTIONS.items()
                   if inspect.isroutine(getattr(module, fn, None))]
            if not ops:
                raise ValueError("python: SUT %s defines none of %s" % (
                    module.__name__, ", ".join(SUT_FUNCTIONS.values())))
    if isinstance(ops, str):
        ops = [ops]
    options = {
        "sut": str(sut), "budget": _seconds(budget), "cases": cases,
        "ops": list(ops) if ops else None, "seed": int(seed),
        "out": os.fspath(out), "jobs": jobs, "policy": policy,
        "devices": None if devices is None else str(devices),
        "competitor": competitor, "tier": tier, "soc": soc,
        "skips": list(skips) if skips else None,
        "xfails": list(xfails) if xfails else None,
        "expect_variants": list(expect_variants) if expect_variants else None,
        "clauses": clauses, "allow_incomplete": bool(allow_incomplete),
        "product_emulation": product_emulation,
        "case_timeout": case_timeout,
        "first_call_timeout": first_call_timeout, "shard": shard,
        "use_corpus": bool(use_corpus), "quiet": bool(quiet),
    }
    with _environment(env):
        text = _core.run({k: v for k, v in options.items() if v is not None})
    return json.loads(text)


def summary(report):
    """A few lines on a report dict: the verdict, the deviating clauses
    with their first detail, what was not judged and where the reports
    are. For assertion messages: ``assert r["verdict"] == "CONFORMANT",
    summary(r)``."""
    lines = ["%s: %d cases, sut %s, policy %s" % (
        report["verdict"], report["cases"], report["sut"], report["policy"])]
    for c in report["clauses"]:
        if c["status"] == "deviates":
            lines.append("  %s (%s) deviates in %d of %d cases: %s" % (
                c["id"], c["op"], c["deviations"], c["reached"],
                c.get("first_detail", "")[:300]))
        elif c["status"] in ("not reached", "under-tested"):
            lines.append("  %s (%s) %s: reached by %d" % (
                c["id"], c["op"], c["status"], c["reached"]))
    if report.get("not_applicable"):
        lines.append("  not judged (%s): %s" % (
            report.get("not_applicable_reason", ""),
            ", ".join(report["not_applicable"])))
    return "\n".join(lines)
