"""``Categorical`` (``torch.distributions.categorical.Categorical``)."""
from __future__ import annotations

import math

import minigrad as _mg

from . import constraints
from .distribution import Distribution
from .utils import logits_to_probs, lazy_property, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A categorical distribution over ``{0, ..., K-1}``, ``K = probs.size(-1)``
    (``torch.distributions.Categorical``), from ``probs`` (normalized over the last dim) or
    ``logits`` (unnormalized log probabilities, normalized by ``logsumexp``), not both.

    ``sample`` draws through ``multinomial`` as PyTorch does, so after the same seed the samples
    equal PyTorch's; ``log_prob`` gathers from the normalized logits; ``entropy`` is
    ``-(logits * probs).sum(-1)`` with logits clamped to the dtype's most negative value.

    Raises:
        ValueError: both or neither of ``probs``/``logits``; a 0-dim parameter; with
            validation on, probabilities off the simplex or a value outside the support.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else _mg.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def support(self):
        """``IntegerInterval(0, K - 1)``."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """Normalized log probabilities."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """Normalized probabilities."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        """NaN (as PyTorch: the categories are not numbers)."""
        return _mg.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        """The most probable category."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """NaN (as PyTorch)."""
        return _mg.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        """int64 samples of shape ``sample_shape + batch_shape`` (``multinomial`` with
        replacement, PyTorch's draw)."""
        sample_shape = _mg.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = _mg.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        """The normalized log probability of each category in ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = _mg.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        """``-(logits * probs).sum(-1)``."""
        min_real = _mg.finfo(self.logits.dtype).min
        logits = _mg.clamp(self.logits, min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """``0..K-1`` shaped ``(K,) + (1,) * len(batch_shape)``, expanded to the batch shape
        when ``expand``."""
        values = _mg.arange(self._num_events, dtype=_mg.long)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
