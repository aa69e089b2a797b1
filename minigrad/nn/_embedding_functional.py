"""``F.embedding`` (re-exported by ``minigrad.nn.functional``): PyTorch's Python-level rules
(negative ``padding_idx``, ``max_norm`` renormalisation in place under ``no_grad``) around the
``embedding`` op (``minigrad/ops/embedding.py``)."""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ..dispatch import dispatch

__all__ = ["embedding"]


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
