"""The AST JSON dump (bindings/python/vulpy/_astjson.py): node shape,
typed constants, exact floats, locations of decorated functions, options,
and the CLI. Pure Python: runs without the C extension."""
import ast
import json
import math
import os
import subprocess
import sys
import textwrap

import pytest

from vulpy import _astjson

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def walk(node):
    """Every dict node of a dumped tree."""
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from walk(v)


def constants(doc):
    return [n for n in walk(doc["module"]) if n.get("_type") == "Constant"]


def test_header_and_node_shape():
    src = "def main(a):\n    x = a[0] + 1\n"
    doc = _astjson.dump_source(src, "k.vul.py")
    assert doc["_vulpy_ast"] == 1
    assert doc["filename"] == "k.vul.py"
    assert doc["source"] == src
    assert doc["kernel"] is None
    assert doc["options"] == {}
    assert doc["module"]["_type"] == "Module"
    fn = doc["module"]["body"][0]
    assert fn["_type"] == "FunctionDef" and fn["name"] == "main"
    assert (fn["lineno"], fn["col_offset"], fn["end_lineno"]) == (1, 0, 2)
    assign = fn["body"][0]
    assert assign["_type"] == "Assign"
    assert assign["value"]["_type"] == "BinOp"
    assert assign["value"]["op"] == {"_type": "Add"}
    # every expression and statement carries its four location fields
    for n in walk(doc["module"]):
        cls = getattr(ast, n["_type"])
        if issubclass(cls, (ast.expr, ast.stmt)):
            for k in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                assert isinstance(n[k], int), (n["_type"], k)


def test_none_fields_are_left_out():
    doc = _astjson.dump_source("def f():\n    return\n")
    fn = doc["module"]["body"][0]
    assert "returns" not in fn
    assert "value" not in fn["body"][0]
    assert fn["decorator_list"] == []


@pytest.mark.parametrize("text,kind,value", [
    ("1", "int", 1),
    ("-0", "int", 0),
    ("2**70", "int", None),
    ("True", "bool", True),
    ("None", "None", None),
    ("'s'", "str", "s"),
    ("b'x'", "bytes", "x"),
    ("1j", "complex", "1j"),
    ("...", "Ellipsis", None),
])
def test_constant_kinds(text, kind, value):
    doc = _astjson.dump_source(f"x = {text}\n")
    c = constants(doc)[-1]
    assert c["kind"] == kind
    if value is not None:
        assert c["value"] == value


def test_big_ints_are_written_in_full():
    doc = _astjson.dump_source("x = 123456789012345678901234567890\n")
    assert "123456789012345678901234567890" in _astjson.to_json(doc)


@pytest.mark.parametrize("value", [0.1, 1e-310, 5e-324, 1.7976931348623157e308, 2.0 / 3.0,
                                   3.141592653589793, 1e22, 123456789.123456789])
def test_floats_round_trip_exactly(value):
    doc = _astjson.dump_source(f"x = {value!r}\n")
    back = json.loads(_astjson.to_json(doc))
    c = constants(back)[-1]
    assert c["kind"] == "float"
    assert c["value"] == value and type(c["value"]) is float


def test_inf_and_nan_are_strings():
    doc = _astjson.dump_source("x = 1e999\n")
    c = constants(doc)[-1]
    assert c == dict(c, kind="float", value="inf")
    text = _astjson.to_json(doc)
    json.loads(text)  # still strict JSON
    assert "Infinity" not in text and "NaN" not in text
    assert _astjson._constant(float("nan")) == {"kind": "float", "value": "nan"}
    assert _astjson._constant(float("-inf")) == {"kind": "float", "value": "-inf"}


def test_yaml_unsafe_characters_are_escaped():
    src = "x = 1  # caf\u00e9 \u2028 \x7f \x85 \ufeff\n"
    text = _astjson.to_json(_astjson.dump_source(src))
    for ch in "\u2028\x7f\x85\ufeff":
        assert ch not in text
    assert "caf\u00e9" in text  # ordinary non-ASCII stays as UTF-8
    assert json.loads(text)["source"] == src


def test_kernel_and_options():
    doc = _astjson.dump_source("def k():\n    pass\n", kernel="k",
                               options={"local_size_x": 64, "context": object(), "flag": True})
    assert doc["kernel"] == "k"
    assert doc["options"] == {"local_size_x": 64, "flag": True}


def test_dump_file(tmp_path):
    p = tmp_path / "k.vul.py"
    p.write_bytes("\ufeffdef main():\n    pass\n".encode("utf-8"))
    doc = _astjson.dump_file(p)
    assert doc["filename"] == str(p)
    assert doc["source"].startswith("def main")


def test_syntax_error_is_raised():
    with pytest.raises(SyntaxError):
        _astjson.dump_source("def (:\n")


# ---------------------------------------------------------------- decorated

HELPER_SCALE = 3
HELPER_EPS = 0.5


def _helper(x):
    return x * HELPER_SCALE


class _Particle:
    pos: "vec4"
    mass: "float32"


def _decorated_module_text():
    return textwrap.dedent('''
    class Holder:
        @staticmethod
        def kernel(a, p):
            i = 0
            a[i] = _helper(a[i]) + HELPER_EPS
            return _Particle
    ''')


def test_dump_function_keeps_file_lines_and_columns():
    def kernel(a, p):
        i = 0
        a[i] = _helper(a[i]) + HELPER_EPS

    doc = _astjson.dump_function(kernel, {"local_size_x": 32})
    first_line = kernel.__code__.co_firstlineno
    fn = [n for n in doc["module"]["body"] if n.get("name") == "kernel"][0]
    assert fn["lineno"] == first_line
    # the def is indented by 4 in this file: columns are the file's
    assert fn["col_offset"] == 4
    stmt = fn["body"][0]
    assert stmt["lineno"] == first_line + 1 and stmt["col_offset"] == 8
    src_line = doc["source"].splitlines()[stmt["lineno"] - 1]
    assert src_line[stmt["col_offset"]:].startswith("i = 0")
    assert doc["filename"] == os.path.abspath(__file__)
    assert doc["kernel"] == "kernel"
    assert doc["options"] == {"local_size_x": 32}


def test_dump_function_collects_helpers_constants_and_structs():
    def kernel(a: "Buffer", p: "Buffer"):
        a[0] = _helper(a[0]) + HELPER_EPS
        q = _Particle

    doc = _astjson.dump_function(kernel)
    names = [n.get("name") for n in doc["module"]["body"]]
    assert names[-2:] == ["kernel", "_helper"] or names[-2:] == ["_helper", "kernel"]
    assert "_Particle" in names
    # classes come before functions
    assert names.index("_Particle") < names.index("kernel")
    consts = doc["constants"]
    eps = consts["HELPER_EPS"]
    assert {k: v for k, v in eps.items() if k not in _astjson._LOC} == \
        {"_type": "Constant", "value": 0.5, "kind": "float"}
    # located at the module's assignment (diagnostics name the place)
    src_line = open(__file__).read().splitlines()[eps["lineno"] - 1]
    assert src_line[eps["col_offset"]:eps["end_col_offset"]] == "0.5"
    assert src_line.startswith("HELPER_EPS = ")
    # reached through the helper
    assert consts["HELPER_SCALE"]["value"] == 3


def test_dump_function_imports_vulpy_alias():
    import vulpy as gpu  # noqa: F401  (the alias the kernel uses)

    def kernel(a):
        a[gpu.global_id()] = 0

    doc = _astjson.dump_function(kernel)
    imports = [n for n in doc["module"]["body"] if n["_type"] == "Import"]
    assert imports and imports[0]["names"][0] == dict(imports[0]["names"][0], name="vulpy", asname="gpu")


def test_dump_function_explicit_helpers():
    def kernel(a):
        a[0] = other(a[0])  # noqa: F821 - a helper passed to the decorator

    def other(x):
        return x

    doc = _astjson.dump_function(kernel, helpers=[other])
    assert [n.get("name") for n in doc["module"]["body"]][-2:] == ["kernel", "other"]


def test_dump_function_helpers_option():
    def kernel(a):
        a[0] = other2(a[0])  # noqa: F821

    def other2(x):
        return x + 1

    doc = _astjson.dump_function(kernel, {"local_size_x": 8, "helpers": [other2]})
    assert [n.get("name") for n in doc["module"]["body"]][-2:] == ["kernel", "other2"]
    assert doc["options"] == {"local_size_x": 8}


def test_dump_function_rejects_non_functions():
    with pytest.raises(TypeError):
        _astjson.dump_function(len)


# --------------------------------------------------------------------- CLI

def run_cli(*args, stdin=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "bindings", "python")
    return subprocess.run([sys.executable, "-m", "vulpy", *args], capture_output=True, text=True,
                          input=stdin, env=env)


def test_cli_dump_ast(tmp_path):
    p = tmp_path / "k.vul.py"
    p.write_text("def main():\n    pass\n")
    r = run_cli("dump-ast", str(p), "-D", "local_size_x=128", "--kernel", "main")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["options"] == {"local_size_x": 128}
    assert doc["kernel"] == "main"
    out = tmp_path / "k.json"
    r = run_cli("dump-ast", str(p), "-o", str(out))
    assert r.returncode == 0 and json.loads(out.read_text())["filename"] == str(p)


def test_cli_stdin_and_errors(tmp_path):
    r = run_cli("dump-ast", "-", stdin="x = 1\n")
    assert r.returncode == 0 and json.loads(r.stdout)["filename"] == "<stdin>"
    bad = tmp_path / "bad.vul.py"
    bad.write_text("def main(:\n")
    r = run_cli("dump-ast", str(bad))
    assert r.returncode == 1
    assert r.stderr.startswith(f"{bad}:1:10: error: ")
    r = run_cli("dump-ast", str(tmp_path / "missing.vul.py"))
    assert r.returncode == 1 and "cannot read" in r.stderr


def test_cli_without_subcommand_prints_help():
    r = run_cli()
    assert r.returncode == 2 and "dump-ast" in r.stdout


def test_import_needs_no_extension():
    # importing vulpy must not pull in a compiled module
    r = subprocess.run([sys.executable, "-c",
                        "import sys, vulpy; print(any(m.startswith('vulpy._vulpy') for m in sys.modules))"],
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python")))
    assert r.stdout.strip() == "False", r.stderr
