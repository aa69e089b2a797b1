"""Matrix decompositions and solvers: ``linalg_inv_ex``, ``linalg_solve``, ``linalg_det``,
``linalg_slogdet``, ``linalg_cholesky_ex``, ``linalg_qr``, ``_linalg_svd``, ``_linalg_eigh``.

Every op takes batches of matrices (``(*, m, n)``: leading dims are a batch) and runs NumPy's
LAPACK (``np.linalg``) in the input's own precision: float32 stays float32 (``sgesv``,
``sgetrf``, ``spotrf``, ``sgeqrf``, ``sgesdd``, ``ssyevd``), float64 stays float64, as PyTorch
CPU does. PyTorch links its own LAPACK (MKL or OpenBLAS) and blocks differently, so results agree
to a few ULPs relative to the matrix's norm times its condition number, not bit for bit (the
catalogue states the bound). As on PyTorch CPU, float16/bfloat16 are refused with PyTorch's
messages and integer inputs raise "Expected a floating point or complex tensor". Complex
inputs are outside minigrad.

Outputs that are a basis (QR's Q, SVD's U/Vh, eigh's eigenvectors) are unique only up to the
sign of each column; LAPACK's conventions decide them, so they usually equal PyTorch's, but the
tests compare sign-invariant products.

Backward formulas are PyTorch's (``FunctionsManual.cpp``: ``linalg_inv`` via ``-A^{-H} g
A^{-H}``, ``linalg_solve_backward``, ``linalg_det_backward`` (0 where the matrix is
exactly singular, as PyTorch CPU), ``slogdet_backward``, ``cholesky_backward``, ``linalg_qr_backward``,
``svd_backward``, ``linalg_eig_backward`` for the Hermitian case), written with dispatched ops
so that double backward works. Node names are PyTorch's (``LinalgInvExBackward0``...).

Deliberate differences: PyTorch's ``_linalg_solve_ex`` / ``_linalg_det`` / ``_linalg_slogdet``
also return the LU factors and pivots (its backward reuses them); here the ops are registered
under the public aten names ``linalg_solve``, ``linalg_det``, ``linalg_slogdet`` and return the
results only (the backward solves again, as PyTorch does under ``create_graph``).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW as _LOW, wrap

__all__ = ["LinAlgError"]


class LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix the factorisation cannot handle (singular for
    ``inv``/``solve``, not positive-definite for ``cholesky``). A ``RuntimeError`` subclass,
    as PyTorch's ``torch._C._LinAlgError``."""


# ------------------------------------------------------------------------------ checks
def _check(A, fname, *, square=True, low=None, name="A"):
    """PyTorch's ``linalg`` input checks, in its order: a Tensor, at least 2 dims, square (if
    asked), floating, and not 16-bit (``low``: the RuntimeError PyTorch's frontend raises, or
    the CPU kernel's name for its NotImplementedError)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {name} must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fname}: {name} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype.scalar_name}")
    if A.dtype in _LOW or A.dtype.is_float8:
        if low is None or low.startswith("linalg."):
            raise RuntimeError(f"{low or fname}: Low precision dtypes not supported. Got "
                               f"{A.dtype.scalar_name}")
        if A.numel():         # PyTorch's CPU kernel is never reached for an empty input
            raise NotImplementedError(f'"{low}" not implemented for \'{A.dtype.scalar_name}\'')


def _arr(A):
    """``A``'s storage for LAPACK: a 16-bit input (only ever empty here) as float32."""
    return A._data.astype(np.float32) if A.dtype in _LOW else A._data


def _out(arr, dtype):
    """LAPACK's result (maybe Fortran-ordered, maybe a NumPy scalar) as a C-ordered Tensor."""
    arr = np.asarray(arr)
    return wrap(arr if arr.flags.c_contiguous else np.ascontiguousarray(arr), dtype)


def _batch_prefix(info_flat, i, shape):
    """PyTorch's "(Batch element k): " prefix for batched inputs (empty for one matrix)."""
    return f"(Batch element {i}): " if len(shape) > 2 else ""


def _lu_zero_pivot(a):
    """The 1-based index of the first exactly-zero pivot of ``a``'s LU factorisation with
    partial pivoting (LAPACK ``getrf``'s ``info``), 0 if none: the error path's message only."""
    u = np.array(a, dtype=np.float64)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1:, k:] -= np.outer(u[k + 1:, k] / u[k, k], u[k, k:])
    return 0


def _per_matrix(fn, a, out_shape):
    """Run ``fn`` on each matrix of the batch ``a``; returns (results, info) where a failing
    matrix (``np.linalg.LinAlgError``) gives NaNs and ``info`` holds ``fail(matrix)``."""
    flat = a.reshape((-1,) + a.shape[-2:])
    res = np.full((flat.shape[0],) + out_shape, np.nan, dtype=a.dtype)
    bad = []
    for i, m in enumerate(flat):
        try:
            res[i] = fn(m)
        except np.linalg.LinAlgError:
            bad.append(i)
    return res, bad


def _mT(x):
    return dispatch("transpose", x, -2, -1)


def _mm(a, b):
    return dispatch("matmul", a, b)


def _eye_like(A):
    """The identity broadcast like the square matrices ``A`` (``(*, n, n)``)."""
    n = A.shape[-1]
    return dispatch("eye", n, dtype=A.dtype, device=A.device)


def _inv(A):
    return dispatch("linalg_inv_ex", A)[0]


def _nn(x):
    """``x[..., None, None]``."""
    return dispatch("unsqueeze", dispatch("unsqueeze", x, -1), -1)


# ------------------------------------------------------------------------------ inverse
@register_op("linalg_inv_ex")
class LinalgInvEx(Function):
    """``linalg_inv_ex(A, *, check_errors=False)`` -> ``(inverse, info)``
    (``torch.linalg.inv_ex``; ``torch.linalg.inv`` and ``torch.inverse`` call it with
    ``check_errors=True``): the inverse of each square matrix of ``A`` (``(*, n, n)``), LAPACK's
    ``gesv`` on the identity; ``info`` (int32, the batch shape) is 0, or the 1-based index of
    the first zero pivot of a singular matrix (whose inverse is then NaN here; PyTorch leaves
    LAPACK's partial result). ``LinalgInvExBackward0``: ``-A^{-H} g A^{-H}``.

    Raises:
        RuntimeError: fewer than 2 dims, non-square, integer or 16-bit input (PyTorch's
            messages). LinAlgError: ``check_errors=True`` and a singular matrix ("linalg.inv:
            The diagonal element 2 is zero, the inversion could not be completed because the
            input matrix is singular.").
    """

    _backward_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, A, *, check_errors=False):
        _check(A, "linalg.inv")
        a = _arr(A)
        info = np.zeros(a.shape[:-2], np.int32)
        try:
            inv = np.linalg.inv(a)
        except np.linalg.LinAlgError:
            inv, bad = _per_matrix(np.linalg.inv, a, a.shape[-2:])
            inv = inv.reshape(a.shape)
            flat = info.reshape(-1)
            for i in bad:
                flat[i] = _lu_zero_pivot(a.reshape((-1,) + a.shape[-2:])[i]) or 1
            if check_errors:
                i = bad[0]
                raise LinAlgError(f"linalg.inv: {_batch_prefix(flat, i, a.shape)}The diagonal "
                                  f"element {flat[i]} is zero, the inversion could not be "
                                  "completed because the input matrix is singular.")
        out = _out(inv, A.dtype)
        inf = Tensor._make(info, _dt.int32)
        ctx.mark_non_differentiable(inf)
        ctx.save_for_backward(out)
        return out, inf

    @staticmethod
    def backward(ctx, grad, grad_info=None):
        (inv,) = ctx.saved_tensors
        invh = _mT(inv)
        return dispatch("neg", _mm(invh, _mm(grad, invh)))


# ------------------------------------------------------------------------------ solve
def _is_vector_rhs(A, B):
    """PyTorch's ``linalg_solve_is_vector_rhs``: B is a vector (or a batch of vectors)."""
    return B.ndim == 1 or (A.ndim - 1 == B.ndim and tuple(B.shape) == tuple(A.shape[:-1]))


@register_op("linalg_solve")
class LinalgSolve(Function):
    """``linalg_solve(A, B, *, left=True)`` (``torch.linalg.solve``): ``X`` with ``A X = B``
    (``left=False``: ``X A = B``); ``A`` is ``(*, n, n)``, ``B`` ``(*, n, k)`` or a vector
    ``(*, n)`` (PyTorch's vector rule), batch dims broadcast; LAPACK's ``gesv``.
    ``LinalgSolveExBackward0``: ``gB = A^{-H} gX``, ``gA = -gB X^H`` (left).

    Raises:
        RuntimeError: shapes, dtypes (both floating and equal: "Expected A and B to have the
            same dtype"), 16-bit inputs (PyTorch's "lu_cpu" NotImplementedError).
        LinAlgError: a singular A ("torch.linalg.solve: The solver failed because the input
            matrix is singular.").
    """

    _backward_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, A, B, *, left=True):
        _check(A, "linalg.solve", low="lu_cpu")
        if not isinstance(B, Tensor):
            raise TypeError(f"linalg_solve(): argument 'B' (position 2) must be Tensor, not "
                            f"{type(B).__name__}")
        if B.dtype is not A.dtype:
            raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but "
                               f"found A of type {A.dtype.scalar_name} and B of type "
                               f"{B.dtype.scalar_name} instead")
        vec = _is_vector_rhs(A, B)
        a, b = _arr(A), _arr(B)
        b2 = b[..., None] if vec else b
        n = a.shape[-1]
        if b2.ndim < 2 or b2.shape[-2 if left else -1] != n:
            raise RuntimeError(
                "linalg.solve: Incompatible shapes of A and B for the equation "
                f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{n} and "
                f"{b2.shape[-2]}x{b2.shape[-1]})")
        if not left:                   # X A = B  <=>  A^T X^T = B^T
            a, b2 = np.swapaxes(a, -1, -2), np.swapaxes(b2, -1, -2)
        batch = np.broadcast_shapes(a.shape[:-2], b2.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b2 = np.broadcast_to(b2, batch + b2.shape[-2:])
        try:
            x = np.linalg.solve(a, b2)
        except np.linalg.LinAlgError:
            i = _per_matrix(np.linalg.inv, a, a.shape[-2:])[1][0]     # the first singular one
            pre = f"(Batch element {i}): " if a.ndim > 2 else ""
            raise LinAlgError(f"torch.linalg.solve: {pre}The solver failed because the input "
                              "matrix is singular.") from None
        if not left:
            x = np.swapaxes(x, -1, -2)
        if vec:
            x = x[..., 0]
        out = _out(x, A.dtype)
        ctx.left, ctx.vec = left, vec
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        g = dispatch("unsqueeze", grad, -1) if ctx.vec else grad
        x = dispatch("unsqueeze", X, -1) if ctx.vec else X
        gb = dispatch("linalg_solve", _mT(A), g, left=ctx.left)
        ga = dispatch("neg", _mm(gb, _mT(x)) if ctx.left else _mm(_mT(x), gb))
        if ctx.vec:
            gb = dispatch("squeeze", gb, -1)
        return ga, gb


# ------------------------------------------------------------------------------ det / slogdet
@register_op("linalg_det")
class LinalgDet(Function):
    """``linalg_det(A)`` (``torch.linalg.det``, ``torch.det``, ``Tensor.det``): the
    determinant of each square matrix of ``A`` (``(*, n, n)`` -> ``(*)``), LAPACK's ``getrf``
    and the product of U's diagonal (NumPy's ``det``, as PyTorch's). ``LinalgDetBackward0``:
    ``g det(A) A^{-H}``. Where ``det(A)`` is exactly 0 the gradient is 0, as PyTorch 2.13
    CPU gives (measured; ``FunctionsManual.cpp`` has an SVD formula for singular matrices
    that its CPU backward does not reach there), not the cofactor matrix.

    Raises:
        RuntimeError: fewer than 2 dims, non-square, integer input; NotImplementedError:
            16-bit ('"lu_cpu" not implemented for 'Half'').
    """

    _backward_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, A):
        _check(A, "linalg.det", low="lu_cpu")
        out = _out(np.linalg.det(_arr(A)), A.dtype)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, det = ctx.saved_tensors
        if A.numel() == 0:
            return dispatch("zeros_like", A)
        gd = _nn(dispatch("mul", grad, det))
        singular = dispatch("eq", det, 0)
        if not bool(dispatch("any", singular)):
            return dispatch("mul", gd, _mT(_inv(A)))
        # as PyTorch 2.13 CPU measures: an exactly singular matrix gets g * det * (finite) = 0
        # (the inverse taken of the identity in its place)
        safe = dispatch("where", _nn(singular), _eye_like(A), A)
        return dispatch("mul", gd, _mT(_inv(safe)))


class slogdet_ret(tuple):
    """``(sign, logabsdet)`` with attribute access, like ``torch.return_types.slogdet``."""

    __slots__ = ()

    def __new__(cls, sign, logabsdet):
        return tuple.__new__(cls, (sign, logabsdet))

    sign = property(lambda self: self[0])
    logabsdet = property(lambda self: self[1])


@register_op("linalg_slogdet")
class LinalgSlogdet(Function):
    """``linalg_slogdet(A)`` -> ``(sign, logabsdet)`` (``torch.linalg.slogdet``,
    ``torch.slogdet``): the sign (-1, 0, 1) and ``log|det|`` of each square matrix (``-inf``
    for a singular one), from LAPACK's LU. ``LinalgSlogdetBackward0``: ``g_logabsdet A^{-H}``
    (the sign of a real matrix has no gradient).

    Raises:
        RuntimeError: fewer than 2 dims, non-square, integer or 16-bit input ("linalg.slogdet:
            Low precision dtypes not supported. Got Half").
    """

    _backward_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A):
        _check(A, "linalg.slogdet", low="linalg.slogdet")
        sign, logabs = np.linalg.slogdet(A._data)
        s, la = _out(sign, A.dtype), _out(logabs, A.dtype)
        ctx.save_for_backward(A)
        return slogdet_ret(s, la)

    @staticmethod
    def backward(ctx, grad_sign, grad_logabs):
        (A,) = ctx.saved_tensors
        if grad_logabs is None:
            return None
        return dispatch("mul", _nn(grad_logabs), _mT(_inv(A)))


# ------------------------------------------------------------------------------ cholesky
@register_op("linalg_cholesky_ex")
class LinalgCholeskyEx(Function):
    """``linalg_cholesky_ex(A, *, upper=False, check_errors=False)`` -> ``(L, info)``
    (``torch.linalg.cholesky_ex``; ``torch.linalg.cholesky``/``torch.cholesky`` call it with
    ``check_errors=True``): ``A = L L^H`` with ``L`` lower triangular (``upper=True``:
    ``U = L^H``); only the lower triangle of ``A`` is read (LAPACK's ``potrf('L')``). ``info``
    (int32, batch shape): 0, or the order of the first leading minor that is not
    positive-definite (``L`` is then NaN here). ``LinalgCholeskyExBackward0``: PyTorch's
    ``cholesky_backward`` (``L^{-H} Phi(L^H gL) L^{-1}``, symmetrised).

    Raises:
        RuntimeError: fewer than 2 dims, non-square, integer input; NotImplementedError:
            16-bit ('"cholesky_cpu" not implemented for 'Half''). LinAlgError: with
            ``check_errors``, "linalg.cholesky: The factorization could not be completed
            because the input is not positive-definite (the leading minor of order 2 is not
            positive-definite)."
    """

    _backward_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, A, *, upper=False, check_errors=False):
        _check(A, "linalg.cholesky", low="cholesky_cpu")
        a = _arr(A)
        info = np.zeros(a.shape[:-2], np.int32)
        low = np.tril(a)
        sym = low + np.swapaxes(np.tril(a, -1), -1, -2)      # potrf('L') reads the lower half
        try:
            L = np.linalg.cholesky(sym)
        except np.linalg.LinAlgError:
            L, bad = _per_matrix(np.linalg.cholesky, sym, a.shape[-2:])
            L = L.reshape(a.shape)
            flat = info.reshape(-1)
            mats = sym.reshape((-1,) + a.shape[-2:])
            for i in bad:
                flat[i] = next(k for k in range(1, a.shape[-1] + 1)
                               if not _is_pd(mats[i][:k, :k]))
            if check_errors:
                i = bad[0]
                pre = _batch_prefix(flat, i, a.shape)
                raise LinAlgError(f"linalg.cholesky: {pre}The factorization could not be "
                                  "completed because the input is not positive-definite (the "
                                  f"leading minor of order {flat[i]} is not positive-definite).")
        if upper:
            L = np.swapaxes(L, -1, -2)
        out = _out(L, A.dtype)
        inf = Tensor._make(info, _dt.int32)
        ctx.mark_non_differentiable(inf)
        ctx.upper = upper
        ctx.save_for_backward(out)
        return out, inf

    @staticmethod
    def backward(ctx, gL, grad_info=None):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, gL = _mT(L), _mT(gL)
        # tril(L^H gL), then 0.5 * (gA + gA^H - diag(gA))
        ga = dispatch("tril", _mm(_mT(L), gL))
        ga = dispatch("mul", dispatch("add", ga, _mT(dispatch("tril", ga, -1))), 0.5)
        # L^{-H} ga L^{-1} (PyTorch: two triangular solves; here general solves)
        ga = dispatch("linalg_solve", _mT(L), ga)
        return dispatch("linalg_solve", L, ga, left=False)


def _is_pd(m):
    try:
        np.linalg.cholesky(m)
        return True
    except np.linalg.LinAlgError:
        return False


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
    ``linalg_qr_backward`` (``(gQ + Q copyltu(R gR^H - gQ^H Q)) R^{-H}``; wide matrices: the square part's formula, then ``Q gV`` for the
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

