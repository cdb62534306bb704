"""A 3-D Yee FDTD reference application (docs/fdtd.md): Maxwell's curl
equations on Yee's staggered grid in a PEC box, a soft source and optional
dielectric (eps_r) regions, in three versions that share the update
arithmetic:

- stepped: two `@vp.kernel` dispatches a step (H, then E) on resident
  fields, queued with sync=False (`Sim.step`);
- persistent: the whole time loop in one dispatch, `vp.grid_sync()` between
  the H and E updates, steered through a `vp.ControlBuffer` (source period,
  pause, stop) and streaming a z-slice of Ez with (step, energy) through a
  `vp.MemSock` every N steps (`Sim.launch`);
- NumPy: the same update on arrays (`numpy_step`), float32, the same order
  of operations.

    python examples/fdtd3d.py [--size 32] [--steps 100] [--every 10]

runs a dielectric sphere lit by a soft source in every version, checks them
against each other and prints the rate. Importable: `import fdtd3d` (with
examples/ on sys.path) gives `Sim`, `numpy_step`, `energy`, `cavity_mode`.

Units: fields are normalized (E and eta0 H), the Courant number
S = c dt / dx <= 1/sqrt(3); one step advances H by a half step and E by a
whole one (H at n + 1/2 from E at n, then E at n + 1).
"""
import argparse
import math
import time

import numpy as np

import vulpy as vp

S_MAX = 1.0 / math.sqrt(3.0)     # the 3-D Courant limit (Taflove and Hagness, ch. 4)
S_DEFAULT = 0.5
LX, LY = 64, 4                   # the stepped kernels' workgroup: x fastest, coalesced
LOCAL = 256                      # the persistent kernel's workgroup


# ---------------------------------------------------------------- the update
# Fields are float32 arrays of shape (nz, ny, nx), cell i = (z*ny + y)*nx + x;
# every component of cell i sits at its Yee position: Ex at (x+1/2, y, z),
# Hx at (x, y+1/2, z+1/2), and so on. PEC walls: tangential E on the box's
# faces is zero and is never updated; the H components outside the box stay 0.

def h_cell(ex, ey, ez, hx, hy, hz, i, x, y, z, nx, ny, nz, s):
    """H at n+1/2 from E at n at cell i: H -= S curl E (forward differences).
    Returns |E|^2 and H(n-1/2) . H(n+1/2) at the cell (the energy's terms);
    kernels that do not use them leave them to dead-code elimination."""
    e2 = 0.0 * s                 # zero of the fields' float type (float32 or float64)
    hh = 0.0 * s
    if x < nx - 1 and y < ny - 1 and z < nz - 1:
        sy = nx
        sz = nx * ny
        e_x = ex[i]
        e_y = ey[i]
        e_z = ez[i]
        h_x = hx[i]
        h_y = hy[i]
        h_z = hz[i]
        n_x = h_x - s * ((ez[i + sy] - e_z) - (ey[i + sz] - e_y))
        n_y = h_y - s * ((ex[i + sz] - e_x) - (ez[i + 1] - e_z))
        n_z = h_z - s * ((ey[i + 1] - e_y) - (ex[i + sy] - e_x))
        hx[i] = n_x
        hy[i] = n_y
        hz[i] = n_z
        e2 = e_x * e_x + e_y * e_y + e_z * e_z
        hh = h_x * n_x + h_y * n_y + h_z * n_z
    return e2, hh


def e_cell(ex, ey, ez, hx, hy, hz, i, x, y, z, nx, ny, nz, c):
    """E at n+1 from H at n+1/2 at cell i: E += (S/eps_r) curl H (backward
    differences); c = S/eps_r. Returns E(n) . E(n+1) at the cell."""
    sy = nx
    sz = nx * ny
    h_x = hx[i]
    h_y = hy[i]
    h_z = hz[i]
    inx = x > 0 and x < nx - 1
    iny = y > 0 and y < ny - 1
    inz = z > 0 and z < nz - 1
    ee = 0.0 * c
    if x < nx - 1 and iny and inz:
        o = ex[i]
        v = o + c * ((h_z - hz[i - sy]) - (h_y - hy[i - sz]))
        ex[i] = v
        ee += o * v
    if y < ny - 1 and inx and inz:
        o = ey[i]
        v = o + c * ((h_x - hx[i - sz]) - (h_z - hz[i - 1]))
        ey[i] = v
        ee += o * v
    if z < nz - 1 and inx and iny:
        o = ez[i]
        v = o + c * ((h_y - hy[i - 1]) - (h_x - hx[i - sy]))
        ez[i] = v
        ee += o * v
    return ee


def drive(n, period, amp):
    """The soft source's value at step n: amp sin(2 pi (n mod P) / P), the
    phase reduced exactly in integers so that long runs keep float32 precision."""
    ph = vp.float32(n % period) / vp.float32(period)
    return amp * math.sin(6.2831855 * ph)


# --------------------------------------------------------- stepped version
@vp.kernel(local_size_x=LX, local_size_y=LY)
def update_h(ex: vp.Buffer[vp.float32], ey: vp.Buffer[vp.float32], ez: vp.Buffer[vp.float32],
             hx: vp.Buffer[vp.float32], hy: vp.Buffer[vp.float32], hz: vp.Buffer[vp.float32],
             nx: vp.uint32, ny: vp.uint32, nz: vp.uint32, s: vp.float32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    z = vp.global_id(2)
    i = (z * ny + y) * nx + x
    h_cell(ex, ey, ez, hx, hy, hz, i, x, y, z, nx, ny, nz, s)


@vp.kernel(local_size_x=LX, local_size_y=LY)
def update_e(ex: vp.Buffer[vp.float32], ey: vp.Buffer[vp.float32], ez: vp.Buffer[vp.float32],
             hx: vp.Buffer[vp.float32], hy: vp.Buffer[vp.float32], hz: vp.Buffer[vp.float32],
             ce: vp.Buffer[vp.float32], nx: vp.uint32, ny: vp.uint32, nz: vp.uint32,
             s: vp.float32, material: vp.uint32, src: vp.uint32, n: vp.uint32,
             period: vp.uint32, amp: vp.float32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    z = vp.global_id(2)
    i = (z * ny + y) * nx + x
    c = s
    if material != 0:
        c = ce[i]                  # S / eps_r of the cell (vacuum: not read at all)
    e_cell(ex, ey, ez, hx, hy, hz, i, x, y, z, nx, ny, nz, c)
    if i == src and amp != 0.0:
        ez[i] = ez[i] + drive(n, period, amp)    # soft source: adds to the field


# The same two kernels in float64 (devices with shaderFloat64): the helpers
# above take their types from the arguments, so only the signatures differ.
def drive64(n, period, amp):
    ph = vp.float64(n % period) / vp.float64(period)
    return amp * math.sin(6.283185307179586 * ph)


@vp.kernel(local_size_x=LX, local_size_y=LY)
def update_h64(ex: vp.Buffer[vp.float64], ey: vp.Buffer[vp.float64], ez: vp.Buffer[vp.float64],
               hx: vp.Buffer[vp.float64], hy: vp.Buffer[vp.float64], hz: vp.Buffer[vp.float64],
               nx: vp.uint32, ny: vp.uint32, nz: vp.uint32, s: vp.float64):
    x = vp.global_id(0)
    y = vp.global_id(1)
    z = vp.global_id(2)
    i = (z * ny + y) * nx + x
    h_cell(ex, ey, ez, hx, hy, hz, i, x, y, z, nx, ny, nz, s)


@vp.kernel(local_size_x=LX, local_size_y=LY)
def update_e64(ex: vp.Buffer[vp.float64], ey: vp.Buffer[vp.float64], ez: vp.Buffer[vp.float64],
               hx: vp.Buffer[vp.float64], hy: vp.Buffer[vp.float64], hz: vp.Buffer[vp.float64],
               ce: vp.Buffer[vp.float64], nx: vp.uint32, ny: vp.uint32, nz: vp.uint32,
               s: vp.float64, material: vp.uint32, src: vp.uint32, n: vp.uint32,
               period: vp.uint32, amp: vp.float64):
    x = vp.global_id(0)
    y = vp.global_id(1)
    z = vp.global_id(2)
    i = (z * ny + y) * nx + x
    c = s
    if material != 0:
        c = ce[i]
    e_cell(ex, ey, ez, hx, hy, hz, i, x, y, z, nx, ny, nz, c)
    if i == src and amp != 0.0:
        ez[i] = ez[i] + drive64(n, period, amp)


# ------------------------------------------------------ persistent version
# The time loop on the GPU. Steering words: `period` (the source's period in
# steps), `pause` (non-zero: steps leave the fields alone and the clock
# stands). clock[t % 2] is the physical step n at loop step t (two words, so
# the one writer never races its readers). Every `every` loop steps (0:
# never; t > 0 a multiple of it, so that runs resumed at `first` keep the
# cadence) the H phase fires a frame: the z = zs plane of Ez and the payload
# (step n, energy W at n - 1/2, as the last running step's E phase reduced it
# into part[]). log[t - first] records what loop step t saw: period * 2 +
# (1 if it ran), so that a steered run can be replayed exactly.
@vp.kernel(persistent=True, local_size_x=LOCAL, control_words={"ctrl": ["period", "pause"]})
def run_persistent(ex: vp.Buffer[vp.float32], ey: vp.Buffer[vp.float32],
                   ez: vp.Buffer[vp.float32], hx: vp.Buffer[vp.float32],
                   hy: vp.Buffer[vp.float32], hz: vp.Buffer[vp.float32],
                   ce: vp.Buffer[vp.float32], clock: vp.Buffer[vp.uint32],
                   part: vp.Buffer[vp.float32], log: vp.Buffer[vp.uint32],
                   mag: vp.Buffer[vp.float32],
                   pipe: vp.MemSock[vp.float32], ctrl: vp.Control,
                   nx: vp.uint32, ny: vp.uint32, nz: vp.uint32, s: vp.float32,
                   material: vp.uint32, src: vp.uint32, amp: vp.float32, first: vp.uint32,
                   last: vp.uint32, every: vp.uint32, zs: vp.uint32, magon: vp.uint32):
    red = vp.Shared[vp.float32, LOCAL]
    lid = vp.local_index()
    for t in range(first, last):
        # -- H phase (and the frame of E at step n)
        hn = clock[t % 2]
        hrun = ctrl.pause == 0
        hz_cells = nz if hrun else 0
        for x, y, z in vp.grid_range(nx, ny, hz_cells):
            i = (z * ny + y) * nx + x
            h_cell(ex, ey, ez, hx, hy, hz, i, x, y, z, nx, ny, nz, s)
        if every != 0:
            if t > 0 and t % every == 0:
                w = 0.0
                for g in range(vp.num_workgroups()):
                    w += part[g]

                def frame(step: vp.uint32, energy: vp.float32):
                    for q in vp.grid_range(nx * ny):
                        pipe[q] = ez[zs * nx * ny + q]

                pipe.fire(frame, step=hn, energy=w)
                if magon != 0:
                    # |E| on the same plane into mag[] (lesson 11: shared host
                    # pages that other devices read), the cell's three components
                    for q in vp.grid_range(nx * ny):
                        j = zs * nx * ny + q
                        mag[q] = math.sqrt(ex[j] * ex[j] + ey[j] * ey[j] + ez[j] * ez[j])
        vp.grid_sync()
        # -- E phase, the source, the energy's partial sums, the clock
        en = clock[t % 2]
        erun = ctrl.pause == 0
        ez_cells = nz if erun else 0
        acc = 0.0
        for x, y, z in vp.grid_range(nx, ny, ez_cells):
            i = (z * ny + y) * nx + x
            c = s
            if material != 0:
                c = ce[i]
            ee = e_cell(ex, ey, ez, hx, hy, hz, i, x, y, z, nx, ny, nz, c)
            if i == src and amp != 0.0:
                ez[i] = ez[i] + drive(en, ctrl.period, amp)
            if every != 0:
                # W(n+1/2) = sum eps E(n).E(n+1) + |H(n+1/2)|^2 (eps = S / c)
                h_x = hx[i]
                h_y = hy[i]
                h_z = hz[i]
                we = 1.0 if material == 0 else s / c
                acc += we * ee + (h_x * h_x + h_y * h_y + h_z * h_z)
        if every != 0:
            if (t + 1) % every == 0 and erun:
                red[lid] = acc
                vp.barrier()
                k = vp.var(vp.uint32(LOCAL // 2))
                while k > 0:
                    if lid < k:
                        red[lid] = red[lid] + red[lid + k]
                    vp.barrier()
                    k[:] = k >> 1
                if lid == 0:
                    part[vp.workgroup_id()] = red[0]
        if vp.global_id(0) == 0:
            clock[(t + 1) % 2] = en + vp.uint32(1 if erun else 0)
            log[t - first] = ctrl.period * 2 + vp.uint32(1 if erun else 0)   # for replays
        vp.grid_sync()


# ------------------------------------------------------------------ NumPy
def numpy_step(f, s, ce=None, src=None, n=0, period=20, amp=0.0):
    """One step of the same update in NumPy on f = dict of the six (nz, ny,
    nx) arrays, in place; float32 in, float32 arithmetic in the kernels'
    order (float64 arrays give a float64 reference)."""
    ex, ey, ez, hx, hy, hz = (f[k] for k in ("ex", "ey", "ez", "hx", "hy", "hz"))
    s = ex.dtype.type(s)
    a = np.s_[:-1, :-1, :-1]
    e_x, e_y, e_z = ex[a], ey[a], ez[a]
    hx[a] = hx[a] - s * ((ez[:-1, 1:, :-1] - e_z) - (ey[1:, :-1, :-1] - e_y))
    hy[a] = hy[a] - s * ((ex[1:, :-1, :-1] - e_x) - (ez[:-1, :-1, 1:] - e_z))
    hz[a] = hz[a] - s * ((ey[:-1, :-1, 1:] - e_y) - (ex[:-1, 1:, :-1] - e_x))
    bx, by, bz = np.s_[1:-1, 1:-1, :-1], np.s_[1:-1, :-1, 1:-1], np.s_[:-1, 1:-1, 1:-1]
    cx, cy, cz = (s, s, s) if ce is None else (ce[bx], ce[by], ce[bz])
    ex[bx] = ex[bx] + cx * ((hz[bx] - hz[1:-1, :-2, :-1]) - (hy[bx] - hy[:-2, 1:-1, :-1]))
    ey[by] = ey[by] + cy * ((hx[by] - hx[:-2, :-1, 1:-1]) - (hz[by] - hz[1:-1, :-1, :-2]))
    ez[bz] = ez[bz] + cz * ((hy[bz] - hy[:-1, 1:-1, :-2]) - (hx[bz] - hx[:-1, :-2, 1:-1]))
    if src is not None and amp != 0.0:
        t = ex.dtype.type
        ph = t(n % period) / t(period)
        ez.flat[src] += t(amp) * np.sin(t(2 * math.pi) * ph)


ACTIVE = {"ex": np.s_[1:-1, 1:-1, :-1], "ey": np.s_[1:-1, :-1, 1:-1],
          "ez": np.s_[:-1, 1:-1, 1:-1], "hx": np.s_[:-1, :-1, :-1],
          "hy": np.s_[:-1, :-1, :-1], "hz": np.s_[:-1, :-1, :-1]}


def pec(f):
    """f with the values the update never writes set to zero: tangential E
    on the walls (the PEC condition) and the components past the box's far
    faces. A field given there would act as a fixed source on the wall."""
    out = {}
    for k, v in f.items():
        z = np.zeros_like(v)
        z[ACTIVE[k]] = v[ACTIVE[k]]
        out[k] = z
    return out


def curl_h(f, s):
    """H(n+1/2) - H(n-1/2) = -S curl E(n), in float64 (for the energy)."""
    g = {k: v.astype(np.float64) for k, v in f.items()}
    old = {k: g[k].copy() for k in ("hx", "hy", "hz")}
    ex, ey, ez = g["ex"], g["ey"], g["ez"]
    a = np.s_[:-1, :-1, :-1]
    new = {k: v.copy() for k, v in old.items()}
    new["hx"][a] -= s * ((ez[:-1, 1:, :-1] - ez[a]) - (ey[1:, :-1, :-1] - ey[a]))
    new["hy"][a] -= s * ((ex[1:, :-1, :-1] - ex[a]) - (ez[:-1, :-1, 1:] - ez[a]))
    new["hz"][a] -= s * ((ey[:-1, :-1, 1:] - ey[a]) - (ex[:-1, 1:, :-1] - ex[a]))
    return old, new


def energy(f, s, eps=None):
    """The Yee scheme's conserved energy at step n (float64), from E(n) and
    H(n-1/2) (f, as a step leaves them): sum eps |E(n)|^2 + sum H(n-1/2) .
    H(n+1/2), H(n+1/2) computed here. Exactly constant in exact arithmetic
    for a lossless PEC cavity (docs/fdtd.md)."""
    old, new = curl_h(f, s)
    e2 = sum(f[k].astype(np.float64) ** 2 for k in ("ex", "ey", "ez"))
    w = (e2 if eps is None else eps * e2).sum()
    return w + sum((old[k] * new[k]).sum() for k in old)


def energy_half(prev, cur, eps=None):
    """The dual invariant at n + 1/2 (float64): sum eps E(n) . E(n+1) +
    sum |H(n+1/2)|^2, from the fields before (prev) and after (cur) a step;
    what the persistent kernel streams as its payload's energy."""
    ee = sum(prev[k].astype(np.float64) * cur[k].astype(np.float64) for k in ("ex", "ey", "ez"))
    w = (ee if eps is None else eps * ee).sum()
    return w + sum((cur[k].astype(np.float64) ** 2).sum() for k in ("hx", "hy", "hz"))


def cavity_mode(n, m=(1, 2, 3), s=S_DEFAULT):
    """A discrete eigenmode of the Yee PEC cavity of n^3 cells: E(0) and
    H(-1/2) (float64 dicts) and omega dt from the discrete dispersion
    relation sin^2(w dt/2) = S^2 sum sin^2(k_i dx/2), k_i = m_i pi/(n-1).
    E is the sine/cosine standing wave with a polarization orthogonal to
    (sin k_x/2, sin k_y/2, sin k_z/2) (discretely divergence-free), and
    H(-1/2) = (S/2) curl E makes it a pure cos(n w dt) oscillation."""
    k = [mi * math.pi / (n - 1) for mi in m]
    sk = np.array([math.sin(ki / 2) for ki in k])
    pol = np.cross(sk, [0.3, -0.7, 0.5])
    pol /= np.linalg.norm(pol)
    idx = np.arange(n, dtype=np.float64)
    z, y, x = np.meshgrid(idx, idx, idx, indexing="ij")
    kx, ky, kz = k
    f = {"ex": pol[0] * np.cos(kx * (x + 0.5)) * np.sin(ky * y) * np.sin(kz * z),
         "ey": pol[1] * np.sin(kx * x) * np.cos(ky * (y + 0.5)) * np.sin(kz * z),
         "ez": pol[2] * np.sin(kx * x) * np.sin(ky * y) * np.cos(kz * (z + 0.5))}
    f["ex"][:, :, -1] = 0       # outside the box
    f["ey"][:, -1, :] = 0
    f["ez"][-1, :, :] = 0
    for key in ("hx", "hy", "hz"):
        f[key] = np.zeros((n, n, n))
    _, h = curl_h(f, -s / 2)    # H(-1/2) = 0 - (-S/2) curl E
    f.update(h)
    w = 2 * math.asin(s * math.sqrt((sk ** 2).sum()))
    return f, w


# --------------------------------------------------------------- the driver
FIELDS = ("ex", "ey", "ez", "hx", "hy", "hz")


class Sim:
    """Resident fields of an nx x ny x nz PEC box and the three versions'
    drivers. eps: None (vacuum) or an (nz, ny, nx) array of eps_r >= 1;
    dtype float32, or float64 where the device has it (stepped only)."""

    def __init__(self, nx, ny=None, nz=None, s=S_DEFAULT, eps=None, src=None, period=20,
                 amp=0.0, context=None, dtype=np.float32):
        ny, nz = ny or nx, nz or nx
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype= must be float32 or float64, got {self.dtype}")
        if not 0 < s <= S_MAX:
            raise ValueError(f"s= (the Courant number) must be in (0, 1/sqrt(3)], got {s}")
        self.nx, self.ny, self.nz, self.s = nx, ny, nz, float(s)
        self.shape = (nz, ny, nx)
        self.ctx = context or vp.default_context()
        if self.dtype == np.float64 and "float64" not in self.ctx.info.get("features", ()):
            raise vp.FeatureError(f"{self.ctx.name} has no float64 (shaderFloat64)")
        self.f = {k: vp.zeros(self.shape, self.dtype, context=self.ctx) for k in FIELDS}
        self.eps = None if eps is None else np.asarray(eps, np.float64)
        ce = np.full(1, s, self.dtype) if eps is None else (s / self.eps).astype(self.dtype)
        self.ce_host = None if eps is None else ce
        self.ce = vp.asarray(ce, context=self.ctx)
        self.src = (nz // 2 * ny + ny // 3) * nx + nx // 3 if src is None else int(src)
        self.period, self.amp = int(period), float(amp)
        self.n = 0                                  # the physical step
        self.clock = vp.zeros(2, np.uint32, context=self.ctx)
        self.part = None

    @property
    def cells(self):
        return self.nx * self.ny * self.nz

    def set(self, fields, n=0):
        """Loads fields (a dict of arrays; missing ones are zero) at step n,
        with the PEC condition applied (pec())."""
        full = {k: np.zeros(self.shape, self.dtype) if fields.get(k) is None else
                np.asarray(fields[k], self.dtype).reshape(self.shape) for k in FIELDS}
        for k, a in pec(full).items():
            self.f[k] = vp.asarray(np.ascontiguousarray(a), context=self.ctx)
        self.n = n
        self.clock = vp.asarray(np.array([n, n], np.uint32), context=self.ctx)

    def get(self):
        """The fields as NumPy arrays (waits for the GPU)."""
        return {k: v.numpy() for k, v in self.f.items()}

    def step(self, steps=1):
        """The stepped version: two dispatches a step, queued without waiting."""
        f = self.f
        nx, ny, nz = self.nx, self.ny, self.nz
        mat = 0 if self.eps is None else 1
        uh, ue = (update_h, update_e) if self.dtype == np.float32 else (update_h64, update_e64)
        for _ in range(steps):
            uh(f["ex"], f["ey"], f["ez"], f["hx"], f["hy"], f["hz"], dispatch=(nx, ny, nz),
                     nx=nx, ny=ny, nz=nz, s=self.s, sync=False)
            ue(f["ex"], f["ey"], f["ez"], f["hx"], f["hy"], f["hz"], self.ce,
                     dispatch=(nx, ny, nz), nx=nx, ny=ny, nz=nz, s=self.s, material=mat,
                     src=self.src, n=self.n, period=self.period, amp=self.amp, sync=False)
            self.n += 1
        return self

    def sync(self):
        self.ctx.synchronize()

    def memsock(self, capacity=8, policy="skip"):
        """A pipe for launch(): frames are (ny, nx) z-slices of Ez, payload
        (step, energy)."""
        pipe = vp.MemSock(dtype=vp.float32, frame_shape=(self.ny, self.nx),
                          payload={"step": vp.uint32, "energy": vp.float32})
        pipe.open(self.ctx, capacity=capacity, policy=policy)
        return pipe

    def launch(self, steps, ctrl=None, pipe=None, every=0, zs=None, first=0, sync=True,
               groups=None, mode="persistent", timeout=None, mag=None):
        """The persistent version: loop steps [first, first + steps) in one
        dispatch. ctrl: a vp.ControlBuffer(["period", "pause"]) (made with
        this Sim's period when None); pipe: a MemSock from memsock() (a dummy
        one when None), fed every `every` steps. Returns the PersistentHandle
        (sync=False) or None; self.n follows the GPU's clock after a wait.
        timeout: with sync, seconds before the run is aborted and
        vp.TimeoutError raised. mag: an (ny, nx) float32 array (e.g. a
        vp.HostArray's, lesson 11) that each frame also writes |E| of the
        slice into."""
        if self.dtype != np.float32:
            raise NotImplementedError("the persistent version is float32 only (the stepped "
                                      "one has float64)")
        if ctrl is None:
            ctrl = vp.ControlBuffer(["period", "pause"], context=self.ctx)
            ctrl["period"] = self.period
        if pipe is None:
            pipe, every = self._dummy_pipe(), 0
        if self.part is None:
            self.part = vp.zeros(1 << 16, np.float32, context=self.ctx)
        f = self.f
        zs = self.nz // 2 if zs is None else zs
        # the clock words: step t reads word t % 2, so both start at self.n
        self.clock = vp.asarray(np.array([self.n, self.n], np.uint32), context=self.ctx)
        self.log = vp.zeros(max(1, steps), np.uint32, context=self.ctx)
        if mag is not None and (mag.size != self.nx * self.ny or mag.dtype != np.float32):
            raise ValueError(f"mag= must be {self.ny} x {self.nx} float32, got "
                             f"{mag.shape} {mag.dtype}")
        magon = 0 if mag is None else 1
        if mag is None:                     # bound, never written
            if getattr(self, "_mag_dummy", None) is None:
                self._mag_dummy = vp.zeros(1, np.float32, context=self.ctx)
            mag = self._mag_dummy
        h = run_persistent(f["ex"], f["ey"], f["ez"], f["hx"], f["hy"], f["hz"], self.ce,
                           self.clock, self.part, self.log, mag, pipe, ctrl, nx=self.nx,
                           ny=self.ny, nz=self.nz,
                           s=self.s, material=0 if self.eps is None else 1, src=self.src,
                           amp=self.amp, first=first, last=first + steps, every=every, zs=zs,
                           magon=magon, sync=False, groups=groups, mode=mode)
        if sync:
            try:
                h.wait(timeout)
            except vp.TimeoutError:
                h.abort()
                try:
                    h.wait(10)
                except Exception:  # noqa: BLE001 - aborted: PersistentError, or stuck
                    pass
                raise
            self.n = int(self.clock.numpy()[(first + steps) % 2])
            return None
        return h

    def finish(self, h, first=0):
        """Waits for a launch(sync=False) handle and moves self.n to the
        GPU's clock (where a stopped run left it)."""
        h.wait()
        self.n = int(self.clock.numpy()[(first + h.steps) % 2])
        return self

    @property
    def eps_eff(self):
        """eps_r as the update sees it (S / the float32 coefficient), float64."""
        return None if self.eps is None else self.s / self.ce_host.astype(np.float64)

    def _dummy_pipe(self):
        if getattr(self, "_dummy", None) is None:
            self._dummy = vp.MemSock(dtype=vp.float32, frame_shape=(1,),
                                     payload={"step": vp.uint32, "energy": vp.float32})
            self._dummy.open(self.ctx, capacity=1, policy="skip")
        return self._dummy

    def chunk(self):
        """Steps one persistent launch may run here: lavapipe stops every loop
        of an invocation after 65,535 back-edges in all (docs/persistent.md),
        and it runs one group, so a step costs two grid-stride passes."""
        if self.ctx.info.get("driver_name") != "llvmpipe":
            return 1 << 30
        per_step = 2 * -(-self.cells // LOCAL) + -(-(self.nx * self.ny) // LOCAL) + 16
        return max(1, 50_000 // per_step)


def numpy_run(fields, steps, s, ce=None, src=None, n0=0, period=20, amp=0.0, dtype=np.float32):
    """`steps` steps of numpy_step from `fields` (copied, pec() applied)."""
    f = pec({k: np.array(v, dtype) for k, v in fields.items()})
    for n in range(n0, n0 + steps):
        numpy_step(f, s, ce, src, n, period, amp)
    return f


def sphere(n, radius, eps_r):
    """eps_r inside a sphere at the box's centre, 1 elsewhere."""
    idx = np.arange(n) - (n - 1) / 2
    z, y, x = np.meshgrid(idx, idx, idx, indexing="ij")
    return np.where(x * x + y * y + z * z <= radius * radius, eps_r, 1.0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=32, help="cells per side")
    ap.add_argument("--steps", type=int, default=100, help="time steps")
    ap.add_argument("--every", type=int, default=10, help="stream a frame every N steps")
    ap.add_argument("--eps", type=float, default=4.0, help="the sphere's eps_r")
    ap.add_argument("--period", type=int, default=20, help="the source's period in steps")
    ap.add_argument("--no-numpy", action="store_true", help="skip the NumPy comparison")
    ap.add_argument("--png", help="write a picture of the streamed slice and energy here")
    args = ap.parse_args(argv)
    n, steps = args.size, args.steps
    eps = sphere(n, n / 6, args.eps)
    kw = dict(s=S_DEFAULT, eps=eps, period=args.period, amp=1.0)
    ctx = vp.default_context()
    print(f"device: {ctx.name}; {n}^3 cells, {steps} steps, S = {S_DEFAULT}, sphere eps_r = {args.eps}")

    a = Sim(n, **kw)
    a.step()                             # compile, warm up
    a = Sim(n, **kw)
    t0 = time.perf_counter()
    a.step(steps)
    a.sync()
    dt = time.perf_counter() - t0
    ga = a.get()
    print(f"stepped:    {dt / steps * 1e6:9.0f} us/step, {a.cells * steps / dt / 1e9:.3f} Gcells/s")

    b = Sim(n, **kw)
    b.launch(1)                          # compile, warm up
    b = Sim(n, **kw)
    pipe = b.memsock(capacity=max(1, steps // max(args.every, 1)) + 1)
    ctrl = vp.ControlBuffer(["period", "pause"])
    ctrl["period"] = args.period
    got = []
    t0 = time.perf_counter()
    done, chunk = 0, b.chunk()
    while done < steps:
        k = min(chunk, steps - done)
        b.launch(k, ctrl=ctrl, pipe=pipe, every=args.every, first=done)
        done += k
        while True:
            try:
                fr, pl = pipe.next(timeout=0)
            except Exception:
                break
            got.append((pl.step, pl.energy, float(np.abs(fr).max())))
            last = (fr.copy(), pl.step)
    dt = time.perf_counter() - t0
    gb = b.get()
    pipe.close()
    print(f"persistent: {dt / steps * 1e6:9.0f} us/step, {b.cells * steps / dt / 1e9:.3f} Gcells/s "
          f"({len(got)} frames streamed)")
    for st, w, m in got[:3]:
        print(f"  frame: step {st}, energy {w:.6g}, max |Ez| in the slice {m:.4g}")
    peak = max(np.abs(ga["ez"]).max(), 1e-30)
    d = max(np.abs(ga[k] - gb[k]).max() for k in FIELDS) / peak
    print(f"stepped vs persistent: max difference {d:.1e} of the peak")
    assert d < 1e-5, d
    if not args.no_numpy:
        c = numpy_run({k: np.zeros((n, n, n), np.float32) for k in FIELDS}, steps, S_DEFAULT,
                      a.ce_host.reshape(n, n, n), a.src, 0, args.period, 1.0)
        d = max(np.abs(ga[k] - c[k]).max() for k in FIELDS) / peak
        print(f"stepped vs NumPy: max difference {d:.1e} of the peak")
        assert d < 1e-4, d
    if args.png and got:
        plot(args.png, last[0], last[1], got, eps[n // 2], args.eps)
    print("fdtd3d: OK")


PLOT = """
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
d = np.load(sys.argv[1])
fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2), dpi=100,
                           gridspec_kw={"width_ratios": [1, 1.2]})
u = d["frame"]; m = np.percentile(np.abs(u), 99.5)   # the source cell's near field would swamp the rest
im = a.imshow(u, cmap="RdBu_r", vmin=-m, vmax=m, origin="lower")
a.contour(d["eps"], levels=[1.5], colors="k", linewidths=0.8)
a.set_title(f"Ez, z = n/2, step {int(d['step'])}, streamed live; sphere eps_r = {float(d['er']):g}",
            fontsize=9)
a.set_xlabel("x (cells)"); a.set_ylabel("y (cells)")
fig.colorbar(im, ax=a, shrink=0.85)
b.plot(d["steps"], d["energy"], ".-")
b.set_xlabel("step"); b.set_ylabel("energy W (payload)")
b.set_title(f"energy W in each frame's payload: the source pumps it in", fontsize=9)
fig.tight_layout(); fig.savefig(sys.argv[2])
"""


def plot(png, frame, step, got, eps_slice, er):
    """The last streamed slice (the sphere outlined) and the energies of
    every frame, drawn by matplotlib (Debian's /usr/bin/python3 with
    python3-matplotlib when this Python has none, as lesson 8 does)."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    tmp = tempfile.mkdtemp()
    try:
        npz = os.path.join(tmp, "frame.npz")
        np.savez(npz, frame=frame, step=step, eps=eps_slice, er=er,
                 steps=[g[0] for g in got], energy=[g[1] for g in got])
        try:
            import matplotlib  # noqa: F401
            py = sys.executable
        except ImportError:
            py = "/usr/bin/python3"
        subprocess.run([py, "-c", PLOT, npz, png], check=True)
        print("wrote", png)
    finally:
        shutil.rmtree(tmp, True)


if __name__ == "__main__":
    main()
