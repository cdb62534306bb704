/* device.c - enumerating physical devices, describing them, selecting one.
 *
 * A description (vrt_device_info) is plain data filled from the properties,
 * features, memory and queue queries of Vulkan 1.1-1.3, asking only for the
 * structures the device's version knows (the validation layer objects to
 * others). Selection reads an index, a kind or a piece of the name, so the
 * same selector works from the C API, VULPY_DEVICE and the Python layer.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"other", "dgpu", "igpu", "virtual", "cpu"};

const char *vrt_device_kind_name(vrt_device_kind kind) {
  return (unsigned)kind < 5 ? kind_names[kind] : "other";
}

static const char *vendor_name(uint32_t id) {
  switch (id) {
  case 0x10DE: return "NVIDIA";
  case 0x1002: return "AMD";
  case 0x8086: return "Intel";
  case 0x13B5: return "ARM";
  case 0x5143: return "Qualcomm";
  case 0x106B: return "Apple";
  case 0x1010: return "Imagination";
  case 0x14E4: return "Broadcom";
  case 0x144D: return "Samsung";
  case 0x1AE0: return "Google";
  case 0x10005: return "Mesa";
  default: return "unknown";
  }
}

bool vrt__has_extension(vrt_instance *inst, VkPhysicalDevice pd, const char *name) {
  uint32_t n = 0;
  if (inst->fn.vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || !n)
    return false;
  VkExtensionProperties *props = calloc(n, sizeof *props);
  bool found = false;
  if (props && inst->fn.vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props) >= 0)
    for (uint32_t i = 0; i < n && !found; i++)
      found = strcmp(props[i].extensionName, name) == 0;
  free(props);
  return found;
}

static void fill_info(vrt_instance *inst, VkPhysicalDevice pd, uint32_t index,
                      vrt_device_info *o) {
  memset(o, 0, sizeof *o);
  o->index = index;
  VkPhysicalDeviceProperties p;
  inst->fn.vkGetPhysicalDeviceProperties(pd, &p);
  uint32_t api = p.apiVersion < inst->api_version ? p.apiVersion : inst->api_version;
  snprintf(o->name, sizeof o->name, "%s", p.deviceName);
  o->vendor_id = p.vendorID;
  o->device_id = p.deviceID;
  o->vendor = vendor_name(p.vendorID);
  switch (p.deviceType) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: o->kind = VRT_DEVICE_DGPU; break;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: o->kind = VRT_DEVICE_IGPU; break;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: o->kind = VRT_DEVICE_VIRTUAL; break;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: o->kind = VRT_DEVICE_CPU; break;
  default: o->kind = VRT_DEVICE_OTHER; break;
  }
  o->api_version = p.apiVersion;
  o->driver_version = p.driverVersion;
  memcpy(o->pipeline_cache_uuid, p.pipelineCacheUUID, 16);
  const VkPhysicalDeviceLimits *l = &p.limits;
  o->max_storage_buffer_range = l->maxStorageBufferRange;
  o->max_memory_allocation_size = l->maxStorageBufferRange; /* refined below */
  o->max_buffer_size = UINT64_MAX;
  for (int i = 0; i < 3; i++) {
    o->max_workgroup_size[i] = l->maxComputeWorkGroupSize[i];
    o->max_workgroup_count[i] = l->maxComputeWorkGroupCount[i];
  }
  o->max_workgroup_invocations = l->maxComputeWorkGroupInvocations;
  o->max_shared_memory = l->maxComputeSharedMemorySize;
  o->max_push_constants_size = l->maxPushConstantsSize;
  o->max_storage_buffers = l->maxPerStageDescriptorStorageBuffers < l->maxDescriptorSetStorageBuffers
                               ? l->maxPerStageDescriptorStorageBuffers
                               : l->maxDescriptorSetStorageBuffers;
  o->min_storage_buffer_offset_alignment = l->minStorageBufferOffsetAlignment;
  o->non_coherent_atom_size = l->nonCoherentAtomSize;
  o->timestamp_period = l->timestampPeriod;

  bool ext_host = vrt__has_extension(inst, pd, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  bool ext_float = vrt__has_extension(inst, pd, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  /* Cooperative matrices (tensor cores): the NV extension, which this
   * build's headers and glslang know (VK_KHR_cooperative_matrix is newer
   * than both); NVIDIA drivers expose it beside the KHR one. */
  bool ext_coop = vrt__has_extension(inst, pd, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  o->push_descriptors = vrt__has_extension(inst, pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  o->pipeline_creation_feedback =
      api >= VK_API_VERSION_1_3 ||
      vrt__has_extension(inst, pd, VK_EXT_PIPELINE_CREATION_FEEDBACK_EXTENSION_NAME);

  if (api >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT hostp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceVulkan13Properties p13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES,
        .pNext = ext_host ? &hostp : NULL};
    VkPhysicalDeviceVulkan12Properties p12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES,
        .pNext = api >= VK_API_VERSION_1_3 ? (void *)&p13 : (ext_host ? (void *)&hostp : NULL)};
    VkPhysicalDeviceVulkan11Properties p11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES,
        .pNext = api >= VK_API_VERSION_1_2 ? &p12 : NULL};
    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceMaintenance3Properties m3 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, .pNext = &sub};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    /* Vulkan 1.1 has no Vulkan11Properties; it has the separate structures. */
    if (api >= VK_API_VERSION_1_2) {
      p2.pNext = &p11;
    } else {
      sub.pNext = ext_host ? &hostp : NULL;
      p2.pNext = &m3;
    }
    inst->fn.vkGetPhysicalDeviceProperties2(pd, &p2);
    if (api >= VK_API_VERSION_1_2) {
      memcpy(o->device_uuid, p11.deviceUUID, 16);
      o->subgroup_size = p11.subgroupSize;
      sub.supportedStages = p11.subgroupSupportedStages;
      sub.supportedOperations = p11.subgroupSupportedOperations;
      o->max_memory_allocation_size = p11.maxMemoryAllocationSize;
      snprintf(o->driver_name, sizeof o->driver_name, "%s", p12.driverName);
      snprintf(o->driver_info, sizeof o->driver_info, "%s", p12.driverInfo);
      o->driver_id = (uint32_t)p12.driverID;
      o->denorm_support = (p12.shaderDenormPreserveFloat16 ? VRT_DENORM_F16 : 0) |
                          (p12.shaderDenormPreserveFloat32 ? VRT_DENORM_F32 : 0) |
                          (p12.shaderDenormPreserveFloat64 ? VRT_DENORM_F64 : 0);
      o->denorm_independence = (uint32_t)p12.denormBehaviorIndependence;
      o->inf_nan_preserve = (p12.shaderSignedZeroInfNanPreserveFloat16 ? VRT_DENORM_F16 : 0) |
                            (p12.shaderSignedZeroInfNanPreserveFloat32 ? VRT_DENORM_F32 : 0) |
                            (p12.shaderSignedZeroInfNanPreserveFloat64 ? VRT_DENORM_F64 : 0);
    } else {
      o->subgroup_size = sub.subgroupSize;
      o->max_memory_allocation_size = m3.maxMemoryAllocationSize;
    }
    o->min_subgroup_size = o->max_subgroup_size = o->subgroup_size;
    if (api >= VK_API_VERSION_1_3) {
      o->min_subgroup_size = p13.minSubgroupSize;
      o->max_subgroup_size = p13.maxSubgroupSize;
      o->max_buffer_size = p13.maxBufferSize;
    }
    if (ext_host) {
      o->min_imported_host_pointer_alignment = hostp.minImportedHostPointerAlignment;
      o->features |= VP_FEAT(EXTERNAL_HOST);
    }
    if (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) {
      VkSubgroupFeatureFlags ops = sub.supportedOperations;
      if (ops & VK_SUBGROUP_FEATURE_BASIC_BIT) o->features |= VP_FEAT(SUBGROUP_BASIC);
      if (ops & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) o->features |= VP_FEAT(SUBGROUP_ARITH);
      if (ops & VK_SUBGROUP_FEATURE_BALLOT_BIT) o->features |= VP_FEAT(SUBGROUP_BALLOT);
      if (ops & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) o->features |= VP_FEAT(SUBGROUP_SHUFFLE);
      if (ops & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT)
        o->features |= VP_FEAT(SUBGROUP_SHUFFLE_REL);
      if (ops & VK_SUBGROUP_FEATURE_VOTE_BIT) o->features |= VP_FEAT(SUBGROUP_VOTE);
    }

    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .pNext = ext_float ? &af : NULL};
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = ext_coop ? (void *)&cm : (ext_float ? (void *)&af : NULL)};
    VkPhysicalDeviceVulkan11Features f11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &f12};
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = api >= VK_API_VERSION_1_2 ? (void *)&f11 : &s16};
    inst->fn.vkGetPhysicalDeviceFeatures2(pd, &f2);
    const VkPhysicalDeviceFeatures *f = &f2.features;
    if (f->shaderFloat64) o->features |= VP_FEAT(FLOAT64);
    if (f->shaderInt64) o->features |= VP_FEAT(INT64);
    if (f->shaderInt16) o->features |= VP_FEAT(INT16);
    if (api >= VK_API_VERSION_1_2) {
      if (f11.storageBuffer16BitAccess) o->features |= VP_FEAT(STORAGE16);
      if (f11.storagePushConstant16) o->features |= VP_FEAT(PUSH16);
      if (f12.storagePushConstant8) o->features |= VP_FEAT(PUSH8);
      if (f12.shaderFloat16) o->features |= VP_FEAT(FLOAT16);
      if (f12.shaderInt8) o->features |= VP_FEAT(INT8);
      if (f12.storageBuffer8BitAccess) o->features |= VP_FEAT(STORAGE8);
      if (f12.shaderBufferInt64Atomics) o->features |= VP_FEAT(ATOMIC64);
      if (f12.vulkanMemoryModel) o->features |= VP_FEAT(MEMORY_MODEL);
      if (f12.bufferDeviceAddress) o->features |= VP_FEAT(BDA);
      if (ext_float && af.shaderBufferFloat32AtomicAdd) o->features |= VP_FEAT(ATOMIC_FLOAT);
      if (ext_coop && cm.cooperativeMatrix && f12.shaderFloat16 && f11.storageBuffer16BitAccess)
        o->features |= VP_FEAT(COOPMAT);
      o->timeline_semaphores = f12.timelineSemaphore;
    } else {
      if (s16.storageBuffer16BitAccess) o->features |= VP_FEAT(STORAGE16);
      if (s16.storagePushConstant16) o->features |= VP_FEAT(PUSH16);
    }
  }

  VkPhysicalDeviceMemoryProperties mp;
  inst->fn.vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  o->memory.type_count = mp.memoryTypeCount;
  o->memory.heap_count = mp.memoryHeapCount;
  for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
    o->memory.types[i].flags = mp.memoryTypes[i].propertyFlags;
    o->memory.types[i].heap = mp.memoryTypes[i].heapIndex;
  }
  for (uint32_t i = 0; i < mp.memoryHeapCount; i++) {
    o->memory.heaps[i].size = mp.memoryHeaps[i].size;
    o->memory.heaps[i].flags = mp.memoryHeaps[i].flags;
  }
  o->uma = vrt_memory_is_uma(&o->memory, o->kind);
  /* fma() fused or not, by what the driver is rather than by a probe
   * kernel: a probe costs a pipeline at every start, and the drivers that
   * lower fma are software rasterizers on the CPU (docs/runtime.md). */
  o->fma_fused = o->kind != VRT_DEVICE_CPU && o->driver_id != VK_DRIVER_ID_MESA_LLVMPIPE &&
                 o->driver_id != VK_DRIVER_ID_GOOGLE_SWIFTSHADER;
  /* Subnormals kept where the shader can ask for it (denorm.c). */
  o->denorm_preserve = vrt__denorm_auto(o->denorm_support, o->denorm_independence);
  o->denorm_emulate = vrt__denorm_auto_emulate(o);
  o->denorm_flush = vrt__denorm_flushes(o);

  uint32_t nq = 0;
  inst->fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
  VkQueueFamilyProperties *qs = calloc(nq ? nq : 1, sizeof *qs);
  bool compute = false;
  if (qs) {
    inst->fn.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qs);
    for (uint32_t i = 0; i < nq && !compute; i++)
      if (qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        compute = true;
        o->timestamps = qs[i].timestampValidBits > 0;
      }
  }
  free(qs);
  o->usable = api >= VK_API_VERSION_1_2 && o->timeline_semaphores && compute;
}

bool vrt__enumerate(vrt_instance *inst, VkPhysicalDevice **pdevs, vrt_device_info **infos,
                    uint32_t *n, vp_diags *d) {
  *pdevs = NULL;
  *infos = NULL;
  *n = 0;
  uint32_t count = 0;
  VkResult r = inst->fn.vkEnumeratePhysicalDevices(inst->instance, &count, NULL);
  vrt__pin_libraries(); /* the layers and drivers are loaded by now */
  if (!vrt__check(NULL, r, "vkEnumeratePhysicalDevices", d))
    return false;
  if (!count) {
    vp_error(d, (vp_loc){0}, "no Vulkan device found");
    vp_diag_hint(d, "install a Vulkan driver: mesa-vulkan-drivers (CPU and most integrated "
                    "GPUs) or your GPU vendor's driver; `vulkaninfo --summary` should list it");
    return false;
  }
  VkPhysicalDevice *pds = calloc(count, sizeof *pds);
  vrt_device_info *out = calloc(count, sizeof *out);
  if (!pds || !out) {
    free(pds);
    free(out);
    vp_error(d, (vp_loc){0}, "out of host memory");
    return false;
  }
  r = inst->fn.vkEnumeratePhysicalDevices(inst->instance, &count, pds);
  if (!vrt__check(NULL, r, "vkEnumeratePhysicalDevices", d)) {
    free(pds);
    free(out);
    return false;
  }
  for (uint32_t i = 0; i < count; i++) {
    fill_info(inst, pds[i], i, &out[i]);
    vrt__fork_note_driver(&out[i]);
  }
  *pdevs = pds;
  *infos = out;
  *n = count;
  return true;
}

bool vrt_list_devices(vrt_device_info **out, uint32_t *count, vp_diags *d) {
  *out = NULL;
  *count = 0;
  vrt_instance inst;
  if (!vrt__instance_create(&inst, false, NULL, VRT_FORK_AUTO, d))
    return false;
  VkPhysicalDevice *pds;
  bool ok = vrt__enumerate(&inst, &pds, out, count, d);
  if (ok)
    free(pds);
  vrt__instance_destroy(&inst, NULL);
  return ok;
}

static void format_version(vp_strbuf *out, uint32_t v) {
  vp_strbuf_printf(out, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                   VK_API_VERSION_PATCH(v));
}

static void format_bytes(vp_strbuf *out, uint64_t n) {
  if (n >= (1ull << 30) && n % (1ull << 30) == 0)
    vp_strbuf_printf(out, "%llu GiB", (unsigned long long)(n >> 30));
  else if (n >= (1ull << 20) && n % (1ull << 20) == 0)
    vp_strbuf_printf(out, "%llu MiB", (unsigned long long)(n >> 20));
  else if (n >= (1ull << 10) && n % (1ull << 10) == 0)
    vp_strbuf_printf(out, "%llu KiB", (unsigned long long)(n >> 10));
  else
    vp_strbuf_printf(out, "%llu B", (unsigned long long)n);
}

void vrt_device_format(const vrt_device_info *o, bool verbose, vp_strbuf *out) {
  vp_strbuf_printf(out, "%u: %s [%s] %s", o->index, o->name, vrt_device_kind_name(o->kind),
                   o->vendor);
  if (o->driver_name[0])
    vp_strbuf_printf(out, ", driver %s", o->driver_name);
  vp_strbuf_append(out, ", Vulkan ");
  format_version(out, o->api_version);
  if (!o->usable)
    vp_strbuf_append(out, " (unusable: needs Vulkan 1.2 with timeline semaphores)");
  vp_strbuf_putc(out, '\n');
  if (!verbose)
    return;
  vp_strbuf_printf(out, "    vendor 0x%04x device 0x%04x, driver info: %s\n", o->vendor_id,
                   o->device_id, o->driver_info[0] ? o->driver_info : "-");
  vp_strbuf_printf(out, "    unified memory: %s\n", o->uma ? "yes" : "no");
  for (uint32_t i = 0; i < o->memory.heap_count; i++) {
    vp_strbuf_printf(out, "    heap %u: ", i);
    format_bytes(out, o->memory.heaps[i].size);
    vp_strbuf_printf(out, "%s\n",
                     o->memory.heaps[i].flags & VRT_HEAP_DEVICE_LOCAL ? " device-local" : "");
  }
  for (uint32_t i = 0; i < o->memory.type_count; i++) {
    uint32_t f = o->memory.types[i].flags;
    vp_strbuf_printf(out, "    memory type %u (heap %u):%s%s%s%s%s\n", i, o->memory.types[i].heap,
                     f & VRT_MEM_DEVICE_LOCAL ? " device-local" : "",
                     f & VRT_MEM_HOST_VISIBLE ? " host-visible" : "",
                     f & VRT_MEM_HOST_COHERENT ? " host-coherent" : "",
                     f & VRT_MEM_HOST_CACHED ? " host-cached" : "", f ? "" : " (none)");
  }
  vp_strbuf_append(out, "    maxStorageBufferRange: ");
  format_bytes(out, o->max_storage_buffer_range);
  vp_strbuf_append(out, ", maxMemoryAllocationSize: ");
  format_bytes(out, o->max_memory_allocation_size);
  vp_strbuf_printf(out, "\n    workgroup: size %u x %u x %u, %u invocations, count %u x %u x %u\n",
                   o->max_workgroup_size[0], o->max_workgroup_size[1], o->max_workgroup_size[2],
                   o->max_workgroup_invocations, o->max_workgroup_count[0],
                   o->max_workgroup_count[1], o->max_workgroup_count[2]);
  vp_strbuf_printf(out, "    subgroup size: %u (%u-%u), shared memory: ", o->subgroup_size,
                   o->min_subgroup_size, o->max_subgroup_size);
  format_bytes(out, o->max_shared_memory);
  vp_strbuf_printf(out, ", push constants: %u B\n", o->max_push_constants_size);
  vp_strbuf_append(out, "    features:");
  for (unsigned f = 0; f < VP_FEATURE_COUNT; f++)
    if (o->features & (1u << f))
      vp_strbuf_printf(out, " %s", vp_feature_name(f));
  vp_strbuf_printf(out, "%s%s%s%s\n", o->push_descriptors ? " push_descriptors" : "",
                   o->timeline_semaphores ? " timeline_semaphores" : "",
                   o->timestamps ? " timestamps" : "", o->fma_fused ? " fma_fused" : "");
  /* what precise-math kernels get (docs/runtime.md, VULPY_DENORM) */
  vp_strbuf_append(out, "    DenormPreserve for precise math:");
  static const struct { uint32_t bit; const char *name; } widths[] = {
      {VRT_DENORM_F16, "float16"}, {VRT_DENORM_F32, "float32"}, {VRT_DENORM_F64, "float64"}};
  for (int k = 0; k < 3; k++)
    if (o->denorm_preserve & widths[k].bit)
      vp_strbuf_printf(out, " %s", widths[k].name);
  if (!(o->denorm_preserve & VRT_DENORM_F32))
    vp_strbuf_append(out, o->denorm_emulate ? " none (float32 subnormals emulated: VP_DENORM_EMULATE)"
                                            : " none (subnormals as the device handles them)");
  vp_strbuf_putc(out, '\n');
}

/* The default order: discrete, integrated, virtual, CPU, other. */
static int kind_rank(vrt_device_kind k) {
  switch (k) {
  case VRT_DEVICE_DGPU: return 0;
  case VRT_DEVICE_IGPU: return 1;
  case VRT_DEVICE_VIRTUAL: return 2;
  case VRT_DEVICE_CPU: return 3;
  default: return 4;
  }
}

static bool contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0)
      return true;
  return false;
}

/* selector := INDEX | KIND | 'any' | NAME-PART */
int vrt_select_device(const vrt_device_info *devs, uint32_t n, const char *selector,
                      vp_diags *d) {
  if (!selector || !*selector)
    selector = "any";
  int found = -1;
  bool digits = true;
  for (const char *p = selector; *p; p++)
    digits &= isdigit((unsigned char)*p) != 0;
  if (digits) {
    unsigned long i = strtoul(selector, NULL, 10);
    if (i < n)
      found = (int)i;
  } else if (strcasecmp(selector, "any") == 0) {
    for (uint32_t i = 0; i < n; i++)
      if (devs[i].usable && (found < 0 || kind_rank(devs[i].kind) < kind_rank(devs[found].kind)))
        found = (int)i;
  } else {
    int kind = -1;
    for (int k = 0; k < 5; k++)
      if (strcasecmp(selector, kind_names[k]) == 0)
        kind = k;
    for (uint32_t i = 0; i < n && found < 0; i++)
      if (kind >= 0 ? (int)devs[i].kind == kind : contains_nocase(devs[i].name, selector))
        found = (int)i;
  }
  if (found >= 0)
    return found;
  vp_error(d, (vp_loc){0}, "no Vulkan device matches '%s'", selector);
  vp_strbuf list = {0};
  for (uint32_t i = 0; i < n; i++) {
    vp_strbuf_printf(&list, "%s%u: %s [%s]", i ? "; " : "", devs[i].index, devs[i].name,
                     vrt_device_kind_name(devs[i].kind));
  }
  vp_diag_hint(d, "the devices are: %s. A selector is an index, a kind (dgpu, igpu, virtual, "
                  "cpu, any) or part of a device name",
               list.data ? list.data : "(none)");
  vp_strbuf_free(&list);
  return -1;
}
