# Python's math module and built-ins with Python's semantics: math.* on
# literals folds at compile time (math.sqrt(2) * math.pi is one constant),
# on values it is the VIR op; round(x) is an int rounded half to even
# (rint, then a cast), round(x, n) a float; math.floor/ceil/trunc are ints;
# pow(a, b) is a ** b; min/max take any number of arguments up to 8;
# math.hypot(x, y) scales by the larger magnitude (no overflow of squares).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import math
import vulpy as vp
from math import pi, sqrt as msqrt

def main(a: vp.Buffer[vp.float32], d: vp.Buffer[vp.float64], k: vp.Buffer[vp.int32],
         o: vp.Buffer[vp.float32]):
    i = vp.global_id()
    x = a[i]
    c = math.sqrt(2) * math.pi
    o[i] = msqrt(x) + c + pi + math.e + math.tau
    k[i] = round(x) + math.floor(x) + math.ceil(x) + math.trunc(x) + round(2.5) + round(-3.5)
    o[i] = round(x, 2) + math.atan2(x, 1.0) + math.log(x, 2.0) + math.hypot(x, 1.0)
    d[i] = math.exp(d[i]) + math.fmod(d[i], 3.0) + math.degrees(d[i])
    o[i] = pow(x, 2) + pow(x, 0.5) + math.copysign(x, -1.0) + vp.float32(math.isfinite(x))
    k[i] = abs(k[i]) + min(k[i], 1, 2, 3) + max(1, 2, k[i], 4, 5) + pow(k[i], 3) + round(k[i])
    k[i] = vp.int32(math.floor(d[i]) // 2)

# CHECK-LABEL: kernel @main
# CHECK: %c = const 4.442883 : f32
# CHECK-NEXT: %[[S:[0-9]+]] = sqrt %x : f32
# CHECK-NEXT: add %[[S]], %c : f32
# CHECK: const 3.1415927 : f32
# CHECK: const 2.7182817 : f32
# CHECK: const 6.2831855 : f32
# CHECK: %[[R:[0-9]+]] = rint %x : f32
# CHECK-NEXT: cast %[[R]] : i32
# CHECK: %[[F:[0-9]+]] = floor %x : f32
# CHECK-NEXT: cast %[[F]] : i32
# CHECK: ceil %x : f32
# CHECK: trunc %x : f32
# round(2.5) == 2 and round(-3.5) == -4, half to even, folded:
# CHECK: const 2 : i32
# CHECK: const -4 : i32
# round(x, 2): scaled, rint, scaled back
# CHECK: %[[H:[0-9]+]] = const 100.0 : f32
# CHECK-NEXT: %[[M:[0-9]+]] = mul %x, %[[H]] : f32
# CHECK-NEXT: %[[RR:[0-9]+]] = rint %[[M]] : f32
# CHECK-NEXT: div %[[RR]], %[[H]] : f32
# CHECK: atan2 %x, {{%[0-9]+}} : f32
# CHECK: %[[L1:[0-9]+]] = log %x : f32
# CHECK-NEXT: %[[L2:[0-9]+]] = log {{%[0-9]+}} : f32
# CHECK-NEXT: div %[[L1]], %[[L2]] : f32
# hypot: max * sqrt(1 + (min / max)^2), inf and NaN chosen after
# CHECK: %[[AX:[0-9]+]] = abs %x : f32
# CHECK: %[[HI:[0-9]+]] = max %[[AX]], {{%[0-9]+}} : f32
# CHECK: %[[Q:[0-9]+]] = div {{%[0-9]+}}, {{%[0-9]+}} : f32
# CHECK: mul %[[Q]], %[[Q]] : f32
# CHECK: sqrt {{%[0-9]+}} : f32
# CHECK: isinf %x : bool
# CHECK: exp {{%[0-9]+}} : f64
# CHECK: rem {{%[0-9]+}}, {{%[0-9]+}} : f64
# CHECK: const 57.29577951308232 : f64
# pow(x, 2) is x * x, as x ** 2; pow(x, 0.5) is pow
# CHECK: mul %x, %x : f32
# CHECK: pow %x, {{%[0-9]+}} : f32
# copysign: the sign bit of y on |x|
# CHECK: bitcast %x : u32
# CHECK: isnan %x : bool
# CHECK: isinf %x : bool
# CHECK: abs {{%[0-9]+}} : i32
# CHECK-COUNT-3: min {{.*}} : i32
# CHECK-COUNT-4: max {{.*}} : i32
# math.floor of a float64 is an int64
# CHECK: %[[FD:[0-9]+]] = floor {{%[0-9]+}} : f64
# CHECK-NEXT: cast %[[FD]] : i64
