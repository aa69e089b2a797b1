"""Sorted-boundary search and distinct values as torch-level functions: ``torch.searchsorted``,
``torch.bucketize`` and ``torch.unique`` (the ops are in ``minigrad/ops/bucketing.py``; none is
differentiable).
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["searchsorted", "bucketize", "unique"]


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Insertion indices of ``input`` (a Tensor or a number) into the last dim of
    ``sorted_sequence`` (``torch.searchsorted``); ``right=True`` / ``side="right"`` counts equal
    boundaries as below; ``sorter`` gives the order of an unsorted ``sorted_sequence``.

    Raises:
        RuntimeError: PyTorch's messages (opposite ``side``/``right``, mismatched leading
            dims). NotImplementedError: ``out=``.
    """
    if out is not None:
        raise NotImplementedError("minigrad.searchsorted: out= is not supported")
    return dispatch("searchsorted", sorted_sequence, input, out_int32=out_int32, right=right,
                    side=side, sorter=sorter)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each element of ``input`` among the 1-D sorted ``boundaries``
    (``torch.bucketize``): ``right=False`` gives ``i`` with ``boundaries[i-1] < x <=
    boundaries[i]``, ``right=True`` ``boundaries[i-1] <= x < boundaries[i]``.

    Raises:
        RuntimeError: boundaries not 1-D. NotImplementedError: ``out=``.
    """
    if out is not None:
        raise NotImplementedError("minigrad.bucketize: out= is not supported")
    return dispatch("bucketize", input, boundaries, out_int32=out_int32, right=right)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of ``input`` (flattened, or the distinct slices along ``dim``), in
    ascending order (``torch.unique``; ``sorted=False`` also sorts, as PyTorch's CPU kernel).
    Returns the values, plus ``inverse`` (each element's index into them) and ``counts`` when
    asked, as a tuple in that order. Not differentiable.

    Raises:
        IndexError: ``dim`` out of range.
    """
    if dim is None:
        vals, inv, counts = dispatch("_unique2", input, sorted, return_inverse, return_counts)
    else:
        vals, inv, counts = dispatch("unique_dim", input, dim, sorted, return_inverse,
                                     return_counts)
    if not return_inverse and not return_counts:
        return vals
    out = (vals,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out
