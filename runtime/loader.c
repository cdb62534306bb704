/* loader.c - opening the Vulkan loader and creating instances.
 *
 * The loader (libvulkan.so.1) is opened with dlopen once per process, under
 * a mutex; that is the runtime's only process-wide state and it never
 * changes once the loader is open. vrt_loader_open (or the context option
 * vulkan_library, which callers fill from VULPY_VULKAN_LIBRARY) names
 * another loader file (tests point it at a missing file to check the "no
 * loader" error); a failed open is kept, so every later call reports the
 * same error. volk gets the
 * loader's vkGetInstanceProcAddr, and its global vkGetDeviceProcAddr is set
 * from the loader's export, which dispatches on the device, so
 * volkLoadDeviceTable works for every device of every instance.
 *
 * Each context has its own VkInstance. With validation on, the Khronos layer
 * is enabled with synchronization validation, and a debug messenger keeps
 * every warning and error it sends (tests fail on any).
 */
#include "internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
  pthread_mutex_t lock;
  bool tried, ok;
  char library[512]; /* the explicit choice of the first open, "" for the system's */
  char error[512];
} loader = {PTHREAD_MUTEX_INITIALIZER, false, false, "", ""};

static void open_loader(const char *library) {
  const char *names[] = {library, "libvulkan.so.1", "libvulkan.so", "libvulkan.1.dylib",
                         "libMoltenVK.dylib"};
  void *lib = NULL;
  const char *tried = NULL;
  for (unsigned i = 0; i < sizeof names / sizeof names[0] && !lib; i++) {
    if (!names[i] || !*names[i])
      continue;
    if (!tried)
      tried = names[i];
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (i == 0)
      break; /* an explicit choice is not second-guessed */
  }
  if (!lib) {
    snprintf(loader.error, sizeof loader.error, "cannot load the Vulkan loader (%s): %s",
             tried ? tried : "libvulkan.so.1", dlerror());
    return;
  }
  PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
  PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)dlsym(lib, "vkGetDeviceProcAddr");
  if (!gipa || !gdpa) {
    snprintf(loader.error, sizeof loader.error,
             "the Vulkan loader (%s) does not export vkGetInstanceProcAddr",
             tried ? tried : "libvulkan.so.1");
    return;
  }
  volkInitializeCustom(gipa);
  vkGetDeviceProcAddr = gdpa;
  loader.ok = true;
}

bool vrt_loader_open(const char *library, vp_diags *d) {
  if (library && !*library)
    library = NULL;
  pthread_mutex_lock(&loader.lock);
  if (!loader.tried) {
    loader.tried = true;
    snprintf(loader.library, sizeof loader.library, "%s", library ? library : "");
    open_loader(library);
  }
  bool ok = loader.ok;
  bool other = library && strcmp(library, loader.library) != 0;
  char first[sizeof loader.library];
  snprintf(first, sizeof first, "%s", loader.library);
  pthread_mutex_unlock(&loader.lock);
  if (other) {
    vp_error(d, (vp_loc){0},
             "vulkan_library '%s': the Vulkan loader of this process is already %s%s%s", library,
             *first ? "'" : "the system's", first, *first ? "'" : "");
    vp_diag_hint(d, "the loader is opened once per process: choose it (VULPY_VULKAN_LIBRARY) "
                    "before the first context or device list");
    return false;
  }
  if (!ok) {
    vp_error(d, (vp_loc){0}, "%s", loader.error);
    vp_diag_hint(d, "install the Vulkan loader and a driver: on Debian/Ubuntu `apt install "
                    "libvulkan1 mesa-vulkan-drivers` (or your GPU vendor's driver)");
  }
  return ok;
}

static VkBool32 VKAPI_PTR on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                     VkDebugUtilsMessageTypeFlagsEXT type,
                                     const VkDebugUtilsMessengerCallbackDataEXT *data,
                                     void *user) {
  vrt_messages *m = user;
  /* The loader's own chatter (GENERAL) is not a validation failure. */
  if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT ||
      !(type & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)))
    return VK_FALSE;
  /* What the layer reports about itself is not about us: its own wait for
   * its timeline-semaphore tracker timed out ("This is most likely a
   * validation bug"; KhronosGroup/Vulkan-ValidationLayers #4968, #8461).
   * Seen on lavapipe under load while a submission waits on a gate event
   * the host sets (test_eager.c, test_streams.c, ~1 run in 8). */
  if (data->pMessageIdName && (strcmp(data->pMessageIdName, "UNASSIGNED-VkSemaphore-state-timeout") == 0 ||
                               strcmp(data->pMessageIdName, "INTERNAL-ERROR-VkSemaphore-state-timeout") == 0))
    return VK_FALSE;
  pthread_mutex_lock(&m->lock);
  vp_error(&m->list, (vp_loc){0}, "validation %s: %s",
           severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning",
           data->pMessage ? data->pMessage : "(no message)");
  pthread_mutex_unlock(&m->lock);
  return VK_FALSE;
}

static bool has_layer(const char *name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || !n)
    return false;
  VkLayerProperties *props = calloc(n, sizeof *props);
  bool found = false;
  if (props && vkEnumerateInstanceLayerProperties(&n, props) >= 0)
    for (uint32_t i = 0; i < n && !found; i++)
      found = strcmp(props[i].layerName, name) == 0;
  free(props);
  return found;
}

static bool has_instance_extension(const char *name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS || !n)
    return false;
  VkExtensionProperties *props = calloc(n, sizeof *props);
  bool found = false;
  if (props && vkEnumerateInstanceExtensionProperties(NULL, &n, props) >= 0)
    for (uint32_t i = 0; i < n && !found; i++)
      found = strcmp(props[i].extensionName, name) == 0;
  free(props);
  return found;
}

bool vrt__instance_create(vrt_instance *inst, bool validation, const char *library,
                          vrt_fork_child fork_child, vp_diags *d) {
  memset(inst, 0, sizeof *inst);
  if (!vrt__fork_check(fork_child, d))
    return false; /* before any call into the loader: that call may hang */
  if (!vrt_loader_open(library, d))
    return false;
  uint32_t version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion)
    vkEnumerateInstanceVersion(&version);
  /* Ask for 1.3 where the loader has it; devices report their own version. */
  inst->api_version = version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : version;

  const char *layers[1], *exts[2];
  uint32_t nlayers = 0, nexts = 0;
  VkInstanceCreateFlags flags = 0;
  if (validation) {
    if (!has_layer("VK_LAYER_KHRONOS_validation")) {
      vp_error(d, (vp_loc){0}, "validation was asked for (VULPY_VALIDATION) but the Khronos "
                               "validation layer is not installed");
      vp_diag_hint(d, "install it (Debian/Ubuntu: apt install vulkan-validationlayers) or "
                      "unset VULPY_VALIDATION");
      return false;
    }
    layers[nlayers++] = "VK_LAYER_KHRONOS_validation";
    exts[nexts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  }
  if (has_instance_extension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    exts[nexts++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
    flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }

  VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "vulpy",
      .pEngineName = "vulpy",
      .engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0),
      .apiVersion = inst->api_version,
  };
  if (validation) {
    inst->messages = calloc(1, sizeof *inst->messages);
    if (!inst->messages) {
      vp_error(d, (vp_loc){0}, "out of host memory");
      return false;
    }
    pthread_mutex_init(&inst->messages->lock, NULL);
  }
  VkDebugUtilsMessengerCreateInfoEXT dbg = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
      .pfnUserCallback = on_message,
      .pUserData = inst->messages,
  };
  VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features = {
      .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
      .pNext = &dbg,
      .enabledValidationFeatureCount = 1,
      .pEnabledValidationFeatures = enables,
  };
  VkInstanceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pNext = validation ? &features : NULL,
      .flags = flags,
      .pApplicationInfo = &app,
      .enabledLayerCount = nlayers,
      .ppEnabledLayerNames = layers,
      .enabledExtensionCount = nexts,
      .ppEnabledExtensionNames = exts,
  };
  VkResult r = vkCreateInstance(&info, NULL, &inst->instance);
  if (!vrt__check(NULL, r, "vkCreateInstance", d)) {
    vrt__instance_destroy(inst, NULL);
    return false;
  }
#define VRT_FN_LOAD(f) inst->fn.f = (PFN_##f)vkGetInstanceProcAddr(inst->instance, #f);
  VRT_INSTANCE_FNS(VRT_FN_LOAD)
#undef VRT_FN_LOAD
  if (validation) {
    r = inst->fn.vkCreateDebugUtilsMessengerEXT(inst->instance, &dbg, NULL, &inst->messenger);
    if (!vrt__check(NULL, r, "vkCreateDebugUtilsMessengerEXT", d)) {
      vrt__instance_destroy(inst, NULL);
      return false;
    }
  }
  return true;
}

void vrt__instance_destroy(vrt_instance *inst, vp_diags *sink) {
  if (inst->messenger)
    inst->fn.vkDestroyDebugUtilsMessengerEXT(inst->instance, inst->messenger, NULL);
  if (inst->instance)
    inst->fn.vkDestroyInstance(inst->instance, NULL);
  if (inst->messages) {
    if (sink)
      vp_diags_move(sink, &inst->messages->list);
    vp_diags_free(&inst->messages->list);
    pthread_mutex_destroy(&inst->messages->lock);
    free(inst->messages);
  }
  memset(inst, 0, sizeof *inst);
}
