"""``Exponential`` (``torch.distributions.exponential.Exponential``)."""
from __future__ import annotations

import numbers

import minigrad as _mg

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(Distribution):
    """The exponential distribution of rate ``rate`` (``torch.distributions.Exponential``).

    ``rsample`` is ``empty(shape).exponential_() / rate`` (PyTorch's numbers after the same
    seed); ``log_prob``, ``cdf``, ``icdf``, ``entropy`` are PyTorch's formulas.

    Raises:
        ValueError: with validation on, a rate that is not positive or a negative value.
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = _mg.Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _mg.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        """``Exp(1)`` draws divided by ``rate``, differentiable in ``rate``."""
        shape = self._extended_shape(sample_shape)
        return _mg.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value):
        """``log(rate) - rate * value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """``1 - exp(-rate * value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - _mg.exp(-self.rate * value)

    def icdf(self, value):
        """``-log1p(-value) / rate``."""
        return -_mg.log1p(-value) / self.rate

    def entropy(self):
        """``1 - log(rate)``."""
        return 1.0 - _mg.log(self.rate)
