"""Random sampling ops: ``bernoulli``, ``multinomial``, the in-place fills ``normal_``,
``uniform_``, ``exponential_``, ``random_``, ``bernoulli_``, ``randint_like`` and the ``normal``
overloads with tensor mean/std.

Every op takes ``generator=`` (a ``minigrad.Generator``; None: the global one) and draws from its
NumPy PCG64 stream, in float64 for float64 results and in float32 otherwise (PyTorch draws 16-bit
samples in float too), rounded once into the result dtype. Deliberate difference: the streams are
not PyTorch's (see ``minigrad.random``); distributions, ranges, dtypes, errors and graph nodes
are.

The in-place fills are writes through the dispatcher: each is a registered op that runs
``inplace.run_inplace`` (autograd's in-place checks, version bump, history rebased onto a node
whose gradient is zero: ``NormalBackward0``, ``UniformBackward0``... as PyTorch).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op, register_packet
from ..random import _gen
from ..tensor import Tensor
from ._util import broadcast_shapes, wrap
from .factory import _convert, _device_of, _finish, _like
from .inplace import run_inplace


def _draw_dtype(dt):
    return np.float64 if dt is _dt.float64 else np.float32


def _not_implemented(kernel, dt):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dt.scalar_name}\'')


def _check_tensor(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


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
        return Tensor._make(_convert(np.asarray(draw(input, *args)), input.dtype), input.dtype)
    return type(node_name.replace("Backward", "Fill"), (_RandomFill,),
                {"_backward_name": node_name, "forward": staticmethod(forward)})


# ------------------------------------------------------------------------------- normal_, uniform_
def _normal(input, mean, std, generator):
    g = _gen(generator)
    return g.normal(0.0, 1.0, input.shape).astype(_draw_dtype(input.dtype)) * \
        _draw_dtype(input.dtype)(std) + _draw_dtype(input.dtype)(mean)


def _uniform(input, lo, hi, generator):
    d = _draw_dtype(input.dtype)
    u = _gen(generator).random(input.shape, dtype=d)
    out = u * (d(hi) - d(lo)) + d(lo)
    return np.minimum(out, np.nextafter(d(hi), d(lo))) if hi > lo else out


def _exponential(input, lambd, generator):
    d = _draw_dtype(input.dtype)
    return (_gen(generator).standard_exponential(input.shape, dtype=d) / d(lambd))


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


def _random(input, lo, hi, generator):
    """Integers uniform in [lo, hi] (inclusive) as ``input``'s dtype."""
    arr = _gen(generator).integers(lo, hi, input.shape, dtype=np.int64, endpoint=True) \
        if hi < 2 ** 63 else _gen(generator).integers(lo, hi, input.shape, dtype=np.uint64,
                                                      endpoint=True)
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
    return run_inplace(self, _RandomFillFrom.apply, int(lo), int(hi), generator)


@register_op("randint_like")
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None):
    """Integers uniform in [low, high) with ``input``'s shape, dtype and device
    (``torch.randint_like(input, high)`` / ``(input, low, high)``).

    Raises:
        RuntimeError: ``low >= high`` (random_'s message).
    """
    if high is None:
        low, high = 0, low
    shape, dt = _like(input, dtype)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    arr = _gen(generator).integers(low, high, shape, dtype=np.int64)
    out = Tensor._make(_convert(arr, dt), dt)
    return _finish(out, requires_grad, _device_of(input, device))


# ------------------------------------------------------------------------------- bernoulli
def _check_probs(p):
    if p.size and not (np.all(p >= 0) and np.all(p <= 1)):    # NaN fails too
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


def _bernoulli_draw(shape, p, generator):
    """1.0 where a float64 uniform falls below ``p`` (broadcast to ``shape``), else 0.0."""
    u = _gen(generator).random(shape)
    return (u < np.broadcast_to(p, shape)).astype(np.float64)


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
    return _bernoulli_draw(input.shape, pr, generator)


_BernoulliFillFloat = _fill_class("BernoulliBackward2",
                                  lambda x, p, g: _bernoulli_draw(x.shape, p, g))


class _BernoulliFillTensor(_RandomFill):
    _backward_name = "BernoulliBackward1"

    @staticmethod
    def forward(ctx, input, p, generator):
        return Tensor._make(_convert(_bern_tensor(input, p, generator), input.dtype), input.dtype)

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


@register_op("bernoulli")
class Bernoulli(Function):
    """``bernoulli(input, *, generator=None)``: 0/1 draws with the probabilities in ``input``,
    in ``input``'s (floating) dtype (``torch.bernoulli``; node ``BernoulliBackward0``, zero
    gradient).

    Raises:
        NotImplementedError: a non-floating ``input`` ("bernoulli_tensor_cpu_p_" not
            implemented for 'Long').
        RuntimeError: a probability outside [0, 1].
    """

    _backward_name = "BernoulliBackward0"

    @staticmethod
    def forward(ctx, input, *, generator=None):
        _check_tensor(input, "bernoulli")
        if not input.dtype.is_floating_point:
            raise _not_implemented("bernoulli_tensor_cpu_p_", input.dtype)
        pr = input._data.astype(np.float64)
        _check_probs(pr)
        return wrap(_bernoulli_draw(input.shape, pr, generator), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("zeros_like", grad)


class _BernoulliP(Function):
    """``bernoulli.p``: PyTorch gives it no derivative (a ``NotImplemented`` node)."""

    _backward_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, input, p, generator):
        _check_p(p)
        return wrap(_bernoulli_draw(input.shape, float(p), generator), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::bernoulli is not implemented")


@register_op("bernoulli.p")
def bernoulli_p(input, p, *, generator=None):
    """``torch.bernoulli(input, p)``: 0/1 draws of probability ``p`` in ``input``'s shape and
    dtype (any dtype).

    Raises:
        RuntimeError: ``p`` outside [0, 1].
    """
    _check_tensor(input, "bernoulli")
    return _BernoulliP.apply(input, p, generator)


# ------------------------------------------------------------------------------- multinomial
def _check_multinomial(input, n, replacement):
    _check_tensor(input, "multinomial")
    if not input.dtype.is_floating_point:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype.scalar_name}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type(n).__name__}")
    if not replacement and n > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    w = input._data.astype(np.float64).reshape(-1, input.shape[-1]) if input.numel() else \
        np.zeros((1, 0))
    if not replacement or n == 1:           # PyTorch's fast path checks the whole tensor
        if not (np.all(w >= 0) and np.all(w < np.inf)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    else:                                   # the with-replacement kernel, element by element
        for row in w:
            bad = ~(row >= 0) | ~np.isfinite(row)
            if bad.any():
                v = row[np.argmax(bad)]
                what = "< 0" if not v >= 0 else "= infinity or NaN"
                raise RuntimeError(f"invalid multinomial distribution (encountering probability "
                                   f"entry {what})")
    if not np.all(w.sum(axis=1) > 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return w


@register_op("multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` category indices per row of ``input`` (1-d or 2-d non-negative weights,
    not necessarily normalised), int64 (``torch.multinomial``).

    As PyTorch's CPU kernel: with replacement and more than one sample, inverse-CDF sampling
    (uniforms searched in the normalised cumulative weights); otherwise the exponential race,
    the ``num_samples`` largest keys ``w / Exp(1)`` in descending order (zero weights come
    last, in index order). The two paths check their input with different messages, as
    PyTorch's.

    Raises:
        RuntimeError: PyTorch's messages for a non-floating input, a 0-d or >2-d input,
            ``num_samples <= 0``, more samples than categories without replacement, a
            negative/inf/NaN weight ("probability tensor contains either `inf`, `nan` or element
            < 0" on the race path, "invalid multinomial distribution (encountering probability
            entry < 0)" on the CDF path), a row summing to 0.
    """
    w = _check_multinomial(input, num_samples, replacement)
    g = _gen(generator)
    if replacement and num_samples > 1:
        cdf = np.cumsum(w, axis=1)
        cdf /= cdf[:, -1:]
        u = g.random((w.shape[0], num_samples))
        out = np.stack([np.searchsorted(c, r, side="right") for c, r in zip(cdf, u)])
        out = np.minimum(out, w.shape[1] - 1)
    else:
        keys = w / g.standard_exponential(w.shape)
        out = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    out = out.astype(np.int64).reshape(input.shape[:-1] + (num_samples,))
    return Tensor._make(out, _dt.int64)


# ------------------------------------------------------------------------------- normal overloads
class _NormalTensor(Function):
    """``normal`` with tensor mean and/or std: ``mean + std * N(0, 1)`` broadcast, computed in
    the draw dtype and rounded once; zero gradients (PyTorch's ``NormalBackward1/2/3``)."""

    @staticmethod
    def forward(ctx, mean, std, generator):
        ts = [t for t in (mean, std) if isinstance(t, Tensor)]
        dt = ts[0].dtype if len(ts) == 1 else _dt.promote_types(ts[0].dtype, ts[1].dtype)
        if not dt.is_floating_point:
            raise _not_implemented("normal_kernel_cpu", dt)
        if isinstance(std, Tensor):
            if std.numel() and not np.all(std._data.astype(np.float64) >= 0):
                raise RuntimeError("normal expects all elements of std >= 0.0")
        elif std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        shape = broadcast_shapes(*(tuple(t.shape) for t in ts))
        d = _draw_dtype(dt)
        m = mean._data.astype(d) if isinstance(mean, Tensor) else d(mean)
        s = std._data.astype(d) if isinstance(std, Tensor) else d(std)
        z = _gen(generator).standard_normal(shape, dtype=d)
        ctx.shapes = [tuple(t.shape) if isinstance(t, Tensor) else None for t in (mean, std)]
        return wrap(m + s * z, dt)

    @staticmethod
    def backward(ctx, grad):
        outs = []
        for shp in ctx.shapes:
            outs.append(None if shp is None else dispatch("zeros", shp, dtype=grad.dtype,
                                                          device=grad.device))
        return outs[0], outs[1], None


def _normal_node(name):
    return type(name.replace("Backward", "Normal"), (_NormalTensor,), {"_backward_name": name})


_NormalTF, _NormalFT, _NormalTT = (_normal_node(f"NormalBackward{i}") for i in (1, 2, 3))


@register_op("normal.Tensor_float")
def normal_tensor_float(mean, std=1.0, *, generator=None):
    """``torch.normal(mean_tensor, std=1.0)``: one sample per element of ``mean``.

    Raises:
        NotImplementedError: integer ``mean``. RuntimeError: ``std < 0``.
    """
    return _NormalTF.apply(mean, std, generator)


@register_op("normal.float_Tensor")
def normal_float_tensor(mean, std, *, generator=None):
    """``torch.normal(mean_float, std_tensor)``.

    Raises:
        RuntimeError: a negative std element ("normal expects all elements of std >= 0.0").
    """
    return _NormalFT.apply(mean, std, generator)


@register_op("normal.Tensor_Tensor")
def normal_tensor_tensor(mean, std, *, generator=None):
    """``torch.normal(mean_tensor, std_tensor)``; the shapes broadcast.

    Raises:
        RuntimeError: a negative std element; shapes that do not broadcast.
    """
    return _NormalTT.apply(mean, std, generator)


@register_packet("normal")
def _normal_overload(args, kwargs):
    """``normal`` -> the overload of its (mean, std) kinds: ``float_float`` needs a size."""
    mean = args[0] if args else kwargs.get("mean", 0.0)
    std = args[1] if len(args) > 1 else kwargs.get("std", 1.0)
    if isinstance(mean, Tensor):
        name = "normal.Tensor_Tensor" if isinstance(std, Tensor) else "normal.Tensor_float"
    else:
        name = "normal.float_Tensor" if isinstance(std, Tensor) else "normal.float_float"
    return name, args, kwargs
