"""Catalogue entries for the matrix decompositions and solvers (``minigrad.ops.linalg_solvers``)
and the matrix functions beside them (``minigrad.ops.matrix_functions``).

Inputs: LAPACK results depend on the conditioning, so each spec builds its matrices the same way
in both libraries from the drawn values ``a``: ``0.1 * a + diag(4, 8, 12...)`` (``_shifted``:
singular values / eigenvalues well apart and at least ~2, condition number below ~10). Bases
that are unique only up to column signs (SVD's U/Vh, eigh's eigenvectors) are compared through
sign-free functions of them: ``U diag(1, 2, ...) Vh`` and ``Q * Q``.

Bounds: NumPy's LAPACK and PyTorch's (MKL/OpenBLAS) block and order their sums differently, so
fp32/fp64 results agree to a few ULPs of the largest output (``scale="max"``), not bit for bit;
``ACC_LA`` allows 8 ULPs per element plus ``SCALE_ULPS * eps * max|expected|``. 16-bit inputs
raise the same errors as PyTorch CPU (checked by every spec's dtype cases). Each spec runs in
float32 (float64 is gradchecked), to keep the suite inside its time budget.
"""
from __future__ import annotations

from tests.op_specs import ACC, OpSpec, _u
from tests.strategies import Sample

F32, F16, BF16 = "float32", "float16", "bfloat16"
ACC_LA = _u(8, 8, 1, 1)


def _shifted(lib, a):
    """``0.1 * a + eye(m, n) * (4, 8, ...)``: well-conditioned, distinct singular values."""
    m, n = a.shape[-2], a.shape[-1]
    d = lib.eye(m, n, dtype=a.dtype) * (lib.arange(1, n + 1) * 4)
    return a * 0.1 + d


def _sym(lib, a):
    """A symmetric ``_shifted`` matrix (distinct eigenvalues near 4, 8, 12...)."""
    t = a * 0.05
    n = a.shape[-1]
    return t + t.mT + lib.diag_embed(lib.arange(1, n + 1) * 4)


def _spd(lib, a):
    s = _sym(lib, a)
    return s @ s.mT


def square_sample(d):
    batch = d.choice([(), (2,), (1, 2)])
    n = d.integer(0, 3)
    return Sample([d.floats(batch + (n, n), "real", "smooth")])


def rect_sample(d):
    batch = d.choice([(), (2,)])
    m, n = d.integer(1, 3), d.integer(1, 3)
    return Sample([d.floats(batch + (m, n), "real", "smooth")])


def solve_sample(d):
    n, k = d.integer(1, 3), d.integer(1, 2)
    left = d.choice([True, False])
    shape_b = d.choice([(2, n, k) if left else (2, k, n), (n,), (2, n)])
    if not left and len(shape_b) < 3:
        shape_b = (2, k, n)
    return Sample([d.floats(d.choice([(n, n), (2, n, n)]), "real", "smooth"),
                   d.floats(shape_b, "real", "smooth")], {} if left else {"left": False})


def solve_triangular_sample(d):
    """Batch dims that broadcast (``(2, 1)`` against ``(3,)``), either side, either triangle,
    ``unitriangular`` (the other triangle of ``_shifted(a)`` is not read)."""
    n, k = d.integer(0, 3), d.integer(1, 2)
    left = d.choice([True, False])
    ba, bb = d.choice([((), ()), ((2,), ()), ((), (2,)), ((2, 1), (3,))])
    shape_b = bb + ((n, k) if left else (k, n))
    return Sample([d.floats(ba + (n, n), "real", "smooth"), d.floats(shape_b, "real", "smooth")],
                  {"upper": d.choice([False, True]), "left": left,
                   "unitriangular": d.choice([False, True])})


def _cholesky_inverse(lib, F, a, upper=False):
    """``cholesky_inverse`` of the (upper or lower) triangle of ``_shifted(a)``, a Cholesky
    factor with the positive diagonal 4, 8, ..."""
    t = _shifted(lib, a)
    return lib.cholesky_inverse(t.triu() if upper else t.tril(), upper=upper)


def _svd(lib, F, a, **kw):
    U, S, Vh = lib.linalg.svd(_shifted(lib, a), **kw)
    k = S.shape[-1]
    w = lib.arange(1, k + 1)
    return S, (U[..., :k] * w) @ Vh[..., :k, :]


def _eigh(lib, F, a, **kw):
    L, Q = lib.linalg.eigh(_sym(lib, a), **kw)
    return L, Q * Q


def _qr(lib, F, a, **kw):
    return tuple(lib.linalg.qr(_shifted(lib, a), **kw))


def qr_sample(d):
    """Modes whose backward exists ('r', and 'complete' for tall inputs, raise in both
    libraries' backward: tests/unit/test_linalg_solvers.py)."""
    s = rect_sample(d)
    m, n = s.args[0].values.shape[-2:]
    return Sample(s.args, {"mode": d.choice(["reduced", "complete"] if m <= n else
                                            ["reduced"])})


def matrix_power_sample(d):
    s = square_sample(d)
    return Sample(s.args, {"n": d.choice([-2, -1, 0, 1, 2, 3, 5])})


def cross_sample(d):
    shape = d.choice([(3,), (2, 3), (3, 2), (2, 3, 1)])
    other = tuple(1 if (s != 3 and d.choice([False, True])) else s for s in shape)
    dim = shape.index(3) - len(shape) if d.choice([False, True]) else shape.index(3)
    return Sample([d.floats(shape, "real", "finite"), d.floats(other, "real", "finite")],
                  {"dim": dim})


def trace_sample(d):
    return Sample([d.floats((d.integer(0, 3), d.integer(0, 3)), "real")])


def kron_sample(d):
    sa = tuple(d.integer(1, 3) for _ in range(d.integer(0, 2)))
    sb = tuple(d.integer(0, 2) for _ in range(d.integer(0, 3)))
    return Sample([d.floats(sa, "real"), d.floats(sb, "real")])


def cdist_sample(d):
    batch = d.choice([((), ()), ((2,), (2,)), ((2, 1), (3,))])
    p, r, m = d.integer(0, 3), d.integer(1, 3), d.integer(1, 3)
    return Sample([d.floats(batch[0] + (p, m), "real", "finite"),
                   d.floats(batch[1] + (r, m), "real", "finite")],
                  {"p": d.choice([2.0, 1.0, 0.0, 3.0, 0.5, float("inf")])})


def cdist_mm_sample(d):
    p, r, m = d.integer(1, 3), d.integer(1, 3), d.integer(1, 3)
    return Sample([d.floats((p, m), "real", "smooth"), d.floats((r, m), "real", "smooth")])


def pinv_sample(d):
    s = rect_sample(d)
    return Sample(s.args, {"hermitian": True} if d.choice([False, True]) else {})


def _pinv(lib, F, a, hermitian=False):
    if hermitian:
        n = a.shape[-1]
        return lib.linalg.pinv(_sym(lib, a[..., :n, :n] if a.shape[-2] >= n else
                                    a[..., :1, :1]), hermitian=True)
    return lib.linalg.pinv(_shifted(lib, a))


def vander_sample(d):
    return Sample([d.floats((d.integer(0, 4),), "real", "finite")],
                  {"N": d.choice([None, 0, 1, 3]), "increasing": d.choice([False, True])})


_LA = dict(dtypes=(F32,), fwd_ulp=ACC_LA, bwd_ulp=ACC_LA, scale="max", bwd_scale="max")

SPECS = [
    OpSpec("linalg.inv", lambda lib, F, a: lib.linalg.inv(_shifted(lib, a)), square_sample,
           notes="gesv on the identity (NumPy's LAPACK vs PyTorch's: a few ULPs)", **_LA),
    OpSpec("linalg.inv_ex", lambda lib, F, a: tuple(lib.linalg.inv_ex(_shifted(lib, a))),
           square_sample, gradcheck=False, **_LA),
    OpSpec("linalg.solve", lambda lib, F, a, b, **kw: lib.linalg.solve(_shifted(lib, a), b,
                                                                       **kw),
           solve_sample, notes="gesv; vector right-hand sides as PyTorch's rule", **_LA),
    OpSpec("linalg.solve_triangular", lambda lib, F, a, b, **kw: lib.linalg.solve_triangular(
        _shifted(lib, a), b, **kw), solve_triangular_sample,
        notes="substitution row by row vs PyTorch's trsm (blocked): a few ULPs", **_LA),
    OpSpec("cholesky_inverse", _cholesky_inverse,
           lambda d: Sample(square_sample(d).args, {"upper": d.choice([False, True])}),
           notes="L^{-T} L^{-1} by substitution vs LAPACK's potri: a few ULPs", **_LA),
    OpSpec("linalg.det", lambda lib, F, a: lib.linalg.det(_shifted(lib, a)), square_sample,
           **_LA),
    OpSpec("linalg.slogdet", lambda lib, F, a: tuple(lib.linalg.slogdet(_shifted(lib, a))),
           square_sample, **_LA),
    OpSpec("linalg.cholesky", lambda lib, F, a, **kw: lib.linalg.cholesky(_spd(lib, a), **kw),
           lambda d: Sample(square_sample(d).args,
                            {"upper": True} if d.choice([False, True]) else {}), **_LA),
    OpSpec("linalg.qr", _qr, qr_sample, notes="geqrf/orgqr: the same Householder signs",
           **_LA),
    OpSpec("linalg.svd", _svd, lambda d: Sample(rect_sample(d).args, {
        "full_matrices": d.choice([False, True])}),
        notes="gesdd; compared as S and U diag(1..k) Vh (column signs are free)", **_LA),
    OpSpec("linalg.svdvals", lambda lib, F, a: lib.linalg.svdvals(_shifted(lib, a)),
           rect_sample, **_LA),
    OpSpec("linalg.eigh", _eigh, lambda d: Sample(square_sample(d).args,
                                                  {"UPLO": d.choice(["L", "U"])}),
           notes="syevd; compared as L and Q*Q (column signs are free)", **_LA),
    OpSpec("linalg.eigvalsh", lambda lib, F, a: lib.linalg.eigvalsh(_sym(lib, a)),
           square_sample, **_LA),
    OpSpec("linalg.pinv", _pinv, pinv_sample, **_LA),
    OpSpec("linalg.matrix_power", lambda lib, F, a, n: lib.linalg.matrix_power(
        _shifted(lib, a), n), matrix_power_sample, **_LA),
    OpSpec("linalg.cross", lambda lib, F, a, b, dim: lib.linalg.cross(a, b, dim=dim),
           cross_sample, dtypes=(F32, BF16), bwd_ulp=_u(2, 2, 0, 0), bwd_scale="max",
           notes="16-bit: each product and the difference rounded (ATen's scalar kernel); "
                 "fp32: fma(x, y, -z*w) as PyTorch's compiled kernel: both bit-exact"),
    OpSpec("trace", lambda lib, F, a: lib.trace(a), trace_sample, dtypes=(F32, F16),
           notes="left to right in double (fp32) / float (16-bit), one rounding: bit-exact"),
    OpSpec("kron", lambda lib, F, a, b: lib.kron(a, b), kron_sample, dtypes=(F32, BF16)),
    OpSpec("cdist", lambda lib, F, a, b, p: lib.cdist(a, b, p=p), cdist_sample, dtypes=(F32,),
           fwd_ulp=ACC_LA, bwd_ulp=ACC_LA, scale="abs", bwd_scale="max",
           notes="direct path; PyTorch sums the coordinates in vector lanes"),
    OpSpec("cdist.mm", lambda lib, F, a, b: lib.cdist(a, b + 20.0,
                                                      compute_mode="use_mm_for_euclid_dist"),
           cdist_mm_sample, dtypes=(F32,), fwd_ulp=ACC_LA, bwd_ulp=ACC_LA, scale="abs",
           bwd_scale="max", notes="_euclidean_dist: |x|^2 - 2 x.y + |y|^2 by matmul, clamped"),
    OpSpec("vander", lambda lib, F, x, **kw: lib.vander(x, **kw), vander_sample,
           dtypes=(F32, BF16), differentiable=False, fwd_ulp=ACC, scale="abs",
           notes="not differentiable here in the tests: PyTorch's vander backward fails (its "
                 "in-place copy_ into the result)"),
]
