# Bitwise operators on integers (and &, |, ^ on bools as logic): the shift
# count takes the shifted value's type; ~ on a literal folds as in Python.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(u: vp.Buffer[vp.uint32], s: vp.Buffer[vp.int32]):
    i = vp.global_id()
    x = u[i]
    a = (x & 0xFF) | (x ^ 3)
    b = x << 4
    c = x >> s[i]
    d = ~x
    e = ~5
    m = (x > 3) & (x < 9) | (x == 0) ^ True
    u[i] = a + b + c + d
    s[i] = e + vp.int32(m)

# CHECK: %[[A1:[0-9]+]] = and %x, %{{[0-9]+}} : u32
# CHECK: %[[A2:[0-9]+]] = xor %x, %{{[0-9]+}} : u32
# CHECK-NEXT: %a = or %[[A1]], %[[A2]] : u32
# CHECK: %b = shl %x, %{{[0-9]+}} : u32
# CHECK: %[[S:[0-9]+]] = buffer.load @s[%i] : i32
# CHECK-NEXT: %[[SU:[0-9]+]] = cast %[[S]] : u32
# CHECK-NEXT: %c = shr %x, %[[SU]] : u32
# CHECK-NEXT: %d = not %x : u32
# CHECK-NEXT: %e = const -6 : i32
# CHECK: %[[L:[0-9]+]] = land %{{[0-9]+}}, %{{[0-9]+}} : bool
# CHECK: %[[X:[0-9]+]] = ne %{{[0-9]+}}, %{{[0-9]+}} : bool
# CHECK-NEXT: %m = lor %[[L]], %[[X]] : bool
