/* test_memory.c - memory kinds: the type each kind picks, and its fallbacks,
 * on the memory tables of real devices (written down here, so every table
 * is tested on any machine), then on the device at hand. */
#include "rt_test.h"

enum {
  DL = VRT_MEM_DEVICE_LOCAL,
  HV = VRT_MEM_HOST_VISIBLE,
  HC = VRT_MEM_HOST_COHERENT,
  HCA = VRT_MEM_HOST_CACHED,
  AMD = VRT_MEM_DEVICE_COHERENT_AMD | VRT_MEM_DEVICE_UNCACHED_AMD,
};

typedef struct table {
  const char *name;
  vrt_device_kind kind;
  uint32_t ntypes;
  uint32_t flags[8], heap[8];
  uint32_t nheaps;
  uint64_t heap_size[4];
  uint32_t heap_flags[4];
} table;

static vrt_memory_props props(const table *t) {
  vrt_memory_props p;
  memset(&p, 0, sizeof p);
  p.type_count = t->ntypes;
  p.heap_count = t->nheaps;
  for (uint32_t i = 0; i < t->ntypes; i++) {
    p.types[i].flags = t->flags[i];
    p.types[i].heap = t->heap[i];
  }
  for (uint32_t i = 0; i < t->nheaps; i++) {
    p.heaps[i].size = t->heap_size[i];
    p.heaps[i].flags = t->heap_flags[i];
  }
  return p;
}

#define GIB (1ull << 30)
#define MIB (1ull << 20)

/* NVIDIA discrete GPU with resizable BAR (an RTX 4090 / H200-like table). */
static const table nvidia_rebar = {
    "nvidia-rebar", VRT_DEVICE_DGPU, 5,
    {0, DL, HV | HC, HV | HC | HCA, DL | HV | HC}, {1, 0, 1, 1, 2},
    3, {24 * GIB, 64 * GIB, 24 * GIB}, {1, 0, 1}};
/* The same without resizable BAR: a 256 MiB BAR heap. */
static const table nvidia_bar = {
    "nvidia-bar", VRT_DEVICE_DGPU, 5,
    {0, DL, HV | HC, HV | HC | HCA, DL | HV | HC}, {1, 0, 1, 1, 2},
    3, {24 * GIB, 64 * GIB, 256 * MIB}, {1, 0, 1}};
/* AMD discrete: device-coherent variants that must never be picked. */
static const table amd = {
    "amd", VRT_DEVICE_DGPU, 7,
    {DL | AMD, DL, HV | HC | AMD, HV | HC, DL | HV | HC, HV | HC | HCA, DL | HV | HC | AMD},
    {0, 0, 1, 1, 2, 1, 2},
    3, {16 * GIB, 32 * GIB, 256 * MIB}, {1, 0, 1}};
/* Intel integrated: one device-local heap that is the system DRAM. */
static const table intel = {
    "intel-igpu", VRT_DEVICE_IGPU, 3, {DL, DL | HV | HC, DL | HV | HC | HCA}, {0, 0, 0},
    1, {16 * GIB}, {1}};
/* lavapipe: one type with every flag. */
static const table lavapipe = {
    "lavapipe", VRT_DEVICE_CPU, 1, {DL | HV | HC | HCA}, {0}, 1, {2 * GIB}, {1}};
/* A phone GPU whose cached memory is not coherent. */
static const table adreno = {
    "adreno", VRT_DEVICE_IGPU, 3, {DL, DL | HV | HC, DL | HV | HCA}, {0, 0, 0},
    1, {8 * GIB}, {1}};
/* A discrete device without any host-cached type. */
static const table nocache = {
    "nocache", VRT_DEVICE_DGPU, 2, {DL, HV | HC}, {0, 1}, 2, {8 * GIB, 16 * GIB}, {1, 0}};

/* The first candidate and its tier for a kind. */
static void expect(const table *t, vrt_memory_kind kind, uint32_t bits, uint32_t type,
                   uint32_t tier) {
  vrt_memory_props p = props(t);
  bool uma = vrt_memory_is_uma(&p, t->kind);
  uint32_t types[32], tiers[32];
  uint32_t n = vrt_memory_candidates(&p, uma, kind, bits, types, tiers);
  if (!n || types[0] != type || tiers[0] != tier) {
    fprintf(stderr, "%s, kind %s: expected type %u tier %u, got %s%u tier %u\n", t->name,
            vrt_memory_kind_name(kind), type, tier, n ? "" : "nothing: ", n ? types[0] : 0,
            n ? tiers[0] : 0);
    rt_failures++;
  }
  /* Never a device-coherent AMD type, never a type twice. */
  for (uint32_t i = 0; i < n; i++) {
    CHECK(!(p.types[types[i]].flags & AMD));
    for (uint32_t k = 0; k < i; k++)
      CHECK(types[k] != types[i]);
    CHECK(i == 0 || tiers[i] >= tiers[i - 1]);
  }
}

static void test_tables(void) {
  const uint32_t all = ~0u;
  expect(&nvidia_rebar, VRT_DEVICE, all, 1, 0);
  expect(&nvidia_rebar, VRT_HOST, all, 2, 0);
  expect(&nvidia_rebar, VRT_CACHED, all, 3, 0);
  expect(&nvidia_rebar, VRT_REBAR, all, 4, 0);
  expect(&nvidia_bar, VRT_REBAR, all, 4, 0);
  expect(&amd, VRT_DEVICE, all, 1, 0);
  expect(&amd, VRT_HOST, all, 3, 0);
  expect(&amd, VRT_CACHED, all, 5, 0);
  expect(&amd, VRT_REBAR, all, 4, 0);
  /* UMA: device memory is host-visible; the kinds collapse. */
  expect(&intel, VRT_DEVICE, all, 1, 0);
  expect(&intel, VRT_HOST, all, 1, 0);
  expect(&intel, VRT_CACHED, all, 2, 0);
  expect(&intel, VRT_REBAR, all, 1, 0);
  expect(&lavapipe, VRT_DEVICE, all, 0, 0);
  expect(&lavapipe, VRT_HOST, all, 0, 1); /* write-combined wanted, cached it is */
  expect(&lavapipe, VRT_CACHED, all, 0, 0);
  expect(&lavapipe, VRT_REBAR, all, 0, 0);
  expect(&adreno, VRT_CACHED, all, 2, 1); /* cached but not coherent */
  expect(&adreno, VRT_HOST, all, 1, 0);
  /* Fallbacks: no cached type; no rebar; a type excluded by the buffer. */
  expect(&nocache, VRT_CACHED, all, 1, 2);
  expect(&nocache, VRT_REBAR, all, 1, 2);
  expect(&nvidia_rebar, VRT_DEVICE, all & ~(1u << 1), 4, 1);
  expect(&nvidia_rebar, VRT_CACHED, all & ~(1u << 3), 2, 2);
  expect(&intel, VRT_DEVICE, 1u << 0, 0, 1);

  /* rebar without resizable BAR: the 256 MiB BAR type first, then host
   * memory when that heap is full. */
  vrt_memory_props p = props(&nvidia_bar);
  uint32_t types[32], tiers[32];
  uint32_t n = vrt_memory_candidates(&p, false, VRT_REBAR, ~0u, types, tiers);
  CHECK(n >= 2 && types[0] == 4 && types[1] == 2 && tiers[1] == 2);
  /* device on a discrete GPU: pure VRAM first, the BAR type after. */
  n = vrt_memory_candidates(&p, false, VRT_DEVICE, ~0u, types, tiers);
  CHECK(n >= 2 && types[0] == 1 && types[1] == 4 && tiers[1] == 1);
  CHECK(vrt_memory_candidates(&p, false, VRT_HOST, 0, types, tiers) == 0);
}

static void test_uma(void) {
  vrt_memory_props p = props(&nvidia_rebar);
  CHECK(!vrt_memory_is_uma(&p, VRT_DEVICE_DGPU));
  p = props(&intel);
  CHECK(vrt_memory_is_uma(&p, VRT_DEVICE_IGPU));
  CHECK(vrt_memory_is_uma(&p, VRT_DEVICE_OTHER)); /* all heaps device-local and mappable */
  p = props(&lavapipe);
  CHECK(vrt_memory_is_uma(&p, VRT_DEVICE_CPU));
  /* One device-local heap but nothing host-visible: not shared DRAM. */
  table t = {"vram-only", VRT_DEVICE_DGPU, 1, {DL}, {0}, 1, {8 * GIB}, {1}};
  p = props(&t);
  CHECK(!vrt_memory_is_uma(&p, VRT_DEVICE_DGPU));
  CHECK(vrt_memory_kind_lookup("rebar") == VRT_REBAR);
  CHECK(vrt_memory_kind_lookup("vram") == -1);
  CHECK(strcmp(vrt_memory_kind_name(VRT_CACHED), "cached") == 0);
}

/* On the device at hand, each kind's buffer gets the first candidate, and
 * on UMA devices every kind is mappable. */
static void test_real_device(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  const vrt_device_info *info = vrt_context_device(ctx);
  vp_diags d = {0};
  for (int k = 0; k < VRT_MEMORY_KIND_COUNT; k++) {
    vrt_buffer *b = vrt_buffer_create(ctx, 4096, (vrt_memory_kind)k, &d);
    CHECK_OK(d);
    if (!b)
      continue;
    uint32_t types[32], tiers[32];
    uint32_t n = vrt_memory_candidates(&info->memory, info->uma, (vrt_memory_kind)k, ~0u, types,
                                       tiers);
    CHECK(n >= 1);
    CHECK_EQ_U64(vrt_buffer_memory_flags(b), info->memory.types[types[0]].flags);
    CHECK_EQ_U64(vrt_buffer_fallback(b), tiers[0]);
    CHECK(vrt_buffer_kind(b) == (vrt_memory_kind)k);
    if (info->uma || k != VRT_DEVICE)
      CHECK(vrt_buffer_map(b) != NULL);
    vrt_buffer_destroy(b);
  }
  vp_diags_free(&d);
  rt_context_done(ctx);
}

int main(void) {
  RT_RUN(test_tables);
  RT_RUN(test_uma);
  RT_RUN(test_real_device);
  return rt_failures ? 1 : 0;
}
