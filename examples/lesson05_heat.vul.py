"""One explicit step of the 1-D heat equation u_t = u_xx, for lesson 5
(docs/tutorials/05-vul-files.md; run by examples/lesson05_vul_files.py).

FTCS: unew[i] = u[i] + r (u[i-1] - 2 u[i] + u[i+1]) with r = dt/dx^2 <= 1/2;
the two end cells keep their values (fixed walls).
"""
import vulpy as vp


class PushConstants:
    n: uint32
    r: float32


def main(u: vp.Buffer[vp.float32], unew: vp.Buffer[vp.float32]):
    i: uint32 = vp.global_id()
    if i >= pc.n:
        return
    if i == 0 or i == pc.n - 1:
        unew[i] = u[i]
        return
    unew[i] = u[i] + pc.r * (u[i - 1] - 2.0 * u[i] + u[i + 1])
