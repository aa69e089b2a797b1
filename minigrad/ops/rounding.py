"""Rounding and value limits: floor, ceil, trunc, round (with ``decimals``), frac, clamp_min,
clamp_max, nan_to_num.

floor/ceil/trunc/round and nan_to_num are exact in the input's own format (``KEEP_DTYPE``;
integer inputs come back unchanged); ``round`` rounds half to even, as ``std::nearbyint``.
``round(decimals=d)`` and ``frac`` compute in opmath (fp32 for 16-bit) with one rounding, as
ATen's kernels. ``clamp_min``/``clamp_max`` promote like ``clamp`` and select exactly, the bound
converted to the result dtype first.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .kernel import EXACT, FLOAT_OPMATH, KEEP_DTYPE, Kernel
from .piecewise_activation import float_only


def _zero_grad(ctx, grad):
    return dispatch("zeros_like", grad)


def _exact(fn):
    """An exact float rounding on storage arrays: 16-bit via fp32 (exact both ways)."""
    def kernel(dtype, a):
        if not dtype.is_floating_point:
            return a.copy()
        if a.dtype.itemsize == 2:
            return fn(a.astype(np.float32)).astype(a.dtype)
        return fn(a)
    return staticmethod(kernel)


class _Rounding(Kernel):
    rule = KEEP_DTYPE
    backward = staticmethod(_zero_grad)

    @classmethod
    def check(cls, input):
        if isinstance(input, Tensor) and input.dtype is _dt.bool_:
            raise NotImplementedError(f"\"{cls._op_name}_vml_cpu\" not implemented for 'Bool'")


@register_op("floor")
class Floor(_Rounding):
    """``floor(input)`` (``torch.floor``): dtype kept, exact; zero gradient
    (``FloorBackward0``)."""

    _backward_name = "FloorBackward0"
    kernel = _exact(np.floor)


@register_op("ceil")
class Ceil(_Rounding):
    """``ceil(input)`` (``torch.ceil``): dtype kept, exact; zero gradient (``CeilBackward0``)."""

    _backward_name = "CeilBackward0"
    kernel = _exact(np.ceil)


@register_op("trunc")
class Trunc(_Rounding):
    """``trunc(input)`` (``torch.trunc``, ``torch.fix``): rounds toward zero, dtype kept,
    exact; zero gradient (``TruncBackward0``)."""

    _backward_name = "TruncBackward0"
    kernel = _exact(np.trunc)


@register_op("round")
class Round(_Rounding):
    """``round(input)`` (``torch.round``): nearest integer, halves to even; dtype kept, exact;
    zero gradient (``RoundBackward0``)."""

    _backward_name = "RoundBackward0"
    kernel = _exact(np.rint)


@register_op("round.decimals")
class RoundDecimals(Kernel):
    """``round(input, decimals=d)`` (``torch.round``): ATen's ``nearbyint(x * 10**d) / 10**d``
    (``d < 0``: ``nearbyint(x / 10**-d) * 10**-d``) in opmath with ``10**d`` rounded to it, one
    rounding for 16-bit; zero gradient (``RoundBackward1``).

    Raises:
        NotImplementedError: integer or bool input ('"round_cpu" not implemented for ...').
    """

    rule = FLOAT_OPMATH
    args = ("input", "decimals")
    _backward_name = "RoundBackward1"
    backward = staticmethod(_zero_grad)

    check = float_only("round_cpu")

    @staticmethod
    def kernel(dtype, x, decimals=0):
        if decimals >= 0:
            p = x.dtype.type(10.0 ** decimals)
            return np.rint(x * p) / p
        p = x.dtype.type(10.0 ** -decimals)
        return np.rint(x / p) * p


@register_op("frac")
class Frac(Kernel):
    """``frac(input)`` = ``x - trunc(x)`` with the sign of ``x`` (``torch.frac``), in opmath;
    backward passes the gradient (``FracBackward0``).

    Raises:
        NotImplementedError: integer or bool input ('"frac_cpu" not implemented for ...').
    """

    rule = FLOAT_OPMATH
    _backward_name = "FracBackward0"

    check = float_only("frac_cpu")

    @staticmethod
    def kernel(dtype, x):
        return x - np.trunc(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


# ---------------------------------------------------------------------------------- clamp_min/max
def _check_bound(bound, op):
    if bound is None or isinstance(bound, bool) or not isinstance(
            bound, (int, float, np.number, Tensor)):
        raise TypeError(f"{op}(): argument '{op[-3:]}' must be Number or Tensor, not "
                        f"{type(bound).__name__}")


def _select(x, bound, take_bound):
    """``bound`` where ``take_bound`` else ``x``, NaN in either propagating (ATen's clamp)."""
    out = np.where(take_bound, bound, x)
    if x.dtype.kind == "f" or x.dtype.itemsize == 2:
        nan = np.isnan(np.asarray(bound, np.float64)) if np.ndim(bound) else \
            np.isnan(float(bound))
        out = np.where(nan, bound, out)
    return out.astype(x.dtype, copy=False)


class _ClampBound(Kernel):
    rule = EXACT
    args = ("input", "bound")
    operands = 2
    saves = ("input", "bound")
    lower = True
    _tensor_bound = False

    @classmethod
    def check(cls, input, bound):
        _check_bound(bound, "clamp_min" if cls.lower else "clamp_max")

    @classmethod
    def kernel(cls, dtype, x, b):
        if dtype is _dt.bool_ and np.ndim(b) == 0 and not cls._tensor_bound:
            raise RuntimeError(f"\"{'clamp_min' if cls.lower else 'clamp_max'}_scalar_cpu\" "
                               "not implemented for 'Bool'")
        return _select(x, b, x < b if cls.lower else x > b)

    @classmethod
    def backward(cls, ctx, grad):
        saved = ctx.saved_tensors
        x = saved[0]
        b = saved[1] if len(saved) > 1 else ctx.bound
        keep = dispatch("ge" if cls.lower else "le", x, b)
        ga = dispatch("where", keep, grad, 0.0)
        if not isinstance(b, Tensor):
            return ga, None
        gb = None
        if ctx.needs_input_grad[1]:     # NaN in either gives neither a gradient
            gb = dispatch("where", dispatch("lt" if cls.lower else "gt", x, b), grad, 0.0)
        return ga, gb


@register_op("clamp_min")
class ClampMin(_ClampBound):
    """``clamp_min(input, min)`` = ``max(input, min)`` for a number ``min`` (``torch.clamp_min``,
    ``Tensor.clamp_min``); promotes like ``clamp``; backward ``grad where input >= min``
    (``ClampMinBackward0``)."""

    keeps = ("bound",)
    saves = ("input",)
    _backward_name = "ClampMinBackward0"


@register_op("clamp_min.Tensor")
class ClampMinTensor(_ClampBound):
    """``clamp_min(input, min)`` with a Tensor ``min`` (broadcasting; ``ClampMinBackward1``:
    ``min`` gets the gradient where ``input < min``)."""

    _backward_name = "ClampMinBackward1"
    _tensor_bound = True


@register_op("clamp_max")
class ClampMax(_ClampBound):
    """``clamp_max(input, max)`` = ``min(input, max)`` for a number ``max``
    (``torch.clamp_max``); backward ``grad where input <= max`` (``ClampMaxBackward0``)."""

    keeps = ("bound",)
    saves = ("input",)
    lower = False
    _backward_name = "ClampMaxBackward0"


@register_op("clamp_max.Tensor")
class ClampMaxTensor(_ClampBound):
    """``clamp_max(input, max)`` with a Tensor ``max`` (``ClampMaxBackward1``)."""

    lower = False
    _backward_name = "ClampMaxBackward1"
    _tensor_bound = True


# ---------------------------------------------------------------------------------- nan_to_num
@register_op("nan_to_num")
class NanToNum(Kernel):
    """``nan_to_num(input, nan=0.0, posinf=None, neginf=None)`` (``torch.nan_to_num``): NaN,
    +inf and -inf replaced by ``nan``, ``posinf`` (default: the dtype's largest finite value) and
    ``neginf`` (default: its lowest), converted to the dtype; integers unchanged; exact. Backward
    ``grad * isfinite(input)`` as a selection (``NanToNumBackward0``)."""

    rule = KEEP_DTYPE
    args = ("input", "nan", "posinf", "neginf")
    saves = ("input",)
    _backward_name = "NanToNumBackward0"

    @staticmethod
    def kernel(dtype, x, nan=0.0, posinf=None, neginf=None):
        if not dtype.is_floating_point:
            return x.copy()
        fi = _dt.finfo(dtype)
        vals = [fi.max if posinf is None else posinf, fi.min if neginf is None else neginf,
                0.0 if nan is None else nan]
        pos, neg, nv = (np.asarray(v, np.float64).astype(np.float32).astype(x.dtype)
                        if x.dtype.itemsize == 2 else x.dtype.type(v) for v in vals)
        f = x.astype(np.float32) if x.dtype.itemsize == 2 else x
        out = np.where(np.isnan(f), nv, x)
        out = np.where(np.isposinf(f), pos, out)
        return np.where(np.isneginf(f), neg, out).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("where", dispatch("isfinite", x), grad, 0.0)

