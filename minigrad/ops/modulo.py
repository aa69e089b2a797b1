"""Python's ``%`` and ``//``: remainder, fmod and floor_divide, with PyTorch's semantics.

- ``remainder(a, b)`` has the sign of ``b`` (Python's ``%``), computed as PyTorch's CPU kernel:
  ``m = fmod(a, b)``, plus ``b`` when ``m`` is non-zero and its sign differs from ``b``'s (so
  ``-0.0 % 2`` is ``-0.0`` and ``-7.5 % inf`` is ``inf``, as in PyTorch).
- ``fmod(a, b)`` has the sign of ``a`` (C's ``fmod``).
- ``floor_divide(a, b)`` is ``div(a, b, rounding_mode="floor")`` without a derivative: PyTorch
  records a ``NotImplemented`` node whose backward raises.

Integer division by zero raises RuntimeError("ZeroDivisionError"), as PyTorch; floating results
compute in opmath (fp32 for fp16/bf16) and round once. Gradients (``RemainderBackward0/1``,
``FmodBackward0/1``): ``grad`` for ``a``; ``-grad * floor(a / b)`` (``trunc`` for fmod) for a
tensor ``b``. ``remainder(number, tensor)`` (``number % t``) is not differentiable in PyTorch
either (``NotImplemented`` node).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ..numerics import scalar_in
from ._binary import arr, check_binary, is_scalar_other, scalar_value
from ._util import wrap


def _operands(input, other, op):
    check_binary(input, other, op)
    rt = _dt.result_type(input, other)
    if rt is _dt.bool_:
        raise NotImplementedError(f'"{op}_cpu" not implemented for \'Bool\'')
    a = arr(input, rt)
    if is_scalar_other(other, input):
        b = scalar_in(scalar_value(other), rt)     # 16-bit: the scalar rounded first
    else:
        b = arr(other, rt)
    if not rt.is_floating_point and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    return rt, a, b


def _remainder(a, b, rt):
    if not rt.is_floating_point:
        return np.remainder(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.fmod(a, b)
        return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


def _fmod(a, b, rt):
    if not rt.is_floating_point:
        return np.fmod(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.fmod(a, b)


class _ModBase(Function):
    """Shared forward/backward of remainder and fmod; subclasses set the kernel and the
    rounding mode of ``a / b`` in ``b``'s gradient."""

    _scalar_edges = True
    _rounding = "floor"

    @staticmethod
    def _kernel(a, b, rt):
        raise NotImplementedError

    @classmethod
    def _run(cls, ctx, input, other):
        rt, a, b = _operands(input, other, cls._op_name)
        nig = ctx.needs_input_grad
        if isinstance(other, Tensor) and len(nig) > 1 and nig[1]:
            ctx.save_for_backward(input, other)   # only then, as PyTorch (freed-graph rule)
        return wrap(cls._kernel(a, b, rt), rt)

    @staticmethod
    def backward(ctx, grad):
        nig = ctx.needs_input_grad
        gb = None
        if ctx._saved is not None or ctx._freed:
            input, other = ctx.saved_tensors      # raises once the graph was freed
            q = dispatch("div", input, other, rounding_mode=ctx._function._rounding)
            gb = dispatch("mul", dispatch("neg", grad), q)
        return (grad if nig[0] else None), gb


class _Remainder(_ModBase):
    _op_name = "remainder"
    _kernel = staticmethod(_remainder)

    @staticmethod
    def forward(ctx, input, other):
        return _Remainder._run(ctx, input, other)


class RemainderScalar(_Remainder):
    _backward_name = "RemainderBackward0"


class RemainderTensor(_Remainder):
    _backward_name = "RemainderBackward1"


class _Fmod(_ModBase):
    _op_name = "fmod"
    _kernel = staticmethod(_fmod)
    _rounding = "trunc"

    @staticmethod
    def forward(ctx, input, other):
        return _Fmod._run(ctx, input, other)


class FmodScalar(_Fmod):
    _backward_name = "FmodBackward0"


class FmodTensor(_Fmod):
    _backward_name = "FmodBackward1"


class _NotDifferentiable(Function):
    """An op PyTorch gives no derivative: its node is ``NotImplemented`` and raises."""

    _backward_name = "NotImplemented"

    @staticmethod
    def forward(ctx, op, fn, *args):
        ctx.op = op
        return fn(*args)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(f"derivative for aten::{ctx.op} is not implemented")


@register_op("remainder")
def remainder(input, other):
    """``remainder(input, other)``: Python's ``%`` elementwise, the sign of ``other``
    (``torch.remainder``); ``input`` may be a number (then not differentiable, as PyTorch).

    Raises:
        RuntimeError: integer division by zero ("ZeroDivisionError"); non-broadcastable shapes.
        NotImplementedError: bool operands ('"remainder_cpu" not implemented for 'Bool'').
        TypeError: non-Tensor/number operands.
    """
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        full = dispatch("full_like", other, input, dtype=_dt.result_type(input, other))
        return _NotDifferentiable.apply("remainder", RemainderTensor.apply, full, other)
    cls = RemainderTensor if isinstance(other, Tensor) else RemainderScalar
    return cls.apply(input, other)


@register_op("fmod")
def fmod(input, other):
    """``fmod(input, other)``: C's ``fmod`` elementwise, the sign of ``input``
    (``torch.fmod``).

    Raises:
        RuntimeError: integer division by zero ("ZeroDivisionError"); non-broadcastable shapes.
        NotImplementedError: bool operands. TypeError: non-Tensor/number operands.
    """
    cls = FmodTensor if isinstance(other, Tensor) else FmodScalar
    return cls.apply(input, other)


@register_op("floor_divide")
def floor_divide(input, other):
    """``floor_divide(input, other)``: ``div(input, other, rounding_mode="floor")`` (Python's
    ``//``; ``torch.floor_divide``). As in PyTorch it has no derivative: the result of inputs
    that require grad has a ``NotImplemented`` node whose backward raises RuntimeError
    ("derivative for aten::floor_divide is not implemented"). ``input`` may be a number.

    Raises:
        RuntimeError: integer division by zero ("ZeroDivisionError"); non-broadcastable shapes.
    """
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        input = dispatch("full_like", other, input, dtype=_dt.result_type(input, other))

    def run(a, b):
        return dispatch("div", a, b, rounding_mode="floor")
    return _NotDifferentiable.apply("floor_divide", run, input, other)
