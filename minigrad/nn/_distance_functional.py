"""Distances and similarities of ``minigrad.nn.functional`` (``F.normalize``,
``F.cosine_similarity``, ``F.pairwise_distance``), with ``torch.nn.functional``'s signatures;
``functional.py`` re-exports them. ``cosine_similarity`` and ``pairwise_distance`` are the ops of
those names (``minigrad/ops/distance.py``); ``normalize`` is composed as PyTorch's Python
function, ``pdist`` of row gathers and reductions.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "pdist"]


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim`` (``F.normalize``), composed as PyTorch:
    ``input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)``, then a division.

    Raises:
        NotImplementedError: ``out=`` (minigrad has no out= arguments).
        IndexError: ``dim`` out of range.
    """
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported by minigrad")
    denom = dispatch("clamp_min", input.norm(p, dim, keepdim=True), eps)
    return dispatch("div", input, dispatch("expand", denom, tuple(input.shape)))


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """Cosine similarity of ``x1`` and ``x2`` along ``dim`` (``F.cosine_similarity``); see the
    ``cosine_similarity`` op."""
    return dispatch("cosine_similarity", x1, x2, dim, eps)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """``||x1 - x2 + eps||_p`` over the last dim (``F.pairwise_distance``); see the
    ``pairwise_distance`` op."""
    return dispatch("pairwise_distance", x1, x2, p, eps, keepdim)


def pdist(input, p=2):
    """The p-norm distances between every pair of rows i < j of ``input`` (N, M), in row-major
    order of the pairs: shape (N (N - 1) / 2,) (``F.pdist``).

    Composite of dispatched ops (row gathers, ``abs``/``pow``/``sum``, ``sqrt`` for p=2,
    ``amax`` for p=inf, a nonzero count for p=0), so the graph has those nodes instead of
    PyTorch's fused ``PdistBackward0``; values agree to rounding.

    Raises:
        RuntimeError: not 2-d, not floating, or ``p`` < 0 (PyTorch's messages).
    """
    import math

    import numpy as np
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    from .. import dtypes as _dt
    from .._functional.factories import tensor
    rows, cols = np.triu_indices(input.shape[0], 1)
    i = tensor(rows.tolist(), dtype=_dt.int64, device=input.device)
    j = tensor(cols.tolist(), dtype=_dt.int64, device=input.device)
    diff = (input.index_select(0, i) - input.index_select(0, j)).abs()
    if p == 0:
        return (diff != 0).to(input.dtype).sum(-1)
    if p == 1:
        return diff.sum(-1)
    if math.isinf(p):
        return diff.amax(-1)
    total = (diff * diff).sum(-1) if p == 2 else diff.pow(p).sum(-1)
    # a zero distance has zero gradient, as PyTorch's kernel gives (the root's derivative is
    # infinite at 0): the root is taken of 1 there, and 0 returned
    from .._functional.selection import where
    zero = total == 0
    safe = where(zero, 1.0, total)
    root = safe.sqrt() if p == 2 else safe.pow(1.0 / p)
    return where(zero, 0.0, root)
