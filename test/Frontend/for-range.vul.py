# for over range(stop), range(start, stop) and range(start, stop, step), with
# negative constant steps; the loop variable takes the bounds' type (int32 for
# literals) and is the for op's induction variable.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    s = vp.var(0.0)
    for k in range(n):
        s += out[k]
    for j in range(2, 10):
        s += vp.float32(j)
    for j in range(10, -1, -2):
        s -= vp.float32(j)
    for m in range(n, 2 * n, 3):
        s += 1.0
    out[i] = s

# CHECK: %[[N:[0-9]+]] = push.load @pc.n : u32
# CHECK-NEXT: %[[Z:[0-9]+]] = const 0 : u32
# CHECK-NEXT: %[[ONE:[0-9]+]] = const 1 : u32
# CHECK-NEXT: for %k = %[[Z]] to %[[N]] step %[[ONE]]
# CHECK: buffer.load @out[%k] : f32
# CHECK: %[[LO:[0-9]+]] = const 2 : i32
# CHECK-NEXT: %[[HI:[0-9]+]] = const 10 : i32
# CHECK-NEXT: %[[ST:[0-9]+]] = const 1 : i32
# CHECK-NEXT: for %j = %[[LO]] to %[[HI]] step %[[ST]]
# CHECK: cast %j : f32
# CHECK: %[[LO2:[0-9]+]] = const 10 : i32
# CHECK-NEXT: %[[HI2:[0-9]+]] = const -1 : i32
# CHECK-NEXT: %[[ST2:[0-9]+]] = const -2 : i32
# CHECK-NEXT: for %j.1 = %[[LO2]] to %[[HI2]] step %[[ST2]]
# CHECK: %[[MLO:[0-9]+]] = push.load @pc.n : u32
# CHECK: %[[MHI:[0-9]+]] = mul %{{[0-9]+}}, %{{[0-9]+}} : u32
# CHECK-NEXT: %[[MST:[0-9]+]] = const 3 : u32
# CHECK-NEXT: for %m = %[[MLO]] to %[[MHI]] step %[[MST]]
