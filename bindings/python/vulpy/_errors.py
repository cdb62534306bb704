"""VulPy's exceptions.

They live in Python, not in the C extension, so that they exist (and can be
caught) on a machine where the extension failed to load. The extension
raises them with the formatted diagnostic text as the message and the parts
in a `diagnostics` attribute: a list of dicts with severity, file, line,
col, message and hint.
"""
import operator as _operator

import numpy as _np

# NumPy's AxisError: numpy.exceptions.AxisError from NumPy 1.25, the
# top-level numpy.AxisError before (pyproject allows NumPy 1.24)
AxisError = getattr(_np, "exceptions", _np).AxisError


def axis(axis, ndim, prefix=None):
    """axis (an integer, negative from the end) as 0 .. ndim - 1; AxisError
    (its message opening with prefix) out of range."""
    a = _operator.index(axis)
    if not -ndim <= a < ndim:
        raise AxisError(a, ndim, prefix)
    return a % ndim


class VulkanError(RuntimeError):
    """A Vulkan call failed, or no Vulkan device could be used.

    The message names the call, the VkResult and the device."""

    diagnostics = ()


class DeviceLostError(VulkanError):
    """The device was lost (VK_ERROR_DEVICE_LOST): a driver reset, a hung
    kernel, or a removed GPU. Every later call on the same Context fails
    with this error; create a new Context to continue."""


class OutOfMemoryError(VulkanError, MemoryError):
    """The device or the driver ran out of memory for an allocation."""


class CompileError(Exception):
    """A kernel did not compile.

    The message is the compiler's `file:line:col: error: ...` with the source
    line and a caret under the column; `diagnostics` has the parts."""

    diagnostics = ()


class FeatureError(TypeError):
    """The device lacks a feature that the operation needs (shaderFloat64
    for float64, shaderInt64 for int64, ...). The message names it."""


class ExtensionMissingError(ImportError):
    """The C extension `vulpy._vulpy` is not built or failed to load."""


# --- issue 20 (trust): timeouts and the kernel cache -------------------------

class TimeoutError(VulkanError, TimeoutError):  # noqa: A001
    """A wait ran out of time (Handle.wait(timeout=...), Context(timeout=...))
    before the GPU finished. The work may still be running: wait again, or
    drop the Context. Also a Python TimeoutError."""


class CacheWarning(RuntimeWarning):
    """A kernel cache entry or folder was refused (damaged, foreign, not a
    regular file, or a folder other users may write): VulPy compiles
    instead, or runs without a disk cache. The message names the path."""


class CompileWarning(UserWarning):
    """The compiler's warning about a kernel's source, with its place
    (`file:line:col: warning: ...`, the line and a caret): a name that may be
    read before it is assigned (Python would raise UnboundLocalError there;
    the GPU reads an undefined value), an unsigned value compared with 0 in
    a way that always or never holds (`i - 5 < 0`: unsigned integers wrap),
    code after a return that never runs.
    The kernel compiles and runs; the warning is shown when it compiles (a
    kernel cache hit shows it again)."""


# ---- debug mode (issue 20): a fault a debug kernel recorded on the device
class KernelError(RuntimeError):
    """A kernel compiled with debug=True (or VULPY_DEBUG=1) failed on the
    device: an `assert` was false, or a buffer or shared-array index was out
    of bounds. The message is `file:line:col: error: ...` with the source
    line; the attributes: file, line, col, kind ('assert', 'buffer read',
    'buffer write', 'buffer atomic', 'shared read', 'shared write',
    'shared atomic'), name (the buffer or shared array, or None),
    invocation (the global invocation id, x y z), index and length (None
    for an assert). Only the first failure of a dispatch is reported; the
    faulting access was skipped (a read gave element 0), so the outputs
    are not trustworthy but no memory outside the buffers was touched."""

    file = line = col = kind = name = invocation = index = length = None
