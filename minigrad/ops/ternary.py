"""Three-operand pointwise ops: lerp (number or Tensor weight), addcmul, addcdiv.

Each is a ``Kernel`` (promotion, opmath, one rounding) with ATen's CPU formula, the recipes the
optimizers' ``_foreach_*`` kernels use too (``minigrad/ops/foreach_kernels.py``):

- ``lerp(a, b, w)`` = ``fma(w, b - a, a)`` where ``|w| < 0.5``, else ``fma(-(1 - w), b - a, b)``;
- ``addcmul(a, b, c, value=v)`` = ``fma(v * b, c, a)``;
- ``addcdiv(a, b, c, value=v)`` = ``a + (v * b) / c``.

A Python-number ``weight``/``value`` enters in opmath unrounded (fp32 for 16-bit tensors).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .kernel import PROMOTE_OPMATH, Kernel



def _fma(x, y, z):
    """One fma in the operands' float type (``numerics.fma32`` / ``fma64``)."""
    if np.result_type(x, y, z) != np.float64:
        return _nx.fma32(x, y, z)
    return _nx.fma64(x, y, z)


def _lerp(a, b, w):
    """ATen's formula, one fma either way (the scalar lambda is contracted by the compiler too:
    measured on short tensors)."""
    one = a.dtype.type(1)
    d = b - a
    return np.where(np.abs(w) < 0.5, _fma(w, d, a), _fma(-(one - w), d, b))


def _check_end(input, end):
    """PyTorch's lerp check that ``end`` has ``input``'s dtype (C++ type names)."""
    if isinstance(input, Tensor) and isinstance(end, Tensor) and end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {input.dtype.cpp_name} for `end` but got dtype "
                           f"{end.dtype.cpp_name}")


def _check_float(kernel_name, *operands):
    """PyTorch's NotImplementedError for a lerp of integer or bool operands."""
    if all(isinstance(t, Tensor) for t in operands):
        rt = _dt.result_type(*operands)
        if not rt.is_floating_point:
            raise NotImplementedError(f"\"{kernel_name}\" not implemented for "
                                      f"'{rt.scalar_name}'")


def _value(value, a, dtype):
    """``value`` in the compute type: floats unrounded in opmath, integers wrapped to the
    integer dtype (as ``Scalar.to<scalar_t>()``)."""
    if dtype.is_floating_point:
        return a.dtype.type(value)
    return _nx.scalar_in(value, dtype)


@register_op("lerp.Scalar")
class Lerp(Kernel):
    """``lerp(input, end, weight)`` = ``input + weight * (end - input)`` for a number ``weight``
    (``torch.lerp``; ATen's two-sided fma formula, see the module docstring); node
    ``LerpBackward0``: ``grad * (1 - weight)`` and ``grad * weight``.

    Raises:
        RuntimeError: ``end`` of another dtype ("expected dtype float for `end` but got dtype
            double"); non-broadcastable shapes.
        NotImplementedError: integer or bool operands ('"lerp_kernel_scalar" not implemented
            for ...').
    """

    rule = PROMOTE_OPMATH
    args = ("input", "end", "weight")
    operands = 2
    keeps = ("weight",)
    _backward_name = "LerpBackward0"

    @staticmethod
    def check(input, end, weight):
        _check_end(input, end)
        _check_float("lerp_kernel_scalar", input, end)

    @staticmethod
    def kernel(dtype, a, b, weight):
        return _lerp(a, b, a.dtype.type(weight))

    @staticmethod
    def backward(ctx, grad):
        w = ctx.weight
        nig = ctx.needs_input_grad
        return (dispatch("mul", grad, 1 - w) if nig[0] else None,
                dispatch("mul", grad, w) if nig[1] else None)


@register_op("lerp.Tensor")
class LerpTensor(Kernel):
    """``lerp(input, end, weight)`` for a Tensor ``weight`` (broadcasting; the formula chosen per
    element by ``|weight| < 0.5``); node ``LerpBackward1``: ``grad * (1 - weight)``, ``grad *
    weight``, ``grad * (end - input)``.

    Raises:
        RuntimeError: ``end`` of another dtype than ``input``.
        NotImplementedError: integer or bool operands ('"lerp_kernel_tensor" ...').
    """

    rule = PROMOTE_OPMATH
    args = ("input", "end", "weight")
    operands = 3
    saves = ("input", "end", "weight")
    _backward_name = "LerpBackward1"

    @staticmethod
    def check(input, end, weight):
        _check_end(input, end)
        if isinstance(input, Tensor) and isinstance(weight, Tensor) and weight.ndim and \
                weight.dtype is not input.dtype:       # a 0-dim weight is promoted instead
            raise RuntimeError(f"expected dtype {input.dtype.cpp_name} for `weight` but got "
                               f"dtype {weight.dtype.cpp_name}")
        _check_float("lerp_kernel_tensor", input, end, weight)

    @staticmethod
    def kernel(dtype, a, b, w):
        return _lerp(a, b, w)

    @staticmethod
    def backward(ctx, grad):
        a, b, w = ctx.saved_tensors
        nig = ctx.needs_input_grad
        ga = dispatch("mul", grad, dispatch("rsub", w, 1)) if nig[0] else None
        gb = dispatch("mul", grad, w) if nig[1] else None
        gw = dispatch("mul", grad, dispatch("sub", b, a)) if nig[2] else None
        return ga, gb, gw


def _value_check(input, tensor1, tensor2, value, op):
    for name, t in (("tensor1", tensor1), ("tensor2", tensor2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if not isinstance(value, (bool, int, float, np.number)):
        raise TypeError(f"{op}(): argument 'value' must be Number, not {type(value).__name__}")


@register_op("addcmul")
class Addcmul(Kernel):
    """``addcmul(input, tensor1, tensor2, *, value=1)`` = ``input + value * tensor1 * tensor2``
    (``torch.addcmul``), broadcasting, ``fma(value * tensor1, tensor2, input)`` in opmath, one
    rounding. Node ``AddcmulBackward0``: ``grad``, ``grad * (tensor2 * value)``, ``grad *
    (tensor1 * value)``."""

    rule = PROMOTE_OPMATH
    args = ("input", "tensor1", "tensor2")
    operands = 3
    saves = ("tensor1", "tensor2")
    _backward_name = "AddcmulBackward0"

    @staticmethod
    def check(input, tensor1, tensor2, value=1):
        _value_check(input, tensor1, tensor2, value, "addcmul")

    @classmethod
    def forward(cls, ctx, input, tensor1, tensor2, value=1):
        ctx.value = value
        return super().forward(ctx, input, tensor1, tensor2, value=value)

    @staticmethod
    def kernel(dtype, a, b, c, value=1):
        if dtype is _dt.bool_:
            raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
        if not dtype.is_floating_point:
            return a + _value(value, a, dtype) * b * c
        return _fma(_value(value, a, dtype) * b, c, a)

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        nig = ctx.needs_input_grad
        v = ctx.value
        return (grad if nig[0] else None,
                dispatch("mul", grad, dispatch("mul", t2, v)) if nig[1] else None,
                dispatch("mul", grad, dispatch("mul", t1, v)) if nig[2] else None)


@register_op("addcdiv")
class Addcdiv(Kernel):
    """``addcdiv(input, tensor1, tensor2, *, value=1)`` = ``input + value * tensor1 / tensor2``
    (``torch.addcdiv``), broadcasting, ``input + (value * tensor1) / tensor2`` in opmath, one
    rounding. Node ``AddcdivBackward0``: ``grad``, ``grad * (value / tensor2)``, ``-grad * (value
    * tensor1 / tensor2**2)`` (``derivatives.yaml``'s grouping).

    Raises:
        RuntimeError: integer ``tensor1`` and ``tensor2`` (PyTorch's "Integer division with
            addcdiv is no longer supported..." message).
    """

    rule = PROMOTE_OPMATH
    args = ("input", "tensor1", "tensor2")
    operands = 3
    saves = ("tensor1", "tensor2")
    _backward_name = "AddcdivBackward0"

    @staticmethod
    def check(input, tensor1, tensor2, value=1):
        _value_check(input, tensor1, tensor2, value, "addcdiv")
        if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")

    @classmethod
    def forward(cls, ctx, input, tensor1, tensor2, value=1):
        ctx.value = value
        return super().forward(ctx, input, tensor1, tensor2, value=value)

    @staticmethod
    def kernel(dtype, a, b, c, value=1):
        return a + (_value(value, a, dtype) * b) / c

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        nig = ctx.needs_input_grad
        v = ctx.value
        # ``value / tensor2`` in C++ divides a wrapped scalar (cast to tensor2's dtype) by the
        # tensor; Python's ``v / t2`` (reciprocal, then multiply) can overflow where it does not
        g1 = dispatch("mul", grad, dispatch("div", dispatch("full_like", t2, v), t2)) \
            if nig[1] else None
        g2 = None
        if nig[2]:
            q = dispatch("div", dispatch("mul", t1, v), dispatch("mul", t2, t2))
            g2 = dispatch("mul", dispatch("neg", grad), q)
        return (grad if nig[0] else None), g1, g2


