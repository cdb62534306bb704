import vulpy as vp

class P:
    x: vp.float32

def helper(v: vp.float32) -> vp.float32:
    return v

def main(a: vp.Buffer[vp.float32], b: vp.Buffer[P], n: vp.int32):
    i = vp.global_id()
    x = 1
    y = 2.0
    c = n < 2
    d = n > 0 and n < 5
    e = n
    f = b[i].x
    g: vp.int32 = 3
    h = n + 1
    k = n
    a[i] = helper(y)

# Malformed AST documents: what the dumper never writes but a hand-made or
# damaged document can hold. Each is reported at its Python line:col, several
# in one run, and nothing crashes.
# RUN: %dump-ast %s | %python %S/../Inputs/break_ast.py 'Constant@11:del=kind' \
# RUN:   'Constant@12:set=value="huge"' 'Compare@13:set=comparators=[]' \
# RUN:   'BoolOp@14:set=values=[]' 'Name@15#2:del=id' 'Attribute@16:del=attr' \
# RUN:   'Name@17:del=id' 'BinOp@18:set=op={"_type": "Eq"}' 'Name@19:del=id' \
# RUN:   | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# A parameter, a struct field and expressions that are not what they must be
# (a number, a class the frontend does not know):
# RUN: %dump-ast %s | %python %S/../Inputs/break_ast.py 'arg@6:del=arg' 'Name@4:del=id' \
# RUN:   'Assign@11:set=value=5' \
# RUN:   'Assign@12:set=value={"_type": "Frobnicate", "lineno": 12, "col_offset": 8}' \
# RUN:   | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=DEF
# CHECK: {{.*}}malformed-ast.vul.py:11:9: error: malformed AST: a Constant without "kind"
# CHECK: {{.*}}malformed-ast.vul.py:12:9: error: malformed AST: float constant out of range
# CHECK: {{.*}}malformed-ast.vul.py:13:9: error: malformed AST: Compare
# CHECK: {{.*}}malformed-ast.vul.py:14:9: error: malformed AST: BoolOp
# CHECK: {{.*}}malformed-ast.vul.py:15:9: error: malformed AST: Name without id
# CHECK: {{.*}}malformed-ast.vul.py:16:9: error: malformed AST: Attribute
# CHECK: {{.*}}malformed-ast.vul.py:17:5: error: malformed AST: a name without its id
# CHECK: {{.*}}malformed-ast.vul.py:18:9: error: this operator is not supported
# CHECK: {{.*}}malformed-ast.vul.py:19:5: error: malformed AST: a name without its id
# CHECK-NOT: error:
# The expression without a place is reported at its statement; the helper's
# parameter once, not again by the check of unused helpers.
# DEF: {{.*}}malformed-ast.vul.py:4:5: error: malformed AST: a field without a name
# DEF: {{.*}}malformed-ast.vul.py:11:5: error: malformed AST: expected an expression
# DEF: {{.*}}malformed-ast.vul.py:12:9: error: Frobnicate expressions are not supported in kernels
# DEF: {{.*}}malformed-ast.vul.py:6:1: error: malformed AST: a parameter of 'helper' has no name
# DEF-NOT: error:
