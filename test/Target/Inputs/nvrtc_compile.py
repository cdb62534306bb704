"""Compiles one .cu file to PTX with NVRTC (CuPy's default RawModule back
end) through ctypes: no include paths, no system headers (float16 kernels
get the CUDA toolkit's include folder for <cuda_fp16.h>).

    nvrtc_compile.py IN -o OUT [--arch=compute_90]
    nvrtc_compile.py --find        # prints the library path, exit 1 if none

libnvrtc is looked for in $VULPY_NVRTC, the CUDA toolkit, and the PyPI wheels
(nvidia-cuda-nvrtc: nvidia/cu13/lib or nvidia/cuda_nvrtc/lib on sys.path).
Used by test/Target/CUDA/compile-all-nvrtc.test.
"""
import ctypes
import glob
import os
import sys


def find():
    env = os.environ.get("VULPY_NVRTC")
    if env and os.path.exists(env):
        return env
    pats = ["/usr/local/cuda/lib64/libnvrtc.so*", "/usr/local/cuda/targets/*/lib/libnvrtc.so*"]
    for d in sys.path:
        pats += [os.path.join(d, "nvidia", "cu*", "lib", "libnvrtc.so*"),
                 os.path.join(d, "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so*")]
    for pat in pats:
        for f in sorted(glob.glob(pat)):
            if "builtins" not in f and "alt" not in f:
                return f
    return None


def compile_file(lib, src, out, arch):
    # NVRTC dlopens libnvrtc-builtins by name from its own folder (RUNPATH
    # $ORIGIN); under `make test-sanitize` the ASan runtime's dlopen
    # interceptor is the caller and that folder is not searched. Loaded
    # first, the builtins are found by their soname either way.
    for b in sorted(glob.glob(os.path.join(os.path.dirname(lib), "libnvrtc-builtins.so*"))):
        ctypes.CDLL(b, mode=ctypes.RTLD_GLOBAL)
        break
    nv = ctypes.CDLL(lib)
    prog = ctypes.c_void_p()
    code = open(src, "rb").read()
    name = os.path.basename(src).encode()
    r = nv.nvrtcCreateProgram(ctypes.byref(prog), code, name, 0, None, None)
    if r:
        return f"nvrtcCreateProgram failed: {r}"
    opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17"]
    # float16 kernels include the toolkit's <cuda_fp16.h> (NVRTC-ready, but
    # not built into every NVRTC): the one include path they get, as a
    # RawModule user passes it (options=("-I" + CUDA_PATH + "/include",));
    # every other kernel compiles with no include path at all
    if b"#include <cuda_fp16.h>" in code:
        inc = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "include")
        opts.append(f"-I{inc}".encode())
    arr = (ctypes.c_char_p * len(opts))(*opts)
    r = nv.nvrtcCompileProgram(prog, len(opts), arr)
    n = ctypes.c_size_t()
    nv.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    nv.nvrtcGetProgramLog(prog, log)
    if r:
        return f"nvrtcCompileProgram failed ({r}):\n{log.value.decode(errors='replace')}"
    nv.nvrtcGetPTXSize(prog, ctypes.byref(n))
    ptx = ctypes.create_string_buffer(n.value)
    nv.nvrtcGetPTX(prog, ptx)
    nv.nvrtcDestroyProgram(ctypes.byref(prog))
    with open(out, "wb") as f:
        f.write(ptx.value)
    return None


def main(argv):
    lib = find()
    if argv == ["--find"]:
        print(lib or "")
        return 0 if lib else 1
    if not lib:
        print("libnvrtc not found", file=sys.stderr)
        return 1
    arch = "compute_90"
    rest = []
    for a in argv:
        if a.startswith("--arch="):
            arch = a.split("=", 1)[1]
        else:
            rest.append(a)
    if len(rest) != 3 or rest[1] != "-o":
        print(__doc__, file=sys.stderr)
        return 2
    err = compile_file(lib, rest[0], rest[2], arch)
    if err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
