#!/usr/bin/env python3
"""diag_coverage.py - every user-facing message of the frontend has a test.

Reads lib/Frontend/*.c, finds each call that emits a diagnostic
(vfe_err, vfe_warn, vfe_hint, vp_diag_hint, vp_diag_add, vp_error) and takes
its format string (adjacent literals joined, both arms of a `?:`), plus the
context fragments passed to VFE_WHAT (the "for what" part of a conversion
error). Then it reads the FileCheck lines of the tests under test/Frontend
(any prefix; CHECK-NOT lines do not count) and says which formats no check
line matches. A check line matches a format when its text after
`error: ` / `warning: ` / `note: ` / `hint: ` is the format with each %-spec
replaced by some text ({{...}} regexes in the check stand for a spec), or a
prefix of one at least MIN_PREFIX characters long. A VFE_WHAT fragment
matches when its text (specs as any text) occurs in a check line.

ALLOWLIST names the formats no Python source can reach, each with why.
Exit status 1 (and a list) when a format is neither tested nor allowed, or
when an allowlist entry names a format that no longer exists or is tested
after all (so the list stays true).

  scripts/diag_coverage.py [--root DIR] [--list]   (--list: print every format)
"""
import argparse
import os
import re
import sys

MIN_PREFIX = 30

# Formats that no input reaches: guards against frontend bugs, allocation
# failure, and checks that an earlier one always makes first. Malformed-AST
# messages are NOT here: errors/malformed-ast.vul.py reaches them with
# hand-broken documents. Each entry: the exact format and why.
ALLOWLIST = {
    "internal error: the frontend built invalid VIR":
        "the verifier's guard after translation: only a frontend bug trips it",
    "out of memory":
        "calloc of the translation context failing",
    "out of memory reading the JSON":
        "libyaml reporting YAML_MEMORY_ERROR",
    "malformed JSON: syntax error":
        "the fallback when libyaml reports an error without naming its problem; it always names one",
    "internal: typed constant outside a function":
        "a guard: module-level evaluation (constants, decorator options) reads typed constants "
        "through const_eval, never through vfe_global_const",
    "%s() is not supported here":
        "after a switch over every vfe_bfn (-Wswitch keeps it exhaustive)",
    "struct %s has no fields to build":
        "declaring a class without fields is already an error (types.c), so no call sees one",
}

EMITTERS = {  # name -> index of the format argument
    "vfe_err": 2,
    "vfe_warn": 2,
    "vfe_hint": 1,
    "vp_diag_hint": 1,
    "vp_diag_add": 3,
    "vp_error": 2,
    "jerror": 2,  # json.c: jerror(reader, mark, fmt, arg); a literal arg is part of the text
}
CALL_RE = re.compile(r"\b(" + "|".join(EMITTERS) + r"|VFE_WHAT)\s*\(")
SPEC_RE = re.compile(r"%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp]"
                     r'|"\s*PRI[diux](?:8|16|32|64)\s*")')


def strip_comments(src):
    """C source with comments blanked (newlines kept), strings intact."""
    out, i, n = [], 0, len(src)
    while i < n:
        ch = src[i]
        if ch in "\"'":
            j = i + 1
            while j < n and src[j] != ch:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def call_args(src, i):
    """The top-level arguments of the call whose '(' is at src[i]; and the end."""
    depth, args, start, j = 0, [], i + 1, i
    while j < len(src):
        ch = src[j]
        if ch == '"' or ch == "'":
            k = j + 1
            while src[k] != ch:
                k += 2 if src[k] == "\\" else 1
            j = k
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(src[start:j])
                return args, j
        elif ch == "," and depth == 1:
            args.append(src[start:j])
            start = j + 1
        j += 1
    return args, j


def unescape(s):
    esc = {"n": "\n", "t": "\t"}
    return re.sub(r"\\(.)", lambda m: esc.get(m.group(1), m.group(1)), s)


def literals(arg):
    """The format strings an argument may be: adjacent literals joined; each
    arm of a conditional. Empty when the argument holds no literal."""
    arg = arg.strip()
    runs, cur, i = [], [], 0
    while i < len(arg):
        if arg[i] == '"':
            k = i + 1
            while arg[k] != '"':
                k += 2 if arg[k] == "\\" else 1
            cur.append(arg[i + 1:k])
            i = k + 1
            continue
        m = re.match(r"\s*PRI[diux](?:8|16|32|64)\s*", arg[i:])
        if m and cur:  # "%" PRIu64 "..." : the macro is part of the spec
            cur.append("d")
            i += m.end()
            continue
        if not arg[i].isspace() and cur:
            runs.append("".join(cur))
            cur = []
        i += 1
    if cur:
        runs.append("".join(cur))
    return [unescape(r) for r in runs]


def extract(root):
    """[(kind, format, 'file:line')]; kind is 'msg' or 'what'; plus the
    emitting calls whose format is not a literal."""
    found, dynamic = [], []
    fe = os.path.join(root, "lib", "Frontend")
    for name in sorted(os.listdir(fe)):
        if not name.endswith(".c"):
            continue
        src = strip_comments(open(os.path.join(fe, name), encoding="utf-8").read())
        for m in CALL_RE.finditer(src):
            fn = m.group(1)
            before = src[max(0, m.start() - 40):m.start()]
            if re.search(r"(vfe_val|void|define)\s*$", before):
                continue  # the definition, not a call
            args, _ = call_args(src, m.end() - 1)
            line = src.count("\n", 0, m.start()) + 1
            where = f"lib/Frontend/{name}:{line}"
            idx = 0 if fn == "VFE_WHAT" else EMITTERS[fn]
            if len(args) <= idx:
                dynamic.append((fn, where))
                continue
            fmts = literals(args[idx])
            if fn == "jerror" and len(fmts) == 1 and fmts[0].endswith("%s"):
                # "malformed JSON: %s" with a literal reason: the reason is the message
                fmts = [fmts[0][:-2] + a.replace("%", "%%") for a in literals(args[idx + 1])] or fmts
            if not fmts and args[idx].strip() != "fmt":  # "fmt": a helper passing its own on
                dynamic.append((fn, where))
            for f in fmts:
                found.append(("what" if fn == "VFE_WHAT" else "msg", f, where))
    return found, dynamic


CHECK_RE = re.compile(r"(?:#|//|;)\s*([A-Z][A-Z0-9_]*(?:-[A-Z0-9_]+)*?)(-NEXT|-SAME|-LABEL|-DAG|-NOT|-EMPTY)?:(.*)$")
SEV_RE = re.compile(r"(?:error|warning|note|hint): (.*)$")


def check_lines(root):
    """The message texts the tests under test/Frontend check for."""
    texts, whole = [], []
    tdir = os.path.join(root, "test", "Frontend")
    for dirpath, _, files in os.walk(tdir):
        for f in files:
            try:
                lines = open(os.path.join(dirpath, f), encoding="utf-8").read().splitlines()
            except (UnicodeDecodeError, OSError):
                continue
            for ln in lines:
                m = CHECK_RE.search(ln)
                if not m or m.group(1) == "RUN" or m.group(2) == "-NOT":
                    continue
                body = m.group(3).strip()
                whole.append(body)
                s = SEV_RE.search(body)
                if s:
                    texts.append(s.group(1))
    return texts, whole


SPEC = object()  # a %-spec: any text on one line


def fmt_parts(fmt):
    """The format as a list of characters and SPEC tokens."""
    pieces = SPEC_RE.split(fmt)
    specs = SPEC_RE.findall(fmt)
    parts = []
    for k, p in enumerate(pieces):
        parts.extend(p)
        if k < len(specs):
            parts.append("%" if specs[k] == "%%" else SPEC)
    return parts


def match(parts, t):
    """(whole, n): whether the text `t` is the format with its specs filled
    in, and the most literal characters of the format that a prefix of the
    format matching all of `t` holds. In `t`, \x00 stands for a {{regex}}
    of the check, which only a spec may match."""
    n, m = len(t), len(parts)
    NO = -1
    # best[i][j]: the most literal characters parts[i:] match when they
    # consume all of t[j:] (the format may go on past the text's end)
    best = [[NO] * (n + 1) for _ in range(m + 1)]
    whole = [[False] * (n + 1) for _ in range(m + 1)]
    whole[m][n] = True
    for i in range(m, -1, -1):
        for j in range(n, -1, -1):
            if j == n:
                best[i][j] = 0
                if i < m and parts[i] is SPEC:
                    whole[i][j] = whole[i + 1][j]
                continue
            if i == m:
                continue
            p = parts[i]
            if p is SPEC:
                b = best[i + 1][j]
                w = whole[i + 1][j]
                if t[j] != "\n":
                    b = max(b, best[i][j + 1])
                    w = w or whole[i][j + 1]
                best[i][j], whole[i][j] = b, w
            elif t[j] == p:
                if best[i + 1][j + 1] != NO:
                    best[i][j] = 1 + best[i + 1][j + 1]
                whole[i][j] = whole[i + 1][j + 1]
    return whole[0][0], best[0][0]


def covered(fmt, kind, texts, whole):
    parts = fmt_parts(fmt)
    if kind == "what":
        # a fragment: its text (specs as any text) inside some check line
        r = re.compile("[^\n]*?".join(re.escape(p) for p in SPEC_RE.split(fmt)))
        return any(r.search(t) for t in whole)
    first = next((p for p in SPEC_RE.split(fmt) if p), "")
    for t in texts:
        t = re.sub(r"\{\{.*?\}\}", "\x00", t).rstrip()
        if first[:MIN_PREFIX] not in t:
            continue  # a quick no: a match holds the first literal part
        ok, lits = match(parts, t)
        if ok or lits >= MIN_PREFIX:
            return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    found, dynamic = extract(args.root)
    texts, whole = check_lines(args.root)
    seen, fmts = set(), []
    for kind, f, where in found:
        if (kind, f) not in seen:
            seen.add((kind, f))
            fmts.append((kind, f, where))
    bad, tested, allowed = [], 0, 0
    for kind, f, where in fmts:
        ok = covered(f, kind, texts, whole)
        if args.list:
            print(f"{'ok ' if ok else 'NO '}{kind:4} {where}: {f!r}")
        if f in ALLOWLIST:
            allowed += 1
            if ok:
                bad.append(f"{where}: allowlisted but tested (remove it from ALLOWLIST): {f!r}")
        elif ok:
            tested += 1
        else:
            bad.append(f"{where}: no test checks {kind} {f!r}")
    live = {f for _, f, _ in fmts}
    for f in ALLOWLIST:
        if f not in live:
            bad.append(f"allowlisted format no longer in lib/Frontend: {f!r}")
    for fn, where in dynamic:
        bad.append(f"{where}: {fn} with a format that is not a literal (give it one)")
    msgs = sum(1 for k, _, _ in fmts if k == "msg")
    print(f"frontend diagnostics: {len(fmts)} formats ({msgs} messages and hints, "
          f"{len(fmts) - msgs} context fragments): {tested} tested, {allowed} allowlisted, "
          f"{len(bad)} problems")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
