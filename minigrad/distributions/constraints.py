"""The constraints the distributions here validate against (``torch.distributions.constraints``):
``check(value)`` returns a bool tensor, ``repr`` is PyTorch's."""
from __future__ import annotations

import minigrad as _mg

__all__ = ["Constraint", "real", "real_vector", "positive", "nonnegative", "simplex",
           "boolean", "unit_interval", "integer_interval", "nonnegative_integer", "is_dependent",
           "dependent", "independent", "interval", "greater_than", "greater_than_eq",
           "less_than", "one_hot", "lower_cholesky", "positive_definite", "square", "symmetric"]


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


class _GreaterThanEq(Constraint):
    """``value >= lower_bound`` (``constraints.greater_than_eq``)."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound <= value

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    """``value < upper_bound`` (``constraints.less_than``)."""

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


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


class _Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters (``Uniform``'s ``low``
    and ``high``): never checked (PyTorch's ``constraints.dependent``)."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete=False, event_dim=0):
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


class _IndependentConstraint(Constraint):
    """``base`` over the rightmost ``reinterpreted_batch_ndims`` dims as one event: valid where
    every element of the event is (``constraints.independent``)."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(result.shape[:result.dim() - self.reinterpreted_batch_ndims]
                                + (-1,))
        return result.all(-1)

    def __repr__(self):
        return (f"IndependentConstraint({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class _OneHot(Constraint):
    """One-hot vectors over the last dim: 0/1 entries summing to 1 (``constraints.one_hot``)."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal (``constraints.lower_cholesky``)."""

    event_dim = 2

    def check(self, value):
        lower_triangular = (value.tril() == value).view(
            tuple(value.shape[:-2]) + (-1,)).min(-1)[0]
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return lower_triangular & positive_diagonal


class _Square(Constraint):
    """Square matrices (``constraints.square``): one bool per matrix of the batch."""

    event_dim = 2

    def check(self, value):
        return _mg.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                        dtype=_mg.bool, device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transpose within ``atol=1e-6`` (``isclose``,
    ``constraints.symmetric``)."""

    def check(self, value):
        square_check = super().check(value)
        if not bool(square_check.all()):
            return square_check
        return _mg.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices whose Cholesky factorization succeeds
    (``constraints.positive_definite``)."""

    def check(self, value):
        sym_check = super().check(value)
        if not bool(sym_check.all()):
            return sym_check
        return _mg.linalg.cholesky_ex(value).info.eq(0)


def is_dependent(constraint) -> bool:
    """Whether ``constraint`` depends on other parameters (``dependent``)."""
    return isinstance(constraint, _Dependent)


dependent = _Dependent()
independent = _IndependentConstraint
real = _Real()
real_vector = _IndependentReal()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
boolean = _Boolean()
nonnegative_integer = _IntegerGreaterThan(0)
integer_interval = _IntegerInterval
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
interval = _Interval
one_hot = _OneHot()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
