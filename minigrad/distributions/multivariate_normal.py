"""``MultivariateNormal`` (``torch.distributions.multivariate_normal.MultivariateNormal``)."""
from __future__ import annotations

import math

import minigrad as _mg

from . import constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """``bmat @ bvec`` for batches of matrices and vectors whose batch shapes broadcast."""
    return _mg.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``x^T (L L^T)^{-1} x = |L^{-1} x|^2`` for a batch of lower-triangular factors ``bL``
    (``(*b, n, n)``) and vectors ``bx`` (``(*s, *b', n)``, ``b`` broadcasting to ``b'``), as
    PyTorch's: ``bx`` is reshaped and permuted so that one batched triangular solve covers
    every vector, then the result is put back in ``bx``'s batch shape."""
    n = bx.size(-1)
    bx_batch_shape = tuple(bx.shape[:-1])
    bx_batch_dims = len(bx_batch_shape)
    bL_batch_dims = bL.dim() - 2
    outer_batch_dims = bx_batch_dims - bL_batch_dims
    old_batch_dims = outer_batch_dims + bL_batch_dims
    new_batch_dims = outer_batch_dims + 2 * bL_batch_dims
    # bx as (..., sx // sL, sL, ..., n): every L-batch dim split in two
    bx_new_shape = tuple(bx.shape[:outer_batch_dims])
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer_batch_dims:-1]):
        bx_new_shape += (sx // sL, sL)
    bx = bx.reshape(bx_new_shape + (n,))
    permute_dims = (list(range(outer_batch_dims))
                    + list(range(outer_batch_dims, new_batch_dims, 2))
                    + list(range(outer_batch_dims + 1, new_batch_dims, 2))
                    + [new_batch_dims])
    bx = bx.permute(permute_dims)
    flat_L = bL.reshape(-1, n, n)                          # b x n x n
    flat_x = bx.reshape(-1, flat_L.size(0), n)             # c x b x n
    flat_x_swap = flat_x.permute(1, 2, 0)                  # b x n x c
    M_swap = _mg.linalg.solve_triangular(flat_L, flat_x_swap, upper=False).pow(2).sum(-2)
    M = M_swap.t()                                         # c x b
    permuted_M = M.reshape(tuple(bx.shape[:-1]))
    permute_inv_dims = list(range(outer_batch_dims))
    for i in range(bL_batch_dims):
        permute_inv_dims += [outer_batch_dims + i, old_batch_dims + i]
    return permuted_M.permute(permute_inv_dims).reshape(bx_batch_shape)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of ``P^{-1}`` without inverting ``P``: the Cholesky factor
    of ``P`` with rows and columns reversed, flipped back and transposed, then one triangular
    solve against the identity (PyTorch's recipe)."""
    Lf = _mg.linalg.cholesky(_mg.flip(P, (-2, -1)))
    L_inv = _mg.transpose(_mg.flip(Lf, (-2, -1)), -2, -1)
    Id = _mg.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return _mg.linalg.solve_triangular(L_inv, Id, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution of mean ``loc`` (``(*, n)``) and covariance
    ``Sigma`` (``torch.distributions.MultivariateNormal``), given by exactly one of
    ``covariance_matrix`` (``Sigma``), ``precision_matrix`` (``Sigma^{-1}``) or ``scale_tril``
    (``L`` lower triangular with a positive diagonal, ``Sigma = L L^T``), each ``(*, n, n)``;
    the batch dims of ``loc`` and the matrix broadcast. ``batch_shape`` is that broadcast,
    ``event_shape (n,)``.

    Everything runs on ``L`` (from ``linalg.cholesky`` of the covariance, or PyTorch's
    ``_precision_to_scale_tril``): ``rsample`` is ``loc + L @ eps`` with ``eps =
    empty(shape).normal_()`` (PyTorch's ``eps`` after the same seed; the product then agrees
    to matmul's rounding), ``log_prob`` ``-0.5 (n log(2 pi) + |L^{-1}(x - loc)|^2) - sum log
    diag(L)``, ``entropy`` ``0.5 n (1 + log(2 pi)) + sum log diag(L)``; ``precision_matrix``
    (when not given) is ``cholesky_inverse(L)``.

    Raises:
        ValueError: a 0-dim ``loc`` ("loc must be at least one-dimensional."), not exactly one
            matrix ("Exactly one of covariance_matrix or precision_matrix or scale_tril may be
            specified."), a matrix of fewer than 2 dims; with validation on, a matrix off its
            constraint (``lower_cholesky``, ``positive_definite``), a NaN ``loc``.
        RuntimeError: batch shapes that do not broadcast.
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = next((n, m) for n, m in (("scale_tril", scale_tril),
                                                ("covariance_matrix", covariance_matrix),
                                                ("precision_matrix", precision_matrix))
                            if m is not None)
        if matrix.dim() < 2:
            what = name if name != "scale_tril" else "scale_tril matrix"
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading "
                             "batch dimensions")
        batch_shape = _mg.broadcast_shapes(_mg.Size(matrix.shape[:-2]), _mg.Size(loc.shape[:-1]))
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _mg.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        """``L``, expanded over the batch."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """``L L^T``, expanded over the batch."""
        L = self._unbroadcasted_scale_tril
        return _mg.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """``cholesky_inverse(L) = (L L^T)^{-1}``, expanded over the batch."""
        return _mg.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """The diagonal of ``L L^T``: the row sums of ``L**2``."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        """``loc + L @ eps``, ``eps`` standard normal of shape ``sample_shape + batch_shape +
        (n,)``; differentiable in ``loc`` and ``L``."""
        shape = self._extended_shape(sample_shape)
        eps = _mg.empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        """``-0.5 (n log(2 pi) + M) - sum(log(diag(L)))``, ``M`` the squared Mahalanobis
        distance of ``value - loc``."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        """``0.5 n (1 + log(2 pi)) + sum(log(diag(L)))``, over the batch."""
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
