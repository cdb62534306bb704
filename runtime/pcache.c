/* pcache.c - pipelines: creation, the in-memory cache and the disk cache.
 *
 * A pipeline's key hashes everything it is made from: the SPIR-V words, the
 * entry point, the specialized local size, the VP_FMA_FUSED specialization
 * (the device's fma, or VULPY_FMA), the DenormPreserve widths the module
 * was given (denorm.c: the device's, or VULPY_DENORM; the patched words
 * differ too), the descriptor layout and push size from the manifest, and
 * the runtime's cache version. The context keeps
 * every pipeline it made under its key (the in-memory cache), so a second
 * kernel from the same SPIR-V and manifest costs a lookup.
 *
 * On disk each pipeline has one VkPipelineCache blob:
 *   $XDG_CACHE_HOME/vulpy/pipelines/<pipelineCacheUUID>/<key>.bin
 * behind a header of our own: magic, the SHA-256 of everything the
 * pipeline is made from plus the device's identity (vendor, device, driver
 * version, pipelineCacheUUID), the blob's size and its SHA-256. The blob
 * goes to the driver, which trusts it, so the disk is treated as hostile
 * (issue 20): the cache folder must be a directory owned by this user that
 * no other user may write (made 0700; vrt__cache_dir_prepare refuses any
 * other, with a warning, and the context runs without a disk cache); a
 * file is opened without following symbolic links or blocking (a FIFO
 * named like an entry), must be a regular file of this user under
 * BLOB_MAX bytes, and is used only when its header and both hashes match.
 * Anything else is ignored and rewritten; files are written to a
 * temporary name and renamed, so a reader never sees half a file. Disk
 * failures are never errors: the cache is an optimization.
 */
#include "internal.h"
#include "pcache_entry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CACHE_VERSION = 1, BLOB_MAX = 256 << 20 };


static void cache_path(vrt_context *ctx, uint64_t key, char *out, size_t n, bool dir_only) {
  char uuid[33];
  for (int i = 0; i < 16; i++)
    snprintf(uuid + 2 * i, 3, "%02x", ctx->info.pipeline_cache_uuid[i]);
  if (dir_only)
    snprintf(out, n, "%s/pipelines/%s", ctx->cache_dir, uuid);
  else
    snprintf(out, n, "%s/pipelines/%s/%016llx.bin", ctx->cache_dir, uuid,
             (unsigned long long)key);
}

static void mkdirs(const char *path) {
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      mkdir(tmp, 0700);
      *p = '/';
    }
  mkdir(tmp, 0700);
}

bool vrt__cache_dir_prepare(const char *dir, char *why, size_t n) {
  mkdirs(dir);
  struct stat st;
  if (lstat(dir, &st) != 0)
    return true; /* cannot be made (read-only?): no file will be written or read */
  if (S_ISLNK(st.st_mode))
    snprintf(why, n, "it is a symbolic link");
  else if (!S_ISDIR(st.st_mode))
    snprintf(why, n, "it is not a directory");
  else if (st.st_uid != geteuid())
    snprintf(why, n, "it is owned by uid %u, not by this user (%u)", (unsigned)st.st_uid,
             (unsigned)geteuid());
  else if (st.st_mode & (S_IWGRP | S_IWOTH))
    snprintf(why, n, "it is writable by other users (mode %03o)", (unsigned)(st.st_mode & 0777));
  else
    return true;
  return false;
}

/* The SHA-256 naming what the blob was made from: the pipeline's inputs
 * (as pipeline_key hashes them) and the device's identity. */
static void disk_key(vrt_context *ctx, const uint32_t *words, size_t nwords, const vpm_manifest *m,
                     const uint32_t local[3], const int32_t spec_id[3], uint32_t push_size,
                     uint32_t denorm, uint8_t out[32]) {
  vp_sha256 s;
  vp_sha256_init(&s);
  uint32_t head[8] = {CACHE_VERSION,          (uint32_t)nwords,         push_size,
                      ctx->info.fma_fused,    denorm,                   ctx->info.vendor_id,
                      ctx->info.device_id,    ctx->info.driver_version};
  vp_sha256_update(&s, head, sizeof head);
  vp_sha256_update(&s, ctx->info.pipeline_cache_uuid, 16);
  vp_sha256_update(&s, &ctx->push_descriptors, sizeof ctx->push_descriptors);
  vp_sha256_update(&s, words, nwords * 4);
  vp_sha256_update(&s, m->entry_point, strlen(m->entry_point) + 1);
  vp_sha256_update(&s, local, 12);
  vp_sha256_update(&s, spec_id, 12);
  for (uint32_t i = 0; i < m->nbuffers; i++) {
    uint32_t sb[2] = {m->buffers[i].set, m->buffers[i].binding};
    vp_sha256_update(&s, sb, 8);
  }
  vp_sha256_final(&s, out);
}

/* The whole regular file `path` of this user, opened without following a
 * symbolic link or blocking; NULL for anything else (*bad: it exists but
 * is not such a file, or is too big). */
static char *read_regular(const char *path, size_t *len, bool *bad) {
  *bad = false;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *bad = errno != ENOENT;
    return NULL;
  }
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      st.st_size > BLOB_MAX || !(buf = malloc((size_t)st.st_size + 1))) {
    *bad = true;
    close(fd);
    return NULL;
  }
  size_t n = 0;
  while (n < (size_t)st.st_size) {
    ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);
    if (got <= 0) {
      if (got < 0 && errno == EINTR)
        continue;
      break;
    }
    n += (size_t)got;
  }
  close(fd);
  *len = n;
  return buf;
}

/* Reads the blob; NULL when there is none or it is rejected. */
static void *load_blob(const uint8_t key_sha[32], size_t *size, vrt_kernel_stats *st) {
  size_t len = 0;
  bool bad;
  char *file = read_regular(st->cache_path, &len, &bad);
  if (!file) {
    st->disk_rejected = bad;
    return NULL;
  }
  const uint8_t *body = NULL;
  size_t n = 0;
  if (!vrt__pcache_entry_read(file, len, key_sha, &body, &n)) {
    st->disk_rejected = true;
    free(file);
    return NULL;
  }
  void *blob = malloc(n ? n : 1);
  if (blob)
    memcpy(blob, body, n);
  free(file);
  *size = n;
  st->disk_loaded = blob != NULL;
  return blob;
}

static void save_blob(vrt_context *ctx, uint64_t key, const uint8_t key_sha[32],
                      VkPipelineCache cache, vrt_kernel_stats *st) {
  size_t size = 0;
  if (ctx->vk.vkGetPipelineCacheData(ctx->device, cache, &size, NULL) != VK_SUCCESS ||
      size > BLOB_MAX)
    return;
  uint8_t *buf = malloc(VRT_PCACHE_HEADER + size);
  if (!buf)
    return;
  if (ctx->vk.vkGetPipelineCacheData(ctx->device, cache, &size, buf + VRT_PCACHE_HEADER) !=
      VK_SUCCESS) {
    free(buf);
    return;
  }
  vrt__pcache_entry_write(buf, key_sha, buf + VRT_PCACHE_HEADER, size);
  char dir[1024], tmp[1100];
  cache_path(ctx, key, dir, sizeof dir, true);
  mkdirs(dir);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", st->cache_path, (long)getpid());
  /* O_EXCL|O_NOFOLLOW: never write through a file or link planted there */
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  for (size_t at = 0, n = VRT_PCACHE_HEADER + size; ok && at < n;) {
    ssize_t w = write(fd, buf + at, n - at);
    if (w < 0 && errno == EINTR)
      continue;
    ok = w > 0;
    at += ok ? (size_t)w : 0;
  }
  if (fd >= 0 && close(fd) != 0)
    ok = false;
  if (ok && rename(tmp, st->cache_path) == 0)
    st->disk_written = true;
  else if (fd >= 0)
    unlink(tmp);
  free(buf);
}

static bool make_layouts(vrt_context *ctx, vrt_pipeline *p, const vpm_manifest *m,
                         uint32_t push_size, vp_diags *d) {
  uint32_t nsets = 0;
  for (uint32_t i = 0; i < m->nbuffers; i++)
    nsets = m->buffers[i].set + 1 > nsets ? m->buffers[i].set + 1 : nsets;
  p->nsets = nsets;
  p->push_descriptors = ctx->push_descriptors && nsets == 1 && m->nbuffers <= 32;
  for (uint32_t s = 0; s < nsets; s++) {
    VkDescriptorSetLayoutBinding binds[64];
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nbuffers && n < 64; i++)
      if (m->buffers[i].set == s)
        binds[n++] = (VkDescriptorSetLayoutBinding){
            .binding = m->buffers[i].binding,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = p->push_descriptors ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0,
        .bindingCount = n,
        .pBindings = binds,
    };
    if (!VRT_VK(ctx, d, vkCreateDescriptorSetLayout, ctx->device, &li, NULL, &p->sets[s]))
      return false;
  }
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
  VkPipelineLayoutCreateInfo pl = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = nsets,
      .pSetLayouts = p->sets,
      .pushConstantRangeCount = push_size ? 1 : 0,
      .pPushConstantRanges = &range,
  };
  return VRT_VK(ctx, d, vkCreatePipelineLayout, ctx->device, &pl, NULL, &p->layout);
}

static void pipeline_free(vrt_context *ctx, vrt_pipeline *p) {
  if (p->pipeline)
    ctx->vk.vkDestroyPipeline(ctx->device, p->pipeline, NULL);
  if (p->layout)
    ctx->vk.vkDestroyPipelineLayout(ctx->device, p->layout, NULL);
  for (uint32_t s = 0; s < p->nsets; s++)
    if (p->sets[s])
      ctx->vk.vkDestroyDescriptorSetLayout(ctx->device, p->sets[s], NULL);
  free(p);
}

static uint64_t pipeline_key(vrt_context *ctx, const uint32_t *words, size_t nwords,
                             const vpm_manifest *m, const uint32_t local[3],
                             const int32_t spec_id[3], uint32_t push_size, uint32_t denorm) {
  uint64_t h = vp_hash64(words, nwords * 4, CACHE_VERSION);
  h = vp_hash64(m->entry_point, strlen(m->entry_point), h);
  h = vp_hash64(local, 12, h);
  h = vp_hash64(spec_id, 12, h);
  h = vp_hash64(&push_size, 4, h);
  h = vp_hash64(&ctx->push_descriptors, sizeof ctx->push_descriptors, h);
  uint32_t fma = ctx->info.fma_fused; /* the VP_FMA_FUSED specialization */
  h = vp_hash64(&fma, 4, h);
  h = vp_hash64(&denorm, 4, h); /* the widths given DenormPreserve, VRT_DENORM_EMULATE */
  for (uint32_t i = 0; i < m->nbuffers; i++) {
    uint32_t sb[2] = {m->buffers[i].set, m->buffers[i].binding};
    h = vp_hash64(sb, 8, h);
  }
  return h;
}

vrt_pipeline *vrt__pipeline_get(vrt_context *ctx, const uint32_t *words, size_t nwords,
                                const vpm_manifest *m, const uint32_t local[3],
                                const int32_t spec_id[3], uint32_t push_size, bool trusted,
                                uint32_t denorm, vp_diags *d) {
  uint64_t key = pipeline_key(ctx, words, nwords, m, local, spec_id, push_size, denorm);
  for (vrt_pipeline *p = ctx->pipelines; p; p = p->next)
    if (p->key == key)
      return p;
  double t0 = vrt__now_ns() / 1e6;
  if (!trusted && !vrt__spirv_validate(ctx, words, nwords, d))
    return NULL;
  double t1 = vrt__now_ns() / 1e6;
  vrt_pipeline *p = calloc(1, sizeof *p);
  if (!p) {
    vrt__error(ctx, d, "out of host memory");
    return NULL;
  }
  p->key = key;
  p->stats.validate_ms = t1 - t0;
  p->stats.driver_hit = -1;
  p->stats.denorm_preserve = denorm & ~(uint32_t)VRT_DENORM_EMULATE;
  p->stats.denorm_emulate = (denorm & VRT_DENORM_EMULATE) != 0;
  if (!make_layouts(ctx, p, m, push_size, d)) {
    pipeline_free(ctx, p);
    return NULL;
  }
  p->stats.push_descriptors = p->push_descriptors;

  VkShaderModuleCreateInfo si = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = nwords * 4,
      .pCode = words,
  };
  VkShaderModule module;
  if (!VRT_VK(ctx, d, vkCreateShaderModule, ctx->device, &si, NULL, &module)) {
    pipeline_free(ctx, p);
    return NULL;
  }
  /* The local size (when the module reads it from specialization constants)
   * and VP_FMA_FUSED and VP_DENORM_EMULATE, which every pipeline gets: an ID
   * the module does not use is ignored (Vulkan), so raw GLSL kernels may
   * declare them too. */
  uint32_t values[5] = {local[0], local[1], local[2], ctx->info.fma_fused ? VK_TRUE : VK_FALSE,
                        (denorm & VRT_DENORM_EMULATE) ? VK_TRUE : VK_FALSE};
  VkSpecializationMapEntry entries[5];
  uint32_t nentries = 0;
  bool fma_taken = false, denorm_taken = false;
  for (uint32_t k = 0; k < 3; k++)
    if (spec_id[k] >= 0) {
      entries[nentries++] = (VkSpecializationMapEntry){(uint32_t)spec_id[k], 4 * k, 4};
      fma_taken |= spec_id[k] == VRT_FMA_SPEC_ID;
      denorm_taken |= spec_id[k] == VRT_DENORM_SPEC_ID;
    }
  if (!fma_taken)
    entries[nentries++] = (VkSpecializationMapEntry){VRT_FMA_SPEC_ID, 12, 4};
  if (!denorm_taken)
    entries[nentries++] = (VkSpecializationMapEntry){VRT_DENORM_SPEC_ID, 16, 4};
  VkSpecializationInfo spec = {nentries, entries, sizeof values, values};

  double t2 = vrt__now_ns() / 1e6;
  p->stats.layout_ms = t2 - t1;
  void *blob = NULL;
  size_t blob_size = 0;
  uint8_t key_sha[32] = {0};
  if (ctx->cache_dir) {
    cache_path(ctx, key, p->stats.cache_path, sizeof p->stats.cache_path, false);
    disk_key(ctx, words, nwords, m, local, spec_id, push_size, denorm, key_sha);
    blob = load_blob(key_sha, &blob_size, &p->stats);
  }
  VkPipelineCacheCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
      .initialDataSize = blob_size,
      .pInitialData = blob,
  };
  VkPipelineCache cache = VK_NULL_HANDLE;
  if (ctx->vk.vkCreatePipelineCache(ctx->device, &ci, NULL, &cache) != VK_SUCCESS) {
    /* The driver refused the blob: start from an empty cache. */
    ci.initialDataSize = 0;
    ci.pInitialData = NULL;
    p->stats.disk_loaded = false;
    p->stats.disk_rejected = true;
    if (ctx->vk.vkCreatePipelineCache(ctx->device, &ci, NULL, &cache) != VK_SUCCESS)
      cache = VK_NULL_HANDLE;
  }
  free(blob);
  double t3 = vrt__now_ns() / 1e6;
  p->stats.cache_load_ms = t3 - t2;

  VkPipelineCreationFeedback fb = {0}, stage_fb = {0};
  VkPipelineCreationFeedbackCreateInfo fbi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO,
      .pPipelineCreationFeedback = &fb,
      .pipelineStageCreationFeedbackCount = 1,
      .pPipelineStageCreationFeedbacks = &stage_fb,
  };
  VkComputePipelineCreateInfo pi = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .pNext = ctx->feedback ? &fbi : NULL,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = m->entry_point,
                .pSpecializationInfo = &spec},
      .layout = p->layout,
  };
  bool ok = VRT_VK(ctx, d, vkCreateComputePipelines, ctx->device, cache, 1, &pi, NULL,
                   &p->pipeline);
  ctx->vk.vkDestroyShaderModule(ctx->device, module, NULL);
  double t4 = vrt__now_ns() / 1e6;
  p->stats.create_ms = t4 - t3;
  if (ok && ctx->feedback && (fb.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT))
    p->stats.driver_hit =
        (fb.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT) != 0;
  if (ok && cache && ctx->cache_dir && (!p->stats.disk_loaded || p->stats.driver_hit == 0))
    save_blob(ctx, key, key_sha, cache, &p->stats);
  if (cache)
    ctx->vk.vkDestroyPipelineCache(ctx->device, cache, NULL);
  p->stats.cache_save_ms = vrt__now_ns() / 1e6 - t4;
  if (!ok) {
    pipeline_free(ctx, p);
    return NULL;
  }
  p->next = ctx->pipelines;
  ctx->pipelines = p;
  return p;
}

void vrt__pipeline_destroy_all(vrt_context *ctx) {
  while (ctx->pipelines) {
    vrt_pipeline *p = ctx->pipelines;
    ctx->pipelines = p->next;
    pipeline_free(ctx, p);
  }
}
