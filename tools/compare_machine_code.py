#!/usr/bin/env python3
"""Compares the machine code of two builds of a shared library, function by function, to show that
a change left the kernels' code as it was (or where it did not):

    tools/compare_machine_code.py OLD.so NEW.so 'N_AVX3::|N_AVX2::'        # every matching function
    NDIFF=80 tools/compare_machine_code.py OLD.so NEW.so PATTERN NAME      # and NAME's first diff lines

Functions (nm -C, text symbols whose demangled name matches PATTERN) are paired by their name
without namespaces (aclnn_cpu::, simd::, rowview::, gbag::, anonymous) and parameter list;
instructions are compared after objdump, with addresses, RIP-relative offsets and symbol names
dropped. Prints "identical"/"DIFFERENT" counts; names found in one build only are listed."""
import re, subprocess, sys, collections

def funcs(lib):
    out = subprocess.run(['nm', '-C', '--defined-only', '-S', lib], capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split(' ', 3)
        if len(parts) < 4 or parts[2].lower() != 't':
            continue
        addr, size, _, name = parts
        syms[name] = (int(addr, 16), int(size, 16))
    return syms

def key(name):
    # drop the parameter list (the last top-level parenthesis group) and namespaces
    depth = 0; cut = len(name)
    for i in range(len(name) - 1, -1, -1):
        c = name[i]
        if c == ')': depth += 1
        elif c == '(':
            depth -= 1
            if depth == 0:
                cut = i; break
    base = name[:cut]
    base = re.sub(r'aclnn_cpu::', '', base)
    base = re.sub(r'simd::', '', base)
    base = re.sub(r'\(anonymous namespace\)::', '', base)
    base = re.sub(r'rowview::', '', base)
    base = re.sub(r'gbag::', '', base)
    return base

def disasm(lib, addr, size):
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', f'--start-address={addr}',
                          f'--stop-address={addr+size}', lib], capture_output=True, text=True).stdout
    ins = []
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\s+(.*)', line)
        if not m: continue
        t = m.group(2)
        t = re.sub(r'<[^>]*>', '', t)
        t = re.sub(r'-?0x[0-9a-f]+\(%rip\)', 'RIP', t)
        t = re.sub(r'^(j\w+|call\w*)\s+[0-9a-f]+', r'\1 ADDR', t)
        t = re.sub(r'\b[0-9a-f]{4,}\b', 'ADDR', t)
        t = re.sub(r'#.*', '', t).strip()
        ins.append(t)
    return ins

a, b, pattern = sys.argv[1], sys.argv[2], sys.argv[3]
fa, fb = funcs(a), funcs(b)
ka = collections.defaultdict(list); kb = collections.defaultdict(list)
for n, v in fa.items():
    if re.search(pattern, n): ka[key(n)].append((n, v))
for n, v in fb.items():
    if re.search(pattern, n): kb[key(n)].append((n, v))
same = diff = 0
for k in sorted(set(ka) | set(kb)):
    if k not in ka or k not in kb:
        print(('only before: ' if k in ka else 'only after: ') + k[:150]); continue
    if len(ka[k]) != 1 or len(kb[k]) != 1:
        da = sorted(tuple(disasm(a, *v)) for _, v in ka[k]); db = sorted(tuple(disasm(b, *v)) for _, v in kb[k])
        if da == db: same += 1
        else:
            diff += 1; print(f'DIFFERENT (one of {len(ka[k])}/{len(kb[k])}): {k[:150]}')
        continue
    ia = disasm(a, *ka[k][0][1]); ib = disasm(b, *kb[k][0][1])
    if ia == ib: same += 1
    else:
        diff += 1
        print(f'DIFFERENT ({len(ia)} vs {len(ib)} instructions): {k[:150]}')
print(f'{same} identical, {diff} different')

if len(sys.argv) > 4:
    import difflib
    want = sys.argv[4]
    for k in ka:
        if want in k and k in kb and len(ka[k]) == 1 and len(kb[k]) == 1:
            ia = disasm(a, *ka[k][0][1]); ib = disasm(b, *kb[k][0][1])
            d = list(difflib.unified_diff(ia, ib, lineterm='', n=0))
            print(k[:120]); print("\n".join(d[:int(__import__("os").environ.get("NDIFF","60"))])); break
