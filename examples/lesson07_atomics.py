"""Lesson 7 - raw GLSL and the ControlBuffer: atomics, flags and
GPU-written event counters (docs/tutorials/07-atomics.md).

    python examples/lesson07_atomics.py [--size 1000000] [--steps 3]

--size is the number of values, --steps the number of dispatches.
Exits non-zero when a count disagrees with NumPy.
"""
import argparse
import time

import numpy as np

import vulpy as vp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=1_000_000, help="values")
ap.add_argument("--steps", type=int, default=3, help="dispatches")
args = ap.parse_args()

# The words both sides see. The kernel indexes them by number, so the GLSL
# gets the numbers from the ControlBuffer itself (words_as_constants).
control = vp.ControlBuffer(["mode", "hot", "groups_done", "total"], words=16)
defines = "\n".join(f"#define {k} {v}" for k, v in control.words_as_constants().items())
print(defines)

HISTOGRAM_GLSL = """\
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) coherent buffer Control { uint words[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) coherent buffer Hist { uint hist[]; };
layout(push_constant) uniform Push { uint n; float threshold; } pc;
DEFINES
shared uint local_hist[16];
shared uint mode;

void main() {
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u)
        mode = words[MODE];           // a flag the host sets, read once per group
    if (lid < 16u)
        local_hist[lid] = 0u;
    barrier();
    if (mode == 0u)                   // 0 = skip the work; the whole group
        return;                       // agrees, so no barrier below is split

    // A grid-stride loop: any n with a fixed number of workgroups.
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint hot = 0u;
    for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) {
        float v = x[i];
        atomicAdd(local_hist[min(uint(v * 16.0), 15u)], 1u);   // workgroup atomics
        if (v > pc.threshold)
            hot++;
    }
    if (hot > 0u)
        atomicAdd(words[HOT], hot);                             // an event counter
    barrier();
    if (lid < 16u)
        atomicAdd(hist[lid], local_hist[lid]);                  // device atomics
    memoryBarrierBuffer();            // our hist adds are visible before ...
    barrier();                        // ... all of the workgroup's are done ...
    if (lid == 0u) {                  // ... and then one lane counts the group.
        uint done = atomicAdd(words[GROUPS_DONE], 1u);
        if (done == gl_NumWorkGroups.x - 1u) {
            // The last workgroup to finish sees every other group's adds:
            // it totals the histogram (CUDA's threadFenceReduction pattern).
            memoryBarrierBuffer();
            uint t = 0u;
            for (uint k = 0u; k < 16u; k++)
                t += atomicAdd(hist[k], 0u);                    // an atomic read
            words[TOTAL] = t;
        }
    }
}
""".replace("DEFINES", defines)

# Raw GLSL: compiled in-process, its interface checked against this declaration.
histogram = vp.kernel(HISTOGRAM_GLSL, buffers=["words", "x", "hist"],
                      push=[("n", "uint32"), ("threshold", "float32")])

rng = np.random.default_rng(7)
x = rng.random(args.size, dtype=np.float32)
xv = vp.asarray(x)
hist = vp.zeros(16, dtype=np.uint32)
groups = min(-(-args.size // 256), 512)

# 1. The flag: with mode 0 the kernel does nothing.
control["mode"] = 0
histogram(control, xv, hist, groups=(groups, 1, 1), n=args.size, threshold=0.9)
assert control["hot"] == 0 and hist.numpy().sum() == 0
print("mode 0: the kernel returned at once, nothing counted")

# 2. mode 1: count. Dispatch asynchronously and watch the GPU's progress
#    counter from the host while the work runs.
control["mode"] = 1
polls = 0
for step in range(args.steps):
    control["groups_done"] = 0
    h = histogram(control, xv, hist, groups=(groups, 1, 1), n=args.size, threshold=0.9,
                  sync=False)
    seen = [0]
    while not h.done:
        seen.append(control["groups_done"])  # an atomic load: safe while it runs
        time.sleep(0.0002)
    h.wait()
    seen.append(control["groups_done"])
    # The GPU only counts up: what the host saw never goes back, and ends at groups.
    assert all(a <= b for a, b in zip(seen, seen[1:])) and seen[-1] == groups, seen
    polls += len(seen) - 2

want_hist = np.bincount(np.minimum((x * np.float32(16.0)).astype(np.uint32), 15),
                        minlength=16) * args.steps
np.testing.assert_array_equal(hist.numpy(), want_hist)
assert control["hot"] == int((x > np.float32(0.9)).sum()) * args.steps
assert control["total"] == args.size * args.steps      # written by the last group
print(f"histogram of {args.size:,} values x {args.steps}: matches np.bincount")
print(f"hot events: {control['hot']:,}; total (last workgroup): {control['total']:,}")
print(f"progress: {groups} workgroups counted each step; {polls} polls while running")

# 3. The same counter in the kernel language: vp.Control and vp.atomic_add.
HOT = control.index("hot")


@vp.kernel(local_size_x=256)
def count_hot(x: vp.Buffer[vp.float32], ctrl: vp.Control, n: vp.uint32,
              threshold: vp.float32):
    i = vp.var(vp.global_id())
    while i < n:                       # the same grid-stride loop
        if x[i] > threshold:
            vp.atomic_add(ctrl[HOT], 1)
        i[:] = i + vp.num_workgroups().x * 256


control["hot"] = 0
count_hot(xv, control, groups=(groups, 1, 1), n=args.size, threshold=0.5)
assert control["hot"] == int((x > np.float32(0.5)).sum())
print(f"count_hot: {control['hot']:,} values above 0.5")
glsl = count_hot.glsl
print([ln.strip() for ln in glsl.splitlines() if "atomic" in ln and not ln.lstrip().startswith("//")])


# 4. What contention costs: every event is an atomic on one word.
def timed(threshold, steps=5):
    count_hot(xv, control, groups=(groups, 1, 1), n=args.size, threshold=threshold)
    t = time.perf_counter()
    for _ in range(steps):
        count_hot(xv, control, groups=(groups, 1, 1), n=args.size, threshold=threshold)
    return (time.perf_counter() - t) / steps


t_none, t_half = timed(2.0), timed(0.5)
t_glsl = time.perf_counter()
histogram(control, xv, hist, groups=(groups, 1, 1), n=args.size, threshold=0.5)
t_glsl = time.perf_counter() - t_glsl
print(f"device: {vp.default_context().name}")
print(f"count_hot on {args.size:,} values: no events {t_none * 1e3:.2f} ms, "
      f"50% events (one atomic each) {t_half * 1e3:.2f} ms ({t_half / t_none:.2f}x); "
      f"the GLSL histogram (one atomic per invocation for its events) {t_glsl * 1e3:.2f} ms")
print("lesson 7: OK")
