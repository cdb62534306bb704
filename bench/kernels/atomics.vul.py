# Atomics: a 64-bin histogram (atomic_add) and the largest value seen
# (atomic_max) on uint32; the results do not depend on the order.
import vulpy as vp


def main(data: vp.Buffer[vp.uint32], hist: vp.Buffer[vp.uint32]):
    i = vp.global_id()
    d = data[i]
    vp.atomic_add(hist, d % 64, 1)
    vp.atomic_max(hist, 64, d)
