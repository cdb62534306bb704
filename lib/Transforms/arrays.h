/* arrays.h - what fuse.c and lower_arrays/ share (private to lib/Transforms).
 *
 * Partitioning an array function (docs/fusion.md): its flat body of array
 * ops becomes a sequence of array.kernel regions, each of which lower-arrays
 * turns into one kernel. Values that cross from one kernel to another go
 * through buffers (the array.store / array.load pairs the partition adds).
 */
#ifndef VULPY_TRANSFORMS_ARRAYS_H
#define VULPY_TRANSFORMS_ARRAYS_H

#include "transforms.h"

typedef enum vir_partition_mode {
  VIR_PARTITION_FUSE,  /* fuse: chains, broadcasts, a trailing reduction per kernel */
  VIR_PARTITION_SPLIT, /* one kernel per array op (the unfused baseline) */
} vir_partition_mode;

/* Cost units of the fusion cost rule (docs/fusion.md, "The cost rule"). */
enum {
  VIR_COST_LOAD = 2,        /* reading one element of an input */
  VIR_COST_OP = 1,          /* an arithmetic op, a compare, a select, a cast */
  VIR_COST_HEAVY = 4,       /* transcendental, division, remainder, pow, sqrt */
  VIR_COST_MATERIALIZE = 8, /* writing an element to a temporary and reading it back */
};

/* Partitions every array function of `m` that has no array.kernel yet.
 * Sets *changed when it did something. False (with diagnostics) when an
 * array function cannot be partitioned. */
bool vir_partition_arrays(vir_module *m, vir_partition_mode mode, vp_diags *d, bool *changed);

/* A buffer for a temporary tensor of `t`'s element type and size (bool as
 * u32 words), at the next free binding of set 0, named `@PREFIXn`. */
vir_sym *vir_array_temp(vir_module *m, const char *prefix, const vir_type *t, vp_loc loc);

/* The cost, in the units above, of one array op per element. */
uint32_t vir_array_op_cost(const vir_op *op);

#endif
