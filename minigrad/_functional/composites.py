"""Torch-level functions that are composites in PyTorch too, each built from the dispatched ops
ATen composes it of (so autograd, numerics and modes see those ops):

- ``isposinf`` / ``isneginf``: ``input == inf`` / ``input == -inf`` (all False for integers);
- ``unique_consecutive``: the first element of each run of equal values (or slices along
  ``dim``), with the run index of every element and the run lengths;
- ``dist``: ``norm(input - other, p)``;
- ``diagflat``: ``input.contiguous().view(-1).diag(offset)``;
- ``msort``: ``sort(input, dim=0).values``;
- ``split_with_sizes``: ``split`` with a list of sizes;
- ``unravel_index``: flat indices -> a tuple of coordinate tensors (``torch/functional.py``);
- ``combinations``: ATen's ``meshgrid`` + triangular mask + ``masked_select`` + ``stack``;
- ``svd`` / ``qr``: the deprecated forms over ``linalg.svd`` / ``linalg.qr``, with their
  conventions (``svd`` returns ``V``, not ``Vh``; ``some=True`` gives the reduced factors);
- ``is_inference``: ``input.is_inference()``.
"""
from __future__ import annotations

import math
import warnings

from ..dispatch import dispatch

__all__ = ["isposinf", "isneginf", "unique_consecutive", "dist", "diagflat", "msort",
           "split_with_sizes", "unravel_index", "combinations", "svd", "qr", "is_inference"]


def _tensor_arg(fn, name, value, position=1):
    from ..tensor import Tensor
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def isposinf(input):
    """Bool tensor: where ``input`` is +inf (``torch.isposinf``); all False for integer and
    bool tensors."""
    _tensor_arg("isposinf", "input", input)
    if not input.dtype.is_floating_point:
        return dispatch("ne", input, input)          # all False, input's shape and device
    return dispatch("eq", input, math.inf)


def isneginf(input):
    """Bool tensor: where ``input`` is -inf (``torch.isneginf``); all False for integer and
    bool tensors."""
    _tensor_arg("isneginf", "input", input)
    if not input.dtype.is_floating_point:
        return dispatch("ne", input, input)
    return dispatch("eq", input, -math.inf)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of consecutive equal elements to one (``torch.unique_consecutive``).

    With ``dim=None`` ``input`` is flattened; otherwise runs of equal slices along ``dim`` are
    collapsed. Equality is ``!=``'s (each NaN is its own run, as PyTorch's CPU kernel).

    Returns:
        ``output``, plus ``inverse_indices`` (int64, ``input``'s shape, or ``(size(dim),)``:
        the run of each element) when ``return_inverse`` and ``counts`` (int64, each run's
        length) when ``return_counts``, as a tuple in that order. Not differentiable.

    Raises:
        IndexError: ``dim`` out of range.
    """
    from .factories import tensor, empty
    from .joining import cat
    from .reduction import cumsum
    from .. import int64
    _tensor_arg("unique_consecutive", "input", input)
    if dim is None:
        flat = input.reshape(-1)
        n = flat.shape[0]
        inverse_shape = input.shape
    else:
        dim = dim + input.dim() if dim < 0 else dim
        if not 0 <= dim < max(input.dim(), 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
        flat = input.movedim(dim, 0)
        n = flat.shape[0]
        flat = flat.reshape(n, -1)
        inverse_shape = (n,)
    if n == 0:
        output = flat if dim is None else input
        inv = empty(inverse_shape, dtype=int64, device=input.device)
        counts = empty(0, dtype=int64, device=input.device)
    else:
        changed = dispatch("ne", flat[1:], flat[:-1])
        if dim is not None:
            changed = changed.any(1)
        starts = cat([tensor([True], device=input.device), changed])
        first = starts.nonzero().reshape(-1)             # where each run starts
        output = flat[starts] if dim is None else input.index_select(dim, first)
        inv = (cumsum(starts, 0) - 1).reshape(inverse_shape)
        ends = cat([first[1:], tensor([n], device=input.device)])
        counts = ends - first
    if not return_inverse and not return_counts:
        return output
    return ((output,) + ((inv,) if return_inverse else ())
            + ((counts,) if return_counts else ()))


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (``torch.dist``; the two broadcast): ATen's
    ``norm(input - other, p)``, so values and gradients are the norm's. Deliberate difference:
    the graph's nodes are ``LinalgVectorNormBackward0`` and ``SubBackward0`` (PyTorch: one
    ``DistBackward0``, with the same formula)."""
    from .. import linalg
    _tensor_arg("dist", "input", input)
    return linalg.vector_norm(dispatch("sub", input, other), p)


def diagflat(input, offset=0):
    """A 2-D tensor with the flattened ``input`` on diagonal ``offset`` (``torch.diagflat``):
    ATen's ``input.contiguous().view(-1).diag(offset)``."""
    _tensor_arg("diagflat", "input", input)
    return input.contiguous().view(-1).diag(offset)


def msort(input):
    """``input`` sorted ascending along dim 0 (``torch.msort``: ``sort(input, 0).values``)."""
    _tensor_arg("msort", "input", input)
    return input.sort(0)[0]


def split_with_sizes(input, split_sizes, dim=0):
    """Views of ``input`` of the listed sizes along ``dim`` (``torch.split_with_sizes``):
    ``torch.split(input, list(split_sizes), dim)``.

    Raises:
        RuntimeError: sizes that are negative or do not sum to ``input.size(dim)``.
    """
    from .joining import split
    return split(input, list(split_sizes), dim)


def unravel_index(indices, shape):
    """Flat indices -> coordinates in an array of ``shape`` (``torch.unravel_index``, written
    as ``torch/functional.py`` writes it): a tuple of ``len(shape)`` int64 tensors of
    ``indices``' shape. Indices out of range wrap as PyTorch's (no check).

    Raises:
        TypeError: ``indices`` not an integer tensor, or ``shape`` not ints.
        ValueError: negative ``shape`` entries.
    """
    from ..tensor import Tensor
    from .factories import tensor
    from .. import int64
    if isinstance(indices, Tensor):
        if indices.dtype.is_floating_point or indices.dtype.name == "bool":
            raise TypeError(f"expected 'indices' to be integer dtype, but got "
                            f"{indices.dtype!r}".replace("minigrad.", "torch."))
    else:
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    from collections.abc import Sequence
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    shape = tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs = [1]
    for s in reversed(shape[1:]):
        coefs.append(coefs[-1] * s)
    coefs.reverse()
    # torch/functional.py: indices.unsqueeze(-1).floor_divide(coefs) % shape
    coords = (indices.unsqueeze(-1).floor_divide(tensor(coefs, dtype=int64, device=indices.device))
              % tensor(list(shape), dtype=int64, device=indices.device))
    return tuple(coords.unbind(-1))


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-D tensor's elements, as rows of an ``(N, r)``
    tensor (``torch.combinations``, like ``itertools.combinations`` /
    ``combinations_with_replacement``), built as ATen builds it: ``r`` meshgrid copies of
    ``input``, each masked where ``i < j < ...`` (``<=`` with replacement), stacked.

    Raises:
        RuntimeError: ``input`` not 1-D ("Expect a 1D vector, but got shape [2, 2]") or a
            negative ``r``.
    """
    from .factories import arange, empty, full
    from .joining import stack
    from .shape import meshgrid
    from .. import int64, bool_
    _tensor_arg("combinations", "input", input)
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=input.dtype, device=input.device)
    n = input.shape[0]
    index_grids = meshgrid(*[arange(n, dtype=int64, device=input.device)] * r, indexing="ij")
    mask = full(index_grids[0].shape, True, dtype=bool_, device=input.device)
    compare = "le" if with_replacement else "lt"
    for a, b in zip(index_grids[:-1], index_grids[1:]):
        mask = dispatch("mul", mask, dispatch(compare, a, b))
    grids = meshgrid(*[input] * r, indexing="ij")
    return stack([dispatch("masked_select", g, mask) for g in grids], 1)


def svd(input, some=True, compute_uv=True, *, out=None):
    """``(U, S, V)`` with ``input = U diag(S) V^H`` (``torch.svd``, deprecated in favour of
    ``torch.linalg.svd``): ``linalg.svd(input, full_matrices=not some)`` with ``V = Vh.mH``.
    ``compute_uv=False`` gives ``linalg.svdvals`` and zero-filled ``U`` (``m x m``) and ``V``
    (``n x n``). Returns a named tuple (``.U``, ``.S``, ``.V``).

    Raises:
        RuntimeError: fewer than 2 dims ("linalg.svd: input should have at least 2
            dimensions..."); NotImplementedError: ``out=``.
    """
    from .. import linalg
    from ..linalg import _Ret
    from .factories import zeros
    if out is not None:
        raise NotImplementedError("svd(out=...) is not supported")
    _tensor_arg("svd", "input", input)
    if input.dim() < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.dim()} dimensions instead")
    if compute_uv:
        U, S, Vh = linalg.svd(input, full_matrices=not some)
    else:
        S = linalg.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        U = zeros(batch + (m, m), dtype=input.dtype, device=input.device)
        Vh = zeros(batch + (n, n), dtype=input.dtype, device=input.device)
    return _Ret("svd", ("U", "S", "V"), (U, S, Vh.mH))


def qr(input, some=True, *, out=None):
    """``(Q, R)`` (``torch.qr``, deprecated: warns, as PyTorch once per process, to use
    ``torch.linalg.qr(A, 'reduced' if some else 'complete')``, which it calls). Returns a named
    tuple (``.Q``, ``.R``).

    Raises:
        NotImplementedError: ``out=``; the linalg op's errors otherwise.
    """
    global _qr_warned
    from .. import linalg
    from ..linalg import _Ret
    if out is not None:
        raise NotImplementedError("qr(out=...) is not supported")
    if not _qr_warned:
        _qr_warned = True
        warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed "
                      "in a future PyTorch release.\nThe boolean parameter 'some' has been "
                      "replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
                      "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some "
                      "else 'complete')", UserWarning, stacklevel=2)
    Q, R = linalg.qr(input, "reduced" if some else "complete")
    return _Ret("qr", ("Q", "R"), (Q, R))


_qr_warned = False


def is_inference(input):
    """Whether ``input`` was made under ``inference_mode`` (``torch.is_inference``).

    Raises:
        TypeError: ``input`` not a tensor (PyTorch's message).
    """
    _tensor_arg("is_inference", "input", input)
    return input.is_inference()
