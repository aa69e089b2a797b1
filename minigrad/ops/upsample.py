"""Upsampling (``F.interpolate``'s kernels): ``upsample_nearest2d``, ``upsample_bilinear2d``,
``upsample_linear1d``, ``upsample_trilinear3d`` and ``upsample_bicubic2d`` with their backward
kernels (``upsample_nearest2d_backward``, ``upsample_bilinear2d_backward``...). Bicubic: see
``UpsampleBicubic2d`` (ATen's non-separable kernel, its fmas measured; bit-exact in
fp32/fp16/bf16).

Source positions follow ATen's ``UpSample.h`` exactly, in its precision:

- nearest: output index ``o`` reads ``min(floor(o * scale), n - 1)`` with ``scale`` a float32
  (``1 / scale_factor`` when one was given, else ``n / out``); the identity and the exact 2x
  cases are index copies (``nearest_idx``);
- bilinear (and linear, trilinear): the source coordinate ``scale * (o + 0.5) - 0.5`` clamped
  at 0 (or ``scale * o`` with ``align_corners``, scale ``(n - 1) / (out - 1)``), computed in
  opmath; its floor and the next index are mixed with weights ``1 - l`` and ``l``, the last dim
  first (ATen's separable ``Interpolate<n>``: ``t(i0) * l0 + t(i1) * l1`` per dim, ``t`` the
  interpolation over the dims after it).

Nearest is exact (floating dtypes and uint8, as PyTorch). Linear and trilinear follow ATen's
separable kernel with its fused multiply-adds: bit-exact in fp32 (forward and backward,
measured) and fp64 (except with a scale recomputed from the sizes: a few ulp), and fp16/bf16
(the forward keeps the lambdas in the 16-bit type, as ATen's ``scalar_t`` weights; the backward
takes them in opmath and accumulates in an fp32 buffer, rounded once). Bilinear
computes in opmath (fp32 for 16-bit) and rounds once; its backward
adds each output gradient's four weighted parts into the input gradient in PyTorch's loop order
(row-major over outputs), in opmath, then rounds once.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import numerics as _nx
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, wrap


def _check(input, output_size, op):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    output_size = tuple(int(s) for s in output_size)
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size "
                           f"{len(output_size)}")
    if input.ndim != 4:
        raise RuntimeError(f"Expected input to be a 4D tensor, but got {input.ndim}D")
    n, c, h, w = input.shape
    if not (h > 0 and w > 0 and output_size[0] > 0 and output_size[1] > 0):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"(H: {h}, W: {w}) output (H: {output_size[0]}, W: "
                           f"{output_size[1]})")
    dt = input.dtype
    if not dt.is_floating_point and (dt is not _dt.uint8 or op == "upsample_bilinear2d"):
        # PyTorch has uint8 kernels (bilinear: a fixed-point one, not reproduced here)
        raise NotImplementedError(f'"{op}_channels_last" not implemented for '
                                  f"'{dt.scalar_name}'")
    return output_size


def _scale32(n, out, scale):
    """ATen's ``compute_scales_value<float>``."""
    if scale is not None and scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(n) / np.float32(out)


def _nearest_index(n, out, scale):
    o = np.arange(out)
    if out == n:
        return o
    if out == 2 * n:
        return o >> 1
    src = np.floor(o.astype(np.float32) * _scale32(n, out, scale)).astype(np.int64)
    return np.minimum(src, n - 1)


def _nearest_exact_index(n, out, scale):
    """ATen's ``nearest_neighbor_exact_compute_source_index`` (``mode="nearest-exact"``):
    ``min(floorf((o + 0.5) * scale), n - 1)``, the product in double (an int plus 0.5 times
    the float32 scale) rounded to float for ``floorf``."""
    o = np.arange(out)
    src = ((o + 0.5) * np.float64(_scale32(n, out, scale))).astype(np.float32)
    return np.minimum(np.floor(src).astype(np.int64), n - 1)


def _nearest(ctx, input, output_size, scales_h, scales_w, index, op):
    output_size = _check(input, output_size, op)
    h, w = input.shape[-2:]
    ih = index(h, output_size[0], scales_h)
    iw = index(w, output_size[1], scales_w)
    ctx.args = (output_size, tuple(input.shape), scales_h, scales_w)
    return Tensor._make(np.ascontiguousarray(input._data[..., ih[:, None], iw[None, :]]),
                        input.dtype)


def _nearest_backward(ctx, grad_output, output_size, input_size, scales_h, scales_w, index):
    dt = grad_output.dtype
    g = opmath(grad_output, dt)
    h, w = input_size[-2:]
    ih = index(h, output_size[0], scales_h)
    iw = index(w, output_size[1], scales_w)
    mh = (ih[None, :] == np.arange(h)[:, None]).astype(g.dtype)     # (h, out_h)
    mw = (iw[:, None] == np.arange(w)[None, :]).astype(g.dtype)     # (out_w, w)
    ctx.args = (tuple(output_size), scales_h, scales_w)
    return wrap(np.matmul(np.matmul(mh, g), mw), dt)


@register_op("upsample_nearest2d")
class UpsampleNearest2d(Function):
    """``upsample_nearest2d(input, output_size, scales_h=None, scales_w=None)``: (N, C, H, W)
    -> (N, C, *output_size), each output the input element at its nearest-neighbour source
    (``F.interpolate(mode="nearest")``). Exact; floating dtypes and uint8.

    Raises:
        RuntimeError: not 4-D, empty sizes. NotImplementedError: integer inputs.
    """

    _backward_name = "UpsampleNearest2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size, scales_h=None, scales_w=None):
        return _nearest(ctx, input, output_size, scales_h, scales_w, _nearest_index,
                        "upsample_nearest2d")

    @staticmethod
    def backward(ctx, grad):
        return dispatch("upsample_nearest2d_backward", grad, *ctx.args)


@register_op("upsample_nearest2d_backward")
class UpsampleNearest2dBackward(Function):
    """``upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h=None,
    scales_w=None)``: the output gradients summed onto their source elements (opmath, one
    rounding). Differentiable in ``grad_output`` (its derivative is ``upsample_nearest2d``)."""

    _backward_name = "UpsampleNearest2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, output_size, input_size, scales_h=None, scales_w=None):
        return _nearest_backward(ctx, grad_output, output_size, input_size, scales_h,
                                 scales_w, _nearest_index)

    @staticmethod
    def backward(ctx, grad):
        size, sh, sw = ctx.args
        return dispatch("upsample_nearest2d", grad, size, sh, sw), None, None, None, None


@register_op("_upsample_nearest_exact2d")
class UpsampleNearestExact2d(Function):
    """``_upsample_nearest_exact2d(input, output_size, scales_h=None, scales_w=None)``:
    ``upsample_nearest2d`` with the pixel-centre source index of ``_nearest_exact_index``
    (``F.interpolate(mode="nearest-exact")``, the one that matches PIL / scikit-image). Exact.

    Raises:
        RuntimeError: not 4-D, empty sizes. NotImplementedError: integer inputs.
    """

    _backward_name = "UpsampleNearestExact2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size, scales_h=None, scales_w=None):
        return _nearest(ctx, input, output_size, scales_h, scales_w, _nearest_exact_index,
                        "_upsample_nearest_exact2d")

    @staticmethod
    def backward(ctx, grad):
        return dispatch("_upsample_nearest_exact2d_backward", grad, *ctx.args)


@register_op("_upsample_nearest_exact2d_backward")
class UpsampleNearestExact2dBackward(Function):
    """``_upsample_nearest_exact2d_backward``: as ``upsample_nearest2d_backward`` with the
    nearest-exact source indices."""

    _backward_name = "UpsampleNearestExact2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, output_size, input_size, scales_h=None, scales_w=None):
        return _nearest_backward(ctx, grad_output, output_size, input_size, scales_h,
                                 scales_w, _nearest_exact_index)

    @staticmethod
    def backward(ctx, grad):
        size, sh, sw = ctx.args
        return (dispatch("_upsample_nearest_exact2d", grad, size, sh, sw), None, None, None,
                None)


def _linear_weights(n, out, align_corners, scale, cd, fused=False, store=None):
    """Per output index along one dim: (i0, i1, l0, l1) in opmath ``cd`` (ATen's
    ``compute_source_index_and_lambda``). ``fused``: a float64 ``scale * (o + 0.5) - 0.5`` is
    one fused multiply-add, as GCC compiles it (linear/trilinear; measured). ``store``: a
    16-bit NumPy dtype the lambdas are kept in, as ATen's ``scalar_t`` weights (the
    linear/trilinear forward): ``l1`` rounded to it, ``l0 = 1 - l1`` rounded again."""
    o = np.arange(out)
    if align_corners:
        s = cd.type((n - 1) / (out - 1)) if out > 1 else cd.type(0)
        src = s * o.astype(cd)
    else:
        s = cd.type(1.0 / scale) if scale is not None and scale > 0 else cd.type(n) / cd.type(out)
        # the opmath scale times (o + 0.5), minus 0.5, rounded once to opmath (what PyTorch's
        # fp32 build gives: one rounding, e.g. 1e-8 rather than 0 for scale 1/3 at o = 1)
        if fused and cd == np.float64:
            src = _nx.fma64(np.full(out, s), o + 0.5, np.full(out, -0.5))
        else:
            src = (np.float64(s) * (o + 0.5) - 0.5).astype(cd)
        src = np.maximum(src, cd.type(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n - 1)
    l1 = np.clip(src - i0.astype(cd), 0, 1).astype(cd)
    if store is not None and store.itemsize == 2:
        l1 = l1.astype(store).astype(cd)
        l0 = (cd.type(1) - l1).astype(store).astype(cd)
    else:
        l0 = (cd.type(1) - l1).astype(cd)
    i1 = i0 + (i0 < n - 1)
    return i0, i1, l0, l1


@register_op("upsample_bilinear2d")
class UpsampleBilinear2d(Function):
    """``upsample_bilinear2d(input, output_size, align_corners, scales_h=None,
    scales_w=None)``: (N, C, H, W) -> (N, C, *output_size) by bilinear interpolation
    (``F.interpolate(mode="bilinear")``); opmath (fp32 for 16-bit), one rounding.

    Raises:
        RuntimeError: not 4-D, empty sizes. NotImplementedError: integer inputs (uint8 too:
            a deliberate difference, PyTorch has a fixed-point uint8 kernel).
    """

    _backward_name = "UpsampleBilinear2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size, align_corners, scales_h=None, scales_w=None):
        output_size = _check(input, output_size, "upsample_bilinear2d")
        dt = input.dtype
        a = opmath(input, dt)
        cd = a.dtype
        h, w = a.shape[-2:]
        h0, h1, hl0, hl1 = _linear_weights(h, output_size[0], align_corners, scales_h, cd)
        w0, w1, wl0, wl1 = _linear_weights(w, output_size[1], align_corners, scales_w, cd)
        rows0, rows1 = a[..., h0, :], a[..., h1, :]
        t0 = rows0[..., w0] * wl0 + rows0[..., w1] * wl1        # the last dim first, as ATen
        t1 = rows1[..., w0] * wl0 + rows1[..., w1] * wl1
        out = t0 * hl0[:, None] + t1 * hl1[:, None]
        ctx.args = (output_size, tuple(input.shape), bool(align_corners), scales_h, scales_w)
        return wrap(out, dt)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("upsample_bilinear2d_backward", grad, *ctx.args)


@register_op("upsample_bilinear2d_backward")
class UpsampleBilinear2dBackward(Function):
    """``upsample_bilinear2d_backward(grad_output, output_size, input_size, align_corners,
    scales_h=None, scales_w=None)``: each output gradient's four weighted parts added onto its
    source elements, in PyTorch's order, opmath, one rounding. Differentiable in
    ``grad_output`` (its derivative is ``upsample_bilinear2d``)."""

    _backward_name = "UpsampleBilinear2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, output_size, input_size, align_corners, scales_h=None,
                scales_w=None):
        dt = grad_output.dtype
        g = opmath(grad_output, dt)
        cd = g.dtype
        h, w = input_size[-2:]
        oh, ow = output_size
        h0, h1, hl0, hl1 = _linear_weights(h, oh, align_corners, scales_h, cd)
        w0, w1, wl0, wl1 = _linear_weights(w, ow, align_corners, scales_w, cd)
        # per output (row-major), the four targets and weights in ATen's order
        tgt = np.stack([h0[:, None] * w + w0, h0[:, None] * w + w1,
                        h1[:, None] * w + w0, h1[:, None] * w + w1], -1).reshape(-1)
        wt = np.stack([hl0[:, None] * wl0, hl0[:, None] * wl1,
                       hl1[:, None] * wl0, hl1[:, None] * wl1], -1).reshape(-1)
        planes = g.reshape(-1, oh * ow)
        out = np.zeros((planes.shape[0], h * w), cd)
        vals = (np.repeat(planes, 4, axis=1) * wt.astype(cd)).astype(cd)
        for p in range(planes.shape[0]):
            np.add.at(out[p], tgt, vals[p])
        ctx.args = (tuple(output_size), bool(align_corners), scales_h, scales_w)
        return wrap(out.reshape(tuple(input_size)), dt)

    @staticmethod
    def backward(ctx, grad):
        size, ac, sh, sw = ctx.args
        return dispatch("upsample_bilinear2d", grad, size, ac, sh, sw), None, None, None, \
            None, None


# ------------------------------------------------------------------ linear (1-d) and trilinear
_AXES = {1: "W", 3: "DHW"}


def _check_linear(input, output_size, k, op):
    """ATen's ``upsample_*_common_check`` for ``k`` spatial dims, and the dtype check of
    ``compute_indices_weights_linear``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    output_size = tuple(int(v) for v in output_size)
    if len(output_size) != k:
        raise RuntimeError(f"It is expected output_size equals to {k}, but got size "
                           f"{len(output_size)}")
    if input.ndim != k + 2:
        raise RuntimeError(f"It is expected input_size equals to {k + 2}, but got size "
                           f"{input.ndim}")
    spatial = input.shape[2:]
    if not all(v > 0 for v in spatial + output_size):
        names = _AXES[k]
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input ("
            + ", ".join(f"{a}: {v}" for a, v in zip(names, spatial))
            + (") and output (" if k == 1 else ") output (")            # ATen's wordings
            + ", ".join(f"{a}: {v}" for a, v in zip(names, output_size)) + ")")
    if not input.dtype.is_floating_point:
        raise NotImplementedError('"compute_indices_weights_linear" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    return output_size


def _fma(cd):
    return _nx.fma32 if cd == np.float32 else _nx.fma64


def _interp(x, weights, d):
    """ATen's ``Interpolate<n>`` over the spatial dims ``d..`` of ``x`` (the last
    ``len(weights)`` axes): ``t(i0) * l0 + t(i1) * l1`` in opmath, which GCC contracts into
    ``fma(t(i0), l0, t(i1) * l1)`` (measured: bit-exact with torch 2.13 for linear and
    trilinear, where two roundings differ on ~1/3 of fp32 outputs)."""
    if d == len(weights):
        return x
    i0, i1, l0, l1 = weights[d]
    ax = x.ndim - len(weights) + d
    shape = (-1,) + (1,) * (len(weights) - d - 1)
    t0 = _interp(np.take(x, i0, axis=ax), weights, d + 1)
    t1 = _interp(np.take(x, i1, axis=ax), weights, d + 1)
    l0 = np.broadcast_to(l0.reshape(shape), t0.shape)
    return _fma(x.dtype)(t0, l0, t1 * l1.reshape(shape))


def _linear_nd_backward(g, input_size, weights, cd):
    """Each output gradient's ``2**k`` weighted parts added onto its source elements in ATen's
    order (outputs row-major; per output the corners lexicographic, the last dim fastest; the
    weight a left-to-right product of the per-dim lambdas), each add ``acc = fma(weight,
    grad, acc)`` in opmath (GCC's contraction of ``acc += weight * grad``). Vectorised over
    targets: the r-th contribution of every target is added in round r."""
    k = len(weights)
    spatial = tuple(input_size[2:])
    out_sp = g.shape[2:]
    tgt = np.zeros(out_sp + (2 ** k,), np.int64)
    wt = np.ones(out_sp + (2 ** k,), cd)
    for c in range(2 ** k):
        flat = np.zeros(out_sp, np.int64)
        w = None
        for d in range(k):
            bit = (c >> (k - 1 - d)) & 1
            idx, lam = (weights[d][1], weights[d][3]) if bit else (weights[d][0], weights[d][2])
            shape = (1,) * d + (-1,) + (1,) * (k - d - 1)
            flat = flat * spatial[d] + idx.reshape(shape)
            w = lam.reshape(shape) if w is None else (w * lam.reshape(shape)).astype(cd)
        tgt[..., c] = flat
        wt[..., c] = w
    tgt, wt = tgt.reshape(-1), wt.reshape(-1)
    src = np.repeat(np.arange(int(np.prod(out_sp))), 2 ** k)    # each part's output index
    planes = g.reshape(-1, int(np.prod(out_sp)))
    out = np.zeros((planes.shape[0], int(np.prod(spatial))), cd)
    order = np.argsort(tgt, kind="stable")        # by target, each in ATen's order
    t_sorted = tgt[order]
    first = np.searchsorted(t_sorted, t_sorted, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order)) - first
    fma = _fma(cd)
    for r in range(int(rank.max(initial=-1)) + 1):
        sel = np.flatnonzero(rank == r)
        t = tgt[sel]
        w = np.broadcast_to(wt[sel], (planes.shape[0], len(sel)))
        out[:, t] = fma(w, planes[:, src[sel]], out[:, t])
    return out.reshape(tuple(input_size))


def _linear_nd_op(k, name, node):
    """The ``upsample_{linear1d, trilinear3d}`` op and its backward op for ``k`` dims."""

    def forward(ctx, input, output_size, align_corners, *scales):
        output_size = _check_linear(input, output_size, k, name)
        scales = tuple(scales) + (None,) * (k - len(scales))
        dt = input.dtype
        a = opmath(input, dt)
        cd = a.dtype
        weights = [_linear_weights(n, o, align_corners, s, cd, fused=True, store=dt.np)
                   for n, o, s in zip(input.shape[2:], output_size, scales)]
        ctx.args = (output_size, tuple(input.shape), bool(align_corners)) + scales
        return wrap(_interp(a, weights, 0), dt)

    def backward(ctx, grad):
        return (dispatch(name + "_backward", grad, *ctx.args),) + (None,) * (2 + k)

    def bwd_forward(ctx, grad_output, output_size, input_size, align_corners, *scales):
        scales = tuple(scales) + (None,) * (k - len(scales))
        dt = grad_output.dtype
        g = opmath(grad_output, dt)
        cd = g.dtype
        weights = [_linear_weights(n, o, align_corners, s, cd, fused=True)
                   for n, o, s in zip(tuple(input_size)[2:], output_size, scales)]
        ctx.args = (tuple(output_size), bool(align_corners)) + scales
        return wrap(_linear_nd_backward(g, input_size, weights, cd), dt)

    def bwd_backward(ctx, grad):
        size, ac, *sc = ctx.args
        return (dispatch(name, grad, size, ac, *sc),) + (None,) * (3 + k)

    doc = (f"``{name}(input, output_size, align_corners, *scales)``: (N, C, *{k} spatial "
           f"dims) -> (N, C, *output_size) by {'linear' if k == 1 else 'trilinear'} "
           "interpolation (``F.interpolate``); opmath (fp32 for 16-bit), one rounding; "
           "backward adds each output gradient's weighted parts in ATen's order.\n\n"
           "    Raises:\n        RuntimeError: sizes of the wrong length, empty sizes (ATen's "
           "messages).\n        NotImplementedError: integer inputs.\n    ")
    fwd = type(f"Upsample{name.split('_')[1].capitalize()}", (Function,), {
        "__doc__": doc, "__module__": __name__, "_backward_name": node,
        "forward": staticmethod(forward), "backward": staticmethod(backward)})
    bwd = type(f"Upsample{name.split('_')[1].capitalize()}Backward", (Function,), {
        "__doc__": f"``{name}_backward``: the gradient of ``{name}`` (differentiable: its "
                   f"derivative is ``{name}``).",
        "__module__": __name__, "_backward_name": node.replace("Backward0", "BackwardBackward0"),
        "forward": staticmethod(bwd_forward), "backward": staticmethod(bwd_backward)})
    register_op(name + "_backward", bwd)
    return register_op(name, fwd)


UpsampleLinear1d = _linear_nd_op(1, "upsample_linear1d", "UpsampleLinear1DBackward0")
UpsampleTrilinear3d = _linear_nd_op(3, "upsample_trilinear3d", "UpsampleTrilinear3DBackward0")


# ------------------------------------------------------------------------------------ bicubic
_CUBIC_A = -0.75        # the cubic convolution's a (OpenCV's; PIL's -0.5 is antialias=True's)


def _cubic_weights(n, out, align_corners, scale, cd, fused):
    """Per output index along one dim: the 4 source indices (clamped into ``[0, n)``) and the 4
    cubic-convolution weights in opmath ``cd`` (ATen's ``HelperInterpCubic`` /
    ``get_cubic_upsample_coefficients``): the source coordinate ``scale * (o + 0.5) - 0.5`` is
    not clamped at 0 (cubic mode), its floor ``i`` (at most ``n - 1``) and ``t`` (clamped to
    ``[0, 1]``) give the taps ``i - 1 .. i + 2`` with weights ``W(t + 1), W(t), W(1 - t),
    W(2 - t)``, ``W`` Keys' kernel with ``a = -0.75``.

    ``fused``: as GCC compiles the forward kernel's copy (measured bit for bit against torch
    2.13): the source coordinate is one fma, and of the kernel polynomials
    ``((a + 2) x - (a + 3)) x x + 1`` and ``((a x - 5a) x + 8a) x - 4a`` the inner steps are
    fmas (the first one's ``* x + 1`` and the second one's ``* x - 4a`` are not). Without
    ``fused`` every operation rounds (the backward kernel's copy, built without fma)."""
    c = cd.type
    o = np.arange(out)
    f = _fma(cd)
    if align_corners:
        s = c((n - 1) / (out - 1)) if out > 1 else c(0)
        src = s * o.astype(cd)
    else:
        s = c(1.0 / scale) if scale is not None and scale > 0 else c(n) / c(out)
        h = (o + 0.5).astype(cd)
        src = f(np.full(out, s, cd), h, np.full(out, c(-0.5), cd)) if fused else \
            (s * h).astype(cd) - c(0.5)
    i = np.minimum(np.floor(src).astype(np.int64), n - 1)
    t = np.clip(src - i.astype(cd), 0, 1).astype(cd)

    def inner(x):                      # |x| <= 1: ((a + 2) x - (a + 3)) x x + 1
        if fused:
            p = f(np.full_like(x, c(_CUBIC_A + 2)), x, np.full_like(x, c(-(_CUBIC_A + 3))))
        else:
            p = c(_CUBIC_A + 2) * x - c(_CUBIC_A + 3)
        return (p * x) * x + c(1)

    def outer(x):                      # 1 <= |x| <= 2: ((a x - 5a) x + 8a) x - 4a
        if fused:
            p = f(np.full_like(x, c(_CUBIC_A)), x, np.full_like(x, c(-5 * _CUBIC_A)))
            p = f(p, x, np.full_like(x, c(8 * _CUBIC_A)))
        else:
            p = (c(_CUBIC_A) * x - c(5 * _CUBIC_A)) * x + c(8 * _CUBIC_A)
        return p * x - c(4 * _CUBIC_A)

    u = c(1) - t
    w = np.stack([outer(t + c(1)), inner(t), inner(u), outer(u + c(1))], -1).astype(cd)
    idx = np.clip(i[:, None] + np.arange(-1, 3)[None, :], 0, n - 1)
    return idx, w


def _cubic_sum(terms, weights, f):
    """``sum_j terms[j] * weights[j]`` as ATen's compiled loop adds it (measured bit for bit):
    ``t1 * w1`` first, then ``fma(t0, w0, .)``, ``fma(t2, w2, .)``, ``fma(t3, w3, .)``."""
    acc = terms[1] * weights[1]
    for j in (0, 2, 3):
        acc = f(terms[j], np.broadcast_to(weights[j], terms[j].shape), acc)
    return acc


def _check_bicubic(input, output_size):
    if not isinstance(input, Tensor):
        raise TypeError("upsample_bicubic2d(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    output_size = tuple(int(s) for s in output_size)
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size "
                           f"{len(output_size)}")
    if input.ndim != 4:
        raise RuntimeError(f"It is expected input_size equals to 4, but got size {input.ndim}")
    h, w = input.shape[-2:]
    if not (h > 0 and w > 0 and output_size[0] > 0 and output_size[1] > 0):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"(H: {h}, W: {w}) output (H: {output_size[0]}, W: "
                           f"{output_size[1]})")
    if not input.dtype.is_floating_point:
        raise NotImplementedError('"compute_indices_weights_cubic" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    return output_size


@register_op("upsample_bicubic2d")
class UpsampleBicubic2d(Function):
    """``upsample_bicubic2d(input, output_size, align_corners, scales_h=None, scales_w=None)``:
    (N, C, H, W) -> (N, C, *output_size) by bicubic convolution (``F.interpolate(mode=
    "bicubic")``, ``antialias=False``): each output mixes a 4x4 window of source pixels
    (edges replicated) with Keys' weights (``a = -0.75``), rows first, as ATen's
    non-separable kernel. Opmath (fp32 for 16-bit, whose weights are kept in the 16-bit type
    as ATen's ``scalar_t`` tables), one rounding; the weights and sums with GCC's fused
    multiply-adds (see ``_cubic_weights``, ``_cubic_sum``): bit-exact with torch 2.13 in
    fp32/fp16/bf16, and in fp64 but for sizes whose scale is not given (a few units of
    ``eps * |input|``).

    Raises:
        RuntimeError: not 4-D, empty sizes (ATen's messages). NotImplementedError: integer
            inputs (PyTorch has a uint8 kernel; not reproduced).
    """

    _backward_name = "UpsampleBicubic2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size, align_corners, scales_h=None, scales_w=None):
        output_size = _check_bicubic(input, output_size)
        dt = input.dtype
        a = opmath(input, dt)
        cd = a.dtype
        h, w = a.shape[-2:]
        hi, hw = _cubic_weights(h, output_size[0], align_corners, scales_h, cd, True)
        wi, ww = _cubic_weights(w, output_size[1], align_corners, scales_w, cd, True)
        if dt.itemsize == 2:                        # ATen's weight tables are scalar_t
            hw, ww = hw.astype(dt.np).astype(cd), ww.astype(dt.np).astype(cd)
        f = _fma(cd)
        rows = [_cubic_sum([a[..., hi[:, j], :][..., wi[:, k]] for k in range(4)],
                           [ww[:, k] for k in range(4)], f) for j in range(4)]
        out = _cubic_sum(rows, [hw[:, j][:, None] for j in range(4)], f)
        ctx.args = (output_size, tuple(input.shape), bool(align_corners), scales_h, scales_w)
        return wrap(out, dt)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("upsample_bicubic2d_backward", grad, *ctx.args)


@register_op("upsample_bicubic2d_backward")
class UpsampleBicubic2dBackward(Function):
    """``upsample_bicubic2d_backward(grad_output, output_size, input_size, align_corners,
    scales_h=None, scales_w=None)``: each output gradient ``g`` adds ``(g * wy[jj]) * wx[ii]``
    onto its 16 (clamped) source pixels, outputs in row-major order and per output ``ii`` (the
    column tap) outer, ``jj`` inner, every product and sum rounded in opmath (ATen's
    ``upsample_bicubic2d_backward_out_frame``, a plain C++ loop built without fma; fp32
    buffer for 16-bit, rounded once). Same sizes: the gradient is copied. Differentiable in
    ``grad_output`` (its derivative is ``upsample_bicubic2d``)."""

    _backward_name = "UpsampleBicubic2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, output_size, input_size, align_corners, scales_h=None,
                scales_w=None):
        dt = grad_output.dtype
        ctx.args = (tuple(output_size), bool(align_corners), scales_h, scales_w)
        h, w = input_size[-2:]
        oh, ow = output_size
        if (h, w) == (oh, ow):
            return Tensor._make(np.array(grad_output._data, copy=True), dt)
        g = opmath(grad_output, dt)
        cd = g.dtype
        hi, hw = _cubic_weights(h, oh, align_corners, scales_h, cd, False)
        wi, ww = _cubic_weights(w, ow, align_corners, scales_w, cd, False)
        # per output (row-major), its 16 targets and weights in ATen's order: ii outer, jj inner
        tgt = (hi[:, None, None, :] * w + wi[None, :, :, None]).reshape(-1)
        planes = g.reshape(-1, oh * ow)                              # (P, oh*ow)
        gy = (planes.reshape(-1, oh, ow, 1, 1) * hw[:, None, None, :]).astype(cd)
        vals = (gy * ww[None, :, :, None]).astype(cd)                # (P, oh, ow, ii, jj)
        vals = vals.reshape(planes.shape[0], -1)                     # (P, oh*ow*16)
        out = np.zeros((h * w, planes.shape[0]), cd)
        np.add.at(out, tgt, np.ascontiguousarray(vals.T))     # in order: ATen's += sequence
        return wrap(np.ascontiguousarray(out.T).reshape(tuple(input_size)), dt)

    @staticmethod
    def backward(ctx, grad):
        size, ac, sh, sw = ctx.args
        return dispatch("upsample_bicubic2d", grad, size, ac, sh, sw), None, None, None, \
            None, None


# ---------------------------------------------------------------------------- antialias
# ``F.interpolate(..., antialias=True)`` for bilinear / bicubic (``_upsample_bilinear2d_aa``,
# ``_upsample_bicubic2d_aa``): ATen's separable kernel (UpSampleKernel.cpp), the width pass
# first, then the height pass, a dim whose size does not change skipped. Each output is a
# weighted sum of ``xsize`` neighbours from ``xmin``, with PIL's filter widened by the scale
# when downsampling (support = interp_size/2 * scale) and normalised to sum 1; weights and sums
# in fp32. Measured on PyTorch 2.13's AVX2 build (what an AVX-512 CPU runs, REGISTER_DISPATCH),
# bit for bit: the filters' polynomials are fused multiply-adds; the sum ``t0*w0 + t1*w1 + ...``
# is GCC's vectorised in-order reduction of the loop over j >= 1 in blocks of 4 (products
# rounded, then added one by one) with the last ``(xsize - 1) % 4`` terms as fmas; and when the
# height pass sees a width of 1, every output row takes the first row's neighbours and weights
# (ATen's zero-stride loop reads the index/weight tensors at their first element).
_AA_SUPPORT = {"bilinear": 2, "bicubic": 4}


def _aa_filter(mode, x):
    """PIL's filter at ``x`` (an fp32 scalar): the triangle, or Keys' cubic with a = -0.5
    (``HelperInterpCubic::aa_filter``: its polynomials as fmas)."""
    f32 = np.float32
    x = f32(abs(x))
    if mode == "bilinear":
        return f32(1.0 - x) if x < 1.0 else f32(0.0)
    a = f32(-0.5)                      # PIL's a (the non-antialiased bicubic uses -0.75)
    fma = _nx.fma32
    if x < 1.0:
        p = fma(f32(a + 2), x, f32(-(a + 3)))
        return f32(fma(f32(p * x), x, f32(1)))
    if x < 2.0:
        p = fma(fma(a, x, f32(-5 * a)), x, f32(8 * a))
        return f32(fma(p, x, f32(-4 * a)))
    return f32(0.0)


def _aa_weights(mode, n, out, align_corners, scale):
    """Per output index: (xmin, fp32 weights) (``_compute_indices_min_size_weights_aa``)."""
    f32 = np.float32
    if align_corners:
        s = f32((n - 1) / (out - 1)) if out > 1 else f32(0)
    else:
        s = f32(1.0 / scale) if scale is not None and scale > 0 else f32(f32(n) / f32(out))
    half = _AA_SUPPORT[mode] * 0.5
    support = f32(f32(half) * s) if s >= 1.0 else f32(half)
    max_size = int(np.ceil(support)) * 2 + 1
    invscale = f32(1.0 / s) if s >= 1.0 else f32(1.0)
    rows = []
    for i in range(out):
        center = f32(np.float64(s) * (i + 0.5))
        xmin = max(int(np.float64(f32(center - support)) + 0.5), 0)
        xsize = min(int(np.float64(f32(center + support)) + 0.5), n) - xmin
        xsize = min(max(xsize, 0), max_size)
        ws = [_aa_filter(mode, f32((np.float64(f32(f32(j + xmin) - center)) + 0.5)
                                   * np.float64(invscale))) for j in range(xsize)]
        total = f32(0)
        for w in ws:
            total = f32(total + w)
        if total != 0:
            ws = [f32(w / total) for w in ws]
        rows.append((xmin, np.array(ws, np.float32)))
    return rows


def _aa_pass(x, rows, axis):
    """One separable pass along ``axis`` of the fp32 array ``x`` (see the section comment for
    the summation), vectorised over the output positions."""
    x = np.moveaxis(x, axis, -1)
    out_n = len(rows)
    xmin = np.array([r[0] for r in rows], np.int64)
    size = np.array([len(r[1]) for r in rows], np.int64)
    k = int(size.max()) if out_n else 0
    w = np.zeros((out_n, max(k, 1)), np.float32)
    for i, (_, ws) in enumerate(rows):
        w[i, :len(ws)] = ws
    plain_upto = ((size - 1) // 4) * 4          # j <= this: product rounded, then added
    n = x.shape[-1]
    token = _nx.quiet()
    try:
        acc = x[..., np.minimum(xmin, n - 1)] * w[:, 0]
        for j in range(1, k):
            t = x[..., np.minimum(xmin + j, n - 1)]
            plain = acc + t * w[:, j]
            fused = _nx.fma32(t, np.broadcast_to(w[:, j], t.shape), acc)
            acc = np.where(j <= plain_upto, plain, np.where(j < size, fused, acc))
    finally:
        _nx.unquiet(token)
    return np.moveaxis(acc.astype(np.float32), -1, axis)


def _aa_matrix(rows, n):
    """The pass as an (out, n) fp64 matrix (for the backward)."""
    m = np.zeros((len(rows), n))
    for i, (xmin, ws) in enumerate(rows):
        m[i, xmin:xmin + len(ws)] = ws
    return m


def _aa_rows(mode, input_shape, output_size, align_corners, scales_h, scales_w):
    (h, w), (oh, ow) = input_shape[-2:], output_size
    rw = _aa_weights(mode, w, ow, align_corners, scales_w) if ow != w else None
    rh = None
    if oh != h:
        rh = _aa_weights(mode, h, oh, align_corners, scales_h)
        if ow == 1:                     # ATen's zero-stride loop (see the section comment)
            rh = [rh[0]] * oh
    return rw, rh


def _aa_forward(ctx, mode, input, output_size, align_corners, scales_h, scales_w):
    op = f"_upsample_{mode}2d_aa"
    output_size = _check(input, output_size, op)
    if input.dtype is not _dt.float32:
        raise NotImplementedError(f"minigrad's {op} (antialias=True) supports float32 only, "
                                  f"not {input.dtype.name}")
    rw, rh = _aa_rows(mode, input.shape, output_size, align_corners, scales_h, scales_w)
    y = input._data
    if rw is not None:
        y = _aa_pass(y, rw, -1)
    if rh is not None:
        y = _aa_pass(y, rh, -2)
    ctx.args = (output_size, tuple(input.shape), align_corners, scales_h, scales_w)
    return Tensor._make(np.ascontiguousarray(y, np.float32) if y is not input._data
                        else y.copy(), input.dtype)


def _aa_backward_kernel(mode, grad, output_size, input_size, align_corners, scales_h, scales_w):
    """The adjoint of the two passes (fp64 matrices, one rounding to fp32). Deliberate
    difference: PyTorch's ``_upsample_*2d_aa_backward`` accumulates in its own order; results
    agree to fp32 rounding, not bit for bit."""
    rw, rh = _aa_rows(mode, input_size, output_size, align_corners, scales_h, scales_w)
    g = grad._data.astype(np.float64)
    if rh is not None:
        g = np.einsum("...oj,oh->...hj", g, _aa_matrix(rh, input_size[-2]))
    if rw is not None:
        g = g @ _aa_matrix(rw, input_size[-1])
    return Tensor._make(np.ascontiguousarray(g.astype(np.float32)), grad.dtype)


def _aa_op(mode, node):
    class UpsampleAA(Function):
        _backward_name = node

        @staticmethod
        def forward(ctx, input, output_size, align_corners, scales_h=None, scales_w=None):
            return _aa_forward(ctx, mode, input, output_size, align_corners, scales_h,
                               scales_w)

        @staticmethod
        def backward(ctx, grad):
            size, in_size, ac, sh, sw = ctx.args
            return (_aa_backward_kernel(mode, grad, size, in_size, ac, sh, sw), None, None,
                    None, None)

    UpsampleAA.__name__ = UpsampleAA.__qualname__ = f"Upsample{mode.capitalize()}2dAA"
    UpsampleAA.__doc__ = (
        f"``_upsample_{mode}2d_aa(input, output_size, align_corners, scales_h=None, "
        f"scales_w=None)``: (N, C, H, W) -> (N, C, *output_size), {mode} resampling with "
        "PIL's antialiasing filter (``F.interpolate(mode=..., antialias=True)``); float32, "
        "bit-exact with PyTorch 2.13 (see the section comment). Raises NotImplementedError "
        "for other dtypes; RuntimeError as ``upsample_bilinear2d``.")
    return register_op(f"_upsample_{mode}2d_aa", UpsampleAA)


UpsampleBilinear2dAA = _aa_op("bilinear", "UpsampleBilinear2DAaBackward0")
UpsampleBicubic2dAA = _aa_op("bicubic", "UpsampleBicubic2DAaBackward0")
