"""Debug mode (issue 20): @vp.kernel(debug=True), vp.compile(..., debug=True)
and VULPY_DEBUG=1.

The kernel is compiled with its `assert` statements and the bounds-check
pass (lib/Transforms/bounds_check.c), which checks every buffer and
shared-array index and records the first failure in a hidden last buffer,
`_vp_assert` (16 uint32 words: line, column, kind, invocation x y z, index,
length, which symbol, index signed). This module binds that record to each
call, reads it after the dispatch and raises vp.KernelError.
On lavapipe a kernel whose loops may pass its loop budget has the record
too (the loop-canary pass, lib/Transforms/loop_canary.c): word 15 is the
trip count of its canary loop, which the host writes (LOOP_CANARY_TRIPS).
"""
import linecache
import os
import re

import numpy as np

from ._errors import KernelError
from ._launch import Handle

RECORD = "_vp_assert"
WORDS = 16
PRINT = "_vp_print"  # the ring of vp.print (lib/Frontend/print.c)
PRINT_WORDS = 1 << 16  # 256 KiB a call: bounded; a full ring drops records
HIDDEN = (RECORD, PRINT)
KINDS = {1: "assert", 2: "buffer read", 3: "buffer write", 4: "shared read",
         5: "shared write", 6: "buffer atomic", 7: "shared atomic", 8: "loop budget"}
TRIPS_WORD = 15  # the loop canary's trip count (loop_canary.c)
LOOP_CANARY_TRIPS = 2  # a cut loop then runs once: 1 trip, not 2


def env_default():
    """VULPY_DEBUG=1 turns debug mode on for every kernel that does not say."""
    return os.environ.get("VULPY_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


def check_flag(label, debug):
    if debug is None:
        return env_default()
    if not isinstance(debug, bool):
        raise TypeError(f"{label}: debug= must be True or False, got {debug!r}")
    return debug


def _shared_names(prog):
    vir = prog.artifacts.get("vir") or ""
    return re.findall(r"^shared @([A-Za-z_][A-Za-z0-9_]*)", vir, re.M)


def user_buffers(prog):
    """The buffers the caller passes (all but the record and the ring)."""
    return [b for b in prog.buffers if b["name"] not in HIDDEN]


def has_hidden(prog):
    h = prog.__dict__.get("_hidden")
    if h is None:
        h = prog._hidden = any(b["name"] in HIDDEN for b in prog.buffers)
    return h


def _source_call(file, line, col):
    """The ast.Call of vp.print at line:col of `file`, or None."""
    import ast
    text = "".join(linecache.getlines(file)) if file else ""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno == line and node.col_offset == col - 1:
            return node
    return None


def _fmt(tag, words):
    if tag == 1:
        return str(int(np.uint32(words[0]).view(np.int32)))
    if tag == 2:
        return str(int(words[0]))
    if tag == 3:
        return str(np.uint32(words[0]).view(np.float32))
    if tag == 4:
        return str(bool(words[0]))
    if tag == 5:
        return repr(float(np.array(words[:2], np.uint32).view(np.float64)[0]))
    return "?"


def print_ring(ring, file, out=None):
    """Prints the records of a vp.print ring like Python's print, in the
    order the invocations claimed them; says how much a full ring dropped."""
    import sys
    out = out or sys.stdout
    used = int(ring[0])
    cap = len(ring) - 1
    pos, calls = 1, {}
    while pos + 4 <= min(used, cap) + 1:
        line, col, _gid, nargs = (int(w) for w in ring[pos:pos + 4])
        if line == 0:
            break
        key = (line, col)
        if key not in calls:
            calls[key] = _source_call(file, line, col)
        call = calls[key]
        p = pos + 4
        parts = []
        for _ in range(nargs):
            tag = int(ring[p])
            n = 2 if tag == 5 else 1
            words = ring[p + 1:p + 1 + n]
            if tag == 0:
                i = int(words[0])
                arg = call.args[i] if call is not None and i < len(call.args) else None
                parts.append(str(arg.value) if arg is not None and hasattr(arg, "value") else "?")
            else:
                parts.append(_fmt(tag, words))
            p += 1 + n
        print(" ".join(parts), file=out)
        pos = p
    if used > cap:
        print(f"(vp.print: the ring of {cap} words was full; {used - cap} words of output "
              f"were dropped)", file=out)


def _raise(rec, prog, file, label):
    line, col, code = int(rec[0]), int(rec[1]), int(rec[2])
    kind = KINDS.get(code, "fault")
    inv = (int(rec[3]), int(rec[4]), int(rec[5]))
    which = int(rec[8])
    index = int(rec[6])
    if rec[9]:
        index = int(np.uint32(index).view(np.int32))
    length = int(rec[7])
    name = None
    if kind.startswith("buffer"):
        name = next((b["name"] for b in prog.buffers if b["binding"] == which - 1), None)
    elif kind.startswith("shared"):
        names = _shared_names(prog)
        name = names[which - 1] if 0 < which <= len(names) else None
    where = f"{file}:{line}:{col}"
    if kind == "assert":
        what = f"assertion failed in invocation {inv}"
        index = length = None
    elif kind == "loop budget":
        what = ("the device ended this kernel's loops early: lavapipe ends an invocation's "
                "loops after 65,535 back-edges in all (ctx.limits['max_loop_iterations']), so "
                "the results are wrong; keep per-invocation loops shorter (more invocations, "
                "a grid-stride loop)")
        index = length = None
    else:
        access = kind.split()[1]
        place = "buffer" if kind.startswith("buffer") else "shared array"
        what = (f"{place} {name!r} {access}: index {index} is out of bounds (length {length}) "
                f"in invocation {inv}")
    text = linecache.getline(file, line).rstrip("\n") if file else ""
    msg = f"{where}: error: {what}" + ("" if kind == "loop budget" else f" ({label}, debug mode)")
    if text:
        msg += f"\n{text}\n{' ' * max(col - 1, 0)}^"
    err = KernelError(msg)
    err.file, err.line, err.col, err.kind, err.name = file, line, col, kind, name
    err.invocation, err.index, err.length = inv, index, length
    raise err


def launch(launch_fn, prog, args, push, dispatch, groups, sync, ctx, label, file, whole=()):
    """launch_fn (the normal _kernel.launch) with the record bound after the
    caller's buffers; raises KernelError when the record says so (at
    Handle.wait() for sync=False). `whole`: the positions of N-d buffers
    (bound whole, their view in the push block), as launch takes them."""
    bdefs = prog.buffers
    users = user_buffers(prog)
    if len(users) == len(bdefs):  # nothing to check in this kernel
        return launch_fn(prog, args, push, dispatch, groups, sync, ctx, label, whole=whole)
    # a vp.MemSock argument binds two of the kernel's buffers (frames, ring)
    pipes = sum(1 for a in args if type(a).__name__ == "MemSock")
    if len(args) + pipes != len(users):
        names = ", ".join(b["name"] for b in users)
        raise TypeError(f"{label} takes {len(users)} buffer(s) ({names}), got {len(args)}")
    rec = np.zeros(WORDS, np.uint32)
    rec[TRIPS_WORD] = LOOP_CANARY_TRIPS
    ring = np.zeros(PRINT_WORDS, np.uint32)
    it = iter(args)
    full, skip = [], False
    for b in bdefs:
        if skip:  # the pipe's ring: the MemSock binds it itself
            skip = False
        elif b["name"] in (RECORD, PRINT):
            full.append(rec if b["name"] == RECORD else ring)
        else:
            full.append(next(it))
            skip = type(full[-1]).__name__ == "MemSock"
    has_ring = any(b["name"] == PRINT for b in bdefs)
    # (the hidden buffers come after the caller's: `whole`'s positions hold)
    r = launch_fn(prog, full, push, dispatch, groups, sync, ctx, label, whole=whole)

    def report():
        if has_ring:
            print_ring(ring, file)
        if rec[0]:
            _raise(rec, prog, file, label)

    if sync:
        report()
        return r

    def finish():
        res = r.wait()
        report()
        return res

    # the launch's ticket: wait(timeout) and .done see the GPU's progress
    # (with none, wait(timeout=0.05) blocked to the end and .done was True
    # at once)
    return Handle(getattr(r, "_ticket", None), finish)
