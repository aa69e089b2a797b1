"""softmax / log_softmax and their fused backward kernels ``_softmax_backward_data`` and
``_log_softmax_backward_data`` (ops of their own, each rounding once, as in PyTorch).

fp16/bf16 recipes of PyTorch's CPU kernels (facts sheet §5, checked against torch 2.13):
- softmax, last dim: fp32 ``exp(x - max) / sum`` and one rounding.
- softmax, other dims: columns covered by the 32-wide SIMD loop (per thread chunk of
  ``outer * inner``) round once; tail columns compute ``round(round(e) / s)`` with ``s`` the fp32
  sum of the unrounded ``e``. Which columns are tails depends on the thread count: we emulate
  ``NUM_THREADS`` threads (default ``os.cpu_count()``, PyTorch's default on a machine without
  SMT; set ``nn_softmax.NUM_THREADS`` to ``torch.get_num_threads()`` to compare).
- log_softmax, last dim: ``round((x - m) - round(log(round(sum(exp(x - m))))))``; other dims fp32
  and one rounding.
- log_softmax backward, last dim: ``g - exp(y) * sum(g)`` as one fused multiply-add in fp32,
  then one rounding (bit-exact in our tests); other dims and softmax backward: the fp32 formula,
  one rounding (within 1 ULP on a few elements where PyTorch's SIMD summation order differs).
fp32 results are within a few ULPs of PyTorch (its vectorised exp differs from NumPy's by 1 ULP).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import LOW, wrap, wrap_dim



def _prep(input, dim, dtype, kernel):
    if not isinstance(input, Tensor):
        raise TypeError(f"{kernel.split('_')[0]}(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    if dtype is not None:
        dtype = _dt.dtype_arg(dtype, kernel)
        if dtype is not input.dtype:
            input = dispatch("_to_copy", input, dtype=dtype)
    d = wrap_dim(dim, input.ndim)
    if not input.dtype.is_floating_point and input.numel():
        last = input.ndim == 0 or d == input.ndim - 1
        name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
        raise NotImplementedError(f'"{name}" not implemented for \'{input.dtype.scalar_name}\'')
    return input, d


def _tail_mask(shape, d):
    """Bool mask (outer, 1, inner) of the columns PyTorch's non-last-dim 16-bit softmax handles
    in its scalar tail loop: the ``outer * inner`` columns are split evenly over the threads
    (measured: even 150 columns of 10 rows are split, whatever the source's grain says) and each
    chunk walks its rows ``lanes(dtype)`` columns at a time."""
    outer = 1
    for s in shape[:d]:
        outer *= s
    inner = 1
    for s in shape[d + 1:]:
        inner *= s
    n = outer * inner
    idx = np.arange(n)
    chunks = _nx.parallel_chunks(n, 1)
    chunk = chunks[0][1] if n else 1
    b = (idx // chunk) * chunk
    e = np.minimum(b + chunk, n)
    row = (idx // inner) * inner
    s0 = np.maximum(b, row)
    t0 = np.minimum(e, row + inner)
    vec = _nx.lanes(2, "softmax")
    return ((idx - s0) >= vec * ((t0 - s0) // vec)).reshape(outer, 1, inner), (outer, inner)


def _softmax_kernel(x, d, dt):
    a = x._data.reshape(1) if x.ndim == 0 else x._data
    cd = _dt.opmath_dtype(dt).np
    a = a if a.dtype == cd else a.astype(cd)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(a - np.maximum.reduce(a, axis=d, keepdims=True)) if a.size else a.copy()
        s = np.add.reduce(e, axis=d, keepdims=True)
        out = e / s
        if dt in LOW and d != a.ndim - 1 and a.size:
            mask, (outer, inner) = _tail_mask(a.shape, d)
            if mask.any():
                e3 = e.reshape(outer, a.shape[d], inner)
                two = e3.astype(dt.np).astype(np.float32) / s.reshape(outer, 1, inner)
                out = np.where(mask, two, out.reshape(e3.shape)).reshape(a.shape)
    return out.reshape(x.shape)


def _log_softmax_kernel(x, d, dt):
    a = x._data.reshape(1) if x.ndim == 0 else x._data
    cd = _dt.opmath_dtype(dt).np
    a = a if a.dtype == cd else a.astype(cd)
    if not a.size:
        return a.copy().reshape(x.shape)
    token = _nx.quiet()     # np.errstate(all="ignore") as two C calls: log(0), inf - inf
    try:
        sh = a - np.maximum.reduce(a, axis=d, keepdims=True)
        s = np.add.reduce(np.exp(sh), axis=d, keepdims=True)
        if dt in LOW and d == a.ndim - 1:
            lse = np.log(s.astype(dt.np).astype(np.float32)).astype(dt.np).astype(np.float32)
        else:
            lse = np.log(s)
        return (sh - lse).reshape(x.shape)
    finally:
        _nx.unquiet(token)


@register_op("_softmax")
class Softmax(Function):
    """``_softmax(input, dim, half_to_float)``: softmax of a floating tensor in its own dtype
    (``SoftmaxBackward0``), PyTorch's kernel under ``softmax`` (what a dispatch mode sees).

    Raises:
        RuntimeError: ``half_to_float`` True (as PyTorch's CPU kernel: "softmax with half to
            float conversion is not supported on CPU").
    """

    _backward_name = "SoftmaxBackward0"
    _saved_names = ("result",)
    _saved_scalars = {"dim": "dim"}

    @staticmethod
    def forward(ctx, input, dim, half_to_float=False):
        if half_to_float:
            raise RuntimeError("softmax with half to float conversion is not supported on CPU")
        dt = input.dtype
        out = wrap(_softmax_kernel(input, dim, dt), dt)
        ctx.dim, ctx.dtype = dim, dt
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        return dispatch("_softmax_backward_data", grad, out, ctx.dim, ctx.dtype), None, None


@register_op("_log_softmax")
class LogSoftmax(Function):
    """``_log_softmax(input, dim, half_to_float)``: log-softmax in the input's dtype
    (``LogSoftmaxBackward0``), PyTorch's kernel under ``log_softmax``.

    Raises:
        RuntimeError: ``half_to_float`` True (not supported on CPU, as PyTorch).
    """

    _backward_name = "LogSoftmaxBackward0"
    _saved_names = ("result",)
    _saved_scalars = {"dim": "dim"}

    @staticmethod
    def forward(ctx, input, dim, half_to_float=False):
        if half_to_float:
            raise RuntimeError("softmax with half to float conversion is not supported on CPU")
        dt = input.dtype
        out = wrap(_log_softmax_kernel(input, dim, dt), dt)
        ctx.dim, ctx.dtype = dim, dt
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        return dispatch("_log_softmax_backward_data", grad, out, ctx.dim, ctx.dtype), None, None


@register_op("softmax")
def softmax(input, dim, dtype=None):
    """``softmax(input, dim, dtype=None)`` = exp(x - max) / sum along ``dim`` (``torch.softmax``).

    Args:
        input: floating tensor of any shape (0-D allowed).
        dim: the dim to normalise over (negative dims allowed).
        dtype: cast the input to this dtype first (``ToCopyBackward0`` under the softmax node).

    Returns:
        a tensor of ``input``'s shape and dtype (or ``dtype``).

    Raises:
        IndexError: ``dim`` out of range; NotImplementedError: non-empty integer/bool inputs
            ('"softmax_lastdim_kernel_impl" not implemented for 'Long'').
    """
    x, d = _prep(input, dim, dtype, "softmax")
    return dispatch("_softmax", x, d, False)


@register_op("log_softmax")
def log_softmax(input, dim, dtype=None):
    """``log_softmax(input, dim, dtype=None)`` = (x - max) - log(sum(exp(x - max)))
    (``torch.log_softmax``); arguments, shapes and errors as ``softmax``."""
    x, d = _prep(input, dim, dtype, "log_softmax")
    return dispatch("_log_softmax", x, d, False)


def _lastdim_vec(output, dim, cd):
    """True where PyTorch's backward runs its last-dim vectorised kernel on fp32/fp64 data."""
    return output.ndim > 0 and dim == output.ndim - 1 and output.numel() > 0 and \
        output.dtype.opmath is output.dtype


def _f32(t, cd):
    a = t._data
    return a if a.dtype == cd else a.astype(cd)


@register_op("_softmax_backward_data")
class SoftmaxBackwardData(Function):
    """``_softmax_backward_data(grad_output, output, dim, input_dtype)`` =
    ``output * (grad_output - sum(grad_output * output, dim))``, fp32 inside, one rounding into
    ``input_dtype``. Differentiable (double backward) through dispatched ops."""

    _backward_name = "SoftmaxBackwardDataBackward0"

    @staticmethod
    def forward(ctx, grad_output, output, dim, input_dtype):
        dt = _dt.as_dtype(input_dtype)
        cd = _dt.opmath_dtype(output.dtype).np
        g, y = _f32(grad_output, cd), _f32(output, cd)
        ax = dim if output.ndim else None
        if _lastdim_vec(output, dim, cd):
            s = _nx.reduce_all(g, y, "softmax_backward_lastdim")   # map2_reduce_all
        else:
            s = np.add.reduce(g * y, axis=ax, keepdims=True)
        ctx.dim = dim
        ctx.save_for_backward(grad_output, output)
        return wrap(y * (g - s), dt)

    @staticmethod
    def backward(ctx, gg):
        g, y = ctx.saved_tensors
        d = ctx.dim
        n = ctx.needs_input_grad
        ggy = dispatch("sum", dispatch("mul", gg, y), d, True)
        dg = dy = None
        if n[0]:
            dg = dispatch("_softmax_backward_data", gg, y, d, g.dtype)
        if n[1]:
            s = dispatch("sum", dispatch("mul", g, y), d, True)
            dy = dispatch("add", dispatch("mul", gg, dispatch("add", g, s, alpha=-1)),
                          dispatch("mul", g, ggy), alpha=-1)
        return dg, dy, None, None


@register_op("_log_softmax_backward_data")
class LogSoftmaxBackwardData(Function):
    """``_log_softmax_backward_data(grad_output, output, dim, input_dtype)`` =
    ``grad_output - exp(output) * sum(grad_output, dim)``; fp32 inside, one rounding (last dim:
    a fused multiply-add, as PyTorch's vectorised kernel). Differentiable via dispatched ops."""

    _backward_name = "LogSoftmaxBackwardDataBackward0"

    @staticmethod
    def forward(ctx, grad_output, output, dim, input_dtype):
        dt = _dt.as_dtype(input_dtype)
        cd = _dt.opmath_dtype(output.dtype).np
        g, y = _f32(grad_output, cd), _f32(output, cd)
        ax = dim if output.ndim else None
        token = _nx.quiet()     # np.errstate(all="ignore") as two C calls
        try:
            if _lastdim_vec(output, dim, cd):
                s = _nx.reduce_all(g, kernel="log_softmax_backward_lastdim")  # reduce_all
            else:
                s = np.add.reduce(g, axis=ax, keepdims=True)
            e = np.exp(y)
            if cd == np.float32 and (output.ndim == 0 or dim == output.ndim - 1):
                # g - e*s in fp32 with one rounding, as the kernel's fnmadd (numerics.fma32: a
                # float64 difference rounded to fp32 directly rounds twice on a halfway point)
                r = _nx.fma32(e, s, g, subtract=True)
            else:
                r = g - e * s
        finally:
            _nx.unquiet(token)
        ctx.dim = dim
        ctx.save_for_backward(grad_output, output)
        return wrap(r, dt)

    @staticmethod
    def backward(ctx, gg):
        g, y = ctx.saved_tensors
        d = ctx.dim
        n = ctx.needs_input_grad
        e = dispatch("exp", y)
        dg = dy = None
        if n[0]:
            dg = dispatch("add", gg, dispatch("sum", dispatch("mul", gg, e), d, True), alpha=-1)
        if n[1]:
            dy = dispatch("mul", dispatch("mul", gg, e), dispatch("sum", g, d, True))
            dy = dispatch("mul", dy, -1)
        return dg, dy, None, None
