# Atomics on buffer and shared elements return the old value: the
# (array, index, value) form and the (element, value) form, struct members,
# compare-exchange, load/store, and atomic_sub as an add of 0 - v.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

class Counter:
    hits: vp.uint32
    total: vp.int32

def main(c: vp.Buffer[vp.uint32], s: vp.Buffer[Counter], f: vp.Buffer[vp.float32]):
    i = vp.global_id()
    local = vp.Shared[vp.uint32, 4]
    old = vp.atomic_add(c, 0, 1)
    vp.atomic_add(c[1], i)
    vp.atomic_min(c, 2, i)
    vp.atomic_max(c, 3, i)
    vp.atomic_and(c, 4, 0xF0)
    vp.atomic_or(c, 5, 1)
    vp.atomic_xor(c, 6, i)
    prev = vp.atomic_exchange(c, 7, i)
    was = vp.atomic_compare_exchange(c, 8, 0, i)
    now = vp.atomic_load(c, 9)
    vp.atomic_store(c, 10, now + 1)
    vp.atomic_sub(s[0].total, 2)
    vp.atomic_add(s[1].hits, 1)
    vp.atomic_add(local, i % 4, 1)
    vp.atomic_add(f, 0, 0.5)
    c[i + 16] = old + prev + was

# CHECK: %[[Z:[0-9]+]] = const 0 : u32
# CHECK-NEXT: %[[ONE:[0-9]+]] = const 1 : u32
# CHECK-NEXT: %old = atomic.add @c[%[[Z]]], %[[ONE]] device relaxed : u32
# CHECK: atomic.add @c[%{{[0-9]+}}], %i device relaxed : u32
# CHECK: atomic.min @c[%{{[0-9]+}}], %i device relaxed : u32
# CHECK: atomic.max @c[%{{[0-9]+}}], %i device relaxed : u32
# CHECK: atomic.and @c
# CHECK: atomic.or @c
# CHECK: atomic.xor @c
# CHECK: %prev = atomic.xchg @c[%{{[0-9]+}}], %i device relaxed : u32
# CHECK: %was = atomic.cmpxchg @c[%{{[0-9]+}}], %{{[0-9]+}}, %i device relaxed : u32
# CHECK: %now = atomic.load @c[%{{[0-9]+}}] device relaxed : u32
# CHECK: atomic.store @c[%{{[0-9]+}}], %{{[0-9]+}} device relaxed
# CHECK: %[[TWO:[0-9]+]] = const 2 : i32
# CHECK: %[[NEG:[0-9]+]] = sub %{{[0-9]+}}, %[[TWO]] : i32
# CHECK-NEXT: atomic.add @s[%{{[0-9]+}}].total, %[[NEG]] device relaxed : i32
# CHECK: atomic.add @s[%{{[0-9]+}}].hits, %{{[0-9]+}} device relaxed : u32
# CHECK: atomic.add @local[%{{[0-9]+}}], %{{[0-9]+}} workgroup relaxed : u32
# CHECK: atomic.add @f[%{{[0-9]+}}], %{{[0-9]+}} device relaxed : f32
