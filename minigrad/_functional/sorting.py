"""Order statistics as torch-level functions: ``torch.sort``, ``torch.argsort``,
``torch.topk``, ``torch.kthvalue``, ``torch.median``; each is one ``dispatch`` call
(``argsort`` is ``sort``'s indices, as PyTorch's composite ``argsort``)."""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["sort", "argsort", "topk", "kthvalue", "median"]


def sort_call(op, input, args, stable, dim, descending):
    """PyTorch's two signatures of sort/argsort, ``(input, dim=-1, descending=False)`` and
    ``(input, *, stable, dim=-1, descending=False)`` -> ``(op name, args)`` (``sort`` or
    ``sort.stable``, whose node is ``SortBackward1``).

    Raises:
        TypeError: ``stable=`` with a positional dim or descending (as PyTorch's parser).
    """
    if len(args) > 2:
        raise TypeError(f"{op}() takes from 1 to 3 positional arguments but {len(args) + 1} "
                        "were given")
    if stable is not None and args:
        raise TypeError(f"{op}() received an invalid combination of arguments - got (Tensor, "
                        f"{', '.join(type(a).__name__ for a in args)}, stable=bool), but expected "
                        "(Tensor input, *, bool stable, int dim = -1, bool descending = False)")
    if args:
        dim = args[0] if dim is None else dim
        descending = args[1] if len(args) > 1 else descending
    dim = -1 if dim is None else dim
    descending = bool(descending) if descending is not None else False
    if stable is None:
        return "sort", (input, dim, descending)
    return "sort.stable", (input, bool(stable), dim, descending)


def sort(input, *args, stable=None, dim=None, descending=None):
    """``(values, indices)`` sorted along ``dim`` (``torch.sort(input, dim=-1,
    descending=False)`` or ``torch.sort(input, *, stable, dim=-1, descending=False)``): NaN
    last (first when ``descending``); ties keep input order with ``stable=True``, and
    otherwise come out in the order PyTorch's CPU ``std::sort`` leaves them (see
    ``minigrad.ops.sorting``).

    Raises:
        IndexError: ``dim`` out of range. TypeError: ``stable=`` with a positional dim.
    """
    name, a = sort_call("sort", input, args, stable, dim, descending)
    return dispatch(name, *a)


def argsort(input, *args, stable=None, dim=None, descending=None):
    """int64 indices that sort ``input`` along ``dim`` (``torch.argsort``, both signatures of
    ``sort``): ``sort``'s indices."""
    name, a = sort_call("argsort", input, args, stable, dim, descending)
    return dispatch(name, *a)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) along ``dim``
    (``torch.topk``).

    Raises:
        RuntimeError: ``k`` out of range ("selected index k out of range"); bool input.
    """
    return dispatch("topk", input, k, dim, largest, sorted)


def kthvalue(input, k, dim=-1, keepdim=False):
    """``(values, indices)`` of the ``k``-th smallest along ``dim`` (``torch.kthvalue``).

    Raises:
        RuntimeError: ``k`` outside ``[1, size]``. IndexError: ``dim`` out of range.
    """
    return dispatch("kthvalue", input, k, dim, keepdim)


def median(input, dim=None, keepdim=False):
    """The lower median of all elements (0-dim), or ``(values, indices)`` along ``dim``
    (``torch.median``); NaN propagates.

    Raises:
        IndexError: an empty reduced dim, ``dim`` out of range.
    """
    return dispatch("median", input, dim, keepdim)
