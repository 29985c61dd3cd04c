#!/usr/bin/env python3
"""One Debian arm64 kernel's static answer, checked (tests/static-arm64.sh).

usage: static_arm64_check.py NAME PKG VERSION IMAGE STATUS CHECK_JSON RECORDING

- `fgraphtop check --kernel IMAGE --json` said not_fixed from the code
  (status 2, method static), about an arm64 Image, with its release;
- every shadow-stack site of its evidence is, in aarch64-linux-gnu-objdump's
  reading of the same bytes (found in the Image by the recording's copy of
  the function), a `bl` to the allocator's address (the recording's symbols),
  with `mov w1, #GFP` and, for a sized allocator, `mov x2, #SIZE` among the
  eight instructions before it, as the answer says.

Prints one line per kernel; exit status 1 on any failure.
"""
import json
import re
import subprocess
import sys


def fail(name, why):
    print(f"static-arm64: {name}: FAIL: {why}")
    sys.exit(1)


def recording(path):
    """func, its parts (addr, bytes) and symbols by name from fgt-static --record."""
    syms, parts, cur = {}, [], None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "sym":
                syms.setdefault(w[3], int(w[1], 16))
            elif w[0] == "part":
                cur = [int(w[1], 16), bytearray()]
                parts.append(cur)
            elif cur is not None and re.fullmatch(r"[0-9a-f]+", w[0]):
                cur[1] += bytes.fromhex(w[0])
    return syms, parts


def disassemble(image, addr, code):
    """objdump's lines {address: (mnemonic, operands)} of code, found in image."""
    with open(image, "rb") as f:
        data = f.read()
    off = data.find(bytes(code))
    if off < 0 or data.find(bytes(code), off + 1) >= 0:
        return None
    vma = addr - off
    out = subprocess.run(
        ["aarch64-linux-gnu-objdump", "-D", "-b", "binary", "-m", "aarch64",
         f"--adjust-vma={vma:#x}", f"--start-address={addr:#x}",
         f"--stop-address={addr + len(code):#x}", image],
        check=True, capture_output=True, text=True).stdout
    insns = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+[0-9a-f]{8}\s+(\S+)\s*(.*)", line)
        if m:
            insns[int(m.group(1), 16)] = (m.group(2), m.group(3))
    return insns


def main():
    name, pkg, ver, image, status, check_json, rec = sys.argv[1:8]
    with open(check_json) as f:
        j = json.load(f)
    st = j.get("static", {})
    if int(status) != 2 or j.get("verdict") != "not_fixed" or j.get("method") != "static":
        fail(name, f"status {status}, verdict {j.get('verdict')}, method {j.get('method')}: "
             f"{j.get('reason')}")
    if not st.get("source", "").startswith("arm64 Image "):
        fail(name, f"read as {st.get('source')!r}, not as an arm64 Image")
    if not st.get("release", "").endswith("-arm64"):
        fail(name, f"release {st.get('release')!r}")
    syms, parts = recording(rec)
    func = st["function"]
    if func not in syms or not parts or parts[0][0] != syms[func]:
        fail(name, f"the recording does not hold {func}")
    insns = disassemble(image, parts[0][0], parts[0][1])
    if not insns:
        fail(name, f"{func}'s bytes are not found once in {image}")
    shadow = [s for s in st["sites"] if s["kind"] == "shadow"]
    if not shadow:
        fail(name, "no shadow-stack site in the answer")
    for s in shadow:
        off = int(s["site"].split("+")[1], 16)
        at = syms[func] + off
        mn, ops = insns.get(at, ("?", ""))
        target = syms.get(s["call"])
        if mn != "bl" or target is None or not re.match(rf"(0x)?{target:x}\b", ops):
            fail(name, f"{s['site']}: objdump shows `{mn} {ops}`, not bl {s['call']}")
        before = [insns.get(at - 4 * k, ("", "")) for k in range(1, 9)]
        want = [("w1", s["gfp_flags"])] + ([("x2", s["size"])] if s.get("size") else [])
        for reg, v in want:
            if not any(m == "mov" and re.match(rf"{reg}, #{v:#x}\b", o) for m, o in before):
                fail(name, f"{s['site']}: no `mov {reg}, #{v:#x}` before the bl")
    print(f"static-arm64: {name}: {pkg} {ver}: not_fixed from the code "
          f"({st['symbols']}; {len(shadow)} shadow-stack site(s) confirmed by objdump: "
          + "; ".join(f"{s['site']} {s['call']} gfp {s['gfp']}"
                      + (f" size {s['size']}" if s.get("size") else "") for s in shadow)
          + f"; walk {st['walk']}, t->ret_stack +{st['ret_stack_off']:#x} "
          f"({st['ret_stack_off_from']}); {st['ms']:.0f} ms)")


main()
