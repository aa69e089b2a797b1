"""Piecewise activations and their fused backward kernels: leaky_relu, elu (and selu, celu),
hardtanh (and relu6), hardswish, hardsigmoid.

Each is a ``Kernel`` computing PyTorch's CPU formula in opmath (fp32 for fp16/bf16) with one
rounding; the selections are exact. Python-number parameters (``negative_slope``, ``alpha``...)
enter in opmath, as ATen's ``Scalar.to<opmath_t>()``; ``hardtanh``'s bounds are converted to the
input's own dtype first (it is ``clamp``). In-place ``elu_``/``leaky_relu_`` record
``EluBackward1``/``LeakyReluBackward1``, whose backward reads the result, as PyTorch's.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .kernel import FLOAT_OPMATH, KEEP_DTYPE, PROMOTE_OPMATH, Kernel
from .erf import exp32

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def float_only(kernel_name):
    """A ``check`` raising PyTorch's NotImplementedError for integer and bool input (ATen's
    ``AT_DISPATCH_FLOATING_TYPES`` message naming the kernel)."""
    def check(input, *args, **kwargs):
        if isinstance(input, Tensor) and not input.dtype.is_floating_point:
            raise NotImplementedError(f"\"{kernel_name}\" not implemented for "
                                      f"'{input.dtype.scalar_name}'")
    return staticmethod(check)


def _c(value, a):
    return a.dtype.type(value)


def _exp(a):
    return np.exp(a) if a.dtype == np.float64 else exp32(a)


def _expm1(a):
    return np.expm1(a) if a.dtype == np.float64 else \
        np.expm1(a.astype(np.float64)).astype(np.float32)


def _in_tail(dtype, *arrays, kernel=None):
    """ATen's scalar-tail elements (bool mask, or False) of ``kernel`` (``numerics.loop_step``):
    where a kernel's scalar lambda compares differently from its vectorised one (NaN inputs)."""
    m = _nx.elementwise_tail(dtype, *arrays, kernel=kernel)
    return False if m is None else m


def _backward_check(op):
    def check(grad_output, self, *args, **kwargs):
        if not isinstance(self, Tensor):
            raise TypeError(f"{op}(): argument 'self' (position 2) must be Tensor, not "
                            f"{type(self).__name__}")
    return staticmethod(check)


# ---------------------------------------------------------------------------------- leaky_relu
@register_op("leaky_relu")
class LeakyRelu(Kernel):
    """``leaky_relu(input, negative_slope=0.01)`` = ``x if x > 0 else x * negative_slope``
    (``F.leaky_relu``, node ``LeakyReluBackward0``).

    Raises:
        NotImplementedError: integer or bool input (as PyTorch).
    """

    rule = FLOAT_OPMATH
    args = ("input", "negative_slope")
    saves = ("input",)
    keeps = ("negative_slope",)
    _backward_name = "LeakyReluBackward0"
    _is_result = False
    check = float_only("leaky_relu_cpu")

    @staticmethod
    def kernel(dtype, x, negative_slope=0.01):
        return np.where(x > 0, x, x * _c(negative_slope, x))

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors
        slope = 0.01 if ctx.negative_slope is None else ctx.negative_slope
        if cls._is_result and slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead. File an issue "
                "at https://github.com/pytorch/pytorch if you do require supporting in-place "
                "leakRelu backward calculation with negative slope")
        return dispatch("leaky_relu_backward", grad, x, slope, cls._is_result)


class LeakyReluResult(LeakyRelu):
    """``leaky_relu_``'s node (``LeakyReluBackward1``): backward reads the result."""

    saves = ("result",)
    _backward_name = "LeakyReluBackward1"
    _is_result = True


@register_op("leaky_relu_backward")
class LeakyReluBackward(Kernel):
    """``leaky_relu_backward(grad_output, self, negative_slope, self_is_result)`` = ``g if x > 0
    else g * negative_slope`` (``torch.ops.aten.leaky_relu_backward``). Differentiable in
    ``grad_output`` (``LeakyReluBackwardBackward0``; ``self`` gets zeros)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self", "negative_slope", "self_is_result")
    operands = 2
    saves = ("self",)
    keeps = ("negative_slope",)
    _backward_name = "LeakyReluBackwardBackward0"
    check = _backward_check("leaky_relu_backward")

    @staticmethod
    def kernel(dtype, g, x, negative_slope, self_is_result=False):
        return np.where(x > 0, g, g * _c(negative_slope, x))

    @staticmethod
    def backward(ctx, gg):
        (x,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("leaky_relu_backward", gg, x, ctx.negative_slope, False) if nig[0] else None
        b = dispatch("zeros_like", x) if nig[1] else None
        return a, b


# ---------------------------------------------------------------------------------- elu
def _elu_coefs(x, alpha, scale, input_scale):
    """ATen's ``negcoef = alpha * scale``, ``poscoef``, ``negiptcoef`` in the compute type."""
    return _c(alpha, x) * _c(scale, x), _c(scale, x), _c(input_scale, x)


@register_op("elu")
class Elu(Kernel):
    """``elu(input, alpha=1, scale=1, input_scale=1)`` = ``x * scale`` for ``x > 0``, else
    ``expm1(x * input_scale) * alpha * scale`` (``F.elu``; ``selu`` is this with PyTorch's
    constants; node ``EluBackward0``), ATen's fp32 steps.

    Raises:
        NotImplementedError: integer or bool input ('"elu_cpu" not implemented for ...').
    """

    rule = FLOAT_OPMATH
    args = ("input", "alpha", "scale", "input_scale")
    saves = ("input",)
    keeps = ("alpha", "scale", "input_scale")
    _backward_name = "EluBackward0"
    _is_result = False
    check = float_only("elu_cpu")

    @staticmethod
    def kernel(dtype, x, alpha=1, scale=1, input_scale=1):
        neg, pos, nip = _elu_coefs(x, alpha, scale, input_scale)
        return np.where(x > 0, x * pos, _expm1(x * nip) * neg)

    @classmethod
    def backward(cls, ctx, grad):
        (saved,) = ctx.saved_tensors
        k = [1 if v is None else v for v in (ctx.alpha, ctx.scale, ctx.input_scale)]
        return dispatch("elu_backward", grad, *k, cls._is_result, saved)


class EluResult(Elu):
    """``elu_``'s node (``EluBackward1``): backward reads the result."""

    saves = ("result",)
    _backward_name = "EluBackward1"
    _is_result = True


@register_op("elu_backward")
class EluBackward(Kernel):
    """``elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result)``
    (``torch.ops.aten.elu_backward``): ``g * scale`` where positive, else ``g * input_scale *
    (y + alpha * scale)`` from the result ``y`` or ``g * input_scale * alpha * scale *
    exp(x * input_scale)`` from the input. Differentiable (``EluBackwardBackward0``)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self_or_result", "alpha", "scale", "input_scale", "is_result")
    operands = 2
    saves = ("grad_output", "self_or_result")
    keeps = ("alpha", "scale", "input_scale", "is_result")
    _backward_name = "EluBackwardBackward0"

    @classmethod
    def forward(cls, ctx, grad_output, alpha, scale, input_scale, is_result, self_or_result):
        # PyTorch's argument order puts the tensor last; the kernel base wants operands first
        return super().forward(ctx, grad_output, self_or_result, alpha, scale, input_scale,
                               is_result)

    @staticmethod
    def check(grad_output, self_or_result, *args):
        if not isinstance(self_or_result, Tensor):
            raise TypeError("elu_backward(): argument 'self_or_result' must be Tensor, not "
                            f"{type(self_or_result).__name__}")

    @staticmethod
    def kernel(dtype, g, b, alpha, scale, input_scale, is_result):
        neg, pos, nip = _elu_coefs(b, alpha, scale, input_scale)
        if is_result:
            neg_part = g * nip * (b + neg)
        else:
            neg_part = g * nip * neg * _exp(b * nip)
        # vector body: ``b > 0`` picks the positive part; scalar tail: ``b <= 0`` picks the
        # negative one (they differ for NaN)
        positive = np.where(_in_tail(dtype, g, b, kernel="elu_backward"), ~(b <= 0), b > 0)
        return np.where(positive, g * pos, neg_part)

    @staticmethod
    def backward(ctx, gg):
        g, b = ctx.saved_tensors
        k = (ctx.alpha, ctx.scale, ctx.input_scale)
        nig = ctx.needs_input_grad
        ga = dispatch("elu_backward", gg, *k, ctx.is_result, b) if nig[0] else None
        gb = None
        if nig[-1]:
            alpha, scale, nip = k
            if ctx.is_result:
                d = dispatch("mul", gg, dispatch("mul", g, nip))
            else:
                d = dispatch("mul", dispatch("mul", gg, g), dispatch(
                    "mul", dispatch("exp", dispatch("mul", b, nip)), nip * nip * alpha * scale))
            gb = dispatch("where", dispatch("gt", b, 0), 0.0, d)
        # one gradient per argument of PyTorch's order (the tensor is the last one)
        return ga, None, None, None, None, gb


@register_op("celu")
class Celu(Elu):
    """``celu(input, alpha=1)`` = ``elu(input, alpha, 1, 1 / alpha)`` (``torch.celu``,
    ``F.celu``): ATen runs the elu kernel with ``input_scale = 1 / alpha`` (in double), but
    records its own node ``CeluBackward0``, whose backward is ``elu_backward(grad, alpha, 1,
    1 / float(alpha), False, input)`` (``alpha`` rounded to fp32 there, as derivatives.yaml's
    ``alpha.toFloat()``).

    Raises:
        RuntimeError: ``alpha == 0`` ("ZeroDivisionError: alpha cannot be 0 for CELU").
        NotImplementedError: integer or bool input.
    """

    args = ("input", "alpha")
    keeps = ("alpha",)
    _backward_name = "CeluBackward0"
    _op_name = "celu"                       # (not inherited from elu)

    @staticmethod
    def check(input, alpha=1.0):
        Elu.check(input)
        if float(alpha) == 0:
            raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")

    @staticmethod
    def kernel(dtype, x, alpha=1.0):
        return Elu.kernel(dtype, x, alpha, 1, 1.0 / float(alpha))

    @classmethod
    def backward(cls, ctx, grad):
        (saved,) = ctx.saved_tensors
        alpha = 1.0 if ctx.alpha is None else ctx.alpha
        inv = 1.0 / float(np.float32(alpha))
        return dispatch("elu_backward", grad, alpha, 1, inv, cls._is_result, saved)


class CeluResult(Celu):
    """``celu_``'s node (``CeluBackward1``): backward reads the result."""

    saves = ("result",)
    _backward_name = "CeluBackward1"
    _is_result = True


@register_op("selu")
def selu(input):
    """``selu(input)`` = ``elu(input, 1.6732632..., 1.0507009...)`` (``torch.selu``, ``F.selu``;
    node ``EluBackward0``, as PyTorch's composite)."""
    return dispatch("elu", input, SELU_ALPHA, SELU_SCALE)


# ---------------------------------------------------------------------------------- hardtanh
def _to_dtype(v, x, dtype):
    """A bound converted to the tensor's dtype (``Scalar.to<scalar_t>()``), then to opmath."""
    return x.dtype.type(np.asarray(v).astype(dtype.np)) if dtype.itemsize == 2 and \
        dtype.is_floating_point else x.dtype.type(v)


@register_op("hardtanh")
class Hardtanh(Kernel):
    """``hardtanh(input, min_val=-1, max_val=1)``: ``clamp(input, min_val, max_val)``, the
    bounds converted to the input's dtype (``F.hardtanh``; ``relu6`` is ``hardtanh(x, 0, 6)``;
    node ``HardtanhBackward0``); exact. NaN propagates.

    Raises:
        NotImplementedError: bool input.
        RuntimeError: a uint8 input with a negative bound ("cannot do hardtanh on an unsigned
            type with negative limits").
    """

    rule = KEEP_DTYPE
    args = ("input", "min_val", "max_val")
    saves = ("input",)
    keeps = ("min_val", "max_val")
    _backward_name = "HardtanhBackward0"

    @staticmethod
    def check(input, min_val=-1, max_val=1):
        if isinstance(input, Tensor) and input.dtype is _dt.bool_:
            raise NotImplementedError("\"clamp_scalar_cpu\" not implemented for 'Bool'")
        if isinstance(input, Tensor) and input.dtype is _dt.uint8 and (
                int(min_val) < 0 or int(max_val) < 0):     # the bounds as integers
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")

    @staticmethod
    def kernel(dtype, x, min_val=-1, max_val=1):
        lo, hi = _to_dtype(min_val, x, dtype), _to_dtype(max_val, x, dtype)
        # ATen: min(hi, max(lo, x)) with x86 min/max, which return x on ties (-0.0 stays) and
        # for NaN
        return np.where(x < lo, lo, np.where(x > hi, hi, x)).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        lo = -1 if ctx.min_val is None else ctx.min_val
        hi = 1 if ctx.max_val is None else ctx.max_val
        return dispatch("hardtanh_backward", grad, x, lo, hi)


@register_op("hardtanh_backward")
class HardtanhBackward(Kernel):
    """``hardtanh_backward(grad_output, self, min_val, max_val)`` = ``grad_output`` where
    ``min_val < x < max_val``, else 0 (NaN ``x`` gives 0 in ATen's vectorised body, ``grad``
    in its scalar tail; ``torch.ops.aten.hardtanh_backward``); exact.
    Differentiable in ``grad_output`` (``HardtanhBackwardBackward0``)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self", "min_val", "max_val")
    operands = 2
    saves = ("self",)
    keeps = ("min_val", "max_val")
    _backward_name = "HardtanhBackwardBackward0"
    check = _backward_check("hardtanh_backward")

    @staticmethod
    def kernel(dtype, g, x, min_val, max_val):
        lo, hi = _c(min_val, x), _c(max_val, x)
        inside = np.where(_in_tail(dtype, g, x), ~((x <= lo) | (x >= hi)), (x > lo) & (x < hi))
        return np.where(inside, g, _c(0, x))

    @staticmethod
    def backward(ctx, gg):
        (x,) = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("hardtanh_backward", gg, x, ctx.min_val, ctx.max_val) if nig[0] else None
        return a, (dispatch("zeros_like", x) if nig[1] else None)


@register_op("relu6")
def relu6(input):
    """``relu6(input)`` = ``hardtanh(input, 0, 6)`` (``F.relu6``; node ``HardtanhBackward0``)."""
    return dispatch("hardtanh", input, 0, 6)


# ---------------------------------------------------------------------------------- hardswish
@register_op("hardswish")
class Hardswish(Kernel):
    """``hardswish(input)`` = ``x * min(max(x + 3, 0), 6) / 6`` (``F.hardswish``, node
    ``HardswishBackward0``), fp32 steps for 16-bit.

    Raises:
        NotImplementedError: integer or bool input.
    """

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "HardswishBackward0"
    check = float_only("hardswish_cpu")

    @staticmethod
    def kernel(dtype, x):
        six = _c(6, x)
        return x * np.minimum(np.maximum(x + _c(3, x), _c(0, x)), six) / six

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("hardswish_backward", grad, x)


@register_op("hardswish_backward")
class HardswishBackward(Kernel):
    """``hardswish_backward(grad_output, self)`` = 0 for ``x <= -3``, ``g`` for ``x >= 3``, else
    ``g * (x / 3 + 0.5)`` (NaN there; ATen's vectorised selections, which take ``x = +-3`` as
    the outer pieces, as does the scalar tail, which differs only in taking NaN as ``g``
    (measured on torch 2.13: ``torch.ops.aten.hardswish_backward``). Differentiable
    (``HardswishBackwardBackward0``)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self")
    operands = 2
    saves = ("grad_output", "self")
    _backward_name = "HardswishBackwardBackward0"
    check = _backward_check("hardswish_backward")

    @staticmethod
    def kernel(dtype, g, x):
        three = _c(3, x)
        mid = g * (x / three + _c(0.5, x))
        body = np.where(x <= -three, _c(0, x), np.where(x >= three, g, mid))
        tail = np.where(x <= -three, _c(0, x), np.where(x < three, mid, g))
        return np.where(_in_tail(dtype, g, x, kernel="hardswish_backward"), tail, body)

    @staticmethod
    def backward(ctx, gg):
        g, x = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("hardswish_backward", gg, x) if nig[0] else None
        b = None
        if nig[1]:
            inside = dispatch("logical_and", dispatch("gt", x, -3.0), dispatch("lt", x, 3.0))
            b = dispatch("where", inside, dispatch("div", dispatch("mul", gg, g), 3.0), 0.0)
        return a, b


# ---------------------------------------------------------------------------------- hardsigmoid
@register_op("hardsigmoid")
class Hardsigmoid(Kernel):
    """``hardsigmoid(input)`` = ``min(max(x + 3, 0), 6) / 6`` (``F.hardsigmoid``, node
    ``HardsigmoidBackward0``), fp32 steps for 16-bit.

    Raises:
        NotImplementedError: integer or bool input.
    """

    rule = FLOAT_OPMATH
    saves = ("input",)
    _backward_name = "HardsigmoidBackward0"
    check = float_only("hardsigmoid_cpu")

    @staticmethod
    def kernel(dtype, x):
        six = _c(6, x)
        return np.minimum(np.maximum(x + _c(3, x), _c(0, x)), six) / six

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return dispatch("hardsigmoid_backward", grad, x)


@register_op("hardsigmoid_backward")
class HardsigmoidBackward(Kernel):
    """``hardsigmoid_backward(grad_output, self)`` = ``g * (1/6)`` for ``-3 < x < 3``, else 0
    (``torch.ops.aten.hardsigmoid_backward``; ``1/6`` is the fp32 ``1.0f / 6.0f`` in every
    dtype, fp64 included, as ATen writes it). Not differentiable, as in PyTorch: its backward
    raises "derivative for aten::hardsigmoid_backward is not implemented"."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self")
    operands = 2
    saves = ("self",)
    _backward_name = "HardsigmoidBackwardBackward0"
    check = _backward_check("hardsigmoid_backward")

    @staticmethod
    def kernel(dtype, g, x):
        sixth = _c(np.float32(1) / np.float32(6), x)     # ATen: 1.0f / 6.0f, also for double
        inside = (x > _c(-3, x)) & (x < _c(3, x))
        return np.where(inside, g * sixth, _c(0, x))

    @staticmethod
    def backward(ctx, gg):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")
