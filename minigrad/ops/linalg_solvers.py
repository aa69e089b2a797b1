"""Matrix decompositions and solvers: ``linalg_inv_ex``, ``linalg_solve``, ``linalg_det``,
``linalg_slogdet``, ``linalg_cholesky_ex`` here; the orthogonal factorisations ``linalg_qr``,
``_linalg_svd``, ``_linalg_eigh`` in ``minigrad.ops.linalg_orthogonal`` (same conventions, the
checks below).

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
A^{-H}``, ``linalg_solve_backward``, ``linalg_det_backward`` (0 where the matrix is exactly
singular, as PyTorch CPU), ``slogdet_backward``, ``cholesky_backward`` (its two triangular
solves done as general ``linalg_solve``s)), written with dispatched ops so that double backward
works. Node names are PyTorch's (``LinalgInvExBackward0``...).

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
        with np.errstate(all="ignore"):          # singular / inf input: silent, as PyTorch
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
        with np.errstate(all="ignore"):          # singular: log 0 = -inf, silently
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
