import vulpy as vp

C = 0.75
I = 5


@vp.kernel
def neg(out: vp.Buffer[vp.float32], iout: vp.Buffer[vp.int32], x: vp.float32):
    out[0] = vp.fma(x, 2.0, -C)
    out[1] = -C
    out[2] = -(-C)
    iout[0] = -I
    iout[1] = ~I
    iout[2] = +I

# A module constant without a type is used as a literal, by name: -C and ~I
# fold to new literals, not to C and I by name (the sign was lost:
# fma(pc.x, 2.0, C), out_[1] = C, iout[0] = I).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl - | FileCheck %s
# CHECK-LABEL: void main()
# CHECK: out_[0u] = fma(pc.x, 2.0, -0.75);
# CHECK: out_[1u] = -0.75;
# CHECK: out_[2u] = 0.75;
# CHECK: iout[0u] = -5;
# CHECK: iout[1u] = -6;
# CHECK: iout[2u] = I;
