/* fuzz_cache_entry.c - libFuzzer target: the readers of cache entries on
 * arbitrary bytes.
 *
 * The first byte picks the reader:
 *  - even: a pipeline cache file (runtime/pcache_entry.c: magic, the key's
 *    SHA-256, the blob's SHA-256, its size, the blob). The rest of the
 *    input is the file; the key it is checked against is the one the file
 *    names (so mutations get past the key), and with bit 1 set the blob's
 *    SHA-256 is corrected first (so they get past the hash too). An entry
 *    that is accepted must be exactly what the writer makes of its blob.
 *  - odd, bit 2 clear: a kernel cache entry's payload
 *    (lib/Target/cache_entry.c: SPIRV-Tools validation, the manifest,
 *    SPIRV-Cross reflection compared with it). The rest is a 4-byte
 *    little-endian SPIR-V length, the SPIR-V, then the manifest YAML.
 *  - odd, bit 2 set: a whole kernel cache file (.vpk, vtg_kcache_read in
 *    lib/Target/kernel_cache.c: magic, the JSON header, the HMAC under an
 *    all-zero secret, key "k0", build "b0", the payload's SHA-256). An
 *    accepted entry's parts must tile the payload exactly.
 * Nothing may crash, hang or leak (ASan and UBSan watch); a refused entry
 * must say why. Seeds: test/fuzz/corpus/fuzz_cache_entry (entries of both
 * kinds made from the SPIR-V and manifests of examples/saxpy.vir and
 * test/IR/roundtrip-memory.vir).
 *
 * scripts/fuzz.sh reads the lines below.
 */
// sources: lib/Support/support.c lib/Support/sha256.c lib/Manifest/manifest.c lib/Manifest/manifest_emit.c lib/Target/Cross/cross.c lib/Target/Cross/reflect.c lib/Target/SPIRV/spirv.c lib/Target/SPIRV/optimize.cpp lib/Target/cache_entry.c lib/Target/kernel_cache.c runtime/pcache_entry.c
// cflags: -Iruntime
// libs: -lyaml -lspirv-cross-c-shared -lSPIRV -lglslang -lMachineIndependent -lOGLCompiler -lOSDependent -lGenericCodeGen -lglslang-default-resource-limits -lSPIRV-Tools-opt -lSPIRV-Tools-link -lSPIRV-Tools -lpthread -lrt
// link: vulpy_runtime vulpy_target
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcache_entry.h"
#include "vulpy/support.h"
#include "vulpy/target.h"

static void pipeline_entry(const uint8_t *data, size_t size, bool fix_sha) {
  uint8_t *file = malloc(size ? size : 1);
  if (!file)
    return;
  memcpy(file, data, size);
  uint8_t key[32] = {0};
  if (size >= 40)
    memcpy(key, file + 8, 32);
  if (fix_sha && size >= VRT_PCACHE_HEADER)
    vp_sha256_of(file + VRT_PCACHE_HEADER, size - VRT_PCACHE_HEADER, file + 40);
  const uint8_t *blob = NULL;
  size_t n = 0;
  if (vrt__pcache_entry_read(file, size, key, &blob, &n)) {
    if (blob != file + VRT_PCACHE_HEADER || n != size - VRT_PCACHE_HEADER) {
      fprintf(stderr, "fuzz_cache_entry: the accepted blob is not the file's tail\n");
      abort();
    }
    uint8_t *again = malloc(size);
    vrt__pcache_entry_write(again, key, blob, n);
    if (memcmp(again, file, size) != 0) {
      fprintf(stderr, "fuzz_cache_entry: an accepted entry is not what the writer makes\n");
      abort();
    }
    free(again);
  }
  free(file);
}

static void kernel_entry(const uint8_t *data, size_t size) {
  if (size < 4)
    return;
  uint32_t len = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                 (uint32_t)data[3] << 24;
  data += 4;
  size -= 4;
  if (len > size)
    len = (uint32_t)size;
  /* exact-size copies, so that ASan sees a read past either part */
  uint8_t *spirv = malloc(len ? len : 1);
  char *yaml = malloc(size - len + 1);
  memcpy(spirv, data, len);
  memcpy(yaml, data + len, size - len);
  yaml[size - len] = 0;
  char why[256];
  if (!vtg_check_cache_entry(spirv, len, yaml, size - len, why, sizeof why) && !why[0]) {
    fprintf(stderr, "fuzz_cache_entry: an entry was refused without a reason\n");
    abort();
  }
  free(spirv);
  free(yaml);
}

static void kernel_file(const uint8_t *data, size_t size) {
  char *file = malloc(size ? size : 1); /* exact size: ASan sees a read past it */
  memcpy(file, data, size);
  static const uint8_t secret[32];
  vtg_kcache_entry e;
  char why[256];
  vtg_kcache_result r = vtg_kcache_read(file, size, secret, "k0", "b0", &e, why, sizeof why);
  if (r == VTG_KCACHE_REFUSED && !why[0]) {
    fprintf(stderr, "fuzz_cache_entry: a kernel cache file was refused without a reason\n");
    abort();
  }
  if (r == VTG_KCACHE_HIT) {
    const char *at = e.nparts ? e.parts[0].data : file + size;
    for (uint32_t i = 0; i < e.nparts; i++) {
      if (e.parts[i].data != at) {
        fprintf(stderr, "fuzz_cache_entry: an accepted entry's parts do not tile it\n");
        abort();
      }
      at += e.parts[i].len;
    }
    if (at != file + size) {
      fprintf(stderr, "fuzz_cache_entry: an accepted entry's parts end before the file\n");
      abort();
    }
  }
  vtg_kcache_entry_free(&e);
  free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  if ((data[0] & 5) == 5)
    kernel_file(data + 1, size - 1);
  else if (data[0] & 1)
    kernel_entry(data + 1, size - 1);
  else
    pipeline_entry(data + 1, size - 1, (data[0] & 2) != 0);
  return 0;
}
