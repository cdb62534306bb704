/* cross_internal.h - what the SPIRV-Cross files share. */
#ifndef VULPY_CROSS_INTERNAL_H
#define VULPY_CROSS_INTERNAL_H

#include <spirv_cross/spirv_cross_c.h>

#include "vulpy/support.h"

/* A SPIRV-Cross context with one compiler and the errors it reported. */
typedef struct vtg_cross {
  spvc_context ctx;
  spvc_compiler comp;
  vp_strbuf errors;
} vtg_cross;

/* Parses `words` for `backend`; false with a diagnostic on failure. */
bool vtg_cross_open(vtg_cross *x, const uint32_t *words, size_t nwords, spvc_backend backend,
                    vp_diags *d);
void vtg_cross_close(vtg_cross *x);
/* The VP_FEAT bits of the module's capabilities (0 when malformed). */
uint32_t vtg_cross_features(const uint32_t *words, size_t nwords);
/* The location diagnostics about a SPIR-V module carry. */
vp_loc vtg_cross_loc(void);

#endif
