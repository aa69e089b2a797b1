"""``linalg_solve_triangular`` (``torch.linalg.solve_triangular``): ``X`` with ``A X = B``
(``left=False``: ``X A = B``) for a triangular ``A``, by substitution; and ``cholesky_inverse``
(``torch.cholesky_inverse``): ``(L L^T)^{-1}`` from a Cholesky factor ``L``, by the same
substitution.

Only the triangle ``upper`` names is read (the other is ignored, as BLAS's ``trsm``); with
``unitriangular=True`` the diagonal is taken as ones. Batch dims of ``A`` and ``B`` broadcast.
The substitution runs in the input's precision, one row (or column) of ``X`` after the other,
vectorised over the batch and the right-hand sides; PyTorch's ``trsm`` (MKL/OpenBLAS) blocks
differently, so results agree to a few ULPs times the condition number, not bit for bit.
float16/bfloat16 and integers are refused with PyTorch's messages (its CPU kernel has no
16-bit version). Backward PyTorch's ``linalg_solve_triangular_backward``: ``gB = A^{-H} g``
(a triangular solve with the other ``upper``), ``gA = -gB X^H`` (``left=False``: ``-X^H gB``)
kept on ``A``'s triangle (off the diagonal too with ``unitriangular``).
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .linalg_solvers import _mT, _out


def _substitute(a, b, upper, unit):
    """``a^{-1} b`` for triangular ``a`` (``(..., n, n)``) and ``b`` (``(..., n, k)``),
    broadcast over the batch: forward substitution (``upper``: backward), row by row."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    n, k = a.shape[-1], b.shape[-1]
    a = np.broadcast_to(a, batch + (n, n))
    x = np.array(np.broadcast_to(b, batch + (n, k)), dtype=a.dtype)
    rows = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in rows:
            done = slice(i + 1, n) if upper else slice(0, i)
            if i != (n - 1 if upper else 0):
                x[..., i, :] -= np.einsum("...j,...jk->...k", a[..., i, done], x[..., done, :])
            if not unit:
                x[..., i, :] /= a[..., i, i][..., None]
    return x


@register_op("linalg_solve_triangular")
class LinalgSolveTriangular(Function):
    """``linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False)``: the
    solution of ``A X = B`` (``left=False``: ``X A = B``) for lower (``upper=False``) or upper
    triangular ``A`` (``(*, n, n)``), ``B`` ``(*, n, k)`` (``left=False``: ``(*, k, n)``);
    batch dims broadcast; ``X`` has the broadcast shape and ``A``'s dtype (``B`` is cast to
    it, as PyTorch). Node ``LinalgSolveTriangularBackward0``. A zero on the diagonal gives
    inf/NaN, no error (as ``trsm``).

    Raises:
        RuntimeError: ``A`` or ``B`` with fewer than 2 dims, ``A`` not square, incompatible
            shapes ("linalg.solve_triangular: Incompatible shapes of A and B for the equation
            AX = B (3x3 and 2x2)"), batch dims that do not broadcast.
        NotImplementedError: 16-bit or integer inputs ('"triangular_solve_cpu" not implemented
            for 'Half'').
    """

    _backward_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx, A, B, *, upper, left=True, unitriangular=False):
        fname = "linalg.solve_triangular"
        for name, t in (("A", A), ("B", B)):
            if not isinstance(t, Tensor):
                raise TypeError(f"linalg_solve_triangular(): argument '{name}' must be Tensor, "
                                f"not {type(t).__name__}")
            if t.ndim < 2:
                raise RuntimeError(f"{fname}: The input tensor {name} must have at least 2 "
                                   "dimensions.")
        if A.shape[-1] != A.shape[-2]:
            raise RuntimeError(f"{fname}: A must be batches of square matrices, but they are "
                               f"{A.shape[-2]} by {A.shape[-1]} matrices")
        if not A.dtype.is_floating_point or A.dtype.itemsize < 4 or A.dtype.is_float8:
            raise NotImplementedError('"triangular_solve_cpu" not implemented for '
                                      f"'{A.dtype.scalar_name}'")
        n = A.shape[-1]
        if (B.shape[-2] if left else B.shape[-1]) != n:
            raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                               f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                               f"{B.shape[-2]}x{B.shape[-1]})")
        try:
            np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
        except ValueError:
            a, b = tuple(B.shape[:-2]), tuple(A.shape[:-2])      # PyTorch names B first
            m = max(len(a), len(b))
            a, b = (1,) * (m - len(a)) + a, (1,) * (m - len(b)) + b
            k = next(i for i in range(m) if a[i] != b[i] and 1 not in (a[i], b[i]))
            raise RuntimeError(f"The size of tensor a ({a[k]}) must match the size of tensor b "
                               f"({b[k]}) at non-singleton dimension {k}") from None
        a = A._data
        b = B._data.astype(a.dtype, copy=False)
        if left:
            x = _substitute(a, b, upper, unitriangular)
        else:               # X A = B  <=>  A^T X^T = B^T (A^T has the other triangle)
            x = np.swapaxes(_substitute(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2),
                                        not upper, unitriangular), -1, -2)
        out = _out(x, A.dtype)
        ctx.opts = (upper, left, unitriangular)
        ctx.shapes = (A.shape, B.shape)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.opts
        nig = ctx.needs_input_grad
        gB = dispatch("linalg_solve_triangular", _mT(A), grad, upper=not upper, left=left,
                      unitriangular=unit)
        gA = None
        if nig[0]:
            gA = dispatch("neg", dispatch("matmul", gB, _mT(X)) if left else
                          dispatch("matmul", _mT(X), gB))
            gA = dispatch("triu", gA, int(unit)) if upper else dispatch("tril", gA, -int(unit))
            gA = _sum_to(gA, ctx.shapes[0])
        return gA, (_sum_to(gB, ctx.shapes[1]) if nig[1] else None)


def _check_tri(A, fname, kernel):
    """``A``: a Tensor of 2+ dims, square, float32/float64 (PyTorch's checks and messages)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{fname}(): argument 'input' must be Tensor, not {type(A).__name__}")
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fname}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not A.dtype.is_floating_point or A.dtype.itemsize < 4 or A.dtype.is_float8:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{A.dtype.scalar_name}\'')


@register_op("cholesky_inverse")
class CholeskyInverse(Function):
    """``cholesky_inverse(L, upper=False)``: ``(L L^T)^{-1}`` for a lower-triangular Cholesky
    factor ``L`` (``upper=True``: ``(U^T U)^{-1}``), ``(*, n, n)`` (``torch.cholesky_inverse``;
    node ``CholeskyInverseBackward0``). Only ``L``'s triangle is read.

    Computed as ``L^{-T} L^{-1}`` with ``L^{-1}`` by substitution, where PyTorch calls
    LAPACK's ``potri``: equal to a few ULPs times the condition number. Backward PyTorch's
    ``cholesky_inverse_backward``: ``-(P (g + g^T) P) L`` (``upper``: ``-U (P (g + g^T)
    P)``), not projected onto the triangle (as PyTorch's).

    Raises:
        RuntimeError: fewer than 2 dims ("cholesky_inverse: The input tensor A must have at
            least 2 dimensions."), non-square. NotImplementedError: 16-bit or integer input
            ('"cholesky_inverse_out_cpu" not implemented for 'Half'').
    """

    _backward_name = "CholeskyInverseBackward0"

    @staticmethod
    def forward(ctx, input, upper=False):
        _check_tri(input, "cholesky_inverse", "cholesky_inverse_out_cpu")
        a = input._data
        if upper:                   # U^T U = L L^T with L = U^T
            a = np.swapaxes(a, -1, -2)
        n = a.shape[-1]
        inv = _substitute(a, np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape), False, False)
        out = _out(np.matmul(np.swapaxes(inv, -1, -2), inv), input.dtype)
        ctx.upper = upper
        ctx.save_for_backward(input, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        L, P = ctx.saved_tensors
        common = dispatch("add", grad, _mT(grad))
        common = dispatch("matmul", P, dispatch("matmul", common, P))
        gL = dispatch("matmul", L, common) if ctx.upper else dispatch("matmul", common, L)
        return dispatch("neg", gL), None


def _sum_to(g, shape):
    """``g`` summed down to a broadcast input's ``shape`` (autograd's ``sum_to``)."""
    if tuple(g.shape) == tuple(shape):
        return g
    return dispatch("sum_to_size", g, tuple(shape))
