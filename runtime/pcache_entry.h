/* pcache_entry.h - the pipeline cache file's format, apart from Vulkan:
 *
 *   "VULPYPC2" | SHA-256 of the pipeline's inputs and the device (32) |
 *   SHA-256 of the blob (32) | blob size (u64, host order) | blob
 *
 * pcache.c writes and reads files of this format; the reader trusts
 * nothing in them (test/fuzz/fuzz_cache_entry.c fuzzes it). */
#ifndef VULPY_RUNTIME_PCACHE_ENTRY_H
#define VULPY_RUNTIME_PCACHE_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { VRT_PCACHE_HEADER = 8 + 32 + 32 + 8 };

/* The file's bytes for `blob` under `key_sha` into out, which holds
 * VRT_PCACHE_HEADER + size bytes (the blob may already be in place at
 * out + VRT_PCACHE_HEADER: blob == that pointer is allowed). */
void vrt__pcache_entry_write(uint8_t *out, const uint8_t key_sha[32], const void *blob,
                             size_t size);
/* True when `file` (len bytes) is a whole entry for key_sha whose blob
 * hashes to its recorded SHA-256; *blob then points into file and *size
 * is its length. False for anything else (short, another magic or key, a
 * size that disagrees with the file's, a damaged blob). */
bool vrt__pcache_entry_read(const void *file, size_t len, const uint8_t key_sha[32],
                            const uint8_t **blob, size_t *size);

#endif
