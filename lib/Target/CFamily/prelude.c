/* prelude.c - GLSL's names for CUDA and HIP.
 *
 * The CUDA/HIP output starts with the parts of this prelude that its body
 * uses, so that the body can say vec3, dot, mix, gl_GlobalInvocationID,
 * barrier(), subgroupAdd, ... exactly as the GLSL does, and the file
 * compiles with `nvcc -c` / `hipcc --genco` and no other header. Vectors are
 * C++ templates (tvec2/3/4 of any scalar; vec2 and vec4 aligned to their
 * size as in std430, vec3 to its element, and vec3_std430 for a vec3 in an
 * array in memory, whose std430 stride is four components); matrices are
 * columns of them.
 * Subgroup operations are warp operations: 32 lanes on CUDA (every
 * reduction and scan works on the active lanes only; a full warp takes the
 * butterfly fast path), a 64-lane wavefront on AMD's CDNA (RDNA may run
 * 32-lane waves: gl_SubgroupSize reads warpSize, as it should).
 */
#include <stdlib.h>
#include <string.h>

#include "cfamily.h"

static const char pre_vec[] =
    "// GLSL vectors: tvec2/3/4 of any scalar, with GLSL's operators.\n"
    "template <class T> struct tvec2;\n"
    "template <class T> struct tvec3;\n"
    "template <class T> struct tvec4;\n"
    "// vp_put: lays scalars and vectors out one component after another\n"
    "// (GLSL's vec4(v.xy, 0.0, 1.0) and mat2(1.0, 2.0, 3.0, 4.0) constructors)\n"
    "template <class T, class S> __host__ __device__ inline void vp_put(T *&p, S s) { *p++ = T(s); }\n"
    "template <class T, class U> __host__ __device__ inline void vp_put(T *&p, tvec2<U> v) { *p++ = T(v.x); *p++ = T(v.y); }\n"
    "template <class T, class U> __host__ __device__ inline void vp_put(T *&p, tvec3<U> v) {\n"
    "  *p++ = T(v.x); *p++ = T(v.y); *p++ = T(v.z); }\n"
    "template <class T, class U> __host__ __device__ inline void vp_put(T *&p, tvec4<U> v) {\n"
    "  *p++ = T(v.x); *p++ = T(v.y); *p++ = T(v.z); *p++ = T(v.w); }\n"
    "template <class T, class... A> __host__ __device__ inline void vp_fill(T *p, A... a) {\n"
    "  int unused[] = {0, (vp_put(p, a), 0)...};\n"
    "  (void)unused;\n"
    "}\n"
    "#define VP_VEC_COMMON(V)                                                                        \\\n"
    "  typedef T value_type;                                                                       \\\n"
    "  __host__ __device__ V() {}                                                                  \\\n"
    "  template <class A, class B, class... R> __host__ __device__ V(A a, B b, R... r) {           \\\n"
    "    vp_fill(&x, a, b, r...); }                                                                \\\n"
    "  __host__ __device__ T &operator[](int i) { return (&x)[i]; }                                \\\n"
    "  __host__ __device__ T operator[](int i) const { return (&x)[i]; }\n"
    "template <class T> struct __align__(2 * sizeof(T)) tvec2 {\n"
    "  T x, y;\n"
    "  VP_VEC_COMMON(tvec2)\n"
    "  __host__ __device__ explicit tvec2(T s) : x(s), y(s) {}\n"
    "  template <class U> __host__ __device__ explicit tvec2(tvec2<U> v) : x(T(v.x)), y(T(v.y)) {}\n"
    "};\n"
    "template <class T> struct tvec3 {\n"
    "  T x, y, z;\n"
    "  VP_VEC_COMMON(tvec3)\n"
    "  __host__ __device__ explicit tvec3(T s) : x(s), y(s), z(s) {}\n"
    "  template <class U> __host__ __device__ explicit tvec3(tvec3<U> v) : x(T(v.x)), y(T(v.y)), z(T(v.z)) {}\n"
    "};\n"
    "template <class T> struct __align__(4 * sizeof(T)) tvec4 {\n"
    "  T x, y, z, w;\n"
    "  VP_VEC_COMMON(tvec4)\n"
    "  __host__ __device__ explicit tvec4(T s) : x(s), y(s), z(s), w(s) {}\n"
    "  template <class U> __host__ __device__ explicit tvec4(tvec4<U> v)\n"
    "      : x(T(v.x)), y(T(v.y)), z(T(v.z)), w(T(v.w)) {}\n"
    "};\n"
    "// A vec3 as an element of a buffer array (or of an array in a buffer's\n"
    "// struct): std430 gives it a stride of four components, as Vulkan reads it;\n"
    "// it converts to and from vec3.\n"
    "template <class T> struct __align__(4 * sizeof(T)) tvec3_std430 {\n"
    "  T x, y, z;\n"
    "  __host__ __device__ tvec3_std430() {}\n"
    "  __host__ __device__ tvec3_std430(tvec3<T> v) : x(v.x), y(v.y), z(v.z) {}\n"
    "  __host__ __device__ operator tvec3<T>() const { return tvec3<T>(x, y, z); }\n"
    "};\n"
    "#define VP_VEC_TYPES(P, T) typedef tvec2<T> P##vec2; typedef tvec3<T> P##vec3; typedef tvec4<T> P##vec4; \\\n"
    "  typedef tvec3_std430<T> P##vec3_std430;\n"
    "VP_VEC_TYPES(, float) VP_VEC_TYPES(d, double) VP_VEC_TYPES(b, bool) VP_VEC_TYPES(i, int)\n"
    "VP_VEC_TYPES(u, uint) VP_VEC_TYPES(i8, int8_t) VP_VEC_TYPES(u8, uint8_t) VP_VEC_TYPES(i16, int16_t)\n"
    "VP_VEC_TYPES(u16, uint16_t) VP_VEC_TYPES(i64, int64_t) VP_VEC_TYPES(u64, uint64_t)\n"
    "// componentwise operators: vector op vector, vector op scalar, scalar op vector\n"
    "// vector op scalar and scalar op vector (the scalar is not deduced: it converts)\n"
    "#define VP_BINOP_S(V, OP)                                                                       \\\n"
    "  template <class T> __host__ __device__ inline V<T> operator OP(V<T> a, typename V<T>::value_type b) { \\\n"
    "    return a OP V<T>(b); }                                                                     \\\n"
    "  template <class T> __host__ __device__ inline V<T> operator OP(typename V<T>::value_type a, V<T> b) { \\\n"
    "    return V<T>(a) OP b; }\n"
    "#define VP_BINOP(OP)                                                                            \\\n"
    "  template <class T> __host__ __device__ inline tvec2<T> operator OP(tvec2<T> a, tvec2<T> b) {  \\\n"
    "    return tvec2<T>(a.x OP b.x, a.y OP b.y); }                                                 \\\n"
    "  template <class T> __host__ __device__ inline tvec3<T> operator OP(tvec3<T> a, tvec3<T> b) {  \\\n"
    "    return tvec3<T>(a.x OP b.x, a.y OP b.y, a.z OP b.z); }                                     \\\n"
    "  template <class T> __host__ __device__ inline tvec4<T> operator OP(tvec4<T> a, tvec4<T> b) {  \\\n"
    "    return tvec4<T>(a.x OP b.x, a.y OP b.y, a.z OP b.z, a.w OP b.w); }                         \\\n"
    "  VP_BINOP_S(tvec2, OP) VP_BINOP_S(tvec3, OP) VP_BINOP_S(tvec4, OP)\n"
    "VP_BINOP(+) VP_BINOP(-) VP_BINOP(*) VP_BINOP(/) VP_BINOP(%) VP_BINOP(&) VP_BINOP(|) VP_BINOP(^)\n"
    "VP_BINOP(<<) VP_BINOP(>>)\n"
    "#define VP_MAP1(F)                                                                              \\\n"
    "  template <class T> __host__ __device__ inline tvec2<T> F(tvec2<T> a) { return tvec2<T>(F(a.x), F(a.y)); } \\\n"
    "  template <class T> __host__ __device__ inline tvec3<T> F(tvec3<T> a) {                         \\\n"
    "    return tvec3<T>(F(a.x), F(a.y), F(a.z)); }                                                 \\\n"
    "  template <class T> __host__ __device__ inline tvec4<T> F(tvec4<T> a) {                         \\\n"
    "    return tvec4<T>(F(a.x), F(a.y), F(a.z), F(a.w)); }\n"
    "#define VP_MAP2(F)                                                                              \\\n"
    "  template <class T> __host__ __device__ inline tvec2<T> F(tvec2<T> a, tvec2<T> b) {             \\\n"
    "    return tvec2<T>(F(a.x, b.x), F(a.y, b.y)); }                                               \\\n"
    "  template <class T> __host__ __device__ inline tvec3<T> F(tvec3<T> a, tvec3<T> b) {             \\\n"
    "    return tvec3<T>(F(a.x, b.x), F(a.y, b.y), F(a.z, b.z)); }                                  \\\n"
    "  template <class T> __host__ __device__ inline tvec4<T> F(tvec4<T> a, tvec4<T> b) {             \\\n"
    "    return tvec4<T>(F(a.x, b.x), F(a.y, b.y), F(a.z, b.z), F(a.w, b.w)); }\n"
    "template <class T> __host__ __device__ inline tvec2<T> operator-(tvec2<T> a) { return tvec2<T>(-a.x, -a.y); }\n"
    "template <class T> __host__ __device__ inline tvec3<T> operator-(tvec3<T> a) { return tvec3<T>(-a.x, -a.y, -a.z); }\n"
    "template <class T> __host__ __device__ inline tvec4<T> operator-(tvec4<T> a) {\n"
    "  return tvec4<T>(-a.x, -a.y, -a.z, -a.w); }\n"
    "template <class T> __host__ __device__ inline tvec2<T> operator~(tvec2<T> a) { return tvec2<T>(~a.x, ~a.y); }\n"
    "template <class T> __host__ __device__ inline tvec3<T> operator~(tvec3<T> a) { return tvec3<T>(~a.x, ~a.y, ~a.z); }\n"
    "template <class T> __host__ __device__ inline tvec4<T> operator~(tvec4<T> a) {\n"
    "  return tvec4<T>(~a.x, ~a.y, ~a.z, ~a.w); }\n"
    "// GLSL's not(bvec) is C++'s !(bvec)\n"
    "__host__ __device__ inline bvec2 operator!(bvec2 a) { return bvec2(!a.x, !a.y); }\n"
    "__host__ __device__ inline bvec3 operator!(bvec3 a) { return bvec3(!a.x, !a.y, !a.z); }\n"
    "__host__ __device__ inline bvec4 operator!(bvec4 a) { return bvec4(!a.x, !a.y, !a.z, !a.w); }\n"
    "#define VP_CMP(F, OP)                                                                           \\\n"
    "  template <class T> __host__ __device__ inline bvec2 F(tvec2<T> a, tvec2<T> b) {                \\\n"
    "    return bvec2(a.x OP b.x, a.y OP b.y); }                                                    \\\n"
    "  template <class T> __host__ __device__ inline bvec3 F(tvec3<T> a, tvec3<T> b) {                \\\n"
    "    return bvec3(a.x OP b.x, a.y OP b.y, a.z OP b.z); }                                        \\\n"
    "  template <class T> __host__ __device__ inline bvec4 F(tvec4<T> a, tvec4<T> b) {                \\\n"
    "    return bvec4(a.x OP b.x, a.y OP b.y, a.z OP b.z, a.w OP b.w); }\n"
    "VP_CMP(lessThan, <) VP_CMP(lessThanEqual, <=) VP_CMP(greaterThan, >) VP_CMP(greaterThanEqual, >=)\n"
    "VP_CMP(equal, ==) VP_CMP(notEqual, !=)\n"
    "__host__ __device__ inline bool all(bvec2 a) { return a.x && a.y; }\n"
    "__host__ __device__ inline bool all(bvec3 a) { return a.x && a.y && a.z; }\n"
    "__host__ __device__ inline bool all(bvec4 a) { return a.x && a.y && a.z && a.w; }\n"
    "__host__ __device__ inline bool any(bvec2 a) { return a.x || a.y; }\n"
    "__host__ __device__ inline bool any(bvec3 a) { return a.x || a.y || a.z; }\n"
    "__host__ __device__ inline bool any(bvec4 a) { return a.x || a.y || a.z || a.w; }\n"
    "template <class V> __host__ __device__ inline typename V::value_type dot(V a, V b) {\n"
    "  V p = a * b;\n"
    "  typename V::value_type s = p[0];\n"
    "  for (int i = 1; i < (int)(sizeof(V) / sizeof(s)) && i < 4; i++) s += p[i];\n"
    "  return s;\n"
    "}\n"
    "template <class T> __host__ __device__ inline T dot(tvec3<T> a, tvec3<T> b) { return a.x * b.x + a.y * b.y + a.z * b.z; }\n"
    "template <class T> __host__ __device__ inline tvec3<T> cross(tvec3<T> a, tvec3<T> b) {\n"
    "  return tvec3<T>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }\n"
    "template <class V> __host__ __device__ inline typename V::value_type length(V a) { return sqrt(dot(a, a)); }\n"
    "template <class V> __host__ __device__ inline typename V::value_type distance(V a, V b) { return length(a - b); }\n"
    "template <class V> __host__ __device__ inline V normalize(V a) { return a / length(a); }\n"
    "template <class V> __host__ __device__ inline V reflect(V i, V n) {\n"
    "  return i - n * (typename V::value_type(2) * dot(n, i)); }\n";

static const char pre_mat[] =
    "// GLSL matrices: C columns of the vector type V (column-major, as GLSL).\n"
    "template <class V, int C> struct tmat {\n"
    "  V c[C];\n"
    "  __host__ __device__ tmat() {}\n"
    "  __host__ __device__ explicit tmat(typename V::value_type s) {\n"
    "    for (int i = 0; i < C; i++) { c[i] = V(typename V::value_type(0)); c[i][i] = s; }\n"
    "  }\n"
    "  template <class A, class B, class... R> __host__ __device__ tmat(A a, B b, R... r) {\n"
    "    vp_fill(&c[0].x, a, b, r...); }\n"
    "  __host__ __device__ V &operator[](int i) { return c[i]; }\n"
    "  __host__ __device__ V operator[](int i) const { return c[i]; }\n"
    "};\n"
    "typedef tmat<vec2, 2> mat2; typedef tmat<vec3, 3> mat3; typedef tmat<vec4, 4> mat4;\n"
    "typedef tmat<dvec2, 2> dmat2; typedef tmat<dvec3, 3> dmat3; typedef tmat<dvec4, 4> dmat4;\n"
    "template <class V, class W> __host__ __device__ inline V vp_matvec(const V *c, W v, int n) {\n"
    "  V r = c[0] * v[0];\n"
    "  for (int i = 1; i < n; i++) r = r + c[i] * v[i];\n"
    "  return r;\n"
    "}\n"
    "template <class V, class T> __host__ __device__ inline V operator*(tmat<V, 2> m, tvec2<T> v) { return vp_matvec(m.c, v, 2); }\n"
    "template <class V, class T> __host__ __device__ inline V operator*(tmat<V, 3> m, tvec3<T> v) { return vp_matvec(m.c, v, 3); }\n"
    "template <class V, class T> __host__ __device__ inline V operator*(tmat<V, 4> m, tvec4<T> v) { return vp_matvec(m.c, v, 4); }\n"
    "template <class V, int C, class W, int D> __host__ __device__ inline tmat<V, D> operator*(tmat<V, C> a, tmat<W, D> b) {\n"
    "  tmat<V, D> r;\n"
    "  for (int j = 0; j < D; j++) r.c[j] = a * b.c[j];\n"
    "  return r;\n"
    "}\n"
    "template <class V, int C> __host__ __device__ inline V operator*(V v, tmat<V, C> m) {\n"
    "  V r;\n"
    "  for (int j = 0; j < C; j++) r[j] = dot(v, m.c[j]);\n"
    "  return r;\n"
    "}\n"
    "template <class V, int C> __host__ __device__ inline tmat<V, C> transpose(tmat<V, C> m) {\n"
    "  tmat<V, C> r;\n"
    "  for (int i = 0; i < C; i++)\n"
    "    for (int j = 0; j < C; j++) r.c[i][j] = m.c[j][i];\n"
    "  return r;\n"
    "}\n"
    "template <class V, int C> __host__ __device__ inline tmat<V, C> matrixCompMult(tmat<V, C> a, tmat<V, C> b) {\n"
    "  tmat<V, C> r;\n"
    "  for (int i = 0; i < C; i++) r.c[i] = a.c[i] * b.c[i];\n"
    "  return r;\n"
    "}\n";

static const char pre_ids[] =
    "// GLSL's invocation ids from CUDA's grid and block.\n"
    "#define gl_GlobalInvocationID uvec3(blockIdx.x * blockDim.x + threadIdx.x, \\\n"
    "  blockIdx.y * blockDim.y + threadIdx.y, blockIdx.z * blockDim.z + threadIdx.z)\n"
    "#define gl_LocalInvocationID uvec3(threadIdx.x, threadIdx.y, threadIdx.z)\n"
    "#define gl_WorkGroupID uvec3(blockIdx.x, blockIdx.y, blockIdx.z)\n"
    "#define gl_NumWorkGroups uvec3(gridDim.x, gridDim.y, gridDim.z)\n"
    "#define gl_WorkGroupSize uvec3(blockDim.x, blockDim.y, blockDim.z)\n"
    "#define gl_LocalInvocationIndex \\\n"
    "  uint((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x)\n"
    "#define gl_SubgroupSize uint(warpSize)\n"
    "#define gl_SubgroupInvocationID (gl_LocalInvocationIndex % gl_SubgroupSize)\n"
    "#define gl_SubgroupID (gl_LocalInvocationIndex / gl_SubgroupSize)\n"
    "#define gl_NumSubgroups uint((blockDim.x * blockDim.y * blockDim.z + warpSize - 1) / warpSize)\n";

static const char pre_subgroup_cuda[] =
    "// GLSL subgroup operations as warp operations over the active lanes\n"
    "// (32 lanes; a full warp takes the butterfly / Hillis-Steele fast path).\n"
    "__device__ inline bool subgroupAll(bool p) { return __all_sync(__activemask(), p); }\n"
    "__device__ inline bool subgroupAny(bool p) { return __any_sync(__activemask(), p); }\n"
    "__device__ inline uvec4 subgroupBallot(bool p) { return uvec4(__ballot_sync(__activemask(), p), 0u, 0u, 0u); }\n"
    "__device__ inline bool subgroupElect() { return gl_SubgroupInvocationID == uint(__ffs(__activemask()) - 1); }\n"
    "template <class T> __device__ inline T subgroupBroadcast(T x, uint lane) { return __shfl_sync(__activemask(), x, lane); }\n"
    "template <class T> __device__ inline T subgroupBroadcastFirst(T x) {\n"
    "  unsigned m = __activemask();\n"
    "  return __shfl_sync(m, x, __ffs(m) - 1);\n"
    "}\n"
    "template <class T> __device__ inline T subgroupShuffle(T x, uint id) { return __shfl_sync(__activemask(), x, id); }\n"
    "template <class T> __device__ inline T subgroupShuffleXor(T x, uint mask) { return __shfl_xor_sync(__activemask(), x, mask); }\n"
    "template <class T> __device__ inline T subgroupShuffleUp(T x, uint d) { return __shfl_up_sync(__activemask(), x, d); }\n"
    "template <class T> __device__ inline T subgroupShuffleDown(T x, uint d) { return __shfl_down_sync(__activemask(), x, d); }\n"
    "__device__ inline void subgroupBarrier() { __syncwarp(__activemask()); }\n"
    "#define VP_SG_REDUCE(NAME, F)                                                   \\\n"
    "  template <class T> __device__ inline T NAME(T x) {                           \\\n"
    "    unsigned m = __activemask();                                              \\\n"
    "    T r = x;                                                                  \\\n"
    "    if (m == 0xffffffffu) {                                                   \\\n"
    "      for (int o = 16; o > 0; o /= 2) { T y = __shfl_xor_sync(m, r, o); r = F; } \\\n"
    "      return r;                                                               \\\n"
    "    }                                                                         \\\n"
    "    int first = __ffs(m) - 1;                                                 \\\n"
    "    r = __shfl_sync(m, x, first);                                             \\\n"
    "    for (int l = first + 1; l < 32; l++) {                                    \\\n"
    "      T y = __shfl_sync(m, x, l);                                             \\\n"
    "      if (m >> l & 1u) r = F;                                                 \\\n"
    "    }                                                                         \\\n"
    "    return r;                                                                 \\\n"
    "  }\n"
    "VP_SG_REDUCE(subgroupAdd, r + y) VP_SG_REDUCE(subgroupMul, r * y)\n"
    "VP_SG_REDUCE(subgroupMin, min(r, y)) VP_SG_REDUCE(subgroupMax, max(r, y))\n"
    "VP_SG_REDUCE(subgroupAnd, r & y) VP_SG_REDUCE(subgroupOr, r | y) VP_SG_REDUCE(subgroupXor, r ^ y)\n"
    "template <class T> __device__ inline T subgroupInclusiveAdd(T x) {\n"
    "  unsigned m = __activemask();\n"
    "  uint lane = gl_SubgroupInvocationID;\n"
    "  T r = T(0);\n"
    "  for (int l = 0; l < 32; l++) {\n"
    "    T y = __shfl_sync(m, x, l);\n"
    "    if ((m >> l & 1u) && uint(l) <= lane) r = r + y;\n"
    "  }\n"
    "  return r;\n"
    "}\n"
    "template <class T> __device__ inline T subgroupExclusiveAdd(T x) { return subgroupInclusiveAdd(x) - x; }\n";

static const char pre_subgroup_hip[] =
    "// GLSL subgroup operations as wavefront operations (64 lanes on CDNA).\n"
    "// AMD wavefronts run in lockstep, so the non-_sync intrinsics apply.\n"
    "__device__ inline uint64_t vp_activemask() { return __ballot(1); }\n"
    "__device__ inline bool subgroupAll(bool p) { return __all(p); }\n"
    "__device__ inline bool subgroupAny(bool p) { return __any(p); }\n"
    "__device__ inline uvec4 subgroupBallot(bool p) {\n"
    "  uint64_t b = __ballot(p);\n"
    "  return uvec4(uint(b), uint(b >> 32), 0u, 0u);\n"
    "}\n"
    "__device__ inline bool subgroupElect() { return gl_SubgroupInvocationID == uint(__ffsll((unsigned long long)vp_activemask()) - 1); }\n"
    "template <class T> __device__ inline T subgroupBroadcast(T x, uint lane) { return __shfl(x, lane); }\n"
    "template <class T> __device__ inline T subgroupBroadcastFirst(T x) { return __shfl(x, __ffsll((unsigned long long)vp_activemask()) - 1); }\n"
    "template <class T> __device__ inline T subgroupShuffle(T x, uint id) { return __shfl(x, id); }\n"
    "template <class T> __device__ inline T subgroupShuffleXor(T x, uint mask) { return __shfl_xor(x, mask); }\n"
    "template <class T> __device__ inline T subgroupShuffleUp(T x, uint d) { return __shfl_up(x, d); }\n"
    "template <class T> __device__ inline T subgroupShuffleDown(T x, uint d) { return __shfl_down(x, d); }\n"
    "__device__ inline void subgroupBarrier() {\n"
    "  __builtin_amdgcn_fence(__ATOMIC_RELEASE, \"wavefront\");\n"
    "  __builtin_amdgcn_wave_barrier();\n"
    "  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, \"wavefront\");\n"
    "}\n"
    "#define VP_SG_REDUCE(NAME, F)                                                   \\\n"
    "  template <class T> __device__ inline T NAME(T x) {                           \\\n"
    "    uint64_t m = vp_activemask();                                             \\\n"
    "    int first = __ffsll((unsigned long long)m) - 1;                           \\\n"
    "    T r = __shfl(x, first);                                                   \\\n"
    "    for (int l = first + 1; l < warpSize; l++) {                              \\\n"
    "      T y = __shfl(x, l);                                                     \\\n"
    "      if (m >> l & 1u) r = F;                                                 \\\n"
    "    }                                                                         \\\n"
    "    return r;                                                                 \\\n"
    "  }\n"
    "VP_SG_REDUCE(subgroupAdd, r + y) VP_SG_REDUCE(subgroupMul, r * y)\n"
    "VP_SG_REDUCE(subgroupMin, min(r, y)) VP_SG_REDUCE(subgroupMax, max(r, y))\n"
    "VP_SG_REDUCE(subgroupAnd, r & y) VP_SG_REDUCE(subgroupOr, r | y) VP_SG_REDUCE(subgroupXor, r ^ y)\n"
    "template <class T> __device__ inline T subgroupInclusiveAdd(T x) {\n"
    "  uint64_t m = vp_activemask();\n"
    "  uint lane = gl_SubgroupInvocationID;\n"
    "  T r = T(0);\n"
    "  for (int l = 0; l < warpSize; l++) {\n"
    "    T y = __shfl(x, l);\n"
    "    if ((m >> l & 1u) && uint(l) <= lane) r = r + y;\n"
    "  }\n"
    "  return r;\n"
    "}\n"
    "template <class T> __device__ inline T subgroupExclusiveAdd(T x) { return subgroupInclusiveAdd(x) - x; }\n";

static const char pre_atomic[] =
    "// Atomics: GLSL's atomicLoad/atomicStore; acquire/release as fences around\n"
    "// the relaxed operation.\n"
    "__device__ inline void vp_release() { __threadfence(); }\n"
    "template <class T> __device__ inline T vp_acquire(T v) { __threadfence(); return v; }\n"
    "template <class T> __device__ inline T atomicLoad(T *p) { return *(volatile T *)p; }\n"
    "template <class T> __device__ inline T atomicLoad(const T *p) { return *(const volatile T *)p; }\n"
    "template <class T> __device__ inline void atomicStore(T *p, T v) { *(volatile T *)p = v; }\n";

static const char pre_atomic_u64[] =
    "// 64-bit atomics on uint64_t (unsigned long on Linux) through unsigned long long.\n"
    "#define VP_ATOMIC_U64(F) __device__ inline uint64_t F(uint64_t *p, uint64_t v) { \\\n"
    "    return (uint64_t)F((unsigned long long *)p, (unsigned long long)v); }\n"
    "VP_ATOMIC_U64(atomicAdd) VP_ATOMIC_U64(atomicAnd) VP_ATOMIC_U64(atomicOr) VP_ATOMIC_U64(atomicXor)\n"
    "VP_ATOMIC_U64(atomicExch) VP_ATOMIC_U64(atomicMin) VP_ATOMIC_U64(atomicMax)\n"
    "__device__ inline uint64_t atomicCAS(uint64_t *p, uint64_t c, uint64_t v) {\n"
    "  return (uint64_t)atomicCAS((unsigned long long *)p, (unsigned long long)c, (unsigned long long)v); }\n";

static const char pre_atomic_i64[] =
    "// 64-bit atomics on int64_t through unsigned long long (two's complement);\n"
    "// signed min/max as compare-and-swap loops.\n"
    "#define VP_ATOMIC_I64(F) __device__ inline int64_t F(int64_t *p, int64_t v) { \\\n"
    "    return (int64_t)F((unsigned long long *)p, (unsigned long long)v); }\n"
    "VP_ATOMIC_I64(atomicAdd) VP_ATOMIC_I64(atomicAnd) VP_ATOMIC_I64(atomicOr) VP_ATOMIC_I64(atomicXor)\n"
    "VP_ATOMIC_I64(atomicExch)\n"
    "__device__ inline int64_t atomicCAS(int64_t *p, int64_t c, int64_t v) {\n"
    "  return (int64_t)atomicCAS((unsigned long long *)p, (unsigned long long)c, (unsigned long long)v); }\n"
    "__device__ inline int64_t atomicMin(int64_t *p, int64_t v) {\n"
    "  int64_t old = *(volatile int64_t *)p, seen;\n"
    "  while (v < old && (seen = atomicCAS(p, old, v)) != old) old = seen;\n"
    "  return old;\n"
    "}\n"
    "__device__ inline int64_t atomicMax(int64_t *p, int64_t v) {\n"
    "  int64_t old = *(volatile int64_t *)p, seen;\n"
    "  while (v > old && (seen = atomicCAS(p, old, v)) != old) old = seen;\n"
    "  return old;\n"
    "}\n";

static const char pre_bits[] =
    "// GLSL's bit casts.\n"
    "__device__ inline uint floatBitsToUint(float x) { return __float_as_uint(x); }\n"
    "__device__ inline int floatBitsToInt(float x) { return __float_as_int(x); }\n"
    "__device__ inline float uintBitsToFloat(uint x) { return __uint_as_float(x); }\n"
    "__device__ inline float intBitsToFloat(int x) { return __int_as_float(x); }\n"
    "__device__ inline uint64_t doubleBitsToUint64(double x) { return (uint64_t)__double_as_longlong(x); }\n"
    "__device__ inline int64_t doubleBitsToInt64(double x) { return (int64_t)__double_as_longlong(x); }\n"
    "__device__ inline double uint64BitsToDouble(uint64_t x) { return __longlong_as_double((long long)x); }\n"
    "__device__ inline double int64BitsToDouble(int64_t x) { return __longlong_as_double((long long)x); }\n";

static const char pre_bits_vec[] =
    "__device__ inline uvec2 unpackDouble2x32(double x) {\n"
    "  return uvec2(uint(__double2loint(x)), uint(__double2hiint(x))); }\n"
    "__device__ inline double packDouble2x32(uvec2 v) { return __hiloint2double(int(v.y), int(v.x)); }\n"
    "VP_MAP1(floatBitsToUint) VP_MAP1(floatBitsToInt) VP_MAP1(uintBitsToFloat) VP_MAP1(intBitsToFloat)\n";

static const char pre_math[] =
    "// GLSL's math names that C++ lacks.\n"
    "template <class T> __device__ inline T fract(T x) { return x - floor(x); }\n"
    "template <class T> __device__ inline T sign(T x) { return T((x > T(0)) - (x < T(0))); }\n"
    "__device__ inline float inversesqrt(float x) { return rsqrtf(x); }\n"
    "__device__ inline double inversesqrt(double x) { return rsqrt(x); }\n"
    "__device__ inline float roundEven(float x) { return rintf(x); }\n"
    "__device__ inline double roundEven(double x) { return rint(x); }\n"
    "template <class T, class A> __device__ inline T mix(T x, T y, A a) { return x * (A(1) - a) + y * a; }\n"
    "template <class T> __device__ inline T mix(T x, T y, bool a) { return a ? y : x; }\n"
    "template <class T> __device__ inline T step(T edge, T x) { return x < edge ? T(0) : T(1); }\n"
    "template <class T> __device__ inline T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }\n"
    "template <class T> __device__ inline T smoothstep(T e0, T e1, T x) {\n"
    "  T t = clamp((x - e0) / (e1 - e0), T(0), T(1));\n"
    "  return t * t * (T(3) - T(2) * t);\n"
    "}\n";

static const char pre_math_vec[] =
    "VP_MAP1(sin) VP_MAP1(cos) VP_MAP1(tan) VP_MAP1(asin) VP_MAP1(acos) VP_MAP1(atan) VP_MAP1(sinh)\n"
    "VP_MAP1(cosh) VP_MAP1(tanh) VP_MAP1(asinh) VP_MAP1(acosh) VP_MAP1(atanh) VP_MAP1(exp) VP_MAP1(exp2)\n"
    "VP_MAP1(expm1) VP_MAP1(log) VP_MAP1(log2) VP_MAP1(log10) VP_MAP1(log1p) VP_MAP1(sqrt) VP_MAP1(cbrt)\n"
    "VP_MAP1(inversesqrt) VP_MAP1(floor) VP_MAP1(ceil) VP_MAP1(trunc) VP_MAP1(round) VP_MAP1(roundEven)\n"
    "VP_MAP1(fract) VP_MAP1(abs) VP_MAP1(sign) VP_MAP2(pow) VP_MAP2(atan2) VP_MAP2(min) VP_MAP2(max)\n"
    "VP_MAP2(fmod) VP_MAP2(step)\n"
    "template <class T> __device__ inline bvec2 isnan(tvec2<T> a) { return bvec2(isnan(a.x), isnan(a.y)); }\n"
    "template <class T> __device__ inline bvec3 isnan(tvec3<T> a) { return bvec3(isnan(a.x), isnan(a.y), isnan(a.z)); }\n"
    "template <class T> __device__ inline bvec4 isnan(tvec4<T> a) {\n"
    "  return bvec4(isnan(a.x), isnan(a.y), isnan(a.z), isnan(a.w)); }\n"
    "template <class T> __device__ inline bvec2 isinf(tvec2<T> a) { return bvec2(isinf(a.x), isinf(a.y)); }\n"
    "template <class T> __device__ inline bvec3 isinf(tvec3<T> a) { return bvec3(isinf(a.x), isinf(a.y), isinf(a.z)); }\n"
    "template <class T> __device__ inline bvec4 isinf(tvec4<T> a) {\n"
    "  return bvec4(isinf(a.x), isinf(a.y), isinf(a.z), isinf(a.w)); }\n"
    "// a vector meeting a scalar in min/max/clamp/mix, and mix with a bool vector\n"
    "template <class V> __device__ inline V min(V a, typename V::value_type b) { return min(a, V(b)); }\n"
    "template <class V> __device__ inline V max(V a, typename V::value_type b) { return max(a, V(b)); }\n"
    "template <class V> __device__ inline V clamp(V x, typename V::value_type lo, typename V::value_type hi) {\n"
    "  return min(max(x, V(lo)), V(hi)); }\n"
    "template <class T> __device__ inline tvec2<T> mix(tvec2<T> x, tvec2<T> y, bvec2 a) {\n"
    "  return tvec2<T>(a.x ? y.x : x.x, a.y ? y.y : x.y); }\n"
    "template <class T> __device__ inline tvec3<T> mix(tvec3<T> x, tvec3<T> y, bvec3 a) {\n"
    "  return tvec3<T>(a.x ? y.x : x.x, a.y ? y.y : x.y, a.z ? y.z : x.z); }\n"
    "template <class T> __device__ inline tvec4<T> mix(tvec4<T> x, tvec4<T> y, bvec4 a) {\n"
    "  return tvec4<T>(a.x ? y.x : x.x, a.y ? y.y : x.y, a.z ? y.z : x.z, a.w ? y.w : x.w); }\n"
    "template <class T> __device__ inline tvec2<T> mix(tvec2<T> x, tvec2<T> y, T a) { return x * (T(1) - a) + y * a; }\n"
    "template <class T> __device__ inline tvec3<T> mix(tvec3<T> x, tvec3<T> y, T a) { return x * (T(1) - a) + y * a; }\n"
    "template <class T> __device__ inline tvec4<T> mix(tvec4<T> x, tvec4<T> y, T a) { return x * (T(1) - a) + y * a; }\n";

void cf_need_swizzle(cf_printer *p, const uint8_t *swz, unsigned n) {
  char key[5] = {0};
  for (unsigned i = 0; i < n && i < 4; i++)
    key[i] = cf_comp[swz[i] & 3];
  p->pre |= CF_PRE_VEC;
  for (uint32_t i = 0; i < p->swizzles.len; i++)
    if (strcmp(p->swizzles.data[i], key) == 0)
      return;
  char *copy = vp_arena_strdup(&p->arena, key);
  if (!copy || !vp_ptrvec_push(&p->arena, &p->swizzles, copy))
    p->failed = true;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void cf_emit_prelude(cf_printer *p, vp_strbuf *out) {
  bool hip = p->dialect == CF_HIP;
  uint32_t pre = p->pre;
  if (pre & (CF_PRE_MAT | CF_PRE_IDS | CF_PRE_SUBGROUP))
    pre |= CF_PRE_VEC;
  if (hip)
    vp_strbuf_append(out, "#include <hip/hip_runtime.h>\n");
  /* NVRTC (CuPy's RawModule back end) has no system headers: <stdint.h>
   * stops it, so under __CUDACC_RTC__ the fixed-width types are spelled out
   * as glibc / MSVC spell them (so that 64-bit overloads such as the
   * atomics' uint64_t wrappers resolve the same way as under nvcc). */
  if (hip)
    vp_strbuf_append(out, "#include <stdint.h>\n");
  else
    vp_strbuf_append(out,
                     "#ifdef __CUDACC_RTC__\n"
                     "typedef signed char int8_t;\n"
                     "typedef unsigned char uint8_t;\n"
                     "typedef short int16_t;\n"
                     "typedef unsigned short uint16_t;\n"
                     "typedef int int32_t;\n"
                     "typedef unsigned int uint32_t;\n"
                     "#ifdef _WIN32\n"
                     "typedef long long int64_t;\n"
                     "typedef unsigned long long uint64_t;\n"
                     "#else\n"
                     "typedef long int64_t;\n"
                     "typedef unsigned long uint64_t;\n"
                     "#endif\n"
                     "#else\n"
                     "#include <stdint.h>\n"
                     "#endif\n");
  if (pre & CF_PRE_F16)
    vp_strbuf_append(out, hip ? "#include <hip/hip_fp16.h>\n" : "#include <cuda_fp16.h>\n");
  vp_strbuf_append(out, "\ntypedef unsigned int uint;\n");
  if (pre & CF_PRE_F16)
    vp_strbuf_append(out, "typedef __half float16_t;\n");
  if (pre & CF_PRE_VEC)
    vp_strbuf_append(out, pre_vec);
  if (pre & CF_PRE_MAT)
    vp_strbuf_append(out, pre_mat);
  if (pre & CF_PRE_IDS)
    vp_strbuf_append(out, pre_ids);
  if (pre & CF_PRE_MATH) {
    vp_strbuf_append(out, pre_math);
    if (pre & CF_PRE_VEC)
      vp_strbuf_append(out, pre_math_vec);
  }
  if (pre & CF_PRE_BITS) {
    vp_strbuf_append(out, pre_bits);
    if (pre & CF_PRE_VEC)
      vp_strbuf_append(out, pre_bits_vec);
  }
  if (pre & CF_PRE_SUBGROUP)
    vp_strbuf_append(out, hip ? pre_subgroup_hip : pre_subgroup_cuda);
  if (pre & CF_PRE_ATOMIC) {
    vp_strbuf_append(out, pre_atomic);
    if (p->ext & CF_EXT_ATOMIC64) {
      if (!hip) /* HIP has the unsigned long forms */
        vp_strbuf_append(out, pre_atomic_u64);
      vp_strbuf_append(out, pre_atomic_i64);
    }
  }
  if (pre & CF_PRE_BARRIER)
    vp_strbuf_append(out, "__device__ inline void barrier() { __syncthreads(); }\n");
  if (p->swizzles.len) {
    /* stable order whatever the order of use */
    qsort(p->swizzles.data, p->swizzles.len, sizeof(void *), cmp_str);
    vp_strbuf_append(out, "// swizzles: v.xyz is vp_xyz(v)\n");
    for (uint32_t i = 0; i < p->swizzles.len; i++) {
      const char *k = p->swizzles.data[i];
      size_t n = strlen(k);
      vp_strbuf_printf(out, "template <class V> __device__ inline tvec%zu<typename V::value_type> vp_%s(V v) {\n", n, k);
      vp_strbuf_printf(out, "  return tvec%zu<typename V::value_type>(", n);
      for (size_t j = 0; j < n; j++)
        vp_strbuf_printf(out, "%sv.%c", j ? ", " : "", k[j]);
      vp_strbuf_append(out, "); }\n");
    }
  }
  vp_strbuf_putc(out, '\n');
}
