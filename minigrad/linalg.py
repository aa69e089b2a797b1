"""``minigrad.linalg`` (mirrors ``torch.linalg``): ``vector_norm``, ``matrix_norm``, ``norm``,
``multi_dot``; the decompositions and solvers ``inv``, ``inv_ex``, ``solve``, ``det``,
``solve_triangular`` (``minigrad.ops.linalg_triangular``), ``slogdet``, ``cholesky``, ``cholesky_ex``, ``qr``, ``svd``, ``svdvals``, ``eigh``,
``eigvalsh``, ``pinv``, ``matrix_power`` (ops in ``minigrad.ops.linalg_solvers``), and
``cross``, ``vecdot`` (``minigrad.ops.matrix_functions``); ``LinAlgError``."""
from __future__ import annotations

from .autograd.grad_mode import is_grad_enabled
from .dispatch import dispatch
from .ops.linalg_solvers import LinAlgError

__all__ = ["vector_norm", "matrix_norm", "norm", "multi_dot", "inv", "inv_ex", "solve",
           "solve_triangular", "det", "slogdet", "cholesky", "cholesky_ex", "qr", "svd", "svdvals", "eigh", "eigvalsh",
           "pinv", "matrix_power", "cross", "vecdot", "LinAlgError"]


def _no_out(out, fname):
    if out is not None:
        raise NotImplementedError(f"{fname}(out=...) is not supported by minigrad")


def _needs_grad(A):
    return is_grad_enabled() and getattr(A, "requires_grad", False)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of ``x`` over ``dim`` (int, tuple, or None for all elements)
    (``torch.linalg.vector_norm``): ``ord`` any float, ``inf`` (max |x|), ``-inf`` (min |x|),
    0 (count of non-zeros). Returns ``x``'s floating dtype (or ``dtype``); differentiable.

    Raises:
        RuntimeError: integer input; inf norm over an empty dim or tensor.
        IndexError: ``dim`` out of range.
    """
    return dispatch("linalg_vector_norm", x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm of ``A`` over the two dims ``dim`` (``torch.linalg.matrix_norm``):
    ``'fro'`` (Frobenius), ``1``/``-1`` (max/min column abs-sum), ``inf``/``-inf`` (max/min row
    abs-sum), as PyTorch's composite of vector norms and amax/amin.

    Raises:
        RuntimeError: fewer than 2 dims, integer input, bad ``dim``, an unknown order.
        NotImplementedError: ``'nuc'``, 2, -2 (singular values: a deliberate limit).
    """
    if isinstance(ord, str):
        return dispatch("linalg_matrix_norm.str_ord", A, ord, dim, keepdim, dtype=dtype)
    return dispatch("linalg_matrix_norm", A, ord, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``torch.linalg.norm``: with ``ord=None``, the 2-norm of the flattened input (or over
    ``dim``); a string ``ord`` or a 2-tuple ``dim`` is a matrix norm; otherwise a vector norm
    (a 1-D ``dim`` or a 1-D input).

    Raises:
        RuntimeError: as ``vector_norm`` / ``matrix_norm``; a matrix ``ord`` on a 1-D input.
    """
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or \
            (dim is None and A.ndim == 2):
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if dim is None and A.ndim != 1:
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.ndim}D.")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices in the cheapest order (``torch.linalg.multi_dot``):
    the first may be 1-D (a row vector), the last 1-D (a column); PyTorch's order choice.

    Raises:
        RuntimeError: fewer than 2 tensors, wrong dims, sizes or dtypes (PyTorch's messages).
        NotImplementedError: ``out=``.
    """
    if out is not None:
        raise NotImplementedError("multi_dot(out=...) is not supported by minigrad")
    return dispatch("linalg_multi_dot", tensors)


# ------------------------------------------------------------------------------ solvers
def inv(A, *, out=None):
    """The inverse of each square matrix of ``A`` (``(*, n, n)``; ``torch.linalg.inv``): the
    ``linalg_inv_ex`` op with ``check_errors=True``.

    Raises:
        LinAlgError: a singular matrix (PyTorch's message); RuntimeError: shapes, dtypes.
    """
    _no_out(out, "linalg.inv")
    return dispatch("linalg_inv_ex", A, check_errors=True)[0]


def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)`` (``torch.linalg.inv_ex``): ``info`` is 0 per matrix, or the index
    of LU's first zero pivot for a singular one; see the ``linalg_inv_ex`` op."""
    _no_out(out, "linalg.inv_ex")
    return _Ret("inv_ex", ("inverse", "info"), dispatch("linalg_inv_ex", A,
                                                        check_errors=check_errors))


def solve(A, B, *, left=True, out=None):
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``; ``torch.linalg.solve``); ``B`` a
    matrix ``(*, n, k)`` or a vector ``(*, n)``; batch dims broadcast.

    Raises:
        LinAlgError: a singular ``A``; RuntimeError: shapes, dtypes.
    """
    _no_out(out, "linalg.solve")
    return dispatch("linalg_solve", A, B, left=left)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for a triangular ``A``
    (``torch.linalg.solve_triangular``): only the ``upper`` (or lower) triangle of ``A`` is
    read, its diagonal taken as ones with ``unitriangular``; ``B`` a matrix ``(*, n, k)``;
    batch dims broadcast; see the ``linalg_solve_triangular`` op.

    Raises:
        RuntimeError: shapes; NotImplementedError: 16-bit or integer inputs.
    """
    _no_out(out, "linalg.solve_triangular")
    return dispatch("linalg_solve_triangular", A, B, upper=upper, left=left,
                    unitriangular=unitriangular)


def det(A, *, out=None):
    """The determinant of each square matrix (``torch.linalg.det``); see the ``linalg_det``
    op."""
    _no_out(out, "linalg.det")
    return dispatch("linalg_det", A)


def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of each square matrix (``torch.linalg.slogdet``); see the
    ``linalg_slogdet`` op."""
    _no_out(out, "linalg.slogdet")
    return dispatch("linalg_slogdet", A)


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor ``L`` (``A = L L^H``; ``upper=True``: ``U = L^H``) of each
    symmetric positive-definite matrix (``torch.linalg.cholesky``); only the lower triangle of
    ``A`` is read.

    Raises:
        LinAlgError: a matrix that is not positive-definite (PyTorch's message).
    """
    _no_out(out, "linalg.cholesky")
    return dispatch("linalg_cholesky_ex", A, upper=upper, check_errors=True)[0]


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``(L, info)`` (``torch.linalg.cholesky_ex``); see the ``linalg_cholesky_ex`` op."""
    _no_out(out, "linalg.cholesky_ex")
    return _Ret("cholesky_ex", ("L", "info"), dispatch("linalg_cholesky_ex", A, upper=upper,
                                                       check_errors=check_errors))


def qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` (``torch.linalg.qr``); ``mode`` ``'reduced'``, ``'complete'`` or ``'r'``;
    see the ``linalg_qr`` op."""
    _no_out(out, "linalg.qr")
    return dispatch("linalg_qr", A, mode)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` (``torch.linalg.svd``; note PyTorch's default
    ``full_matrices=True``); see the ``_linalg_svd`` op."""
    _no_out(out, "linalg.svd")
    return dispatch("_linalg_svd", A, full_matrices, True, driver=driver)


def svdvals(A, *, driver=None, out=None):
    """The singular values, descending (``torch.linalg.svdvals``): ``_linalg_svd`` with
    ``compute_uv`` only where a gradient is needed (as PyTorch)."""
    _no_out(out, "linalg.svdvals")
    return dispatch("_linalg_svd", A, False, _needs_grad(A), driver=driver)[1]


def eigh(A, UPLO="L", *, out=None):
    """``(eigenvalues, eigenvectors)`` of symmetric matrices, eigenvalues ascending
    (``torch.linalg.eigh``); only the ``UPLO`` triangle is read; see the ``_linalg_eigh``
    op."""
    _no_out(out, "linalg.eigh")
    return dispatch("_linalg_eigh", A, UPLO, True)


def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues of symmetric matrices, ascending (``torch.linalg.eigvalsh``):
    ``_linalg_eigh`` with ``compute_v`` only where a gradient is needed (as PyTorch)."""
    _no_out(out, "linalg.eigvalsh")
    return dispatch("_linalg_eigh", A, UPLO, _needs_grad(A))[0]


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse (``torch.linalg.pinv``): ``V diag(1/s) U^H`` over the
    singular values above ``max(atol, rtol * s_max)`` (default ``rtol = eps * max(m, n)``
    when neither is given); ``hermitian=True`` uses ``eigh``. See the ``linalg_pinv`` op.

    Raises:
        RuntimeError: as ``svd`` / ``eigh``.
    """
    _no_out(out, "linalg.pinv")
    return dispatch("linalg_pinv", A, atol=atol, rtol=rtol, hermitian=hermitian)


def matrix_power(A, n, *, out=None):
    """``A`` to the integer power ``n`` (``torch.linalg.matrix_power``): the identity for 0,
    ``inv(A)`` powered for ``n < 0``, repeated squaring as PyTorch (the same products in the
    same order).

    Raises:
        RuntimeError: fewer than 2 dims, non-square; LinAlgError: ``n < 0`` and a singular A.
    """
    _no_out(out, "linalg.matrix_power")
    return dispatch("linalg_matrix_power", A, n)


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along ``dim`` (``torch.linalg.cross``); inputs
    broadcast; see the ``linalg_cross`` op."""
    _no_out(out, "linalg.cross")
    return dispatch("linalg_cross", input, other, dim=dim)


def vecdot(x, y, *, dim=-1, out=None):
    """``sum(x * y, dim)`` (``torch.linalg.vecdot``; real inputs, so no conjugation): a
    composite of ``mul`` and ``sum``, as PyTorch's.

    Raises:
        RuntimeError: shapes that do not broadcast; different dtypes ("linalg.vecdot: Expected
            x and y to have the same dtype, but found x of type Float and y of type Double
            instead").
    """
    _no_out(out, "linalg.vecdot")
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {x.dtype.scalar_name} and y of type {y.dtype.scalar_name} "
                           "instead")
    return dispatch("sum", dispatch("mul", x, y), dim)


class _Ret(tuple):
    """A tuple with named fields, like ``torch.return_types.linalg_inv_ex``."""

    def __new__(cls, name, fields, values):
        self = tuple.__new__(cls, tuple(values))
        self._name, self._fields = name, fields
        return self

    def __getattr__(self, attr):
        fields = tuple.__getattribute__(self, "_fields")
        if attr in fields:
            return self[fields.index(attr)]
        raise AttributeError(attr)
