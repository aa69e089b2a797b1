"""Padding, one-hot and sliding blocks in ``minigrad.nn.functional``: ``F.pad``, ``F.one_hot``,
``F.unfold``, ``F.fold``, with ``torch.nn.functional``'s signatures; ``functional.py``
re-exports them. The ops are in ``minigrad/ops/padding.py`` and ``im2col.py``.

``F.pad`` dispatches as PyTorch 2.13 does: mode "constant" is ``constant_pad_nd``; "reflect"
and "replicate" are ``reflection_pad1d/2d/3d`` / ``replication_pad1d/2d/3d``; "circular" is
PyTorch's ``_pad_circular`` composite: a new tensor whose middle is copied from the input and
whose borders are copied from its own wrapped-around parts, all with ``copy_`` into slices (so
the result's node is ``CopySlices``, as in PyTorch).
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch
from ..ops.padding import not_supported

__all__ = ["pad", "one_hot", "unfold", "fold"]

_BORDER = {"reflect": "reflection_pad", "replicate": "replication_pad"}


def pad(input, pad, mode: str = "constant", value=None):
    """Pad ``input`` by the (left, right) pairs of ``pad``, last dim first (``F.pad``).

    Modes: "constant" (``value``, default 0; any number of dims; negative pads crop),
    "reflect", "replicate", "circular" (the last 1, 2 or 3 dims of a batched or unbatched
    input: ``reflection_pad1d/2d/3d``...). Deliberate difference: a circular right pad
    wider than what a negative left pad leaves of the dim repeats those columns as PyTorch's
    overlapping ``copy_`` does, but its gradient is the forward's true one (PyTorch's differs
    there).

    Raises:
        RuntimeError: an odd ``pad`` length ("Padding length must be divisible by 2"), too long
            a pad for a constant pad, a ``value`` with a non-constant mode ('Padding mode
            "reflect" doesn't take in value argument'), a reflect pad not smaller than its dim,
            a circular pad wrapping around more than once.
        NotImplementedError: an unknown mode ("Unrecognised padding mode foo"), a pad size the
            mode does not support for this number of dims (PyTorch's message).
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if mode == "constant":
        if len(pad) > 2 * input.ndim:
            raise RuntimeError("Padding length should be less than or equal to two times the "
                               f"input dimension but got padding length {len(pad)} and input of "
                               f"dimension {input.ndim}")
        return dispatch("constant_pad_nd", input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise not_supported(len(pad), input.ndim)
    if mode == "circular":
        return _pad_circular(input, pad)
    return dispatch(f"{_BORDER[mode]}{k}d", input, pad)


def _pad_circular(input, pad):
    """PyTorch's ``_pad_circular``: copies into slices of a new tensor (node ``CopySlices``)."""
    k = len(pad) // 2
    n = input.ndim
    shape = list(input.shape)
    for j in range(k):
        d = n - 1 - j
        lo, hi = pad[2 * j], pad[2 * j + 1]
        if lo > shape[d] or hi > shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if shape[d] + lo + hi < 0:
            raise RuntimeError(f"Negative padding value is resulting in an empty dimension, "
                               f"dimension {d}")
    out_shape = list(shape)
    for j in range(k):
        out_shape[n - 1 - j] += pad[2 * j] + pad[2 * j + 1]
    out = dispatch("zeros", tuple(out_shape), dtype=input.dtype, device=input.device)

    def sl(d, a, b):
        return (slice(None),) * d + (slice(a, b),)

    # the middle: input (cropped by negative pads) into out (offset by positive pads)
    src, dst = (), ()
    for d in range(n):
        j = n - 1 - d
        if j >= k:
            src, dst = src + (slice(None),), dst + (slice(None),)
            continue
        lo, hi = pad[2 * j], pad[2 * j + 1]
        src += (slice(max(-lo, 0), shape[d] - max(-hi, 0)),)
        dst += (slice(max(lo, 0), out_shape[d] - max(hi, 0)),)
    dispatch("copy_", dispatch("index", out, dst), dispatch("index", input, src))
    # then the borders, dim by dim (last padded dim first, as PyTorch), from out itself
    for j in range(k):
        d = n - 1 - j
        lo, hi = pad[2 * j], pad[2 * j + 1]
        size = out_shape[d]
        if lo > 0:
            dispatch("copy_", dispatch("index", out, sl(d, 0, lo)),
                     dispatch("index", out, sl(d, size - lo - max(hi, 0), size - max(hi, 0))))
        if hi > 0:
            # PyTorch copies out[lo:lo+hi] onto out[size-hi:]; the two overlap when a negative
            # left pad leaves fewer than hi columns, and its element-by-element copy then
            # repeats the first ``period`` columns: copied here in non-overlapping chunks
            start, period = max(lo, 0), size - hi - max(lo, 0)
            for c in range(0, hi, max(period, 1)):
                w = min(period, hi - c) if period > 0 else hi
                dispatch("copy_", dispatch("index", out, sl(d, size - hi + c, size - hi + c + w)),
                         dispatch("index", out, sl(d, start + c, start + c + w)))
    return out


def one_hot(tensor, num_classes: int = -1):
    """``F.one_hot``: int64 tensor of shape ``tensor.shape + (num_classes,)`` with a 1 at each
    class index (``num_classes=-1``: the largest index + 1). Composite as PyTorch's: ``zeros``
    then ``scatter_`` of the value 1.

    Raises:
        RuntimeError: a non-int64 tensor ("one_hot is only applicable to index tensor of type
            LongTensor."), a negative index ("Class values must be non-negative."), an index
            not below ``num_classes``, an empty tensor with ``num_classes=-1``.
    """
    if tensor.dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data_min = data_max = None
    if tensor.numel():
        data_min, data_max = int(dispatch("amin", tensor).item()), int(
            dispatch("max", tensor).item())
        if data_min < 0:
            raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if data_max is None:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = data_max + 1
    elif data_max is not None and data_max >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = dispatch("zeros", tuple(tensor.shape) + (num_classes,), dtype=_dt.int64,
                   device=tensor.device)
    return dispatch("scatter_.value", out, -1, dispatch("unsqueeze", tensor, -1), 1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """``F.unfold``: sliding blocks of a ``(N, C, H, W)`` / ``(C, H, W)`` input as columns
    ``(N, C*kh*kw, L)`` (the ``im2col`` op; its errors apply)."""
    return dispatch("im2col", input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``F.fold``: columns ``(N, C*kh*kw, L)`` / ``(C*kh*kw, L)`` summed back into an image
    ``(N, C, H, W)`` (the ``col2im`` op; its errors apply)."""
    return dispatch("col2im", input, output_size, kernel_size, dilation, padding, stride)
