"""Distances and similarities of ``minigrad.nn.functional`` (``F.normalize``,
``F.cosine_similarity``, ``F.pairwise_distance``), with ``torch.nn.functional``'s signatures;
``functional.py`` re-exports them. ``cosine_similarity`` and ``pairwise_distance`` are the ops of
those names (``minigrad/ops/distance.py``); ``normalize`` is composed as PyTorch's Python
function.
"""
from __future__ import annotations

from ..dispatch import dispatch

__all__ = ["normalize", "cosine_similarity", "pairwise_distance"]


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
