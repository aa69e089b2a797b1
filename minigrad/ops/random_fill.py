"""The random in-place fills: ``normal_``, ``uniform_``, ``exponential_``, ``cauchy_``,
``log_normal_``, ``geometric_``, ``random_``, ``bernoulli_`` (float or tensor ``p``).

Each is a write through the dispatcher: a registered op that runs ``inplace.run_inplace``
(autograd's in-place checks, the version bump, history rebased onto a node whose gradient is
zero: ``NormalBackward0``, ``UniformBackward0``, ``BernoulliBackward1/2``... as PyTorch). Draws
as PyTorch's CPU kernels (``_distributions``): the same seed gives PyTorch's samples.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op, register_packet
from ..random import _gen
from ..tensor import Tensor
from . import _distributions as D
from ._util import broadcast_shapes
from .factory import _convert
from .inplace import run_inplace
from .sampling import _bernoulli_draw, _check_p, _check_probs, _check_tensor, _not_implemented


class _RandomFill(Function):
    """Base of the fill nodes: the forward draws new values of ``input``'s shape and dtype; the
    gradient with respect to the old values is zero (PyTorch's ``zeros_like(grad)``)."""

    @staticmethod
    def backward(ctx, grad):
        return (dispatch("zeros_like", grad),) + (None,) * (ctx._n_args - 1)


def _fill_class(node_name, draw):
    """A ``_RandomFill`` whose forward is ``draw(input, *args) -> array``."""
    def forward(ctx, input, *args):
        ctx._n_args = 1 + len(args)
        arr = D.memory_order(np.asarray(draw(input, *args)), input._data)
        return Tensor._make(_convert(arr, input.dtype), input.dtype)
    return type(node_name.replace("Backward", "Fill"), (_RandomFill,),
                {"_backward_name": node_name, "forward": staticmethod(forward)})


# ------------------------------------------------------------------------------- normal_, uniform_
def _normal(input, mean, std, generator):
    a = input._data
    out = D.normal(_gen(generator), a.size, mean, std, input.dtype, a.flags.c_contiguous)
    return out.reshape(a.shape)


def _uniform(input, lo, hi, generator):
    return D.uniform(_gen(generator), input.numel(), lo, hi, input.dtype).reshape(input.shape)


def _exponential(input, lambd, generator):
    return D.exponential(_gen(generator), input.numel(), lambd).reshape(input.shape)


_NormalFill = _fill_class("NormalBackward0", _normal)
_UniformFill = _fill_class("UniformBackward0", _uniform)
_ExponentialFill = _fill_class("ExponentialBackward0", _exponential)


@register_op("normal_")
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill ``self`` in place with N(mean, std^2) samples (``Tensor.normal_``); returns self.

    Raises:
        NotImplementedError: a non-floating ``self`` ("normal_kernel_cpu" not implemented).
        RuntimeError: ``std < 0`` ("normal expects std >= 0.0, but found std -1"); autograd's
            in-place errors (a leaf that requires grad...).
    """
    _check_tensor(self, "normal_", "self")
    if not self.dtype.is_floating_point:
        raise _not_implemented("normal_kernel_cpu", self.dtype)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return run_inplace(self, _NormalFill.apply, float(mean), float(std), generator)


@register_op("uniform_")
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    """Fill ``self`` in place with U[from, to) samples (``Tensor.uniform_(from=0, to=1)``; the
    keyword ``from`` is accepted as PyTorch's). Returns self.

    Raises:
        NotImplementedError: a non-floating ``self`` ("check_uniform_bounds" not implemented).
        RuntimeError: ``from > to`` ("uniform_ expects to return a [from, to) range, but found
            from=2 > to=1").
    """
    _check_tensor(self, "uniform_", "self")
    from_ = kw.pop("from", from_)
    if kw:
        raise TypeError(f"uniform_() got an unexpected keyword argument {next(iter(kw))!r}")
    if not self.dtype.is_floating_point:
        raise _not_implemented("check_uniform_bounds", self.dtype)
    if from_ > to:
        raise RuntimeError("uniform_ expects to return a [from, to) range, but found "
                           f"from={from_:g} > to={to:g}")
    return run_inplace(self, _UniformFill.apply, float(from_), float(to), generator)


@register_op("exponential_")
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill ``self`` in place with Exp(lambd) samples (``Tensor.exponential_``); returns self.

    Raises:
        RuntimeError: ``lambd <= 0`` ("exponential_ expects lambda > 0.0, but found lambda=0");
            a non-floating ``self`` ("Exponential distribution is a continuous probability
            distribution. dtype must be a floating point but you specified Long").
    """
    _check_tensor(self, "exponential_", "self")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if not self.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{self.dtype.scalar_name}")
    return run_inplace(self, _ExponentialFill.apply, float(lambd), generator)


# ------------------------------------------------------------------------- cauchy_, log_normal_
def _cauchy(input, median, sigma, generator):
    return D.cauchy(_gen(generator), input.numel(), median, sigma).reshape(input.shape)


def _log_normal(input, mean, std, generator):
    return D.log_normal(_gen(generator), input.numel(), mean, std).reshape(input.shape)


def _geometric(input, p, generator):
    return D.geometric(_gen(generator), input.numel(), p).reshape(input.shape)


_CauchyFill = _fill_class("CauchyBackward0", _cauchy)
_LogNormalFill = _fill_class("LogNormalBackward0", _log_normal)
_GeometricFill = _fill_class("GeometricBackward0", _geometric)


@register_op("cauchy_")
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill ``self`` in place with Cauchy(median, sigma) samples (``Tensor.cauchy_``), drawn as
    PyTorch's CPU kernel (one 53-bit uniform per element, in order); returns self.

    Raises:
        RuntimeError: ``sigma <= 0`` ("cauchy_ expects sigma > 0.0, but found sigma=0"); a
            non-floating ``self`` ("Cauchy distribution is a continuous probability
            distribution. dtype must be a floating point but you specified long int", the C++
            type name, as PyTorch).
    """
    _check_tensor(self, "cauchy_", "self")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if not self.dtype.is_floating_point:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{self.dtype.cpp_name}")
    return run_inplace(self, _CauchyFill.apply, float(median), float(sigma), generator)


@register_op("log_normal_")
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill ``self`` in place with LogNormal(mean, std) samples, ``exp(N(mean, std^2))``
    (``Tensor.log_normal_``), drawn as PyTorch's CPU kernel (``normal_distribution<double>``
    per element, pairs cached in the generator); returns self.

    Raises:
        RuntimeError: ``std <= 0`` ("log_normal_ expects std > 0.0, but found std=0").
        NotImplementedError: a non-floating ``self`` ('"log_normal_cpu" not implemented for
            'Long'').
    """
    _check_tensor(self, "log_normal_", "self")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if not self.dtype.is_floating_point:
        raise _not_implemented("log_normal_cpu", self.dtype)
    return run_inplace(self, _LogNormalFill.apply, float(mean), float(std), generator)


@register_op("geometric_")
def geometric_(self, p, *, generator=None):
    """Fill ``self`` in place with Geometric(p) samples on {1, 2, ...} (the number of Bernoulli
    trials to the first success; ``Tensor.geometric_``), drawn as PyTorch's CPU kernel; any
    numeric dtype but bool (integers take the value converted, as PyTorch's cast). Returns self.

    Raises:
        RuntimeError: ``p`` outside (0, 1) ("geometric_ expects p to be in (0, 1), but got
            p=0").
        NotImplementedError: a bool ``self`` ('"geometric_cpu" not implemented for 'Bool'').
    """
    _check_tensor(self, "geometric_", "self")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self.dtype is _dt.bool_:
        raise _not_implemented("geometric_cpu", self.dtype)
    return run_inplace(self, _GeometricFill.apply, float(p), generator)


# ------------------------------------------------------------------------------- random_
def _full_range(dt):
    """``random_()``'s range for ``dt``, inclusive: [0, 2**digits] for floating types (every
    integer there is exact), [0, max] for integers, {0, 1} for bool."""
    if dt is _dt.bool_:
        return 0, 1
    if dt.is_floating_point:
        digits = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}[dt.name]
        return 0, 2 ** digits
    return 0, int(np.iinfo(dt.np).max)


def _check_bound(v, dt, what):
    if dt is _dt.bool_:
        lo, hi = 0, 1
    elif dt.is_floating_point:
        m = float(_dt.finfo(dt).max)
        lo, hi = -m, m
    else:
        info = np.iinfo(dt.np)
        lo, hi = int(info.min), int(info.max)
    if not lo <= v <= hi:
        raise RuntimeError(f"{what} is out of bounds for {dt.c10_name}")


def _random(input, lo, hi, generator, full=False):
    """Integers uniform in [lo, hi] (inclusive) as ``input``'s dtype; ``full``: ``random_()``'s
    own range, drawn as its kernel draws it."""
    g, n = _gen(generator), input.numel()
    arr = D.random_full(g, n, input.dtype) if full else D.randint(g, n, lo, hi + 1)
    arr = arr.reshape(input.shape)
    return arr.astype(np.float64) if input.dtype.is_floating_point else arr


_RandomFillFrom = _fill_class("RandomBackward0", _random)


@register_op("random_")
def random_(self, from_=None, to=None, *, generator=None):
    """Fill ``self`` in place with random integers (``Tensor.random_``): ``random_()`` draws
    from [0, 2**mantissa_digits] for floating dtypes ([0, max] for integers), ``random_(to)``
    from [0, to), ``random_(from, to)`` from [from, to).
    Returns self.

    Raises:
        RuntimeError: ``from >= to`` ("random_ expects 'from' to be less than 'to', but got
            from=5 >= to=2"); a bound outside the dtype ("to - 1 is out of bounds for
            c10::Half").
    """
    _check_tensor(self, "random_", "self")
    dt = self.dtype
    if from_ is None and to is None:
        lo, hi = _full_range(dt)
    else:
        if to is None:
            lo, hi_excl = 0, from_           # random_(to)
        else:
            lo, hi_excl = from_, to
        if lo >= hi_excl:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={lo} >= to={hi_excl}")
        _check_bound(lo, dt, "from")
        _check_bound(hi_excl - 1, dt, "to - 1")
        hi = hi_excl - 1
    return run_inplace(self, _RandomFillFrom.apply, int(lo), int(hi), generator,
                       from_ is None and to is None)


def _bern_tensor(input, p, generator):
    pr = p._data.astype(np.float64)
    _check_probs(pr)
    try:
        broadcast_shapes(input.shape, p.shape)
        np.broadcast_to(pr, input.shape)
    except (RuntimeError, ValueError):
        raise RuntimeError(f"expand(torch.{p.dtype.name}Tensor{{{list(p.shape)}}}, size="
                           f"{list(input.shape)}): the number of sizes provided "
                           f"({input.ndim}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({p.ndim})") from None
    return _bernoulli_draw(input.shape, pr, generator, p.dtype)


_BernoulliFillFloat = _fill_class("BernoulliBackward2",
                                  lambda x, p, g: _bernoulli_draw(x.shape, p, g))


class _BernoulliFillTensor(_RandomFill):
    _backward_name = "BernoulliBackward1"

    @staticmethod
    def forward(ctx, input, p, generator):
        arr = D.memory_order(_bern_tensor(input, p, generator), input._data)
        return Tensor._make(_convert(arr, input.dtype), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("zeros_like", grad), None, None


@register_op("bernoulli_.float")
def bernoulli_float_(self, p=0.5, *, generator=None):
    """Fill ``self`` in place with 0/1 draws of probability ``p`` (``Tensor.bernoulli_(p)``);
    any dtype (bool and integers too, as PyTorch). Returns self.

    Raises:
        RuntimeError: ``p`` outside [0, 1] ("bernoulli_ expects p to be in [0, 1], but got
            p=1.5").
    """
    _check_tensor(self, "bernoulli_", "self")
    _check_p(p)
    return run_inplace(self, _BernoulliFillFloat.apply, float(p), generator)


@register_op("bernoulli_.Tensor")
def bernoulli_tensor_(self, p, *, generator=None):
    """Fill ``self`` in place with 0/1 draws of the probabilities ``p`` (a tensor broadcast to
    ``self``'s shape; ``Tensor.bernoulli_(p_tensor)``). Returns self.

    Raises:
        RuntimeError: a probability outside [0, 1] (PyTorch's "Expected p_in >= 0 && p_in <= 1
            to be true, but got false." message).
    """
    _check_tensor(self, "bernoulli_", "self")
    return run_inplace(self, _BernoulliFillTensor.apply, p, generator)


@register_packet("bernoulli_")
def _bernoulli_overload(args, kwargs):
    """``bernoulli_`` -> ``bernoulli_.Tensor`` for a tensor ``p``, else ``bernoulli_.float``."""
    p = args[1] if len(args) > 1 else kwargs.get("p")
    return ("bernoulli_.Tensor" if isinstance(p, Tensor) else "bernoulli_.float"), args, kwargs
