"""Convolution: PyTorch's one ``convolution`` op (conv1d/conv2d and their transposes) and its
fused ``convolution_backward`` (the three gradients under ``output_mask``, one op, as PyTorch).

Everything is one bilinear map ``y = B(x, w)``, a cross-correlation with stride, padding,
dilation and groups, written with three NumPy kernels on opmath arrays:

- ``_corr(x, w)``: the map itself, by im2col (a strided window view, copied to columns) and one
  matrix product per group;
- ``_corr_t(y, w, size)``: its adjoint in ``x`` (col2im: a product, then each kernel tap's
  columns added back at its strided positions). This *is* the transposed convolution, and the
  gradient of the input of an ordinary one;
- ``_corr_w(x, g)``: its adjoint in ``w`` (the weight gradient).

A transposed convolution with weight ``w`` (in_channels, out_channels / groups, *k) is
``_corr_t(x, w)``; its input gradient is ``_corr(grad, w)`` and its weight gradient
``_corr_w(grad, x)``. Because the map is bilinear, the double backward of
``convolution_backward`` is again made of ``convolution`` and ``convolution_backward`` calls
(PyTorch's ``_convolution_double_backward``), so ``create_graph=True`` works to any order.

Numerics: 16-bit inputs compute in fp32 (products and sums, the bias added too) and round once,
as PyTorch's CPU kernels (oneDNN, slow_conv2d) do. The summation order differs from theirs, so
fp32 results differ from PyTorch by a few ulps and fp16/bf16 results by at most 1 ulp on some
elements (``tests/specs/conv.py`` states the measured bounds). Integer inputs compute exactly in
int64, then wrap to the input's type (PyTorch's slow_conv2d; the transposed kernel has only
int64 among integers); bool raises as in PyTorch.

Mirrors ``aten/src/ATen/native/Convolution.cpp`` (checks and messages) and
``tools/autograd/derivatives.yaml`` (``convolution``, ``convolution_backward``).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import opmath, tf32_operands, wrap


# ---------------------------------------------------------------------------- NumPy kernels
def _pad(x, padding):
    """``x`` (N, C, *S) with ``padding[i]`` zeros on both sides of spatial dim i (a zero buffer
    with ``x`` copied inside: np.pad's generic path costs more than the copy)."""
    if any(padding):
        out = np.zeros(x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding)),
                       x.dtype)
        out[(Ellipsis,) + tuple(slice(p, p + s) for s, p in zip(x.shape[2:], padding))] = x
        return out
    return x


def _columns(x, kernel, stride, padding, dilation, groups, out=None):
    """im2col: ``x`` (N, C, *S) -> columns (groups, N * prod(O), C / groups * prod(k)) and the
    output spatial size O (all the windows that fit, or the first ``out`` of them: a transposed
    convolution's output_padding leaves trailing rows that no window of its adjoint reaches)."""
    nd = len(kernel)
    padded = tuple(x.shape[2 + i] + 2 * padding[i] for i in range(nd))
    if out is None:
        out = tuple((padded[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                    for i in range(nd))
    n, c = x.shape[:2]
    cg = c // groups
    if _CHANNELS_LAST_COL2IM and nd <= 2 and all(s == 1 for s in stride) and \
            out[-1] == x.shape[-1] and all(o > 0 for o in out):
        return _columns_same_width(x, kernel, padding, dilation, groups, out), out
    if _CHANNELS_LAST_COL2IM and (cg >= out[-1] or cg == 1) and all(o > 0 for o in out):
        # the same columns, written one kernel tap at a time from a channels-last padded copy
        # of the input: each copy then reads the channels contiguously instead of rows of O[-1]
        # elements (2x faster for the CNN's 24-channel 4x4 map), or with one channel per group
        # whole rows of O[-1] elements, where the window view's copy moves runs of k[-1]
        # (1.5x faster for the CNN's 1-channel 8x8 input); same array, same bits
        xg = np.zeros((groups, n) + padded + (cg,), x.dtype)         # (g, N, *padded, C/g)
        inside = tuple(slice(p, p + s) for s, p in zip(x.shape[2:], padding))
        xg[(slice(None),) * 2 + inside] = np.moveaxis(
            x.reshape((n, groups, cg) + x.shape[2:]), (1, 2), (0, -1))
        cols = np.empty((groups, n) + out + (cg,) + tuple(kernel), x.dtype)
        for tap in itertools.product(*(range(k) for k in kernel)):
            sl = tuple(slice(tap[i] * dilation[i], tap[i] * dilation[i] +
                             stride[i] * (out[i] - 1) + 1, stride[i]) for i in range(nd))
            cols[(Ellipsis,) + tap] = xg[(slice(None),) * 2 + sl]
        return cols.reshape(groups, n * math.prod(out), cg * math.prod(kernel)), out
    xp = _pad(x, padding)
    st = xp.strides
    win = np.lib.stride_tricks.as_strided(
        xp, xp.shape[:2] + out + tuple(kernel),
        st[:2] + tuple(st[2 + i] * stride[i] for i in range(nd)) +
        tuple(st[2 + i] * dilation[i] for i in range(nd)), writeable=False)
    n, c = x.shape[:2]
    win = win.reshape((n, groups, c // groups) + out + tuple(kernel))
    axes = (1, 0) + tuple(range(3, 3 + nd)) + (2,) + tuple(range(3 + nd, 3 + 2 * nd))
    cols = win.transpose(axes).reshape(groups, n * math.prod(out),
                                       c // groups * math.prod(kernel))
    return cols, out


def _columns_same_width(x, kernel, padding, dilation, groups, out):
    """``_columns``' matrix for a stride-1 convolution over 1 or 2 spatial dims whose output
    rows are as wide as the input's (``out[-1] == W``: the usual 3x3 with padding 1), each
    kernel tap's column copied as one run per sample and group.

    The source is the input channels-last, padded in the leading spatial dim only, flattened
    per sample with ``padding[-1] * C/g`` spare elements at both ends: a tap's values at every
    (*O, C/g) position are then one contiguous run, shifted by the tap's offset (one strided
    view covers all taps). Where a tap's column shift ``d`` reads past a row's end (its first
    or last ``|d|`` output columns, the padding's place), it reads the neighbouring row: those
    columns are set to zero after the copies. The same matrix as the tap-by-tap path (tested),
    with runs of prod(O) * C/g elements instead of rows of O[-1] (1.5x fewer instructions for
    the CNN's 1-channel 8x8 input, 1.1x for its 24-channel 4x4 map)."""
    n, c = x.shape[:2]
    cg = c // groups
    w = x.shape[-1]
    two = len(kernel) == 2
    top = padding[0] if two else 0                    # zero rows above and below
    row = w * cg                                      # one input row, channels-last
    spare = padding[-1] * cg                          # the largest column shift, in elements
    block = ((x.shape[2] + 2 * top) if two else 1) * row
    src = np.empty((groups, n, spare + block + spare), x.dtype)
    inside = src[:, :, spare + top * row:spare + block - top * row]
    np.copyto(inside.reshape((groups, n) + x.shape[2:] + (cg,)),
              np.moveaxis(x.reshape((n, groups, cg) + x.shape[2:]), (1, 2), (0, -1)))
    src[:, :, :spare + top * row] = 0
    src[:, :, spare + block - top * row:] = 0
    kh, kw = (kernel[0] if two else 1), kernel[-1]
    run = math.prod(out) * cg
    it = src.itemsize
    taps = np.lib.stride_tricks.as_strided(    # (g, N, kh, kw, run): tap (0, 0) starts at 0
        src, (groups, n, kh, kw, run),
        src.strides[:2] + ((dilation[0] * row if two else 0) * it, dilation[-1] * cg * it, it),
        writeable=False)
    cols = np.empty((groups, n, run, kh, kw), x.dtype)
    for i in range(kh):
        for j in range(kw):
            np.copyto(cols[:, :, :, i, j], taps[:, :, i, j])
    per_column = cols.reshape((groups, n) + out + (cg, kh, kw))
    for j in range(kw):
        shift = j * dilation[-1] - padding[-1]
        if shift < 0:
            per_column[..., :-shift, :, :, j] = 0
        elif shift > 0:
            per_column[..., w - shift:, :, :, j] = 0
    return cols.reshape(groups, n * math.prod(out), cg * kh * kw)


def _by_group(y, groups):
    """(N, C, *O) -> (groups, N * prod(O), C / groups): a gradient or input as matrix rows."""
    n, c = y.shape[:2]
    sp = math.prod(y.shape[2:])
    m = y.reshape(n, groups, c // groups, sp)
    return m.transpose(1, 0, 3, 2).reshape(groups, n * sp, c // groups)


def _corr(x, w, stride, padding, dilation, groups, out=None):
    """The convolution (cross-correlation) ``x`` (N, Cin, *S) * ``w`` (Cout, Cin/g, *k)
    (``out``: see ``_columns``)."""
    kernel = w.shape[2:]
    cols, out = _columns(x, kernel, stride, padding, dilation, groups, out)
    cout = w.shape[0]
    wm = w.reshape(groups, cout // groups, math.prod(w.shape[1:])).transpose(0, 2, 1)
    y = np.matmul(cols, wm)                               # (g, N*O, Cout/g)
    n = x.shape[0]
    y = y.reshape((groups, n) + out + (cout // groups,))
    nd = len(out)
    y = y.transpose((1, 0, 2 + nd) + tuple(range(2, 2 + nd)))
    return np.ascontiguousarray(y).reshape((n, cout) + out)


def _corr_t(y, w, size, stride, padding, dilation, groups):
    """The adjoint of ``_corr`` in ``x``: ``y`` (N, Cout, *O), ``w`` (Cout, Cin/g, *k) -> an
    array (N, Cin, *size)."""
    kernel = tuple(w.shape[2:])
    nd = len(kernel)
    n, cout = y.shape[:2]
    out = tuple(y.shape[2:])
    cin_g = w.shape[1]
    cols = np.matmul(_by_group(y, groups),
                     w.reshape(groups, cout // groups, math.prod(w.shape[1:])))
    if _CHANNELS_LAST_COL2IM and nd <= 2 and all(s == 1 for s in stride) and \
            out[-1] == size[-1] and all(o > 0 for o in out):
        return _col2im_same_width(cols, n, tuple(size), kernel, padding, dilation, groups, out)
    cols = cols.reshape((groups, n) + out + (cin_g,) + kernel)
    padded = tuple(size[i] + 2 * padding[i] for i in range(nd))
    taps = list(itertools.product(*(range(k) for k in kernel)))
    spans = [tuple(slice(tap[i] * dilation[i], tap[i] * dilation[i] + stride[i] * (out[i] - 1)
                         + 1, stride[i]) for i in range(nd)) for tap in taps]
    crop = tuple(slice(padding[i], padding[i] + size[i]) for i in range(nd))
    every = (slice(None),) * 2
    if _CHANNELS_LAST_COL2IM and cin_g >= out[-1]:
        # the same adds in the same tap order into a buffer (g, *padded, N, Cin/g) with the
        # batch and channels innermost, from one copy of the columns with the taps outermost
        # (*k, g, *O, N, Cin/g): each tap's block is then read contiguously and added in runs
        # of O[-1] * N * Cin/g elements (stride 1), where the (N, g, Cin/g, *O) layout below
        # adds rows of only O[-1] elements read at a stride of prod(k) (3x fewer instructions
        # for the CNN's 24-channel 4x4 map); the bits are the same
        sp = tuple(range(2, 2 + nd))
        tm = np.empty(kernel + (groups,) + out + (n, cin_g), cols.dtype)
        np.copyto(tm, cols.transpose(tuple(range(3 + nd, 3 + 2 * nd)) + (0,) + sp +
                                     (1, 2 + nd)))
        buf = np.zeros((groups,) + padded + (n, cin_g), dtype=cols.dtype)
        for tap, sl in zip(taps, spans):
            buf[(slice(None),) + sl] += tm[tap]
        # cropped (whole runs of N * Cin/g), then transposed with the spatial dims as one axis
        inner = np.ascontiguousarray(buf[(slice(None),) + crop]).reshape(
            groups, math.prod(size), n, cin_g)
        res = np.empty((n, groups, cin_g, math.prod(size)), cols.dtype)
        np.copyto(res, inner.transpose(2, 0, 3, 1))
        return res.reshape((n, groups * cin_g) + tuple(size))
    # -> (*k, N, g, Cin/g, *O): one (N, g, Cin/g, *O) block per kernel tap
    cols = cols.transpose(tuple(range(3 + nd, 3 + 2 * nd)) + (1, 0, 2 + nd) +
                          tuple(range(2, 2 + nd)))
    buf = np.zeros((n, groups, cin_g) + padded, dtype=cols.dtype)
    for tap, sl in zip(taps, spans):
        buf[(slice(None),) * 3 + sl] += cols[tap]
    return np.ascontiguousarray(buf[(slice(None),) * 3 + crop]).reshape((n, groups * cin_g) +
                                                                        tuple(size))


def _col2im_same_width(cols, n, size, kernel, padding, dilation, groups, out):
    """``_corr_t``'s sum of the columns ``cols`` (groups, N * prod(O), Cin/g * prod(k)) into
    the input (N, Cin, *size), for the convolutions of ``_columns_same_width`` (stride 1, 1 or
    2 spatial dims, ``out[-1] == size[-1]``): that function's layout run backwards.

    The columns are first regrouped tap-major (one transposition whose reads are long runs at
    the stride of prod(k)); each tap's block is then added, in tap order, as one run per
    sample into a buffer laid out as ``_columns_same_width``'s source (channels-last, padded
    in the leading dim, flattened per sample, spare elements at both ends), which is cropped
    and transposed into the result. A tap's values whose column shift would carry them past a
    row's end (into the padding, where the general path discards them) would land on the
    neighbouring row: they are set to +0.0 first. Adding +0.0 changes no partial sum (a sum
    that starts at +0.0 is never -0.0), so every element gets the general path's adds in the
    general path's order: the same bits (tested)."""
    kh, kw = (kernel[0] if len(kernel) == 2 else 1), kernel[-1]
    cin_g = cols.shape[-1] // (kh * kw)
    w = size[-1]
    top = padding[0] if len(kernel) == 2 else 0
    row = w * cin_g
    spare = padding[-1] * cin_g
    block = (size[0] + 2 * top if len(kernel) == 2 else 1) * row
    run = math.prod(out) * cin_g
    taps = np.empty((kh, kw, groups, n, run), cols.dtype)
    np.copyto(taps.reshape(kh * kw, groups * n * run), cols.reshape(-1, kh * kw).T)
    per_column = taps.reshape((kh, kw, groups, n) + tuple(out) + (cin_g,))
    for j in range(kw):
        shift = j * dilation[-1] - padding[-1]
        if shift < 0:
            per_column[:, j, ..., :-shift, :] = 0
        elif shift > 0:
            per_column[:, j, ..., w - shift:, :] = 0
    buf = np.zeros((groups, n, spare + block + spare), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            start = (i * dilation[0] * row if len(kernel) == 2 else 0) + j * dilation[-1] * cin_g
            buf[:, :, start:start + run] += taps[i, j]
    inner = buf[:, :, spare + top * row:spare + block - top * row].reshape(
        groups, n, math.prod(size), cin_g)
    res = np.empty((n, groups, cin_g, math.prod(size)), cols.dtype)
    np.copyto(res, inner.transpose(1, 0, 3, 2))
    return res.reshape((n, groups * cin_g) + size)


#: ``_columns`` / ``_corr_t`` may take their channels-last paths (False: always the
#: channel-first window view and (N, g, Cin/g, *S) buffer; the fast paths' tests' reference)
_CHANNELS_LAST_COL2IM = True


def _corr_w(x, g, kernel, stride, padding, dilation, groups):
    """The adjoint of ``_corr`` in ``w``: input ``x`` (N, Cin, *S), gradient ``g``
    (N, Cout, *O) -> (Cout, Cin/g, *kernel)."""
    cols, out = _columns(x, kernel, stride, padding, dilation, groups, tuple(g.shape[2:]))
    gw = np.matmul(_by_group(g, groups).transpose(0, 2, 1), cols)    # (g, Cout/g, Cin/g*k)
    cout = g.shape[1]
    return gw.reshape((cout, x.shape[1] // groups) + tuple(kernel))


# ---------------------------------------------------------------------------- checks
def _ints(v, nd, name):
    """An int or a sequence of ``nd`` ints as a tuple (PyTorch's ``expand_param_if_needed``).

    Raises:
        RuntimeError: "expected stride to be a single integer value or a list of 2 values to
            match the convolution dimensions, but got stride=[1, 1, 1]".
    """
    if isinstance(v, (int, np.integer)):
        return (int(v),) * nd
    v = tuple(int(a) for a in v)
    if len(v) == 1 and nd > 1:
        return v * nd
    if len(v) != nd:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {nd} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(v)}")
    return v


def _onednn(dt):
    """Whether PyTorch's CPU build runs a ``dt`` convolution through oneDNN on this machine
    (16-bit inputs on CPUs with the flags of ``numerics.ONEDNN_BF16`` / ``ONEDNN_FP16``)."""
    from ..numerics import onednn_takes
    return onednn_takes(dt)


def _daz(dt, *arrays):
    """The fp32 operands as oneDNN's bf16 kernels read them (``numerics.onednn_bf16_flush``
    where a bf16 convolution goes to oneDNN; unchanged otherwise)."""
    if dt is _dt.bfloat16 and _onednn(dt):
        from ..numerics import onednn_bf16_flush
        return tuple(None if a is None else onednn_bf16_flush(a) for a in arrays)
    return arrays


def _type_string(dt):
    """``Tensor::toString()``: the legacy type name, except bf16's "CPUBFloat16Type" (it has no
    legacy tensor class)."""
    return "CPUBFloat16Type" if dt is _dt.bfloat16 else _dt.legacy_type_name(dt)


def _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """PyTorch's ``check_input_shape_forward`` and ``ConvParams`` checks, with its messages."""
    for t, nm in ((input, "input"), (weight, "weight")):
        if not isinstance(t, Tensor):
            raise TypeError(f"convolution(): argument '{nm}' must be Tensor, not "
                            f"{type(t).__name__}")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ws, xs = list(weight.shape), list(input.shape)
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {ws}, but got {input.ndim}-dimensional input of "
                           f"size {xs} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{ws}] instead")
    if transposed:
        if xs[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{xs} to "
                               f"have {ws[0]} channels, but got {xs[1]} channels instead")
        nb = ws[1] * groups
    else:
        if xs[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{xs} "
                               f"to have {ws[1] * groups} channels, but got {xs[1]} channels "
                               "instead")
        nb = ws[0]
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != nb):
        raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with "
                           f"{nb} elements, but got bias of size {list(bias.shape)} instead")
    if input.dtype is not weight.dtype:
        if _onednn(input.dtype):            # PyTorch's oneDNN path checks first, in its words
            raise RuntimeError(f"Input type ({_type_string(input.dtype)}) and weight type "
                               f"({_type_string(weight.dtype)}) should be the same or input "
                               "should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found "
                           f"{weight.dtype.scalar_name}")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({input.dtype.cpp_name}) and bias type "
                           f"({bias.dtype.cpp_name}) should be the same")
    nd = input.ndim - 2
    if not transposed:
        pad_in = [xs[2 + i] + 2 * padding[i] for i in range(nd)]
        kern = [dilation[i] * (ws[2 + i] - 1) + 1 for i in range(nd)]
        if any(p < k for p, k in zip(pad_in, kern)):
            raise RuntimeError(f"Calculated padded input size per channel: "
                               f"({' x '.join(map(str, pad_in))}). Kernel size: "
                               f"({' x '.join(map(str, kern))}). Kernel size can't be greater "
                               "than actual input size")
    else:
        if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
            if nd == 2:
                raise RuntimeError(
                    f"output padding must be smaller than either stride or dilation, but got "
                    f"output_padding_height: {output_padding[0]} output_padding_width: "
                    f"{output_padding[1]} stride_height: {stride[0]} stride_width: {stride[1]} "
                    f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}")
            raise RuntimeError(f"output padding must be smaller than either stride or dilation,"
                               f" but got output_padding={list(output_padding)} stride="
                               f"{list(stride)} dilation={list(dilation)}")
        size = _transposed_size(input.shape, weight.shape, stride, padding, dilation,
                                output_padding)
        if any(s <= 0 for s in size):
            raise RuntimeError(f"Given input size per channel: {xs[2:]}, calculated output "
                               f"size per channel {list(size)} is too small")
    if input.dtype is _dt.bool_:
        raise NotImplementedError(f'"slow_conv{nd}d_cpu" not implemented for \'Bool\'')
    if transposed and not input.dtype.is_floating_point and input.dtype is not _dt.int64:
        raise NotImplementedError(f'"slow_conv_transpose2d_out_cpu" not implemented for '
                                  f"'{input.dtype.scalar_name}'")


def _transposed_size(xshape, wshape, stride, padding, dilation, output_padding):
    return tuple((xshape[2 + i] - 1) * stride[i] - 2 * padding[i] +
                 dilation[i] * (wshape[2 + i] - 1) + output_padding[i] + 1
                 for i in range(len(stride)))


def _params(input, stride, padding, dilation, output_padding):
    nd = input.ndim - 2 if isinstance(input, Tensor) else 1
    return (_ints(stride, nd, "stride"), _ints(padding, nd, "padding"),
            _ints(dilation, nd, "dilation"), _ints(output_padding, nd, "output_padding"))


# ---------------------------------------------------------------------------- the ops
@register_op("convolution")
class Convolution(Function):
    """``convolution(input, weight, bias, stride, padding, dilation, transposed,
    output_padding, groups)`` (``aten::convolution``, what every ``F.conv*`` reaches).

    Shapes: input (N, Cin, *S); weight (Cout, Cin/groups, *k), or for ``transposed``
    (Cin, Cout/groups, *k); bias (Cout,) or None. Output (N, Cout, *O) with
    O = (S + 2p - d(k-1) - 1) // s + 1, transposed O = (S-1)s - 2p + d(k-1) + output_padding + 1.
    Dtypes: input, weight and bias alike (no promotion); 16-bit computes in fp32, rounds once.

    Raises:
        RuntimeError: PyTorch's messages for non-positive stride/dilation/groups, negative
            padding, weight/input rank or channel mismatches, groups not dividing the channels,
            a bias of the wrong size, mixed dtypes, a kernel larger than the padded input, an
            output_padding not smaller than stride or dilation.
        NotImplementedError: bool inputs.
    """

    _backward_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
        stride, padding, dilation, output_padding = _params(input, stride, padding, dilation,
                                                            output_padding)
        _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
        dt = input.dtype
        x, w = _daz(dt, *tf32_operands(dt, input, opmath(input, dt), opmath(weight, dt)))
        with np.errstate(all="ignore"):        # inf/nan inputs: no NumPy warnings, as PyTorch
            if transposed:
                size = _transposed_size(input.shape, weight.shape, stride, padding, dilation,
                                        output_padding)
                y = _corr_t(x, w, size, stride, padding, dilation, groups)
            else:
                y = _corr(x, w, stride, padding, dilation, groups)
            if bias is not None:
                y += opmath(bias, dt).reshape((1, -1) + (1,) * (y.ndim - 2))
        ctx.params = (stride, padding, dilation, bool(transposed), output_padding, groups)
        ctx.bias_sizes = [bias.shape[0]] if bias is not None else [0]
        ctx.save_for_backward(input, weight)
        return wrap(_daz(dt, y)[0], dt)

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        n = ctx.needs_input_grad
        mask = [bool(n[0]), bool(n[1]), bool(n[2])]
        gi, gw, gb = dispatch("convolution_backward", grad, input, weight, ctx.bias_sizes,
                              *ctx.params, mask)
        return gi, gw, gb


@register_op("convolution_backward")
class ConvolutionBackward(Function):
    """``convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
    transposed, output_padding, groups, output_mask)`` -> ``(grad_input, grad_weight,
    grad_bias)`` (``aten::convolution_backward``), each None where ``output_mask`` is False (or
    for grad_bias when ``bias_sizes`` is [0]).

    One op for the three gradients, each computed in opmath and rounded once. Differentiable:
    its backward (``ConvolutionBackwardBackward0``) is PyTorch's
    ``_convolution_double_backward``, made of ``convolution`` and ``convolution_backward``.
    """

    _backward_name = "ConvolutionBackwardBackward0"

    @staticmethod
    @np.errstate(all="ignore")                 # inf/nan values: no NumPy warnings, as PyTorch
    def forward(ctx, grad_output, input, weight, bias_sizes, stride, padding, dilation,
                transposed, output_padding, groups, output_mask):
        stride, padding, dilation, output_padding = _params(input, stride, padding, dilation,
                                                            output_padding)
        dt = grad_output.dtype
        g, x, w = opmath(grad_output, dt), opmath(input, dt), opmath(weight, dt)
        if output_mask[0] or output_mask[1]:       # the bias gradient is a plain fp32 sum
            tg, tx, tw = _daz(dt, *tf32_operands(dt, input, g, x, w))
        else:
            tg = tx = tw = None
        kernel = tuple(weight.shape[2:])
        gi = gw = gb = None
        if output_mask[0]:
            if transposed:
                gi = _corr(tg, tw, stride, padding, dilation, groups, tuple(input.shape[2:]))
            else:
                gi = _corr_t(tg, tw, input.shape[2:], stride, padding, dilation, groups)
            gi = wrap(_daz(dt, gi)[0], dt)
        if output_mask[1]:
            if transposed:
                gw = _corr_w(tg, tx, kernel, stride, padding, dilation, groups)
            else:
                gw = _corr_w(tx, tg, kernel, stride, padding, dilation, groups)
            gw = wrap(_daz(dt, gw)[0], dt)
        if output_mask[2] and list(bias_sizes) != [0]:
            gb = wrap(np.add.reduce(g, axis=(0,) + tuple(range(2, g.ndim))), dt)
        ctx.params = (stride, padding, dilation, bool(transposed), output_padding, groups)
        ctx.save_for_backward(grad_output, input, weight)
        return gi, gw, gb

    @staticmethod
    def backward(ctx, ggi, ggw, ggb):
        gO, x, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        p = ctx.params
        g_gO = g_x = g_w = None
        if n[0]:
            parts = []
            if ggi is not None:
                parts.append(dispatch("convolution", ggi, w, None, *p))
            if ggw is not None:
                parts.append(dispatch("convolution", x, ggw, None, *p))
            if ggb is not None:
                shape = (1, -1) + (1,) * (gO.ndim - 2)
                parts.append(dispatch("expand", dispatch("reshape", ggb, shape), gO.shape))
            for part in parts:
                g_gO = part if g_gO is None else dispatch("add", g_gO, part)
        if n[1] and ggw is not None:
            g_x = dispatch("convolution_backward", gO, x, ggw, [0], *p, [True, False, False])[0]
        if n[2] and ggi is not None:
            g_w = dispatch("convolution_backward", gO, ggi, w, [0], *p, [False, True, False])[1]
        return g_gO, g_x, g_w
