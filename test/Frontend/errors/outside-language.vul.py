import vulpy as vp

def fact(n: vp.uint32) -> vp.uint32:
    if n == 0:
        return 1
    return n * fact(n - 1)

def gen(x):
    yield x

def gen_from(x):
    yield from (x, x)

async def co(x):
    return x

def main(a: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    s = {1.0, 2.0}
    d = {1: 2.0}
    l = [1.0, 2.0]
    lc = [k for k in range(3)]
    sc = {k for k in range(3)}
    dc = {k: k for k in range(3)}
    g = (k for k in range(3))
    f = lambda x: x
    try:
        a[i] = 1.0
    except Exception:
        pass
    with vp.var(1) as x:
        pass
    global total
    nonlocal count
    raise ValueError("no")
    del i
    a[0] = gen(1.0)
    a[1] = gen_from(1.0)
    a[2] = co(1.0)
    u = fact(n)
    w = await co(1.0)
    async with co(1.0) as z:
        pass
    async for y in co(1.0):
        pass
    match n:
        case 1:
            pass

# Every construct outside the kernel language, each with its message and
# (where there is one) the supported alternative: recursion, try/raise,
# generators and yield / yield from, dynamic containers (set, dict and list
# literals; list, set and dict comprehensions, generator expressions),
# lambda, with, global, nonlocal, del, async def / await / async with /
# async for, match. The frontend reports each and goes on.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}outside-language.vul.py:19:9: error: sets are not supported in kernels (no dynamic memory on the GPU)
# CHECK-NEXT: {{^}}    s = {1.0, 2.0}
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: use a vector (vp.vec4(...)), a buffer or vp.Shared[T, N]
# CHECK-NEXT: {{.*}}outside-language.vul.py:20:9: error: dicts are not supported in kernels (no dynamic memory on the GPU)
# CHECK: {{^}}  hint: use a vector (vp.vec4(...)), a buffer or vp.Shared[T, N]
# CHECK-NEXT: {{.*}}outside-language.vul.py:21:9: error: lists are not supported in kernels (no dynamic memory on the GPU)
# CHECK: {{^}}  hint: use a vector (vp.vec4(...)), a buffer or vp.Shared[T, N]
# CHECK-NEXT: {{.*}}outside-language.vul.py:22:10: error: comprehensions and generators are not supported in kernels
# CHECK: {{^}}  hint: write a for loop over range(...)
# CHECK-NEXT: {{.*}}outside-language.vul.py:23:10: error: comprehensions and generators are not supported in kernels
# CHECK: {{^}}  hint: write a for loop over range(...)
# CHECK-NEXT: {{.*}}outside-language.vul.py:24:10: error: comprehensions and generators are not supported in kernels
# CHECK: {{^}}  hint: write a for loop over range(...)
# CHECK-NEXT: {{.*}}outside-language.vul.py:25:9: error: comprehensions and generators are not supported in kernels
# CHECK: {{^}}  hint: write a for loop over range(...)
# CHECK-NEXT: {{.*}}outside-language.vul.py:26:9: error: lambda is not supported in kernels
# CHECK: {{^}}  hint: define a helper function with def
# CHECK-NEXT: {{.*}}outside-language.vul.py:27:5: error: exceptions (try/raise) are not supported in kernels
# CHECK: {{^}}  hint: check conditions with if; report failures through a buffer
# CHECK-NEXT: {{.*}}outside-language.vul.py:31:5: error: with statements are not supported in kernels
# CHECK: {{.*}}outside-language.vul.py:33:5: error: global and nonlocal variables are not supported in kernels
# CHECK: {{^}}  hint: share data through buffers or shared arrays
# CHECK-NEXT: {{.*}}outside-language.vul.py:34:5: error: global and nonlocal variables are not supported in kernels
# CHECK-NEXT: {{^}}    nonlocal count
# CHECK: {{^}}  hint: share data through buffers or shared arrays
# CHECK-NEXT: {{.*}}outside-language.vul.py:35:5: error: exceptions (try/raise) are not supported in kernels
# CHECK: {{^}}  hint: check conditions with if; report failures through a buffer
# CHECK-NEXT: {{.*}}outside-language.vul.py:36:5: error: del is not supported in kernels
# CHECK: {{.*}}outside-language.vul.py:9:5: error: generators and coroutines are not supported in kernels
# CHECK-NEXT: {{^}}    yield x
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: return the values from a helper (a tuple for several: return a, b)
# CHECK: {{.*}}outside-language.vul.py:12:5: error: generators and coroutines are not supported in kernels
# CHECK-NEXT: {{^}}    yield from (x, x)
# CHECK: {{^}}  hint: return the values from a helper (a tuple for several: return a, b)
# CHECK: {{.*}}outside-language.vul.py:39:12: error: 'co' is an async function; kernels have no coroutines
# CHECK-NEXT: {{^}}    a[2] = co(1.0)
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: define it with def: a helper function
# CHECK-NEXT: {{.*}}outside-language.vul.py:6:16: error: 'fact' calls itself (directly or through other helpers)
# CHECK-NEXT: {{^}}    return n * fact(n - 1)
# CHECK-NEXT: {{^}}               ^
# CHECK-NEXT: {{^}}  hint: recursion is not supported on the GPU; write a loop
# CHECK-NEXT: {{.*}}outside-language.vul.py:41:9: error: generators and coroutines are not supported in kernels
# CHECK-NEXT: {{^}}    w = await co(1.0)
# CHECK: {{.*}}outside-language.vul.py:42:5: error: with statements are not supported in kernels
# CHECK-NEXT: {{^}}    async with co(1.0) as z:
# CHECK: {{.*}}outside-language.vul.py:44:5: error: async for is not supported in kernels
# CHECK: {{.*}}outside-language.vul.py:46:5: error: match statements are not supported in kernels
