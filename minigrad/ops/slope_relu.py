"""Leaky ReLUs whose negative slope is a tensor: learned (``prelu``) or random (``rrelu``).

- ``prelu(input, weight)`` (PyTorch's composite): checks, ``weight`` viewed as ``[1, C, 1...]``
  (``ViewBackward0``), then the ``_prelu_kernel`` op: ``x if x > 0 else w * x`` in opmath, one
  rounding (node ``PreluKernelBackward0``). Its backward is the fused
  ``_prelu_kernel_backward(grad, x, w)`` -> ``(x > 0 ? g : w * g, x > 0 ? 0 : x * g)``, both in
  the broadcast shape; autograd sums the weight's part back to the weight's shape, as PyTorch's
  engine does. Double backward: ``PreluKernelBackwardBackward0``, of dispatched ops.
- ``rrelu_with_noise(input, noise, lower, upper, training, generator)``: in training each
  element ``x <= 0`` draws a slope ``r ~ U(lower, upper)`` (a double, turned to opmath), gives
  ``x * r`` and writes ``r`` into ``noise`` (1 elsewhere); in eval it is
  ``leaky_relu(x, (lower + upper) / 2)``. Node ``RreluWithNoiseBackward0`` (in place:
  ``...Backward1``, reading the result); backward ``rrelu_with_noise_backward``: ``noise * grad``
  in training, else ``leaky_relu_backward(grad, x, (lower + upper) / 2)``.
  The slopes are ATen's draws (``uniform_real_distribution<double>`` on the generator's 64-bit
  words, one per element ``x <= 0`` in order): after the same seed bf16 and fp64 results equal
  PyTorch's bit for bit; fp32 ones are within 2 ulp (about 30% differ, measured on torch 2.13;
  the cause is not found). fp16 in training raises as PyTorch's (no Half kernel).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..numerics import fma64
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..random import _gen
from ..tensor import Tensor
from ._util import opmath, wrap
from .kernel import PROMOTE_OPMATH, Kernel
from .piecewise_activation import LeakyRelu, LeakyReluBackward, _backward_check, float_only


# ---------------------------------------------------------------------------------- prelu
@register_op("prelu")
def prelu(input, weight):
    """``prelu(input, weight)`` (``torch.prelu``, ``F.prelu``): ``weight`` (one value, or one per
    channel, dim 1 of ``input``) is viewed to broadcast over ``input``, then ``_prelu_kernel``.

    Raises:
        TypeError: a non-Tensor argument.
        RuntimeError: PyTorch's "prelu: Type promoting not supported. Got Float and Double",
            "Not allow zero-dim input tensor.", "Mismatch of parameter numbers and input channel
            size. Found parameter numbers = 2 and channel size = 3.", "prelu: Expected `weight`
            to be a scalar or 1D tensor, but got: ndim = 2".
    """
    for name, t in (("self", input), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"prelu(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{input.dtype.scalar_name} and {weight.dtype.scalar_name}")
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    if input.ndim != weight.ndim:
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = weight.numel()
        weight = dispatch("reshape", weight, shape)
    return dispatch("_prelu_kernel", input, weight)


@register_op("_prelu_kernel")
class PreluKernel(Kernel):
    """``_prelu_kernel(self, weight)`` = ``x if x > 0 else weight * x``, ``weight`` broadcasting
    over ``self`` (``torch._prelu_kernel``; node ``PreluKernelBackward0``); fp32 for 16-bit, one
    rounding.

    Raises:
        NotImplementedError: integer or bool input.
    """

    rule = PROMOTE_OPMATH
    args = ("self", "weight")
    operands = 2
    saves = ("self", "weight")
    _backward_name = "PreluKernelBackward0"
    check = float_only("prelu_cpu")

    @staticmethod
    def kernel(dtype, x, w):
        return np.where(x > 0, x, w * x)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return dispatch("_prelu_kernel_backward", grad, x, w)


@register_op("_prelu_kernel_backward")
class PreluKernelBackward(Function):
    """``_prelu_kernel_backward(grad_output, self, weight)`` -> ``(grad_self, grad_weight)``:
    ``x > 0 ? g : w * g`` and ``x > 0 ? 0 : x * g``, both of the broadcast shape, each rounded
    once (``torch.ops.aten._prelu_kernel_backward``). Differentiable
    (``PreluKernelBackwardBackward0``)."""

    _backward_name = "PreluKernelBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, self, weight):
        for name, t in (("grad_output", grad_output), ("self", self), ("weight", weight)):
            if not isinstance(t, Tensor):
                raise TypeError(f"_prelu_kernel_backward(): argument '{name}' must be Tensor, "
                                f"not {type(t).__name__}")
        dt = _dt.result_type(grad_output, self, weight)
        g, x, w = (opmath(t._data if t.dtype is dt else t.to(dt)._data, dt)
                   for t in (grad_output, self, weight))
        pos = x > 0
        with np.errstate(all="ignore"):
            gx = np.where(pos, g, w * g)
            gw = np.where(pos, x.dtype.type(0), x * g)
        shape = np.broadcast_shapes(gx.shape, gw.shape)
        ctx.save_for_backward(grad_output, self, weight)
        return (wrap(np.broadcast_to(gx, shape).copy(), self.dtype),
                wrap(np.broadcast_to(gw, shape).copy(), weight.dtype))

    @staticmethod
    def backward(ctx, ggx, ggw):
        # derivatives.yaml's formulas for _prelu_kernel_backward, as dispatched ops
        g, x, w = ctx.saved_tensors
        nig = ctx.needs_input_grad
        pos = dispatch("gt", x, 0)
        terms = []
        if ggx is not None:
            terms.append(dispatch("mul", ggx, w))
        if ggw is not None:
            terms.append(dispatch("mul", ggw, x))
        gg_out = None
        if nig[0]:
            neg = terms[0] if len(terms) == 1 else dispatch("add", terms[0], terms[1])
            gg_out = dispatch("where", pos, 0.0 if ggx is None else ggx, neg)
        gx = gw = None
        if nig[1]:
            gx = dispatch("zeros_like", x) if ggw is None else \
                dispatch("where", pos, 0.0, dispatch("mul", g, ggw))
        if nig[2]:
            gw = dispatch("zeros_like", x) if ggx is None else \
                dispatch("where", pos, 0.0, dispatch("mul", g, ggx))
        return gg_out, gx, gw


# ---------------------------------------------------------------------------------- rrelu
def _check_bounds(lower, upper):
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def _slopes(g, n, lower, upper):
    """``n`` draws of ATen's ``uniform_real_distribution<double>(lower, upper)``, in order: 53
    bits of a 64-bit word as a fraction ``x``, then ``x * (upper - lower) + lower`` as one fma."""
    x = (g._random64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    return fma64(x, np.float64(upper) - np.float64(lower), np.full(n, np.float64(lower)))


def _rrelu_values(input, noise, lower, upper, training, generator):
    """The forward values (opmath array) of rrelu_with_noise; writes ``noise`` in training."""
    dt = input.dtype
    x = opmath(input._data, dt)
    if not training:
        return LeakyRelu.kernel(dt, x, (float(lower) + float(upper)) / 2)
    if noise.shape != input.shape:
        raise RuntimeError(f"rrelu_with_noise: noise of shape {list(noise.shape)} does not "
                           f"match the input's {list(input.shape)}")
    if dt is _dt.float16:
        raise NotImplementedError("\"rrelu_with_noise_out_cpu\" not implemented for 'Half'")
    neg = x <= 0
    r = np.ones(x.shape, np.float64)
    r[neg] = _slopes(_gen(generator), int(neg.sum()), float(lower), float(upper))
    noise._data[...] = r.astype(noise._data.dtype)    # the kernel writes its noise output
    noise._vc[0] += 1
    return np.where(neg, x * r.astype(x.dtype), x)


@register_op("rrelu_with_noise")
class RreluWithNoise(Function):
    """``rrelu_with_noise(self, noise, lower=1/8, upper=1/3, training=False, generator=None)``
    (``torch.ops.aten.rrelu_with_noise``; node ``RreluWithNoiseBackward0``); see the module
    docstring. ``noise`` (same shape and dtype) is written in training.

    Raises:
        RuntimeError: "Lower bound should be less than or equal to the upper bound".
        NotImplementedError: integer or bool input.
    """

    _backward_name = "RreluWithNoiseBackward0"
    _is_result = False

    @classmethod
    def forward(cls, ctx, self, noise, lower=1.0 / 8, upper=1.0 / 3, training=False,
                generator=None):
        float_only("rrelu_with_noise_cpu").__func__(self)
        _check_bounds(lower, upper)
        with np.errstate(all="ignore"):
            out = wrap(_rrelu_values(self, noise, lower, upper, training, generator),
                       self.dtype)
        ctx.save_for_backward(out if cls._is_result else self, noise)
        ctx.hp = (float(lower), float(upper), bool(training))
        return out

    @classmethod
    def backward(cls, ctx, grad):
        saved, noise = ctx.saved_tensors
        return (dispatch("rrelu_with_noise_backward", grad, saved, noise, *ctx.hp,
                         cls._is_result), None, None, None, None, None)


class RreluWithNoiseResult(RreluWithNoise):
    """``rrelu_with_noise_``'s node (``RreluWithNoiseBackward1``): backward reads the result."""

    _backward_name = "RreluWithNoiseBackward1"
    _is_result = True


@register_op("rrelu_with_noise_backward")
class RreluWithNoiseBackward(Kernel):
    """``rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training,
    self_is_result)``: ``noise * grad`` in training, else ``leaky_relu_backward(grad, self,
    (lower + upper) / 2, self_is_result)``; one rounding. Differentiable in ``grad_output``
    (``RreluWithNoiseBackwardBackward0``; ``self`` gets zeros)."""

    rule = PROMOTE_OPMATH
    args = ("grad_output", "self", "noise", "lower", "upper", "training", "self_is_result")
    operands = 3
    saves = ("self", "noise")
    keeps = ("lower", "upper", "training")
    _backward_name = "RreluWithNoiseBackwardBackward0"
    check = _backward_check("rrelu_with_noise_backward")

    @staticmethod
    def kernel(dtype, g, x, noise, lower, upper, training, self_is_result=False):
        if training:
            return noise * g
        return LeakyReluBackward.kernel(dtype, g, x, (float(lower) + float(upper)) / 2)

    @staticmethod
    def backward(ctx, gg):
        x, noise = ctx.saved_tensors
        nig = ctx.needs_input_grad
        a = dispatch("rrelu_with_noise_backward", gg, x, noise, ctx.lower, ctx.upper,
                     ctx.training, False) if nig[0] else None
        b = dispatch("zeros_like", gg) if nig[1] else None
        return a, b, None


@register_op("rrelu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``rrelu(input, lower=1/8, upper=1/3, training=False, generator=None)`` (``torch.rrelu``,
    ``F.rrelu``): ``rrelu_with_noise`` with a fresh ``noise`` buffer (PyTorch's composite).

    Raises:
        RuntimeError / NotImplementedError: as ``rrelu_with_noise``.
    """
    noise = dispatch("empty_like", input)
    return dispatch("rrelu_with_noise", input, noise, lower, upper, training, generator)


@register_op("rrelu_with_noise_")
def rrelu_with_noise_(self, noise, lower=1.0 / 8, upper=1.0 / 3, training=False,
                      generator=None):
    """In-place ``rrelu_with_noise`` (``torch.ops.aten.rrelu_with_noise_``; node
    ``RreluWithNoiseBackward1``).

    Raises:
        RuntimeError: ``run_inplace``'s errors (a leaf that requires grad, overlap) and
            ``rrelu_with_noise``'s.
    """
    from .inplace import run_inplace
    return run_inplace(self, RreluWithNoiseResult.apply, noise, lower, upper, training,
                       generator)


@register_op("rrelu_")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """In-place ``rrelu`` (``torch.rrelu_``, ``F.rrelu(..., inplace=True)``)."""
    noise = dispatch("empty_like", input)
    return dispatch("rrelu_with_noise_", input, noise, lower, upper, training, generator)
