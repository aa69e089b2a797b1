"""Memory formats: how a tensor's elements are laid out in its storage (``torch.memory_format``;
the module is named for the layout, so that ``minigrad.memory_format`` is the class, as in torch).

``contiguous_format`` is row-major (the last dim varies fastest); ``channels_last`` lays a 4-D
NCHW tensor out as NHWC (strides ``(H*W*C, 1, W*C, C)``), ``channels_last_3d`` a 5-D NCDHW one as
NDHWC; ``preserve_format`` (the default of ``clone``, ``*_like`` and ``to``) keeps the input's
strides when it is dense and non-overlapping, else lays the result out in the input's stride
order. The shape and the values never depend on the format: only ``stride()`` and
``is_contiguous(memory_format=...)`` show it. minigrad holds each layout as a NumPy array with
those strides, so a channels-last tensor really is NHWC in memory.

Mirrors ``torch.memory_format`` and ATen's ``empty_like`` / ``is_contiguous`` rules (size-1
dims' strides do not count). Deliberate difference: elementwise ops and convolutions give
row-major results whatever their inputs' format (PyTorch's TensorIterator and oneDNN convs
follow a channels-last input); the values are the same.
"""
from __future__ import annotations

import numpy as np

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "is_contiguous_as", "empty_as", "layout_like"]


class memory_format:
    """A memory format (``torch.memory_format``); use the four module-level instances."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name     # pickles as the module-level instance


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# the dims from the fastest-varying to the slowest, per format and rank
_ORDER = {channels_last: (4, (1, 3, 2, 0)), channels_last_3d: (5, (1, 4, 3, 2, 0))}


def _check(fmt, ndim):
    if not isinstance(fmt, memory_format):
        raise TypeError(f"memory_format must be torch.memory_format, not {type(fmt).__name__}")
    if fmt in _ORDER and ndim != _ORDER[fmt][0]:
        raise RuntimeError(f"required rank {_ORDER[fmt][0]} tensor to use {fmt.name} format")


def check_format_arg(fmt, fn_name):
    """PyTorch's argument check of a ``memory_format=`` argument of ``fn_name``.

    Raises:
        TypeError: ``fmt`` not a ``memory_format`` (nor None): "contiguous(): argument
            'memory_format' must be torch.memory_format, not str".
    """
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError(f"{fn_name}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {_torch_type_name(fmt)}")


def _torch_type_name(x):
    from .dtypes import DType
    return "torch.dtype" if isinstance(x, DType) else type(x).__name__


def is_contiguous_as(arr, fmt=contiguous_format) -> bool:
    """Whether ``arr`` (a NumPy array) is laid out densely in ``fmt`` (``Tensor.is_contiguous``:
    a 4-D/5-D test for the channels-last formats, False for other ranks).

    ``preserve_format`` asks about row-major order, as PyTorch's does.

    Raises:
        TypeError: ``fmt`` not a ``memory_format`` (PyTorch's ``is_contiguous()`` message).
    """
    check_format_arg(fmt, "is_contiguous")
    if fmt is contiguous_format or fmt is None or fmt is preserve_format:
        return bool(arr.flags.c_contiguous)
    rank, order = _ORDER[fmt]
    if arr.ndim != rank:
        return False
    expected = arr.itemsize
    for d in order:
        if arr.shape[d] != 1:
            if arr.strides[d] != expected:
                return False
            expected *= arr.shape[d]
    return True


def _from_order(shape, dtype, order):
    """An uninitialised array of ``shape`` whose dims vary fastest to slowest in ``order``."""
    slow_first = list(reversed(order))
    return np.empty([shape[d] for d in slow_first], dtype).transpose(np.argsort(slow_first))


def empty_as(shape, dtype, fmt=contiguous_format):
    """An uninitialised NumPy array of ``shape`` laid out in ``fmt`` (not ``preserve_format``).

    Raises:
        RuntimeError: a channels-last format for a tensor of another rank.
    """
    _check(fmt, len(shape))
    if fmt in _ORDER:
        return _from_order(tuple(shape), dtype, _ORDER[fmt][1])
    return np.empty(tuple(shape), dtype)


def _dense_strides(arr):
    """``arr``'s strides in elements when it is dense and non-overlapping (every element of a
    block of ``arr.size`` once), else None."""
    if arr.size == 0 or any(s < 0 for s in arr.strides):
        return None
    dims = sorted((d for d in range(arr.ndim) if arr.shape[d] != 1),
                  key=lambda d: arr.strides[d])
    expected = arr.itemsize
    for d in dims:
        if arr.strides[d] != expected:
            return None
        expected *= arr.shape[d]
    return tuple(s // arr.itemsize for s in arr.strides)


def layout_like(arr, dtype=None, fmt=preserve_format):
    """An uninitialised array of ``arr``'s shape (and ``dtype``, default ``arr``'s) laid out as
    ``empty_like(arr, memory_format=fmt)`` lays it out: ``preserve_format`` keeps the strides of
    a dense non-overlapping ``arr`` exactly, and otherwise follows its stride order.

    Raises:
        RuntimeError: a channels-last format for a tensor of another rank.
    """
    dtype = arr.dtype if dtype is None else dtype
    if fmt is None or fmt is not preserve_format:
        return empty_as(arr.shape, dtype, contiguous_format if fmt is None else fmt)
    if arr.flags.c_contiguous:
        return np.empty(arr.shape, dtype)
    strides = _dense_strides(arr)
    itemsize = np.dtype(dtype).itemsize
    if strides is not None:
        buf = np.empty(arr.size, dtype)
        return np.lib.stride_tricks.as_strided(buf, arr.shape,
                                               tuple(s * itemsize for s in strides))
    # not dense (a slice, an expanded tensor): row-major unless its dims are out of order
    return strided_like(arr, dtype) if permuted(arr) else np.empty(arr.shape, dtype)


def strided_like(a, dtype):
    """An uninitialised array of ``a``'s shape laid out in memory as ``a`` is (dims in the same
    stride order): what PyTorch's ``empty_like`` (``preserve_format``) gives a dense tensor."""
    perm = sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]))
    return np.empty([a.shape[d] for d in perm], dtype).transpose(np.argsort(perm))


def permuted(a) -> bool:
    """Whether ``a``'s dims (those longer than 1) are not laid out in logical order: then
    PyTorch's ``empty_like`` (``preserve_format``) gives a tensor with that dim order (the same
    strides when ``a`` is dense), which is not contiguous."""
    dims = [d for d in range(a.ndim) if a.shape[d] != 1]
    if any(a.strides[d] == 0 for d in dims):
        return False            # an expanded tensor: PyTorch lays the result out in order
    return sorted(dims, key=lambda d: -abs(a.strides[d])) != dims
