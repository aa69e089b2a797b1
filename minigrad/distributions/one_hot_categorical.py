"""``OneHotCategorical`` (``torch.distributions.one_hot_categorical.OneHotCategorical``)."""
from __future__ import annotations

import minigrad as _mg

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical"]


class OneHotCategorical(Distribution):
    """A ``Categorical`` whose samples are one-hot vectors of length ``K = probs.size(-1)``
    (``torch.distributions.OneHotCategorical``): ``event_shape (K,)``, samples in the
    parameter's dtype. Give ``probs`` or ``logits``, not both.

    Everything goes through the inner ``Categorical`` as in PyTorch: ``sample`` is
    ``one_hot(Categorical.sample())`` (PyTorch's numbers after the same seed), ``log_prob``
    the Categorical's at ``value.max(-1)``'s index, ``entropy`` the Categorical's.

    Raises:
        ValueError: the Categorical's (both or neither parameter, a 0-dim one, with validation
            probabilities off the simplex); with validation on, a ``log_prob`` value that is
            not one-hot (``constraints.one_hot``).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """The inner Categorical's normalized probabilities."""
        return self._categorical.probs

    @property
    def logits(self):
        """The inner Categorical's normalized logits."""
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        """The one-hot vector of the most probable category."""
        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return _mg.nn.functional.one_hot(mode, num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=()):
        """One-hot samples of shape ``sample_shape + batch_shape + (K,)``, in the parameter's
        dtype."""
        probs = self._categorical.probs
        indices = self._categorical.sample(_mg.Size(sample_shape))
        return _mg.nn.functional.one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value):
        """The Categorical's ``log_prob`` of ``value.max(-1)``'s index."""
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        """The Categorical's entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The ``K`` one-hot vectors, shaped ``(K,) + (1,) * len(batch_shape) + (K,)``,
        expanded over the batch when ``expand``."""
        n = self.event_shape[0]
        values = _mg.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values
