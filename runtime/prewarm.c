/* prewarm.c - the driver's one-time set-up, on a background thread.
 *
 * A process's first compute pipeline can cost the driver far more than
 * later ones: NVIDIA loads and starts its shader compiler (on the H200 the
 * first pipeline of a process costs several times a later one;
 * bench/notes/runtime.md); lavapipe has little of this (its LLVM compile
 * waits for the first dispatch, so this warm-up is short). Right after
 * device creation a thread creates and destroys one small pipeline (no
 * VkPipelineCache, so nothing is written anywhere), so that the set-up
 * overlaps whatever the program does before its first kernel: the Python
 * compile of that kernel, its buffers. Kernel creation never waits for it
 * (the driver serializes its own set-up); the context joins it before the
 * device goes away. vrt_context_options.no_prewarm (VULPY_PREWARM=0) turns
 * it off; a failure only means no warm-up.
 */
#include "internal.h"

/* glslangValidator -V --target-env vulkan1.0 of:
 *   layout(local_size_x = 64) in;
 *   layout(push_constant) uniform P { float v; } pc;
 *   layout(std430, set = 0, binding = 0) buffer B { float b[]; };
 *   void main() { uint i = gl_GlobalInvocationID.x;
 *                 b[i] = b[i] * pc.v + 1.0; }
 * (a buffer and a push constant, so that the common paths run; small, so
 * that it holds whatever lock the driver's compiler has for a short time) */
static const uint32_t prewarm_spirv[] = {
    0x07230203,0x00010000,0x0008000b,0x00000029,0x00000000,0x00020011,0x00000001,0x0006000b,
    0x00000001,0x4c534c47,0x6474732e,0x3035342e,0x00000000,0x0003000e,0x00000000,0x00000001,
    0x0006000f,0x00000005,0x00000004,0x6e69616d,0x00000000,0x0000000b,0x00060010,0x00000004,
    0x00000011,0x00000040,0x00000001,0x00000001,0x00030003,0x00000002,0x000001c2,0x00040005,
    0x00000004,0x6e69616d,0x00000000,0x00030005,0x00000008,0x00000069,0x00080005,0x0000000b,
    0x475f6c67,0x61626f6c,0x766e496c,0x7461636f,0x496e6f69,0x00000044,0x00030005,0x00000012,
    0x00000042,0x00040006,0x00000012,0x00000000,0x00000062,0x00030005,0x00000014,0x00000000,
    0x00030005,0x0000001c,0x00000050,0x00040006,0x0000001c,0x00000000,0x00000076,0x00030005,
    0x0000001e,0x00006370,0x00040047,0x0000000b,0x0000000b,0x0000001c,0x00040047,0x00000011,
    0x00000006,0x00000004,0x00050048,0x00000012,0x00000000,0x00000023,0x00000000,0x00030047,
    0x00000012,0x00000003,0x00040047,0x00000014,0x00000022,0x00000000,0x00040047,0x00000014,
    0x00000021,0x00000000,0x00050048,0x0000001c,0x00000000,0x00000023,0x00000000,0x00030047,
    0x0000001c,0x00000002,0x00040047,0x00000028,0x0000000b,0x00000019,0x00020013,0x00000002,
    0x00030021,0x00000003,0x00000002,0x00040015,0x00000006,0x00000020,0x00000000,0x00040020,
    0x00000007,0x00000007,0x00000006,0x00040017,0x00000009,0x00000006,0x00000003,0x00040020,
    0x0000000a,0x00000001,0x00000009,0x0004003b,0x0000000a,0x0000000b,0x00000001,0x0004002b,
    0x00000006,0x0000000c,0x00000000,0x00040020,0x0000000d,0x00000001,0x00000006,0x00030016,
    0x00000010,0x00000020,0x0003001d,0x00000011,0x00000010,0x0003001e,0x00000012,0x00000011,
    0x00040020,0x00000013,0x00000002,0x00000012,0x0004003b,0x00000013,0x00000014,0x00000002,
    0x00040015,0x00000015,0x00000020,0x00000001,0x0004002b,0x00000015,0x00000016,0x00000000,
    0x00040020,0x00000019,0x00000002,0x00000010,0x0003001e,0x0000001c,0x00000010,0x00040020,
    0x0000001d,0x00000009,0x0000001c,0x0004003b,0x0000001d,0x0000001e,0x00000009,0x00040020,
    0x0000001f,0x00000009,0x00000010,0x0004002b,0x00000010,0x00000023,0x3f800000,0x0004002b,
    0x00000006,0x00000026,0x00000040,0x0004002b,0x00000006,0x00000027,0x00000001,0x0006002c,
    0x00000009,0x00000028,0x00000026,0x00000027,0x00000027,0x00050036,0x00000002,0x00000004,
    0x00000000,0x00000003,0x000200f8,0x00000005,0x0004003b,0x00000007,0x00000008,0x00000007,
    0x00050041,0x0000000d,0x0000000e,0x0000000b,0x0000000c,0x0004003d,0x00000006,0x0000000f,
    0x0000000e,0x0003003e,0x00000008,0x0000000f,0x0004003d,0x00000006,0x00000017,0x00000008,
    0x0004003d,0x00000006,0x00000018,0x00000008,0x00060041,0x00000019,0x0000001a,0x00000014,
    0x00000016,0x00000018,0x0004003d,0x00000010,0x0000001b,0x0000001a,0x00050041,0x0000001f,
    0x00000020,0x0000001e,0x00000016,0x0004003d,0x00000010,0x00000021,0x00000020,0x00050085,
    0x00000010,0x00000022,0x0000001b,0x00000021,0x00050081,0x00000010,0x00000024,0x00000022,
    0x00000023,0x00060041,0x00000019,0x00000025,0x00000014,0x00000016,0x00000017,0x0003003e,
    0x00000025,0x00000024,0x000100fd,0x00010038
};

static void *prewarm_main(void *arg) {
  vrt_context *ctx = arg;
  uint64_t t0 = vrt__now_ns();
  VkDevice dev = ctx->device;
  const struct VolkDeviceTable *vk = &ctx->vk;
  VkDescriptorSetLayoutBinding bind = {.binding = 0,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .descriptorCount = 1,
                                       .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
  VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                        .bindingCount = 1,
                                        .pBindings = &bind};
  VkDescriptorSetLayout set = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
  VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                   .setLayoutCount = 1,
                                   .pSetLayouts = &set,
                                   .pushConstantRangeCount = 1,
                                   .pPushConstantRanges = &range};
  VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                 .codeSize = sizeof prewarm_spirv,
                                 .pCode = prewarm_spirv};
  if (vk->vkCreateDescriptorSetLayout(dev, &li, NULL, &set) == VK_SUCCESS &&
      vk->vkCreatePipelineLayout(dev, &pl, NULL, &layout) == VK_SUCCESS &&
      vk->vkCreateShaderModule(dev, &mi, NULL, &module) == VK_SUCCESS) {
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main"},
        .layout = layout};
    if (vk->vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, NULL, &pipeline) != VK_SUCCESS)
      pipeline = VK_NULL_HANDLE;
  }
  if (pipeline)
    vk->vkDestroyPipeline(dev, pipeline, NULL);
  if (module)
    vk->vkDestroyShaderModule(dev, module, NULL);
  if (layout)
    vk->vkDestroyPipelineLayout(dev, layout, NULL);
  if (set)
    vk->vkDestroyDescriptorSetLayout(dev, set, NULL);
  uint64_t t1 = vrt__now_ns();
  atomic_store(&ctx->prewarm_ns, t1 > t0 ? t1 - t0 : 1);
  return NULL;
}

void vrt__prewarm_start(vrt_context *ctx) {
  ctx->prewarm_running = pthread_create(&ctx->prewarm_thread, NULL, prewarm_main, ctx) == 0;
}

void vrt__prewarm_join(vrt_context *ctx) {
  if (ctx->prewarm_running)
    pthread_join(ctx->prewarm_thread, NULL);
  ctx->prewarm_running = false;
}
