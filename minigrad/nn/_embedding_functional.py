"""``F.embedding`` and ``F.embedding_bag`` (re-exported by ``minigrad.nn.functional``):
PyTorch's Python-level rules (negative ``padding_idx``, ``max_norm`` renormalisation in place
under ``no_grad``, a 2-d input as fixed-length bags, argument checks) around the ``embedding``
and ``embedding_bag`` ops (``minigrad/ops/embedding.py``, ``embedding_bag.py``)."""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..dispatch import dispatch

__all__ = ["embedding", "embedding_bag"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False):
    """Look up the rows of ``weight`` (num_embeddings, D) at the int64/int32 ``input`` indices:
    output ``input.shape + (D,)`` (``F.embedding``).

    ``padding_idx`` (negative counts from the end) gets no gradient; ``max_norm`` first
    rescales, in place, the referenced rows whose ``norm_type``-norm exceeds it;
    ``scale_grad_by_freq`` divides each row's gradient by its count in ``input``.

    Raises:
        AssertionError: ``padding_idx`` outside ``[-num_embeddings, num_embeddings)``
            ("Padding_idx must be within num_embeddings"), as PyTorch.
        NotImplementedError: ``sparse=True`` with a weight that requires grad (no sparse
            gradients in minigrad).
        RuntimeError / IndexError: the ``embedding`` op's errors.
    """
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        with no_grad():
            dispatch("embedding_renorm_", weight, input, max_norm, norm_type)
    return dispatch("embedding", weight, input, padding_idx, scale_grad_by_freq, sparse)


_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False,
                  padding_idx=None):
    """Sums, means or maxima of bags of embeddings, without building the (n, D) rows
    (``F.embedding_bag``).

    Bags: a 2-d ``input`` (B, L) is B bags of L indices (``offsets`` must be None); a 1-d
    ``input`` (n,) is cut into bags where ``offsets`` (B,) start (with ``include_last_offset``
    the last offset ends the last bag: B + 1 offsets). ``mode``: "sum", "mean" or "max" over
    each bag's rows of ``weight`` (num_embeddings, D); ``per_sample_weights`` (input's shape,
    weight's dtype) scales each row first, "sum" only. Indices equal to ``padding_idx``
    (negative counts from the end) are left out of their bag and of mean's count; an empty bag
    gives a row of zeros. ``max_norm`` first renormalises the referenced rows in place, as
    ``F.embedding``. Output (B, D) in weight's dtype.

    Raises:
        ValueError: weight not 2-D; offsets given with a 2-d input, missing or not 1-d with a
            1-d input; input not 1-d/2-d; an unknown mode; max mode with
            ``scale_grad_by_freq`` or ``sparse``; per_sample_weights of another shape than
            input (PyTorch's messages).
        NotImplementedError: per_sample_weights with mode other than "sum" (PyTorch's
            message); ``sparse=True`` when a gradient is computed (no sparse tensors here).
        RuntimeError: the ``_embedding_bag`` op's checks (dtypes, ``offsets[0] != 0``, an index
            out of range, ``padding_idx`` out of range).
    """
    if weight.dtype in (_dt.int64,) and input.dtype.is_floating_point:
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != \
            tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights "
                         f"({_size(per_sample_weights)}) is not None, then it must have the "
                         f"same shape as the input ({_size(input)})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {type(offsets)}")
        if input.size(1) == 0:
            raise RuntimeError("step must be nonzero")
        offsets = dispatch("arange", 0, input.numel(), input.size(1), dtype=input.dtype,
                           device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with no_grad():
            dispatch("embedding_renorm_", weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    return dispatch("embedding_bag", weight, input, offsets, scale_grad_by_freq, _MODES[mode],
                    sparse, per_sample_weights, include_last_offset, padding_idx)[0]


def _size(t):
    return "torch.Size([" + ", ".join(str(s) for s in t.shape) + "])"
