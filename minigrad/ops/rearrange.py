"""Ops that move or copy elements without arithmetic: ``roll``, ``flip``, ``repeat``,
``tril``/``triu``, ``diag_embed``, the views ``diagonal`` and ``unfold`` (with their backward
ops ``diagonal_backward`` / ``unfold_backward``), ``diagonal_copy`` (``torch.diag`` of a
matrix) and ``repeat_interleave.Tensor`` (the index vector behind ``repeat_interleave``).

Views (``diagonal``, ``unfold``) share storage with their input, as PyTorch's, through NumPy
strides (``_strided_view``); their outputs carry autograd's view metadata, so in-place ops on
them record ``CopySlices``. Backward formulas as ``tools/autograd/derivatives.yaml``.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..autograd.views import ViewFunction
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import wrap_dim, wrap_dims
from .shape import _view_of


# ------------------------------------------------------------------ roll / flip
@register_op("roll")
class Roll(Function):
    """``roll(input, shifts, dims=())``: elements shifted circularly along ``dims`` (with no
    dims, over the flattened tensor, shape kept) (``torch.roll``; node ``RollBackward0``, whose
    gradient is the opposite roll).

    Raises:
        RuntimeError: shifts and dims of different lengths ("shifts and dimensions must align.
            shifts: 2, dims:1"); IndexError: a dim out of range.
    """

    _backward_name = "RollBackward0"

    @staticmethod
    def forward(ctx, input, shifts, dims=()):
        shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(dims) != len(shifts) and not (len(dims) == 0 and len(shifts) == 1):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:{len(dims)}")
        ctx.shifts, ctx.dims = shifts, dims
        if input.numel() == 0:          # PyTorch: an empty tensor is cloned, dims unchecked
            return Tensor._make(input._data.copy(), input.dtype)
        if dims and input.ndim == 0:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        ctx.shifts, ctx.dims = shifts, dims
        data = input._data
        if not dims:
            out = np.roll(data.reshape(-1), shifts[0]).reshape(data.shape)
        else:
            axes = tuple(wrap_dim(d, input.ndim) for d in dims)
            out = np.roll(data.reshape(data.shape or (1,)), shifts, axes).reshape(data.shape)
        return Tensor._make(np.array(out, order="C"), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("roll", grad, tuple(-s for s in ctx.shifts), ctx.dims), None, None


@register_op("flip")
class Flip(Function):
    """``flip(input, dims)``: elements in reverse order along ``dims`` (a copy, as PyTorch's
    ``torch.flip``; node ``FlipBackward0``).

    Raises:
        RuntimeError: a repeated dim ("dim 0 appears multiple times in the list of dims");
            IndexError: a dim out of range.
    """

    _backward_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, input, dims):
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        axes = wrap_dims(dims, input.ndim) if dims else ()
        ctx.dims = dims
        data = input._data
        out = np.flip(data.reshape(data.shape or (1,)), axes).reshape(data.shape) if axes \
            else data.copy()
        return Tensor._make(np.array(out, order="C"), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("flip", grad, ctx.dims), None


# ------------------------------------------------------------------ repeat
@register_op("repeat")
class Repeat(Function):
    """``repeat(input, repeats)``: the tensor tiled ``repeats[i]`` times along each dim;
    ``repeats`` may be longer than ``input.ndim`` (new leading dims) (``Tensor.repeat``; node
    ``RepeatBackward0``, whose gradient sums the tiles).

    Raises:
        RuntimeError: fewer repeats than dims ("Number of dimensions of repeat dims can not be
            smaller than number of dimensions of tensor"); a negative repeat ("Trying to create
            tensor with negative dimension -4: [6, -4]").
    """

    _backward_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, input, repeats):
        repeats = tuple(int(r) for r in repeats)
        if len(repeats) < input.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than "
                               "number of dimensions of tensor")
        shape = (1,) * (len(repeats) - input.ndim) + tuple(input.shape)
        target = [s * r for s, r in zip(shape, repeats)]
        for t in target:
            if t < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {t}: "
                                   f"{target}")
        ctx.repeats, ctx.in_shape = repeats, input.shape
        out = np.tile(input._data.reshape(shape), repeats) if repeats else input._data.copy()
        return Tensor._make(np.array(out, order="C"), input.dtype)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's repeat_backward: the new leading dims summed one at a time (each sum
        # rounded), then one sum over the repeat dims of a [repeat, size, ...] reshape
        reps, in_shape = ctx.repeats, tuple(ctx.in_shape)
        if 0 in reps:
            return dispatch("zeros", in_shape, dtype=grad.dtype), None
        lead = len(reps) - len(in_shape)
        for _ in range(lead):
            grad = dispatch("sum", grad, 0)
        split, sum_dims = [], []
        for r, s in zip(reps[lead:], in_shape):
            if r != 1:
                split.append(r)
                sum_dims.append(len(split) - 1)
            split.append(s)
        grad = dispatch("reshape", grad, tuple(split))
        if sum_dims:
            grad = dispatch("sum", grad, tuple(sum_dims))
        return grad, None


@register_op("repeat_interleave.Tensor")
class RepeatInterleaveIndex(Function):
    """``repeat_interleave(repeats, *, output_size=None)``: ``i`` repeated ``repeats[i]``
    times (int64; ``torch.repeat_interleave(repeats)``), the index vector
    ``repeat_interleave(input, repeats_tensor, dim)`` selects with.

    Raises:
        RuntimeError: a negative repeat ("repeats can not be negative"); a repeats tensor of
            more than one dim ("repeat_interleave only accept 1D vector as repeat"); a float
            one ("repeats has to be Long or Int tensor").
    """

    @staticmethod
    def forward(ctx, repeats, output_size=None):
        if repeats.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if repeats.dtype not in (_dt.int64, _dt.int32):
            raise RuntimeError("repeats has to be Long or Int tensor")
        r = repeats._data.reshape(-1).astype(np.int64)
        if r.size and r.min() < 0:
            raise RuntimeError("repeats can not be negative")
        out = np.repeat(np.arange(r.size, dtype=np.int64), r)
        if output_size is not None and output_size != out.size:
            raise RuntimeError("allocated size does not match required size")
        return Tensor._make(out, repeats.dtype)

    @staticmethod
    def backward(ctx, grad):
        return None, None


# ------------------------------------------------------------------ triangles
class _Triangle(Function):
    _np = None

    @classmethod
    def forward(cls, ctx, input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{cls._op}: input tensor must have at least 2 dimensions")
        ctx.diagonal = diagonal
        return Tensor._make(cls._np(input._data, diagonal), input.dtype)

    @classmethod
    def backward(cls, ctx, grad):
        return dispatch(cls._op, grad, ctx.diagonal), None


@register_op("tril")
class Tril(_Triangle):
    """``tril(input, diagonal=0)``: the lower triangle of the last two dims (elements with
    ``col - row <= diagonal``), zeros elsewhere (``torch.tril``; node ``TrilBackward0``).

    Raises:
        RuntimeError: fewer than 2 dims ("tril: input tensor must have at least 2 dimensions").
    """

    _backward_name = "TrilBackward0"
    _op = "tril"
    _np = staticmethod(np.tril)


@register_op("triu")
class Triu(_Triangle):
    """``triu(input, diagonal=0)``: the upper triangle (``col - row >= diagonal``), as ``tril``
    (``torch.triu``; node ``TriuBackward0``)."""

    _backward_name = "TriuBackward0"
    _op = "triu"
    _np = staticmethod(np.triu)


# ------------------------------------------------------------------ diagonals
def _diag_dims(ndim, offset, dim1, dim2):
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diagonal_view(arr, offset, d1, d2):
    """A writable NumPy view of the diagonal of ``arr`` over dims ``d1``/``d2`` (last dim)."""
    n1, n2 = arr.shape[d1], arr.shape[d2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    if length:
        idx = [slice(None)] * arr.ndim
        if offset >= 0:
            idx[d2] = slice(offset, None)
        else:
            idx[d1] = slice(-offset, None)
        arr = arr[tuple(idx)]
    keep = [k for k in range(arr.ndim) if k not in (d1, d2)]
    shape = tuple(arr.shape[k] for k in keep) + (length,)
    strides = tuple(arr.strides[k] for k in keep) + (arr.strides[d1] + arr.strides[d2],)
    return np.lib.stride_tricks.as_strided(arr, shape, strides)


@register_op("diagonal")
class Diagonal(ViewFunction):
    """``diagonal(input, offset=0, dim1=0, dim2=1)``: a view of the diagonal over ``dim1`` and
    ``dim2`` (``offset`` > 0 above it), appended as the last dim (``torch.diagonal``; node
    ``DiagonalBackward0``).

    Raises:
        RuntimeError: ``dim1 == dim2`` ("diagonal dimensions cannot be identical 1, 1");
            IndexError: a dim out of range.
    """

    _backward_name = "DiagonalBackward0"

    @staticmethod
    def forward(ctx, input, offset=0, dim1=0, dim2=1):
        d1, d2 = _diag_dims(input.ndim, offset, dim1, dim2)
        ctx.args = (input.shape, offset, d1, d2)
        return _view_of(input, _diagonal_view(input._data, offset, d1, d2))

    @staticmethod
    def backward(ctx, grad):
        return dispatch("diagonal_backward", grad, *ctx.args), None, None, None


@register_op("diagonal_copy")
class DiagonalCopy(Function):
    """``diagonal_copy(input, offset=0, dim1=0, dim2=1)``: the diagonal as a new tensor (what
    ``torch.diag`` of a matrix records; node ``DiagonalBackward0_copy``)."""

    _backward_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, input, offset=0, dim1=0, dim2=1):
        d1, d2 = _diag_dims(input.ndim, offset, dim1, dim2)
        ctx.args = (input.shape, offset, d1, d2)
        return Tensor._make(np.array(_diagonal_view(input._data, offset, d1, d2), order="C"),
                            input.dtype)

    backward = Diagonal.backward


@register_op("diagonal_backward")
class DiagonalBackward(Function):
    """``diagonal_backward(grad, input_sizes, offset, dim1, dim2)``: zeros of ``input_sizes``
    with ``grad`` on the diagonal; its own gradient is ``diagonal``."""

    _backward_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, input_sizes, offset, dim1, dim2):
        ctx.args = (offset, dim1, dim2)
        out = np.zeros(tuple(input_sizes), grad._data.dtype)
        _diagonal_view(out, offset, dim1, dim2)[...] = grad._data
        return Tensor._make(out, grad.dtype)

    @staticmethod
    def backward(ctx, gg):
        return dispatch("diagonal", gg, *ctx.args), None, None, None, None


@register_op("diag_embed")
class DiagEmbed(Function):
    """``diag_embed(input, offset=0, dim1=-2, dim2=-1)``: a tensor with one more dim whose
    diagonal over ``dim1``/``dim2`` holds the last dim of ``input`` (zeros elsewhere;
    ``torch.diag_embed``; node ``DiagEmbedBackward0``, whose gradient is ``diagonal``).

    Raises:
        RuntimeError: ``dim1 == dim2``; IndexError: a dim out of range (of ``input.ndim + 1``).
    """

    _backward_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, input, offset=0, dim1=-2, dim2=-1):
        n = input.ndim + 1
        d1, d2 = _diag_dims(n, offset, dim1, dim2)
        ctx.args = (offset, d1, d2)
        lead = list(input.shape[:-1])
        size = (input.shape[-1] if input.ndim else 1) + abs(offset)
        shape = lead[:]
        for d in sorted((d1, d2)):
            shape.insert(d, size)
        out = np.zeros(tuple(shape), input._data.dtype)
        _diagonal_view(out, offset, d1, d2)[...] = input._data
        return Tensor._make(out, input.dtype)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("diagonal", grad, *ctx.args), None, None, None


# ------------------------------------------------------------------ unfold (sliding windows)
def _check_unfold(input, dim, size, step):
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return d, (n - size) // step + 1


@register_op("unfold")
class Unfold(ViewFunction):
    """``unfold(input, dimension, size, step)``: a view of all windows of ``size`` elements,
    ``step`` apart, along ``dimension`` (which becomes the number of windows; the window is a
    new last dim) (``Tensor.unfold``; node ``UnfoldBackward0``).

    Raises:
        RuntimeError: a window longer than the dim ("maximum size for tensor at dimension 1 is
            4 but size is 5"), a step that is not positive ("step is 0 but must be > 0").
    """

    _backward_name = "UnfoldBackward0"

    @staticmethod
    def forward(ctx, input, dimension, size, step):
        d, count = _check_unfold(input, dimension, size, step)
        ctx.args = (input.shape, d, size, step)
        data = input._data
        if data.ndim == 0:
            arr = data.reshape(1)
            return _view_of(input, np.lib.stride_tricks.as_strided(arr, (size,), (0,)))
        shape = list(data.shape)
        strides = list(data.strides)
        shape[d] = count
        strides[d] = data.strides[d] * step
        arr = np.lib.stride_tricks.as_strided(data, tuple(shape) + (size,),
                                              tuple(strides) + (data.strides[d],))
        return _view_of(input, arr)

    @staticmethod
    def backward(ctx, grad):
        return dispatch("unfold_backward", grad, *ctx.args), None, None, None


@register_op("unfold_backward")
class UnfoldBackward(Function):
    """``unfold_backward(grad, input_sizes, dim, size, step)``: the windows' gradients added
    back onto the input's positions (overlapping windows accumulate, in window order); its own
    gradient is ``unfold``."""

    _backward_name = "UnfoldBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, input_sizes, dim, size, step):
        ctx.args = (dim, size, step)
        shape = tuple(input_sizes)
        out = np.zeros(shape or (1,), grad._data.dtype)
        g = grad._data
        if not shape:
            out[0] = g.reshape(-1)[:size].sum() if size else 0
            return Tensor._make(out.reshape(()), grad.dtype)
        dst = np.moveaxis(out, dim, -1)
        src = np.moveaxis(g, dim, -2)           # (..., windows, size)
        for w in range(src.shape[-2]):
            dst[..., w * step:w * step + size] += src[..., w, :]
        return Tensor._make(out, grad.dtype)

    @staticmethod
    def backward(ctx, gg):
        return dispatch("unfold", gg, *ctx.args), None, None, None, None
