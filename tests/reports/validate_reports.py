#!/usr/bin/env python3
"""Checks every report an aclnn-conform run wrote under the given folders:
report.xml against the JUnit schema Jenkins' xUnit and GitLab read (tests/schemas/junit-10.xsd,
with xmllint), report.json against docs/report.schema.json (python3-jsonschema), and that every
repro and corpus file a report.json links exists next to it. Exit 0 only if there was at least
one report and all of them pass."""
import json
import pathlib
import subprocess
import sys

import jsonschema

repo = pathlib.Path(__file__).resolve().parents[2]
xsd = repo / "tests" / "schemas" / "junit-10.xsd"
schema = json.loads((repo / "docs" / "report.schema.json").read_text())
validator = jsonschema.Draft202012Validator(schema)

folders = [pathlib.Path(a) for a in sys.argv[1:]]
if not folders:
    sys.exit("usage: validate_reports.py FOLDER...")
problems, xml_count, json_count = [], 0, 0
for folder in folders:
    for xml in sorted(folder.rglob("report.xml")):
        xml_count += 1
        r = subprocess.run(["xmllint", "--noout", "--schema", str(xsd), str(xml)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"{xml}: not valid against junit-10.xsd:\n{r.stderr.strip()}")
    for path in sorted(folder.rglob("report.json")):
        json_count += 1
        report = json.loads(path.read_text())
        for e in validator.iter_errors(report):
            where = "/".join(str(p) for p in e.absolute_path)
            problems.append(f"{path}: /{where}: {e.message}")
        for d in report.get("deviations", []):
            for key in ("repro_file", "corpus_file"):
                link = d.get(key, "")
                if link and not (path.parent / link).is_file():
                    problems.append(f"{path}: {key} '{link}' does not resolve")
if xml_count == 0 or json_count == 0:
    problems.append(f"no reports found under {', '.join(map(str, folders))}")
for p in problems:
    print("FAIL:", p)
print(f"{xml_count} report.xml and {json_count} report.json checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
