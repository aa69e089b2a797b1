"""``PackedSequence`` (``torch.nn.utils.rnn.PackedSequence``) on its own, so the recurrent
layers can take one without importing ``nn.utils`` (re-exported there; see
``nn.utils.rnn`` for packing and unpacking)."""
from __future__ import annotations

from collections import namedtuple

from ..dispatch import dispatch
from ..dtypes import float16, float32, float64

__all__ = ["PackedSequence", "invert_permutation"]


class PackedSequence(namedtuple("PackedSequence_",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """A packed batch of variable-length sequences (``torch.nn.utils.rnn.PackedSequence``), a
    named tuple ``(data, batch_sizes, sorted_indices, unsorted_indices)``.

    Attributes:
        data: (sum(lengths), *) the steps, time-major.
        batch_sizes: int64 CPU tensor (max length,): sequences running at each step.
        sorted_indices: int64 (B,) or None: the batch order used to pack (index into the
            original batch).
        unsorted_indices: its inverse (``invert_permutation``), or None.

    Create one with ``pack_padded_sequence`` / ``pack_sequence``; a missing
    ``unsorted_indices`` is computed from ``sorted_indices``.

    Raises:
        ValueError: ``batch_sizes`` not on the CPU.
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence "
                             "should never be created manually. They should be instantiated by "
                             "functions like pack_sequence and pack_padded_sequences in "
                             "nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn."
                             "utils.rnn.pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """``data.to(...)``; the index tensors follow data's device; self if nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def move(t):
            return None if t is None else t.to(data.device)
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cpu(self):
        """The sequence with its data on the CPU."""
        return self.to("cpu")

    def cuda(self):
        """The sequence with its data on the (emulated) cuda device."""
        return self.to("cuda")

    def double(self):
        """data as float64."""
        return self.to(dtype=float64)

    def float(self):
        """data as float32."""
        return self.to(dtype=float32)

    def half(self):
        """data as float16."""
        return self.to(dtype=float16)

    @property
    def is_cuda(self):
        """True if data is on the cuda device."""
        return self.data.is_cuda


def invert_permutation(permutation):
    """The inverse permutation (``out[permutation[i]] = i``), or None for None."""
    if permutation is None:
        return None
    out = dispatch("empty_like", permutation)
    positions = dispatch("arange", 0, permutation.numel(), device=permutation.device)
    return out.scatter_(0, permutation, positions)
