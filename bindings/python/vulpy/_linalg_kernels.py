"""The device kernel of vp.linalg.solve / inv / det / slogdet (linalg.py),
in VulPy's own kernel language: LU factorization with partial pivoting,
one workgroup per matrix of a batch, generic over float32 / float64 (the
buffers `a`, `b`, `d` take the call's dtype: one compile per dtype).

Workgroup z owns matrix z: a[z] (n x n, row-major, a working copy the
kernel overwrites with the multipliers and U) and b[z] (n x nrhs, the
right-hand sides, overwritten with the solution; nrhs = 0 for det). For
each column k, with a barrier between the phases:
  pivot     argmax |a[i, k]| over i >= k, ties to the lowest i (LAPACK's
            i?amax): each invocation scans rows k + lid, k + lid + L, ...,
            then a tree reduction of the candidates' row indices in shared
            memory (the values are read again from a, so the shared array
            is uint32 whatever the dtype)
  swap      rows k and p of a (columns >= k: the multipliers left of k are
            not needed again) and of b
  scale     the multipliers a[i, k] /= a[k, k], i > k
  update    a[i, j] -= a[i, k] * a[k, j] over the (i, j) pairs of the
            trailing block and of b's rows below k (forward substitution
            rides along with the elimination)
An exactly zero pivot (the whole column below is zero) skips scale and
update, as LAPACK's getf2 does, and marks the matrix singular: sing[0] = 1
(any matrix of the batch) and s[z] = 0. Then, for nrhs > 0, back
substitution with U, row by row from the last: x[i, :] = b[i, :] / u[i, i],
then b[r, :] -= u[r, i] * x[i, :] for r < i (parallel over (r, column)).
Outputs: d[z, i] = u[i, i] and s[z] = the sign of det (the permutation's
parity times the signs of the u[i, i]; 0 when singular), from which the
host computes det and slogdet.

Loops: an invocation runs about sum_k ((n-k) * (2n-k) / L) back-edges for
inv (n = 64: about 2,300), below lavapipe's 65,535 up to n = 228 for inv,
357 for solve with one right-hand side (docs/language.md, "Long loops on
lavapipe"); backedges() below counts them and the host refuses larger
calls on such a device (GPUs have no such limit).
Every phase writes global memory that other invocations of the group read
next, hence memory_barrier() (buffer visibility) before each barrier().
"""
import vulpy as vp

L = 256  # invocations per workgroup: one matrix


@vp.kernel(local_size_x=L)
def lu(a: vp.Buffer, b: vp.Buffer, d: vp.Buffer, s: vp.Buffer[vp.int32],
       sing: vp.Buffer[vp.uint32], n: vp.uint32, nrhs: vp.uint32, count: vp.uint32,
       gx: vp.uint32):
    piv = vp.Shared[vp.uint32, L]
    lid = vp.local_index()
    z = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    if z >= count:  # the grid's last row of groups overhangs: whole groups leave
        return
    A = z * n * n
    B = z * n * nrhs
    sg = 1  # the sign of det, the same in every invocation
    for k in range(n):
        # pivot: this invocation's best row (row k is every invocation's
        # first candidate: it is the lowest index, so ties stay with it)
        best = k
        bv = abs(a[A + k * n + k])
        for i in range(k + lid, n, L):
            v = abs(a[A + i * n + k])
            if v > bv:
                best = i
                bv = v
        piv[lid] = best
        vp.barrier()
        for h in vp.static((128, 64, 32, 16, 8, 4, 2, 1)):
            if lid < h:  # reads piv[h .. 2h), writes piv[0 .. h): no race
                o = piv[lid + h]
                ov = abs(a[A + o * n + k])
                if ov > bv or (ov == bv and o < best):
                    best = o
                    bv = ov
                piv[lid] = best
            vp.barrier()
        p = piv[0]
        if p != k:
            sg = -sg
            for j in range(k + lid, n, L):
                t = a[A + k * n + j]
                a[A + k * n + j] = a[A + p * n + j]
                a[A + p * n + j] = t
            for j in range(lid, nrhs, L):
                t = b[B + k * nrhs + j]
                b[B + k * nrhs + j] = b[B + p * nrhs + j]
                b[B + p * nrhs + j] = t
        vp.memory_barrier()
        vp.barrier()
        pv = a[A + k * n + k]
        if pv < 0:
            sg = -sg
        if pv == 0:
            sg = 0
            if lid == 0:
                sing[0] = vp.uint32(1)
        else:
            for i in range(k + 1 + lid, n, L):
                a[A + i * n + k] = a[A + i * n + k] / pv
        vp.memory_barrier()
        vp.barrier()
        if pv != 0:
            m = n - k - 1  # trailing columns of a, then the nrhs of b
            w = m + nrhs
            for q in range(lid, m * w, L):
                r = q // w
                c = q - r * w
                i = k + 1 + r
                if c < m:
                    a[A + i * n + k + 1 + c] -= a[A + i * n + k] * a[A + k * n + k + 1 + c]
                else:
                    c -= m
                    b[B + i * nrhs + c] -= a[A + i * n + k] * b[B + k * nrhs + c]
        vp.memory_barrier()
        vp.barrier()
    for e in range(lid, n, L):
        d[z * n + e] = a[A + e * n + e]
    if lid == 0:
        s[z] = sg
    if nrhs > 0:
        for kk in range(n):
            u = n - 1 - kk
            for j in range(lid, nrhs, L):
                b[B + u * nrhs + j] = b[B + u * nrhs + j] / a[A + u * n + u]
            vp.memory_barrier()
            vp.barrier()
            for q in range(lid, u * nrhs, L):
                r = q // nrhs
                c = q - r * nrhs
                b[B + r * nrhs + c] -= a[A + r * n + u] * b[B + u * nrhs + c]
            vp.memory_barrier()
            vp.barrier()


def backedges(n, nrhs):
    """The most loop back-edges one invocation of lu takes, as llvmpipe
    counts them (a loop of t trips costs t + 1: its exit test too; every
    swap loop counted): the host refuses a call above a device's
    max_loop_iterations, where lavapipe would end the loops silently with
    a wrong answer. Measured there: a 358 x 358 solve (one right-hand
    side) came out right and 360 wrong, inv 228 right and 230 wrong; this
    count allows 357 and 228, so it errs on the safe side."""
    def loop(count):  # a range(lid, count, L) loop at its longest, and its exit
        return -(-count // L) + 1
    total = loop(n) + n + 1  # d's diagonal; the loop over k
    for k in range(n):
        m = n - k - 1
        total += loop(n - k) + loop(n - k) + loop(nrhs) + loop(m) + loop(m * (m + nrhs))
    if nrhs:
        total += n + 1 + sum(loop(nrhs) + loop(u * nrhs) for u in range(n))
    return total


@vp.kernel(local_size_x=L)
def cholesky(a: vp.Buffer, bad: vp.Buffer[vp.uint32], n: vp.uint32, count: vp.uint32,
             gx: vp.uint32):
    """Cholesky (vp.linalg.cholesky), right-looking and unblocked: matrix z
    of the batch (row-major n x n, a working copy) is overwritten with L
    (lower triangle; the upper one is zeroed at the end). Only the lower
    triangle of the input is read, as LAPACK's potrf (uplo 'L'). For each
    column k: every invocation reads the pivot d = a[k, k] (barrier), then
    a[k, k] = sqrt(d) and a[i, k] /= sqrt(d) below it (barrier), then the
    trailing lower triangle a[i, j] -= a[i, k] * a[j, k], k < j <= i
    (barrier). A pivot <= 0 means the matrix is not positive definite:
    bad[0] = 1 (the host raises LinAlgError, as
    NumPy's); the loop goes on with garbage nobody reads."""
    lid = vp.local_index()
    z = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    if z >= count:
        return
    A = z * n * n
    for k in range(n):
        d = a[A + k * n + k]
        if d <= 0:  # (a NaN pivot goes on as NaN: NumPy's potrf does not raise)
            if lid == 0:
                bad[0] = vp.uint32(1)
        r = vp.sqrt(d)
        vp.memory_barrier()
        vp.barrier()  # every invocation has read d before it changes
        if lid == 0:
            a[A + k * n + k] = r
        for i in range(k + 1 + lid, n, L):
            a[A + i * n + k] = a[A + i * n + k] / r
        vp.memory_barrier()
        vp.barrier()
        m = n - k - 1
        for q in range(lid, m * m, L):
            i = q // m
            j = q - i * m
            if j <= i:
                a[A + (k + 1 + i) * n + k + 1 + j] -= a[A + (k + 1 + i) * n + k] * \
                    a[A + (k + 1 + j) * n + k]
        vp.memory_barrier()
        vp.barrier()
    for q in range(lid, n * n, L):
        i = q // n
        if q - i * n > i:
            a[A + q] = a[A + q] * 0  # (a of the call's dtype: a typed zero)


def cholesky_backedges(n):
    """The most loop back-edges one invocation of cholesky takes (counted
    as backedges() counts lu's): the host refuses a call above a device's
    max_loop_iterations."""
    def loop(count):
        return -(-count // L) + 1
    total = n + 1 + loop(n * n)
    for k in range(n):
        m = n - k - 1
        total += loop(m) + loop(m * m)
    return total


@vp.kernel(local_size_x=L)
def jacobi_svd(u: vp.Buffer, v: vp.Buffer, s: vp.Buffer, w: vp.Buffer,
               flags: vp.Buffer[vp.uint32], m: vp.uint32, n: vp.uint32, wantv: vp.uint32,
               sweeps: vp.uint32, count: vp.uint32, gx: vp.uint32, tol: vp.Scalar):
    """One-sided Jacobi SVD (Hestenes; vp.linalg.svdvals, pinv, lstsq,
    matrix_rank, cond, norm's 2 / nuc): matrix z of the batch (m x n,
    m >= n, row-major, a working copy scaled by the host to max |a| = 1)
    has its columns rotated pairwise until every pair is orthogonal to
    `tol` (|u_p . u_q| <= tol * |u_p| |u_q|) or holds a column of norm
    below tol (the noise of a zero singular value); then s[z, j] = |u_j| are the
    singular values (unsorted) and u_j / s_j the left singular vectors;
    with wantv, v (n x n, from I) gathers the rotations: the right ones.
    Pairs (p, q) in cyclic order, one after another; for each, the
    workgroup's invocations split the m rows: partial sums of u_p.u_p,
    u_q.u_q, u_p.u_q, a tree reduction in w (scratch, 3 L elements a
    matrix, the call's dtype), then the rotation of the rows in parallel.
    Every invocation reads the same reduced sums, so the branch on them is
    uniform. A sweep that rotates nothing ends the iteration; after
    `sweeps` sweeps without that, flags[0] = 1; a NaN singular value (NaN
    or inf input) sets flags[0] = 2 (the host raises for either)."""
    lid = vp.local_index()
    z = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    if z >= count:
        return
    U = z * m * n
    V = z * n * n
    W = z * 3 * L
    zero = tol - tol
    one = zero + 1
    if wantv != 0:
        for q in range(lid, n * n, L):
            if q // n == q - (q // n) * n:
                v[V + q] = one
            else:
                v[V + q] = zero
    vp.memory_barrier()
    vp.barrier()
    done = 0
    for sw in range(sweeps):
        rot = 0
        for p in range(n):
            for q in range(p + 1, n):
                sa = zero
                sb = zero
                sg = zero
                for i in range(lid, m, L):
                    up = u[U + i * n + p]
                    uq = u[U + i * n + q]
                    sa += up * up
                    sb += uq * uq
                    sg += up * uq
                w[W + lid] = sa
                w[W + L + lid] = sb
                w[W + 2 * L + lid] = sg
                vp.memory_barrier()
                vp.barrier()
                for h in vp.static((128, 64, 32, 16, 8, 4, 2, 1)):
                    if lid < h:
                        w[W + lid] += w[W + lid + h]
                        w[W + L + lid] += w[W + L + lid + h]
                        w[W + 2 * L + lid] += w[W + 2 * L + lid + h]
                    vp.memory_barrier()
                    vp.barrier()
                alpha = w[W]
                beta = w[W + L]
                gamma = w[W + 2 * L]
                vp.memory_barrier()
                vp.barrier()  # every invocation has read the sums before the next pair's
                # a column of norm below tol (the matrix is scaled to max
                # |a| = 1) is rounding noise of a zero singular value: its
                # pair needs no rotation (rotating it would go on for ever)
                if abs(gamma) > tol * vp.sqrt(alpha) * vp.sqrt(beta) and \
                        alpha > tol * tol and beta > tol * tol:
                    rot = 1
                    zeta = (beta - alpha) / (gamma + gamma)
                    az = abs(zeta)
                    t = one / (az + vp.sqrt(one + zeta * zeta))
                    if az > 1e8:  # zeta * zeta would overflow: t ~ 1 / (2 |zeta|)
                        t = 0.5 / az
                    if zeta < 0:
                        t = -t
                    c = one / vp.sqrt(one + t * t)
                    sn = c * t
                    for i in range(lid, m, L):
                        up = u[U + i * n + p]
                        uq = u[U + i * n + q]
                        u[U + i * n + p] = c * up - sn * uq
                        u[U + i * n + q] = sn * up + c * uq
                    if wantv != 0:
                        for i in range(lid, n, L):
                            vpp = v[V + i * n + p]
                            vqq = v[V + i * n + q]
                            v[V + i * n + p] = c * vpp - sn * vqq
                            v[V + i * n + q] = sn * vpp + c * vqq
                    vp.memory_barrier()
                    vp.barrier()
        if rot == 0:
            done = 1
            break
    if done == 0 and lid == 0:
        flags[0] = vp.uint32(1)
    for j in range(lid, n, L):
        acc = zero
        for i in range(m):
            x = u[U + i * n + j]
            acc += x * x
        s[z * n + j] = vp.sqrt(acc)
        if not acc == acc:  # NaN (or inf) input: NumPy's "SVD did not converge"
            flags[0] = vp.uint32(2)


def svd_backedges(m, n, wantv, sweeps):
    """The most loop back-edges one invocation of jacobi_svd takes in
    `sweeps` sweeps (counted as backedges() counts lu's): the host lets a
    device with max_loop_iterations run only as many sweeps as fit."""
    def loop(count):
        return -(-count // L) + 1
    pairs = n * (n - 1) // 2
    per_pair = loop(m) + loop(m) + (loop(n) if wantv else 0)
    per_sweep = pairs * per_pair + pairs + n + 1 + 1
    return (loop(n * n) if wantv else 0) + sweeps * per_sweep + sweeps + 1 + \
        loop(n) * (m + 1)


@vp.kernel(local_size_x=L)
def jacobi_eigh(a: vp.Buffer, v: vp.Buffer, flags: vp.Buffer[vp.uint32], n: vp.uint32,
                wantv: vp.uint32, sweeps: vp.uint32, count: vp.uint32, gx: vp.uint32,
                tol: vp.Scalar, floor: vp.Scalar):
    """Cyclic two-sided Jacobi for symmetric matrices (vp.linalg.eigh,
    eigvalsh): matrix z of the batch (n x n, symmetric, row-major, a
    working copy scaled by the host to max |a| = 1) is rotated pair by pair,
    A <- J^T A J, until every off-diagonal a[p, q] is at most
    tol * max(sqrt(|a[p, p] a[q, q]|), floor); its diagonal is then the
    eigenvalues (unsorted) and, with wantv, v (from I, v <- v J) the
    eigenvectors. For each pair: every invocation reads a[p, p], a[q, q],
    a[p, q] (barrier: all have read them), then columns p and q of A and
    of v are rotated in parallel over the rows (barrier), then rows p and
    q of A (barrier), and a[p, q] = a[q, p] = 0 exactly. The decision
    depends on the same three values in every invocation, so it is
    uniform. A sweep without a rotation ends it; after `sweeps` sweeps
    without that, flags[0] = 1; a NaN on the diagonal sets flags[0] = 2."""
    lid = vp.local_index()
    z = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    if z >= count:
        return
    A = z * n * n
    V = z * n * n
    zero = tol - tol
    one = zero + 1
    if wantv != 0:
        for q in range(lid, n * n, L):
            if q // n == q - (q // n) * n:
                v[V + q] = one
            else:
                v[V + q] = zero
    vp.memory_barrier()
    vp.barrier()
    done = 0
    for sw in range(sweeps):
        rot = 0
        for p in range(n):
            for q in range(p + 1, n):
                app = a[A + p * n + p]
                aqq = a[A + q * n + q]
                apq = a[A + p * n + q]
                vp.memory_barrier()
                vp.barrier()  # every invocation has read the block before it changes
                if abs(apq) > tol * max(vp.sqrt(abs(app)) * vp.sqrt(abs(aqq)), floor):
                    rot = 1
                    theta = (aqq - app) / (apq + apq)
                    at = abs(theta)
                    t = one / (at + vp.sqrt(one + theta * theta))
                    if at > 1e8:  # theta * theta would overflow: t ~ 1 / (2 |theta|)
                        t = 0.5 / at
                    if theta < 0:
                        t = -t
                    c = one / vp.sqrt(one + t * t)
                    s = c * t
                    for k in range(lid, n, L):  # A J: columns p and q
                        akp = a[A + k * n + p]
                        akq = a[A + k * n + q]
                        a[A + k * n + p] = c * akp - s * akq
                        a[A + k * n + q] = s * akp + c * akq
                    if wantv != 0:
                        for k in range(lid, n, L):
                            vkp = v[V + k * n + p]
                            vkq = v[V + k * n + q]
                            v[V + k * n + p] = c * vkp - s * vkq
                            v[V + k * n + q] = s * vkp + c * vkq
                    vp.memory_barrier()
                    vp.barrier()
                    for k in range(lid, n, L):  # J^T (A J): rows p and q
                        apk = a[A + p * n + k]
                        aqk = a[A + q * n + k]
                        a[A + p * n + k] = c * apk - s * aqk
                        a[A + q * n + k] = s * apk + c * aqk
                    vp.memory_barrier()
                    vp.barrier()
                    if lid == 0:
                        a[A + p * n + q] = zero
                        a[A + q * n + p] = zero
                    vp.memory_barrier()
                    vp.barrier()
        if rot == 0:
            done = 1
            break
    if done == 0 and lid == 0:
        flags[0] = vp.uint32(1)
    for j in range(lid, n, L):
        d = a[A + j * n + j]
        if not d == d:
            flags[0] = vp.uint32(2)


def eigh_backedges(n, wantv, sweeps):
    """The most loop back-edges one invocation of jacobi_eigh takes in
    `sweeps` sweeps (counted as backedges() counts lu's)."""
    def loop(count):
        return -(-count // L) + 1
    pairs = n * (n - 1) // 2
    per_pair = loop(n) + loop(n) + (loop(n) if wantv else 0)
    per_sweep = pairs * per_pair + pairs + n + 1 + 1
    return (loop(n * n) if wantv else 0) + sweeps * per_sweep + sweeps + 1 + loop(n)


@vp.kernel(local_size_x=L)
def householder_qr(a: vp.Buffer, q: vp.Buffer, tau: vp.Buffer, w: vp.Buffer, m: vp.uint32,
                   n: vp.uint32, kq: vp.uint32, wantq: vp.uint32, count: vp.uint32,
                   gx: vp.uint32, zero: vp.Scalar):
    """Householder QR (vp.linalg.qr), as LAPACK's geqr2 + org2r: matrix z
    of the batch (m x n, row-major, a working copy) becomes R in its upper
    triangle, with the reflectors' vectors below it; k = min(m, n)
    reflectors H_j = I - tau_j v_j v_j^T, each from dlarfg's recipe
    (beta = -sign(alpha) |x|, tau = (beta - alpha) / beta, v = x / (alpha -
    beta) with v_j = 1; tau = 0 where the column below the diagonal is
    already zero), so R's diagonal has LAPACK's signs. Per column j: the
    sum of squares below the diagonal (rows split among the invocations,
    a tree reduction in w: L elements a matrix), the reflector (barrier),
    then H_j applied to the trailing columns, one invocation a column
    (barrier). With wantq, q (m x kq, from the first kq columns of I)
    becomes Q = H_0 ... H_{k-1} (applied from the last, one invocation a
    column of q)."""
    lid = vp.local_index()
    z = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    if z >= count:
        return
    A = z * m * n
    Q = z * m * kq
    k = min(m, n)
    T = z * k
    W = z * L
    one = zero + 1
    for j in range(k):
        part = zero
        for i in range(j + 1 + lid, m, L):
            x = a[A + i * n + j]
            part += x * x
        w[W + lid] = part
        vp.memory_barrier()
        vp.barrier()
        for h in vp.static((128, 64, 32, 16, 8, 4, 2, 1)):
            if lid < h:
                w[W + lid] += w[W + lid + h]
            vp.memory_barrier()
            vp.barrier()
        ss = w[W]
        alpha = a[A + j * n + j]
        vp.memory_barrier()
        vp.barrier()  # every invocation has read ss and alpha
        t = zero
        scale = zero
        if ss > 0:
            beta = vp.sqrt(alpha * alpha + ss)
            if alpha >= 0:
                beta = -beta
            t = (beta - alpha) / beta
            scale = one / (alpha - beta)
            for i in range(j + 1 + lid, m, L):
                a[A + i * n + j] = a[A + i * n + j] * scale
            if lid == 0:
                a[A + j * n + j] = beta
        if lid == 0:
            tau[T + j] = t
        vp.memory_barrier()
        vp.barrier()
        if ss > 0:
            for c in range(j + 1 + lid, n, L):  # H_j on column c: a_c -= t v (v . a_c)
                s = a[A + j * n + c]
                for i in range(j + 1, m):
                    s += a[A + i * n + j] * a[A + i * n + c]
                s = s * t
                a[A + j * n + c] -= s
                for i in range(j + 1, m):
                    a[A + i * n + c] -= s * a[A + i * n + j]
        vp.memory_barrier()
        vp.barrier()
    if wantq != 0:
        for e in range(lid, m * kq, L):
            r = e // kq
            if r == e - r * kq:
                q[Q + e] = one
            else:
                q[Q + e] = zero
        vp.memory_barrier()
        vp.barrier()
        for jj in range(k):
            j = k - 1 - jj
            t = tau[T + j]
            if t != 0:
                for c in range(j + lid, kq, L):  # H_j on column c of q
                    s = q[Q + j * kq + c]
                    for i in range(j + 1, m):
                        s += a[A + i * n + j] * q[Q + i * kq + c]
                    s = s * t
                    q[Q + j * kq + c] -= s
                    for i in range(j + 1, m):
                        q[Q + i * kq + c] -= s * a[A + i * n + j]
            vp.memory_barrier()
            vp.barrier()


def qr_backedges(m, n, kq, wantq):
    """The most loop back-edges one invocation of householder_qr takes
    (counted as backedges() counts lu's)."""
    def loop(count):
        return -(-count // L) + 1
    k = min(m, n)
    total = k + 1
    for j in range(k):
        total += loop(m - j - 1) * 2 + loop(n - j - 1) * (2 * (m - j - 1) + 2)
    if wantq:
        total += loop(m * kq) + k + 1
        for j in range(k):
            total += loop(kq - j) * (2 * (m - j - 1) + 2)
    return total
