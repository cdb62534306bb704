# Loops unrolled at compile time: over a module-level tuple (W), with
# enumerate and zip, over vp.static(range(N)) and reversed(...): the body is
# translated once per item with the loop variable a constant, so the
# weights fold into each copy. A return in the body works as anywhere.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

W = (0.25, 0.5, 0.25)
OFF = (-1, 0, 1)

def main(a: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32], n: vp.int32):
    i = vp.int32(vp.global_id())
    acc = vp.var(0.0)
    for j, w in enumerate(W):
        acc += w * a[i + j]
    for w, d in zip(W, OFF):
        acc += w * a[i + d]
    for k in vp.static(range(1, 7, 2)):
        acc += vp.float32(k)
    for k in reversed(OFF):
        if i == k:
            return
    o[i] = acc

# CHECK-LABEL: kernel @main
# CHECK: %[[Z:[0-9]+]] = const 0 : i32
# CHECK-NEXT: %[[I0:[0-9]+]] = add %i, %[[Z]] : i32
# CHECK-NEXT: %[[A0:[0-9]+]] = buffer.load @a[%[[I0]]] : f32
# CHECK-NEXT: %[[W0:[0-9]+]] = const 0.25 : f32
# CHECK-NEXT: mul %[[W0]], %[[A0]] : f32
# CHECK: const 1 : i32
# CHECK: const 0.5 : f32
# CHECK: const 2 : i32
# CHECK: const 0.25 : f32
# zip: the offsets -1, 0, 1 with the weights
# CHECK: const -1 : i32
# CHECK: const 0.25 : f32
# CHECK: const 0 : i32
# CHECK: const 0.5 : f32
# CHECK: const 1 : i32
# CHECK: const 0.25 : f32
# vp.static(range(1, 7, 2)): 1, 3, 5, each folded to a float
# CHECK: const 1.0 : f32
# CHECK: const 3.0 : f32
# CHECK: const 5.0 : f32
# CHECK-NOT: for
# reversed: 1, 0, -1
# CHECK: %[[R0:[0-9]+]] = const 1 : i32
# CHECK-NEXT: eq %i, %[[R0]] : bool
# CHECK: const 0 : i32
# CHECK: %[[R2:[0-9]+]] = const -1 : i32
# CHECK-NEXT: eq %i, %[[R2]] : bool
# CHECK-NEXT: if
# CHECK-NEXT: return
