/* spirv_internal.h - what the SPIR-V library's files share. */
#ifndef VULPY_SPIRV_INTERNAL_H
#define VULPY_SPIRV_INTERNAL_H

/* libspirv.h *defines* `const uint32_t kDefaultMaxIdBound` at file scope:
 * in C that is an external definition, so every C library that includes it
 * (this one, the runtime's validator) emits the same symbol and a program
 * linking both fails. The name is made this library's own; in C++ a
 * namespace-scope const is internal anyway. Include libspirv.h only here. */
#ifndef __cplusplus
#define kDefaultMaxIdBound vtg_spirv_kDefaultMaxIdBound
#endif
#include <spirv-tools/libspirv.h>
#ifndef __cplusplus
#undef kDefaultMaxIdBound
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Vulkan version (major*10+minor, 0 = 1.2) to the SPIRV-Tools environment. */
spv_target_env vtg_spirv_env(unsigned vulkan);

#ifdef __cplusplus
}
#endif
#endif
