"""Linear algebra as torch-level functions (``torch.inverse``, ``det``, ``logdet``,
``slogdet``, ``cholesky``, ``trace``, ``kron``, ``cross``, ``cdist``, ``chain_matmul``,
``vander``, ``matrix_power``, ``pinverse``): each is one ``dispatch`` call or a composite of
dispatched ops (the ops: ``minigrad.ops.linalg_solvers``, ``minigrad.ops.matrix_functions``).
"""
from __future__ import annotations

import warnings

from ..dispatch import dispatch
from ..ops.cdist import cdist
from ..ops.matrix_functions import chain_matmul

__all__ = ["inverse", "det", "logdet", "slogdet", "cholesky", "cholesky_inverse", "trace",
           "kron", "cross",
           "cdist", "chain_matmul", "vander", "matrix_power", "pinverse"]


def cholesky_inverse(input, upper=False, *, out=None):
    """``(L L^T)^{-1}`` from a Cholesky factor ``L`` (``upper``: ``(U^T U)^{-1}``)
    (``torch.cholesky_inverse``); see the ``cholesky_inverse`` op.

    Raises:
        RuntimeError: shapes; NotImplementedError: 16-bit or integer inputs, ``out=``.
    """
    if out is not None:
        raise NotImplementedError("cholesky_inverse(out=...) is not supported")
    return dispatch("cholesky_inverse", input, upper)


def inverse(input, *, out=None):
    """``torch.inverse``: ``torch.linalg.inv`` (the ``linalg_inv_ex`` op, errors checked).

    Raises:
        LinAlgError: a singular matrix; RuntimeError: shapes, dtypes.
    """
    from .. import linalg
    return linalg.inv(input, out=out)


def det(input):
    """``torch.det``: ``torch.linalg.det`` (the ``linalg_det`` op)."""
    return dispatch("linalg_det", input)


def slogdet(input):
    """``torch.slogdet``: ``(sign, logabsdet)``, the ``linalg_slogdet`` op."""
    return dispatch("linalg_slogdet", input)


def logdet(input):
    """``torch.logdet``: ``log(det(A))``, as PyTorch's composite of ``slogdet``: ``nan``
    where the determinant is negative, ``-inf`` where it is 0."""
    sign, logabs = dispatch("linalg_slogdet", input)
    return dispatch("where", dispatch("eq", sign, -1), float("nan"), logabs)


def cholesky(input, upper=False, *, out=None):
    """``torch.cholesky`` (deprecated in PyTorch, which warns): ``linalg.cholesky(input,
    upper=upper)``. Deliberate difference: PyTorch's own ``cholesky`` op prefixes its error
    with "cholesky:"; here the linalg op's "linalg.cholesky:" message.

    Raises:
        LinAlgError: a matrix that is not positive-definite.
    """
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    from .. import linalg
    return linalg.cholesky(input, upper=upper, out=out)


def trace(input):
    """``torch.trace``: the sum of a matrix's diagonal (the ``trace`` op)."""
    return dispatch("trace", input)


def kron(input, other, *, out=None):
    """``torch.kron``: the Kronecker product (the ``kron`` composite)."""
    if out is not None:
        raise NotImplementedError("kron(out=...) is not supported by minigrad")
    return dispatch("kron", input, other)


def cross(input, other, dim=None, *, out=None):
    """``torch.cross``: ``linalg.cross`` along ``dim``; with ``dim=None`` the first dim of
    size 3 after broadcasting, with PyTorch's deprecation warning.

    Raises:
        RuntimeError: no dim of size 3 ("no dimension of size 3 in input"), as
            ``linalg_cross``.
    """
    if out is not None:
        raise NotImplementedError("cross(out=...) is not supported by minigrad")
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross "
                      "in a future release.", UserWarning, stacklevel=2)
        from ..ops._util import broadcast_shapes
        shape = broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return dispatch("linalg_cross", input, other, dim=dim)


def vander(x, N=None, increasing=False):
    """``torch.vander``: powers of ``x`` as columns (the ``vander`` composite)."""
    return dispatch("vander", x, N, increasing)


def matrix_power(input, n):
    """``torch.matrix_power``: ``linalg.matrix_power``."""
    return dispatch("linalg_matrix_power", input, n)


def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: ``linalg.pinv(input, rtol=rcond)``."""
    return dispatch("linalg_pinv", input, rtol=rcond)


_ = (cdist, chain_matmul)     # re-exported torch-level functions (minigrad.ops.matrix_functions)
