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
from .kernel import ROUNDED_SCALAR, Kernel


def _check_kernel(rt, b, op):
    if rt is _dt.bool_:
        raise NotImplementedError(f'"{op}_cpu" not implemented for \'Bool\'')
    if not rt.is_floating_point and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def _remainder(rt, a, b):
    """PyTorch's remainder kernel: ``fmod``, then ``+ b`` where the signs differ."""
    _check_kernel(rt, b, "remainder")
    if not rt.is_floating_point:
        return np.remainder(a, b)
    m = np.fmod(a, b)
    return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


def _fmod(rt, a, b):
    _check_kernel(rt, b, "fmod")
    return np.fmod(a, b)


class _ModBase(Kernel):
    """Shared forward/backward of remainder and fmod; subclasses set the kernel and the
    rounding mode of ``a / b`` in ``b``'s gradient."""

    rule = ROUNDED_SCALAR
    operands = 2
    _scalar_edges = True
    _rounding = "floor"

    @classmethod
    def forward(cls, ctx, input, other):
        nig = ctx.needs_input_grad
        out = cls.rule.run(cls.kernel, (input, other), op=cls._name)
        if isinstance(other, Tensor) and len(nig) > 1 and nig[1]:
            ctx.save_for_backward(input, other)   # only then, as PyTorch (freed-graph rule)
        return out

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
    _name = "remainder"
    kernel = staticmethod(_remainder)


class RemainderScalar(_Remainder):
    _backward_name = "RemainderBackward0"


class RemainderTensor(_Remainder):
    _backward_name = "RemainderBackward1"


class _Fmod(_ModBase):
    _name = "fmod"
    kernel = staticmethod(_fmod)
    _rounding = "trunc"


class FmodScalar(_Fmod):
    _backward_name = "FmodBackward0"


class FmodTensor(_Fmod):
    _backward_name = "FmodBackward1"


class _NotDifferentiable(Function):
    """An op PyTorch gives no derivative: its node is ``NotImplemented`` and raises."""

    _backward_name = "torch::autograd::NotImplemented"

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


remainder.rule = fmod.rule = ROUNDED_SCALAR


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
