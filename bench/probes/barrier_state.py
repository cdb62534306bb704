"""What state of the process or the GPU makes the grid barrier slow (issue
15, docs/persistent.md "The experiments on the H200"): the same lowered
barrier kernel cost 2.19 us a barrier in one process and 1.44 in another
(CUDA's grid.sync() 1.02 in both), and 2.1-2.5 us at 132 groups in every
`persistent` suite run. This probe measures the barrier again and again in
ONE process while it changes one condition at a time, with the GPU's
clocks sampled during each phase, and ends with one table.

    .venv/bin/python bench/probes/barrier_state.py            (the H200, ~100 s)
    .venv/bin/python bench/probes/barrier_state.py --quick    (lavapipe: a smoke run)
    bash bench/device/probes.sh 200 'bench/probes/barrier_state.py'

What a row measures (as bench/probes/barrier_ab.py): the marginal us a
barrier of the `syncs` kernel of bench_persistent.py (a time loop of grid
syncs, two barriers a step): runs of N1 and N2 steps, each waited for with
a blocking wait (no sleep-polling), the difference of their medians over
the difference of the barriers passed; launch, the hidden buffers' set-up
and discovery cancel. Every (variant, groups, placement, steps) run of a
phase is interleaved with the others rep by rep; `reps` lists each rep's
own marginal figure in order (a state that wears off within a phase
shows), `whole` is the N2 run's wall time over its barriers (what the
suite's `grid barrier` row reports).

Phases, in order (each line of the table names its phase):
  first        right after compiling (one 1-step run of each kernel)
  again        the same, at once (is the first one a warm-up outlier?)
  idle 3 s     after 3 s with nothing on the GPU (clocks drop)
  cuda         CUDA's grid.sync() (bench_persistent.CUDA_SYNC through
               barrier_ab.cg_sync: a cooperative launch, CUDA events) at each
               group count run between the Vulkan reps, rep by rep; its
               median is the CUDA column of this phase and the next ones
  big held     after allocating two 1 GiB float32 arrays, a few elementwise
               ops on them and the persistent suite's 2^26-cell grid (200
               steps), with the arrays still allocated
  big freed    after deleting them and vp.get_default_memory_pool().free_all_blocks()
  placement    the grid-barrier words (_vp_grid, hidden buffer; the barrier
               word is word 96, lib/Transforms/persistent.h G_GEN_PAD) placed
               differently, every placement interleaved: `pool` (as the
               runtime does: vp.zeros(1280, uint32) from the pool, the
               context's default memory kind), `pool:device` / `pool:rebar`
               (the pool, that kind), `ded:KIND@OFF` (a window of a 40 MiB
               array, which the sub-allocator gives a VkDeviceMemory block
               of its own, at byte offset OFF: 0, 64, 128, 4 KiB, 2 MiB;
               offsets that are not a multiple of the device's
               minStorageBufferOffsetAlignment are skipped, since binding
               them would copy). The `grid at` column: the memory kind, its
               Vulkan property flags (DL/HV/HC/HCa), and for mapped memory
               the host mapping's address mod 4 KiB (the runtime exposes no
               GPU address nor block offset; a block's mapping starts on a
               page, so it is the offset in the block mod 4 KiB) and how
               many distinct buffers the phase's runs got
  host words   the host words (_vp_host) in their usual ControlBuffer
               (kind rebar, host-coherent: runtime/control.c) against a plain
               `device` buffer the probe sets before each launch and reads
               after it (vp.ControlBuffer takes no memory kind: this is the
               only other placement the API allows; no steering happens)
  wait         the usual blocking wait against the host spinning on the run's
               completion (handle.done, the timeline value) at every group
               count: a wake-up that comes late or in 50 ms slices
               (docs/runtime.md, "Waiting") would bend both figures
  end cuda     CUDA's grid.sync() interleaved again (did the ratio move?)
  cu-child     (--phases only, before any CUDA phase) after another process
               called cuInit and made its primary context current, then exited
  cuInit       after cuInit(0) in this process (ctypes, libcuda.so.1)
  cu-ctx       after the primary context was retained and made current
  cu-released  after it was released
               (each of these tells only while the state has not flipped:
               ask for them in the order to test, e.g.
               --phases first,cuInit,cu-ctx,cu-released,cuda)
Variants: flip (the default) and cg-offpath (--variants); group counts
132 and 1056 on GPUs (--groups; the placement and host-word phases use the
first count only unless --all-groups), the driver's default on lavapipe.

GPU state: `nvidia-smi --query-gpu=clocks.sm,clocks.mem,
clocks_throttle_reasons.active,pstate,power.draw,temperature.gpu` sampled
every --smi-ms ms during each phase (a background nvidia-smi -lms; 0: one
sample before and after the phase): the table's SM clock column is the
median over the phase with its range, the pstate and the throttle reasons
(hex, nvidia-smi's bitmask) every value seen. Skipped where there is no
nvidia-smi.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # bench/ (bench_persistent)
sys.path.insert(0, HERE)                   # bench/probes/ (barrier_ab)

import barrier_ab as ab  # noqa: E402
import bench_persistent as bp  # noqa: E402

import vulpy as vp  # noqa: E402
from vulpy import _native  # noqa: E402
from vulpy import _persistent as P  # noqa: E402

SMI_FIELDS = ["clocks.sm", "clocks.mem", "clocks_throttle_reasons.active", "pstate",
              "power.draw", "temperature.gpu"]
DEDICATED_BYTES = 40 << 20  # over half a 64 MiB block: a block of its own (runtime/alloc.c)


# ---------------------------------------------------------------- GPU state


class Smi:
    """nvidia-smi samples of SM clock, memory clock, throttle reasons,
    pstate, power and temperature: one now (sample) or every `ms` during a
    phase (start / stop)."""

    def __init__(self, ms):
        self.exe, self.ms, self.proc, self.fields = shutil.which("nvidia-smi"), ms, None, None
        if not self.exe:
            return
        for throttle in ("clocks_throttle_reasons.active", "clocks_event_reasons.active"):
            fields = [throttle if f.startswith("clocks_throttle") else f for f in SMI_FIELDS]
            if self._query(fields) is not None:
                self.fields = fields
                return
        self.exe = None

    def _query(self, fields, extra=()):
        try:
            r = subprocess.run([self.exe, "--query-gpu=" + ",".join(fields),
                                "--format=csv,noheader,nounits", *extra], capture_output=True,
                               text=True, timeout=15)
        except (OSError, subprocess.SubprocessError):
            return None
        return self._parse(r.stdout) if r.returncode == 0 else None

    @staticmethod
    def _parse(text):
        rows = []
        for line in text.strip().splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) >= 6:  # the first GPU's line (one GPU on the device machine)
                rows.append(parts[:6])
        return rows

    def sample(self):
        return self._query(self.fields) or [] if self.exe else []

    def start(self):
        if self.exe and self.ms > 0:
            self.proc = subprocess.Popen([self.exe, "--query-gpu=" + ",".join(self.fields),
                                          "--format=csv,noheader,nounits", "-lms", str(self.ms)],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         text=True)
        return self.sample()

    def stop(self, before):
        rows = list(before)
        if self.proc is not None:
            self.proc.terminate()
            try:
                out, _ = self.proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, _ = self.proc.communicate()
            rows += self._parse(out)
            self.proc = None
        return rows + self.sample()


def summarize(rows):
    """(SM clock 'median (min-max)', pstates, throttle reasons, mem clock,
    power W median, temperature max) of nvidia-smi rows, or dashes."""
    if not rows:
        return dict(sm="-", pstate="-", throttle="-", mem="-", power="-", temp="-")

    def nums(i):
        out = []
        for r in rows:
            try:
                out.append(float(r[i]))
            except ValueError:
                pass
        return out
    sm, mem, pw, tp = nums(0), nums(1), nums(4), nums(5)
    sm_s = (f"{statistics.median(sm):.0f} ({min(sm):.0f}-{max(sm):.0f})" if sm else "-")
    def hexed(t):  # 0x0000000000000004 -> 0x4
        try:
            return f"{int(t, 16):#x}"
        except ValueError:
            return t
    thr = ",".join(sorted({hexed(r[2]) for r in rows}))
    return dict(sm=sm_s, pstate=",".join(sorted({r[3] for r in rows})), throttle=thr,
                mem=(f"{statistics.median(mem):.0f}" if mem else "-"),
                power=(f"{statistics.median(pw):.0f}" if pw else "-"),
                temp=(f"{max(tp):.0f}" if tp else "-"))


# ---------------------------------------------------------------- placements


FLAG_NAMES = ((1, "DL"), (2, "HV"), (4, "HC"), (8, "HCa"))


def flags_text(flags):
    return "+".join(n for bit, n in FLAG_NAMES if flags & bit) or "0"


class PlainHost:
    """The host words (_vp_host) in a plain Buffer of memory kind `kind`
    instead of a ControlBuffer: set from the usual words before the launch
    (upload), read after the run (download). Enough for a run that the host
    neither steers nor reads while it runs (a blocking wait)."""

    _control = True  # what vulpy._kernel.launch binds as a ControlBuffer (.buffer)

    def __init__(self, usual, kind, ctx):
        self._words = np.array([usual[i] for i in range(P.HOST_WORDS)], np.uint32)
        self.buffer = _native.ext().Buffer(ctx._native, P.HOST_WORDS * 4, kind)
        self.buffer.upload(self._words)

    def __getitem__(self, i):
        self.buffer.download(self._words)
        return int(self._words[i])

    def __setitem__(self, i, value):
        self.buffer.download(self._words)
        self._words[i] = value
        self.buffer.upload(self._words)


class Placement:
    """Where one run's hidden buffers go: `grid` 'pool' (the runtime's own
    choice), 'pool:KIND' or ('ded', KIND, OFFSET); `host` 'control' (the
    runtime's ControlBuffer) or a memory kind (PlainHost). install()
    replaces vulpy._persistent._hidden for the runs that follow."""

    def __init__(self, ctx, grid="pool", host="control", wait="block"):
        self.ctx, self.grid, self.host, self.wait = ctx, grid, host, wait
        self.big = None
        self.seen = {}  # mapped address (or id) of each run's grid buffer -> runs
        self.info = None

    _dedicated = {}  # memory kind -> the 40 MiB array every ded:KIND@OFF shares

    def prepare(self):
        """Allocates (once a kind) and zeroes the dedicated array before the
        phase's timed runs, so that no run pays for it."""
        if isinstance(self.grid, tuple):
            _, kind, self.off = self.grid
            big = Placement._dedicated.get(kind)
            if big is None:
                big = Placement._dedicated[kind] = vp.zeros(DEDICATED_BYTES // 4, np.uint32,
                                                            memory=kind, context=self.ctx)
                big._buf.upload(np.zeros(16, np.uint32))  # its zero fill runs now
                self.ctx.synchronize()
            self.big = big

    @property
    def name(self):
        g = self.grid if isinstance(self.grid, str) else f"ded:{self.grid[1]}@{self.grid[2]}"
        return (g + ("" if self.host == "control" else f" host:{self.host}")
                + ("" if self.wait == "block" else f" wait:{self.wait}"))

    def hidden(self, orig):
        def hidden(ctx, min_groups):
            host, grid = orig(ctx, min_groups)
            if isinstance(self.grid, tuple):  # a zeroed window of the dedicated array
                w = self.off // 4
                self.big._buf.upload(np.zeros(P.GRID_WORDS, np.uint32), self.off)
                grid = self.big[w:w + P.GRID_WORDS]
            elif self.grid != "pool":
                grid = vp.zeros(P.GRID_WORDS, np.uint32, memory=self.grid.split(":")[1],
                                context=ctx)
            if self.host != "control":
                host = PlainHost(host, self.host, ctx)
            self.note(grid)
            return host, grid
        return hidden

    def note(self, grid):
        buf = grid._buf
        addr = buf.address
        at = addr + grid._offset * 4 if addr is not None else None
        key = at if at is not None else id(buf)
        self.seen[key] = self.seen.get(key, 0) + 1
        if self.info is None:
            self.info = (f"{buf.kind} {flags_text(buf.memory_flags)}"
                         + (f" fb{buf.fallback}" if buf.fallback else ""))

    def where(self):
        if self.info is None:
            return "-"
        maps = [a for a in self.seen if isinstance(a, int) and a > 1 << 16]
        mod = ",".join(sorted({f"{a % 4096:#x}" for a in maps})) if maps else "unmapped"
        return f"{self.info} map%4K {mod} x{len(self.seen)}"


# ---------------------------------------------------------------- timing


def measure(syncs, keys, n1, n2, reps, cuda=None):
    """{key: dict(marg, whole, adm, reps=[per-rep marginal us])} or an
    error string, key = (variant, groups, Placement). Every (key, steps)
    run is interleaved rep by rep; cuda(rep) runs between reps (CUDA's
    grid.sync(), interleaved)."""
    times, info, out = {}, {}, {}
    orig = P._hidden

    def run(key, steps):
        v, g, place = key
        kw = {} if g is None else {"groups": g}
        P._hidden = place.hidden(orig)
        try:
            t0 = time.perf_counter()
            h = syncs[v](steps=steps, sync=False, **kw)
            if place.wait == "spin":  # the host polls the run's timeline value
                while not h.done:
                    pass
            h.wait()  # blocking: no sleep-polling in the figure
            dt = time.perf_counter() - t0
        finally:
            P._hidden = orig
        info[key + (steps,)] = (h.barriers, h.admitted)
        return dt

    for r in range(reps):
        for key in keys:
            for steps in (n1, n2):
                if key in out:
                    continue
                try:
                    times.setdefault(key + (steps,), []).append(run(key, steps))
                except Exception as e:  # noqa: BLE001 - say it in the table, go on
                    out[key] = f"{type(e).__name__}: {e}"[:160]
        if cuda is not None:
            cuda(r)
    for key in keys:
        if key in out:
            continue
        (b1, _), (b2, adm) = info[key + (n1,)], info[key + (n2,)]
        if b2 <= b1:  # lavapipe runs acquire-poll barriers stepped: nothing to time
            out[key] = f"no barriers counted ({b1}, {b2}): ran stepped"
            continue
        t1, t2 = times[key + (n1,)], times[key + (n2,)]
        per = [(y - x) / (b2 - b1) * 1e6 for x, y in zip(t1, t2)]
        marg = (statistics.median(t2) - statistics.median(t1)) / (b2 - b1)
        out[key] = dict(marg=marg * 1e6, whole=statistics.median(t2) / b2 * 1e6, adm=adm,
                        reps=per, fixed=(statistics.median(t2) - marg * b2) * 1e3)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (lavapipe)")
    ap.add_argument("--variants", default="flip,cg-offpath", help="barrier= names")
    ap.add_argument("--groups", help="comma-separated group counts (default 132,1056 on GPUs)")
    ap.add_argument("--all-groups", action="store_true",
                    help="placement and host-word phases at every group count")
    ap.add_argument("--steps", help="N1,N2 steps (two barriers a step; default 5000,25000)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--big-mib", type=int, help="MiB of each of the two big arrays (1024)")
    ap.add_argument("--smi-ms", type=int, default=200,
                    help="nvidia-smi sampling period during a phase (0: before and after)")
    ap.add_argument("--no-cuda", action="store_true", help="skip CUDA's grid.sync()")
    ap.add_argument("--phases", help="comma-separated subset of the phases (default all)")
    args = ap.parse_args()
    t_start = time.perf_counter()
    ctx = vp.default_context()
    lavapipe = ctx.info.get("driver_name") == "llvmpipe"
    quick = args.quick or lavapipe
    variants = args.variants.split(",")
    groups = ([None if g == "default" else int(g) for g in args.groups.split(",")]
              if args.groups else [None] if quick else [132, 1056])
    n1, n2 = ((int(x) for x in args.steps.split(",")) if args.steps
              else (50, 150) if quick else (5000, 25000))
    reps = min(args.reps, 3) if quick else args.reps
    big_mib = args.big_mib or (16 if quick else 1024)
    big_cells, big_steps = (1 << 16, 5) if quick else (1 << 26, 200)
    smi = Smi(args.smi_ms)
    align = ctx.info["limits"]["min_storage_buffer_offset_alignment"] or 1
    default_kind = ctx.default_memory
    tmp = tempfile.mkdtemp(prefix="vulpy-barrier-state-")
    syncs, heats = {}, {}
    for v in variants:
        heats[v], syncs[v], _ = bp._kernels(tmp, v)
    print(f"device: {ctx.name}; default memory {default_kind}; "
          f"minStorageBufferOffsetAlignment {align}; variants {variants}; groups {groups}; "
          f"steps {n1} / {n2} (two barriers a step); reps {reps}; "
          f"nvidia-smi {'every %d ms' % args.smi_ms if smi.exe else 'absent'}", flush=True)

    # placements: the runtime's own, then the others of the placement phase
    usual = Placement(ctx)
    kinds = ["device", "rebar"]
    placements = [usual] + [Placement(ctx, f"pool:{k}") for k in kinds]
    for kind in kinds:
        for off in (0, 64, 128, 4096, 2 << 20):
            if off % align == 0:
                placements.append(Placement(ctx, ("ded", kind, off)))
    hosts = [Placement(ctx, "pool", "device")]
    spin = Placement(ctx, wait="spin")
    # compile each kernel, and no more (the `first` phase is the first timed run)
    admitted = {}  # requested groups -> admitted (the CUDA anchors' group counts)
    for v in variants:
        for g in groups:
            try:
                h = syncs[v](steps=1, sync=False, **({} if g is None else {"groups": g}))
                h.wait()
                admitted.setdefault(g, h.admitted)
            except Exception as e:  # noqa: BLE001
                print(f"compile run {v} groups {g}: {type(e).__name__}: {e}"[:200], flush=True)

    cg, cg_note = {}, []  # group count -> latest CUDA us/sync; why none
    if not args.no_cuda:  # nvcc now, not in the middle of a phase (an idle GPU for seconds)
        try:
            ab.build(bp.CUDA_SYNC, tmp, "grid_sync")
        except Exception as e:  # noqa: BLE001 - no nvcc here: no CUDA column
            cg_note.append(f"{type(e).__name__}: {e}"[:160])

    def cuda_between(adm_groups, got):
        def cuda(rep):
            if args.no_cuda or cg_note:
                return
            for g in adm_groups:
                try:
                    us = ab.cg_sync(tmp, g, n1, n2, 1)
                except Exception as e:  # noqa: BLE001 - no nvcc / no CUDA here: skip
                    cg_note.append(f"{type(e).__name__}: {e}"[:160])
                    return
                got.setdefault(g, []).append(us)
        return cuda

    cu = {}

    def cu_call(name, *args):
        import ctypes
        if "lib" not in cu:
            cu["lib"] = ctypes.CDLL("libcuda.so.1")
        r = getattr(cu["lib"], name)(*args)
        print(f"  {name}: {r}", flush=True)
        return r

    def cu_init():  # the driver API's first call, in this process, and nothing more
        cu_call("cuInit", 0)

    def cu_ctx():  # the primary context made current (what a CuPy import's first use does)
        import ctypes
        dev, c = ctypes.c_int(), ctypes.c_void_p()
        cu_call("cuDeviceGet", ctypes.byref(dev), 0)
        cu_call("cuDevicePrimaryCtxRetain", ctypes.byref(c), dev)
        cu_call("cuCtxSetCurrent", c)
        cu["ctx"], cu["dev"] = c, dev

    def cu_release():
        cu_call("cuCtxSetCurrent", None)
        cu_call("cuDevicePrimaryCtxRelease", cu["dev"])

    def cu_child():  # another process: cuInit and a primary context, then it exits
        import subprocess
        code = ("import ctypes; l = ctypes.CDLL('libcuda.so.1'); d = ctypes.c_int(); "
                "c = ctypes.c_void_p(); print(l.cuInit(0), l.cuDeviceGet(ctypes.byref(d), 0), "
                "l.cuDevicePrimaryCtxRetain(ctypes.byref(c), d), l.cuCtxSetCurrent(c))")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        print(f"  child: {r.stdout.strip()} {r.stderr.strip()[-200:]}", flush=True)

    big = []

    def big_alloc():
        n = big_mib << 18  # float32 elements in big_mib MiB
        a = vp.zeros(n, np.float32)
        b = vp.zeros(n, np.float32)
        a += 1.0
        for _ in range(3):
            b = a * 2.0 + b
        heat = heats[variants[0]]
        heat(vp.zeros(big_cells, np.float32), vp.zeros(big_cells, np.float32), n=big_cells,
             alpha=0.2, steps=big_steps, mode="persistent")
        ctx.synchronize()
        big[:] = [a, b]

    def big_free():
        big.clear()
        ctx.synchronize()
        vp.get_default_memory_pool().free_all_blocks()

    base = [(v, g, usual) for v in variants for g in groups]
    first_g = groups if args.all_groups else groups[:1]
    phases = [
        ("first", None, base, False),
        ("again", None, base, False),
        ("idle 3 s", lambda: time.sleep(3), base, False),
        ("cuda", None, base, True),
        ("big held", big_alloc, base, False),
        ("big freed", big_free, base, False),
        ("placement", None, [(v, g, p) for v in variants for g in first_g for p in placements],
         False),
        ("host words", None, [(v, g, p) for v in variants for g in first_g
                              for p in [usual] + hosts], False),
        ("wait", None, [(v, g, p) for v in variants for g in groups for p in (usual, spin)],
         False),
        ("end cuda", None, base, True),
        # which part of a CUDA program leaves the fast state (--phases picks
        # them, in order: each only tells while the state has not flipped)
        ("cu-child", cu_child, base, False),
        ("cuInit", cu_init, base, False),
        ("cu-ctx", cu_ctx, base, False),
        ("cu-released", cu_release, base, False),
    ]
    if args.phases:
        want = args.phases.split(",")
        byname = {p[0]: p for p in phases}
        phases = [byname[w] for w in want]  # in the order asked
    table = []
    for name, event, keys, with_cuda in phases:
        for p in {k[2] for k in keys}:
            p.seen.clear()
            p.prepare()
        t0 = time.perf_counter()
        if event is not None:
            try:
                event()
            except Exception as e:  # noqa: BLE001 - no libcuda here: the phase says so
                print(f"[{name}] event failed: {type(e).__name__}: {e}"[:200], flush=True)
        before = smi.start()
        got_cg = {}
        adm_groups = sorted(set(admitted.values())) or [g for g in groups if g]
        res = measure(syncs, keys, n1, n2, reps,
                      cuda_between(adm_groups, got_cg) if with_cuda else None)
        state = summarize(smi.stop(before))
        for g, xs in got_cg.items():
            cg[g] = statistics.median(xs)
        print(f"\n[{name}] {time.perf_counter() - t0:.1f} s; SM clock {state['sm']} MHz, "
              f"mem {state['mem']} MHz, pstate {state['pstate']}, throttle {state['throttle']}, "
              f"power {state['power']} W, temp max {state['temp']} C"
              + (f"; CUDA grid.sync() us: " + ", ".join(f"{g}: {statistics.median(x):.3f} "
                                                       f"(reps {' '.join(f'{y:.3f}' for y in x)})"
                                                       for g, x in sorted(got_cg.items()))
                 if got_cg else ""), flush=True)
        for key in keys:
            v, g, place = key
            r = res[key]
            if isinstance(r, str):
                print(f"  {v:11s} {str(g):>5s} {place.name:22s} error {r}", flush=True)
                table.append((name, v, str(g), place.name, None, None, None, state, place.where(),
                              r))
                continue
            admitted.setdefault(g, r["adm"])
            c = cg.get(r["adm"])
            print(f"  {v:11s} {r['adm']:5d} {place.name:22s} {r['marg']:7.3f} us/bar "
                  f"(whole {r['whole']:.3f}, fixed {r['fixed']:.2f} ms a run) reps "
                  + " ".join(f"{x:.3f}" for x in r["reps"]) + f"  grid at {place.where()}",
                  flush=True)
            table.append((name, v, str(r["adm"]), place.name, r["marg"], r["whole"], c, state,
                          place.where(), None))
        if Placement._dedicated:  # the later phases run without the 40 MiB arrays
            Placement._dedicated.clear()
            for p in {k[2] for k in keys}:
                p.big = None
    if cg_note:
        print(f"\nno CUDA grid.sync() figure: {cg_note[0]}")
    print(f"\ntotal {time.perf_counter() - t_start:.0f} s. Table (vk: marginal us a barrier; "
          f"whole: the N2 run over its barriers, the suite's figure (launch, set-up and wait "
          f"are the `fixed` ms a run printed above); CUDA: grid.sync() us of the latest cuda "
          f"phase at that group count; SM clock MHz: median (range) during the phase):")
    print(f"{'phase':11s} {'variant':11s} {'groups':>6s} {'placement':22s} {'vk us':>7s} "
          f"{'whole':>7s} {'CUDA us':>7s} {'ratio':>6s} {'SM clock':>17s} {'pstate':>6s} "
          f"{'throttle':>8s}  grid at")
    for name, v, g, pl, marg, whole, c, st, where, err in table:
        if err:
            print(f"{name:11s} {v:11s} {g:>6s} {pl:22s} error {err}"[:200])
            continue
        print(f"{name:11s} {v:11s} {g:>6s} {pl:22s} {marg:7.3f} {whole:7.3f} "
              f"{(f'{c:.3f}' if c else '-'):>7s} {(f'{marg / c:.2f}x' if c else '-'):>6s} "
              f"{st['sm']:>17s} {st['pstate']:>6s} {st['throttle']:>8s}  {where}")


if __name__ == "__main__":
    main()
