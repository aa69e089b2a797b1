"""Comparisons and selection: eq/ne/lt/le/gt/ge, isfinite/isnan/isinf, logical_*, all/any,
maximum/minimum, clamp, where.

Comparisons run in the promoted dtype (a Python scalar is rounded to a 16-bit tensor's dtype
first, as in PyTorch: ``fp16_tensor == 0.1`` compares against ``fp16(0.1)``) and return bool
tensors that never require grad. maximum/minimum/clamp propagate NaN like PyTorch.

Signed zeros: where ``+0`` meets ``-0``, PyTorch's vectorised maximum/minimum (and clamp with
tensor bounds) return the second operand, its scalar tail loop the first (``std::max``), so the
sign depends on the element's position (``numerics.tail_mask``); clamp with number bounds always
keeps the input's zero.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ..numerics import scalar_in
from ._binary import arr
from ._util import broadcast_shapes, check_int_scalar, check_scalar, wrap, wrap_dims
from .kernel import BOOL_RESULT, PROMOTE_OPMATH, Kernel

_NUM = (bool, int, float, np.number, np.bool_)


def _operand(x, rt):
    return arr(x, rt) if isinstance(x, Tensor) else scalar_in(x, rt)


def _bool(a) -> Tensor:
    return Tensor._make(np.asarray(a, dtype=np.bool_), _dt.bool_)


# ---------------------------------------------------------------------------------- comparisons
_SWAP = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def _make_compare(name, ufunc):
    def op(input, other):
        if not isinstance(input, Tensor) and isinstance(other, Tensor):
            return dispatch(_SWAP[name], other, input)
        return BOOL_RESULT.run(kernel, (input, other), op=name)

    def kernel(dtype, a, b):
        return ufunc(a, b)
    op.rule = BOOL_RESULT
    op.__name__ = name
    op.__doc__ = (f"``{name}(input, other)``: elementwise comparison in the promoted dtype, a "
                  f"bool tensor (``torch.{name}``).\n\n    Raises:\n        RuntimeError: "
                  "non-broadcastable shapes. TypeError: non-Tensor/number operands.")
    return register_op(name, op)


eq = _make_compare("eq", np.equal)
ne = _make_compare("ne", np.not_equal)
lt = _make_compare("lt", np.less)
le = _make_compare("le", np.less_equal)
gt = _make_compare("gt", np.greater)
ge = _make_compare("ge", np.greater_equal)


def _check_t(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _make_class(name, fn, int_value):
    def kernel(rt, a):
        if not rt.is_floating_point:
            return np.full(a.shape, int_value)
        return fn(a)

    def op(input):
        return BOOL_RESULT.run(kernel, (input,), op=name)
    op.rule = BOOL_RESULT
    op.__name__ = name
    op.__doc__ = f"``{name}(input)``: a bool tensor (``torch.{name}``); integers: {int_value}."
    return register_op(name, op)


isfinite = _make_class("isfinite", np.isfinite, True)
isnan = _make_class("isnan", np.isnan, False)
isinf = _make_class("isinf", np.isinf, False)


def _truth(a):
    a = np.asarray(a)
    return a if a.dtype == np.bool_ else a != 0


@register_op("logical_not")
def logical_not(input):
    """``logical_not(input)``: bool tensor, True where input is zero (``torch.logical_not``)."""
    return BOOL_RESULT.run(lambda rt, a: np.logical_not(_truth(a)), (input,), op="logical_not")


def logical_op(ufunc, input, other, op):
    """A binary logical op through the kernel base (rule ``BOOL_RESULT``): the operands' truth
    values as TensorIterator computes them, both converted to ``result_type(input, other)``
    first (a 0-dim bf16 1e-8 next to an fp16 tensor becomes fp16 0, i.e. False).

    Raises:
        TypeError: an operand that is not a Tensor (PyTorch takes no numbers here).
        RuntimeError: shapes that do not broadcast.
    """
    for pos, (arg, x) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(x).__name__}")
    return BOOL_RESULT.run(lambda rt, a, b: ufunc(_truth(a), _truth(b)), (input, other), op=op)


@register_op("logical_and")
def logical_and(input, other):
    """``logical_and(input, other)``: bool tensor, broadcast (``torch.logical_and``); operands
    compared with zero in their promoted dtype.

    Raises:
        TypeError: a non-Tensor operand. RuntimeError: shapes that do not broadcast.
    """
    return logical_op(np.logical_and, input, other, "logical_and")


@register_op("logical_or")
def logical_or(input, other):
    """``logical_or(input, other)``: bool tensor, broadcast (``torch.logical_or``); operands
    compared with zero in their promoted dtype.

    Raises:
        TypeError: a non-Tensor operand. RuntimeError: shapes that do not broadcast.
    """
    return logical_op(np.logical_or, input, other, "logical_or")


for _f in (logical_not, logical_and, logical_or):
    _f.rule = BOOL_RESULT


def _make_allany(name, ufunc):
    def op(input, dim=None, keepdim=False):
        _check_t(input, name)
        dims = wrap_dims(dim, input.ndim)
        axes = dims if input.ndim else None
        out = ufunc(_truth(input._data), axis=axes, keepdims=keepdim if input.ndim else False)
        if input.dtype is _dt.uint8:
            return Tensor._make(np.asarray(out, np.uint8), _dt.uint8)
        return _bool(out)
    op.__name__ = name
    op.__doc__ = (f"``{name}(input, dim=None, keepdim=False)`` (``torch.{name}``): bool result "
                  "(uint8 for uint8 input, as PyTorch).")
    return register_op(name, op)


all_ = _make_allany("all", np.all)
any_ = _make_allany("any", np.any)


@register_op("count_nonzero")
def count_nonzero(input, dim=None):
    """``count_nonzero(input, dim=None)`` (``torch.count_nonzero``): the number of non-zero
    elements over ``dim`` (an int, a tuple, or None for all), int64; NaN counts as non-zero.

    Raises:
        IndexError: a dim out of range. RuntimeError: a repeated dim ("dim 0 appears multiple
            times in the list of dims").
    """
    _check_t(input, "count_nonzero")
    dims = wrap_dims(dim, input.ndim)
    axes = dims if input.ndim else None
    out = np.count_nonzero(_truth(input._data), axis=axes)
    return Tensor._make(np.asarray(out, np.int64), _dt.int64)


# ---------------------------------------------------------------------------------- max/min
def _max_min(f, a, b, rt, tail=None):
    """``f`` (np.maximum/np.minimum) of opmath operands with PyTorch's signed-zero ties: the
    second operand in the vectorised body, the first in the scalar tail (``tail=True``: all
    elements take the first, as clamp with number bounds)."""
    out = f(a, b)
    if not rt.is_floating_point or not (out == 0).any():     # a tie of zeros gives a zero
        return out
    z = (a == 0) & (b == 0)
    if not z.any():
        return out
    if tail is None:
        shape = np.broadcast_shapes(np.shape(a), np.shape(b))
        tail = _nx.tail_mask(shape, (np.shape(a), np.shape(b)), _nx.loop_step(rt))
    return np.where(z, np.where(tail, a, b), out)


def _check_tensor_other(other, op):
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")


class _MaxMin(Kernel):
    rule = PROMOTE_OPMATH
    operands = 2
    saves = ("input", "other")
    _ufunc = None
    _lose = None     # comparison where input gets no gradient ("lt" for maximum)
    _win = None

    @classmethod
    def check(cls, input, other):
        if isinstance(input, Tensor):
            _check_tensor_other(other, cls._name)

    @classmethod
    def kernel(cls, dtype, a, b):
        return _max_min(cls._ufunc, a, b, dtype)

    @classmethod
    def backward(cls, ctx, grad):
        input, other = ctx.saved_tensors
        half = dispatch("where", dispatch("eq", input, other), dispatch("div", grad, 2), grad)
        nig = ctx.needs_input_grad
        ga = dispatch("where", dispatch(cls._lose, input, other), 0.0, half) if nig[0] else None
        gb = dispatch("where", dispatch(cls._win, input, other), 0.0, half) if nig[1] else None
        return ga, gb


@register_op("maximum")
class Maximum(_MaxMin):
    """``maximum(input, other)``: elementwise max, NaN-propagating (``torch.maximum``); ties
    split the gradient in half.

    Raises:
        TypeError: ``other`` not a Tensor (as PyTorch). RuntimeError: non-broadcastable shapes.
    """

    _backward_name = "MaximumBackward0"
    _name, _ufunc, _lose, _win = "maximum", np.maximum, "lt", "gt"


@register_op("minimum")
class Minimum(_MaxMin):
    """``minimum(input, other)``: elementwise min, NaN-propagating (``torch.minimum``)."""

    _backward_name = "MinimumBackward0"
    _name, _ufunc, _lose, _win = "minimum", np.minimum, "gt", "lt"


class _FmaxFmin(_MaxMin):
    """``fmax``/``fmin``: NaN-ignoring max/min (a NaN loses to a number; two NaNs give NaN);
    a tie of zeros returns the first operand, as PyTorch's kernel. Backward as PyTorch's
    derivatives.yaml: ``input`` takes the whole gradient where it wins or ties, or where
    ``other`` is NaN; ``other`` elsewhere."""

    @classmethod
    def kernel(cls, dtype, a, b):
        return _max_min(cls._ufunc, a, b, dtype, tail=True)

    @classmethod
    def backward(cls, ctx, grad):
        input, other = ctx.saved_tensors
        keep = dispatch("logical_or", dispatch(cls._keep, input, other), dispatch("isnan", other))
        nig = ctx.needs_input_grad
        ga = dispatch("masked_fill", grad, dispatch("logical_not", keep), 0) if nig[0] else None
        gb = dispatch("masked_fill", grad, keep, 0) if nig[1] else None
        return ga, gb


@register_op("fmax")
class Fmax(_FmaxFmin):
    """``fmax(input, other)``: elementwise max ignoring NaN (``torch.fmax``; node
    ``FmaxBackward0``).

    Raises:
        TypeError: ``other`` not a Tensor (as PyTorch). RuntimeError: non-broadcastable shapes.
    """

    _backward_name = "FmaxBackward0"
    _name, _ufunc, _keep = "fmax", np.fmax, "ge"


@register_op("fmin")
class Fmin(_FmaxFmin):
    """``fmin(input, other)``: elementwise min ignoring NaN (``torch.fmin``; node
    ``FminBackward0``). Errors as ``fmax``."""

    _backward_name = "FminBackward0"
    _name, _ufunc, _keep = "fmin", np.fmin, "le"


# ---------------------------------------------------------------------------------- clamp
def _clamp_kernel(rt, a, *bounds, lo, hi):
    """``min(max(a, lo), hi)`` on opmath arrays; ``bounds``: the bounds given (not None), as
    loaded; ``lo``/``hi``: the bounds as given (numbers are checked against ``rt``)."""
    for x in (lo, hi):
        if x is not None and not isinstance(x, Tensor):
            check_scalar(x, rt)
    if rt is _dt.bool_ and lo is not None and hi is not None:   # clamp_min/max do have bool
        raise NotImplementedError("\"clamp_cpu\" not implemented for 'Bool'")
    tail = None if isinstance(lo, Tensor) or isinstance(hi, Tensor) else True
    bounds = iter(bounds)
    if lo is not None:
        a = _max_min(np.maximum, a, next(bounds), rt, tail)
    if hi is not None:
        a = _max_min(np.minimum, a, next(bounds), rt, tail)
    return a


def _clamp_forward(input, lo, hi):
    """clamp through the kernel base (rule ``PROMOTE_OPMATH``; None bounds left out)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"clamp(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    operands = (input,) + tuple(b for b in (lo, hi) if b is not None)
    return PROMOTE_OPMATH.run(_clamp_kernel, operands, kwargs={"lo": lo, "hi": hi}, op="clamp")


class ClampScalar(Function):
    """``clamp(input, min=None, max=None)`` with number bounds (node ``ClampBackward1``)."""

    _backward_name = "ClampBackward1"
    _saved_names = ("self",)
    _saved_scalars = {"min": "lo", "max": "hi"}

    @staticmethod
    def forward(ctx, input, min=None, max=None):
        ctx.lo, ctx.hi = min, max
        ctx.save_for_backward(input)
        return _clamp_forward(input, min, max)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        lo, hi = ctx.lo, ctx.hi
        if lo is not None and hi is not None:
            m = dispatch("logical_and", dispatch("ge", x, lo), dispatch("le", x, hi))
        elif lo is not None:
            m = dispatch("ge", x, lo)
        else:
            m = dispatch("le", x, hi)
        return dispatch("where", m, grad, 0.0)


class ClampTensor(Function):
    """``clamp(input, min=None, max=None)`` with tensor bounds (node ``ClampBackward0``);
    gradients of the bounds as PyTorch's ``clamp_backward_min_max``."""

    _backward_name = "ClampBackward0"
    _saved_names = ("self", "min", "max")

    @staticmethod
    def forward(ctx, input, min=None, max=None):
        ctx.save_for_backward(input, min, max)
        return _clamp_forward(input, min, max)

    @staticmethod
    def backward(ctx, grad):
        x, lo, hi = ctx.saved_tensors
        nig = ctx.needs_input_grad + (False,) * 3
        gx = glo = ghi = None
        if nig[0]:
            if lo is not None and hi is not None:
                m = dispatch("logical_and", dispatch("ge", x, lo), dispatch("le", x, hi))
            elif lo is not None:
                m = dispatch("ge", x, lo)
            else:
                m = dispatch("le", x, hi)
            gx = dispatch("where", m, grad, 0.0)
        if lo is not None and hi is not None:
            if nig[1]:
                m = dispatch("logical_and", dispatch("lt", x, lo), dispatch("lt", lo, hi))
                glo = dispatch("where", m, grad, 0.0)
            if nig[2]:
                m = dispatch("logical_or", dispatch("gt", x, hi), dispatch("lt", hi, lo))
                ghi = dispatch("where", m, grad, 0.0)
        elif lo is not None and nig[1]:
            glo = dispatch("where", dispatch("lt", x, lo), grad, 0.0)
        elif hi is not None and nig[2]:
            ghi = dispatch("where", dispatch("gt", x, hi), grad, 0.0)
        return gx, glo, ghi


_clamp_scalar_apply = ClampScalar.apply
_clamp_tensor_apply = ClampTensor.apply


@register_op("clamp")
def clamp(input, min=None, max=None):
    """``clamp(input, min=None, max=None)`` (``torch.clamp``/``clip``): ``min(max(x, min),
    max)``; bounds are numbers, tensors or None; dtype is ``result_type(input, min, max)``.
    Gradient passes where ``min <= x <= max``. A number beside a 0-dim tensor bound: as
    PyTorch's argument binding, the tensor is read as a number (the Scalar overload, node
    ``ClampBackward1``).

    Raises:
        RuntimeError: both bounds None; non-broadcastable tensor bounds.
        TypeError: a number bound beside a tensor bound that is not 0-dim (PyTorch's binding
            finds no overload).
    """
    tl, th = isinstance(min, Tensor), isinstance(max, Tensor)
    if (tl and max is not None and not th and min.ndim == 0) or (
            th and min is not None and not tl and max.ndim == 0):
        min = min.item() if tl else min
        max = max.item() if th else max
        tl = th = False
    if tl or th:
        if (min is not None and not tl) or (max is not None and not th):
            raise TypeError("clamp(): min and max must both be Tensors or both be numbers")
        return _clamp_tensor_apply(input, min, max)
    return _clamp_scalar_apply(input, min, max)


clamp.rule = PROMOTE_OPMATH


# ---------------------------------------------------------------------------------- where
@register_op("where")
class Where(Function):
    """``where(condition, input, other)``: ``input`` where condition else ``other``, broadcast
    over all three (``torch.where``); numbers allowed for input/other; dtype
    ``result_type(input, other)``.

    Raises:
        RuntimeError: a non-bool condition ("where expected condition to be a boolean tensor,
            but got a tensor with dtype Float"); non-broadcastable shapes.
    """

    _backward_name = "WhereBackward0"
    _saved_names = ("condition",)

    @staticmethod
    def forward(ctx, condition, input, other):
        if not isinstance(condition, Tensor):
            raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not "
                            f"{type(condition).__name__}")
        if condition.dtype not in (_dt.bool_, _dt.uint8):
            raise RuntimeError("where expected condition to be a boolean tensor, but got a "
                               f"tensor with dtype {condition.dtype.scalar_name}")
        for x in (input, other):
            if not isinstance(x, (Tensor,) + _NUM):
                raise TypeError(f"where(): expected Tensor or Number, got {type(x).__name__}")
            if x.__class__ is int:
                check_int_scalar(x)         # the argument parser's Scalar: OverflowError
        shapes = [condition.shape] + [x.shape for x in (input, other) if isinstance(x, Tensor)]
        broadcast_shapes(*shapes)
        rt = _dt.result_type(input, other)
        ctx.save_for_backward(condition)
        c = condition._data.astype(np.bool_, copy=False)
        out = np.where(c, _operand(input, rt), _operand(other, rt))
        return wrap(out, rt)

    @staticmethod
    def backward(ctx, grad):
        (c,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        ga = dispatch("where", c, grad, 0.0) if nig[1] else None
        gb = dispatch("where", c, 0.0, grad) if nig[2] else None
        return None, ga, gb
