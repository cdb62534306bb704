"""IR throughput: parse + verify + print of generated VIR modules.

Modules of 1K, 100K and 1M ops are generated (kernels of about 1000 ops,
each a mix of what the frontend emits: invocation ids, push-constant and
buffer loads, arithmetic on named and numbered values, constants, casts,
vector construction and extraction, if / for regions, stores, a source
location on every op). build/bin/ir_throughput times vir_parse, vir_verify
and vir_print on each; the records give ops/s for the three together and
for each alone (median, p10, p90 over the runs).
"""
import json
import random
import statistics
import subprocess
import tempfile
from pathlib import Path

SIZES = [1_000, 100_000, 1_000_000]

HEADER = """module "bench.vul.py"

struct @Particle { pos: vec4<f32>, vel: vec4<f32>, mass: f32 }
push @pc { n: u32, dt: f32, scale: f32 }
buffer @parts : @Particle[] binding(0, 0) readwrite
buffer @x : f32[] binding(0, 1) readonly
buffer @y : f32[] binding(0, 2) readwrite
buffer @count : u32[] binding(0, 3) readwrite
"""


def kernel(k, target_ops, rng):
    """One kernel of about target_ops ops; returns (text, ops)."""
    out = [f"kernel @k{k} local_size(256, 1, 1) loc({k + 1}:1) {{"]
    ops = 0
    line = 1

    def emit(s, indent=1, opens=False):
        nonlocal ops, line
        line += 1
        out.append("  " * indent + s + f" loc({line}:{(ops % 40) + 1})" + (" {" if opens else ""))
        ops += 1

    emit("%gid = global_id : vec3<u32>")
    emit("%i = extract %gid[0] : u32")
    emit("%n = push.load @pc.n : u32")
    emit("%dt = push.load @pc.dt : f32")
    emit("%one = const 1.0 : f32")
    emit("%zero = const 0 : u32")
    emit("%step = const 1 : u32")
    emit("%four = const 4 : u32")
    vals = ["%dt", "%one"]
    tmp = 0
    while ops < target_ops - 12:
        r = rng.random()
        a, b = rng.choice(vals), rng.choice(vals)
        if r < 0.10:
            name = f"%v{tmp}"
            emit(f"{name} = buffer.load @x[%i] : f32")
        elif r < 0.15:
            name = f"%{tmp}"
            emit(f"{name} = buffer.load @parts[%i].pos.y : f32")
        elif r < 0.20:
            name = f"%c{tmp}"
            emit(f"{name} = const {rng.randint(1, 999) / 8} : f32")
        elif r < 0.55:
            op = rng.choice(["add", "sub", "mul", "max", "min"])
            name = f"%{tmp}" if rng.random() < 0.5 else f"%t{tmp}"
            emit(f"{name} = {op} {a}, {b} : f32")
        elif r < 0.62:
            name = f"%f{tmp}"
            emit(f"{name} = fma {a}, {b}, {rng.choice(vals)} : f32")
        elif r < 0.67:
            name = f"%s{tmp}"
            emit(f"{name} = sqrt {a} : f32")
        elif r < 0.72:
            vec = f"%vec{tmp}"
            emit(f"{vec} = construct {a}, {b}, {a}, %one : vec4<f32>")
            tmp += 1
            name = f"%e{tmp}"
            emit(f"{name} = extract {vec}[2] : f32")
        elif r < 0.78:
            emit(f"buffer.store @y[%i], {a}")
            continue
        elif r < 0.86:
            cond = f"%lt{tmp}"
            emit(f"{cond} = lt {a}, {b} : bool")
            emit(f"if {cond}", opens=True)
            tmp += 1
            inner = f"%in{tmp}"
            emit(f"{inner} = mul {a}, {b} : f32", 2)
            emit(f"buffer.store @y[%i], {inner}", 2)
            out.append("  }")
            tmp += 1
            continue
        elif r < 0.90:
            emit(f"for %j{tmp} = %zero to %four step %step", opens=True)
            jf = f"%jf{tmp}"
            emit(f"{jf} = cast %j{tmp} : f32", 2)
            emit(f"buffer.store @y[%j{tmp}], {jf}", 2)
            out.append("  }")
            tmp += 1
            continue
        else:
            name = f"%a{tmp}"
            emit(f"{name} = atomic.add @count[%i], %step device relaxed : u32")
            tmp += 1
            continue
        vals.append(name)
        if len(vals) > 24:
            vals.pop(0)
        tmp += 1
    emit("return")
    out.append("}")
    return "\n".join(out) + "\n", ops


def generate(path, total_ops, seed=1):
    rng = random.Random(seed)
    parts = [HEADER]
    ops = 0
    k = 0
    while ops < total_ops:
        text, n = kernel(k, min(1000, total_ops - ops), rng)
        parts.append("\n" + text)
        ops += n
        k += 1
    Path(path).write_text("".join(parts))
    return ops


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * (len(xs) - 1) + 0.5))]


def run(ctx):
    exe = Path(ctx.build) / "bin" / "ir_throughput"
    if not exe.exists():
        raise RuntimeError(f"{exe} is missing: build first (make build)")
    sizes = SIZES[:2] if ctx.quick else SIZES
    # The machine is shared and its load changes by the second: the sizes
    # take turns (round-robin, several rounds) so that each size sees the
    # same mix of quiet and busy moments, and the medians compare.
    rounds = 2 if ctx.quick else 4
    per_round = {1_000: 10, 100_000: 2, 1_000_000: 1}
    runs = {size: [] for size in sizes}
    ops = {}
    nbytes = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for size in sizes:
            paths[size] = Path(tmp) / f"bench_{size}.vir"
            generate(paths[size], size)
        for _ in range(rounds):
            for size in sizes:
                res = json.loads(subprocess.run([str(exe), str(paths[size]), str(per_round[size])],
                                                check=True, capture_output=True, text=True).stdout)
                runs[size] += res["runs"]
                ops[size] = res["ops"]
                nbytes[size] = res["bytes"]
    records = []
    for size in sizes:
        n = ops[size]
        for case, key in [("parse+verify+print", None), ("parse", "parse"), ("verify", "verify"),
                          ("print", "print")]:
            rates = [n / (sum(r.values()) if key is None else r[key]) for r in runs[size]]
            records.append({"suite": "ir", "case": case, "size": n, "backend": "cpu",
                            "median": statistics.median(rates), "p10": pct(rates, 0.1),
                            "p90": pct(rates, 0.9), "unit": "ops/s", "runs": len(rates),
                            "bytes": nbytes[size]})
    return records


if __name__ == "__main__":
    import sys
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    out = sys.argv[2] if len(sys.argv) > 2 else "bench.vir"
    print(generate(out, n), "ops written to", out)
