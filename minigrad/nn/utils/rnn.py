"""Batching variable-length sequences (``torch.nn.utils.rnn``): ``pad_sequence``.

``PackedSequence`` and ``pack_padded_sequence`` are not provided (the recurrent layers take
padded batches)."""
from __future__ import annotations

from collections.abc import Iterable

from ...dispatch import dispatch
from ...tensor import Tensor

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shapes (L_i, *) into one padded tensor
    (``torch.nn.utils.rnn.pad_sequence``).

    Built as PyTorch's ATen ``pad_sequence`` is: ``full`` of the output shape with
    ``padding_value`` (the first sequence's dtype and device), then each sequence ``copy_``-ed
    into its slice, so the result is differentiable with respect to every sequence (graph node
    ``CopySlices``) and a later sequence is cast into the first one's dtype (and broadcast to
    its trailing shape, as ``copy_`` does).

    Args:
        sequences: an iterable of Tensors (a Tensor is iterated over its first dim).
        batch_first: output (B, T, *) when True, else (T, B, *); T is the longest L_i.
        padding_value: the value of the padded positions.
        padding_side: "right" (sequences start at position 0) or "left" (they end at T).

    Returns:
        The padded Tensor.

    Raises:
        RuntimeError: ``sequences`` not iterable; empty; a bad ``padding_side``; a 0-dim first
            sequence; trailing shapes that do not broadcast to the first one's (``copy_``'s
            message).
        TypeError: an element that is not a Tensor.
        IndexError: a later 0-dim sequence.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for i, seq in enumerate(sequences):
        if not isinstance(seq, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(seq).__name__}")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    for seq in sequences[1:]:
        if seq.dim() == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    max_len = max(seq.shape[0] for seq in sequences)
    batch = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = dispatch("full", batch + tuple(first.shape[1:]), padding_value, dtype=first.dtype,
                   device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.shape[0]
        span = slice(0, length) if padding_side == "right" else slice(max_len - length, max_len)
        target = out[i, span] if batch_first else out[span, i]
        target.copy_(seq)
    return out
