"""Layer normalization: ``native_layer_norm`` with its fused backward
``native_layer_norm_backward`` (ops of their own, each rounding once, as PyTorch's CPU
kernels), the composite ``layer_norm`` (``torch.layer_norm`` / ``F.layer_norm``) and ``rms_norm``
(``F.rms_norm``: on CPU PyTorch 2.13 runs it as a composite of dispatched ops, replayed here).

Kernel as PyTorch's CPU ``LayerNormKernelImpl`` (``aten/src/ATen/native/cpu/layer_norm_kernel.cpp``):
each of the ``M`` rows of ``N = prod(normalized_shape)`` elements gets ``mean`` and biased
``var`` (``_normalization.row_moments``), ``rstd = 1 / sqrt(var + eps)``, and
``y = fma((x - mean) * rstd, gamma, beta)`` for fp32/fp64 (measured: torch 2.13's fp32 output
is bit-identical to this formula given its mean/rstd); fp16/bf16 inputs run the reduced-float
kernel, ``fma(fma(x, rstd, -rstd * mean), gamma, beta)`` in fp32, rounded once.
The saved ``mean``/``rstd`` have the parameters' dtype (16-bit unless the parameters are fp32).
Backward: ``ds = sum(dy * x * gamma)``, ``db = sum(dy * gamma)``, ``b = (db * mean - ds) *
rstd^3 / N``, ``c = -b * mean - db * rstd / N``, ``dx = rstd * dy * gamma + b * x + c``;
``dgamma = sum(dy * (rstd * x - rstd * mean))``, ``dbeta = sum(dy)`` over the rows.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._normalization import (as_opmath, check_floating, composite_affine,
                             composite_normalize, double_backward, fma, param_dtype,
                             recovered_eps, row_moments, rsqrt_eps, thread_row_sums)
from ._util import LOW, wrap


def _check_shapes(input, normalized_shape, weight, bias):
    """``(M, N, axis)`` of a layer norm; PyTorch's ``_check_layer_norm_inputs`` errors.

    Raises:
        RuntimeError: an empty ``normalized_shape``, a weight/bias of another shape, or an input
            whose trailing dims are not ``normalized_shape``.
    """
    ns = list(normalized_shape)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and list(p.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(p.shape)} and normalized_shape = {ns}")
    shape = list(input.shape)
    axis = len(shape) - len(ns)
    if axis < 0 or shape[axis:] != ns:
        raise RuntimeError(f"Given normalized_shape={ns}, expected input with shape "
                           f"[*, {', '.join(map(str, ns))}], but got input of size"
                           f"{list(input.shape)}")
    m = int(np.prod(shape[:axis], dtype=np.int64))
    return m, int(np.prod(ns, dtype=np.int64)), axis


def _fma_bcast(x, y, z):
    """``x * y + z`` with one rounding (``fma``) in opmath, for (M, N) arrays and operands of
    shape (M, 1) or (1, N) (per-row statistics, per-column parameters). fp32: ``fma32`` with
    the smaller operands widened to float64 first (exact: the same values, the same bits, the
    operands in the same order); given as fp32, fma32's float64 loop re-casts these small
    operands for every buffer (41 -> 33 instructions per element for (512, 128))."""
    if np.result_type(x, y, z) != np.float32:
        return fma(x, y, z)
    n = max(x.size, y.size, z.size)
    x, y, z = (v.astype(np.float64) if v.size < n else v for v in (x, y, z))
    return _nx.fma32(x, y, z)


@register_op("native_layer_norm")
class NativeLayerNorm(Function):
    """``native_layer_norm(input, normalized_shape, weight, bias, eps)`` ->
    ``(output, mean, rstd)``: PyTorch's layer-norm kernel (``NativeLayerNormBackward0``).

    Shapes: input ``(*, *normalized_shape)``; weight/bias ``normalized_shape`` or None; mean and
    rstd ``(*, 1, ..., 1)`` (not differentiable). Dtypes: output in the input's dtype; mean/rstd
    in the parameters' dtype (fp32 for a 16-bit input with fp32 parameters).

    Raises:
        RuntimeError: shape mismatches, mixed dtypes PyTorch's CPU kernel rejects.
        NotImplementedError: integer input.
    """

    _backward_name = "NativeLayerNormBackward0"
    _saved_names = ("input", "weight", "bias", "result1", "result2")
    _saved_scalars = {"normalized_shape": "normalized_shape"}

    @staticmethod
    def forward(ctx, input, normalized_shape, weight=None, bias=None, eps=1e-5):
        if isinstance(input, Tensor) and not input.dtype.is_floating_point:
            param_dtype(input, weight, bias)     # PyTorch rejects mixed dtypes before the kernel
        check_floating(input, "LayerNormKernelImpl")
        m, n, axis = _check_shapes(input, normalized_shape, weight, bias)
        pdt = param_dtype(input, weight, bias)
        cd = input.dtype.opmath.np
        x = as_opmath(input, cd).reshape(m, n)
        mean, var = row_moments(x, cd)
        rstd = rsqrt_eps(var, eps, cd)
        with np.errstate(invalid="ignore", over="ignore"):
            if input.dtype in LOW:       # the reduced-float kernel: x * scale + bias
                y = _fma_bcast(x, rstd[:, None], (-rstd * mean)[:, None])
            else:
                y = (x - mean[:, None]) * rstd[:, None]
            if weight is not None and bias is not None:
                y = _fma_bcast(y, as_opmath(weight, cd).reshape(1, n),
                               as_opmath(bias, cd).reshape(1, n))
            elif weight is not None:
                y = y * as_opmath(weight, cd).reshape(1, n)
            elif bias is not None:
                y = y + as_opmath(bias, cd).reshape(1, n)
        stat_shape = tuple(input.shape[:axis]) + (1,) * (input.ndim - axis)
        out = wrap(y.reshape(input.shape), input.dtype)
        mean_t = wrap(mean.reshape(stat_shape), pdt)
        rstd_t = wrap(rstd.reshape(stat_shape), pdt)
        ctx.normalized_shape = list(normalized_shape)
        ctx.save_for_backward(input, weight, bias, mean_t, rstd_t)
        ctx.mark_non_differentiable(mean_t, rstd_t)
        return out, mean_t, rstd_t

    @staticmethod
    def backward(ctx, grad, _gmean=None, _grstd=None):
        input, weight, bias, mean, rstd = ctx.saved_tensors
        need = ctx.needs_input_grad
        mask = [need[0], len(need) > 2 and need[2], len(need) > 3 and need[3]]
        dx, dw, db = dispatch("native_layer_norm_backward", grad, input, ctx.normalized_shape,
                              mean, rstd, weight, bias, mask)
        return dx, None, dw, db, None


@register_op("native_layer_norm_backward")
class NativeLayerNormBackward(Function):
    """``native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
    output_mask)`` -> ``(grad_input, grad_weight, grad_bias)``, PyTorch's fused kernel (one
    rounding per output); entries whose ``output_mask`` is False are None. Differentiable again
    (``NativeLayerNormBackwardBackward0``) by ``_normalization.double_backward``."""

    _backward_name = "NativeLayerNormBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
        m, n, _ = _check_shapes(input, normalized_shape, weight, bias)
        cd = input.dtype.opmath.np
        dy = as_opmath(grad_out, cd).reshape(m, n)
        x = as_opmath(input, cd).reshape(m, n)
        mu = as_opmath(mean, cd).reshape(m, 1)
        a = as_opmath(rstd, cd).reshape(m, 1)
        g = None if weight is None else as_opmath(weight, cd).reshape(1, n)
        dx = dw = db = None
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if output_mask[0]:
                dyg = dy if g is None else dy * g
                ds = np.add.reduce((dyg * x).astype(np.float64), axis=1, keepdims=True).astype(cd)
                dbs = np.add.reduce(dyg.astype(np.float64), axis=1, keepdims=True).astype(cd)
                scale = cd.type(1) / cd.type(n)
                b = (dbs * mu - ds) * a * a * a * scale
                c = -b * mu - dbs * a * scale
                dx = wrap((a * dyg + b * x + c).reshape(input.shape), input.dtype)
            # the per-thread dgamma/dbeta buffers have the input's dtype (16-bit even when the
            # parameters are fp32)
            wshape = tuple(normalized_shape)
            if output_mask[1] and weight is not None:
                xhat = _fma_bcast(a, x, -a * mu) if cd == np.float32 else a * x + (-a * mu)
                dw = wrap(thread_row_sums(dy, xhat, input.dtype).reshape(wshape), weight.dtype)
            if output_mask[2] and bias is not None:
                db = wrap(thread_row_sums(dy, None, input.dtype).reshape(wshape), bias.dtype)
        ctx.normalized_shape = list(normalized_shape)
        ctx.save_for_backward(grad_out, input, weight, bias, mean, rstd)
        return dx, dw, db

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        grad_out, input, weight, bias, mean, rstd = ctx.saved_tensors
        ns = ctx.normalized_shape
        m, n, _ = _check_shapes(input, ns, weight, bias)
        x = np.asarray(input._data, np.float64).reshape(m, n)
        var = np.square(x - np.asarray(mean._data, np.float64).reshape(m, 1)).mean(axis=1)
        eps = recovered_eps(var.reshape(mean.shape), rstd, input.dtype)

        def fwd(x, w, b):
            return layer_norm_composite(x, ns, w, b, eps)
        g = double_backward(fwd, (grad_out, input, weight, bias), (ggx, ggw, ggb))
        return g[0], g[1], None, None, None, g[2], g[3], None


def layer_norm_composite(input, normalized_shape, weight, bias, eps):
    """Layer norm written with dispatched elementwise ops and reductions (differentiable
    twice): the reference formula ``(x - mean) / sqrt(var + eps) * weight + bias``; ``eps`` a
    number or a tensor broadcasting against the per-row variance."""
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    return composite_affine(composite_normalize(input, dims, eps), weight, bias)


@register_op("layer_norm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5,
               cudnn_enable=True):
    """``layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)``
    (``torch.layer_norm``, under ``F.layer_norm``): normalise over the trailing
    ``normalized_shape`` dims with the biased variance, then scale by ``weight`` and shift by
    ``bias``. Runs ``native_layer_norm`` (graph node ``NativeLayerNormBackward0``).

    Args:
        input: floating tensor ``(*, *normalized_shape)``.
        normalized_shape: int or sequence of ints, the trailing dims to normalise.
        weight, bias: tensors of shape ``normalized_shape`` or None.
        eps: added to the variance.

    Raises:
        RuntimeError: shape mismatches or mixed dtypes (see ``NativeLayerNorm``).
        NotImplementedError: integer input.
    """
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    return dispatch("native_layer_norm", input, list(normalized_shape), weight, bias, eps)[0]


@register_op("rms_norm")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``rms_norm(input, normalized_shape, weight=None, eps=None)`` (``torch.rms_norm``,
    ``F.rms_norm``): ``x * rsqrt(mean(x^2) + eps) * weight`` over the trailing dims.

    PyTorch 2.13's CPU path is a composite (no fused kernel): a 16-bit input is upcast to fp32
    (``_to_copy``), ``pow``, ``mean``, ``add``, ``rsqrt``, ``mul`` (and ``mul`` by the weight) run
    in fp32 and the result is cast back; ``eps=None`` means ``finfo(opmath dtype).eps``. The same
    ops are dispatched here (graph nodes ``MulBackward0`` / ``ToCopyBackward0`` as PyTorch).

    Raises:
        RuntimeError: ``normalized_shape`` not the trailing dims of ``input``; a weight of another
            shape. NotImplementedError: integer input ('"rms_norm" not implemented for 'Long'').
    """
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    ns = list(normalized_shape)
    shape = list(input.shape)
    if len(ns) > len(shape) or shape[len(shape) - len(ns):] != ns:
        raise RuntimeError(f"Given normalized_shape={ns}, expected input with shape "
                           f"[*{', '.join(map(str, ns))}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and list(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = {ns}")
    check_floating(input, "rms_norm")
    if weight is not None and weight.dtype is not input.dtype:
        import warnings
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = "
                      f"{input.dtype.c10_name}, weight dtype = {weight.dtype.c10_name}, Cannot "
                      "dispatch to fused implementation.", UserWarning, stacklevel=3)
    cd = input.dtype.opmath
    x = input if input.dtype is cd else dispatch("_to_copy", input, dtype=cd)
    if eps is None:
        eps = float(_dt.finfo(cd).eps)
    dims = list(range(input.ndim - len(ns), input.ndim))
    ms = dispatch("mean", dispatch("pow", x, 2), dims, True)
    rs = dispatch("rsqrt", dispatch("add", ms, eps))
    y = dispatch("mul", x, rs)
    if weight is not None:
        y = dispatch("mul", y, weight)
    if y.dtype is not input.dtype:
        y = dispatch("_to_copy", y, dtype=input.dtype)
    return y
