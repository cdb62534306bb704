# Every scalar type as a push constant, both spellings (vp.T and bare T),
# Python's int/float as int32/float32, and explicit casts between them.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

class PushConstants:
    a: vp.int8
    b: int16
    c: vp.int32
    d: int64
    e: vp.uint8
    f: uint16
    g: vp.uint32
    h: uint64
    i: vp.float16
    j: float32
    k: vp.float64
    l: int
    m: float

def main(out: vp.Buffer[vp.float64]):
    t = vp.global_id()
    x = vp.float64(pc.a) + vp.float64(pc.h) + pc.k
    y = vp.int32(pc.j)
    z = vp.uint32(2.9)
    w = vp.bool(pc.c)
    u = float(pc.l) * pc.m
    v = vp.float16(pc.i)
    out[t] = x + vp.float64(y + pc.c) + vp.float64(z) + vp.float64(u) + vp.float64(v)

# CHECK: push @pc { a: i8 {{.*}}, b: i16 {{.*}}, c: i32 {{.*}}, d: i64 {{.*}}, e: u8 {{.*}}, f: u16 {{.*}}, g: u32 {{.*}}, h: u64 {{.*}}, i: f16 {{.*}}, j: f32 {{.*}}, k: f64 {{.*}}, l: i32 {{.*}}, m: f32
# CHECK: %[[A:[0-9]+]] = push.load @pc.a : i8
# CHECK-NEXT: %[[AF:[0-9]+]] = cast %[[A]] : f64
# CHECK-NEXT: %[[H:[0-9]+]] = push.load @pc.h : u64
# CHECK-NEXT: %[[HF:[0-9]+]] = cast %[[H]] : f64
# CHECK-NEXT: %[[S:[0-9]+]] = add %[[AF]], %[[HF]] : f64
# CHECK-NEXT: %[[K:[0-9]+]] = push.load @pc.k : f64
# CHECK-NEXT: %x = add %[[S]], %[[K]] : f64
# CHECK-NEXT: %[[J:[0-9]+]] = push.load @pc.j : f32
# CHECK-NEXT: %y = cast %[[J]] : i32
# int(2.9) truncates toward zero, as in Python:
# CHECK-NEXT: %z = const 2 : u32
# bool(x) is x != 0:
# CHECK-NEXT: %[[C:[0-9]+]] = push.load @pc.c : i32
# CHECK-NEXT: %[[Z0:[0-9]+]] = const 0 : i32
# CHECK-NEXT: %w = ne %[[C]], %[[Z0]] : bool
# CHECK-NEXT: %[[L:[0-9]+]] = push.load @pc.l : i32
# CHECK-NEXT: %[[LF:[0-9]+]] = cast %[[L]] : f32
# CHECK-NEXT: %[[M:[0-9]+]] = push.load @pc.m : f32
# CHECK-NEXT: %u = mul %[[LF]], %[[M]] : f32
# vp.float16 of an f16 is the value itself:
# CHECK-NEXT: %v = push.load @pc.i : f16
