/* vulpy/passes.h - the VIR passes and the pipeline that runs them.
 *
 * A pass is one file in lib/Transforms with one public entry point,
 * vir_opt_* (optimizes within a level) or vir_lower_* (changes level). All
 * passes are listed once in vulpy/passes.def; that table drives
 * `vulpy-opt --help`, its flags and the pipelines.
 */
#ifndef VULPY_PASSES_H
#define VULPY_PASSES_H

#include "vulpy/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vir_pass_result {
  VIR_PASS_FAILURE,   /* diagnostics say why; the module may be half-changed */
  VIR_PASS_UNCHANGED,
  VIR_PASS_CHANGED,
} vir_pass_result;

typedef struct vir_pass_options {
  bool fast_math; /* allow float reassociation and built-in math */
  /* VP_FEAT bits the target device lacks; lower-arrays works around them
   * (no subgroup ops, 8-bit buffers as packed words). 0: it has them all. */
  uint32_t missing_features;
  /* lower-arrays: the device is a CPU running invocations as SIMD lanes
   * (lavapipe). A select then computes both operands as values before
   * choosing (a branch on a per-element condition runs both sides under
   * masks anyway; on a GPU it skips the side no invocation of a warp
   * takes), and only kernels without costly math read vec4s (the SIMD is
   * across invocations: four elements per invocation only lengthen each
   * lane's work, while wide accesses still help memory-bound kernels). */
  bool cpu_device;
  /* lower-arrays: the cap on the workgroups of a full reduction (a power
   * of two, 64..32768); 0: the built-in default (VIR_REDUCE_GROUPS_GPU,
   * VIR_REDUCE_GROUPS_CPU on a CPU device). Benchmarks sweep it. */
  uint32_t reduce_groups;
} vir_pass_options;

/* lower-arrays' default caps on a full reduction's workgroups (the reasons
 * are in lower_arrays/lower_arrays.h); vulpy-opt --help prints these. */
#define VIR_REDUCE_GROUPS_GPU 4096u
#define VIR_REDUCE_GROUPS_CPU 1024u
/* Whether `groups` is a valid vir_pass_options.reduce_groups (0, or a power
 * of two from 64 to 32768); lower-arrays refuses any other. */
bool vir_reduce_groups_valid(uint32_t groups);

typedef vir_pass_result (*vir_pass_fn)(vir_module *m, const vir_pass_options *opts,
                                       vp_diags *diags);

typedef struct vir_pass_info {
  const char *name;    /* the flag: --canonicalize */
  const char *summary; /* one line for --help */
  vir_pass_fn run;
} vir_pass_info;

/* Declares every pass's entry point. */
#define VIR_PASS(FN, NAME, SUMMARY) \
  vir_pass_result FN(vir_module *m, const vir_pass_options *opts, vp_diags *diags);
#include "vulpy/passes.def"
#undef VIR_PASS

/* All registered passes, in the order of passes.def. */
const vir_pass_info *vir_pass_table(size_t *count);
const vir_pass_info *vir_pass_lookup(const char *name);

typedef struct vir_pipeline_options {
  vir_pass_options pass;
  bool verify_each; /* run vir_verify after every pass */
  /* Called after each pass when set (--print-after-all). */
  void (*after_pass)(const vir_pass_info *pass, const vir_module *m, void *ctx);
  void *ctx;
} vir_pipeline_options;

/* What runs before a back end when the source asks for nothing else
 * (vir_module.pipeline): memsock.* ops, then persistent.* ops with the
 * default grid barrier, "flip" (docs/persistent.md, "Barrier variants";
 * bindings/python/vulpy/_persistent.py DEFAULT_BARRIER says the same for
 * @vp.kernel). */
#define VIR_BACKEND_PIPELINE "lower-memsock,lower-persistent-flip"

/* Runs the comma-separated pass names in order ("canonicalize,cse,dce").
 * An unknown name is an error before anything runs. */
vir_pass_result vir_run_pipeline(vir_module *m, const char *pipeline,
                                 const vir_pipeline_options *opts, vp_diags *diags);

#ifdef __cplusplus
}
#endif
#endif /* VULPY_PASSES_H */
