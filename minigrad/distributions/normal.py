"""``Normal`` (``torch.distributions.normal.Normal``)."""
from __future__ import annotations

import math
import numbers

import minigrad as _mg

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Normal"]


class Normal(Distribution):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``
    (``torch.distributions.Normal``); numbers and tensors broadcast together.

    ``sample`` is ``torch.normal(loc, scale)`` on the expanded parameters and ``rsample``
    ``loc + eps * scale`` with ``eps = empty(shape).normal_()``: after the same seed both draw
    PyTorch's numbers. ``log_prob``, ``cdf``, ``icdf`` and ``entropy`` are PyTorch's formulas.

    Raises:
        ValueError: with validation on, a NaN ``loc`` or a ``scale`` that is not positive;
            a ``log_prob`` value of a shape that does not broadcast.
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
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=()):
        """Samples of shape ``sample_shape + batch_shape``, without gradient."""
        shape = self._extended_shape(sample_shape)
        with _mg.no_grad():
            return _mg.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        """``loc + eps * scale``, differentiable in ``loc`` and ``scale``."""
        shape = self._extended_shape(sample_shape)
        eps = _mg.empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """``-(value - loc)**2 / (2 var) - log(scale) - log(sqrt(2 pi))``."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = math.log(self.scale) if isinstance(self.scale, numbers.Number) else \
            self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - \
            math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        """``0.5 (1 + erf((value - loc) / (scale sqrt 2)))``."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + _mg.erf((value - self.loc) * self.scale.reciprocal() /
                                  math.sqrt(2)))

    def icdf(self, value):
        """``loc + scale erfinv(2 value - 1) sqrt 2``."""
        return self.loc + self.scale * _mg.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """``0.5 + 0.5 log(2 pi) + log(scale)``."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + _mg.log(self.scale)
