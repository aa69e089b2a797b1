"""Max and average pooling over fixed windows: ``max_pool2d_with_indices`` and
``avg_pool2d`` with their fused backward kernels (``max_pool2d_with_indices_backward``,
``avg_pool2d_backward``), and the aten composites ``max_pool1d``, ``max_pool1d_with_indices``,
``max_pool2d``, ``avg_pool1d`` that reach them (a 1-d pool is the 2-d one over a (1, L) image,
as in PyTorch).

Windows are strided views of the padded input (padding with -inf for max, zeros for average);
``ceil_mode`` lets the last window start inside the input and run past it. Max pooling is exact
in every dtype; a window holding NaN gives NaN and the index of its *last* NaN (PyTorch's CPU
loop updates on every NaN), otherwise the first maximum. Average pooling sums each window in
order in opmath and divides once (16-bit: fp32, one rounding; integers: int64, the quotient
truncated toward zero, as PyTorch). The backward kernels follow PyTorch's CPU loops: per
output, in order, ``grad_input += delta`` in the gradient's own dtype (a 16-bit sum rounds at
every add, as ATen's does).

Mirrors ``aten/src/ATen/native/Pool.h`` (output sizes, ``pool2d_shape_check`` and its
messages) and ``DilatedMaxPool2d.cpp`` / ``AveragePool2d.cpp``.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, wrap


# ---------------------------------------------------------------------------- sizes and checks
def pair(v, name, allow_empty=False):
    """An int or a sequence of one or two ints as a pair (PyTorch's 2-d pool arguments).

    Raises:
        RuntimeError: "max_pool2d: kernel_size must either be a single int, or a tuple of two
            ints" style messages.
    """
    if isinstance(v, (int, np.integer)):
        return (int(v), int(v))
    v = tuple(int(a) for a in v)
    if len(v) == 1:
        return v * 2
    if len(v) != 2 or (not v and not allow_empty):
        raise RuntimeError(f"{name} must either be a single int, or a tuple of two ints")
    return v


def output_size(size, k, pad, stride, dilation, ceil_mode):
    """PyTorch's ``pooling_output_shape``: windows that fit, or with ``ceil_mode`` also a last
    one starting inside the input (not in the right padding)."""
    num = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def check_pool(input, kernel, stride, padding, dilation, ceil_mode, op):
    """``pool2d_shape_check`` with the checks ATen's ``max_pool2d_with_indices`` /
    ``avg_pool2d`` meta functions make before it, in their order: returns (N-or-None, C, H,
    W, OH, OW).

    Raises:
        IndexError: ``avg_pool2d`` of a tensor with fewer than 3 dims (its ``input.size(-3)``:
            "Dimension specified as -3 but tensor has no dimensions" for 0-dim, "Dimension out
            of range (expected to be in range of [-1, 0], but got -3)" for 1-D).
        RuntimeError: ``max_pool2d`` of a tensor that is not 3-D/4-D ("non-empty 3D or 4D
            (batch mode) tensor expected for input"); a zero stride ("stride should not be
            zero"), a negative padding or one more than half the (dilated) kernel; non-positive
            kernel/stride/dilation; a 3-D/4-D tensor with an empty non-batch dim, or
            ``avg_pool2d`` of one with 5+ dims ("Expected 3D or 4D (batch mode) tensor with
            optional 0 dim batch size for input, but got:[1, 0, 2, 2]"); an output size below
            1 ("Given input size: (4x6x6). Calculated output size: (4x0x0). Output size is too
            small").
        NotImplementedError: bool inputs.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    shape, nd = input.shape, input.ndim
    if op == "avg_pool2d" and nd < 3:             # ATen reads input.size(-3) first
        raise IndexError("Dimension specified as -3 but tensor has no dimensions" if nd == 0
                         else f"Dimension out of range (expected to be in range of [{-nd}, "
                              f"{nd - 1}], but got -3)")
    if op != "avg_pool2d" and nd not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    for p, k, st, d in ((ph, kh, sh, dh), (pw, kw, sw, dw)):      # pooling_output_shape
        if st == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    if nd not in (3, 4) or any(s == 0 for s in shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    c, h, w = shape[-3:]
    oh = output_size(h, kh, ph, sh, dh, ceil_mode)
    ow = output_size(w, kw, pw, sw, dw, ceil_mode)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{oh}x{ow}). Output size is too small")
    if input.dtype is _dt.bool_:
        raise NotImplementedError(f'"{op}" not implemented for \'Bool\'')
    return (shape[0] if input.ndim == 4 else None), c, h, w, oh, ow


def windows(a, out, kernel, stride, padding, dilation, fill):
    """(..., H, W) -> a view (..., OH, OW, kh, kw) of the windows of ``a`` padded with ``fill``
    (and on the right as far as the last ``ceil_mode`` window reaches)."""
    pads = []
    for i in range(2):
        need = (out[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
        right = max(need - a.shape[-2 + i] - padding[i], padding[i])
        pads.append((padding[i], right))
    if pads == [(0, 0), (0, 0)]:
        ap = a                  # nothing to pad (the usual pool): the windows view ``a`` itself
    else:                       # a filled buffer with ``a`` inside (np.pad's generic path is slow)
        (t, b), (le, r) = pads
        h, w = a.shape[-2:]
        ap = np.full(a.shape[:-2] + (t + h + b, le + w + r), fill, a.dtype)
        ap[..., t:t + h, le:le + w] = a
    st = ap.strides
    return np.lib.stride_tricks.as_strided(
        ap, ap.shape[:-2] + tuple(out) + tuple(kernel),
        st[:-2] + (st[-2] * stride[0], st[-1] * stride[1], st[-2] * dilation[0],
                   st[-1] * dilation[1]), writeable=False)


#: windows of at most this many elements take ``window_max``'s loop over the taps
_TAP_LOOP_MAX = 16


def window_max(flat, axes=1):
    """Per window (the last ``axes`` axes, in row-major order): the position and value of
    PyTorch's CPU max-pool loop (``if val > maxval || isnan(val)``): the first maximum, or the
    last NaN.

    Small windows (the usual 2x2 / 3x3 pools) run that loop itself, one vectorised step per
    tap over all windows at once: no copy of the strided window view, no argmax along a short
    axis. Larger ones take an argmax and a NaN pass over a copy (the same result, tested)."""
    taps = flat.shape[flat.ndim - axes:]
    if 0 < math.prod(taps) <= _TAP_LOOP_MAX and flat.ndim > axes:
        return _window_max_taps(flat, taps)
    flat = flat.reshape(flat.shape[:flat.ndim - axes] + (-1,))
    pos = np.argmax(flat, axis=-1)
    if flat.dtype.kind == "f":
        nan = np.isnan(flat)
        last_nan = flat.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
        pos = np.where(nan.any(axis=-1), last_nan, pos)
    return pos, np.take_along_axis(flat, pos[..., None], axis=-1)[..., 0]


def _no_nan_or_negative_zero(a):
    """Whether the array ``a`` holds no NaN and no -0.0 (integers: always), by two reductions:
    the maximum is NaN, the smallest integer view is -0.0's bits."""
    if a.dtype.kind != "f" or a.size == 0:
        return True
    ints = f"i{a.itemsize}"
    return not (np.isnan(a.max()) or a.view(ints).min() == np.iinfo(ints).min)


def _max_2x2(a, oh, ow):
    """The (oh, ow) non-overlapping 2x2 windows of ``a`` (..., H, W) pooled (kernel and stride
    2, no padding or dilation, all windows inside): ``(indices, values)`` as the forward
    returns them (flat input positions ``h * W + w``, int64), or None where ``a`` holds NaN or
    -0.0 (the general path's loop decides those).

    The same positions and values as ``window_max`` in two stages: each window row's maximum
    and first position (column 1 only if left < right), then the rows' (row 1 only if top <
    bottom): PyTorch's first maximum in row-major order. A window of nothing but the lowest
    value gets its first element, as PyTorch's initial index (the window lies inside the
    input). The stages run on a copy of ``a`` transposed to (H, W, planes): a tap of the
    windows is then a run of ``planes`` contiguous elements per window position, where in
    ``a``'s own layout it is runs of ``ow`` elements at stride 2, and NumPy's per-run cost
    dominates for the small maps of a CNN (2x fewer instructions for its (64, 24, 8, 8) map).
    The column choice is bool algebra and the flat index is summed in uint8/uint16 where it
    fits (1.4x fewer instructions than np.where and int64 sums for the CNN's two pools). The
    results go back to (planes, oh, ow) one window position at a time when there are few
    (a strided copy of ``planes`` elements each, widening the index to int64, where one copy
    of the whole transposition moves runs of only oh * ow elements)."""
    if not _no_nan_or_negative_zero(a):
        return None
    lead = a.shape[:-2]
    planes, w = math.prod(lead), a.shape[-1]
    b = np.empty((2 * oh, 2 * ow, planes), a.dtype)
    np.copyto(b, a[..., :2 * oh, :2 * ow].reshape(planes, 2 * oh, 2 * ow).transpose(1, 2, 0))
    t00, t01, t10, t11 = b[0::2, 0::2], b[0::2, 1::2], b[1::2, 0::2], b[1::2, 1::2]
    top, bottom = np.maximum(t00, t01), np.maximum(t10, t11)
    lower = top < bottom
    # the winning row's column: the top row's (t00 < t01), flipped to the bottom row's where
    # that row wins and the two differ (bool xor/and: several times cheaper than np.where)
    right = t00 < t01
    right ^= np.logical_and(np.logical_xor(right, t10 < t11), lower)
    best = np.maximum(top, bottom, out=top)
    # the flat input index (corner + one row further for the bottom row + the column) in the
    # narrowest unsigned type that holds h * w (uint8 for the CNN's maps: its adds are a few
    # vector instructions per 32 windows), widened to int64 by the copies into the result
    h = a.shape[-2]
    small = np.uint8 if h * w <= 256 else np.uint16 if h * w <= 65536 else np.int64
    corner = (np.arange(oh).reshape(-1, 1) * (2 * w) + np.arange(ow) * 2).astype(small)
    flat = np.multiply(lower.view(np.uint8), small(w), dtype=small)
    flat += right.view(np.uint8)
    flat += corner[:, :, None]
    out_idx = np.empty((planes, oh, ow), np.int64)
    out_val = np.empty((planes, oh, ow), a.dtype)
    if oh * ow <= _FEW_POSITIONS:
        idx2, val2 = out_idx.reshape(planes, oh * ow), out_val.reshape(planes, oh * ow)
        for s, (f, v) in enumerate(zip(flat.reshape(oh * ow, planes),
                                       best.reshape(oh * ow, planes))):
            np.copyto(idx2[:, s], f)
            np.copyto(val2[:, s], v)
    else:
        np.copyto(out_idx, flat.transpose(2, 0, 1))
        np.copyto(out_val, best.transpose(2, 0, 1))
    return out_idx.reshape(lead + (oh, ow)), out_val.reshape(lead + (oh, ow))


#: ``_max_2x2`` copies its results back one window position at a time up to this many
#: positions (oh * ow)
_FEW_POSITIONS = 16


def _window_max_taps(win, taps):
    """``window_max`` as PyTorch's loop, one tap (an index into the window axes ``taps``) at a
    time; ``win`` may be a strided view.

    Without NaNs and negative zeros (two reductions: the maximum is NaN, the smallest integer
    view is -0.0's bits) the maximum is a chain of ``np.maximum`` and the position the first tap
    equal to it: the number of leading taps that all miss it (``np.where`` and masked copies are
    several times slower); otherwise the loop's own steps."""
    lead = (Ellipsis,)
    steps = list(np.ndindex(*taps))
    if _no_nan_or_negative_zero(win):
        best = win[lead + steps[0]].copy()
        for tap in steps[1:]:
            np.maximum(best, win[lead + tap], out=best)
        pos = np.zeros(best.shape, np.int64)
        missed = None                   # missed: taps 0..t all differ from the maximum
        for tap in steps[:-1]:
            miss = win[lead + tap] != best
            missed = miss if missed is None else np.logical_and(missed, miss, out=missed)
            pos += missed
        return pos, best
    best = win[lead + steps[0]].copy()
    pos = np.zeros(best.shape, np.int64)
    for t, tap in enumerate(steps[1:], 1):
        val = win[lead + tap]
        take = (val > best) | np.isnan(val)
        np.copyto(best, val, where=take)
        np.copyto(pos, t, where=take)
    return pos, best


def _max_indices(a, dt, w, oh, ow, kernel, stride, padding, dilation):
    """``max_pool2d_with_indices``' general path: ``(indices, values)`` of the windows of
    ``a`` (..., H, W) by ``window_max``, indices the flat input positions ``h * W + w``."""
    win = windows(a, (oh, ow), kernel, stride, padding, dilation, _lowest(dt))
    pos, vals = window_max(win, axes=2)
    # the flat input index: the window's corner plus the tap's offset in the plane
    corner = (np.arange(oh).reshape(-1, 1) * stride[0] - padding[0]) * w + \
        (np.arange(ow) * stride[1] - padding[1])
    offset = (np.arange(kernel[0]).reshape(-1, 1) * dilation[0] * w +
              np.arange(kernel[1]) * dilation[1]).reshape(-1)
    idx = offset[pos]
    idx += corner
    # a window of nothing but the lowest value keeps PyTorch's initial index: its first
    # element inside the input (padding never wins)
    low = vals == _lowest(dt)
    if low.any():
        kh_i, kw_i = np.divmod(pos, kernel[1])
        first = [np.maximum(-((np.arange(o) * stride[i] - padding[i]) // dilation[i]), 0)
                 for i, o in enumerate((oh, ow))]
        kh_i = np.where(low, first[0][:, None], kh_i)
        kw_i = np.where(low, first[1][None, :], kw_i)
        rows = np.arange(oh).reshape(-1, 1) * stride[0] - padding[0] + kh_i * dilation[0]
        cols = np.arange(ow) * stride[1] - padding[1] + kw_i * dilation[1]
        idx = (rows * w + cols).astype(np.int64)
    return idx, vals


def _lowest(dt):
    return -np.inf if dt.is_floating_point else np.iinfo(dt.np).min


def scatter_to_input(grad, indices, in_shape, dt):
    """The backward of a max pool: each output gradient added at its flat input index, in
    output order and in the gradient's own dtype (PyTorch's loop ``gI[max_idx] += gO``: a
    16-bit sum rounds at every add)."""
    hw = in_shape[-1] * in_shape[-2]
    planes = int(np.prod(in_shape[:-2], dtype=np.int64))
    per = indices._data.size // planes if planes else 0
    flat = indices._data.reshape(planes, per) + (np.arange(planes, dtype=np.int64) * hw)[:, None]
    out = np.zeros(planes * hw, dt.np)
    np.add.at(out, flat.ravel(), grad._data.reshape(-1))
    return Tensor._make(out.reshape(in_shape), dt)


def gather_from_input(grad, indices):
    """``max_pool_double_backward``: ``grad`` (input-shaped) read at the pooled ``indices``
    (a dispatched ``index``, so the graph goes on)."""
    shape = indices.shape
    lead = shape[:-2]
    g = dispatch("reshape", grad, tuple(lead) + (-1,))
    idx = Tensor._make(indices._data.reshape(tuple(lead) + (-1,)), indices.dtype)
    ar = [Tensor._make(np.arange(n, dtype=np.int64).reshape((n,) + (1,) * (len(lead) - i)),
                       _dt.int64) for i, n in enumerate(lead)]
    return dispatch("reshape", dispatch("index", g, tuple(ar) + (idx,)), tuple(shape))


# ---------------------------------------------------------------------------- max pooling
@register_op("max_pool2d_with_indices")
class MaxPool2dWithIndices(Function):
    """``max_pool2d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
    ceil_mode=False)`` -> ``(values, indices)`` (``aten::max_pool2d_with_indices``).

    Shapes: input (N, C, H, W) or (C, H, W); outputs (.., C, OH, OW); indices int64, flat
    positions ``h * W + w`` in each input plane. ``stride=()``/None means ``kernel_size``.
    Any dtype but bool; exact.

    Raises:
        RuntimeError / NotImplementedError: see ``check_pool``.
    """

    _backward_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        kernel = pair(kernel_size, "max_pool2d: kernel_size")
        stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
            else pair(stride, "max_pool2d: stride")
        padding, dilation = pair(padding, "max_pool2d: padding"), \
            pair(dilation, "max_pool2d: dilation")
        *_, h, w, oh, ow = check_pool(input, kernel, stride, padding, dilation, ceil_mode,
                                      "max_pool2d")
        dt = input.dtype
        a = opmath(input, dt)
        pooled = None
        if kernel == stride == (2, 2) and padding == (0, 0) and dilation == (1, 1) and \
                2 * oh <= h and 2 * ow <= w:       # the usual 2x2 pool: windows tile the input
            pooled = _max_2x2(a, oh, ow)           # (indices, values), final
        if pooled is None:
            idx, vals = _max_indices(a, dt, w, oh, ow, kernel, stride, padding, dilation)
        else:
            idx, vals = pooled
        indices = Tensor._make(idx, _dt.int64)
        ctx.args = (kernel, stride, padding, dilation, ceil_mode)
        ctx.save_for_backward(input, indices)
        ctx.mark_non_differentiable(indices)
        # the indices never get a gradient: no zeros made for them (PyTorch's engine passes an
        # undefined tensor to a built-in node's backward)
        ctx.set_materialize_grads(False)
        return wrap(vals, dt), indices

    @staticmethod
    def backward(ctx, grad, _gi=None):
        input, indices = ctx.saved_tensors
        return dispatch("max_pool2d_with_indices_backward", grad, input, *ctx.args, indices)


@register_op("max_pool2d_with_indices_backward")
class MaxPool2dWithIndicesBackward(Function):
    """``max_pool2d_with_indices_backward(grad_output, input, kernel_size, stride, padding,
    dilation, ceil_mode, indices)``: each output gradient added at its input position (sums in
    opmath where windows overlap, one rounding). Differentiable in ``grad_output``."""

    _backward_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, kernel_size, stride, padding, dilation, ceil_mode,
                indices):
        ctx.save_for_backward(indices)
        return scatter_to_input(grad_output, indices, input.shape, grad_output.dtype)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return gather_from_input(grad, indices), None


def _no_stride(stride):
    return stride is None or (not isinstance(stride, (int, np.integer)) and len(stride) == 0)


@register_op("max_pool2d")
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``max_pool2d`` (aten composite): the values of ``max_pool2d_with_indices``."""
    return dispatch("max_pool2d_with_indices", input, kernel_size,
                    () if _no_stride(stride) else stride, padding, dilation, ceil_mode)[0]


def _one_d(input, op):
    """(N, C, L) or (C, L) -> the same with a height-1 dim before L.

    Raises:
        RuntimeError: "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim
            batch size for input, but got:[4]".
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim not in (2, 3):
        if op == "avg_pool1d":
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                               "tensor for argument #1 'self' (while checking arguments for "
                               "avg_pool1d)")
        raise RuntimeError(f"{op}: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                           f"batch size for input, but got:{list(input.shape)}")
    return dispatch("unsqueeze", input, -2)


def _one(v, name, default=None):
    if v is None or (not isinstance(v, (int, np.integer)) and len(v) == 0):
        return default
    if isinstance(v, (int, np.integer)):
        return (1, int(v))
    v = tuple(v)
    if len(v) != 1:
        raise RuntimeError(f"{name} must be a single int, or a tuple of one int")
    return (1, int(v[0]))


def _pool1d_args(kernel_size, stride, padding, dilation, op):
    k = _one(kernel_size, f"{op}: kernel_size")
    return k, _one(stride, f"{op}: stride", k), (0, _one(padding, "padding")[1]), \
        (1, _one(dilation, "dilation")[1])


@register_op("max_pool1d_with_indices")
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """``max_pool1d_with_indices``: the 2-d op over (.., 1, L); indices are positions in L."""
    x = _one_d(input, "max_pool1d")
    k, s, p, d = _pool1d_args(kernel_size, stride, padding, dilation, "max_pool1d")
    out, idx = dispatch("max_pool2d_with_indices", x, k, s, p, d, ceil_mode)
    return dispatch("squeeze", out, -2), dispatch("squeeze", idx, -2)


@register_op("max_pool1d")
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``max_pool1d``: the values of ``max_pool1d_with_indices``.

    Raises:
        NotImplementedError: an integer or bool cpu input ('"max_pool1d_impl" not implemented
            for 'Long''): PyTorch's value-only kernel, which it uses on cpu outside autograd,
            has floating dtypes only.
    """
    if isinstance(input, Tensor) and not input.dtype.is_floating_point and \
            input.device.type == "cpu":
        raise NotImplementedError(f'"max_pool1d_impl" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    return dispatch("max_pool1d_with_indices", input, kernel_size, stride, padding, dilation,
                    ceil_mode)[0]


# ---------------------------------------------------------------------------- average pooling
def _divisors(h, w, out, kernel, stride, padding, count_include_pad, divisor_override):
    """Per output position, what its window sum is divided by (PyTorch's ``AveragePool2d``:
    the window clipped to the padded input, or to the input itself without
    ``count_include_pad``)."""
    if divisor_override is not None:
        return np.full(out, divisor_override, np.int64)
    sizes = []
    for i, n in enumerate((h, w)):
        start = np.arange(out[i]) * stride[i] - padding[i]
        end = np.minimum(start + kernel[i], n + padding[i])
        full = end - start
        clipped = np.minimum(end, n) - np.maximum(start, 0)
        sizes.append(full if count_include_pad else clipped)
    return sizes[0][:, None] * sizes[1][None, :]


def _avg_args(input, kernel_size, stride, padding, ceil_mode, divisor_override):
    kernel = pair(kernel_size, "avg_pool2d: kernel_size")
    stride = kernel if _no_stride(stride) else pair(stride, "avg_pool2d: stride")
    padding = pair(padding, "avg_pool2d: padding")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    dims = check_pool(input, kernel, stride, padding, (1, 1), ceil_mode, "avg_pool2d")
    if not input.dtype.is_floating_point and input.dtype is not _dt.int64:
        raise NotImplementedError(f'"avg_pool2d" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    return kernel, stride, padding, dims


def _divide(s, div, dt):
    if dt.is_floating_point:
        return s / div.astype(s.dtype)
    q = np.abs(s) // div
    return np.where(s < 0, -q, q)        # C++ integer division truncates toward zero


@register_op("avg_pool2d")
class AvgPool2d(Function):
    """``avg_pool2d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`` (``aten::avg_pool2d``).

    Shapes: (N, C, H, W) or (C, H, W) -> (.., C, OH, OW). Window sums in opmath (fp32 for
    16-bit), divided once and rounded once; integer inputs truncate the quotient toward zero.

    Raises:
        RuntimeError: see ``check_pool``; "divisor must be not zero".
    """

    _backward_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, input, kernel_size, stride=(), padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
        kernel, stride, padding, (*_, h, w, oh, ow) = _avg_args(
            input, kernel_size, stride, padding, ceil_mode, divisor_override)
        dt = input.dtype
        win = windows(opmath(input, dt), (oh, ow), kernel, stride, padding, (1, 1), 0)
        s = win[..., 0, 0].copy()
        for i, j in itertools.product(range(kernel[0]), range(kernel[1])):
            if i or j:                  # PyTorch's loop: the window summed in order, in opmath
                s += win[..., i, j]
        div = _divisors(h, w, (oh, ow), kernel, stride, padding, count_include_pad,
                        divisor_override)
        ctx.args = (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
        ctx.save_for_backward(input)
        return wrap(_divide(s, div, dt), dt)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return dispatch("avg_pool2d_backward", grad, input, *ctx.args)


@register_op("avg_pool2d_backward")
class AvgPool2dBackward(Function):
    """``avg_pool2d_backward(grad_output, input, kernel_size, stride, padding, ceil_mode,
    count_include_pad, divisor_override)``: each output gradient divided by its window's
    divisor and added over the window (opmath, one rounding). Differentiable in
    ``grad_output`` (its derivative is ``avg_pool2d`` itself)."""

    _backward_name = "AvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, input, kernel_size, stride, padding, ceil_mode,
                count_include_pad, divisor_override):
        kernel, stride, padding = pair(kernel_size, "kernel_size"), pair(stride, "stride"), \
            pair(padding, "padding")
        dt = grad_output.dtype
        g = opmath(grad_output, dt)
        h, w = input.shape[-2:]
        oh, ow = g.shape[-2:]
        div = _divisors(h, w, (oh, ow), kernel, stride, padding, count_include_pad,
                        divisor_override)
        q = wrap(g / div.astype(g.dtype), dt)._data       # grad_delta, in the grad's dtype
        hp = max((oh - 1) * stride[0] + kernel[0], h + padding[0]) + padding[0]
        wp = max((ow - 1) * stride[1] + kernel[1], w + padding[1]) + padding[1]
        buf = np.zeros(g.shape[:-2] + (hp, wp), dt.np)
        # PyTorch's loop: per output, in order, gI += grad_delta in the grad's dtype (a 16-bit
        # sum rounds at every add)
        for i, j in itertools.product(range(oh), range(ow)):
            r, c = i * stride[0], j * stride[1]
            buf[..., r:r + kernel[0], c:c + kernel[1]] += q[..., i, j, None, None]
        ctx.args = (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return Tensor._make(np.ascontiguousarray(buf[..., padding[0]:padding[0] + h,
                                                     padding[1]:padding[1] + w]), dt)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("avg_pool2d", grad, *ctx.args), None


@register_op("avg_pool1d")
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """``avg_pool1d`` (aten composite): ``avg_pool2d`` over (.., 1, L)."""
    x = _one_d(input, "avg_pool1d")
    k, s, p, _ = _pool1d_args(kernel_size, stride, padding, 1, "avg_pool1d")
    out = dispatch("avg_pool2d", x, k, s, p, ceil_mode, count_include_pad, None)
    return dispatch("squeeze", out, -2)
