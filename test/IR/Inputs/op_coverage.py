"""Fails unless every op in ops.def appears in a round-trip test.

usage: op_coverage.py OPS_DEF TEST_DIR [DOC]
An op counts as covered when some test/IR/roundtrip-*.vir uses it as an op
(after `=` or at the start of a line), outside comments. With DOC (the VIR
reference, docs/ir.md), every op must also have a row in its op table.
"""
import re
import sys
from pathlib import Path

ops = re.findall(r'^VIR_OP\(\w+,\s*"([^"]+)"', Path(sys.argv[1]).read_text(), re.M)
used = set()
for path in Path(sys.argv[2]).glob("roundtrip-*.vir"):
    for line in path.read_text().splitlines():
        line = line.split("//")[0]
        m = re.match(r'\s*(?:%[\w.$\u0080-\uffff]+\s*=\s*)?([a-z_][\w.]*)', line)
        if m:
            used.add(m.group(1))
missing = [op for op in ops if op not in used]
print(f"{len(ops)} ops, {len(ops) - len(missing)} covered by round-trip tests")
if missing:
    print("not covered:", " ".join(missing))
    sys.exit(1)
if len(sys.argv) > 3:
    doc = Path(sys.argv[3]).read_text()
    undocumented = [op for op in ops if f"| `{op}` |" not in doc]
    print(f"{len(ops) - len(undocumented)} ops documented in {Path(sys.argv[3]).name}")
    if undocumented:
        print("not documented:", " ".join(undocumented))
        sys.exit(1)
