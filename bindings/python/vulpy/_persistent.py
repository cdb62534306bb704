"""Persistent programs: one dispatch that owns its time loop (docs/persistent.md,
with the example: @vp.kernel(persistent=True), vp.grid_range, vp.grid_sync,
and the PersistentHandle's steps / stop() / wait(timeout=)).

The compiler (lower-persistent) adds two hidden buffers: device words for
discovery and the grid barrier (_vp_grid) and host-coherent words the host
reads and writes while the kernel runs (_vp_host). This module allocates
them, picks the number of groups and the mode, and checks the status words
after the run: a barrier timeout or lavapipe's loop budget is an error,
never a silent wrong result.
"""
import os
import re
import threading
import time

import numpy as np

from . import _array, _context, _errors, _native
from ._control import ControlBuffer

# @_vp_host words (lib/Transforms/lower_persistent.c)
(H_STOP, H_STEPS, H_ADMITTED, H_STATUS, H_CANARY, H_SPIN, H_BARRIERS, H_FLAGS,
 H_JOIN_SPIN, H_MIN_GROUPS, H_RESUME, H_BEGIN, H_YIELD, H_NOSLICE, H_TREE) = range(15)
HOST_WORDS = 16
F_RMW_POLL = 1  # poll with atomic or-0: lavapipe moves atomic loads out of spin loops
F_SLICED = 2    # bounded slices: a kernel that cannot resume leaves at once (ST_NOSLICE)
GRID_WORDS = 1280  # 8 words, 64 snapshot slots, the padded generation at 96, a second
                   # snapshot bank at 136 (the flip barriers), the tree barriers'
                   # cluster words at 256 + 32 k (persistent.h)
G_STEPS = 4
# the grid-barrier variants, chosen at compile time: @vp.kernel(persistent=True,
# barrier=NAME). docs/persistent.md, "Barrier variants", says what each changes
# (EXPERIMENTS: one change on cg-offpath; the eight others of that wave
# were retired on 2026-12-05, no gain on the H200, and so were padded,
# packed, scoped, cg-early, cg-acq and cg-quiet, slower than flip and cg or
# no faster than cg-offpath) and why the default is flip (its H200 figures)
BARRIERS = ("lean", "flip", "cg")
BARRIERS += ("cg-offpath", "flip-offpath")
BARRIERS += ("cg-tree", "flip-tree")
EXPERIMENTS = ("cgx-acqpoll",)
BARRIERS += EXPERIMENTS
DEFAULT_BARRIER = "flip"


def barrier_passes(name, nonprivate=False):
    """The compile passes of a persistent kernel with grid barrier `name`
    (None: the default); nonprivate=True: the buffers it writes are
    non-private instead of coherent (docs/persistent.md, "Memory model")."""
    if name is None:
        name = DEFAULT_BARRIER
    if name not in BARRIERS:
        raise ValueError(f"vp.kernel: barrier= must be one of {', '.join(map(repr, BARRIERS))}, "
                         f"not {name!r}")
    if not isinstance(nonprivate, bool):
        raise ValueError(f"vp.kernel: nonprivate= must be True or False, not {nonprivate!r}")
    return ("lower-memsock," + ("persistent-nonprivate," if nonprivate else "") +
            "lower-persistent" + ("" if name == "lean" else "-" + name))
ST_TIMEOUT, ST_BUDGET, ST_FEW, ST_DONE, ST_YIELD, ST_NOSLICE = 2, 4, 8, 16, 32, 64
# H_NOSLICE: why a kernel cannot run in slices (lib/Transforms/persistent_resume.c)
_NOSLICE = {
    1: "it has no time loop, or more than one (a slice ends at a step boundary)",
    2: "a value computed before its time loop from buffers, atomics or control words is "
       "used in or after the loop (the relaunch skips that code: keep the value in a buffer)",
    3: "a variable carries a value from one step to the next, or from before the time loop "
       "into it (a relaunch starts with fresh variables: keep the value in a buffer)",
}
SNAP = 0xFFFF  # the stepped form's step-boundary phase
# vendors without the occupancy-bound guarantee a grid barrier needs
# (Sorensen et al., OOPSLA 2021): Apple, ARM; Qualcomm untested
_NO_FORWARD_PROGRESS = {0x106B: "Apple", 0x13B5: "ARM", 0x5143: "Qualcomm"}
CANARY = 3
HIDDEN = ("_vp_grid", "_vp_host")


class PersistentError(_errors.VulkanError):
    """A persistent run failed in a way the GPU reported: its grid barrier
    timed out (groups that were not co-resident, or a deadlock), or a loop of
    the run was cut short (lavapipe's per-invocation loop budget)."""


def is_persistent(prog):
    names = [b["name"] for b in prog.buffers]
    return names[-2:] == list(HIDDEN)


def _lavapipe(ctx):
    return ctx.info.get("driver_name") == "llvmpipe"


def _threads(ctx):
    """Lavapipe's worker threads (LP_NUM_THREADS, else the CPU count, at most 32)."""
    try:
        n = int(os.environ.get("LP_NUM_THREADS", "0"))
    except ValueError:
        n = 0
    return max(1, min(n or os.cpu_count() or 1, 32))


# How many groups a persistent launch dispatches by default (discovery then
# admits the resident ones): docs/persistent.md, "Running it (Python)", has the rules
# and why "work" (the H200's figures)
GROUP_RULES = ("work", "resident", "cores")
DEFAULT_GROUP_RULE = "work"
WORK_PER_INVOCATION = 4


def default_groups(ctx, local, work=0):
    """How many groups to dispatch: discovery trims it to what is resident.
    VULPY_PERSISTENT_GROUPS overrides the estimate (a count, or a rule of
    GROUP_RULES)."""
    return sizing(ctx, local, work)[0]


def _cores(ctx, local):
    """(cores, groups of `local` invocations a core holds), or (0, 0)
    where the driver does not say (VK_NV_shader_sm_builtins, the AMD or
    Arm core properties: runtime/persistent.c)."""
    try:
        cores, warps = ctx._native.cores()
    except AttributeError:
        cores, warps = 0, 0
    if not (cores and warps):
        return 0, 0
    lanes = warps * max(ctx.info["limits"].get("subgroup_size") or 32, 1)
    return cores, max(1, lanes // max(local, 1))


def work_of(buffers):
    """The points a persistent kernel's data holds, for the "work" rule:
    the most elements of any array or NumPy argument (control buffers and
    MemSocks are not data). 0 where there are none."""
    most = 0
    for a in buffers:
        if type(a).__name__ in ("ControlBuffer", "MemSock"):
            continue
        size = getattr(a, "size", None)
        if isinstance(size, (int, np.integer)):
            most = max(most, int(size))
    return most


def sizing(ctx, local, work=0, rule=None):
    """(groups to dispatch, how that number was found): what handle.why
    reports beside the groups discovery admitted. `work`: the points the
    kernel's data holds (work_of), for the "work" rule; `rule`: one of
    GROUP_RULES (None: VULPY_PERSISTENT_GROUPS, else DEFAULT_GROUP_RULE)."""
    if rule is None:
        env = os.environ.get("VULPY_PERSISTENT_GROUPS")
        if env and env.strip() in GROUP_RULES:
            rule = env.strip()
        elif env:
            try:
                return max(1, int(env)), "VULPY_PERSISTENT_GROUPS"
            except ValueError:
                raise ValueError(f"VULPY_PERSISTENT_GROUPS must be a group count or one of "
                                 f"{', '.join(GROUP_RULES)}, not {env!r}") from None
        else:
            rule = DEFAULT_GROUP_RULE
    if rule not in GROUP_RULES:
        raise ValueError(f"groups= must be a positive int or one of "
                         f"{', '.join(map(repr, GROUP_RULES))}, not {rule!r}")
    if _lavapipe(ctx):
        # one group: lavapipe's groups wait for each other by spinning, and
        # every poll draws on the 65,535 back-edges an invocation has; a
        # thread the OS parks makes the others spin for milliseconds
        return 1, "lavapipe: one group"
    cores, per = _cores(ctx, local)
    return groups_by_rule(rule, cores, per, local, work)


def groups_by_rule(rule, cores, per, local, work):
    """(groups, why) for rule `rule` on `cores` cores holding `per` groups
    of `local` invocations each (0, 0: the driver did not say), for a
    kernel whose data holds `work` points."""
    if cores:
        told = f"{cores} cores"
    else:
        # 8 groups of <= 256 invocations a core on the largest GPU VulPy
        # knows (132 SMs); discovery trims what does not fit
        cores, per = 132, max(1, 2048 // max(local, 1))
        told = "no core count from the driver: 132 cores"
    resident = min(cores * per, 4096) if told.startswith("no") else cores * per
    if rule == "cores":
        return cores, f"rule 'cores': one group a core ({told})"
    if rule == "resident" or not work:
        why = "" if rule == "resident" else "no data arguments to size by, "
        return max(1, resident), (f"rule 'resident': {why}{told} x {per} groups of {local} "
                                  f"(the warps each core keeps resident)")
    want = -(-work // (local * WORK_PER_INVOCATION))
    groups = max(cores, min(resident, want))
    return groups, (f"rule 'work': {work} points / ({local} x {WORK_PER_INVOCATION} a group) "
                    f"= {want}, kept within one group a core and what the cores hold "
                    f"({told} x {per} = {resident})")


def spin_limit(ctx):
    """Polls of a waiting group before it reports a barrier timeout. On
    lavapipe every poll draws on the 65,535 back-edges an invocation has."""
    env = os.environ.get("VULPY_PERSISTENT_SPIN")
    if env:
        return max(1, int(env))
    return 20000 if _lavapipe(ctx) else 1 << 26


def tree_threshold():
    """The tree barriers' threshold (host word 14): their arrival takes two
    levels above this many groups; 0 leaves the kernel's default (256).
    VULPY_PERSISTENT_TREE=N sets it (the tests: 1)."""
    env = os.environ.get("VULPY_PERSISTENT_TREE", "").strip()
    if not env:
        return 0
    try:
        n = int(env)
    except ValueError:
        n = -1
    if not 0 <= n < 1 << 32:
        raise ValueError(f"VULPY_PERSISTENT_TREE must be a group count (0 or more), not {env!r}")
    return n


# an acquire atomic load polled in a spin loop (barrier="cgx-acqpoll"):
# lavapipe (Mesa 22.3) miscompiles an acquire atomic in a loop under a
# branch only some invocations take, even one the run never takes (its
# polls are the read-modify-write ones): runs end early with wrong
# results and no error (docs/persistent.md, "Guarantees per device class")
# (an acquire load whose value is used: the one after a wait is a bare
# statement; test_persistent_barriers.py checks which barriers match)
_ACQUIRE_POLL = re.compile(r"uint t\d+ = atomicLoad\(_vp_grid\[\d+u\], gl_ScopeDevice, "
                           r"gl_StorageSemanticsBuffer, gl_SemanticsAcquire\);")


def acquire_polls(prog):
    """Whether the persistent program's spin loops poll with acquire loads."""
    return bool(_ACQUIRE_POLL.search(prog.artifacts.get("glsl") or ""))


def choose_mode(ctx, mode):
    """('persistent' | 'stepped', why). 'auto' runs stepped where a grid
    barrier is unsafe: GPUs without the occupancy-bound guarantee (Apple,
    ARM, Qualcomm) or VULPY_PERSISTENT_MODE=stepped."""
    if mode not in ("auto", "persistent", "stepped"):
        raise ValueError(f"mode= must be 'auto', 'persistent' or 'stepped', not {mode!r}")
    if mode != "auto":
        return mode, "asked for"
    env = os.environ.get("VULPY_PERSISTENT_MODE")
    if env in ("persistent", "stepped"):
        return env, "VULPY_PERSISTENT_MODE"
    vendor = _NO_FORWARD_PROGRESS.get(ctx.info.get("vendor_id"))
    if vendor:
        return "stepped", f"{vendor} GPUs do not keep co-resident groups running"
    return "persistent", "the device keeps resident groups running"


class PersistentHandle:
    """A running persistent program (what a persistent kernel's call with
    sync=False returns). steps, admitted and status read the words the GPU
    publishes; stop() asks it to end after the current step; wait() blocks
    (raising vp.TimeoutError after `timeout` seconds) and checks the run."""

    def __init__(self, inner, host, grid, mode, groups, label, why=""):
        """Made by a persistent kernel's call, not by users: `inner` is the
        launch's Handle, `host` the control words the host and the GPU
        share, `grid` the grid-barrier words, `mode` and `groups` how it
        runs (vp.kernel's persistent= and the workgroups it got), `label`
        the kernel's name for messages, `why` the reason when it ran in
        another mode than asked."""
        self._inner, self._host, self._grid = inner, host, grid
        self.mode, self.groups, self._label = mode, groups, label
        self.why = why  # why this mode ran
        self._done = False

    @property
    def steps(self):
        """Steps of the time loop done so far (published at each step boundary)."""
        return self._host[H_STEPS]

    @property
    def admitted(self):
        """Groups that discovery admitted (0 until it ran); stepped: the
        groups of each dispatch."""
        return self._host[H_ADMITTED] if self.mode == "persistent" else self.groups

    @property
    def barriers(self):
        """Grid barriers passed so far."""
        return self._host[H_BARRIERS]

    @property
    def done(self):
        return self._done or self._inner.done

    @property
    def dispatches(self):
        """Dispatches of the persistent form so far: 1, or with
        max_seconds_per_dispatch= the slices run (each ends at a step
        boundary once its time is spent, and the next resumes there)."""
        return getattr(self._inner, "dispatches", 1)

    def stop(self):
        """Asks the program to stop at the next step boundary (the time loop
        ends there; the rest of the kernel runs). Returns at once."""
        self._host[H_STOP] = 1

    def abort(self):
        """Asks every group to leave at once, at its next grid barrier or
        spin; results are partial. wait() then raises PersistentError."""
        self._host[H_STOP] = 2

    def wait(self, timeout=None, progress=False):
        """Blocks until the program ends; raises vp.TimeoutError after
        `timeout` seconds (the program keeps running: stop(), abort() or
        wait again), PersistentError when the GPU reported a failure.
        progress=True (or the expected step count) shows the steps done:
        a tqdm bar when tqdm is installed, a line on stderr otherwise."""
        if self._done:
            return None
        bar = _Progress(progress, self._label) if progress else None
        if timeout is not None or bar:
            deadline = time.monotonic() + float(timeout) if timeout is not None else None
            pause = 1e-4
            while not self._inner.done:
                left = deadline - time.monotonic() if deadline is not None else 0.05
                if left <= 0:
                    if bar:
                        bar.close(self.steps)
                    raise _errors.TimeoutError(f"{self._label}: still running after {timeout} s "
                                               f"({self.steps} steps done); call stop() or "
                                               f"abort(), or wait again")
                if bar:
                    bar.update(self.steps)
                time.sleep(min(pause, left))
                pause = min(pause * 2, 0.05 if bar else 0.01)
        if bar:
            bar.close(self.steps)
        self._inner.wait()
        self._done = True
        status = self._host[H_STATUS]
        budget = ("a loop of the run was cut short by the device's loop budget (lavapipe "
                  "stops loops silently after 65,535 back-edges an invocation, spins "
                  "included); results are wrong. Run fewer steps a launch, or "
                  "mode='stepped'") if status & ST_BUDGET else ""
        if status & ST_TIMEOUT or self._host[H_STOP] >= 2:
            # a spin the budget cut short may pass a barrier early: then
            # the results are wrong, not only partial, and the error says so
            raise PersistentError(
                f"{self._label}: a grid barrier timed out or the run was aborted after "
                f"{self.steps} steps ({self.admitted} groups admitted): groups that are not "
                f"co-resident, or a grid sync that not every invocation reaches; "
                + (f"and {budget}" if budget else "results are partial"))
        if budget:
            raise PersistentError(f"{self._label}: {budget}")
        return None

    def __repr__(self):
        state = "done" if self.done else "running"
        return (f"<vp.PersistentHandle {self._label} {state}, {self.mode}, "
                f"{self.steps} steps, {self.admitted}/{self.groups} groups>")


def call(prog, buffers, push, dispatch, groups, sync, context, stepped=None, kernel_launch=None):
    """A persistent kernel's call: k(bufs..., sync=False, groups=G,
    mode='auto'|'persistent'|'stepped', timeout=None, **push). kernel_launch
    is _kernel.launch, handed in by the caller (this module sits below
    _kernel in the package's layers)."""
    label = prog.label
    if dispatch is not None:
        raise TypeError(f"{label} is persistent: it loops over its domain itself "
                        f"(vp.grid_range); give groups= (workgroups to start) or nothing, "
                        f"not dispatch=")
    push = dict(push)
    mode = push.pop("mode", "auto")
    timeout = push.pop("timeout", None)
    min_groups = push.pop("min_groups", None)
    slice_s = push.pop("max_seconds_per_dispatch", None)
    if push.pop("persistent", True) is False:
        mode = "stepped"
    return launch(prog, buffers, push, groups, sync, context, label, mode, timeout, stepped,
                  kernel_launch, min_groups=min_groups, max_seconds_per_dispatch=slice_s)


def stepped_program(owner):
    """The stepped form of a persistent @vp.kernel or Shader (compiled once,
    then cached like any kernel)."""
    from . import _compiler
    from ._launch import Program
    prog = owner.__dict__.get("_stepped_prog")
    if prog is None:
        if hasattr(owner, "fn"):
            arts = _compiler.compile_function(owner.fn, owner.options, owner._document,
                                              fast_math=owner.fast_math,
                                              passes="lower-persistent-stepped")
        else:
            arts = _compiler.compile_file(owner.path, owner._kernel, owner._opts, owner._document,
                                          fast_math=owner.fast_math,
                                          passes="lower-persistent-stepped")
        prog = owner._stepped_prog = Program(arts, owner._prog.label + " (stepped)",
                                             precise=not owner.fast_math)
    return prog


class _Progress:
    """Steps done, shown while wait() waits: tqdm when installed, else one
    line on stderr rewritten in place."""

    def __init__(self, total, label):
        import sys
        self._total = None if total is True else int(total)
        self._out, self._last = sys.stderr, -1
        try:
            from tqdm import tqdm
            self._bar = tqdm(total=self._total, desc=label, unit="step")
        except ImportError:
            self._bar = None
        self._label = label

    def update(self, steps):
        if steps == self._last:
            return
        if self._bar is not None:
            self._bar.update(steps - max(self._last, 0))
        else:
            of = f"/{self._total}" if self._total else ""
            self._out.write(f"\r{self._label}: {steps}{of} steps")
            self._out.flush()
        self._last = steps

    def close(self, steps):
        self.update(steps)
        if self._bar is not None:
            self._bar.close()
        else:
            self._out.write("\n")


class _ThreadRun:
    """What the stepped and sliced runs share: NumPy arguments staged on
    the device for the whole run (copied back at its end when writable),
    and a host thread running _main whose exception wait() re-raises."""
    _thread = None

    def _stage(self, buffers, ctx):
        """`buffers` with each NumPy array replaced by a resident copy."""
        self._error, self._back, staged = None, [], []
        for a in buffers:
            if isinstance(a, np.ndarray):
                tmp = _array.asarray(np.ascontiguousarray(a), context=ctx)
                if a.flags.writeable:
                    self._back.append((a, tmp))
                a = tmp
            staged.append(a)
        return staged

    def start(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        try:
            self._main()
            for a, tmp in self._back:
                np.copyto(a, tmp.numpy())
        except BaseException as e:  # re-raised by wait()
            self._error = e

    @property
    def done(self):
        return self._thread is not None and not self._thread.is_alive()

    def wait(self, timeout=None):
        self._thread.join()
        if self._error is not None:
            raise self._error


class _SteppedRun(_ThreadRun):
    """The stepped form running on a host thread: per batch of steps one
    recorded command buffer (the step-boundary dispatch, then each phase),
    submitted and waited for (GIL released), until the boundary dispatch
    reports the end (ST_DONE) or a stop."""

    BATCH = 32

    def __init__(self, prog, buffers, push, groups, ctx, host, grid):
        names = [f["name"] for f in prog.manifest["push"]]
        phase = next(n for n in names if n.startswith("_vp_phase_"))
        self.pre, self.loop, self.post = (int(x) for x in phase.split("_")[3:6])
        self._phase = phase
        self._kern = prog.native(ctx)
        self._packer = prog.packer
        self._push = dict(push)
        self._groups = groups
        self._ctx, self._host = ctx, host
        self._bufs = [a._buf if isinstance(a, _array.ndarray) else
                      a.buffer if hasattr(a, "_control") else a
                      for a in self._stage(list(buffers) + [grid, host], ctx)]
        self._packer.pack(self._values(0, 0))  # argument errors here, not on the thread
        self.start()

    def _values(self, phase, k):
        return dict(self._push, **{self._phase: phase, "_vp_k": k})

    def _record(self, rec, phase, k, groups):
        rec.dispatch(self._kern, self._bufs, self._packer.pack(self._values(phase, k)), groups,
                     1, 1, True)

    def _submit(self, items):
        rec = _native.ext().Recording(self._ctx._native, False)
        for phase, k in items:
            self._record(rec, phase, k, 1 if phase == SNAP else self._groups)
        rec.run()

    def _main(self):
        self._submit([(SNAP, 0)] + [(p, 0) for p in range(self.pre)])
        k = 0
        while self.loop and not self._host[H_STATUS] & ST_DONE:
            items = []
            for j in range(k, k + self.BATCH):
                if j:
                    items.append((SNAP, j))
                items += [(self.pre + p, j) for p in range(self.loop)]
            self._submit(items)
            k += self.BATCH
        post = self.pre + self.loop
        self._submit([(post + p, 0) for p in range(self.post)])


class _SlicedRun(_ThreadRun):
    """The persistent form as a sequence of bounded dispatches
    (max_seconds_per_dispatch=; docs/persistent.md, "Bounded slices"). A host
    thread raises the yield word (H_YIELD) once a dispatch's time is spent;
    the kernel ends at the next step boundary (after at least one step of
    its own), says so (ST_YIELD) and leaves the steps done in H_STEPS; the
    thread relaunches it with H_RESUME / H_BEGIN set, so the code before the
    time loop is skipped and the loop starts at that step, until the program
    ends, stops or fails. Buffers, control words and MemSocks stay bound."""

    def __init__(self, prog, buffers, push, groups, ctx, label, host, kernel_launch, seconds):
        self._prog, self._push, self._groups = prog, dict(push), groups
        self._ctx, self._label, self._host = ctx, label, host
        self._klaunch, self._seconds = kernel_launch, float(seconds)
        # NumPy arguments live on the device for the whole run (each slice
        # would otherwise copy them there and back)
        self._bufs = self._stage(buffers, ctx)
        self.dispatches = 0
        host[H_FLAGS] = host[H_FLAGS] | F_SLICED
        self.current = self._launch(0)  # argument errors here, not on the thread

    def _launch(self, begin):
        host = self._host
        grid = np.zeros(GRID_WORDS, np.uint32)
        grid[G_STEPS] = begin  # the step counter the time loop goes on from
        self._grid = _array.asarray(grid, context=self._ctx)
        host[H_RESUME] = 1 if self.dispatches else 0
        host[H_BEGIN] = begin
        host[H_YIELD] = 0
        if self.dispatches:
            host[H_MIN_GROUPS] = 0  # later slices: any group count gives the same bits
            host[H_ADMITTED] = 0
        inner = self._klaunch(self._prog, self._bufs + [self._grid, host], self._push, None,
                              (self._groups, 1, 1), False, self._ctx, self._label)
        self.dispatches += 1
        self._start = time.monotonic()
        return inner

    def _main(self):
        host = self._host
        while True:
            inner, raised, pause = self.current, False, 1e-4
            deadline = self._start + self._seconds
            while not inner.done:
                now = time.monotonic()
                if not raised and now >= deadline:
                    host[H_YIELD] = 1
                    raised = True
                time.sleep(pause if raised else min(pause, max(deadline - now, 1e-5)))
                pause = min(pause * 2, 2e-3)
            inner.wait()
            status = host[H_STATUS]
            if status & ST_NOSLICE:
                why = _NOSLICE.get(host[H_NOSLICE], f"reason {host[H_NOSLICE]}")
                raise PersistentError(f"{self._label} cannot run in bounded slices "
                                      f"(max_seconds_per_dispatch=): {why}")
            if (not status & ST_YIELD or status & (ST_TIMEOUT | ST_BUDGET)
                    or host[H_STOP] >= 2):
                break
            host[H_STATUS] = status & ~ST_YIELD
            self.current = self._launch(host[H_STEPS])


def _slice_seconds(label, v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not v > 0 or v != v or v == float("inf"):
        raise ValueError(f"{label}: max_seconds_per_dispatch= must be a positive number of "
                         f"seconds, got {v!r}")
    return float(v)


def _hidden(ctx, min_groups):
    """The hidden buffers of one run: the host words, set up, and the grid words."""
    host = ControlBuffer([], words=HOST_WORDS, context=ctx)
    host[H_SPIN] = spin_limit(ctx)
    # joiners close the poll once the join count stopped growing for this
    # many polls (all resident groups start within microseconds on a GPU;
    # lavapipe's later chunks never start while the first ones spin)
    host[H_JOIN_SPIN] = 2000 if _lavapipe(ctx) else 512
    host[H_FLAGS] = F_RMW_POLL if _lavapipe(ctx) else 0
    host[H_CANARY] = CANARY
    host[H_MIN_GROUPS] = min_groups or 0
    host[H_TREE] = tree_threshold()
    return host, _array.zeros(GRID_WORDS, np.uint32, context=ctx)


def _too_few(inner, host, min_groups, limit=30.0):
    """Whether the persistent dispatch's discovery admitted fewer than
    min_groups groups (the kernel then ends at once, ST_FEW); waits only for
    discovery to publish the count."""
    deadline = time.monotonic() + limit
    while not host[H_ADMITTED] and not inner.done and time.monotonic() < deadline:
        time.sleep(1e-4)
    n = host[H_ADMITTED]
    return 0 < n < min_groups


def launch(prog, buffers, push, groups, sync, context, label, mode="auto", timeout=None,
           stepped=None, kernel_launch=None, min_groups=None, max_seconds_per_dispatch=None):
    """Runs a persistent program: buffers are the kernel's own (the hidden
    ones are added here); groups= the groups to dispatch (an estimate by
    default). min_groups=M: when discovery admits fewer than M groups, the
    persistent dispatch leaves before the kernel's own code runs and the
    stepped form runs instead (handle.mode / handle.why say so). Returns a
    PersistentHandle (sync=False) or None after a checked run (sync=True)."""
    want = len(prog.buffers) - len(HIDDEN)
    # a vp.MemSock argument binds two of the kernel's buffers (frames, ring)
    pipes = sum(1 for a in buffers if type(a).__name__ == "MemSock")
    if len(buffers) + pipes != want:
        names = ", ".join(b["name"] for b in prog.buffers[:want])
        raise TypeError(f"{label} takes {want} buffer(s) ({names}), got {len(buffers)}")
    ctx = context
    for a in buffers:
        c = getattr(a, "_ctx", None)
        if c is not None and ctx is None:
            ctx = c
    ctx = _context.resolve(ctx)
    local = int(np.prod(prog.manifest.get("local_size") or (64, 1, 1)))
    sized = "asked for"
    if groups is None or isinstance(groups, str):
        groups, sized = sizing(ctx, local, work_of(buffers), groups)
    elif isinstance(groups, (tuple, list)):
        groups = int(np.prod(groups))
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"{label}: groups= must be a positive int, got {groups!r}")
    groups = int(groups)
    mode, why = choose_mode(ctx, mode)
    if mode == "persistent" and _lavapipe(ctx) and acquire_polls(prog):
        if why == "asked for":
            raise PersistentError(f"{label}: its grid barrier polls with acquire loads, which "
                                  f"lavapipe miscompiles (wrong results without an error); use "
                                  f"another barrier= there, or mode='stepped'")
        mode, why = "stepped", "lavapipe miscompiles this barrier's acquire polls"
    if min_groups is not None:
        if (isinstance(min_groups, bool) or not isinstance(min_groups, (int, np.integer))
                or min_groups < 1):
            raise ValueError(f"{label}: min_groups= must be a positive int, got {min_groups!r}")
        min_groups = int(min_groups)
    slice_s = _slice_seconds(label, max_seconds_per_dispatch)
    host, grid = _hidden(ctx, min_groups)
    if mode == "persistent":
        if slice_s is not None:
            inner = _SlicedRun(prog, buffers, push, groups, ctx, label, host, kernel_launch,
                               slice_s)
            first = inner.current
        else:
            inner = first = kernel_launch(prog, list(buffers) + [grid, host], push, None,
                                          (groups, 1, 1), False, ctx, label)
        if min_groups and _too_few(first, host, min_groups):
            first.wait()
            why = (f"discovery admitted {host[H_ADMITTED]} of {groups} groups, fewer than "
                   f"min_groups={min_groups}")
            mode = "stepped"
            host, grid = _hidden(ctx, None)
        elif slice_s is not None:
            inner.start()
    if mode == "stepped":
        if pipes:
            raise TypeError(f"{label}: the stepped form cannot bind a vp.MemSock yet; run it "
                            f"persistent (mode='persistent') to stream frames")
        if stepped is None:
            raise TypeError(f"{label}: no stepped form to run (compile it from Python source)")
        inner = _SteppedRun(stepped(), buffers, push, groups, ctx, host, grid)
    if mode == "persistent":
        why = f"{why}; {groups} groups dispatched ({sized}), discovery admits the resident ones"
    h = PersistentHandle(inner, host, grid, mode, groups, label, why)
    if sync:
        h.wait(timeout)
        return None
    return h
