"""``Bernoulli`` (``torch.distributions.bernoulli.Bernoulli``)."""
from __future__ import annotations

import math
import numbers

import minigrad as _mg

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    """Draws 1 with probability ``probs`` (or ``sigmoid(logits)``), else 0
    (``torch.distributions.Bernoulli``); give ``probs`` or ``logits``, not both.

    ``sample`` is ``torch.bernoulli(probs)`` on the expanded probabilities (PyTorch's numbers
    after the same seed); ``log_prob`` is ``-binary_cross_entropy_with_logits(logits, value)``
    and ``entropy`` ``binary_cross_entropy_with_logits(logits, probs)``, as PyTorch's.

    Raises:
        ValueError: both or neither of ``probs``/``logits``; with validation on, probabilities
            outside [0, 1] or a value that is not 0 or 1.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = _mg.Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        """Log-odds ``log(p) - log1p(-p)`` of the clamped probabilities."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """``sigmoid(logits)``."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=()):
        """0/1 samples of shape ``sample_shape + batch_shape`` (``torch.bernoulli``)."""
        shape = self._extended_shape(sample_shape)
        with _mg.no_grad():
            return _mg.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        """``-binary_cross_entropy_with_logits(logits, value, reduction='none')``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_mg.nn.functional.binary_cross_entropy_with_logits(logits, value,
                                                                   reduction="none")

    def entropy(self):
        """``binary_cross_entropy_with_logits(logits, probs, reduction='none')``."""
        return _mg.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                  reduction="none")

    def enumerate_support(self, expand=True):
        """``[0, 1]`` shaped ``(2,) + (1,) * len(batch_shape)`` (expanded over the batch)."""
        values = _mg.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
