"""Breaks a dumped AST the way only a hand-made document could, to test the
frontend's "malformed AST" messages (the dumper never writes these):

    python break_ast.py 'Constant@5:del=kind' 'BinOp@9:set=op={"_type": "Eq"}' < in.json

Each edit names a node by its class and line (the first such node in
document order, or the k-th with CLASS@LINE#k) and deletes a field or sets
one to a JSON value.
"""
import json
import sys


def walk(node):
    yield node
    items = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for v in items:
        yield from walk(v)


doc = json.load(sys.stdin)
for edit in sys.argv[1:]:
    where, action = edit.split(":", 1)
    cls, line = where.split("@")
    line, _, k = line.partition("#")
    hits = [n for n in walk(doc["module"])
            if isinstance(n, dict) and n.get("_type") == cls and n.get("lineno") == int(line)]
    node = hits[int(k or 1) - 1] if len(hits) >= int(k or 1) else None
    if node is None:
        sys.exit(f"break_ast: no {cls} on line {line}")
    verb, arg = action.split("=", 1)
    if verb == "del":
        del node[arg]
    else:
        key, value = arg.split("=", 1)
        node[key] = json.loads(value)
print(json.dumps(doc))
