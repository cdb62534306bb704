"""`python -m vulpy COMMAND ...`: the command-line entry.

    python -m vulpy emit-glsl FILE.vul.py [-o OUT] [--local-size-x N] ...
    python -m vulpy emit-vir | emit-cuda | emit-hip | emit-manifest FILE.vul.py
    python -m vulpy emit-spirv FILE.vul.py -o OUT.spv
    python -m vulpy emit --to=TARGET FILE.vul.py     (msl, hlsl, ...: any back end)
    python -m vulpy devices [-v]
    python -m vulpy dump-ast FILE.vul.py [-o OUT] [--kernel NAME]

The emit commands run the compiler in-process (the C extension); FILE may
also be a .vir file. Errors print as `file:line:col: error: ...` with the
source line and a caret, and the exit status is 1. dump-ast is pure Python
and works without the extension.
"""
import argparse
import sys

from . import _astjson


def _document(file, kernel, options):
    """The AST document of a .vul.py file, or of standard input for '-'."""
    if file == "-":
        return _astjson.dump_source(sys.stdin.read(), "<stdin>", kernel, options)
    return _astjson.dump_file(file, kernel, options)


def _syntax_error(e):
    """Prints a SyntaxError in the C frontend's diagnostic shape; returns 1."""
    print(f"{e.filename}:{e.lineno}:{e.offset or 0}: error: {e.msg}", file=sys.stderr)
    return 1


def _write_text(output, text):
    """Writes `text` to the file `output`, or to standard output (None or '-')."""
    if output and output != "-":
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def cmd_dump_ast(args):
    options = {}
    for item in args.option or []:
        key, _, value = item.partition("=")
        try:
            options[key] = int(value, 0)
        except ValueError:
            options[key] = value
    try:
        doc = _document(args.file, args.kernel, options)
    except SyntaxError as e:
        return _syntax_error(e)
    except OSError as e:
        print(f"vulpy dump-ast: error: cannot read '{args.file}': {e.strerror}", file=sys.stderr)
        return 1
    _write_text(args.output, _astjson.to_json(doc) + "\n")
    return 0


def add_dump_ast(sub):
    p = sub.add_parser("dump-ast", help="print a kernel file's Python AST as JSON (for vulpy-translate)")
    p.add_argument("file", help="a .vul.py file, or - for standard input")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.add_argument("--kernel", help="the entry function (default: main, or the one @vp.kernel)")
    p.add_argument("--option", "-D", action="append", metavar="KEY=VALUE",
                   help="a compile option as the decorator would pass it, e.g. local_size_x=64")
    p.set_defaults(func=cmd_dump_ast)


def _emit(args, target):
    from . import _compiler, _native
    from ._errors import CompileError, ExtensionMissingError
    ls = [args.local_size_x, args.local_size_y, args.local_size_z]
    options = {k: v for k, v in zip(("local_size_x", "local_size_y", "local_size_z"), ls)
               if v is not None}
    try:
        if args.file.endswith(".vir"):
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
            local = tuple(v or 0 for v in ls) if any(ls) else None
            out = _native.ext().compile_vir(text, args.file, args.kernel, local, True, False,
                                            args.fast_math, args.optimize, 0xFFFFFFFF, 0,
                                            (target,), None)
        else:
            doc = _document(args.file, args.kernel, options)
            out = _compiler.compile_document(doc, targets=(target,),
                                             dispatch_guard=not args.no_dispatch_guard,
                                             fast_math=args.fast_math, optimize=args.optimize)
    except SyntaxError as e:
        return _syntax_error(e)
    except OSError as e:
        print(f"vulpy: error: cannot read '{args.file}': {e.strerror}", file=sys.stderr)
        return 1
    except CompileError as e:
        print(str(e), file=sys.stderr)
        return 1
    except (ExtensionMissingError, NotImplementedError, ValueError) as e:
        print(f"vulpy: error: {e}", file=sys.stderr)
        return 1
    if out.get("warnings"):
        sys.stderr.write(out["warnings"])
    data = out[target]
    if isinstance(data, bytes):
        if not args.output or args.output == "-":
            print(f"vulpy: error: {target} is binary; give -o FILE", file=sys.stderr)
            return 1
        with open(args.output, "wb") as f:
            f.write(data)
    else:
        _write_text(args.output, data)
    return 0


def add_emit(sub):
    def options(p):
        p.add_argument("file", help="a .vul.py (or .vir) file, or - for standard input")
        p.add_argument("-o", "--output", help="write to this file (required for emit-spirv)")
        p.add_argument("--kernel", help="the entry function (default: main, or the @vp.kernel one)")
        for axis in "xyz":
            p.add_argument(f"--local-size-{axis}", type=int, metavar="N",
                           help=f"override the kernel's local_size_{axis}")
        p.add_argument("--fast-math", action="store_true",
                       help="built-in transcendental functions instead of precise ones")
        p.add_argument("-O", "--optimize", action="store_true",
                       help="run the SPIR-V optimizer")
        p.add_argument("--no-dispatch-guard", action="store_true",
                       help="do not add the dispatch=N bound check")

    for target, what in (("glsl", "GLSL 450 compute source"), ("vir", "VIR (VulPy IR) text"),
                         ("cuda", "a self-contained CUDA .cu"), ("hip", "a self-contained HIP source"),
                         ("spirv", "SPIR-V (binary; needs -o)"),
                         ("manifest", "the kernel's manifest (YAML)")):
        p = sub.add_parser(f"emit-{target}", help=f"compile a kernel file to {what}")
        options(p)
        p.set_defaults(func=lambda a, t=target: _emit(a, t))
    p = sub.add_parser("emit", help="compile a kernel file to any back end (--to=msl, hlsl, ...)")
    p.add_argument("--to", required=True, help="the target name (vulpy-translate --help lists them)")
    options(p)
    p.set_defaults(func=lambda a: _emit(a, a.to))


def cmd_devices(args):
    from . import _native
    from ._errors import ExtensionMissingError, VulkanError
    try:
        text = _native.ext().describe_devices(args.verbose)
    except (VulkanError, ExtensionMissingError) as e:
        print(f"vulpy: error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


def add_devices(sub):
    p = sub.add_parser("devices", help="list the Vulkan devices")
    p.add_argument("-v", "--verbose", action="store_true", help="limits, features, memory types")
    p.set_defaults(func=cmd_devices)


# Each entry adds one subcommand to the parser.
COMMANDS = [add_emit, add_devices, add_dump_ast]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m vulpy", description="VulPy command-line tools")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    args = ap.parse_args(argv)
    if not getattr(args, "func", None):
        ap.print_help()
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
