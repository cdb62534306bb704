# frontend_300.vul.py - a ~300-line kernel for the frontend-time figure
# (bench/bench_frontend.py): particle dynamics with neighbour search in a
# uniform grid, helpers, structs, shared memory, loops and atomics. It is
# written the way a user writes a .vul.py file, comments and blank lines
# included, and it must compile (the benchmark checks).
import vulpy as vp

GRID = 32
CELLS = GRID * GRID * GRID
MAX_PER_CELL = 16
TILE = 64
H = 0.0625
H2 = H * H
REST_DENSITY = 1000.0
STIFFNESS = 3.0
VISCOSITY = 0.018
GRAVITY = -9.81
EPS = 1e-6
PI = 3.141592653589793


class Particle:
    pos: vp.vec4
    vel: vp.vec4
    force: vp.vec4
    density: vp.float32
    pressure: vp.float32
    cell: vp.uint32
    flags: vp.uint32


class Stats:
    max_speed: vp.uint32  # float bits: for speeds >= 0 the integer order is the float order
    kinetic: vp.float32
    collisions: vp.uint32
    escaped: vp.uint32


class PushConstants:
    n: vp.uint32
    dt: vp.float32
    mass: vp.float32
    bounds: vp.vec4
    frame: vp.uint32


def poly6(r2: vp.float32) -> vp.float32:
    """The density kernel W(r) for r^2 < h^2."""
    if r2 >= H2:
        return 0.0
    d = H2 - r2
    return 315.0 / (64.0 * PI * H ** 9) * d * d * d


def spiky_grad(r: vp.float32) -> vp.float32:
    if r >= H or r <= EPS:
        return 0.0
    d = H - r
    return -45.0 / (PI * H ** 6) * d * d


def visc_lap(r: vp.float32) -> vp.float32:
    if r >= H:
        return 0.0
    return 45.0 / (PI * H ** 6) * (H - r)


def cell_coord(p: vp.vec3) -> vp.ivec3:
    c = vp.ivec3(vp.floor(p / H))
    return vp.clamp(c, 0, GRID - 1)


def cell_index(c: vp.ivec3) -> vp.uint32:
    return vp.uint32(c.x + GRID * (c.y + GRID * c.z))


def hash_cell(c: vp.ivec3) -> vp.uint32:
    h = vp.uint32(c.x) * 73856093
    h ^= vp.uint32(c.y) * 19349663
    h ^= vp.uint32(c.z) * 83492791
    return h % CELLS


def speed2(v: vp.vec3) -> vp.float32:
    return vp.dot(v, v)


def reflect_axis(x, v, lo, hi, damping: vp.float32):
    """Keeps one coordinate inside [lo, hi], reflecting the velocity."""
    nx = vp.var(x)
    nv = vp.var(v)
    if nx < lo:
        nx = lo + (lo - nx) * damping
        nv = -nv * damping
    elif nx > hi:
        nx = hi - (nx - hi) * damping
        nv = -nv * damping
    return vp.vec2(nx, nv)


def pressure_of(density: vp.float32) -> vp.float32:
    return vp.max(STIFFNESS * (density - REST_DENSITY), 0.0)


def sphere_push(p: vp.vec3, center: vp.vec3, radius: vp.float32) -> vp.vec4:
    """How far p is inside a sphere (w) and the way out (xyz)."""
    d = p - center
    dist = vp.length(d)
    if dist >= radius or dist <= EPS:
        return vp.vec4(0.0)
    return vp.vec4(d / dist, radius - dist)


def obstacle(k: vp.int32) -> vp.vec4:
    """Sphere k of a fixed row of obstacles: center xyz, radius w."""
    x = 0.25 + 0.125 * vp.float32(k)
    y = 0.2 + 0.05 * vp.float32(k % 3)
    return vp.vec4(x, y, 0.5, 0.06 + 0.01 * vp.float32(k % 2))


def swirl(p: vp.vec3, strength: vp.float32) -> vp.vec3:
    """A gentle vortex around the box's vertical axis."""
    r = p - vp.vec3(0.5, p.y, 0.5)
    dist2 = vp.dot(r, r) + EPS
    tangent = vp.vec3(-r.z, 0.0, r.x)
    falloff = vp.exp(-dist2 * 8.0)
    return tangent * (strength * falloff / vp.sqrt(dist2))


def tonemap(x: vp.float32) -> vp.float32:
    a = 2.51
    b = 0.03
    c = 2.43
    d = 0.59
    e = 0.14
    return vp.clamp((x * (a * x + b)) / (x * (c * x + d) + e), 0.0, 1.0)


def main(parts: vp.Buffer[Particle],
         cell_count: vp.Buffer[vp.uint32],
         cell_items: vp.Buffer[vp.uint32],
         stats: vp.Buffer[Stats],
         colors: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    lid = vp.local_index()
    if i >= pc.n:
        return

    # ---- load this particle -------------------------------------------
    me = parts[i]
    pos = vp.var(me.pos.xyz)
    vel = vp.var(me.vel.xyz)
    home = cell_coord(pos)

    # ---- density from the 27 neighbour cells ----------------------------
    density = vp.var(0.0)
    for dz in range(-1, 2):
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                c = home + vp.ivec3(dx, dy, dz)
                if c.x < 0 or c.y < 0 or c.z < 0:
                    continue
                if c.x >= GRID or c.y >= GRID or c.z >= GRID:
                    continue
                cell = cell_index(c)
                count = vp.min(cell_count[cell], MAX_PER_CELL)
                for k in range(count):
                    j = cell_items[cell * MAX_PER_CELL + k]
                    d = parts[j].pos.xyz - pos
                    r2 = vp.dot(d, d)
                    density += pc.mass * poly6(r2)
    density = vp.max(density, REST_DENSITY * 0.01)
    pressure = pressure_of(density)

    # ---- forces: pressure and viscosity ---------------------------------
    force = vp.var(vp.vec3(0.0, GRAVITY * density, 0.0))
    near = vp.var(vp.uint32(0))
    for dz in range(-1, 2):
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                c = home + vp.ivec3(dx, dy, dz)
                inside = vp.all(c >= vp.ivec3(0)) and vp.all(c < vp.ivec3(GRID))
                if not inside:
                    continue
                cell = cell_index(c)
                count = vp.min(cell_count[cell], MAX_PER_CELL)
                for k in range(count):
                    j = cell_items[cell * MAX_PER_CELL + k]
                    if j == i:
                        continue
                    other = parts[j]
                    d = pos - other.pos.xyz
                    r = vp.length(d)
                    if r >= H:
                        continue
                    near += 1
                    dir = d / vp.max(r, EPS)
                    pj = other.pressure
                    rho_j = vp.max(other.density, EPS)
                    shared_p = (pressure + pj) / (2.0 * rho_j)
                    force -= dir * (pc.mass * shared_p * spiky_grad(r))
                    dv = other.vel.xyz - vel
                    force += dv * (VISCOSITY * pc.mass / rho_j * visc_lap(r))

    # ---- an external swirl, stronger in the first frames -----------------
    ramp = vp.min(vp.float32(pc.frame) / 120.0, 1.0)
    force += swirl(pos, 0.8 * ramp) * density

    # ---- integrate (semi-implicit Euler) --------------------------------
    acc = force / density
    vel += acc * pc.dt
    speed = vp.sqrt(speed2(vel))
    limit = 0.5 * H / pc.dt
    if speed > limit:
        vel *= limit / speed
        speed = limit
    pos += vel * pc.dt

    # ---- boundaries: reflect on each axis --------------------------------
    lo = pc.bounds.xyz * 0.0
    hi = vp.vec3(pc.bounds.x, pc.bounds.y, pc.bounds.z)
    hit = vp.var(False)
    rx = reflect_axis(pos.x, vel.x, lo.x, hi.x, 0.5)
    ry = reflect_axis(pos.y, vel.y, lo.y, hi.y, 0.5)
    rz = reflect_axis(pos.z, vel.z, lo.z, hi.z, 0.5)
    if rx.x != pos.x or ry.x != pos.y or rz.x != pos.z:
        hit = True
    pos = vp.vec3(rx.x, ry.x, rz.x)
    vel = vp.vec3(rx.y, ry.y, rz.y)

    # ---- obstacles: push particles out of a row of spheres ------------------
    pushed = vp.var(0)
    for k in range(5):
        s = obstacle(k)
        out = sphere_push(pos, s.xyz, s.w)
        if out.w > 0.0:
            pos += out.xyz * out.w
            vn = vp.dot(vel, out.xyz)
            if vn < 0.0:
                vel -= out.xyz * (1.5 * vn)
            pushed += 1
    if pushed > 0:
        hit = True

    escaped = vp.any(vp.isnan(pos)) or vp.any(vp.isinf(pos))
    if escaped:
        pos = vp.clamp(me.pos.xyz, lo, hi)
        vel = vp.vec3(0.0)

    # ---- statistics through shared memory, one atomic per workgroup ------
    best = vp.Shared[vp.float32, TILE]
    energy = vp.Shared[vp.float32, TILE]
    best[lid] = speed
    energy[lid] = 0.5 * pc.mass * speed * speed
    vp.barrier()
    stride = vp.var(vp.uint32(TILE // 2))
    while stride > 0:
        if lid < stride:
            best[lid] = vp.max(best[lid], best[lid + stride])
            energy[lid] = energy[lid] + energy[lid + stride]
        vp.barrier()
        stride //= 2
    if lid == 0:
        vp.atomic_max(stats[0].max_speed, vp.bitcast(best[0], vp.uint32))
        vp.atomic_add(stats[0].kinetic, energy[0])
    if hit:
        vp.atomic_add(stats[0].collisions, 1)
    if escaped:
        vp.atomic_add(stats[0].escaped, 1)

    # ---- write back ---------------------------------------------------
    new_cell = cell_coord(pos)
    parts[i].pos = vp.vec4(pos, me.pos.w)
    parts[i].vel = vp.vec4(vel, 0.0)
    parts[i].force = vp.vec4(force, vp.float32(near))
    parts[i].density = density
    parts[i].pressure = pressure
    parts[i].cell = hash_cell(new_cell)
    flags = vp.var(me.flags & 0xFFFF0000)
    if hit:
        flags |= 1
    if escaped:
        flags |= 2
    if near == 0:
        flags |= 4
    flags |= (pc.frame & 0xFF) << 8
    parts[i].flags = flags

    # ---- a color for the viewer ---------------------------------------
    t = tonemap(speed / limit)
    cold = vp.vec3(0.1, 0.3, 0.9)
    warm = vp.vec3(1.0, 0.4, 0.1)
    rgb = vp.mix(cold, warm, t)
    if hit:
        rgb = vp.mix(rgb, vp.vec3(1.0), 0.5)
    shade = vp.clamp(density / (2.0 * REST_DENSITY), 0.2, 1.0)
    colors[i] = vp.vec4(rgb * shade, 1.0)
