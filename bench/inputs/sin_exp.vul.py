# sin_exp.vul.py - the seed's first example, y = vp.sin(x) + vp.exp(x), as a
# kernel: the compile-time cost of the precise math helpers (bench_compile).
import vulpy as vp

def main(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = vp.sin(x[i]) + vp.exp(x[i])
