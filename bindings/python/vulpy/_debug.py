"""Debug mode (issue 20): @vp.kernel(debug=True), vp.compile(..., debug=True)
and VULPY_DEBUG=1.

The kernel is compiled with its `assert` statements and the bounds-check
pass (lib/Transforms/bounds_check.c), which checks every buffer and
shared-array index and records the first failure in a hidden last buffer,
`_vp_assert` (16 uint32 words: line, column, kind, invocation x y z, index,
length, which symbol, index signed). This module binds that record to each
call, reads it after the dispatch and raises vp.KernelError.
"""
import linecache
import os
import re

import numpy as np

from ._errors import KernelError
from ._launch import Handle

RECORD = "_vp_assert"
WORDS = 16
KINDS = {1: "assert", 2: "buffer read", 3: "buffer write", 4: "shared read",
         5: "shared write", 6: "buffer atomic", 7: "shared atomic"}


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
    """The buffers the caller passes (all but the record)."""
    return [b for b in prog.buffers if b["name"] != RECORD]


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
    else:
        access = kind.split()[1]
        place = "buffer" if kind.startswith("buffer") else "shared array"
        what = (f"{place} {name!r} {access}: index {index} is out of bounds (length {length}) "
                f"in invocation {inv}")
    text = linecache.getline(file, line).rstrip("\n") if file else ""
    msg = f"{where}: error: {what} ({label}, debug mode)"
    if text:
        msg += f"\n{text}\n{' ' * max(col - 1, 0)}^"
    err = KernelError(msg)
    err.file, err.line, err.col, err.kind, err.name = file, line, col, kind, name
    err.invocation, err.index, err.length = inv, index, length
    raise err


def launch(launch_fn, prog, args, push, dispatch, groups, sync, ctx, label, file):
    """launch_fn (the normal _kernel.launch) with the record bound after the
    caller's buffers; raises KernelError when the record says so (at
    Handle.wait() for sync=False)."""
    bdefs = prog.buffers
    users = user_buffers(prog)
    if len(users) == len(bdefs):  # nothing to check in this kernel
        return launch_fn(prog, args, push, dispatch, groups, sync, ctx, label)
    if len(args) != len(users):
        names = ", ".join(b["name"] for b in users)
        raise TypeError(f"{label} takes {len(users)} buffer(s) ({names}), got {len(args)}")
    rec = np.zeros(WORDS, np.uint32)
    full = list(args)
    full.insert(next(i for i, b in enumerate(bdefs) if b["name"] == RECORD), rec)
    r = launch_fn(prog, full, push, dispatch, groups, sync, ctx, label)
    if sync:
        if rec[0]:
            _raise(rec, prog, file, label)
        return r

    def finish():
        res = r.wait()
        if rec[0]:
            _raise(rec, prog, file, label)
        return res

    return Handle(None, finish)
