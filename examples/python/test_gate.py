"""A CI gate in a few lines: the campaign on a Python module, pass or fail.

Run: pytest examples/python (with aclnn_conform importable). The module under
test is the NumPy implementation in python/tests (numpy_ops.py); point
``sut=`` at your own module ("python:my_package.ops" or a .py file)."""

import os
import sys

import aclnn_conform

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python", "tests"))


def test_numpy_ops_conform(tmp_path):
    report = aclnn_conform.run(sut="python:numpy_ops", cases=2500,
                               tier="smoke", jobs=2, out=tmp_path)
    assert report["verdict"] == "CONFORMANT", aclnn_conform.summary(report)
