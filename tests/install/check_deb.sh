#!/usr/bin/env bash
# `cpack -G DEB` builds one Debian package (library, headers, CLI, CMake package); dpkg installs it
# into a scratch root (--root, --force-depends: its dependencies are the system's), and the
# installed CLI, library and CMake package are used from there.
set -uo pipefail
build=$1 consumer_src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" > cpack.log 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$work"/aclnn-conform_*.deb 2> /dev/null | head -1)
[ -n "$deb" ] || fail "no .deb written"
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/aclnn-conform ./usr/lib/libaclnn_cpu.so.0 ./usr/include/aclnn/acl_meta.h \
  ./usr/lib/cmake/aclnn_conform/aclnn_conformConfig.cmake \
  ./usr/lib/cmake/aclnn_conform/AclnnConformance.cmake; do
  grep -q " $f" <<< "$contents" || fail "$f is not in the package"
done
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libmpfr libhwy libstdc++; do
  grep -q "$lib" <<< "$depends" || fail "Depends ($depends) lacks $lib"
done

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" && touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root --force-script-chrootless -i "$deb" \
  > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --root -i"; }
status=$(dpkg --root="$root" -s aclnn-conform)
grep -q "Status: install ok installed" <<< "$status" ||
  fail "dpkg does not list the package as installed in the scratch root"

cli=$root/usr/bin/aclnn-conform
"$cli" list ops > "$work/ops.txt" 2>&1 || fail "the installed CLI does not run"
grep -q GeluBackward "$work/ops.txt" || fail "the installed CLI lists no GeluBackward"
"$cli" run --sut "$root/usr/lib/libaclnn_cpu.so.0" --cases 200 --tier smoke --jobs 2 --quiet \
  --out "$work/campaign" > "$work/campaign.log" 2>&1 ||
  { cat "$work/campaign.log"; fail "a campaign of the installed library"; }
grep -q '"conformant": true' "$work/campaign/report.json" || fail "the installed library deviates"

# The C consumer of tests/install/consumer, against the package's CMake config.
cmake -S "$consumer_src" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" \
  > "$work/consumer.log" 2>&1 && cmake --build "$work/consumer" >> "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; fail "the consumer project does not build against the package"; }
LD_LIBRARY_PATH="$root/usr/lib" "$work/consumer/consumer" > "$work/consumer.out" 2>&1 ||
  { cat "$work/consumer.out"; fail "the consumer does not run"; }
# (ldd's output is captured first: `ldd | grep -q` fails at random under pipefail, by SIGPIPE.)
linked=$(ldd "$work/consumer/consumer")
grep -q "$root/usr/lib/libaclnn_cpu.so" <<< "$linked" ||
  fail "the consumer did not link the package's library: $linked"
echo "$(basename "$deb"): $(wc -l <<< "$contents") entries, Depends: $depends; used from $root"
