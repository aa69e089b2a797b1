"""``minigrad.linalg`` (mirrors ``torch.linalg``): ``vector_norm``, ``matrix_norm``, ``norm``,
``multi_dot``."""
from __future__ import annotations

from .dispatch import dispatch

__all__ = ["vector_norm", "matrix_norm", "norm", "multi_dot"]


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
