/* pcache_entry.c - the pipeline cache file's header: written in front of a
 * VkPipelineCache blob, and checked before a blob read back from disk goes
 * to the driver (which trusts it). Kept apart from pcache.c, which needs
 * Vulkan, so that the reader is fuzzed on its own (fuzz_cache_entry). */
#include "pcache_entry.h"

#include <string.h>

#include "vulpy/support.h"

static const char magic[8] = {'V', 'U', 'L', 'P', 'Y', 'P', 'C', '2'};

void vrt__pcache_entry_write(uint8_t *out, const uint8_t key_sha[32], const void *blob,
                             size_t size) {
  uint8_t *body = out + VRT_PCACHE_HEADER;
  if (blob != body)
    memmove(body, blob, size);
  uint64_t size64 = size;
  memcpy(out, magic, 8);
  memcpy(out + 8, key_sha, 32);
  vp_sha256_of(body, size, out + 40);
  memcpy(out + 72, &size64, 8);
}

bool vrt__pcache_entry_read(const void *file, size_t len, const uint8_t key_sha[32],
                            const uint8_t **blob, size_t *size) {
  const uint8_t *f = file;
  if (len < VRT_PCACHE_HEADER || memcmp(f, magic, 8) != 0 || memcmp(f + 8, key_sha, 32) != 0)
    return false;
  uint64_t size64;
  memcpy(&size64, f + 72, 8);
  if (size64 != len - VRT_PCACHE_HEADER)
    return false;
  uint8_t sha[32];
  vp_sha256_of(f + VRT_PCACHE_HEADER, (size_t)size64, sha);
  if (memcmp(sha, f + 40, 32) != 0)
    return false;
  *blob = f + VRT_PCACHE_HEADER;
  *size = (size_t)size64;
  return true;
}
