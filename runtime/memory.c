/* memory.c - the four memory kinds and the memory types they map to.
 *
 * Each kind is a ranked list of tiers; a tier is a set of property flags a
 * memory type must have and a set it should not have. A type's rank is the
 * first tier it satisfies, so the candidates come out best first and
 * allocation falls back along them when a heap is full. The tables
 * (docs/runtime.md shows them) are:
 *
 *   discrete devices                    unified memory (UMA)
 *   device: DL !HV, DL, any             DL+HV+HC, DL, any
 *   host:   HV+HC !DL !HCa, HV+HC !DL,  HV+HC !HCa, HV+HC, HV
 *           HV+HC, HV
 *   cached: HV+HC+HCa !DL, HV+HCa,      HV+HC+HCa, HV+HCa, HV+HC, HV
 *           HV+HC, HV
 *   rebar:  DL+HV+HC, DL+HV, then host's tiers
 *
 * (DL device-local, HV host-visible, HC host-coherent, HCa host-cached.) On
 * UMA `device` asks for host-visible memory, so device buffers can be mapped.
 * Protected and lazily allocated types and AMD's device-coherent types are
 * never used.
 */
#include "internal.h"

#include <string.h>

enum {
  DL = VRT_MEM_DEVICE_LOCAL,
  HV = VRT_MEM_HOST_VISIBLE,
  HC = VRT_MEM_HOST_COHERENT,
  HCA = VRT_MEM_HOST_CACHED,
  NEVER = VRT_MEM_PROTECTED | VRT_MEM_LAZILY_ALLOCATED | VRT_MEM_DEVICE_COHERENT_AMD |
          VRT_MEM_DEVICE_UNCACHED_AMD,
};

typedef struct tier {
  uint32_t need, avoid;
} tier;

#define MAX_TIERS 6

typedef struct kind_table {
  tier t[MAX_TIERS];
  uint32_t n;
} kind_table;

static const kind_table discrete[VRT_MEMORY_KIND_COUNT] = {
    [VRT_DEVICE] = {{{DL, HV}, {DL, 0}, {0, 0}}, 3},
    [VRT_HOST] = {{{HV | HC, DL | HCA}, {HV | HC, DL}, {HV | HC, 0}, {HV, 0}}, 4},
    [VRT_CACHED] = {{{HV | HC | HCA, DL}, {HV | HCA, 0}, {HV | HC, 0}, {HV, 0}}, 4},
    [VRT_REBAR] = {{{DL | HV | HC, 0}, {DL | HV, 0}, {HV | HC, DL | HCA}, {HV | HC, 0}, {HV, 0}},
                   5},
};

static const kind_table unified[VRT_MEMORY_KIND_COUNT] = {
    [VRT_DEVICE] = {{{DL | HV | HC, 0}, {DL, 0}, {0, 0}}, 3},
    [VRT_HOST] = {{{HV | HC, HCA}, {HV | HC, 0}, {HV, 0}}, 3},
    [VRT_CACHED] = {{{HV | HC | HCA, 0}, {HV | HCA, 0}, {HV | HC, 0}, {HV, 0}}, 4},
    [VRT_REBAR] = {{{DL | HV | HC, 0}, {DL | HV, 0}, {HV | HC, 0}, {HV, 0}}, 4},
};

static const char *const kind_names[VRT_MEMORY_KIND_COUNT] = {"device", "host", "cached",
                                                              "rebar"};

const char *vrt_memory_kind_name(vrt_memory_kind kind) {
  return (unsigned)kind < VRT_MEMORY_KIND_COUNT ? kind_names[kind] : "?";
}

int vrt_memory_kind_lookup(const char *name) {
  for (int i = 0; i < VRT_MEMORY_KIND_COUNT; i++)
    if (strcmp(name, kind_names[i]) == 0)
      return i;
  return -1;
}

bool vrt_memory_is_uma(const vrt_memory_props *p, vrt_device_kind kind) {
  if (kind == VRT_DEVICE_IGPU || kind == VRT_DEVICE_CPU)
    return true;
  if (!p->heap_count)
    return false;
  for (uint32_t i = 0; i < p->heap_count; i++)
    if (!(p->heaps[i].flags & VRT_HEAP_DEVICE_LOCAL))
      return false;
  /* All heaps device-local but nothing host-visible is a discrete device
   * without a host heap, not shared DRAM. */
  for (uint32_t i = 0; i < p->type_count; i++)
    if ((p->types[i].flags & (DL | HV)) == (DL | HV))
      return true;
  return false;
}

uint32_t vrt_memory_candidates(const vrt_memory_props *p, bool uma, vrt_memory_kind kind,
                               uint32_t type_bits, uint32_t *types, uint32_t *tiers) {
  if ((unsigned)kind >= VRT_MEMORY_KIND_COUNT)
    return 0;
  const kind_table *kt = uma ? &unified[kind] : &discrete[kind];
  uint32_t n = 0, taken = 0;
  for (uint32_t t = 0; t < kt->n; t++)
    for (uint32_t i = 0; i < p->type_count && i < VRT_MAX_MEMORY_TYPES; i++) {
      uint32_t f = p->types[i].flags;
      if (!(type_bits & (1u << i)) || (taken & (1u << i)) || (f & NEVER))
        continue;
      if (p->types[i].heap >= p->heap_count || !p->heaps[p->types[i].heap].size)
        continue;
      if ((f & kt->t[t].need) != kt->t[t].need || (f & kt->t[t].avoid))
        continue;
      taken |= 1u << i;
      if (tiers)
        tiers[n] = t;
      types[n++] = i;
    }
  return n;
}
