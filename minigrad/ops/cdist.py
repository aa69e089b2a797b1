"""Pairwise distances (``torch.cdist``): ``_cdist_forward`` and ``_euclidean_dist``.

``_cdist_forward`` computes ``||x1_i - x2_j||_p`` directly, as PyTorch's small-input path;
``torch.cdist`` takes PyTorch's matrix-product path (``_euclidean_dist``, a composite:
``|x|^2 - 2 x.y + |y|^2``) for ``p = 2`` with more than 25 rows, as PyTorch decides.

Deliberate difference: PyTorch's ``_cdist_backward`` is an op of its own; here the gradient of
``_cdist_forward`` is composed of dispatched ops (the same formula per norm).
"""
from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ._util import LOW as _LOW, broadcast_shapes, wrap
from .matrix_functions import _mm, _mT, _tensor


# ------------------------------------------------------------------------------ cdist
_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
          "donot_use_mm_for_euclid_dist": 2}


def _cdist_check(x1, x2, p, kernel=True):
    _tensor(x1, "cdist", "x1", 1)
    _tensor(x2, "cdist", "x2", 2)
    for t, nm in ((x1, "X1"), (x2, "X2")):
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {nm} got: {t.ndim}D")
    for t, nm in ((x1, "X1"), (x2, "X2")):
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {nm} got: "
                               f"{t.dtype.scalar_name}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if kernel and (x1.dtype in _LOW or x1.dtype.is_float8):      # the direct kernel only
        raise NotImplementedError(f'"cdist" not implemented for \'{x1.dtype.scalar_name}\'')
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype.scalar_name} but found "
                           f"{x2.dtype.scalar_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")


def _cdist_batch(x1, x2):
    """The broadcast batch shape and both inputs expanded to it."""
    batch = broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    return batch, tuple(batch) + tuple(x1.shape[-2:]), tuple(batch) + tuple(x2.shape[-2:])


@register_op("_cdist_forward")
class CdistForward(Function):
    """``_cdist_forward(x1, x2, p, compute_mode)`` (behind ``torch.cdist``): ``out[..., i, j] =
    ||x1[..., i, :] - x2[..., j, :]||_p`` for ``x1`` ``(*, P, M)`` and ``x2`` ``(*, R, M)``
    (batch dims broadcast): ``p = 0`` counts non-zero differences, ``inf`` takes the largest.
    Computed directly in the input's dtype (PyTorch's non-matrix-product path; its sums run in
    vector lanes, hence an ULP bound in float32). ``CdistBackward0``: PyTorch's
    ``_cdist_backward`` per norm (0 where a distance is 0).

    Raises:
        RuntimeError: fewer than 2 dims, integer inputs, column counts that differ, dtypes
            that differ, ``p < 0`` (PyTorch's messages). NotImplementedError: 16-bit.
    """

    _backward_name = "CdistBackward0"

    @staticmethod
    def forward(ctx, x1, x2, p, compute_mode=None):
        _cdist_check(x1, x2, p)
        batch, s1, s2 = _cdist_batch(x1, x2)
        a = np.broadcast_to(x1._data, s1)[..., :, None, :]
        b = np.broadcast_to(x2._data, s2)[..., None, :, :]
        with np.errstate(all="ignore"):
            diff = np.abs(a - b)
            if p == 0:
                out = np.count_nonzero(diff, axis=-1).astype(diff.dtype)
            elif p == 1:
                out = diff.sum(-1)
            elif p == 2:
                out = np.sqrt((diff * diff).sum(-1))
            elif p == float("inf"):
                out = diff.max(-1, initial=0)
            else:
                out = np.power(np.power(diff, p).sum(-1), 1.0 / p)
        res = wrap(np.ascontiguousarray(out, dtype=x1._data.dtype), x1.dtype)
        ctx.p = p
        ctx.save_for_backward(x1, x2, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        x1, x2, dist = ctx.saved_tensors
        g1 = _cdist_backward(grad, x1, x2, ctx.p, dist) if ctx.needs_input_grad[0] else None
        g2 = None
        if ctx.needs_input_grad[1]:
            g2 = _cdist_backward(_mT(grad), x2, x1, ctx.p, _mT(dist))
        return g1, g2


def _cdist_backward(grad, x1, x2, p, dist):
    """PyTorch's ``_cdist_backward`` for ``x1``: ``sum_j grad_ij * d||x1_i - x2_j||_p /
    dx1_i``, 0 where the distance is 0 (and for ``p = 0``)."""
    if p == 0:
        return dispatch("zeros_like", x1)
    diff = dispatch("sub", dispatch("unsqueeze", x1, -2), dispatch("unsqueeze", x2, -3))
    g = dispatch("unsqueeze", grad, -1)
    d = dispatch("unsqueeze", dist, -1)
    zero = dispatch("eq", d, 0)
    if p == 1:
        term = dispatch("mul", dispatch("sign", diff), g)
    elif p == 2:
        term = dispatch("where", zero, 0.0, dispatch("div", dispatch("mul", g, diff), d))
    elif p == float("inf"):
        hit = dispatch("eq", dispatch("abs", diff), d)
        term = dispatch("where", hit, dispatch("mul", dispatch("sign", diff), g), 0.0)
    elif p < 2:
        num = dispatch("mul", dispatch("sign", diff), dispatch("pow.Tensor_Scalar",
                                                               dispatch("abs", diff),
                                                               p - 1))
        q = dispatch("div", dispatch("mul", num, g), dispatch("pow.Tensor_Scalar", d, p - 1))
        term = dispatch("where", dispatch("logical_or", zero, dispatch("eq", diff, 0)), 0.0, q)
    else:
        num = dispatch("mul", diff, dispatch("pow.Tensor_Scalar", dispatch("abs", diff), p - 2))
        q = dispatch("div", dispatch("mul", num, g), dispatch("pow.Tensor_Scalar", d, p - 1))
        term = dispatch("where", zero, 0.0, q)
    return dispatch("sum", term, -2)


@register_op("_euclidean_dist")
def euclidean_dist(x1, x2):
    """``_euclidean_dist(x1, x2)``: PyTorch's matrix-product Euclidean distances, a composite:
    ``[-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T``, clamped at 0, square-rooted (faster for many
    rows, less accurate where points are close)."""
    n1 = dispatch("sum", dispatch("pow.Tensor_Scalar", x1, 2), -1, True)
    n2 = dispatch("sum", dispatch("pow.Tensor_Scalar", x2, 2), -1, True)
    a = dispatch("cat", [dispatch("mul", x1, -2), n1, dispatch("ones_like", n1)], -1)
    b = dispatch("cat", [x2, dispatch("ones_like", n2), n2], -1)
    return dispatch("sqrt", dispatch("clamp_min", _mm(a, _mT(b)), 0))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """``torch.cdist``: pairwise ``p``-norm distances between the rows of ``x1`` ``(*, P, M)``
    and ``x2`` ``(*, R, M)`` -> ``(*, P, R)``. As PyTorch: for ``p = 2`` with more than 25
    rows on either side (or ``compute_mode='use_mm_for_euclid_dist'``), the matrix-product
    composite ``_euclidean_dist`` on the batch-expanded inputs; otherwise ``_cdist_forward``.

    Raises:
        ValueError: an unknown ``compute_mode``; RuntimeError: as ``_cdist_forward``.
    """
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _MODES[compute_mode]
    _tensor(x1, "cdist", "x1", 1)
    _tensor(x2, "cdist", "x2", 2)
    r1, r2 = (x1.shape[-2], x2.shape[-2]) if x1.ndim > 1 and x2.ndim > 1 else (0, 0)
    direct = x1.numel() == 0 or x2.numel() == 0 or not (
        p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))))
    _cdist_check(x1, x2, p, kernel=direct)
    if direct:
        return dispatch("_cdist_forward", x1, x2, p, None if mode == 0 else mode)
    batch, s1, s2 = _cdist_batch(x1, x2)
    a = x1 if tuple(x1.shape) == s1 else dispatch("expand", x1, s1)
    b = x2 if tuple(x2.shape) == s2 else dispatch("expand", x2, s2)
    return dispatch("_euclidean_dist", a, b)
