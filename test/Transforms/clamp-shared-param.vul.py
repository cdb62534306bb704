# clamp-shared and a helper's parameter: the bound of a parameter is the
# largest argument of the helper's calls in the module (vir_uint_upper_bound
# given the module). get() is called with `n & 255` and `n & 127` (both in
# range of 256 elements: no clamp), also through near(), which passes its own
# parameter on; far() is called once with a plain `n`, so its get2() index
# is clamped, and so is the index of get2() itself.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - > %t.vir
# RUN: vulpy-opt --clamp-shared %t.vir | vulpy-translate --from=vir --to=glsl - | FileCheck %s
import vulpy as vp

def get(h, i: vp.uint32) -> vp.uint32:
    return h[i]

def near(h, i: vp.uint32) -> vp.uint32:
    return get(h, i)

def get2(h, i: vp.uint32) -> vp.uint32:
    return h[i + vp.uint32(1)]

def far(h, i: vp.uint32) -> vp.uint32:
    return get2(h, i)

def main(out: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    h = vp.Shared[vp.uint32, 256]
    h[n & vp.uint32(255)] = i
    vp.barrier()
    a = get(h, n & vp.uint32(255)) + get(h, n & vp.uint32(127))
    b = near(h, n & vp.uint32(63))
    c = get2(h, n & vp.uint32(15)) + far(h, n)
    out[i] = a + b + c

# CHECK-LABEL: uint get(uint i)
# CHECK: return h[i];
# CHECK-LABEL: uint get2(uint i)
# CHECK: return h[min(i + 1u, 255u)];
