"""Runs every test suite and prints one summary line: `N passed, N failed`.

Suites: lit (test/, FileCheck and end-to-end), ctest (C unit tests), pytest
(test/python: most files in one pytest-xdist worker per core, then the
timing-sensitive ones alone as "pytest-serial"), and a bounded fuzz run. Each writes JUnit XML under
BUILD/test-results; the counts come from there.

--sanitize runs the suites against an ASan + UBSan build (`make
test-sanitize`: build-asan, configured with -DVULPY_SANITIZE=ON). Python
loads that build's extension (VULPY_EXTENSION) with the ASan runtime
preloaded (the interpreter is not instrumented, and the runtime must be
loaded first), and any ASan or UBSan report ends the process with an error.
The instrumented C programs (vulpy-run, vulpy-opt, vulpy-translate, the unit
tests) run with LeakSanitizer on, test/sanitize/lsan.supp leaving out what
the Vulkan driver and the validation layer keep until exit; interpreters run
without it (Python keeps its objects until exit). docs/testing.md says more.
"""
import argparse
import glob
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def junit_counts(path):
    """(passed, failed, skipped) from a JUnit XML file."""
    if not path.exists():
        return None
    tree = ET.parse(path)
    passed = failed = skipped = 0
    for case in tree.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def run(name, cmd, env=None, cwd=ROOT):
    print(f"==> {name}: {' '.join(str(c) for c in cmd)}", flush=True)
    return subprocess.run(cmd, cwd=cwd, env=env).returncode


def sanitizer_env(env, build):
    """The environment of an ASan + UBSan run against `build` (see the top)."""
    ext = sorted(glob.glob(str(build / "python" / "vulpy" / "_vulpy*.so")))
    if not ext:
        sys.exit(f"run_tests: no sanitizer extension under {build}/python/vulpy "
                 f"(configure with -DVULPY_SANITIZE=ON; `make test-sanitize` does)")
    supp = ROOT / "test" / "sanitize"
    return dict(env, VULPY_EXTENSION=ext[-1],
                ASAN_OPTIONS=f"detect_leaks=1:suppressions={supp / 'asan.supp'}",
                LSAN_OPTIONS=f"suppressions={supp / 'lsan.supp'}:print_suppressions=0",
                UBSAN_OPTIONS=f"print_stacktrace=1:halt_on_error=1:suppressions={supp / 'ubsan.supp'}")


def python_sanitizer_env(env):
    """An uninstrumented interpreter loading the ASan extension: the ASan
    runtime preloaded (it must come first), and no leak report at exit."""
    cc = os.environ.get("CC", "gcc")
    asan = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True,
                          text=True).stdout.strip()
    return dict(env, LD_PRELOAD=asan,
                ASAN_OPTIONS=env["ASAN_OPTIONS"].replace("detect_leaks=1", "detect_leaks=0"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--fuzz-seconds", type=int, default=int(os.environ.get("FUZZ_SECONDS", "45")))
    ap.add_argument("--only", choices=["lit", "ctest", "pytest", "fuzz"], action="append")
    ap.add_argument("--sanitize", action="store_true",
                    help="BUILD is an ASan + UBSan build (-DVULPY_SANITIZE=ON)")
    ap.add_argument("--pytest-args", default="",
                    help="what pytest runs (default: all of test/python), e.g. '-k foo test/python/test_x.py'")
    ap.add_argument("--pytest-jobs", type=int,
                    default=int(os.environ.get("VULPY_TEST_JOBS", "0")) or os.cpu_count() or 1,
                    help="pytest-xdist workers for the whole suite (default: VULPY_TEST_JOBS, "
                         "else one per core; 1: one process)")
    args = ap.parse_args()
    build = (ROOT / args.build).resolve()
    results = build / "test-results"
    results.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, VULPY_BUILD=str(build))
    env.setdefault("VULPY_VALIDATION", "1")
    # Tests never read or write the user's cache.
    env["XDG_CACHE_HOME"] = str(build / "test-cache")
    only = set(args.only or ["lit", "ctest", "pytest", "fuzz"])
    if args.sanitize:
        env = sanitizer_env(env, build)
        # The fuzz targets are already built with ASan + UBSan (scripts/fuzz.sh).
        if not args.only:
            only.discard("fuzz")

    suites = []  # (name, exit code, junit path)
    py = sys.executable
    if "lit" in only:
        out = results / "lit.xml"
        out.unlink(missing_ok=True)
        rc = run("lit", [py, "-c", "from lit.main import main; main()", "-sv", "--xunit-xml-output", str(out), str(ROOT / "test")], env)
        suites.append(("lit", rc, out))
    if "ctest" in only:
        out = results / "ctest.xml"
        out.unlink(missing_ok=True)
        rc = run("ctest", ["ctest", "--test-dir", str(build), "--output-on-failure",
                           "-j", str(os.cpu_count() or 2), "--output-junit", str(out)], env)
        suites.append(("ctest", rc, out))
    if "pytest" in only and (ROOT / "test" / "python").is_dir():
        penv = python_sanitizer_env(env) if args.sanitize else env
        base = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        if args.pytest_args:
            phases = [("pytest", shlex.split(args.pytest_args))]
        else:
            # Two phases (test/python/conftest.py's SERIAL_FILES): the files
            # that time the device or whose persistent programs spin on
            # lavapipe's threads run alone, after the rest has run in
            # `jobs` pytest-xdist workers (one per core).
            tests = [str(ROOT / "test" / "python")]
            jobs = args.pytest_jobs
            workers = (["-n", str(jobs), "--dist", "worksteal"]
                       if jobs > 1 and importlib.util.find_spec("xdist") else [])
            phases = [("pytest", workers + ["-m", "not serial"] + tests),
                      ("pytest-serial", ["-m", "serial"] + tests)]
        for name, targs in phases:
            out = results / f"{name}.xml"
            out.unlink(missing_ok=True)
            rc = run(name, base + [f"--junitxml={out}"] + targs, penv)
            if rc == 5:  # no tests collected
                rc = 0
            suites.append((name, rc, out))
    if "fuzz" in only and (ROOT / "scripts" / "fuzz.sh").exists() and shutil.which("clang-14"):
        out = results / "fuzz.xml"
        out.unlink(missing_ok=True)
        rc = run("fuzz", [str(ROOT / "scripts" / "fuzz.sh"), str(args.fuzz_seconds), str(out)], env)
        suites.append(("fuzz", rc, out))

    total_p = total_f = total_s = 0
    for name, rc, out in suites:
        c = junit_counts(out)
        if c is None:
            # The suite died before writing results: count it as one failure.
            c = (0, 1, 0)
        p, f, s = c
        if rc != 0 and f == 0:
            f = 1  # a non-zero exit with no failed case is still a failure
        print(f"    {name}: {p} passed, {f} failed, {s} skipped")
        total_p, total_f, total_s = total_p + p, total_f + f, total_s + s
    print(f"{total_p} passed, {total_f} failed" + (f" ({total_s} skipped)" if total_s else ""))
    return 1 if total_f else 0


if __name__ == "__main__":
    sys.exit(main())
