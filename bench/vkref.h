/* vkref.h - the raw-Vulkan reference of the benchmarks, as a library.
 *
 * bench/vkref.c is a self-contained Vulkan compute program (volk, SPIR-V
 * compiled from bench/shaders/ at build time, no VulPy code). It builds
 * twice: the `vkref` executable prints every figure as JSON, and
 * libvkref.so exposes the calls below so that bench/bench_compare.py can
 * interleave raw-Vulkan runs with VulPy runs in one process (ctypes).
 *
 * Every call returns a negative value (or NULL) on failure and leaves a
 * message in vkref_error(). Times are nanoseconds.
 */
#ifndef VKREF_H
#define VKREF_H

#include <stddef.h>
#include <stdint.h>

#define VKREF_API __attribute__((visibility("default")))

typedef struct vkref vkref;

/* The streaming kernels: y = x or y = sin(x) + exp(x), float or vec4 accesses. */
enum { VKREF_COPY = 0, VKREF_SINEXP = 1, VKREF_COPY4 = 2, VKREF_SINEXP4 = 3, VKREF_NKERNELS = 4 };

/* Opens device `index` (-1: the first discrete GPU, else the first device). */
VKREF_API vkref *vkref_open(int index, char *err, size_t errlen);
VKREF_API void vkref_close(vkref *r);
VKREF_API const char *vkref_error(const vkref *r);
VKREF_API const char *vkref_device_name(const vkref *r);
/* "dgpu", "igpu", "cpu", "vgpu" or "other". */
VKREF_API const char *vkref_device_kind(const vkref *r);
VKREF_API const char *vkref_driver(const vkref *r);
/* The largest float count vkref_stream_prepare accepts (allocation limits). */
VKREF_API uint64_t vkref_max_elements(const vkref *r);

/* Allocates x and y (n float32 each, device-local), fills x with
 * linspace(0, 1, n) through a staging buffer. */
VKREF_API int vkref_stream_prepare(vkref *r, uint64_t n);
/* Poisons y, runs `kernel` once over the prepared n elements and checks y
 * against libm in double: returns the largest relative error (copy: the
 * number of mismatching words), < 0 on failure. */
VKREF_API double vkref_stream_verify(vkref *r, int kernel);
/* One dispatch of `kernel`, timed with GPU timestamps: ns, < 0 on failure. */
VKREF_API double vkref_stream_run(vkref *r, int kernel);

/* Creates (and destroys) the pipeline of `kernel` `iters` times from its
 * SPIR-V, with no VkPipelineCache (a driver may still cache on its own):
 * wall ns of each vkCreateShaderModule + vkCreateComputePipelines. */
VKREF_API int vkref_pipeline(vkref *r, int kernel, int iters, double *ns);

/* The tiny kernel's sync round trip, `iters` times from a prerecorded command
 * buffer: submit + vkWaitForFences (spin = 0) or submit + polling
 * vkGetFenceStatus (spin = 1). Writes each wall time into ns[]. */
VKREF_API int vkref_latency(vkref *r, int spin, int iters, double *ns);
/* `count` tiny dispatches in one command buffer (with a barrier between
 * each when `barrier`), one submission: wall ns per dispatch, and the
 * GPU's per-dispatch ns (timestamps) in *gpu_ns. */
VKREF_API double vkref_batch(vkref *r, int count, int barrier, double *gpu_ns);
/* `count` submissions of the prerecorded tiny dispatch without waiting in
 * between, then one wait: wall ns for all of them. */
VKREF_API double vkref_async(vkref *r, int count);

/* Transfers of `bytes` for memory kind "device", "host", "cached" or
 * "rebar", `reps` times after one checked round trip and one warm-up; `what` is one of
 *   "upload"    host array -> a buffer of that kind the GPU can read
 *               (device: memcpy to staging + copy on the GPU; others: memcpy
 *               into the mapped memory), wall time
 *   "download"  the reverse, wall time
 *   "gpu-read"  the GPU copies the kind's buffer into device memory (timestamps)
 *   "gpu-write" the GPU copies device memory into the kind's buffer (timestamps)
 * Writes each transfer's ns into ns[]; returns 0, -1 on failure, -2 when
 * the device has no memory of that kind. */
VKREF_API int vkref_transfer(vkref *r, const char *kind, const char *what, uint64_t bytes,
                             int reps, double *ns);

#endif
