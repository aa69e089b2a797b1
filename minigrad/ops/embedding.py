"""Embedding lookups: ``embedding``, its fused backward ``embedding_dense_backward`` and the
in-place ``embedding_renorm_`` (``max_norm``), as PyTorch's CPU kernels.

- ``embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)``:
  the rows ``weight[indices]`` (shape ``indices.shape + (embedding_dim,)``), node
  ``EmbeddingBackward0``.
- ``embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
  scale_grad_by_freq)``: ATen's CPU loop walks the indices in order and does
  ``grad_weight[k].add_(grad[i], scale)`` for each ``k = indices[i] != padding_idx``
  (``scale = 1 / count(k)`` with ``scale_grad_by_freq``). Each add rounds into the gradient's
  dtype, so a 16-bit gradient accumulates in 16 bits, one rounding per occurrence; we replay
  the adds occurrence by occurrence (every index's r-th occurrence at once), which reproduces
  the order exactly. With ``scale_grad_by_freq`` each add is the ``add`` kernel with
  ``alpha`` (fp32: an fma; 16-bit: its vector-body/tail recipe), applied row by row in a Python
  loop: slow for big batches, exact.
- ``embedding_renorm_(weight, indices, max_norm, norm_type)``: each distinct referenced row
  whose ``norm_type``-norm exceeds ``max_norm`` is scaled by ``max_norm / (norm + 1e-7)``; the
  norm is reduced in opmath and rounded to the weight's dtype (``row.norm(p).item()``), the
  scaling is one multiply by the opmath scale, as ATen's ``row *= scale``. Bit-exact in fp32;
  fp64 rows can differ by an ulp or so (PyTorch's vectorised norm sums in another order) and
  16-bit rows by one ulp on a few elements (PyTorch's 16-bit renorm differs even from its own
  ``row.norm()`` / ``row *= scale``; not reproduced).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..dispatch import dispatch, register_op
from ..tensor import Tensor
from ..autograd.grad_mode import _grad_state
from ..autograd.views import check_inplace
from ._util import opmath, wrap
from ._binary import add_kernel
from .inplace import _write, check_inference


def _check_indices(indices, fn):
    if not isinstance(indices, Tensor):
        raise TypeError(f"{fn}(): argument 'indices' must be Tensor, not "
                        f"{type(indices).__name__}")
    if indices.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got torch."
                           f"{indices.dtype.legacy_name} instead (while checking "
                           f"arguments for {fn})")


def _lookup_rows(weight, idx):
    n = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    return weight._data[idx]


@register_op("embedding")
class Embedding(Function):
    """``embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)``:
    rows of the 2-D ``weight`` picked by the int64/int32 ``indices`` (any shape). Rows at
    ``padding_idx`` get no gradient.

    Raises:
        RuntimeError: ``weight`` not 2-D ("'weight' must be 2-D"), indices of another dtype
            (PyTorch's "Expected tensor for argument #1 'indices'..." message).
        IndexError: an index outside ``[0, num_embeddings)`` ("index out of range in self").
        NotImplementedError: ``sparse=True`` with a weight that requires grad (sparse
            gradients are not implemented in minigrad).
    """

    _backward_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
        if weight.ndim != 2:
            raise RuntimeError("'weight' must be 2-D")
        _check_indices(indices, "embedding")
        if sparse and weight.requires_grad:
            raise NotImplementedError("embedding(sparse=True): sparse gradients are not "
                                      "implemented in minigrad; use sparse=False")
        rows = _lookup_rows(weight, indices._data.astype(np.int64))
        ctx.save_for_backward(indices)
        ctx.num_weights, ctx.padding_idx, ctx.by_freq = weight.shape[0], padding_idx, \
            scale_grad_by_freq
        return Tensor._make(np.ascontiguousarray(rows), weight.dtype)

    @staticmethod
    def backward(ctx, grad):
        indices, = ctx.saved_tensors
        gw = dispatch("embedding_dense_backward", grad, indices, ctx.num_weights,
                      ctx.padding_idx, ctx.by_freq)
        return gw, None, None, None, None


def _round(x, dt):
    """``x`` stored in ``dt`` and read back in opmath (a 16-bit accumulator's rounding)."""
    return x.astype(dt.np).astype(dt.opmath.np) if dt in (_dt.float16, _dt.bfloat16) else x


def _occurrence_rank(idx):
    """For each position, how many earlier positions hold the same index (0 for the first)."""
    order = np.argsort(idx, kind="stable")
    s = idx[order]
    start = np.r_[0, np.flatnonzero(s[1:] != s[:-1]) + 1] if s.size else np.zeros(0, int)
    first = np.repeat(start, np.diff(np.r_[start, s.size]))
    rank = np.empty_like(idx)
    rank[order] = np.arange(s.size) - first
    return rank


@register_op("embedding_dense_backward")
class EmbeddingDenseBackward(Function):
    """``embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
    scale_grad_by_freq)`` -> the (num_weights, D) weight gradient, accumulated in index order
    in the gradient's dtype (see the module docstring). Node
    ``EmbeddingDenseBackwardBackward0``: its gradient is ``grad[indices]`` with padding
    positions zeroed.
    """

    _backward_name = "EmbeddingDenseBackwardBackward0"

    @staticmethod
    def forward(ctx, grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
        dt = grad_output.dtype
        idx = indices._data.reshape(-1).astype(np.int64)
        d = grad_output.shape[-1] if grad_output.ndim else 1
        g = opmath(grad_output, dt).reshape(-1, d)
        keep = idx != padding_idx
        idx, g = idx[keep], g[keep]
        cd = dt.opmath.np
        out = np.zeros((num_weights, d), dtype=cd)
        scale = counts = None
        if scale_grad_by_freq:
            counts = np.bincount(idx, minlength=num_weights)
            scale = True
        if scale is not None:
            # grad_weight[k].add_(grad[i], alpha=1/count): the add kernel with alpha, row by row
            # (its 16-bit vector/tail recipe depends on the row length)
            inv = 1.0 / counts
            for i, k in enumerate(idx.tolist()):
                r = add_kernel(dt, out[k], g[i], alpha=float(inv[k]))
                out[k] = _round(r, dt)
        elif dt in (_dt.float16, _dt.bfloat16):
            rank = _occurrence_rank(idx)        # replay the rounded adds, r-th occurrences at once
            for r in range(int(rank.max()) + 1 if rank.size else 0):
                sel = rank == r
                k = idx[sel]
                out[k] = _round(out[k] + g[sel], dt)
        else:
            np.add.at(out, idx, g)          # sequential, in index order, in the dtype itself
        ctx.save_for_backward(indices)
        ctx.padding_idx = padding_idx
        return wrap(out, dt)

    @staticmethod
    def backward(ctx, grad):
        indices, = ctx.saved_tensors
        rows = dispatch("embedding", grad, indices, ctx.padding_idx)
        if ctx.padding_idx >= 0:
            pad = dispatch("eq", indices, ctx.padding_idx)
            rows = dispatch("masked_fill", rows, dispatch("unsqueeze", pad, -1), 0.0)
        return rows, None, None, None, None


@register_op("embedding_renorm_")
def embedding_renorm_(self, indices, max_norm, norm_type):
    """Rescale in place the rows of ``self`` that ``indices`` references whose ``norm_type``
    norm exceeds ``max_norm`` (``torch.embedding_renorm_``; ``F.embedding(max_norm=...)`` calls
    it under ``no_grad``). Returns self.

    Raises:
        RuntimeError: ``self`` not 2-D; bad indices dtype; autograd's in-place checks (a leaf
            that requires grad, in grad mode).
        IndexError: an index out of range.
    """
    if self.ndim != 2:
        raise RuntimeError("embedding_renorm_(): 'self' must be 2-D")
    _check_indices(indices, "embedding_renorm_")
    check_inference(self)
    if _grad_state.enabled and self.requires_grad:
        check_inplace(self)
    dt = self.dtype
    rows = np.unique(indices._data.astype(np.int64))
    _lookup_rows(self, rows)
    w = opmath(self._data[rows], dt)
    p = float(norm_type)
    a = np.abs(w)
    if p == np.inf:
        norm = a.max(axis=1)
    elif p == 2:
        norm = np.sqrt(np.sum(a * a, axis=1))
    elif p == 1:
        norm = np.sum(a, axis=1)
    else:
        norm = np.sum(a ** p, axis=1) ** (1.0 / p)
    norm = norm.astype(dt.np).astype(np.float64)       # .item() of a norm in self's dtype
    big = norm > max_norm
    if big.any():
        scale = (max_norm / (norm[big] + 1e-7)).astype(dt.opmath.np)[:, None]
        new = self._data.copy()
        new[rows[big]] = (w[big] * scale).astype(dt.np)
        _write(self, new)
    return self
