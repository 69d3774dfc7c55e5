"""compare(): one output judged by one standard, as the reports judge it.

Standards: "ulp" (VAL-TOL-1 part 2: the ulp bound, 1 ulp fp16/bf16 and
2 ulps fp32 at the exact value, the condition-aware bound for sums), "ascend"
(VAL-TOL-1 part 1: MERE/MARE) and the vendor kits' standards
(reference/kit_standards.hpp, docs/standards.md): standards() lists them.
"""

import numpy as np

from . import _core
from .golden import GoldenOutput, as_raw, dtype_name

__all__ = ["compare", "standards", "Comparison"]


def standards():
    """Every standard: dicts with id, kit, name, needs_reference,
    uses_reference and source."""
    return _core.standards()


class Comparison:
    """A standard's verdict on one output.

    ``verdict`` is "pass", "fail" or "not judged"; ``passed`` is True only
    for "pass" (a standard that could not judge never passes);
    ``measures`` holds the standard's measures, ``rule`` its thresholds for
    the dtype, ``note`` why it could not judge. ``str()`` reads as one
    paragraph, so ``assert r.passed, r`` explains a failure."""

    def __init__(self, d):
        self.standard = d["standard"]
        self.dtype = d["dtype"]
        self.verdict = d["verdict"]
        self.passed = self.verdict == "pass"
        self.judged = self.verdict != "not judged"
        self.rule = d["rule"]
        self.summary = d["summary"]
        self.details = d["details"]
        self.measures = d["measures"]
        self.mismatches = d["mismatch_list"]
        self.note = d["note"]
        self.exact_known = d.get("exact_known", True)

    def __str__(self):
        head = "%s (%s): %s" % (self.standard, self.dtype, self.verdict)
        lines = [head]
        if self.rule:
            lines.append("rule: " + self.rule)
        if self.note:
            lines.append(("not judged: " if not self.judged else "note: ") +
                         self.note)
        if self.details:
            lines.append(self.details.rstrip())
        if not self.exact_known:
            lines.append("(expected was a plain array: its values stand in "
                         "for the exact values)")
        return "\n".join(lines)

    def __repr__(self):
        return "<Comparison %s %s %s>" % (self.standard, self.dtype,
                                          self.verdict)


def _optional(a):
    return None if a is None else np.ascontiguousarray(a)


def compare(actual, expected, dtype=None, standard="ulp", reference=None):
    """Judges ``actual`` (an op's output) against ``expected`` by one
    standard. expected is a GoldenOutput (``golden.xxx(..., full=True)``,
    carrying the exact values the ulp bound and several kit standards are
    measured at) or an array of the value of record (its values then stand
    in for the exact ones). dtype names the output dtype where the arrays
    cannot ("bfloat16" for uint16 bit patterns). reference is another
    device's result on the same inputs, which the cross-device standards
    (ttk-cross_check-*, msprobe-benchmark) need: without one they say
    "not judged". Returns a Comparison."""
    if isinstance(expected, dict) and "outputs" not in expected:
        raise TypeError("expected: a GoldenOutput or an array")
    ids = [s["id"] for s in _core.standards()]
    if standard not in ids:
        raise ValueError("unknown standard %r (one of: %s)" % (
            standard, ", ".join(ids)))
    exact = exact_error = error_scale = term_count = None
    if isinstance(expected, GoldenOutput):
        if not expected.written:
            raise ValueError("%s is not written by the op: nothing to "
                             "compare" % expected.name)
        want = expected.dtype
        record = expected.bits
        exact, exact_error = expected.exact, expected.exact_error
        error_scale, term_count = expected.error_scale, expected.term_count
    else:
        record, want = as_raw(expected, dtype)
    if dtype is not None and dtype_name(dtype) != want:
        raise ValueError("dtype %s, but expected is %s" % (dtype, want))
    got, got_dtype = as_raw(actual, "bfloat16" if want == "bf16" and
                            np.asarray(actual).dtype == np.uint16 else None) \
        if not type(actual).__module__.startswith("torch") \
        else as_raw(actual)
    if got_dtype != want:
        raise ValueError("actual is %s, expected is %s" % (got_dtype, want))
    got = np.ascontiguousarray(got)
    if got.shape != tuple(record.shape):
        raise ValueError("actual has shape %s, expected %s" % (
            got.shape, tuple(record.shape)))
    ref = None
    if reference is not None:
        ref, ref_dtype = as_raw(reference, "bfloat16" if want == "bf16" and
                                not type(reference).__module__.startswith(
                                    "torch") and
                                np.asarray(reference).dtype == np.uint16
                                else None)
        if ref_dtype != want:
            raise ValueError("reference is %s, expected is %s" % (
                ref_dtype, want))
        ref = np.ascontiguousarray(ref)
    d = _core.compare(standard, want, got, np.ascontiguousarray(record),
                      _optional(exact), _optional(exact_error),
                      _optional(error_scale), _optional(term_count), ref)
    d["exact_known"] = exact is not None
    return Comparison(d)
