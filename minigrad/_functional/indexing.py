"""Gathering and scattering by index tensors as torch-level functions: ``torch.gather``,
``scatter``, ``scatter_add``, ``scatter_reduce``, ``index_select``, ``index_add``,
``index_copy``, ``index_fill``, ``masked_select``, ``masked_scatter``, ``take_along_dim``,
``nonzero``, ``take``, ``index_put`` / ``index_put_``. Each is a ``dispatch`` of the op (``minigrad/ops/gather_scatter.py``,
``index_dim.py``, ``masked.py``) or, where PyTorch's function is composite, the same
composition of dispatched ops.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..dispatch import dispatch
from ..tensor import Tensor

__all__ = ["argwhere", "gather", "scatter", "scatter_add", "scatter_reduce", "index_select",
           "index_add", "index_reduce", "index_copy", "index_fill", "masked_select",
           "masked_scatter", "take_along_dim", "nonzero", "take", "index_put", "index_put_"]


def gather(input, dim, index, *, sparse_grad=False):
    """``input``'s values at ``index`` along ``dim`` (``torch.gather``); output of
    ``index``'s shape.

    Raises:
        RuntimeError: an index that is not int32/int64, of another number of dims, larger than
            ``input`` outside ``dim``, or out of range.
    """
    return dispatch("gather", input, dim, index, sparse_grad)


def _scatter_op(src, value, inplace):
    """The scatter overload for a ``src`` tensor or a number ``value``."""
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    s = value if src is None else src
    if isinstance(s, Tensor):
        return ("scatter_.src" if inplace else "scatter.src"), s
    return ("scatter_.value" if inplace else "scatter.value"), s


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``input`` with ``src`` (a tensor, or a number: ``value``) written at ``index`` along
    ``dim`` (``torch.scatter``). ``reduce`` ("add" / "multiply", deprecated by PyTorch)
    combines instead of writing and is not differentiable.

    Raises:
        RuntimeError: ``src`` of another dtype, an unknown ``reduce``, index errors as
            ``gather``.
    """
    op, s = _scatter_op(src, value, False)
    if reduce is not None:
        return dispatch(op.replace(".src", ".reduce").replace(".value", ".value_reduce"),
                        input, dim, index, s, reduce)
    return dispatch(op, input, dim, index, s)


def scatter_add(input, dim, index, src):
    """``input`` with ``src`` added at ``index`` along ``dim`` (``torch.scatter_add``).

    Raises:
        RuntimeError: as ``scatter``.
    """
    return dispatch("scatter_add", input, dim, index, src)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``src`` reduced into ``input`` at ``index`` along ``dim`` by "sum", "prod", "mean",
    "amax" or "amin" (``torch.scatter_reduce``).

    Raises:
        RuntimeError: an unknown ``reduce``; errors of ``scatter``.
    """
    return dispatch("scatter_reduce.two", input, dim, index, src, reduce,
                    include_self=include_self)


def index_select(input, dim, index):
    """The slices of ``input`` along ``dim`` listed by the 1-D ``index``
    (``torch.index_select``).

    Raises:
        RuntimeError: an index that is not int32/int64 or out of range; IndexError: a 2-D index.
    """
    return dispatch("index_select", input, dim, index)


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` slices added at ``index`` along ``dim``
    (``torch.index_add``).

    Raises:
        RuntimeError: ``source`` of another dtype or slice shape, index errors.
    """
    return dispatch("index_add", input, dim, index, source, alpha)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with the slices of ``source`` reduced into the slices at ``index`` along
    ``dim`` by "prod", "mean", "amax" or "amin" (``torch.index_reduce``; ``out=`` is not
    supported).

    Raises:
        RuntimeError: an unknown ``reduce``, ``source`` of another dtype or slice shape, an
            index of another dtype. IndexError: an index out of range, a 2-D index.
    """
    return dispatch("index_reduce", input, dim, index, source, reduce,
                    include_self=include_self)


def index_copy(input, dim, index, source):
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``'s
    (``torch.index_copy``).

    Raises:
        RuntimeError: an index that is not int64, ``source`` of another dtype; IndexError: an
            index count that differs from ``source.size(dim)``.
    """
    return dispatch("index_copy", input, dim, index, source)


def _fill_op(value, inplace=False):
    """The index_fill overload for a number or a 0-dim tensor ``value``."""
    kind = "int_Tensor" if isinstance(value, Tensor) else "int_Scalar"
    return f"index_fill{'_' if inplace else ''}.{kind}"


def index_fill(input, dim, index, value):
    """``input`` with the slices at ``index`` along ``dim`` set to ``value`` (a number, or a
    0-dim tensor that gets a gradient; ``torch.index_fill``).

    Raises:
        IndexError: an index that is not int64 or out of range; RuntimeError: a value tensor
            with dims.
    """
    return dispatch(_fill_op(value), input, dim, index, value)


def masked_select(input, mask):
    """1-D tensor of ``input``'s elements where the bool ``mask`` is True
    (``torch.masked_select``; both broadcast).

    Raises:
        RuntimeError: a non-bool mask, shapes that do not broadcast.
    """
    return dispatch("masked_select", input, mask)


def masked_scatter(input, mask, source):
    """``input`` with ``source``'s leading elements written where ``mask`` is True
    (``torch.masked_scatter``).

    Raises:
        RuntimeError: a non-bool mask, ``source`` of another dtype or too small.
    """
    return dispatch("masked_scatter", input, mask, source)


def take_along_dim(input, indices, dim=None):
    """Values of ``input`` at ``indices`` along ``dim`` (``torch.take_along_dim``): as PyTorch,
    ``gather`` of ``input`` and ``indices`` broadcast to each other outside ``dim``, indices
    taken modulo the dim's size (so negative ones count from the end); with ``dim=None``,
    ``gather`` of the flattened tensors.

    Raises:
        RuntimeError: indices that are not int64 ("torch.take_along_dim(): dtype of indices
            should be Long but got Float"), of another number of dims, shapes that do not
            broadcast; IndexError: ``dim`` out of range.
    """
    if indices.dtype is not _dt.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.scalar_name}")
    if dim is None:
        return dispatch("gather", dispatch("view", input, (-1,)), 0,
                        dispatch("view", indices, (-1,)))
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    from ..ops._util import broadcast_shapes, wrap_dim
    d = wrap_dim(dim, input.ndim)
    sizes = list(input.shape)
    if sizes:
        sizes[d] = indices.shape[d]
    shape = list(broadcast_shapes(tuple(sizes), tuple(indices.shape)))
    idx = dispatch("expand", indices, tuple(shape))
    if shape:
        shape[d] = input.shape[d]
    x = dispatch("expand", input, tuple(shape))
    size = input.shape[d] if input.ndim else 1
    return dispatch("gather", x, d, dispatch("remainder", idx, size))


def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements (``torch.nonzero``): an int64 ``(N, ndim)`` tensor,
    or with ``as_tuple=True`` one 1-D tensor per dim (a 0-dim input gives one tensor).

    Raises:
        TypeError: ``out=`` (not supported here).
    """
    if out is not None:
        raise TypeError("nonzero(): out= is not supported by minigrad")
    res = dispatch("nonzero", input)
    if not as_tuple:
        return res
    if input.ndim == 0:
        return (dispatch("reshape", res, (-1,)) if res.shape[0] == 0 else
                dispatch("zeros", (1,), dtype=_dt.int64),)
    return dispatch("unbind", res, 1)


def argwhere(input):
    """The indices of the nonzero elements, (n, input.dim()) int64 (``torch.argwhere``, the
    same as ``torch.nonzero``)."""
    return dispatch("nonzero", input)


def take(input, index):
    """``input``'s elements at the flat indices ``index``, in ``index``'s shape
    (``torch.take``): the ``take`` op (``minigrad/ops/put.py``; its errors apply)."""
    return dispatch("take", input, index)


def _index_tuple(indices, name):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 2) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    return tuple(indices)


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written at ``indices`` (a tuple of index tensors, one per
    leading dim), repeated positions summed when ``accumulate`` (``torch.index_put``): the
    ``index_put`` op, node ``IndexPutBackward0``.

    Raises:
        TypeError: ``indices`` not a tuple/list. RuntimeError / IndexError: as ``input[indices]
            = values`` (dtypes must match, shapes broadcast, indices in range).
    """
    return dispatch("index_put", input, _index_tuple(indices, "index_put"), values,
                    accumulate=accumulate)


def index_put_(input, indices, values, accumulate=False):
    """In-place ``index_put`` (``torch.index_put_``); returns ``input``."""
    return dispatch("index_put_", input, _index_tuple(indices, "index_put_"), values,
                    accumulate=accumulate)
