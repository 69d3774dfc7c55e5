#!/usr/bin/env bash
# The HTML report in a real browser: a short campaign on the broken SUT (deviations, crashes,
# repros, corpus entries) with the built-in library as competitor, then
# check_html_in_browser.py opens its report.html in headless Chromium. The screenshot and the
# probe's findings stay in OUT/browser for people to look at.
# usage: check_browser.sh ACLNN_CONFORM BROKEN_SUT OUT [CHROMIUM]
set -euo pipefail
conform=$1 broken=$2 out=$3 chromium=${4:-chromium}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v "$chromium" >/dev/null; then
  echo "FAIL: $chromium not found: install Debian's chromium (scripts/install-deps.sh)"
  exit 1
fi
rm -rf "$out"
mkdir -p "$out"
status=0
"$conform" run --sut "$broken" --competitor builtin --cases 150 --jobs 2 --seed 3 --tier smoke \
  --case-timeout 3 --out "$out/run" --quiet >"$out/run.log" 2>&1 || status=$?
# The broken SUT deviates: exit 1 is the expected verdict, anything else is a failure of the run.
if [[ $status -ne 1 ]]; then
  echo "FAIL: the campaign exited $status, not 1 (DEVIATIONS)"
  tail -20 "$out/run.log"
  exit 1
fi
python3 "$here/check_html_in_browser.py" "$out/run/report.html" "$out/browser" "$chromium"
# The checker is no rubber stamp: a dangling link and a 2000 px wide block must fail it.
bad="$out/bad"
mkdir -p "$bad"
sed 's|</body>|<a href="#no-such-anchor">x</a><div style="width:2000px">wide</div></body>|' \
  "$out/run/report.html" >"$bad/report.html"
cp -r "$out/run/repros" "$out/run/corpus" "$bad/" 2>/dev/null || true
if python3 "$here/check_html_in_browser.py" "$bad/report.html" "$bad/browser" "$chromium" \
  >"$bad/check.log" 2>&1; then
  echo "FAIL: the browser check passed a page with a dangling link and a 2000 px block"
  exit 1
fi
grep -q "no-such-anchor" "$bad/check.log" && grep -q "wider than 1400 px" "$bad/check.log" || {
  echo "FAIL: the browser check did not name both planted problems:"
  cat "$bad/check.log"
  exit 1
}
echo "planted problems found: $(grep -c '^FAIL' "$bad/check.log")"
