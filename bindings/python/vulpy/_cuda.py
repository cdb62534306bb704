"""VulPy arrays seen by CUDA with no copy: DLPack kDLCUDA (issue 18;
docs/multidevice.md, "DLPack to CUDA", says how, when it is a sync point
and why the other direction is not possible).

`vp.empty(shape, dtype, exportable=True)` allocates the array in its own
device-local Vulkan allocation exported as an opaque fd (runtime/export.c);
`x.__dlpack__(dl_device=(2, i))` imports that memory into CUDA once per
buffer (libcuda.so.1 is dlopen'ed, bindings/python/src/cuda.c) and hands
out a kDLCUDA tensor over the same bytes, after waiting for all the
context's GPU work.
"""
from . import _native

_KDLCUDA = 2
_probes = {}


def interop(context=None):
    """Whether VulPy arrays of `context` can be handed to CUDA without a
    copy: {'available': bool, 'cuda_device': ordinal or None, 'reason': str}.
    Needs a device that exports memory (VK_KHR_external_memory_fd), the
    NVIDIA driver's libcuda.so.1, and a CUDA device with the Vulkan device's
    UUID."""
    from . import _context
    ctx = _context.resolve(context)
    key = id(ctx._native)
    got = _probes.get(key)
    if got is None or got[0] is not ctx._native:
        ext = _native.ext()
        if not ext.can_export_memory(ctx._native):
            r = (-1, f"device {ctx.name!r} cannot export memory (it lacks "
                     f"VK_KHR_external_memory_fd)")
        else:
            r = ext.cuda_probe(ctx.info["device_uuid"])
        got = _probes[key] = (ctx._native, r)
    ordinal, why = got[1]
    return {"available": ordinal >= 0, "cuda_device": ordinal if ordinal >= 0 else None,
            "reason": why or "ok"}


def exportable(buf):
    """Whether a buffer is CUDA-importable memory (vp.empty(exportable=True)):
    its owner is the string "exportable". Another buffer's owner may be the
    NumPy array whose pages it imported, which == would compare element
    by element (np.from_dlpack(x) of an imported host array raised
    "truth value of an array ... is ambiguous"). _array asks here too."""
    owner = getattr(buf, "owner", None)
    return isinstance(owner, str) and owner == "exportable"


def is_exportable(a):
    return exportable(a._buf)


def empty(ctx, nbytes):
    """A Buffer of `nbytes` in exportable device memory of ctx."""
    return _native.ext().exportable_buffer(ctx._native, nbytes)


def dlpack_device(a):
    """(2, ordinal) when `a` can go to CUDA, else None."""
    if not is_exportable(a):
        return None
    info = interop(a.context)
    return (_KDLCUDA, info["cuda_device"]) if info["available"] else None


def dlpack(a, dl_device, versioned, dlpack_of):
    """The kDLCUDA capsule of exportable array `a` (after a full wait)."""
    info = interop(a.context)
    what = (f"__dlpack__: dl_device={tuple(dl_device)!r} (kDLCUDA)" if dl_device is not None
            else "__dlpack__: CUDA export (kDLCUDA)")
    if not is_exportable(a):
        raise BufferError(
            f"{what}: only arrays allocated with vp.empty(..., exportable=True) (their own "
            f"exportable device memory) go to CUDA; "
            + ("this array is not" if info["available"] else
               f"and here CUDA export is not available either: {info['reason']}"))
    if not info["available"]:
        raise BufferError(f"{what}: CUDA export is not available: {info['reason']}")
    if dl_device is not None and tuple(dl_device) != (_KDLCUDA, info["cuda_device"]):
        raise BufferError(f"__dlpack__: this array's device is CUDA device "
                          f"{info['cuda_device']}, not dl_device={tuple(dl_device)!r}")
    if not a.contiguous or a._offset:
        raise BufferError("__dlpack__: only whole contiguous exportable arrays go to CUDA")
    m = _native.ext().cuda_import(a._buf, a.context.info["device_uuid"])
    a.context.synchronize()  # the sync point: every GPU write is done
    return dlpack_of(a, m.pointer, (a, m), versioned, info["cuda_device"])
