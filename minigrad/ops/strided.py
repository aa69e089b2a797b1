"""Strided geometry: ``as_strided`` and the gather/scatter ops behind view autograd.

A *geometry* is ``(size, stride, offset)`` in elements, relative to the start of a view family's
storage: the data pointer of its root base (``tensor._base``, or the tensor itself). PyTorch's
``as_strided`` works on the same numbers. Three private ops move values between two geometries
``a`` (the one the tensor's values are laid out in) and ``b``, and are each other's adjoints, so
double backward through them works:

- ``_strided_gather(x, a, b)``: lay ``x`` out in storage as ``a``, read it back as ``b``
  (``AsStridedBackward0``'s adjoint; the gradient slice ``CopySlices`` hands to the in-place op);
- ``_strided_scatter_add(g, a, b)``: zeros laid out as ``a``, ``g`` added at ``b`` (overlapping
  positions of ``b``, as in an expanded view, accumulate), read back as ``a``: the gradient of
  ``as_strided``;
- ``_strided_put(x, src, a, b)``: ``x`` with the positions of ``b`` replaced by ``src``: the
  base's gradient in ``CopySlices``.

They assume ``a`` itself has no overlapping elements, as a root base never does.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..autograd.views import ViewFunction
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from .factory import _convert


def geometry(arr: np.ndarray, root: np.ndarray):
    """The ``(size, stride, offset)`` of NumPy array ``arr`` inside ``root``'s storage."""
    isz = root.itemsize
    off = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return tuple(arr.shape), tuple(s // isz for s in arr.strides), off // isz


def _extent(geom) -> int:
    size, stride, off = geom
    if 0 in size:
        return 0
    return off + 1 + sum((n - 1) * s for n, s in zip(size, stride))


def _positions(geom, span):
    """Storage positions (int64 array of shape ``size``) of a geometry."""
    size, stride, off = geom
    ar = np.arange(max(span, 1), dtype=np.int64)
    return np.lib.stride_tricks.as_strided(ar[off:], size, tuple(s * 8 for s in stride))


def _overlaps(geom) -> bool:
    size, stride, _ = geom
    return any(s == 0 and n > 1 for n, s in zip(size, stride))


def _check(a, b):
    for g in (a, b):
        if any(s < 0 for s in g[1]) or g[2] < 0:
            raise RuntimeError("as_strided: negative strides or offsets are not supported")


def _storage(x: np.ndarray, a, span, dtype):
    buf = np.zeros(max(span, 1), dtype)
    if x.size:
        buf[_positions(a, span)] = x
    return buf


@register_op("_strided_gather")
class StridedGather(Function):
    """``_strided_gather(x, a, b)``: ``x`` (shape ``a``'s size) laid out as ``a``, read as
    ``b`` (a new tensor of ``b``'s size)."""

    _backward_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, x, a, b):
        _check(a, b)
        ctx.geoms = (a, b)
        span = max(_extent(a), _extent(b))
        buf = _storage(x._data, a, span, x._data.dtype)
        return Tensor._make(np.ascontiguousarray(buf[_positions(b, span)]), x.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("_strided_scatter_add", grad, *ctx.geoms), None, None


@register_op("_strided_scatter_add")
class StridedScatterAdd(Function):
    """``_strided_scatter_add(g, a, b)``: zeros laid out as ``a`` with ``g`` (``b``'s size)
    added at ``b``'s positions, read back as ``a``; the adjoint of ``_strided_gather``."""

    _backward_name = "AsStridedScatterBackward0"

    @staticmethod
    def forward(ctx, g, a, b):
        _check(a, b)
        ctx.geoms = (a, b)
        span = max(_extent(a), _extent(b))
        buf = np.zeros(max(span, 1), g._data.dtype)
        if g._data.size:
            pos = _positions(b, span)
            if _overlaps(b):
                np.add.at(buf, pos, g._data)
            else:
                buf[pos] = g._data
        return Tensor._make(np.ascontiguousarray(buf[_positions(a, span)]), g.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("_strided_gather", grad, *ctx.geoms), None, None


@register_op("_strided_put")
class StridedPut(Function):
    """``_strided_put(x, src, a, b)``: ``x`` (laid out as ``a``) with ``b``'s positions set to
    ``src`` (a Tensor of ``b``'s size, or a number); returns ``a``'s size."""

    _backward_name = "AsStridedScatterBackward0"

    @staticmethod
    def forward(ctx, x, src, a, b):
        _check(a, b)
        ctx.geoms = (a, b)
        span = max(_extent(a), _extent(b))
        buf = _storage(x._data, a, span, x._data.dtype)
        s = src._data if isinstance(src, Tensor) else np.asarray(src)
        buf[_positions(b, span)] = _convert(np.asarray(s), x.dtype)
        return Tensor._make(np.ascontiguousarray(buf[_positions(a, span)]), x.dtype)

    @staticmethod
    def backward(ctx, grad):
        nig = ctx.needs_input_grad
        gx = dispatch("_strided_put", grad, 0.0, *ctx.geoms) if nig[0] else None
        gs = dispatch("_strided_gather", grad, *ctx.geoms) if nig[1] else None
        return gx, gs, None, None


@register_op("as_strided")
class AsStrided(ViewFunction):
    """``as_strided(input, size, stride, storage_offset=None)``: a view of ``input``'s storage
    with the given geometry (``torch.as_strided``; node ``AsStridedBackward0``); the offset
    defaults to the input's own. Also the node a view gets when its base's history changed
    under it (see ``minigrad.autograd.views``).

    Raises:
        RuntimeError: negative strides or offset; a geometry reaching past the storage
            ("setStorage: sizes [..], strides [..], storage offset .., and itemsize .. requiring
            a storage size of .. are out of bounds for storage of size ..").
    """

    _backward_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, input, size, stride, storage_offset=None):
        root = input if input._base is None else input._base
        rarr = root._data
        a = geometry(input._data, rarr)
        if storage_offset is None:
            storage_offset = a[2]
        geom = (tuple(int(s) for s in size), tuple(int(s) for s in stride), int(storage_offset))
        _check(a, geom)
        need, have = _extent(geom), _extent(geometry(rarr, rarr))
        if need > have:
            size, stride, off = geom
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                               f"offset {off}, and itemsize {rarr.itemsize} requiring a storage "
                               f"size of {need * rarr.itemsize} are out of bounds for storage of "
                               f"size {have * rarr.itemsize}")
        ctx.geoms = (a, geom)
        flat = np.lib.stride_tricks.as_strided(rarr, (max(have, 1),), (rarr.itemsize,))
        size, stride, off = geom
        arr = np.lib.stride_tricks.as_strided(flat[off:], size,
                                              tuple(s * rarr.itemsize for s in stride))
        t = Tensor._make(arr, input.dtype)
        t._vc = root._vc
        t._base = root
        return t

    @staticmethod
    def backward(ctx, grad):
        return dispatch("_strided_scatter_add", grad, *ctx.geoms), None, None, None
