"""Random sampling ops that make new tensors: ``bernoulli`` (tensor or float ``p``),
``multinomial``, ``randint_like`` and the ``normal`` overloads with tensor mean/std (the in-place
fills ``normal_``, ``uniform_``... are in ``random_fill.py``).

Every op takes ``generator=`` (a ``minigrad.Generator``; None: the global one) and draws as
PyTorch's CPU kernels do (``_distributions``): after the same ``manual_seed`` the samples are
PyTorch's. Distributions, ranges, dtypes, errors and graph nodes are PyTorch's too.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op, register_packet
from ..numerics import scalar_add
from ..random import _gen
from ..tensor import Tensor
from . import _distributions as D
from ._util import broadcast_shapes, wrap
from .factory import _convert, _device_of, _finish, _like


def _draw_dtype(dt):
    return np.float64 if dt is _dt.float64 else np.float32


def _not_implemented(kernel, dt):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dt.scalar_name}\'')


def _check_tensor(x, fn, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


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
    arr = D.randint(_gen(generator), int(np.prod(shape)), low, high).reshape(shape)
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


def _bernoulli_draw(shape, p, generator, p_dtype=None):
    """1.0 where a uniform falls below ``p`` (a float, or an array of dtype ``p_dtype``
    broadcast to ``shape``), else 0.0: ``bernoulli_(p)`` / ``bernoulli_(p_tensor)``."""
    g = _gen(generator)
    if p_dtype is None:
        draw = D.bernoulli_scalar(g, int(np.prod(shape)), p).reshape(shape)
    else:
        draw = D.bernoulli_tensor(g, np.broadcast_to(p, shape), p_dtype)
    return draw.astype(np.float64)


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
        return wrap(_bernoulli_draw(input.shape, pr, generator, input.dtype), input.dtype)

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
    out = D.multinomial(_gen(generator), w, num_samples, replacement, input.dtype)
    out = out.astype(np.int64).reshape(input.shape[:-1] + (num_samples,))
    return Tensor._make(out, _dt.int64)


# ------------------------------------------------------------------------------- normal overloads
class _NormalTensor(Function):
    """``normal`` with tensor mean and/or std, broadcast, as PyTorch's ``normal_out_impl``:
    ``normal_(0, std).add_(mean)`` for a float std, ``normal_(0, 1).mul_(std).add_(mean)`` for
    a tensor std, each step rounded into the dtype; zero gradients (``NormalBackward1/2/3``)."""

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
        n = int(np.prod(shape))
        op = dt.opmath.np
        m = mean._data.astype(op) if isinstance(mean, Tensor) else scalar_add(float(mean), dt)
        if isinstance(std, Tensor):     # normal_(0, 1), then mul_(std), add_(mean)
            z = D.normal(_gen(generator), n, 0.0, 1.0, dt).reshape(shape)
            z = (z.astype(op) * std._data.astype(op)).astype(dt.np)
        else:                           # normal_(0, std), then add_(mean)
            z = D.normal(_gen(generator), n, 0.0, float(std), dt).reshape(shape)
        ctx.shapes = [tuple(t.shape) if isinstance(t, Tensor) else None for t in (mean, std)]
        return wrap(z.astype(op) + m, dt)

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
