/* vulpy/runtime_env.h - the VULPY_* environment variables as context options.
 *
 * The runtime library reads no environment variables: every choice is a
 * field of vrt_context_options. Programs that honour the variables - the
 * Python extension, vulpy-run, runtime_bench, the runtime's own tests -
 * fill the options here, the one place that parses them
 * (lib/RuntimeEnv, library vulpy_runtime_env; not part of vulpy_runtime).
 *
 *   variable                 field                 values
 *   VULPY_DEVICE             device                a selector (vrt_select_device)
 *   VULPY_VALIDATION         validation            "0" or "": off; anything else: on
 *   VULPY_CACHE_DIR          cache_dir             a folder; else $XDG_CACHE_HOME/vulpy,
 *     XDG_CACHE_HOME, HOME                         else $HOME/.cache/vulpy
 *   VULPY_WAIT               wait                  spin-block, block, spin, default
 *   VULPY_SPIN_US            spin_us               microseconds; 0: wait = block
 *   VULPY_COPY_THREADS       copy_threads          1.. (above 64: 64)
 *   VULPY_FMA                fma                   fused, unfused; else auto
 *   VULPY_DENORM             denorm                auto, default, preserve, emulate
 *   VULPY_EXPORT_SEMAPHORES  no_export_semaphores  0: set (1: the default)
 *   VULPY_STREAM_QUEUES      single_queue          0: set (1: the default)
 *   VULPY_PREWARM            no_prewarm            0: set (1: the default)
 *   VULPY_FORK_CHILD         fork_child            auto, refuse, try
 *   VULPY_VULKAN_LIBRARY     vulkan_library        a loader file
 *   VULPY_STAGING_SLOTS      staging_slots         2 to 8
 *   VULPY_STAGING_MIB        staging_slot_mib      1 to 256
 *   VULPY_UPLOAD_IMPORT_MIB  upload_import_mib     1 to 4096 (0: never)
 *   VULPY_EAGER_BATCH        eager_batch           1 to 64, adaptive
 * An unset or empty variable leaves its field alone; a value a variable
 * does not take is an error naming the variable (VULPY_FMA takes any:
 * values other than fused and unfused keep the detection, as documented).
 */
#ifndef VULPY_RUNTIME_ENV_H
#define VULPY_RUNTIME_ENV_H

#include "vulpy/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What vrt_env_context_options keeps for the options it filled: the cache
 * folder's path (opt->cache_dir may point here) and, for messages, the
 * variables that set a field ("VULPY_DEVICE=cpu VULPY_WAIT=spin"). */
typedef struct vrt_env {
  char cache_dir[4096];
  char used[1024];
} vrt_env;

/* Fills the fields of *opt that are not chosen yet from the environment:
 * NULL strings, a negative validation, 0 numbers, the AUTO / DEFAULT enum
 * values, false flags (an explicit choice in *opt wins over a variable).
 * String fields point into the environment or into *env: both must outlive
 * the vrt_context_create call. False with an error naming the variable for
 * a value it does not take (*opt may then be partly filled). */
bool vrt_env_context_options(vrt_context_options *opt, vrt_env *env, vp_diags *d);

/* After a failed vrt_context_create: a note naming the variables that set
 * options, so that an error about a device or a mode says where the choice
 * came from. Nothing when none did. */
void vrt_env_note(const vrt_env *env, vp_diags *d);

/* vrt_loader_open with VULPY_VULKAN_LIBRARY: for programs that list devices
 * (vrt_list_devices) before, or without, making a context. */
bool vrt_env_loader_open(vp_diags *d);

#ifdef __cplusplus
}
#endif

#endif /* VULPY_RUNTIME_ENV_H */
