#!/usr/bin/env python3
"""Compares two campaign output folders (report.{json,md,html,xml}, repros/, corpus/) with what
legitimately differs between two runs of the same campaign masked: durations and times, absolute
paths, file sizes and SHA-256 sums of the SUT, timestamps. Used to show that a refactoring left a
library's behaviour (and the reports about it) unchanged:

    tools/compare_reports.py OLD_DIR NEW_DIR      # exit 0: the same after masking; 1: a diff

Prints a unified diff of the first differing lines of each file that differs."""
import difflib
import re
import sys
from pathlib import Path

MASKS = [
    # SHA-256 and other long hex digests.
    (re.compile(r"\b[0-9a-f]{64}\b"), "<sha256>"),
    # ISO 8601 timestamps.
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    # Absolute paths (the SUT's file, the output folder).
    (re.compile(r"(?<![\w.])/(?:[\w.+-]+/)+[\w.+-]*"), "<path>"),
    # A size in bytes.
    (re.compile(r"\b\d+ bytes\b"), "<n> bytes"),
    (re.compile(r'("(?:size|sut_size|bytes)"\s*:\s*)\d+'), r"\1<n>"),
    (re.compile(r'(name="sut\.size" value=")\d+'), r"\1<n>"),
    # Durations: JSON fields and prose ("223.1 s", "12 ms").
    (re.compile(r'("(?:\w*seconds|elapsed|elapsed_s|duration|duration_s|time|time_s|wall|ms)"'
                r'\s*:\s*)-?[\d.eE+-]+'), r"\1<t>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|ms|µs|us|seconds|min)\b"), "<t>"),
    (re.compile(r'(time="?)[\d.]+'), r"\1<t>"),
]


def mask(text):
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    return text


def files(root):
    return {p.relative_to(root) for p in root.rglob("*") if p.is_file()}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    fa, fb = files(a), files(b)
    status = 0
    for only, where in ((fa - fb, a), (fb - fa, b)):
        for p in sorted(only):
            print(f"only in {where}: {p}")
            status = 1
    for p in sorted(fa & fb):
        ta = mask((a / p).read_text(encoding="utf-8", errors="replace")).splitlines()
        tb = mask((b / p).read_text(encoding="utf-8", errors="replace")).splitlines()
        if ta != tb:
            status = 1
            diff = list(difflib.unified_diff(ta, tb, str(a / p), str(b / p), n=1, lineterm=""))
            print("\n".join(diff[:40]))
            if len(diff) > 40:
                print(f"... {len(diff) - 40} more diff lines")
    print("same after masking" if status == 0 else "DIFFERENT after masking")
    return status


if __name__ == "__main__":
    sys.exit(main())
