"""`python -m vulpy COMMAND ...`: the command-line entry.

    python -m vulpy dump-ast FILE.vul.py [-o OUT] [--kernel NAME] [--indent N]

Subcommands register themselves in COMMANDS; the compiler commands
(emit-glsl, emit-vir, ...) join once the C extension exists. dump-ast is
pure Python and works without it.
"""
import argparse
import sys

from . import _astjson


def cmd_dump_ast(args):
    options = {}
    for item in args.option or []:
        key, _, value = item.partition("=")
        try:
            options[key] = int(value, 0)
        except ValueError:
            options[key] = value
    try:
        if args.file == "-":
            doc = _astjson.dump_source(sys.stdin.read(), "<stdin>", args.kernel, options)
        else:
            doc = _astjson.dump_file(args.file, args.kernel, options)
    except SyntaxError as e:
        # The same shape as the C frontend's diagnostics.
        print(f"{e.filename}:{e.lineno}:{e.offset or 0}: error: {e.msg}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"vulpy dump-ast: error: cannot read '{args.file}': {e.strerror}", file=sys.stderr)
        return 1
    text = _astjson.to_json(doc)
    if args.output and args.output != "-":
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    return 0


def add_dump_ast(sub):
    p = sub.add_parser("dump-ast", help="print a kernel file's Python AST as JSON (for vulpy-translate)")
    p.add_argument("file", help="a .vul.py file, or - for standard input")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.add_argument("--kernel", help="the entry function (default: main, or the one @vp.kernel)")
    p.add_argument("--option", "-D", action="append", metavar="KEY=VALUE",
                   help="a compile option as the decorator would pass it, e.g. local_size_x=64")
    p.set_defaults(func=cmd_dump_ast)


# Each entry adds one subcommand to the parser.
COMMANDS = [add_dump_ast]


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
