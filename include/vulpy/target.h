/* vulpy/target.h - VIR to GLSL, SPIR-V, CUDA, HIP, MSL, HLSL and manifests.
 *
 * Back ends are a table of emitters looked up by name (`--to=glsl`). GLSL,
 * CUDA and HIP come from one C-family printer (lib/Target/CFamily); SPIR-V is
 * the GLSL compiled in-process by glslang, always validated by SPIRV-Tools
 * and optimized on request; MSL/HLSL/GLSL-from-SPIR-V and reflection go
 * through SPIRV-Cross's C API; the manifest describes the kernel's
 * interface (vulpy/manifest.h).
 */
#ifndef VULPY_TARGET_H
#define VULPY_TARGET_H

#include "vulpy/ir.h"
#include "vulpy/manifest.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the time of one VIR -> SPIR-V compile went (the compile-time
 * figure, bench/bench_compile.py). Milliseconds, added to. */
typedef struct vtg_timings {
  double print_ms;    /* VIR -> GLSL (the C-family printer) */
  double glslang_ms;  /* GLSL -> SPIR-V (glslang: parse, link, generate) */
  double validate_ms; /* spvValidate, every time it runs */
  double optimize_ms; /* spvOptimizer performance passes */
} vtg_timings;

/* The SpecId of the precise math's `const bool VP_FMA_FUSED` (the runtime
 * sets it per device: VRT_FMA_SPEC_ID in runtime.h, docs/math.md). */
#define VTG_FMA_SPEC_ID 2046 /* glslang accepts ids up to 2046 */
/* The SpecId of `const bool VP_DENORM_EMULATE`: true where the device
 * flushes float32 subnormals and cannot be asked to keep them; the float32
 * helpers then handle subnormal arguments and results with integer
 * operations (VRT_DENORM_SPEC_ID in runtime.h, docs/math.md). */
#define VTG_DENORM_SPEC_ID 2045

typedef struct vtg_options {
  const char *kernel;      /* which kernel of the module; NULL = the first */
  bool fast_math;          /* built-in sin/exp/... instead of precise helpers */
  bool optimize;           /* -O: run the SPIRV-Tools optimizer */
  uint32_t local_size[3];  /* overrides; 0 keeps the kernel's */
  /* The device profile: VP_FEAT bits the target may use. A kernel needing
   * more is an error naming the op and the feature. ~0u = everything. */
  uint32_t features;
  /* Vulkan version for SPIR-V (VK_MAKE_API_VERSION style major*10+minor:
   * 11, 12, 13); 0 = 1.2 */
  unsigned vulkan;
  /* When set, the SPIR-V path adds the time of each phase here. */
  vtg_timings *timings;
} vtg_options;

void vtg_options_init(vtg_options *o);

/* An emitter writes text (or bytes, for binary targets) into `out`. */
typedef bool (*vtg_emit_fn)(const vir_module *m, const vtg_options *o, vp_strbuf *out,
                            vp_diags *diags);

typedef struct vtg_target {
  const char *name;    /* --to=NAME */
  const char *summary; /* one line for --help */
  bool binary;         /* output is bytes (written only with -o) */
  vtg_emit_fn emit;
} vtg_target;

const vtg_target *vtg_target_table(size_t *count);
const vtg_target *vtg_target_lookup(const char *name);

/* --- the C-family printer (lib/Target/CFamily) ----------------------- */
bool vtg_emit_glsl(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d);
bool vtg_emit_cuda(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d);
bool vtg_emit_hip(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d);

/* --- SPIR-V (lib/Target/SPIRV) --------------------------------------- */
/* Compiles GLSL compute source with glslang in-process, validates with
 * SPIRV-Tools (and optimizes when o->optimize). `name` labels diagnostics.
 * On success *words is a malloc'ed array of *nwords words. */
bool vtg_glsl_to_spirv(const char *glsl, size_t len, const char *name, const vtg_options *o,
                       uint32_t **words, size_t *nwords, vp_diags *d);
bool vtg_spirv_validate(const uint32_t *words, size_t nwords, unsigned vulkan, vp_diags *d);
bool vtg_spirv_optimize(const uint32_t *words, size_t nwords, unsigned vulkan,
                        uint32_t **out, size_t *nout, vp_diags *d);
bool vtg_spirv_disassemble(const uint32_t *words, size_t nwords, vp_strbuf *out, vp_diags *d);
/* VIR -> GLSL -> SPIR-V; `out` receives the binary words as bytes. */
bool vtg_emit_spirv(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d);

/* --- SPIRV-Cross (lib/Target/Cross) ---------------------------------- */
typedef enum vtg_cross_lang { VTG_CROSS_MSL, VTG_CROSS_HLSL, VTG_CROSS_GLSL } vtg_cross_lang;
bool vtg_spirv_cross(const uint32_t *words, size_t nwords, vtg_cross_lang lang,
                     vp_strbuf *out, vp_diags *d);
/* Reflects any SPIR-V compute module into a manifest (bindings, push
 * members with offsets, local size). Caller frees with vpm_free. */
vpm_manifest *vtg_reflect_spirv(const uint32_t *words, size_t nwords, vp_diags *d);

/* --- manifest of a VIR kernel (lib/Target/manifest_from_vir.c) ------  */
/* The interface of one kernel of a verified module. */
vpm_manifest *vtg_manifest_from_vir(const vir_module *m, const vtg_options *o, vp_diags *d);

/* --- array functions (lib/Target/array.c) ----------------------------- */
/* The compile of one array function (vp.jit, the eager array API): fuse,
 * lower-arrays, then GLSL, SPIR-V and a manifest for every kernel the
 * lowering made. The Python extension (jit_compile) and vulpy-translate
 * both call it, so any vp.jit compile can be repeated from the command
 * line on the array VIR it printed (JitFunction.array_vir). */
#include "vulpy/passes.h"

typedef struct vtg_array_options {
  vir_pass_options pass; /* fast_math, missing_features, cpu_device, reduce_groups */
  bool fuse;             /* run `fuse` before lowering */
  bool targets;          /* emit GLSL, SPIR-V and manifests (false: stop at the lowered VIR) */
  vtg_options target;    /* the back end's options (kernel is ignored) */
} vtg_array_options;

void vtg_array_options_init(vtg_array_options *o);

/* The grid of a launch over a dynamic extent: the scalar ops of the push
 * field n that lower-arrays wrote into the array function for it (the
 * items rule of an elementwise kernel, the clamped group count of a full
 * reduction), in order, each operand an earlier op; the host evaluates
 * them at each launch (vtg_grid_eval). u32 and bool values only. */
enum { VTG_GRID_OPS = 48 };
typedef struct vtg_grid_op {
  uint16_t code; /* a VIR opcode: const, push.load (the field n) or a scalar op */
  uint16_t nopnd;
  uint16_t a[3]; /* operands: indices of earlier ops */
  uint64_t k;    /* const: the value */
} vtg_grid_op;

typedef struct vtg_grid {
  uint32_t nops;
  vtg_grid_op ops[VTG_GRID_OPS];
  uint16_t out[3]; /* the ops giving the x, y and z group counts */
} vtg_grid;

/* The grid of *g for extent n into grid[3]; false when an op has no
 * value for it (a division by zero, a count above 65535 in y or z). */
bool vtg_grid_eval(const vtg_grid *g, uint64_t n, uint32_t grid[3]);

typedef struct vtg_array_launch {
  const char *kernel; /* a kernel of the lowered module (owned by it) */
  uint32_t grid[3];   /* workgroups (dynamic != NULL: computed at each launch) */
  vtg_grid *dynamic;  /* a kernel over a dynamic extent: its grid's ops (owned); NULL: static */
} vtg_array_launch;

typedef struct vtg_array_kernel {
  const char *name;  /* owned by the lowered module */
  char *glsl;        /* NUL-terminated */
  size_t glsl_len;
  uint32_t *spirv;
  size_t nwords;
  char *manifest;    /* YAML (vulpy/manifest.h) */
} vtg_array_kernel;

typedef struct vtg_array_result {
  char *vir;     /* the array function as parsed (before fusion), no locations */
  char *fused;   /* after fuse; NULL when o->fuse is false */
  char *lowered; /* after lower-arrays: kernels and launches */
  vtg_array_launch *launches; /* in order */
  uint32_t nlaunches;
  vtg_array_kernel *kernels;  /* o->targets: one per kernel, in module order */
  uint32_t nkernels;
} vtg_array_result;

/* Compiles the verified module `m` in place (afterwards it holds the
 * lowered kernels and an empty array function: the back ends see kernels
 * only, the launches are in *r). Fills *r (free it with
 * vtg_array_result_free, also after a failure). False: diagnostics say
 * why. */
bool vtg_compile_array(vir_module *m, const vtg_array_options *o, vtg_array_result *r,
                       vp_diags *d);
void vtg_array_result_free(vtg_array_result *r);
/* The array function of a module (NULL: none; a kernel-only module). */
vir_func *vtg_array_func(const vir_module *m);

/* --- kernel cache entries (lib/Target/cache_entry.c) ------------------ */
/* Whether a cached kernel's SPIR-V (nbytes bytes, any alignment) and
 * manifest YAML may be used: true, or false with the reason in why (a
 * sentence for CacheWarning): not SPIR-V, SPIRV-Tools rejects it, the
 * manifest does not parse, or the module's reflection disagrees with it. */
bool vtg_check_cache_entry(const void *spirv, size_t nbytes, const char *yaml, size_t ylen,
                           char *why, size_t whylen);

/* --- the kernel cache on disk (lib/Target/kernel_cache.c) ------------- */
/* One compile's artifacts under a key, in a folder whose files are
 * treated as hostile: every check of docs/errors.md ("The kernel cache")
 * runs before an entry is used. */
enum { VTG_KCACHE_ENTRY_MAX = 64 << 20 };
typedef enum vtg_kcache_result {
  VTG_KCACHE_MISS,    /* no entry, or one of another build or format */
  VTG_KCACHE_HIT,     /* every check passed */
  VTG_KCACHE_REFUSED, /* an entry that fails a check (why says which) */
} vtg_kcache_result;
/* One artifact: a name ("spirv", "manifest", ...), its kind ('b' bytes,
 * 's' UTF-8 text) and its bytes. */
typedef struct vtg_kcache_part {
  const char *name;
  char kind;
  const void *data;
  size_t len;
} vtg_kcache_part;
/* A loaded entry: the parts point into `file`. */
typedef struct vtg_kcache_entry {
  char *file;
  vtg_kcache_part *parts;
  uint32_t nparts;
} vtg_kcache_entry;

/* Makes `folder` (0700) if needed and reads its secret (32 random bytes,
 * mode 0600, made on first use) into `secret`: true, or false with the
 * sentence for a CacheWarning in why (the folder or the root above it is
 * a link, not a directory, another user's or writable by other users; the
 * secret is readable by others or damaged). */
bool vtg_kcache_open(const char *folder, uint8_t secret[32], char *why, size_t whylen);
/* The entry under `key` (letters, digits, '_' and '-') written by
 * compiler `build`: a hit fills *e (free it with vtg_kcache_entry_free)
 * and marks the file recently used; a refusal says why, naming the file. */
vtg_kcache_result vtg_kcache_load(const char *folder, const uint8_t secret[32], const char *key,
                                  const char *build, vtg_kcache_entry *e, char *why,
                                  size_t whylen);
void vtg_kcache_entry_free(vtg_kcache_entry *e);
/* vtg_kcache_load's checks of a file's bytes `data` (read into memory,
 * written to: the header's strings are NUL-terminated in place): a hit
 * fills *e with parts pointing into data (e->file stays NULL: the caller
 * keeps data). */
vtg_kcache_result vtg_kcache_read(char *data, size_t len, const uint8_t secret[32],
                                  const char *key, const char *build, vtg_kcache_entry *e,
                                  char *why, size_t whylen);
/* Writes the entry (a temporary file renamed into place), then keeps the
 * folder under `cap` bytes by removing the least recently used entries
 * down to three quarters of it. *total is the folder's size as the caller
 * last knew it (-1: unknown, counted) and is updated. False when nothing
 * was written (a name that may not be stored, too big, a disk error):
 * the cache is an optimization, so that is never an error. */
bool vtg_kcache_store(const char *folder, const uint8_t secret[32], const char *key,
                      const char *build, const vtg_kcache_part *parts, uint32_t nparts,
                      uint64_t cap, int64_t *total);

#ifdef __cplusplus
}
#endif
#endif /* VULPY_TARGET_H */
