# Buffers of int8 / uint8 / int16 / uint16 / float16 (issue 19): the
# kernel's arithmetic is at the type's own width (GLSL's explicit
# arithmetic types; wrapping as NumPy's), converted to 32 bits by an
# explicit cast; the buffers need 8/16-bit storage, the values int8 /
# int16 / float16 (docs/language.md, "Small types").
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl --no-dispatch-guard - | FileCheck %s --check-prefix=GLSL
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=spirv --no-dispatch-guard - -o %t.spv
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=cuda --no-dispatch-guard - | FileCheck %s --check-prefix=CUDA
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=hip --no-dispatch-guard - | FileCheck %s --check-prefix=CUDA
import vulpy as vp


@vp.kernel
def small(a: vp.Buffer[vp.int8], b: vp.Buffer[vp.uint8], c: vp.Buffer[vp.int16],
          d: vp.Buffer[vp.uint16], h: vp.Buffer[vp.float16], o: vp.Buffer[vp.int32]):
    i = vp.global_id().x
    a[i] = a[i] + vp.int8(100)
    b[i] = b[i] * vp.uint8(3)
    c[i] = c[i] - vp.int16(1)
    d[i] = d[i] + vp.uint16(1)
    h[i] = h[i] * vp.float16(2.0)
    o[i] = vp.int32(a[i]) + vp.int32(h[i])

# CHECK: buffer @a : i8[] binding(0, 0)
# CHECK: buffer @b : u8[]
# CHECK: buffer @c : i16[]
# CHECK: buffer @d : u16[]
# CHECK: buffer @h : f16[]
# CHECK-LABEL: kernel @small
# CHECK: buffer.load @a[{{.*}}] : i8
# CHECK: add {{.*}} : i8
# CHECK: mul {{.*}} : u8
# CHECK: sub {{.*}} : i16
# CHECK: mul {{.*}} : f16
# CHECK: cast {{.*}} : i32
# GLSL: #extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
# GLSL: #extension GL_EXT_shader_8bit_storage : require
# GLSL: #extension GL_EXT_shader_16bit_storage : require
# GLSL: buffer a_buf { int8_t a[]; };
# GLSL: buffer h_buf { float16_t h[]; };
# GLSL: a[{{.*}}] = a[{{.*}}] + int8_t(100);
# CUDA: int8_t
# CUDA: float16_t
