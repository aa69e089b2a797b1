"""``Uniform`` (``torch.distributions.uniform.Uniform``)."""
from __future__ import annotations

import math
import numbers

import minigrad as _mg

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform on the half-open interval ``[low, high)`` (``torch.distributions.Uniform``).

    ``rsample`` is ``low + rand(shape) * (high - low)`` (PyTorch's numbers after the same seed);
    ``log_prob``, ``cdf``, ``icdf`` and ``entropy`` are PyTorch's formulas.

    Raises:
        ValueError: with validation on, ``low >= high`` somewhere (the constraints
            ``LessThan(high)`` / ``GreaterThan(low)``), or a value outside ``[low, high]``.
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
            batch_shape = _mg.Size()
        else:
            batch_shape = self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def support(self):
        """``Interval(low, high)``."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        """``low + rand(shape) * (high - low)``, differentiable in ``low`` and ``high``."""
        shape = self._extended_shape(sample_shape)
        rand = _mg.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        """``log(1[low <= value] * 1[value < high]) - log(high - low)``."""
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return _mg.log(lb.mul(ub)) - _mg.log(self.high - self.low)

    def cdf(self, value):
        """``((value - low) / (high - low)).clamp(0, 1)``."""
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        """``value * (high - low) + low``."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """``log(high - low)``."""
        return _mg.log(self.high - self.low)
