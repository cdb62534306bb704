# A literal of a conditional choice that does not fit the type it meets.
import vulpy as vp

def main(u: vp.Buffer[vp.uint32]):
    i = vp.global_id()
    c = u[i] > 3
    u[i] = 1 if c else -1
