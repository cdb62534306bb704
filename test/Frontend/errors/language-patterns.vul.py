import math
import vulpy as vp

W = (0.25, 0.5, 0.25)
BAD: vp.float32 = (1.0, 2.0)

def pair(x):
    if x > 0.0:
        return x, x
    return x, x, x

def typed(x) -> vp.float32:
    return x, x

def empty():
    return ()

def gen(n):
    yield n

def main(a: vp.Buffer[vp.float32], n: vp.int32):
    i = vp.global_id()
    r1 = round(a[i] > 0.0)
    r2 = round(n, -1)
    p = pow(a[i], 2.0, 3.0)
    m = math
    s = vp.static(range(4))
    for j in vp.static(range(n)):
        pass
    for j in vp.static(range(5000)):
        pass
    for j in vp.static(range(1), range(2)):
        pass
    for j, w in enumerate(W, 1, 2):
        pass
    for j, w in enumerate(W, n):
        pass
    for j in vp.static(a[i]):
        pass
    for W[0] in W:
        pass
    for x, y in W:
        pass
    for w in W:
        break
    u, v = pair(a[i])
    t = typed(a[i])
    e = empty()
    k = W[n]
    q = W[3]
    g = gen(1)
    z = BAD
    l = [a[i], a[i]]
    tt = (a[i], n)
    tt = (n, n)
    g1 = math.gamma(a[i])
    g2 = math.sqrt(a[i] > 0.0)
    g3 = math.atan2(vp.vec2(1.0, 2.0), vp.vec3(1.0, 2.0, 3.0))
    g4 = math.floor(1e300)
    g5 = round(a[i], n)

# Errors of the kernel-language patterns (docs/language.md): Python's round
# and pow, the math module as a value, vp.static outside a for, unrolled
# loops over sequences that are not constants, tuples returned by helpers
# and indexed, and the constructs still outside the language with their
# alternatives (generators, lists).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}language-patterns.vul.py:23:16: error: round() takes a number, not bool
# CHECK: {{.*}}language-patterns.vul.py:24:10: error: round() of an integer to a negative number of digits is not supported
# CHECK: {{.*}}language-patterns.vul.py:25:9: error: pow(a, b, mod) is not supported in kernels
# CHECK: {{.*}}language-patterns.vul.py:26:9: error: the math module is not a value
# CHECK: {{.*}}language-patterns.vul.py:27:9: error: vp.static(...) is only for `for` loops
# CHECK: {{^}}  hint: write for i in vp.static(range(4)): ... to unroll the loop at compile time
# CHECK: {{.*}}language-patterns.vul.py:28:30: error: vp.static(range(...)) needs integer constants for its bounds
# CHECK: {{^}}  hint: a loop with bounds known only at run time is an ordinary for i in range(n)
# CHECK: {{.*}}language-patterns.vul.py:30:24: error: vp.static(range(...)) has 5000 iterations; unrolling stops at 1024
# CHECK: {{^}}  hint: use an ordinary for i in range(n) loop
# CHECK: {{.*}}language-patterns.vul.py:32:14: error: vp.static() takes 1 argument, got 2
# CHECK: {{.*}}language-patterns.vul.py:34:17: error: enumerate() takes a sequence and an optional start, without keywords
# CHECK: {{.*}}language-patterns.vul.py:36:30: error: enumerate()'s start must be an integer constant
# CHECK: {{.*}}language-patterns.vul.py:38:24: error: this is not a sequence known at compile time
# CHECK: {{^}}  hint: unrolled loops run over a tuple, vp.static(range(N)) with constant N, enumerate(...) or zip(...)
# CHECK: {{.*}}language-patterns.vul.py:40:9: error: an unrolled loop's target is a name or a tuple of names
# CHECK: {{.*}}language-patterns.vul.py:42:9: error: cannot unpack a single value into 2 names
# CHECK: {{.*}}language-patterns.vul.py:45:9: error: 'break' in a loop unrolled at compile time
# CHECK: {{^}}  hint: the unrolled copies are not a loop; guard the rest of the body with if
# CHECK: {{.*}}language-patterns.vul.py:10:12: error: this returns 3 values; an earlier return gave 2
# CHECK: {{.*}}language-patterns.vul.py:13:12: error: 'typed' returns f32; this return has a tuple
# CHECK: {{^}}  hint: leave the return type out: a helper returning a tuple takes its types from its first return
# CHECK: {{.*}}language-patterns.vul.py:16:12: error: a returned tuple has 1 to 16 elements, not 0
# CHECK: {{.*}}language-patterns.vul.py:48:9: error: this call returns nothing
# CHECK: {{.*}}language-patterns.vul.py:49:9: error: a tuple is indexed with an integer constant
# CHECK: {{^}}  hint: to loop over a tuple, unroll: for w in W: ... or for j, w in enumerate(W): ...
# CHECK: {{.*}}language-patterns.vul.py:50:9: error: tuple index 3 is out of range for 3 elements
# CHECK: {{.*}}language-patterns.vul.py:19:5: error: generators and coroutines are not supported in kernels
# CHECK: {{^}}  hint: return the values from a helper (a tuple for several: return a, b)
# CHECK: {{.*}}language-patterns.vul.py:51:9: error: this call returns nothing
# CHECK: {{.*}}language-patterns.vul.py:5:6: error: a module-level tuple takes its elements' types; leave out the annotation
# CHECK: {{.*}}language-patterns.vul.py:53:9: error: lists are not supported in kernels (no dynamic memory on the GPU)
# CHECK: {{^}}  hint: use a vector (vp.vec4(...)), a buffer or vp.Shared[T, N]
# CHECK: {{.*}}language-patterns.vul.py:54:5: error: 'tt' holds a tuple here but is assigned elsewhere too
# CHECK: {{^}}  hint: a tuple is bound once, at the top level of the function; or unpack it: a, b = ...
# CHECK: {{.*}}language-patterns.vul.py:56:10: error: math.gamma is not available in kernels
# CHECK: {{^}}  hint: kernels have the math functions VulPy maps to GPU math (sqrt, sin, exp, log, floor, pi, ...); see docs/language.md
# CHECK: {{.*}}language-patterns.vul.py:57:20: error: math.sqrt() takes numbers, not bool
# CHECK: {{.*}}language-patterns.vul.py:58:10: error: math.atan2(): operand types vec2<f32> and vec3<f32> do not match
# CHECK: {{.*}}language-patterns.vul.py:59:10: error: the result 1e+300 is not an integer that fits 64 bits
# CHECK: {{.*}}language-patterns.vul.py:60:22: error: round(x, ndigits): ndigits must be an integer constant from -30 to 30
