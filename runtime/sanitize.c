/* sanitize.c - keeping the Vulkan driver and layers mapped in sanitizer builds.
 *
 * LeakSanitizer reports at process exit, after vkDestroyInstance has let the
 * loader dlclose the driver (lavapipe) and the validation layer. Their
 * allocations that live until exit (per-device state, globals) then have
 * stack frames without a module name, so the suppressions in
 * test/sanitize/lsan.supp, which name those modules, cannot match them and
 * every run of a VulPy program "leaks" hundreds of objects. In an ASan build
 * (-DVULPY_SANITIZE=ON) vrt__pin_libraries marks every shared object loaded
 * so far RTLD_NODELETE (dlopen with RTLD_NOLOAD opens nothing new), so the
 * loader's dlclose leaves them mapped and their frames keep their names.
 * In every other build it does nothing.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "internal.h"

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>

static int pin_one(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  (void)arg;
  if (info->dlpi_name && info->dlpi_name[0]) {
    void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (h)
      dlclose(h); /* drops our reference; NODELETE keeps the object */
  }
  return 0;
}

void vrt__pin_libraries(void) { dl_iterate_phdr(pin_one, NULL); }
#else
void vrt__pin_libraries(void) {}
#endif
