"""``Laplace`` (``torch.distributions.laplace.Laplace``)."""
from __future__ import annotations

import numbers

import minigrad as _mg

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution of location ``loc`` and scale ``scale``
    (``torch.distributions.Laplace``).

    ``rsample`` inverts the CDF of ``u = empty(shape).uniform_(eps - 1, 1)`` as PyTorch does
    (``loc - scale * sign(u) * log1p(-|u|)``; the same numbers after the same seed).

    Raises:
        ValueError: with validation on, a NaN ``loc`` or a ``scale`` that is not positive.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = _mg.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=()):
        """``loc - scale * sign(u) * log1p(-|u|)``, ``u`` uniform on ``[eps - 1, 1)``."""
        shape = self._extended_shape(sample_shape)
        finfo = _mg.finfo(self.loc.dtype)
        u = _mg.empty(shape, dtype=self.loc.dtype).uniform_(finfo.eps - 1, 1)
        return self.loc - self.scale * u.sign() * _mg.log1p(-u.abs())

    def log_prob(self, value):
        """``-log(2 scale) - |value - loc| / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        return -_mg.log(2 * self.scale) - _mg.abs(value - self.loc) / self.scale

    def cdf(self, value):
        """``0.5 - 0.5 sign(value - loc) expm1(-|value - loc| / scale)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * _mg.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        """``loc - scale sign(value - 0.5) log1p(-2 |value - 0.5|)``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * _mg.log1p(-2 * term.abs())

    def entropy(self):
        """``1 + log(2 scale)``."""
        return 1 + _mg.log(2 * self.scale)
