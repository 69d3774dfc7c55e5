#!/usr/bin/env python3
"""Opens an aclnn-conform report.html in headless Chromium and checks what a reader relies on:

- the page itself carries no <script> and Chromium logs no console or script error loading it;
- every internal link (href="#id") has its target, and every relative link (repro, corpus
  entry) names a file next to the report; no link leaves the file system (no network);
- laid out at 1400 px wide, nothing is wider than the window (no horizontal scrolling);
- a screenshot of the top of the page (summary, grid, contents) is kept in OUTDIR.

The layout and link checks run in Chromium on a copy of the page with a probe script appended
(the report itself stays script-free); the probe writes its findings into the DOM, which
--dump-dom prints. usage: check_html_in_browser.py REPORT.html OUTDIR [CHROMIUM]"""
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

report = pathlib.Path(sys.argv[1]).resolve()
outdir = pathlib.Path(sys.argv[2]).resolve()
chromium = sys.argv[3] if len(sys.argv) > 3 else (shutil.which("chromium") or "chromium")
outdir.mkdir(parents=True, exist_ok=True)
problems = []

# Chromium refuses to run as root without --no-sandbox; a throwaway profile keeps runs apart.
profile = tempfile.mkdtemp(prefix="aclnn-chromium-")
base = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-extensions", "--disable-background-networking", "--disable-sync",
        "--user-data-dir=" + profile, "--window-size=1400,2400", "--hide-scrollbars"]


def run(args, timeout=120):
    return subprocess.run(base + args, capture_output=True, text=True, timeout=timeout)


# 1. The page as written: no scripts, only local links.
text = report.read_text(encoding="utf-8")


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.hrefs, self.scripts, self.srcs = set(), [], 0, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "script":
            self.scripts += 1
        if "href" in a:
            self.hrefs.append(a["href"])
        if "src" in a:
            self.srcs.append(a["src"])


page = Links()
page.feed(text)
if page.scripts:
    problems.append(f"{page.scripts} <script> elements in the report")
if page.srcs:
    problems.append(f"external resources: {page.srcs[:5]}")
internal = [h[1:] for h in page.hrefs if h.startswith("#")]
files = [h for h in page.hrefs if not h.startswith("#")]
for h in files:
    if re.match(r"^[a-z][a-z0-9+.-]*:", h, re.I) or h.startswith("//"):
        problems.append(f"link leaves the file: {h}")
    elif not (report.parent / h).is_file():
        problems.append(f"relative link does not resolve: {h}")

# 2. Chromium loads it without console or script errors.
load = run(["--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", "--dump-dom",
            report.as_uri()])
if load.returncode != 0:
    problems.append(f"chromium failed ({load.returncode}): {load.stderr[-2000:]}")
console = [l for l in load.stderr.splitlines()
           if "CONSOLE" in l or "Uncaught" in l or "SyntaxError" in l]
if console:
    problems.append("console messages while loading: " + " | ".join(console[:5]))
if "<body" not in load.stdout:
    problems.append("chromium produced no DOM")

# 3. Layout and links as Chromium sees them, through a probe on a copy.
probe = """<script>
addEventListener('load', () => {
  const r = {width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,
             missing: [], links: 0, details: document.querySelectorAll('details').length, svgs: 0};
  for (const a of document.querySelectorAll('a[href^="#"]')) {
    r.links++;
    const id = decodeURIComponent(a.getAttribute('href').slice(1));
    if (!document.getElementById(id)) r.missing.push(id);
  }
  for (const s of document.querySelectorAll('svg')) if (s.getBBox().width > 0) r.svgs++;
  // What sticks out, to say where a too-wide page comes from.
  r.wide = [];
  for (const e of document.body.querySelectorAll('*')) {
    const b = e.getBoundingClientRect();
    if (b.right > 1400 && r.wide.length < 5 && !(e.parentElement && e.parentElement.getBoundingClientRect().right > 1400))
      r.wide.push(e.tagName + '#' + (e.id || '') + '.' + e.className.toString().slice(0, 20) + ' ' + Math.round(b.right));
  }
  const pre = document.createElement('pre');
  pre.id = 'probe-result';
  pre.textContent = 'PROBE' + JSON.stringify(r) + 'PROBE';
  document.body.appendChild(pre);
});
</script>"""
copy = report.parent / (report.stem + ".probe.html")
copy.write_text(text.replace("</body>", probe + "</body>"), encoding="utf-8")
try:
    dom = run(["--virtual-time-budget=5000", "--dump-dom", copy.as_uri()])
finally:
    copy.unlink()
m = re.search(r"PROBE(\{.*?\})PROBE", dom.stdout)
if not m:
    problems.append("the probe did not report (page did not finish loading?)")
    probe_result = {}
else:
    probe_result = json.loads(m.group(1))
    if probe_result["width"] > 1400:
        problems.append(f"wider than 1400 px: {probe_result['width']} px ({probe_result['wide']})")
    if probe_result["missing"]:
        problems.append(f"internal links without a target: {probe_result['missing'][:10]}")
    if probe_result["links"] != len(internal):
        problems.append(f"Chromium saw {probe_result['links']} internal links, the HTML has "
                        f"{len(internal)}")

# 4. A screenshot of the top of the page, kept for people.
shot = outdir / "report-top.png"
if shot.exists():
    shot.unlink()
snap = run(["--screenshot=" + str(shot), report.as_uri()])
if not shot.is_file() or shot.stat().st_size < 10000:
    problems.append(f"no screenshot written: {snap.stderr[-1000:]}")

shutil.rmtree(profile, ignore_errors=True)
summary = dict(probe_result, internal_links=len(internal), file_links=len(files),
               screenshot=str(shot))
(outdir / "browser-check.json").write_text(json.dumps(summary, indent=1) + "\n")
for p in problems:
    print("FAIL:", p)
print(f"{report}: {len(internal)} internal and {len(files)} file links, "
      f"{probe_result.get('width', '?')} x {probe_result.get('height', '?')} px at 1400 px, "
      f"{len(problems)} problems; screenshot {shot}")
sys.exit(1 if problems else 0)
