"""Batching variable-length sequences (``torch.nn.utils.rnn``): ``pad_sequence`` /
``unpad_sequence``, and packing: ``PackedSequence``, ``pack_padded_sequence``,
``pad_packed_sequence``, ``pack_sequence``, ``unpack_sequence``, ``invert_permutation``.

A padded batch (T, B, *) wastes work on the padding; a *packed* one stores only the real steps,
time-major: ``data`` (sum of lengths, *) holds step 0 of every sequence, then step 1 of those
still running, and so on, with ``batch_sizes[t]`` the number of sequences at step t. That needs
the batch sorted by decreasing length, so ``enforce_sorted=False`` sorts it and records
``sorted_indices`` (and the inverse ``unsorted_indices``, used to put the batch back). The
recurrent layers (``nn.RNN``/``LSTM``/``GRU``) take a PackedSequence and return one, with each
sequence's final state taken at its own last step.
"""
from __future__ import annotations

from collections.abc import Iterable

from ..._functional.factories import as_tensor
from ..._functional.sorting import sort
from ...dispatch import dispatch
from ...dtypes import int64
from ...tensor import Tensor
from .._packed import PackedSequence, invert_permutation

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


def _as_lengths(lengths):
    if not isinstance(lengths, Tensor):
        return as_tensor(lengths, dtype=int64, device="cpu")
    return lengths.to(dtype=int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (``torch.nn.utils.rnn.pack_padded_sequence``).

    Args:
        input: (T, B, *) padded sequences ((B, T, *) with ``batch_first``).
        lengths: the B lengths (a list or a 1-D int64 CPU tensor), each in 1..T.
        batch_first: the layout of ``input``.
        enforce_sorted: lengths must be decreasing; when False the batch is sorted first
            (``sorted_indices`` records the order, undone by ``pad_packed_sequence``).

    Returns:
        A PackedSequence; its data is gathered with dispatched ops (indexing and ``cat``), so
        it is differentiable with respect to ``input``.

    Raises:
        RuntimeError: lengths not 1-D; an empty input; len(lengths) != B; a length <= 0;
            unsorted lengths with ``enforce_sorted`` (PyTorch's messages).
    """
    lengths = _as_lengths(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lengths.dim() != 1 or lengths.device.type != "cpu":
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D {lengths.device} Long tensor")
    if batch_first:
        input = input.transpose(0, 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input.size(1)
    lens = lengths.tolist()
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    data = dispatch("cat", [input[t, :bs] for t, bs in enumerate(batch_sizes)], 0)
    sizes = as_tensor(batch_sizes, dtype=int64, device="cpu")
    return PackedSequence(data, sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo ``pack_padded_sequence`` (``torch.nn.utils.rnn.pad_packed_sequence``).

    Args:
        sequence: a PackedSequence.
        batch_first: return (B, T, *) instead of (T, B, *).
        padding_value: the value of the padded positions.
        total_length: pad to this T (at least the longest length) instead of the longest.

    Returns:
        (padded Tensor, lengths int64 CPU tensor), in the original batch order.

    Raises:
        ValueError: ``total_length`` shorter than the longest sequence (PyTorch's message).
    """
    sizes = sequence.batch_sizes.tolist()
    max_len = len(sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_len}")
        max_len = total_length
    data = sequence.data
    batch = sizes[0]
    out = dispatch("full", (max_len, batch) + tuple(data.shape[1:]), padding_value,
                   dtype=data.dtype, device=data.device)
    offset = 0
    for t, bs in enumerate(sizes):
        out[t, :bs].copy_(data[offset:offset + bs])
        offset += bs
    lengths = as_tensor([sum(1 for bs in sizes if bs > b) for b in range(batch)],
                       dtype=int64, device="cpu")
    if batch_first:
        out = out.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        return (out.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices.cpu()])
    return out, lengths


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


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into its sequences (``torch.nn.utils.rnn.unpad_sequence``).

    Args:
        padded_sequences: (T, B, *) ((B, T, *) with ``batch_first``).
        lengths: the B lengths.

    Returns:
        A list of B Tensors of shapes (L_i, *). Unlike PyTorch, ``padded_sequences`` is not
        transposed in place (PyTorch's ``transpose_`` on the caller's tensor is a side
        effect, not part of the result).
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences of shapes (L_i, *) (``torch.nn.utils.rnn.pack_sequence``):
    ``pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=...)``."""
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences in a PackedSequence, original order
    (``torch.nn.utils.rnn.unpack_sequence``)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
