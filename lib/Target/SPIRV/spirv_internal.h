/* spirv_internal.h - what the SPIR-V library's files share. */
#ifndef VULPY_SPIRV_INTERNAL_H
#define VULPY_SPIRV_INTERNAL_H

#include <spirv-tools/libspirv.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Vulkan version (major*10+minor, 0 = 1.2) to the SPIRV-Tools environment. */
spv_target_env vtg_spirv_env(unsigned vulkan);

#ifdef __cplusplus
}
#endif
#endif
