/* test_devices.c - device listing and selection, several contexts at once,
 * and the errors for a machine without a loader or without a driver
 * (`no-loader` and `no-device` modes, run by ctest with the environment
 * that makes them so). */
#include "rt_test.h"

static bool hint_has(const vp_diags *d, const char *text) {
  for (uint32_t i = 0; i < d->count; i++)
    if ((d->items[i].hint && strstr(d->items[i].hint, text)) || strstr(d->items[i].message, text))
      return true;
  return false;
}

static void test_listing(void) {
  vp_diags d = {0};
  vrt_device_info *devs = NULL;
  uint32_t n = 0;
  CHECK(vrt_list_devices(&devs, &n, &d));
  CHECK_OK(d);
  CHECK(n >= 1);
  for (uint32_t i = 0; i < n; i++) {
    const vrt_device_info *o = &devs[i];
    CHECK_EQ_U64(o->index, i);
    CHECK(o->name[0] != 0);
    CHECK(o->vendor != NULL);
    if (!o->usable)
      continue;
    CHECK(o->max_storage_buffer_range >= (1u << 27) || o->max_storage_buffer_range >= 65536);
    CHECK(o->max_workgroup_invocations >= 128);
    CHECK(o->max_workgroup_size[0] >= 128);
    CHECK(o->subgroup_size >= 1);
    CHECK(o->max_shared_memory >= 16384);
    CHECK(o->max_push_constants_size >= 128);
    CHECK(o->memory.type_count >= 1 && o->memory.heap_count >= 1);
    CHECK(o->timeline_semaphores);
    if (strstr(o->name, "llvmpipe")) {
      CHECK(o->kind == VRT_DEVICE_CPU);
      CHECK(o->uma);
      CHECK(o->features & VP_FEAT(EXTERNAL_HOST));
      CHECK(o->min_imported_host_pointer_alignment == 4096);
      CHECK(o->features & VP_FEAT(FLOAT64));
      CHECK(strcmp(o->vendor, "Mesa") == 0);
    }
    vp_strbuf s = {0};
    vrt_device_format(o, true, &s);
    CHECK(s.data && strstr(s.data, "maxStorageBufferRange") && strstr(s.data, o->name));
    CHECK(s.data && strstr(s.data, "memory type 0"));
    vp_strbuf_free(&s);
  }
  free(devs);
  vp_diags_free(&d);
}

static vrt_device_info fake(uint32_t index, const char *name, vrt_device_kind kind) {
  vrt_device_info o;
  memset(&o, 0, sizeof o);
  o.index = index;
  snprintf(o.name, sizeof o.name, "%s", name);
  o.kind = kind;
  o.usable = true;
  return o;
}

static void test_selection(void) {
  vrt_device_info devs[4] = {
      fake(0, "llvmpipe (LLVM 15)", VRT_DEVICE_CPU),
      fake(1, "Intel(R) Iris(R) Xe Graphics", VRT_DEVICE_IGPU),
      fake(2, "NVIDIA H200", VRT_DEVICE_DGPU),
      fake(3, "Old GPU", VRT_DEVICE_DGPU),
  };
  devs[3].usable = false;
  vp_diags d = {0};
  CHECK(vrt_select_device(devs, 4, NULL, &d) == 2);
  CHECK(vrt_select_device(devs, 4, "", &d) == 2);
  CHECK(vrt_select_device(devs, 4, "any", &d) == 2);
  CHECK(vrt_select_device(devs, 4, "dgpu", &d) == 2);
  CHECK(vrt_select_device(devs, 4, "igpu", &d) == 1);
  CHECK(vrt_select_device(devs, 4, "cpu", &d) == 0);
  CHECK(vrt_select_device(devs, 4, "0", &d) == 0);
  CHECK(vrt_select_device(devs, 4, "3", &d) == 3);
  CHECK(vrt_select_device(devs, 4, "iris", &d) == 1);
  CHECK(vrt_select_device(devs, 4, "h200", &d) == 2);
  CHECK_OK(d);
  /* Without a dGPU the default is the iGPU, then the CPU. */
  CHECK(vrt_select_device(devs, 2, "any", &d) == 1);
  CHECK(vrt_select_device(devs, 1, NULL, &d) == 0);
  CHECK_OK(d);

  CHECK(vrt_select_device(devs, 4, "7", &d) == -1);
  CHECK(hint_has(&d, "1: Intel(R) Iris(R) Xe Graphics [igpu]"));
  CHECK_ERROR(d, "no Vulkan device matches '7'");
  CHECK(vrt_select_device(devs, 2, "dgpu", &d) == -1);
  CHECK(hint_has(&d, "0: llvmpipe (LLVM 15) [cpu]; 1: Intel"));
  CHECK_ERROR(d, "no Vulkan device matches 'dgpu'");
  CHECK(vrt_select_device(devs, 4, "tpu", &d) == -1);
  CHECK_ERROR(d, "no Vulkan device matches 'tpu'");

  /* The runtime reads no VULPY_DEVICE (test_env.c: the callers do). */
  setenv("VULPY_DEVICE", "igpu", 1);
  CHECK(vrt_select_device(devs, 4, NULL, &d) == 2);
  unsetenv("VULPY_DEVICE");
  CHECK_OK(d);
  vp_diags_free(&d);
}

/* Several contexts on the real device at once, created and destroyed in
 * different orders; a selector that matches nothing lists the devices. */
static void test_contexts(void) {
  vp_diags d = {0};
  vrt_device_info *devs = NULL;
  uint32_t n = 0;
  if (!vrt_list_devices(&devs, &n, &d)) {
    CHECK_OK(d);
    return;
  }
  char index[16];
  snprintf(index, sizeof index, "%u", n - 1);
  vrt_context *a = rt_context();
  vrt_context *b = rt_context_with((vrt_context_options){.device = index});
  vrt_context *c = rt_context_with((vrt_context_options){.device = devs[0].name});
  CHECK(a && b && c);
  if (b)
    CHECK(strcmp(vrt_context_device(b)->name, devs[n - 1].name) == 0);
  vrt_buffer *bb = b ? vrt_buffer_create(b, 1024, VRT_HOST, &d) : NULL;
  rt_context_done(a);
  uint32_t v = 5;
  CHECK(bb && vrt_buffer_upload(bb, 0, &v, 4, &d) && vrt_buffer_download(bb, 0, &v, 4, &d));
  CHECK_OK(d);
  rt_context_done(c);
  rt_context_done(b);

  bool has_dgpu = false;
  for (uint32_t i = 0; i < n; i++)
    has_dgpu |= devs[i].kind == VRT_DEVICE_DGPU;
  if (!has_dgpu) {
    vrt_context_options o = {.device = "dgpu"};
    CHECK(vrt_context_create(&o, &d) == NULL);
    CHECK(hint_has(&d, devs[0].name));
    CHECK_ERROR(d, "no Vulkan device matches 'dgpu'");
  }
  free(devs);
  vp_diags_free(&d);
}

/* ctest runs these with VULPY_VULKAN_LIBRARY pointing nowhere, or with
 * VK_ICD_FILENAMES naming no driver. The variable reaches the runtime as
 * a program's choice (vrt_env_loader_open, vrt_context_options). */
static int no_loader(void) {
  vp_diags d = {0};
  vrt_device_info *devs = NULL;
  uint32_t n = 0;
  CHECK(!vrt_env_loader_open(&d) && !vrt_list_devices(&devs, &n, &d));
  CHECK(hint_has(&d, "apt install libvulkan1 mesa-vulkan-drivers"));
  CHECK_ERROR(d, "cannot load the Vulkan loader (/nonexistent/libvulkan.so.1)");
  CHECK(vrt_context_create(NULL, &d) == NULL);
  CHECK_ERROR(d, "cannot load the Vulkan loader");
  /* the failed open is the process's: a context naming the file fails alike */
  vrt_context_options o = {.vulkan_library = "/nonexistent/libvulkan.so.1"};
  CHECK(vrt_context_create(&o, &d) == NULL);
  CHECK_ERROR(d, "cannot load the Vulkan loader (/nonexistent/libvulkan.so.1)");
  vp_diags_free(&d);
  return rt_failures ? 1 : 0;
}

static int no_device(void) {
  vp_diags d = {0};
  vrt_device_info *devs = NULL;
  uint32_t n = 0;
  CHECK(!vrt_list_devices(&devs, &n, &d));
  CHECK(hint_has(&d, "mesa-vulkan-drivers"));
  CHECK(d.nerrors == 1);
  vp_diags_clear(&d);
  CHECK(vrt_context_create(NULL, &d) == NULL);
  CHECK(hint_has(&d, "mesa-vulkan-drivers"));
  vp_diags_free(&d);
  return rt_failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "no-loader") == 0)
    return no_loader();
  if (argc > 1 && strcmp(argv[1], "no-device") == 0)
    return no_device();
  RT_RUN(test_listing);
  RT_RUN(test_selection);
  RT_RUN(test_contexts);
  return rt_failures ? 1 : 0;
}
