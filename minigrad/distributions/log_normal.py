"""``LogNormal`` (``torch.distributions.log_normal.LogNormal``)."""
from __future__ import annotations

import minigrad as _mg

from . import constraints
from .distribution import Distribution
from .normal import Normal

__all__ = ["LogNormal"]


class LogNormal(Distribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)`` (``torch.distributions.LogNormal``).

    PyTorch builds it as ``TransformedDistribution(Normal(loc, scale), ExpTransform())``;
    minigrad has no transforms yet, so the class writes out what that composition computes,
    operation for operation: ``sample``/``rsample`` are the base Normal's draws (PyTorch's
    numbers after the same seed) passed through ``exp``; ``log_prob(y)`` is
    ``(0 - log y) + Normal.log_prob(log y)``; ``cdf``/``icdf`` go through ``log``/``exp``.
    ``base_dist`` is the Normal. Deliberate difference: ``isinstance(d,
    TransformedDistribution)`` has no counterpart here.

    Raises:
        ValueError: with validation on, the base Normal's errors (a NaN ``loc``, a ``scale``
            that is not positive: PyTorch's message names ``Normal``); a ``log_prob`` value
            that is not positive.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    @property
    def loc(self):
        """The base Normal's mean (of ``log`` of a sample)."""
        return self.base_dist.loc

    @property
    def scale(self):
        """The base Normal's standard deviation."""
        return self.base_dist.scale

    @property
    def mean(self):
        """``exp(loc + scale**2 / 2)``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        """``exp(loc - scale**2)``."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        """``expm1(scale**2) * exp(2 loc + scale**2)``."""
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def sample(self, sample_shape=()):
        """``exp`` of the base Normal's sample, without gradient."""
        with _mg.no_grad():
            return self.base_dist.sample(sample_shape).exp()

    def rsample(self, sample_shape=()):
        """``exp(loc + eps * scale)``, differentiable in ``loc`` and ``scale``."""
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        """``(0 - log(value)) + Normal(loc, scale).log_prob(log(value))`` (the log-Jacobian of
        ``exp`` subtracted first, as PyTorch's ``TransformedDistribution``)."""
        if self._validate_args:
            self._validate_sample(value)
        x = value.log()
        return (0.0 - x) + self.base_dist.log_prob(x)

    def cdf(self, value):
        """``Normal.cdf(log(value))`` (validated against the base Normal's support)."""
        value = value.log()
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self.base_dist.cdf(value)

    def icdf(self, value):
        """``exp(Normal.icdf(value))``."""
        return self.base_dist.icdf(value).exp()

    def entropy(self):
        """``Normal.entropy() + loc``."""
        return self.base_dist.entropy() + self.loc
