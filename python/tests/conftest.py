"""pytest set-up: the folder of the test SUT modules on sys.path, and the
CLI these tests compare with (ACLNN_CONFORM_CLI, set by CTest)."""

import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("ACLNN_CONFORM_CLI") or shutil.which("aclnn-conform")
    if not path:
        pytest.skip("aclnn-conform not found (ACLNN_CONFORM_CLI names it)")
    return path
