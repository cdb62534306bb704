/* control.c - control buffers: named uint32 words shared by host and GPU.
 *
 * The words live in host-visible, host-coherent memory (kind `rebar`, with
 * coherence required: device-local where the device can map it, else host
 * memory), persistently mapped, so the host sees a GPU atomic as
 * soon as the device makes it available and the GPU sees a host store
 * without any flush: this is what lets a host read counters of a kernel that
 * is still running, or steer it. Host access uses C11 atomics on the mapped
 * words: acquire loads, release stores, sequentially consistent adds. (The
 * kernel side uses atomics with device scope; docs/runtime.md says how.)
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct vrt_control {
  vrt_context *ctx;
  vrt_control *prev, *next;
  vrt_buffer *buf;
  uint32_t words, nnames;
  char **names;
};

static _Atomic uint32_t *word_ptr(const vrt_control *c, uint32_t word) {
  return (_Atomic uint32_t *)((uint32_t *)c->buf->map + word);
}

vrt_control *vrt_control_create(vrt_context *ctx, const char *const *names, uint32_t nnames,
                                uint32_t words, vp_diags *d) {
  if (!vrt__alive(ctx, d))
    return NULL;
  if (words < nnames)
    words = nnames;
  if (!words) {
    vrt__error(ctx, d, "a control buffer needs at least one word");
    return NULL;
  }
  for (uint32_t i = 0; i < nnames; i++) {
    if (!names[i] || !*names[i]) {
      vrt__error(ctx, d, "control word %u has an empty name", i);
      return NULL;
    }
    for (uint32_t k = 0; k < i; k++)
      if (strcmp(names[i], names[k]) == 0) {
        vrt__error(ctx, d, "control word name '%s' is used twice", names[i]);
        return NULL;
      }
  }
  vrt_control *c = calloc(1, sizeof *c);
  char **copy = calloc(nnames ? nnames : 1, sizeof *copy);
  bool ok = c && copy;
  for (uint32_t i = 0; ok && i < nnames; i++)
    ok = (copy[i] = strdup(names[i])) != NULL;
  if (!ok) {
    for (uint32_t i = 0; copy && i < nnames; i++)
      free(copy[i]);
    free(copy);
    free(c);
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  c->ctx = ctx;
  c->words = words;
  c->nnames = nnames;
  c->names = copy;
  pthread_mutex_lock(&ctx->lock);
  /* Device-local where the device can map it (resizable BAR), else host
   * memory. A running kernel must see the host's writes: measured on the
   * H200, device-scope atomic loads of host (system) memory never saw a
   * host write during a dispatch - the GPU's L2 keeps the line, and Vulkan
   * has no system scope - while host writes through the BAR land in the
   * GPU's own memory, behind that L2. */
  c->buf = vrt__buffer_create(ctx, (uint64_t)words * 4, VRT_REBAR,
                              VRT_MEM_HOST_VISIBLE | VRT_MEM_HOST_COHERENT, d);
  if (c->buf)
    VRT_LINK(ctx->controls, c);
  pthread_mutex_unlock(&ctx->lock);
  if (!c->buf) {
    for (uint32_t i = 0; i < nnames; i++)
      free(copy[i]);
    free(copy);
    free(c);
    return NULL;
  }
  return c;
}

void vrt__control_release(vrt_control *c) {
  vrt_context *ctx = c->ctx;
  VRT_UNLINK(ctx->controls, c);
  vrt__buffer_release(c->buf);
  for (uint32_t i = 0; i < c->nnames; i++)
    free(c->names[i]);
  free(c->names);
  free(c);
}

void vrt_control_destroy(vrt_control *c) {
  if (!c)
    return;
  vrt_context *ctx = c->ctx;
  vp_diags ignore = {0};
  if (!vrt_context_lost(ctx))
    vrt_wait(ctx, atomic_load(&c->buf->last_use), UINT64_MAX, &ignore);
  vp_diags_free(&ignore);
  pthread_mutex_lock(&ctx->lock);
  vrt__control_release(c);
  pthread_mutex_unlock(&ctx->lock);
}

vrt_buffer *vrt_control_buffer(const vrt_control *c) { return c->buf; }
uint32_t vrt_control_words(const vrt_control *c) { return c->words; }
uint32_t *vrt_control_data(const vrt_control *c) { return c->buf->map; }

int vrt_control_index(const vrt_control *c, const char *name) {
  for (uint32_t i = 0; i < c->nnames; i++)
    if (strcmp(c->names[i], name) == 0)
      return (int)i;
  return -1;
}

const char *vrt_control_name(const vrt_control *c, uint32_t word) {
  return word < c->nnames ? c->names[word] : NULL;
}

uint32_t vrt_control_load(const vrt_control *c, uint32_t word) {
  return atomic_load_explicit(word_ptr(c, word), memory_order_acquire);
}

void vrt_control_store(vrt_control *c, uint32_t word, uint32_t value) {
  vrt__host_store(word_ptr(c, word), value);
}

uint32_t vrt_control_add(vrt_control *c, uint32_t word, uint32_t delta) {
  return atomic_fetch_add_explicit(word_ptr(c, word), delta, memory_order_seq_cst);
}
