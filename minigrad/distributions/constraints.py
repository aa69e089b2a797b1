"""The constraints the distributions here validate against (``torch.distributions.constraints``):
``check(value)`` returns a bool tensor, ``repr`` is PyTorch's."""
from __future__ import annotations

import minigrad as _mg

__all__ = ["Constraint", "real", "real_vector", "positive", "simplex", "boolean",
           "unit_interval", "integer_interval", "nonnegative_integer", "is_dependent"]


class Constraint:
    """Base class (``torch.distributions.constraints.Constraint``): ``is_discrete``,
    ``event_dim`` and ``check(value)`` (a bool Tensor, True where ``value`` is valid, over the
    batch shape)."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A bool Tensor: where ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Real(Constraint):
    def check(self, value):
        return value == value                # not NaN


class _IndependentReal(Constraint):
    """``independent(real, 1)`` (PyTorch's ``real_vector``): the last dim all real."""

    event_dim = 1

    def check(self, value):
        return (value == value).all(-1)

    def __repr__(self):
        return "IndependentConstraint(Real(), 1)"


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return _mg.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"IntegerInterval(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


def is_dependent(constraint) -> bool:
    """Whether ``constraint`` depends on other parameters (none here can be)."""
    return False


real = _Real()
real_vector = _IndependentReal()
positive = _GreaterThan(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
boolean = _Boolean()
nonnegative_integer = _IntegerGreaterThan(0)
integer_interval = _IntegerInterval
greater_than = _GreaterThan
interval = _Interval
