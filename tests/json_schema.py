#!/usr/bin/env python3
"""Check fgraphtop JSON lines against docs/fgraphtop.schema.json (schema 1).

    tests/json_schema.py [--schema FILE] FILE...     (JSON lines; "-" for stdin)
    tests/json_schema.py --self-test                 the schema catches each kind of mistake

The schema is JSON Schema draft 2020-12, shipped in the package
(/usr/share/fgraphtop/fgraphtop.schema.json) beside docs/json.md, its words;
it is validated with Debian's python3-jsonschema (lab/host-deps.sh), not
with a checker of our own. Every record must be one object of a documented
type with every documented field, of the documented JSON type and, where the
document lists them, one of the documented values; new fields are allowed
(the schema says they may appear without a bump). The one rule the schema
cannot say is checked here too: an activation has one per_sweep entry per
sweep.

Lines wrapped by the lab's tool-* scenarios ({"type":"fgt","rec":{...}}) are
unwrapped; other lab lines are skipped. Exit 0 when every record conforms,
1 otherwise (each problem on stderr), 2 when no fgraphtop record was found.
"""
import json
import sys
from pathlib import Path

import jsonschema

SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "fgraphtop.schema.json"


def validator(path=SCHEMA):
    schema = json.loads(Path(path).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def check_record(v, r, where):
    """Problems with one fgraphtop record (a list of strings, empty when it conforms)."""
    errs = []
    for e in sorted(v.iter_errors(r), key=lambda e: list(e.absolute_path)):
        # the deepest cause says what is wrong, not "failed the if/then"
        leaf = min(e.context, key=lambda c: -len(c.absolute_path)) if e.context else e
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in leaf.absolute_path)
        errs.append(f"{where}({r.get('type') if isinstance(r, dict) else '?'}){path}: "
                    f"{leaf.message}")
    if isinstance(r, dict) and r.get("type") == "activation" and \
            isinstance(r.get("per_sweep"), list) and isinstance(r.get("sweeps"), int) and \
            len(r["per_sweep"]) != r["sweeps"]:
        errs.append(f"{where}: {len(r['per_sweep'])} per_sweep entries for {r['sweeps']} sweeps")
    return errs


def self_test(v):
    """Each kind of mistake the schema must catch, on records that conform."""
    good = [
        {"schema": 1, "type": "error", "code": "usage", "exit": 64, "message": "x"},
        {"schema": 1, "type": "log", "level": "info", "message": "x"},
    ]
    bad = [
        ("exit with another status's code", dict(good[0], exit=2)),
        ("a documented field missing", {"schema": 1, "type": "log", "level": "info"}),
        ("a value not documented", dict(good[1], level="chatty")),
        ("a type not documented", dict(good[1], type="gossip")),
        ("schema 2", dict(good[1], schema=2)),
        ("a string for an integer", dict(good[0], exit="64")),
        ("an event without its kind's fields",
         {"schema": 1, "type": "event", "event": "task_exit", "src": "direct", "time_s": 1.0,
          "cpu": 0, "pid": 1, "tid": 1, "comm": "x"}),
    ]
    fails = [f"a good record fails: {e}" for r in good for e in check_record(v, r, "good")]
    fails += [f"not caught: {what}" for what, r in bad if not check_record(v, r, what)]
    for f in fails:
        print(f"json_schema self-test: FAIL: {f}", file=sys.stderr)
    if not fails:
        print(f"json_schema self-test: {len(bad)} mistakes caught", file=sys.stderr)
    return 1 if fails else 0


def main(argv):
    schema = SCHEMA
    if argv[:1] == ["--self-test"]:
        return self_test(validator())
    if argv[:1] == ["--schema"]:
        schema, argv = argv[1], argv[2:]
    v = validator(schema)
    n = bad = 0
    for name in argv or ["-"]:
        f = sys.stdin if name == "-" else open(name)
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            where = f"{name}:{i}"
            try:
                r = json.loads(line)
            except ValueError as e:
                print(f"{where}: not JSON: {e}", file=sys.stderr)
                bad += 1
                continue
            if r.get("type") == "fgt" and "rec" in r:
                r = r["rec"]
            elif "schema" not in r:
                continue	# a lab line, not fgraphtop's
            n += 1
            for e in check_record(v, r, where):
                print(e, file=sys.stderr)
                bad += 1
    if n == 0:
        print("json_schema: no fgraphtop records", file=sys.stderr)
        return 2
    print(f"json_schema: {n} records, {bad} problems", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
