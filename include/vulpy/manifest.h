/* vulpy/manifest.h - a kernel's interface, as data and as YAML.
 *
 * The manifest is what the runtime (or any other program) needs to run a
 * SPIR-V module: entry point, local size, buffers with their bindings and
 * element layout, the push-constant block with offsets, shared memory use,
 * and the device features required. It is written and read with libyaml;
 * emit -> parse -> emit is byte-identical. docs/manifest.md has the schema.
 *
 *   vulpy_manifest: 1
 *   kernel: main
 *   entry_point: main
 *   source: my_kernel.vul.py
 *   local_size: [256, 1, 1]
 *   buffers:
 *     - {name: pos, set: 0, binding: 0, type: f64, elem_size: 8, access: readwrite}
 *   push_constants:
 *     size: 16
 *     fields:
 *       - {name: N, type: u32, offset: 0, size: 4}
 *       - {name: dt, type: f32, offset: 4, size: 4}
 *   structs: []
 *   shared_bytes: 0
 *   features: [float64]
 *   dispatch_guard: _vp_count
 *
 * Types are VIR type spellings (f32, vec4<f32>, @Particle).
 */
#ifndef VULPY_MANIFEST_H
#define VULPY_MANIFEST_H

#include "vulpy/support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vpm_access { VPM_READWRITE, VPM_READONLY, VPM_WRITEONLY } vpm_access;

typedef struct vpm_field {
  char *name;
  char *type;      /* VIR spelling */
  uint32_t offset; /* bytes, std430 */
  uint32_t size;   /* bytes */
} vpm_field;

typedef struct vpm_struct {
  char *name; /* without the '@' */
  uint32_t size, align;
  uint32_t nfields;
  vpm_field *fields;
} vpm_struct;

typedef struct vpm_buffer {
  char *name;
  uint32_t set, binding;
  char *type;         /* element type, VIR spelling */
  uint32_t elem_size; /* std430 array stride in bytes */
  vpm_access access;
} vpm_buffer;

typedef struct vpm_manifest {
  char *kernel;      /* the Python name */
  char *entry_point; /* the SPIR-V entry point ("main") */
  char *source;      /* the source file, or NULL */
  uint32_t local_size[3];
  uint32_t nbuffers;
  vpm_buffer *buffers;
  uint32_t push_size; /* bytes; 0 = no push constants */
  uint32_t npush;
  vpm_field *push;
  uint32_t nstructs;
  vpm_struct *structs;
  uint32_t shared_bytes;
  uint32_t features; /* VP_FEAT(...) bits */
  /* Name of the hidden push field (a uvec3 of invocation counts) that a
   * dispatch by invocation count fills, or NULL when the kernel has none. */
  char *dispatch_guard;
} vpm_manifest;

/* YAML nested deeper than this many collections is an error ("nesting
 * deeper than 64 levels", at the first node too deep); a manifest needs 4. */
#define VPM_MAX_DEPTH 64

/* Parses a manifest; NULL with diagnostics (line:col in the YAML) on error. */
vpm_manifest *vpm_parse(const char *yaml, size_t len, const char *filename, vp_diags *diags);
/* Emits YAML (a heap string; free() it), or NULL on out-of-memory. */
char *vpm_emit(const vpm_manifest *m);
/* Frees a manifest built by vpm_parse, vpm_clone, or by hand with malloc'ed
 * strings and arrays. */
void vpm_free(vpm_manifest *m);
vpm_manifest *vpm_clone(const vpm_manifest *m);
/* Index of a buffer / push field by name, or -1. */
int vpm_find_buffer(const vpm_manifest *m, const char *name);
int vpm_find_push(const vpm_manifest *m, const char *name);

/* ---- push-constant packing (push_pack.c): the one packer of vulpy-run,
 * the Python extension's Launcher and vp's PushPacker. */
typedef enum vpm_value_kind { VPM_VAL_FLOAT, VPM_VAL_INT, VPM_VAL_UINT } vpm_value_kind;
typedef struct vpm_value {
  vpm_value_kind kind;
  double f;   /* VPM_VAL_FLOAT */
  int64_t i;  /* VPM_VAL_INT */
  uint64_t u; /* VPM_VAL_UINT */
} vpm_value;
/* Python struct's code of a push field's VIR type ('f' f32, 'd' f64, 'e'
 * f16, 'b'/'B' i8/u8, 'h'/'H' i16/u16, 'i'/'I' i32/u32 (bool: 'I'),
 * 'q'/'Q' i64/u64) and its lanes (vec3<u32>: 'I', 3); 0 for other types. */
char vpm_push_code(const char *type, uint32_t *lanes);
uint32_t vpm_push_code_size(char code); /* bytes of one lane; 0 if unknown */
/* One lane of `code` from `v`, little-endian, into dst; false (dst
 * untouched) when the field cannot hold it: a float for an integer code,
 * an integer out of range, a float too large for f32/f16. */
bool vpm_push_store(char code, const vpm_value *v, unsigned char *dst);
/* vulpy-run's text for one lane: integers in C's bases, decimal floats,
 * true/false/1/0 for a bool field; false for text that is none of these. */
bool vpm_push_parse(char code, bool is_bool, const char *text, vpm_value *v);

#ifdef __cplusplus
}
#endif
#endif /* VULPY_MANIFEST_H */
