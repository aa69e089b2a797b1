"""Moving and copying elements as torch-level functions: ``torch.roll``, ``flip``, ``tile``,
``repeat_interleave``, ``tril``, ``triu``, ``diag``, ``diag_embed``. Each is a ``dispatch`` of
the op (``minigrad/ops/rearrange.py``) or the composition PyTorch records (``tile`` is
``repeat``; ``repeat_interleave`` with an int is ``unsqueeze``/``expand``/``clone``/``view``,
with a tensor ``index_select`` of ``repeat_interleave.Tensor``).
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["roll", "flip", "fliplr", "flipud", "tile", "repeat_interleave", "tril", "triu", "diag", "diag_embed"]


def roll(input, shifts, dims=None):
    """Elements shifted circularly by ``shifts`` along ``dims`` (over the flattened tensor when
    ``dims`` is None; ``torch.roll``).

    Raises:
        RuntimeError: shifts and dims of different lengths; IndexError: a dim out of range.
    """
    return dispatch("roll", input, shifts, () if dims is None else dims)


def flip(input, dims):
    """Elements reversed along ``dims`` (``torch.flip``; a copy).

    Raises:
        RuntimeError: a repeated dim; IndexError: a dim out of range.
    """
    return dispatch("flip", input, (dims,) if isinstance(dims, int) else tuple(dims))


def fliplr(input):
    """``flip`` along dim 1 (``torch.fliplr``; a copy).

    Raises:
        RuntimeError: fewer than 2 dims ("Input must be >= 2-d.", PyTorch's message).
    """
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return dispatch("flip", input, (1,))


def flipud(input):
    """``flip`` along dim 0 (``torch.flipud``; a copy).

    Raises:
        RuntimeError: a 0-d input ("Input must be >= 1-d.", PyTorch's message).
    """
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return dispatch("flip", input, (0,))


def tile(input, dims):
    """``input`` repeated ``dims[i]`` times along each dim (``torch.tile``): ``repeat`` with
    ``dims`` padded with leading 1s up to ``input.ndim``, as PyTorch.

    Raises:
        RuntimeError: a negative repeat.
    """
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return dispatch("repeat", input, dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place
    (``torch.repeat_interleave``). ``repeats`` is an int or a tensor (one count per slice, or
    a single count); ``dim=None`` works on the flattened input. ``repeat_interleave(repeats)``
    (a tensor alone) returns the indices ``i`` repeated ``repeats[i]`` times.

    Raises:
        RuntimeError: a negative repeat ("Repeats must be non-negative"), a repeats tensor whose
            length differs from the dim ("repeats must have the same size as input along dim,
            but got repeats.size(0) = 2 and input.size(0) = 3"), or of more than 1 dim; an
            ``output_size`` that does not match.
    """
    if repeats is None:
        return dispatch("repeat_interleave.Tensor", input, output_size=output_size)
    from ..ops._util import wrap_dim
    if dim is None:
        input = dispatch("reshape", input, (-1,))
        dim = 0
    d = wrap_dim(dim, input.ndim)
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        size = input.shape[d] if input.ndim else 1
        if repeats.numel() == 1:
            repeats = dispatch("expand", dispatch("reshape", repeats, (1,)), (size,))
        elif repeats.shape[0] != size:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.shape[0]} and input.size({d}) = "
                               f"{size}")
        idx = dispatch("repeat_interleave.Tensor", repeats, output_size=output_size)
        return dispatch("index_select", input, d, idx)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = tuple(input.shape)
    total = (shape[d] if shape else 1) * repeats
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but got "
                           f"{output_size}")
    x = dispatch("unsqueeze", input, d + 1)
    x = dispatch("expand", x, shape[:d + 1] + (repeats,) + shape[d + 1:])
    x = dispatch("clone", x)
    return dispatch("view", x, shape[:d] + (total,) + shape[d + 1:])


def tril(input, diagonal=0):
    """Lower triangle of the last two dims (``torch.tril``).

    Raises:
        RuntimeError: fewer than 2 dims.
    """
    return dispatch("tril", input, diagonal)


def triu(input, diagonal=0):
    """Upper triangle of the last two dims (``torch.triu``).

    Raises:
        RuntimeError: fewer than 2 dims.
    """
    return dispatch("triu", input, diagonal)


def diag(input, diagonal=0):
    """``torch.diag``: of a 1-D input, the square matrix with it on diagonal ``diagonal``
    (``diag_embed``); of a 2-D input, that diagonal as a new 1-D tensor (``diagonal_copy``),
    the ops PyTorch records.

    Raises:
        RuntimeError: another number of dims ("diag(): Supports 1D or 2D tensors. Got 3D").
    """
    if input.ndim == 1:
        return dispatch("diag_embed", input, diagonal, 0, 1)
    if input.ndim == 2:
        return dispatch("diagonal_copy", input, diagonal, 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor with one more dim whose diagonal over ``dim1``/``dim2`` holds ``input``'s last
    dim (``torch.diag_embed``).

    Raises:
        RuntimeError: ``dim1 == dim2``; IndexError: a dim out of range.
    """
    return dispatch("diag_embed", input, offset, dim1, dim2)

