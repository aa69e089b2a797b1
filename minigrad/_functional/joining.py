"""Joining and splitting as torch-level functions: ``torch.cat``, ``torch.stack``,
``torch.block_diag`` (one op each) and ``torch.split``, ``chunk``, ``unbind`` (composed of dispatched ``index`` views); the
NumPy-style ``hstack``/``vstack``/``dstack``/``column_stack`` (``atleast_*d`` views, then one
``cat``) and ``hsplit``/``vsplit``/``dsplit`` (``tensor_split`` along dim 1 / 0 / 2).
"""
from __future__ import annotations

from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["cat", "concat", "concatenate", "stack", "split", "chunk", "unbind", "tensor_split", "hstack", "vstack",
           "row_stack", "dstack", "column_stack", "hsplit", "vsplit", "dsplit", "block_diag"]


def cat(tensors, dim=0):
    """Concatenate tensors along existing dim ``dim`` (``torch.cat``); dtypes promote; other
    dims must match.

    Raises:
        ValueError: empty sequence ("expected a non-empty list of Tensors").
        RuntimeError: sizes differ outside ``dim`` (PyTorch's message).
        IndexError: ``dim`` out of range.
        TypeError: ``tensors`` is not a sequence of Tensors.
    """
    return dispatch("cat", tensors, dim)


def concat(tensors, dim=0):
    """``torch.concat``: an alias of ``cat`` (its node, numerics and errors)."""
    return cat(tensors, dim)


def concatenate(tensors, axis=0):
    """``torch.concatenate``: an alias of ``cat`` with NumPy's keyword ``axis``."""
    return cat(tensors, axis)


def stack(tensors, dim=0):
    """Stack same-shape tensors along a new dim ``dim`` (``torch.stack``); dtypes promote.

    Raises:
        RuntimeError: empty sequence or shapes differ ("stack expects each tensor to be
            equal size").
        IndexError: ``dim`` out of range.
    """
    return dispatch("stack", tensors, dim)


def _check_split_input(name, input, dim):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim == 0:
        raise RuntimeError(f"{name} expects at least a 1-dimensional tensor")
    from ..ops._util import wrap_dim
    return wrap_dim(dim, input.ndim)


def _pieces(input, dim, sizes, op="split"):
    return dispatch(op, input, tuple(sizes), dim)


def split(tensor, split_size_or_sections, dim=0):
    """Split ``tensor`` along ``dim`` into views (``torch.split``): pieces of
    ``split_size_or_sections`` elements (the last may be smaller), or of the listed sizes,
    which must sum to the dimension's size. Returns a tuple of views with one ``SplitBackward0``
    (``SplitWithSizesBackward0`` for a list) node, as PyTorch.

    Raises:
        RuntimeError: a 0-dim tensor; a negative size; ``split_size`` 0 on a non-empty
            dimension; sections that do not sum to the size.
        IndexError: ``dim`` out of range.
    """
    dim = _check_split_input("split", tensor, dim)
    n = tensor.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={sizes}")
        return _pieces(tensor, dim, sizes, "split_with_sizes")
    s = int(split_size_or_sections)
    if s < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={s}")
    if s == 0 and n != 0:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")
    count = max(-(-n // s), 1) if s else 1
    return _pieces(tensor, dim, [min(s, n - i * s) for i in range(count)])


def chunk(input, chunks, dim=0):
    """Split ``input`` into ``chunks`` pieces of ``ceil(size / chunks)`` along ``dim``
    (``torch.chunk``); fewer pieces may come back; an empty dimension gives ``chunks`` empty
    pieces. Returns a tuple of views; gradients flow (see ``split``).

    Raises:
        RuntimeError: ``chunks`` <= 0 ("chunk expects `chunks` to be greater than 0, got: 0"),
            a 0-dim tensor. IndexError: ``dim`` out of range.
    """
    dim = _check_split_input("chunk", input, dim)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[dim]
    if n == 0:
        return _pieces(input, dim, [0] * chunks)
    return split(input, -(-n // chunks), dim)


def unbind(input, dim=0):
    """The slices of ``input`` along ``dim``, with that dimension removed (``torch.unbind``):
    a tuple of views with one ``UnbindBackward0`` node, as PyTorch.

    Raises:
        IndexError: a 0-dim tensor ("Dimension specified as 0 but tensor has no dimensions"),
            ``dim`` out of range.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"unbind(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return dispatch("unbind", input, dim)


def tensor_split(input, indices_or_sections, dim=0):
    """Split ``input`` along ``dim`` (``torch.tensor_split``): into ``n`` pieces when given an
    int (the first ``size % n`` one element longer), or at the given indices (clamped to the
    size; pieces may be empty). Returns a tuple of slices (``SliceBackward0``), as PyTorch.

    Raises:
        RuntimeError: a 0-dim input ("tensor_split expected at least a 1-dimensional tensor,
            but got a tensor with 0 dims"); ``n`` < 1 ("number of sections must be larger than
            0, got 0"). TypeError: neither an int, a sequence of ints nor a tensor.
        IndexError: ``dim`` out of range.
    """
    if isinstance(input, Tensor) and input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    dim = _check_split_input("tensor_split", input, dim)
    n = input.shape[dim]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        spec = spec.tolist() if spec.ndim == 1 else int(spec.item())
    if isinstance(spec, bool) or not isinstance(spec, (int, list, tuple)):
        raise TypeError("tensor_split() received an invalid combination of arguments - got "
                        f"(Tensor, {type(spec).__name__})")
    if isinstance(spec, int):
        if spec < 1:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        q, r = divmod(n, spec)
        bounds, start = [], 0
        for i in range(spec):
            stop = start + q + (1 if i < r else 0)
            bounds.append((start, stop))
            start = stop
    else:
        cuts = [min(max(int(c) if int(c) >= 0 else n + int(c), 0), n) for c in spec]
        edges = [0] + cuts + [n]
        bounds = [(edges[i], max(edges[i], edges[i + 1])) for i in range(len(edges) - 1)]
    return tuple(input.narrow(dim, a, b - a) for a, b in bounds)     # SliceBackward0 views


def _nonempty(name, tensors):
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def hstack(tensors):
    """Concatenate along dim 1, or dim 0 for 1-d tensors (``torch.hstack``); 0-d tensors are
    viewed as 1-d first.

    Raises:
        RuntimeError: an empty sequence; ``cat``'s errors.
    """
    from .shape import atleast_1d
    _nonempty("hstack", tensors)
    rep = atleast_1d(list(tensors))
    return cat(rep, 0 if rep[0].dim() == 1 else 1)


def vstack(tensors):
    """Concatenate along dim 0 after ``atleast_2d`` (``torch.vstack``; ``row_stack`` is the
    same).

    Raises:
        RuntimeError: an empty sequence; ``cat``'s errors.
    """
    from .shape import atleast_2d
    _nonempty("vstack", tensors)
    return cat(atleast_2d(list(tensors)), 0)


row_stack = vstack


def dstack(tensors):
    """Concatenate along dim 2 after ``atleast_3d`` (``torch.dstack``).

    Raises:
        RuntimeError: an empty sequence; ``cat``'s errors.
    """
    from .shape import atleast_3d
    _nonempty("dstack", tensors)
    return cat(atleast_3d(list(tensors)), 2)


def column_stack(tensors):
    """Stack 0-/1-d tensors as columns (N, 1) and concatenate everything along dim 1
    (``torch.column_stack``).

    Raises:
        RuntimeError: an empty sequence; ``cat``'s errors.
    """
    _nonempty("column_stack", tensors)
    cols = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors]
    return cat(cols, 1)


def _np_split(name, input, indices_or_sections, min_dim, dim):
    if input.dim() < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the split_size "
                               f"{indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 for a 1-d tensor) (``torch.hsplit``); an int
    number of sections must divide the size.

    Raises:
        RuntimeError: a 0-d input, or sections that do not divide (PyTorch's messages).
    """
    return _np_split("hsplit", input, indices_or_sections, 1, 0 if input.dim() == 1 else 1)


def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0 of an at least 2-d tensor (``torch.vsplit``).

    Raises:
        RuntimeError: fewer than 2 dims, or sections that do not divide.
    """
    return _np_split("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2 of an at least 3-d tensor (``torch.dsplit``).

    Raises:
        RuntimeError: fewer than 3 dims, or sections that do not divide.
    """
    return _np_split("dsplit", input, indices_or_sections, 3, 2)


def block_diag(*tensors):
    """A block-diagonal matrix of 0-, 1- and 2-D tensors (``torch.block_diag``), one dispatch
    of the ``block_diag`` op (node ``BlockDiagBackward0``); dtypes promote.

    Raises:
        TypeError: a non-Tensor argument. RuntimeError: a tensor of more than 2 dims.
    """
    return dispatch("block_diag", *tensors)
