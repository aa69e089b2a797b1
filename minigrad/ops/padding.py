"""Padding: ``constant_pad_nd`` and the border-reading pads ``reflection_pad1d/2d/3d``,
``replication_pad1d/2d/3d`` with their backward ops (``reflection_pad1d_backward``...), the aten
ops ``F.pad`` dispatches to in PyTorch 2.13 (circular padding is a composite of slices and
``copy_`` in ``minigrad.nn.functional.pad``, as PyTorch's ``_pad_circular``).

``pad`` lists (left, right) pairs starting from the last dim. A reflect/replicate pad is a
gather of input positions (``_source``: for each output position along a padded dim, the input
position it reads); its backward adds each output gradient onto that position, in output
row-major order in the storage dtype, as PyTorch's CPU ``cpu_padding_backward`` kernel.
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import check_scalar
from .factory import _convert


@register_op("constant_pad_nd")
class ConstantPadNd(Function):
    """``constant_pad_nd(input, pad, value=0)``: ``input`` padded with ``value`` by the (left,
    right) pairs of ``pad`` from the last dim; negative pads crop (``F.pad`` mode "constant";
    node ``ConstantPadNdBackward0``, whose gradient is the opposite pad).

    Raises:
        RuntimeError: an odd ``pad`` length ("Length of pad must be even but instead it equals
            3"); more pairs than dims; a resulting size below zero.
    """

    _backward_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, input, pad, value=0):
        pad = tuple(int(p) for p in pad)
        if len(pad) % 2:
            raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
        n = input.ndim
        if len(pad) // 2 > n:
            raise RuntimeError("Length of pad should be no more than twice the number of "
                               f"dimensions of the input. Pad length is {len(pad)} while the "
                               f"input has {n} dimensions.")
        check_scalar(value, input.dtype)
        ctx.pad = pad
        shape = list(input.shape)
        src = [slice(None)] * n
        dst = [slice(None)] * n
        for k in range(len(pad) // 2):
            d = n - 1 - k
            lo, hi = pad[2 * k], pad[2 * k + 1]
            new = shape[d] + lo + hi
            if new < 0:
                raise RuntimeError(f"The input size {shape[d]}, plus negative padding {lo} and "
                                   f"{hi} resulted in a negative output size, which is invalid. "
                                   f"Check dimension {d} of your input.")
            src[d] = slice(max(-lo, 0), shape[d] - max(-hi, 0))
            dst[d] = slice(max(lo, 0), max(lo, 0) + max(shape[d] - max(-lo, 0) - max(-hi, 0),
                                                         0))
            shape[d] = new
        out = np.full(tuple(shape), _convert(np.asarray(value), input.dtype), input._data.dtype)
        if out.size:
            piece = input._data[tuple(src)]
            if piece.size:
                out[tuple(dst)] = piece
        return Tensor._make(out, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("constant_pad_nd", grad, tuple(-p for p in ctx.pad)), None, None


def _source(n, lo, hi, mode):
    """Input position read by each of the ``n + lo + hi`` output positions of one dim."""
    pos = np.arange(-lo, n + hi)
    if mode == "reflect":
        period = 2 * (n - 1)
        pos = np.abs(pos) % period if period else np.zeros_like(pos)
        pos = np.where(pos >= n, period - pos, pos)
    else:
        pos = np.clip(pos, 0, n - 1)
    return pos


_NOT_SUPPORTED = ("Supported combinations for non-constant padding:\n"
                  "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                  "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                  "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


class _BorderPad(Function):
    """A reflect/replicate pad of the last ``_k`` dims (``padding``: (left, right, top,
    bottom))."""

    _k = 1
    _mode = "reflect"
    _op = ""

    @classmethod
    def forward(cls, ctx, input, padding):
        padding = tuple(int(p) for p in padding)
        k = cls._k
        if input.ndim not in (k + 1, k + 2) or any(s == 0 for s in input.shape[-k - 1:]):
            want = {1: "2D or 3D", 2: "3D or 4D", 3: "4D or 5D"}[k]
            raise RuntimeError(f"Expected {want} (batch mode) tensor with possibly 0 batch size "
                               "and other non-zero dimensions for input, but got: "
                               f"{list(input.shape)}")
        if len(padding) != 2 * k:
            raise RuntimeError(f"padding size is expected to be {2 * k}, but got: "
                               f"{len(padding)}")
        shape = input.shape
        maps = []
        for j in range(k):
            d = input.ndim - 1 - j
            lo, hi = padding[2 * j], padding[2 * j + 1]
            n = shape[d]
            if cls._mode == "reflect" and (lo >= n or hi >= n):
                raise RuntimeError(f"Argument #4: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({lo}, "
                                   f"{hi}) at dimension {d} of input {list(shape)}")
            if n + lo + hi < 1:
                raise RuntimeError(f"input ({'x'.join(str(s) for s in shape[-k:])}) is too small. "
                                   f"Calculated output W: {n + lo + hi}")
            maps.insert(0, _source(n, lo, hi, cls._mode))
        ctx.padding, ctx.in_shape = padding, shape
        ctx.save_for_backward(input)            # as PyTorch: freed after backward
        grids = np.ix_(*maps)
        idx = (Ellipsis,) + tuple(grids)
        return Tensor._make(np.array(input._data[idx], order="C"), input.dtype)

    @classmethod
    def backward(cls, ctx, grad):
        ctx.saved_tensors                       # raises once the graph was freed, as PyTorch
        return dispatch(cls._op + "_backward", grad, ctx.in_shape, ctx.padding), None


class _BorderPadBackward(Function):
    _k = 1
    _mode = "reflect"
    _op = ""

    @classmethod
    def forward(cls, ctx, grad, input_shape, padding):
        ctx.padding = padding
        k = cls._k
        in_shape = tuple(input_shape)
        maps = [_source(in_shape[len(in_shape) - 1 - j], padding[2 * j], padding[2 * j + 1],
                        cls._mode) for j in range(k)][::-1]
        inner = in_shape[-k:]
        flat = np.ravel_multi_index(np.ix_(*maps), inner).reshape(-1)
        lead = in_shape[:-k]
        m = int(np.prod(lead, dtype=np.int64)) if lead else 1
        g2 = grad._data.reshape(m, int(np.prod(grad.shape[-k:], dtype=np.int64)))
        o2 = np.zeros((m, int(np.prod(inner, dtype=np.int64))), g2.dtype)
        np.add.at(o2, (np.arange(m)[:, None], flat[None, :]), g2)
        return Tensor._make(o2.reshape(in_shape), grad.dtype)

    @classmethod
    def backward(cls, ctx, gg):
        return dispatch(cls._op, gg, ctx.padding), None, None


def _pad_pair(name, k, mode, node):
    """Register the pad op ``name`` of the last ``k`` dims and its ``name_backward``."""
    fwd = type(name, (_BorderPad,), {
        "_k": k, "_mode": mode, "_op": name, "_backward_name": node,
        "__doc__": f"``{name}(input, padding)``: {mode} padding of the last {k} dim(s) "
                   f"(``F.pad`` mode \"{mode}\"; node ``{node}``).\n\n    Raises:\n        "
                   "RuntimeError: an input of the wrong number of dims or with an empty padded "
                   "dim; for reflect, a pad not smaller than its dim (PyTorch's messages)."})
    bwd = type(name + "_backward", (_BorderPadBackward,), {
        "_k": k, "_mode": mode, "_op": name, "_backward_name": node.replace("Backward0",
                                                                          "BackwardBackward0"),
        "__doc__": f"``{name}_backward(grad_output, input_sizes, padding)``: each output "
                   "gradient added onto the input position it was read from; its own gradient "
                   f"is ``{name}``."})
    register_op(name, fwd)
    register_op(name + "_backward", bwd)


for _k in (1, 2, 3):
    _pad_pair(f"reflection_pad{_k}d", _k, "reflect", f"ReflectionPad{_k}DBackward0")
    _pad_pair(f"replication_pad{_k}d", _k, "replicate", f"ReplicationPad{_k}DBackward0")


def not_supported(pad_len, ndim):
    """PyTorch's NotImplementedError message for a non-constant pad of an unsupported size."""
    return NotImplementedError(f"Padding size {pad_len} is not supported for {ndim}D input "
                               f"tensor.\n{_NOT_SUPPORTED}")
