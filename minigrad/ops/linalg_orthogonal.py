"""Orthogonal factorisations: ``linalg_qr``, ``_linalg_svd``, ``_linalg_eigh`` (NumPy's
LAPACK: ``geqrf``/``orgqr``, ``gesdd``, ``syevd``, in the input's own precision, as PyTorch
CPU).

Conventions as ``minigrad.ops.linalg_solvers`` (batches of matrices, PyTorch's checks and
16-bit refusals, a few ULPs from PyTorch's LAPACK). Q, U/Vh and eigenvectors are unique only up
to the sign of each column; LAPACK's conventions decide them (usually as PyTorch's). Backward
formulas are PyTorch's ``linalg_qr_backward``, ``svd_backward`` and ``linalg_eig_backward``
(Hermitian case), written with dispatched ops so that double backward works.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .linalg_solvers import _arr, _check, _mm, _mT, _out


# ------------------------------------------------------------------------------ qr
class qr_ret(tuple):
    """``(Q, R)`` with attribute access, like ``torch.return_types.linalg_qr``."""

    __slots__ = ()

    def __new__(cls, Q, R):
        return tuple.__new__(cls, (Q, R))

    Q = property(lambda self: self[0])
    R = property(lambda self: self[1])


def _copyltu(x):
    """``tril(X) + tril(X, -1)^H``: the symmetric matrix with ``X``'s lower triangle."""
    return dispatch("add", dispatch("tril", x), _mT(dispatch("tril", x, -1)))


def _qr_tall_backward(gQ, gR, Q, R):
    """``linalg_qr_backward`` for ``m >= n`` (reduced): ``M = R gR^H - gQ^H Q``, then ``gA =
    (gQ + Q copyltu(M)) R^{-H}``."""
    if gQ is not None and gR is not None:
        m = dispatch("sub", _mm(R, _mT(gR)), _mm(_mT(gQ), Q))
    elif gQ is not None:
        m = dispatch("neg", _mm(_mT(gQ), Q))
    else:
        m = _mm(R, _mT(gR))
    ga = _mm(Q, _copyltu(m))
    if gQ is not None:
        ga = dispatch("add", ga, gQ)
    return dispatch("linalg_solve", _mT(R), ga, left=False)


@register_op("linalg_qr")
class LinalgQr(Function):
    """``linalg_qr(A, mode='reduced')`` -> ``(Q, R)`` (``torch.linalg.qr``): ``A = Q R`` with
    orthonormal columns in ``Q`` and ``R`` upper triangular (LAPACK's ``geqrf``/``orgqr``);
    ``mode`` ``'reduced'`` (``Q`` is ``(*, m, k)``, ``k = min(m, n)``), ``'complete'`` (``Q``
    ``(*, m, m)``) or ``'r'`` (``Q`` empty). ``LinalgQrBackward0``: PyTorch's
    ``linalg_qr_backward`` (``(gQ + Q copyltu(R gR^H - gQ^H Q)) R^{-H}``; wide matrices: the
    square part's formula, then ``Q gV`` for the
    rest).

    Raises:
        RuntimeError: fewer than 2 dims, integer input, an unknown mode ("qr received
            unrecognized mode 'x' but expected one of 'reduced' (default), 'r', or
            'complete'"); backward through ``mode='r'`` or ``'complete'`` with ``m > n``.
        NotImplementedError: 16-bit ('"geqrf_cpu" not implemented for 'Half'').
    """

    _backward_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, A, mode="reduced"):
        if mode not in ("reduced", "complete", "r"):
            raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                               "'reduced' (default), 'r', or 'complete'")
        _check(A, "linalg.qr", square=False, low="geqrf_cpu")
        a = _arr(A)
        m, n = a.shape[-2:]
        k = min(m, n)
        if a.size == 0:
            qc = m if mode == "complete" else k
            q = np.zeros(a.shape[:-2] + (m, qc), a.dtype)
            if mode == "complete" or m == 0 or n == 0:
                q[..., :, :] = np.eye(m, qc, dtype=a.dtype)
            r = np.zeros(a.shape[:-2] + ((m if mode == "complete" else k), n), a.dtype)
        else:
            q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
        if mode == "r":
            q = np.zeros((0,), a.dtype)
        Q, R = _out(q, A.dtype), _out(r, A.dtype)
        ctx.mode, ctx.mn = mode, (m, n)
        ctx.save_for_backward(A, Q, R)
        return qr_ret(Q, R)

    @staticmethod
    def backward(ctx, gQ, gR):
        A, Q, R = ctx.saved_tensors
        m, n = ctx.mn
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                               "going to differentiate through linalg.qr.")
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        if gQ is None and gR is None:
            return None
        if m >= n:
            return _qr_tall_backward(gQ, gR, Q, R)
        # wide: A = Q [U | V], Y = A[..., m:]; gX from the square part, gY = Q gV
        cols = (slice(None),) * (A.ndim - 1)
        Y = dispatch("index", A, cols + (slice(m, n),))
        U = dispatch("index", R, cols + (slice(0, m),))
        gU = gV = None
        if gR is not None:
            gU = dispatch("index", gR, cols + (slice(0, m),))
            gV = dispatch("index", gR, cols + (slice(m, n),))
        gQ2 = gQ
        if gV is not None:
            t = _mm(Y, _mT(gV))
            gQ2 = t if gQ2 is None else dispatch("add", gQ2, t)
        gX = _qr_tall_backward(gQ2, gU, Q, U)
        gY = _mm(Q, gV) if gV is not None else dispatch("zeros_like", Y)
        return dispatch("cat", [gX, gY], -1)


# ------------------------------------------------------------------------------ svd
class svd_ret(tuple):
    """``(U, S, Vh)`` with attribute access, like ``torch.return_types.linalg_svd``."""

    __slots__ = ()

    def __new__(cls, U, S, Vh):
        return tuple.__new__(cls, (U, S, Vh))

    U = property(lambda self: self[0])
    S = property(lambda self: self[1])
    Vh = property(lambda self: self[2])


def svd_backward(gU, gS, gVh, U, S, Vh):
    """PyTorch's ``svd_backward`` (real case; reduced ``U``, ``Vh``): ``gA = U [(skew(U^H gU)
    S + S skew(V^H gV)) / E + diag(gS)] V^H`` with ``E_ij = s_j^2 - s_i^2`` (1 on the
    diagonal), plus the parts of ``gU`` (tall) or ``gVh`` (wide) outside the span."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        if m >= n:
            return _mm(U, dispatch("mul", dispatch("unsqueeze", gS, -1), Vh))
        return _mm(dispatch("mul", U, dispatch("unsqueeze", gS, -2)), Vh)
    skew = lambda x: dispatch("sub", x, _mT(x))          # noqa: E731
    s2 = dispatch("mul", S, S)
    E = dispatch("sub", dispatch("unsqueeze", s2, -2), dispatch("unsqueeze", s2, -1))
    k = S.shape[-1]
    E = dispatch("where", dispatch("eye", k, dtype=_dt.bool_, device=S.device), 1.0, E)
    parts = []
    if gU is not None:
        parts.append(dispatch("mul", skew(_mm(_mT(U), gU)), dispatch("unsqueeze", S, -2)))
    if gVh is not None:
        parts.append(dispatch("mul", dispatch("unsqueeze", S, -1), skew(_mm(Vh, _mT(gVh)))))
    ga = parts[0] if len(parts) == 1 else dispatch("add", parts[0], parts[1])
    ga = dispatch("div", ga, E)
    if gS is not None:
        ga = dispatch("add", ga, dispatch("diag_embed", gS))
    if m > n and gU is not None:
        ga = _mm(U, ga)
        gus = dispatch("div", gU, dispatch("unsqueeze", S, -2))
        ga = dispatch("sub", dispatch("add", ga, gus), _mm(U, _mm(_mT(U), gus)))
        return _mm(ga, Vh)
    if m < n and gVh is not None:
        ga = _mm(ga, Vh)
        sgv = dispatch("div", gVh, dispatch("unsqueeze", S, -1))
        ga = dispatch("sub", dispatch("add", ga, sgv), _mm(_mm(sgv, _mT(Vh)), Vh))
        return _mm(U, ga)
    return _mm(U, _mm(ga, Vh)) if m >= n else _mm(_mm(U, ga), Vh)


@register_op("_linalg_svd")
class LinalgSvd(Function):
    """``_linalg_svd(A, full_matrices=False, compute_uv=True, *, driver=None)`` -> ``(U, S,
    Vh)`` (behind ``torch.linalg.svd``, ``svdvals``, ``torch.svd``): ``A = U diag(S) Vh``, the
    singular values descending (LAPACK's ``gesdd``, as PyTorch CPU). ``full_matrices``: ``U``
    is ``(*, m, m)`` and ``Vh`` ``(*, n, n)``; otherwise ``k = min(m, n)`` columns/rows.
    ``compute_uv=False``: ``U`` and ``Vh`` are empty. ``LinalgSvdBackward0``: PyTorch's
    ``svd_backward`` on the first ``k`` columns of ``U`` and rows of ``Vh``.

    Raises:
        RuntimeError: fewer than 2 dims, integer input; a ``driver`` on CPU ("torch.linalg.svd:
            keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER
            backend."); backward with ``compute_uv=False``.
        NotImplementedError: 16-bit ('"linalg_svd_cpu" not implemented for 'Half'').
    """

    _backward_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A, full_matrices=False, compute_uv=True, *, driver=None):
        _check(A, "linalg.svd", square=False, low="linalg_svd_cpu")
        if driver is not None:
            raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported "
                               "on CUDA inputs with cuSOLVER backend.")
        a = _arr(A)
        m, n = a.shape[-2:]
        k = min(m, n)
        batch = a.shape[:-2]
        if a.size == 0:
            u = np.broadcast_to(np.eye(m, m if full_matrices else k, dtype=a.dtype),
                                batch + (m, m if full_matrices else k)).copy()
            vh = np.broadcast_to(np.eye(n if full_matrices else k, n, dtype=a.dtype),
                                 batch + (n if full_matrices else k, n)).copy()
            s = np.zeros(batch + (k,), a.dtype)
        elif compute_uv:
            u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
        else:
            s = np.linalg.svd(a, compute_uv=False)
        if not compute_uv:
            u = vh = np.zeros((0,), a.dtype)
        U, S, Vh = _out(u, A.dtype), _out(s, A.dtype), _out(vh, A.dtype)
        ctx.full, ctx.uv, ctx.k = full_matrices, compute_uv, k
        ctx.save_for_backward(U, S, Vh)
        return svd_ret(U, S, Vh)

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        if not ctx.uv:
            raise RuntimeError("linalg.svd: the singular vectors were not computed "
                               "(compute_uv=False): this call is not differentiable")
        if ctx.full:
            k = ctx.k
            cols = (slice(None),) * (U.ndim - 1) + (slice(0, k),)
            rows = (slice(None),) * (Vh.ndim - 2) + (slice(0, k),)
            U, Vh = dispatch("index", U, cols), dispatch("index", Vh, rows)
            gU = None if gU is None else dispatch("index", gU, cols)
            gVh = None if gVh is None else dispatch("index", gVh, rows)
        return svd_backward(gU, gS, gVh, U, S, Vh)


# ------------------------------------------------------------------------------ eigh
class eigh_ret(tuple):
    """``(eigenvalues, eigenvectors)``, like ``torch.return_types.linalg_eigh``."""

    __slots__ = ()

    def __new__(cls, L, Q):
        return tuple.__new__(cls, (L, Q))

    eigenvalues = property(lambda self: self[0])
    eigenvectors = property(lambda self: self[1])


@register_op("_linalg_eigh")
class LinalgEigh(Function):
    """``_linalg_eigh(A, UPLO='L', compute_v=True)`` -> ``(L, Q)`` (behind
    ``torch.linalg.eigh`` / ``eigvalsh``): eigenvalues ascending and orthonormal eigenvectors
    of the symmetric matrices ``A``, of which only the ``UPLO`` triangle is read (LAPACK's
    ``syevd``). ``compute_v=False``: ``Q`` is empty. ``LinalgEighBackward0``: PyTorch's
    ``linalg_eig_backward`` for Hermitian input, ``V (skew(V^H gV)/2 / E + diag(gL)) V^H``.

    Raises:
        RuntimeError: fewer than 2 dims, non-square, integer input; a bad ``UPLO``
            ("Expected UPLO argument to be 'L' or 'U', but got x"); backward with
            ``compute_v=False``.
        NotImplementedError: 16-bit ('"linalg_eigh_cpu" not implemented for 'Half'').
    """

    _backward_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A, UPLO="L", compute_v=True):
        if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U") or len(UPLO) != 1:
            raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
        if isinstance(A, Tensor) and not A.dtype.is_floating_point and A.ndim >= 2:
            # PyTorch's eigh has no frontend dtype check: its CPU kernel refuses integers
            raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for '
                                      f'\'{A.dtype.scalar_name}\'')
        _check(A, "linalg.eigh", low="linalg_eigh_cpu")
        a = _arr(A)
        if a.size == 0:
            w = np.zeros(a.shape[:-1], a.dtype)
            v = np.zeros(a.shape, a.dtype)
        elif compute_v:
            w, v = np.linalg.eigh(a, UPLO=UPLO.upper())
        else:
            w = np.linalg.eigvalsh(a, UPLO=UPLO.upper())
        if not compute_v:
            v = np.zeros((0,), a.dtype)
        L, Q = _out(w, A.dtype), _out(v, A.dtype)
        ctx.uv = compute_v
        ctx.save_for_backward(L, Q)
        return eigh_ret(L, Q)

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        if not ctx.uv:
            raise RuntimeError("linalg.eigh: the eigenvectors were not computed "
                               "(compute_v=False): this call is not differentiable")
        if gV is None:
            if gL is None:
                return None
            return _mm(dispatch("mul", V, dispatch("unsqueeze", gL, -2)), _mT(V))
        vhgv = _mm(_mT(V), gV)
        vhgv = dispatch("mul", dispatch("sub", vhgv, _mT(vhgv)), 0.5)
        E = dispatch("sub", dispatch("unsqueeze", L, -2), dispatch("unsqueeze", L, -1))
        eye = dispatch("eye", L.shape[-1], dtype=_dt.bool_, device=L.device)
        ga = dispatch("div", vhgv, dispatch("where", eye, 1.0, E))
        diag = gL if gL is not None else dispatch("zeros_like", L)
        ga = dispatch("where", eye, dispatch("diag_embed", diag), ga)
        return _mm(V, _mm(ga, _mT(V)))

