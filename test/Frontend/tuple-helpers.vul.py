# Tuples: a helper's `return a, b` packs the values into a struct made for
# it (struct @_vp_ret_NAME { _0, _1 }, one construct), the call site
# unpacks it with extracts; `a, b = b, a` swaps; a name bound once to a
# tuple holds it (t[k] picks an element with a constant k); nested tuples
# nest the structs.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def split(x):
    hi = vp.floor(x)
    return hi, x - hi

def minmax(a, b):
    if a < b:
        return a, (b, 1)
    return b, (a, 0)

def main(a: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32], k: vp.Buffer[vp.int32]):
    i = vp.global_id()
    u, v = split(a[i])
    t = split(a[i] * 2.0)
    lo, (hi, flag) = minmax(u, v)
    p = vp.var(u)
    q = vp.var(v)
    p, q = q, p
    o[i] = u + v + t[0] + t[-1] + lo + hi + p - q
    k[i] = flag + len(t)

# CHECK: struct @_vp_ret_split { _0: f32 {{[^,]*}}, _1: f32
# CHECK: struct @_vp_ret_minmax_1 { _0: f32 {{[^,]*}}, _1: i32
# CHECK: struct @_vp_ret_minmax { _0: f32 {{[^,]*}}, _1: @_vp_ret_minmax_1
# CHECK-LABEL: kernel @main
# CHECK: %[[R:[0-9]+]] = call @split(%{{[0-9]+}}) : @_vp_ret_split
# CHECK-NEXT: %u = extract %[[R]][0] : f32
# CHECK-NEXT: %v = extract %[[R]][1] : f32
# CHECK: %[[T:[0-9]+]] = call @split(%{{[0-9]+}}) : @_vp_ret_split
# CHECK-NEXT: %[[T0:[0-9]+]] = extract %[[T]][0] : f32
# CHECK-NEXT: %[[T1:[0-9]+]] = extract %[[T]][1] : f32
# CHECK: %[[M:[0-9]+]] = call @minmax(%u, %v) : @_vp_ret_minmax
# CHECK-NEXT: %lo = extract %[[M]][0] : f32
# CHECK-NEXT: %[[IN:[0-9]+]] = extract %[[M]][1] : @_vp_ret_minmax_1
# CHECK-NEXT: %hi = extract %[[IN]][0] : f32
# CHECK-NEXT: %flag = extract %[[IN]][1] : i32
# CHECK: local.store @p, %{{[0-9]+}}
# CHECK: add {{.*}}, %[[T0]] : f32
# CHECK-NEXT: add {{.*}}, %[[T1]] : f32
# len(t) is the constant 2
# CHECK: %[[TWO:[0-9]+]] = const 2 : i32
# CHECK-NEXT: add %flag, %[[TWO]] : i32
# CHECK-LABEL: func @split(%x: f32) -> @_vp_ret_split
# CHECK: %[[C:[0-9]+]] = construct %hi, %{{[0-9]+}} : @_vp_ret_split
# CHECK-NEXT: return %[[C]]
# CHECK-LABEL: func @minmax(%a: f32, %b: f32) -> @_vp_ret_minmax
# CHECK: %[[IN1:[0-9]+]] = construct %b, %{{[0-9]+}} : @_vp_ret_minmax_1
# CHECK-NEXT: construct %a, %[[IN1]] : @_vp_ret_minmax
