/* persistent.c - what a persistent launch needs to know about the device:
 * how many cores (SMs, CUs) it has and how many warps each keeps resident,
 * from VK_NV_shader_sm_builtins (NVIDIA), VK_AMD_shader_core_properties
 * (AMD) or VK_ARM_shader_core_builtins (Arm Mali). The Python layer sizes a persistent dispatch from it; occupancy
 * discovery in the kernel then trims the estimate (docs/persistent.md).
 */
#include "internal.h"

bool vrt_device_cores(vrt_context *ctx, uint32_t *cores, uint32_t *warps_per_core) {
  *cores = *warps_per_core = 0;
  if (!ctx->inst.fn.vkGetPhysicalDeviceProperties2)
    return false;
  VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceShaderCorePropertiesAMD amd = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
  if (vrt__has_extension(&ctx->inst, ctx->pdev, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) {
    p2.pNext = &nv;
    ctx->inst.fn.vkGetPhysicalDeviceProperties2(ctx->pdev, &p2);
    *cores = nv.shaderSMCount;
    *warps_per_core = nv.shaderWarpsPerSM;
    return *cores != 0;
  }
  if (vrt__has_extension(&ctx->inst, ctx->pdev, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME)) {
    p2.pNext = &amd;
    ctx->inst.fn.vkGetPhysicalDeviceProperties2(ctx->pdev, &p2);
    *cores = amd.shaderEngineCount * amd.shaderArraysPerEngineCount *
             amd.computeUnitsPerShaderArray;
    *warps_per_core = amd.simdPerComputeUnit * amd.wavefrontsPerSimd;
    return *cores != 0;
  }
#ifdef VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME
  /* Arm: auto runs these stepped (no occupancy-bound guarantee); the
   * counts size the stepped dispatches and mode="persistent" */
  VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
  if (vrt__has_extension(&ctx->inst, ctx->pdev, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME)) {
    p2.pNext = &arm;
    ctx->inst.fn.vkGetPhysicalDeviceProperties2(ctx->pdev, &p2);
    *cores = arm.shaderCoreCount;
    *warps_per_core = arm.shaderWarpsPerCore;
    return *cores != 0;
  }
#endif
  return false;
}
