#!/usr/bin/env python3
"""A recording for the static decoder (tests/data/static/README) made from a
relocatable object, kernel/trace/fgraph.o, instead of a linked kernel.

    static-reloc.py FGRAPH.O NAME [RETSTACK [FUNC [CALLER]]]    the recording on stdout

RETSTACK is offsetof(struct task_struct, ret_stack) from the build's BTF
(pahole -C task_struct; 0x890 on the lab's 7.x config), the recording's
"retstack" line; none: the decoder infers it. FUNC (register_ftrace_graph by
default) is the function recorded; CALLER, where FUNC is out of line, the one
whose loop calls it (the recording's "caller" part).

The object is one the kernel's own build compiles (the .cmd file's command
line, on a patched fgraph.c): its code is the code a vmlinux of that config
would hold, but for the addresses. Sections get addresses of their own
(.text at 0xffffffff81000000), every symbol the object leaves undefined an
address of its own in the top 2 GiB (each 64 KiB from the next, so that the
decoder's "up to the next symbol" sizes cover init_task's offsets), and the
relocations of the function (R_X86_64_PLT32, PC32, 32S, 32, 64) are applied:
calls land on the entries of the functions they name, `cmp $init_task+OFF`
on init_task. kallsyms-style types: T for what a call or jump reaches, D for
the rest, the object's own symbols as nm says. x86-64 only.

Used for the shapes of issue 39 (lab/patches/shape-*), so that make check
holds the rule on their code without a lab build.
"""
import re
import struct
import subprocess
import sys

TEXT_BASE = 0xffffffff81000000
SEC_BASE = 0xffffffff82000000
EXT_BASE = 0xffffffff83000000


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def sections(obj):
    """index -> (name, file offset, size)"""
    out = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)",
                         run("readelf", "-SW", obj), re.M):
        out[int(m.group(1))] = (m.group(2), int(m.group(3), 16), int(m.group(4), 16))
    return out


def symbols(obj):
    """(name, section index or 'UND', value, size, type letter)"""
    syms = []
    for line in run("readelf", "-sW", obj).splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(":") or not f[0][:-1].isdigit():
            continue
        value, size, typ, bind, ndx, name = int(f[1], 16), int(f[2], 0), f[3], f[4], f[6], f[7]
        if typ in ("FILE", "SECTION"):
            continue
        syms.append((name, ndx, value, size, typ, bind))
    return syms


def extract(obj, func, syms, secs, base, by_sec_name, addr, kinds):
    """The function's bytes with its relocations applied, and its address."""
    fn = [s for s in syms if s[0] == func and s[1] != "UND"]
    if not fn:
        sys.exit(f"static-reloc: no {func} in {obj}")
    _, ndx, value, size, _, _ = fn[0]
    sname, off, _ = secs[int(ndx)]
    with open(obj, "rb") as f:
        f.seek(off + value)
        code = bytearray(f.read(size))
    start = base[int(ndx)] + value
    # the function's relocations
    rela = run("readelf", "-rW", obj)
    part = re.split(r"\nRelocation section '", rela)
    for p in part:
        if not p.startswith(f".rela{sname}'") and not p.startswith(f"Relocation section '.rela{sname}'"):
            continue
        for line in p.splitlines():
            m = re.match(r"([0-9a-f]+)\s+[0-9a-f]+\s+(R_X86_64_\w+)\s+[0-9a-f]+\s+(\S+)\s*([+-])\s*([0-9a-f]+)", line)
            if not m:
                continue
            r_off, typ, sym, sign, add = int(m.group(1), 16), m.group(2), m.group(3), m.group(4), int(m.group(5), 16)
            if not value <= r_off < value + size:
                continue
            a = add if sign == "+" else -add
            if sym in by_sec_name:
                s = base[by_sec_name[sym]]
            elif sym in addr:
                s = addr[sym]
            else:
                sys.exit(f"static-reloc: relocation against unknown {sym}")
            at = r_off - value
            p_addr = start + at
            if typ in ("R_X86_64_PLT32", "R_X86_64_PC32"):
                v = (s + a - p_addr) & 0xffffffff
                struct.pack_into("<I", code, at, v)
                if typ == "R_X86_64_PLT32" and sym in kinds and kinds[sym] == "D":
                    kinds[sym] = "T"
            elif typ in ("R_X86_64_32S", "R_X86_64_32"):
                struct.pack_into("<I", code, at, (s + a) & 0xffffffff)
            elif typ == "R_X86_64_64":
                struct.pack_into("<Q", code, at, (s + a) & 0xffffffffffffffff)
            else:
                sys.exit(f"static-reloc: relocation type {typ} not handled")
    return start, code


def main():
    obj, rec_name = sys.argv[1], sys.argv[2]
    retstack = int(sys.argv[3], 0) if len(sys.argv) > 3 else 0
    func = sys.argv[4] if len(sys.argv) > 4 else "register_ftrace_graph"
    secs = sections(obj)
    base = {i: (TEXT_BASE if n == ".text" else SEC_BASE + i * 0x100000) for i, (n, _, _) in secs.items()}
    by_sec_name = {n: i for i, (n, _, _) in secs.items()}
    syms = symbols(obj)
    addr = {}
    kinds = {}
    ext = [s for s in syms if s[1] == "UND" and s[0]]
    for k, s in enumerate(sorted({s[0] for s in ext})):
        addr[s] = EXT_BASE + k * 0x10000
        kinds[s] = "D"
    for name, ndx, value, size, typ, bind in syms:
        if ndx == "UND" or not ndx.isdigit():
            continue
        addr.setdefault(name, base[int(ndx)] + value)
        t = "t" if typ == "FUNC" else "d"
        kinds[name] = t.upper() if bind == "GLOBAL" else t
    start, code = extract(obj, func, syms, secs, base, by_sec_name, addr, kinds)
    caller = sys.argv[5] if len(sys.argv) > 5 else None
    if caller:
        cstart, ccode = extract(obj, caller, syms, secs, base, by_sec_name, addr, kinds)
    # a call through PC32 (call thunks, jumps) is text too: any symbol a
    # relocation names from a call or jmp opcode
    print(f"# {rec_name}: made by tests/static-reloc.py from {obj.split('/')[-1]} "
          f"(kernel/trace/fgraph.o of the lab's 7.x config, relocated)")
    print(f"func {func}")
    print("stack cache 0")
    if retstack:
        print(f"retstack {retstack:#x}")
    for name in sorted(addr, key=lambda n: (addr[n], n)):
        if not re.match(r"^[A-Za-z_][\w.]*$", name):
            continue
        print(f"sym {addr[name]:016x} {kinds.get(name, 'D')} {name}")
    print(f"part {start:016x} {len(code)}")
    for i in range(0, len(code), 32):
        print(code[i:i + 32].hex())
    if caller:
        print(f"caller {caller}")
        print(f"part {cstart:016x} {len(ccode)}")
        for i in range(0, len(ccode), 32):
            print(ccode[i:i + 32].hex())


if __name__ == "__main__":
    main()
