# The seed's .vul.py source mode example, exactly as the seed writes it.
import vulpy as vp

class PushConstants:
    N:  uint32
    dt: float32

def main(pos: vp.Buffer[vp.float64], vel: vp.Buffer[vp.float64]):
    i: uint32 = vp.global_id()
    if i >= pc.N:
        return
    pos[i] = pos[i] + vel[i] * pc.dt
