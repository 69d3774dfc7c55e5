"""aclnn_conform: the aclnn-conform framework from Python (docs/python.md).

- ``aclnn_conform.golden``: exact goldens of the five backward ops, bit for
  bit ``aclnn-conform golden``'s (gelu_backward, selu_backward,
  layer_norm_backward, logit_grad, grouped_bias_add_grad).
- ``compare(actual, expected, dtype=, standard=, reference=)``: one output
  judged by the ulp bound, Ascend MERE/MARE or a vendor kit's standard;
  ``standards()`` lists them.
- ``run(sut=, budget=, ...)``: a conformance campaign, report.json as a dict;
  ``sut="python:MODULE"`` tests a Python module that defines the ops
  (aclnn_conform.sut: the calling convention, Rejected).
"""

from . import _core
from . import bf16, golden, sut
from .campaign import SUT_FUNCTIONS, run, summary
from .golden import SpecRejection
from .standards import Comparison, compare, standards
from .sut import Rejected

__version__ = _core.version()

__all__ = [
    "golden", "compare", "standards", "Comparison", "run", "summary",
    "SpecRejection", "Rejected", "sut", "bf16", "ops", "variants",
    "SUT_FUNCTIONS", "policies",
]


def ops():
    """The ops of the registry: dicts with name, abi_name, outputs,
    clauses and variants."""
    return _core.ops()


def variants(op=None):
    """The specification's variants {op: [names]} (``aclnn-conform list
    variants``), or one op's list."""
    table = {o["name"]: list(o["variants"]) for o in _core.ops()}
    return table[op] if op is not None else table


def policies():
    """The names run(policy=...) takes: ulp, ascend and the kit standards."""
    return list(_core.policy_names())
