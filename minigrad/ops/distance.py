"""Distances and similarities between vectors: ``pairwise_distance`` and ``cosine_similarity``
(composite ops, composed of dispatched ops as PyTorch's ``aten/src/ATen/native/Distance.cpp``).

Registered under their aten names so that autocast's policy sees them (``cosine_similarity`` is
on PyTorch's CUDA fp32 list). Deliberate difference: ``pairwise_distance`` takes the norm with
``linalg_vector_norm`` (node ``LinalgVectorNormBackward0``) where PyTorch calls ``at::norm``
(``NormBackward1``); the values are the same kernel's.
"""
from __future__ import annotations

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ._util import broadcast_shapes

__all__ = ["pairwise_distance", "cosine_similarity"]


def _check(x1, x2, op):
    for i, (t, nm) in enumerate(((x1, "x1"), (x2, "x2"))):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{nm}' (position {i + 1}) must be Tensor, not "
                            f"{type(t).__name__}")


@register_op("pairwise_distance")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False)`` = ``||x1 - x2 + eps||_p``
    over the last dim (``torch.pairwise_distance``, ``F.pairwise_distance``); x1 and x2
    broadcast.

    Raises:
        RuntimeError: shapes that do not broadcast; integer inputs (the norm's error).
    """
    _check(x1, x2, "pairwise_distance")
    innermost = max(x1.ndim, x2.ndim) - 1
    diff = dispatch("add", dispatch("sub", x1, x2), eps)
    return dispatch("linalg_vector_norm", diff, p, innermost if innermost >= 0 else None,
                    keepdim)


@register_op("cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``cosine_similarity(x1, x2, dim=1, eps=1e-8)`` = ``sum((x1 / max(|x1|, eps)) * (x2 /
    max(|x2|, eps)), dim)`` (``torch.cosine_similarity``, ``F.cosine_similarity``), as
    PyTorch 2.13's composite: integer inputs cast to the common dtype (floating ones kept, the
    ops promote), both broadcast, each divided by a clone of its 2-norm clamped at ``eps`` in
    place under no-grad, so a norm below ``eps`` still passes its gradient (as PyTorch's).

    Raises:
        RuntimeError: "expected common dtype to be floating point, yet common dtype is Long";
            shapes that do not broadcast. IndexError: ``dim`` out of range.
    """
    _check(x1, x2, "cosine_similarity")
    ct = _dt.result_type(x1, x2)
    if not ct.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{ct.scalar_name}")
    shape = broadcast_shapes(x1.shape, x2.shape)
    a = x1 if x1.dtype.is_floating_point else dispatch("_to_copy", x1, dtype=ct)
    b = x2 if x2.dtype.is_floating_point else dispatch("_to_copy", x2, dtype=ct)
    if tuple(a.shape) != shape:
        a = dispatch("expand", a, shape)
    if tuple(b.shape) != shape:
        b = dispatch("expand", b, shape)
    na = dispatch("clone", dispatch("linalg_vector_norm", a, 2, dim, True))
    nb = dispatch("clone", dispatch("linalg_vector_norm", b, 2, dim, True))
    with no_grad():
        dispatch("clamp_", na, eps, None)
        dispatch("clamp_", nb, eps, None)
    return dispatch("sum", dispatch("mul", dispatch("div", a, na), dispatch("div", b, nb)), dim)
