/* cache_entry.c - whether a kernel cache entry's SPIR-V and manifest may
 * be used (vtg_check_cache_entry).
 *
 * The kernel cache (.vpk files, kernel_cache.c) checks an entry's key,
 * build, payload SHA-256 and HMAC; what it holds is SPIR-V words and a
 * manifest, which come here before a hit is used:
 * the words must be a SPIR-V module that SPIRV-Tools validates (for the
 * Vulkan version its header names), the manifest must parse, and the
 * module's reflection (SPIRV-Cross) must agree with the manifest on the
 * local size, each buffer's set, binding and element size, and the push
 * block's layout (a manifest that lies about the module would make the
 * runtime bind or push the wrong bytes). It was the body of the
 * extension's check_entry; here it is library code that fuzz_cache_entry
 * reaches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulpy/target.h"

bool vtg_check_cache_entry(const void *spirv, size_t nbytes, const char *yaml, size_t ylen,
                           char *why, size_t whylen) {
  why[0] = 0;
  size_t n = nbytes / 4;
  vp_diags d = {0};
  vpm_manifest *cached = NULL, *refl = NULL;
  /* the words, aligned (a Python bytes object is, a file's slice may not be) */
  uint32_t *w = n ? malloc(n * 4) : NULL;
  if (w)
    memcpy(w, spirv, n * 4);
  if (nbytes % 4 || n < 5 || !w || w[0] != 0x07230203u) {
    snprintf(why, whylen, "not a SPIR-V module");
    goto done;
  }
  unsigned ver = (w[1] >> 8) & 0xffff; /* 0x0105 = SPIR-V 1.5 */
  unsigned vulkan = ver >= 0x0106 ? 13 : ver >= 0x0104 ? 12 : 11;
  if (!vtg_spirv_validate(w, n, vulkan, &d)) {
    snprintf(why, whylen, "its SPIR-V does not validate");
    goto done;
  }
  cached = vpm_parse(yaml, ylen, "<cached manifest>", &d);
  if (!cached) {
    snprintf(why, whylen, "its manifest does not parse");
    goto done;
  }
  refl = vtg_reflect_spirv(w, n, &d);
  if (!refl) {
    snprintf(why, whylen, "its SPIR-V cannot be reflected");
    goto done;
  }
  for (int k = 0; k < 3 && !why[0]; k++)
    if (refl->local_size[k] && cached->local_size[k] != refl->local_size[k])
      snprintf(why, whylen, "its manifest's local size differs from the SPIR-V's");
  if (!why[0] && refl->nbuffers != cached->nbuffers)
    snprintf(why, whylen, "its manifest has %u buffers, the SPIR-V %u", cached->nbuffers,
             refl->nbuffers);
  for (uint32_t i = 0; i < refl->nbuffers && !why[0]; i++) {
    const vpm_buffer *r = &refl->buffers[i];
    bool found = false;
    for (uint32_t j = 0; j < cached->nbuffers && !found; j++) {
      const vpm_buffer *c = &cached->buffers[j];
      found = c->set == r->set && c->binding == r->binding &&
              (!r->elem_size || c->elem_size == r->elem_size);
    }
    if (!found)
      snprintf(why, whylen, "the SPIR-V's buffer at set %u, binding %u is not in its manifest",
               r->set, r->binding);
  }
  if (!why[0] && refl->push_size != cached->push_size)
    snprintf(why, whylen, "its manifest's push block is %u bytes, the SPIR-V's %u",
             cached->push_size, refl->push_size);
  for (uint32_t i = 0; i < refl->npush && !why[0]; i++) {
    bool found = false;
    for (uint32_t j = 0; j < cached->npush && !found; j++)
      found = cached->push[j].offset == refl->push[i].offset &&
              cached->push[j].size == refl->push[i].size;
    if (!found)
      snprintf(why, whylen, "the SPIR-V's push field at offset %u is not in its manifest",
               refl->push[i].offset);
  }
done:
  free(w);
  vpm_free(cached);
  vpm_free(refl);
  vp_diags_free(&d);
  return why[0] == 0;
}
