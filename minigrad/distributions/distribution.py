"""``Distribution``, the base class (``torch.distributions.distribution.Distribution``)."""
from __future__ import annotations

import minigrad as _mg

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Base class of probability distributions (``torch.distributions.Distribution``).

    Holds ``batch_shape`` and ``event_shape``; with argument validation on (the default, as
    PyTorch's ``__debug__`` default; ``Distribution.set_default_validate_args(False)`` or
    ``validate_args=False`` turns it off) the constructor checks each parameter against
    ``arg_constraints`` and ``log_prob`` checks its value against ``support``, raising
    ValueError with PyTorch's messages.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution built afterwards.

        Raises:
            ValueError: ``value`` not a bool.
        """
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _mg.Size(batch_shape)
        self._event_shape = _mg.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                             lazy_property):
                    continue           # a parameter derived lazily is not checked
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """Parameter name -> ``Constraint``."""
        raise NotImplementedError

    @property
    def support(self):
        """The ``Constraint`` of the values."""
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self):
        """``variance.sqrt()``."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient
        (``rsample`` under ``no_grad``)."""
        with _mg.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterized sample (differentiable in the parameters), where supported."""
        raise NotImplementedError

    def sample_n(self, n: int):
        """``sample((n,))``."""
        return self.sample(_mg.Size((n,)))

    def log_prob(self, value):
        """Log of the density/mass at ``value``."""
        raise NotImplementedError

    def entropy(self):
        """Entropy, over ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy())``."""
        return _mg.exp(self.entropy())

    def _extended_shape(self, sample_shape=()):
        return _mg.Size(tuple(sample_shape) + tuple(self._batch_shape) +
                        tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        """PyTorch's checks of a value given to ``log_prob``.

        Raises:
            ValueError: ``value`` not a Tensor, of a shape that does not broadcast with
                ``batch_shape + event_shape``, or outside the support.
        """
        if not isinstance(value, _mg.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = len(value.size()) - len(self._event_shape)
        if value.size()[start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        support = self.support
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in names)
        return self.__class__.__name__ + "(" + args + ")"
