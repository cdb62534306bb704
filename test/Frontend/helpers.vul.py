# Helper functions become VIR funcs: annotated parameters keep their types;
# unannotated ones take the argument's, one specialization per type list
# (sq, sq_1); a buffer argument specializes the helper to that buffer;
# keyword arguments and constant defaults; the return type is annotated or
# inferred from the first return; a helper assigning a parameter copies it to
# a local.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def sq(x):
    return x * x

def lerp(a: vp.float32, b: vp.float32, t: vp.float32 = 0.5) -> vp.float32:
    return a + (b - a) * t

def first(buf, i: vp.uint32):
    return buf[i]

def countdown(n: vp.int32) -> vp.int32:
    s = 0
    while n > 0:
        s += n
        n -= 1
    return s

def touch(buf, i: vp.uint32):
    buf[i] = 0.0

def main(a: vp.Buffer[vp.float32], b: vp.Buffer[vp.float32], k: vp.Buffer[vp.int32]):
    i = vp.global_id()
    x = sq(a[i]) + sq(2.0)
    y = sq(k[i])
    z = lerp(x, 1.0) + lerp(b=2.0, a=x, t=0.25)
    w = first(a, i) + first(b, i)
    k[i] = countdown(y)
    touch(b, i + 1)
    a[i] = z + w

# CHECK-LABEL: kernel @main
# CHECK: %[[A:[0-9]+]] = buffer.load @a[%i] : f32
# CHECK-NEXT: %[[S1:[0-9]+]] = call @sq(%[[A]]) : f32
# CHECK-NEXT: %[[TWO:[0-9]+]] = const 2.0 : f32
# CHECK-NEXT: %[[S2:[0-9]+]] = call @sq(%[[TWO]]) : f32
# CHECK: %y = call @sq_1(%{{[0-9]+}}) : i32
# CHECK: %[[HALF:[0-9]+]] = const 0.5 : f32
# CHECK-NEXT: call @lerp(%x, %{{[0-9]+}}, %[[HALF]]) : f32
# CHECK: call @lerp(%x, %{{[0-9]+}}, %{{[0-9]+}}) : f32
# CHECK: call @first(%i) : f32
# CHECK-NEXT: call @first_1(%i) : f32
# CHECK: call @countdown(%y) : i32
# CHECK: call @touch(%{{[0-9]+}})
# CHECK-LABEL: func @sq(%x: f32) -> f32
# CHECK-NEXT: %[[R:[0-9]+]] = mul %x, %x : f32
# CHECK-NEXT: return %[[R]]
# CHECK-LABEL: func @sq_1(%x: i32) -> i32
# CHECK-LABEL: func @lerp(%a: f32, %b: f32, %t: f32) -> f32
# CHECK-LABEL: func @first(%i: u32) -> f32
# CHECK-NEXT: buffer.load @a[%i] : f32
# CHECK-LABEL: func @first_1(%i: u32) -> f32
# CHECK-NEXT: buffer.load @b[%i] : f32
# CHECK-LABEL: func @countdown(%n: i32) -> i32
# CHECK-NEXT: local @n : i32
# CHECK-NEXT: local @s : i32
# CHECK-NEXT: local.store @n, %n
# CHECK-LABEL: func @touch(%i: u32)
# CHECK-NEXT: const 0.0 : f32
# CHECK-NEXT: buffer.store @b[%i]
# CHECK-NEXT: return
