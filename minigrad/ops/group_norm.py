"""Group normalization: ``native_group_norm`` with its fused backward
``native_group_norm_backward`` (each rounding once, as PyTorch's CPU kernels in
``aten/src/ATen/native/cpu/group_norm_kernel.cpp``) and the composite ``group_norm``
(``torch.group_norm`` / ``F.group_norm``).

The input ``(N, C, *)`` is seen as ``(N, G, D * HxW)`` with ``D = C / G``: each of the ``N * G``
groups gets ``mean``, biased ``var`` (``_normalization.row_moments``) and
``rstd = 1 / sqrt(var + eps)`` (in double, as the kernel, whose ``eps`` is a double); without
weight and bias ``y = (x - mean) * rstd``, else channel ``c`` of group ``g`` computes
``y = fma(x, scale, bias)`` with ``scale = rstd * gamma[c]``, ``bias = fma(-scale, mean,
beta[c])``, in opmath (fp32 for fp16/bf16), rounded once. Backward (per ``(n, c)``: ``ds = sum(dy * x)``,
``db = sum(dy)`` over ``HxW``; per group ``dsg = sum(ds * gamma)``, ``dbg = sum(db * gamma)``):
``c2 = (dbg * mean - dsg) * rstd^3 / (D * HxW)``, ``c3 = -c2 * mean - dbg * rstd / (D * HxW)``,
``dx = gamma * rstd * dy + c2 * x + c3``; ``dgamma = sum_n (ds - db * mean) * rstd``,
``dbeta = sum_n db``. The sums run in float64 and are rounded into opmath (PyTorch sums in
opmath, vectorised: about one ulp of fp32 apart).
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._normalization import (as_opmath, check_floating, composite_affine,
                             composite_normalize, double_backward, fma, param_dtype,
                             recovered_eps, row_moments)
from ._util import wrap


def _check(input, weight, bias, n, c, hxw, group):
    if input.numel() != n * c * hxw:
        raise RuntimeError(f"Expected input to have {n * c * hxw} elements, but got "
                           f"{input.numel()}")
    if group <= 0 or c % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={group}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(p.shape)} "
                               f"and input of shape {list(input.shape)}")


@register_op("native_group_norm")
class NativeGroupNorm(Function):
    """``native_group_norm(input, weight, bias, N, C, HxW, group, eps)`` ->
    ``(output, mean, rstd)`` (``NativeGroupNormBackward0``): PyTorch's group-norm kernel.

    Shapes: input ``(N, C, *)`` with ``prod(*) = HxW``; weight/bias ``(C,)`` or None; mean and
    rstd ``(N, group)`` in the parameters' dtype (they require grad as PyTorch's, but, as there,
    gradients flowing into them are ignored).

    Raises:
        RuntimeError: ``C`` not divisible by ``group``, a weight/bias of the wrong size, mixed
            dtypes PyTorch's CPU kernel rejects. NotImplementedError: integer input.
    """

    _backward_name = "NativeGroupNormBackward0"

    @staticmethod
    def forward(ctx, input, weight, bias, N, C, HxW, group, eps):
        if isinstance(input, Tensor) and not input.dtype.is_floating_point:
            param_dtype(input, weight, bias)     # PyTorch rejects mixed dtypes before the kernel
        check_floating(input, "GroupNormKernelImpl")
        _check(input, weight, bias, N, C, HxW, group)
        pdt = param_dtype(input, weight, bias)
        cd = input.dtype.opmath.np
        d = C // group
        x = as_opmath(input, cd).reshape(N * group, d * HxW)
        mean, var = row_moments(x, cd)
        with np.errstate(divide="ignore", invalid="ignore"):    # in double, as the kernel
            rstd = (1.0 / np.sqrt(np.maximum(var, 0).astype(np.float64) + eps)).astype(cd)
        with np.errstate(invalid="ignore", over="ignore"):
            m3, r3 = mean.reshape(N, group, 1), rstd.reshape(N, group, 1)
            x4 = x.reshape(N, group, d, HxW)
            if weight is None and bias is None:
                y = (x4 - m3[..., None]) * r3[..., None]
            else:
                g = np.ones(C, cd) if weight is None else as_opmath(weight, cd)
                b = np.zeros(C, cd) if bias is None else as_opmath(bias, cd)
                scale = r3 * g.reshape(1, group, d)                       # (N, G, D)
                shift = fma(-scale, m3, b.reshape(1, group, d))
                y = fma(x4, scale[..., None], shift[..., None])
        out = wrap(y.reshape(input.shape), input.dtype)
        mean_t = wrap(mean.reshape(N, group), pdt)
        rstd_t = wrap(rstd.reshape(N, group), pdt)
        ctx.sizes = (N, C, HxW, group)
        ctx.save_for_backward(input, weight, mean_t, rstd_t)
        return out, mean_t, rstd_t       # mean/rstd require grad, as PyTorch's (their grads
                                         # are ignored by the backward, as PyTorch's)

    @staticmethod
    def backward(ctx, grad, _gmean=None, _grstd=None):
        input, weight, mean, rstd = ctx.saved_tensors
        need = ctx.needs_input_grad
        mask = [need[0], need[1], need[2]]
        dx, dw, db = dispatch("native_group_norm_backward", grad, input, mean, rstd, weight,
                              *ctx.sizes, mask)
        return dx, dw, db, None, None, None, None, None


@register_op("native_group_norm_backward")
class NativeGroupNormBackward(Function):
    """``native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group,
    output_mask)`` -> ``(grad_input, grad_weight, grad_bias)``: PyTorch's fused kernel (one
    rounding per output; None where ``output_mask`` is False). Differentiable again
    (``NativeGroupNormBackwardBackward0``) through ``_normalization.double_backward``."""

    _backward_name = "NativeGroupNormBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
        cd = input.dtype.opmath.np
        d = C // group
        f64 = np.float64
        dy = as_opmath(grad_out, cd).reshape(N, group, d, HxW)
        x = as_opmath(input, cd).reshape(N, group, d, HxW)
        mu = as_opmath(mean, cd).reshape(N, group, 1)
        a = as_opmath(rstd, cd).reshape(N, group, 1)
        g = np.ones((1, group, d), cd) if weight is None else \
            as_opmath(weight, cd).reshape(1, group, d)
        dx = dw = db = None
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            ds = np.add.reduce(dy.astype(f64) * x, axis=3).astype(cd)       # (N, G, D)
            dbs = np.add.reduce(dy.astype(f64), axis=3).astype(cd)
            if output_mask[0]:
                s = cd.type(1) / cd.type(d * HxW)
                dsg = np.add.reduce(ds.astype(f64) * g, axis=2, keepdims=True).astype(cd)
                dbg = np.add.reduce(dbs.astype(f64) * g, axis=2, keepdims=True).astype(cd)
                c2 = (dbg * mu - dsg) * a * a * a * s
                c3 = -c2 * mu - dbg * a * s
                y = (g * a)[..., None] * dy + c2[..., None] * x + c3[..., None]
                dx = wrap(y.reshape(input.shape), input.dtype)
            pdt = input.dtype if weight is None else weight.dtype
            if output_mask[1]:
                dgw = np.add.reduce(((ds.astype(f64) - dbs * mu) * a), axis=0)
                dw = wrap(dgw.reshape(C), pdt)
            if output_mask[2]:
                db = wrap(np.add.reduce(dbs.astype(f64), axis=0).reshape(C), pdt)
        ctx.sizes = (N, C, HxW, group)
        ctx.save_for_backward(grad_out, input, mean, rstd, weight)
        return dx, dw, db

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        grad_out, input, mean, rstd, weight = ctx.saved_tensors
        n, c, hxw, group = ctx.sizes
        x = np.asarray(input._data, np.float64).reshape(n, group, -1)
        var = np.square(x - np.asarray(mean._data, np.float64)[..., None]).mean(axis=2)
        eps = recovered_eps(var, rstd, input.dtype)

        def fwd(x, w, b):
            return group_norm_composite(x, group, w, b, eps)
        bias = None
        if ggb is not None:     # the bias only enters through dbeta = sum(dy)
            bias = dispatch("zeros", (c,), dtype=input.dtype)
        g = double_backward(fwd, (grad_out, input, weight, bias), (ggx, ggw, ggb))
        return g[0], g[1], None, None, g[2], None, None, None, None, None


def group_norm_composite(input, num_groups, weight, bias, eps):
    """Group norm in dispatched ops (differentiable twice): the reference formula; ``eps`` a
    number or an ``(N, num_groups)`` tensor."""
    n, c = input.shape[0], input.shape[1]
    x = dispatch("reshape", input, (n, num_groups, -1))
    if not isinstance(eps, (int, float)):
        eps = dispatch("reshape", eps, (n, num_groups, 1))
    y = dispatch("reshape", composite_normalize(x, [2], eps), tuple(input.shape))
    return composite_affine(y, weight, bias, (1, c) + (1,) * (input.ndim - 2))


@register_op("group_norm")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)``
    (``torch.group_norm``, under ``F.group_norm``): normalise each of ``num_groups`` channel
    groups per sample, then an affine per channel. Runs ``native_group_norm``
    (``NativeGroupNormBackward0``).

    Args:
        input: floating tensor ``(N, C, *)``.
        num_groups: divides ``C``.
        weight, bias: ``(C,)`` tensors or None.
        eps: added to the variance.

    Raises:
        RuntimeError: ``C`` not divisible by ``num_groups``, weight/bias size, mixed dtypes.
    """
    if not input.dtype.is_floating_point:
        param_dtype(input, weight, bias)         # PyTorch rejects mixed dtypes before the kernel
        check_floating(input, "GroupNormKernelImpl")
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    hxw = int(np.prod(input.shape[2:], dtype=np.int64))
    return dispatch("native_group_norm", input, weight, bias, n, c, hxw, num_groups, eps)[0]
