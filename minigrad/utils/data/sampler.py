"""Samplers (mirrors ``torch.utils.data.sampler``): the order in which a ``DataLoader`` visits a
map-style dataset.

A sampler is an iterable of indices; ``BatchSampler`` groups one into lists of indices. The
``DataLoader`` builds ``SequentialSampler`` (or ``RandomSampler`` with ``shuffle=True``) wrapped in
a ``BatchSampler`` when given none.

Deliberate difference: random samplers draw from minigrad's generators (NumPy's PCG64), so the
same seed gives other indices than PyTorch's mt19937; how many numbers are drawn, and when, follow
PyTorch (a fresh seed from the global generator per epoch when no ``generator`` is given, random
indices drawn 32 at a time with replacement). Given the same indices, batches equal PyTorch's.
"""
from __future__ import annotations

import itertools
from typing import Generic, Iterable, Iterator, Sequence, Sized, TypeVar

from ...dtypes import float64, int64
from ..._functional.factories import as_tensor, empty, randint, randperm
from ..._functional.sampling import multinomial
from ...random import Generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)

def _draw_seed(generator=None) -> int:
    """One 63-bit seed drawn from ``generator`` (the global generator when None), as PyTorch's
    ``torch.empty((), dtype=torch.int64).random_(generator=...)`` (a 64-bit word mod 2**63)."""
    return int(empty((), dtype=int64).random_(generator=generator).item())


class Sampler(Generic[T_co]):
    """Base class of samplers (``torch.utils.data.Sampler``): subclasses define ``__iter__``
    yielding indices (or lists of indices, for a batch sampler) and usually ``__len__``.

    Generic like PyTorch's (``Sampler[int]``); takes no constructor arguments, as PyTorch 2.2+.
    """

    def __iter__(self) -> Iterator[T_co]:
        """The indices.

        Raises:
            NotImplementedError: always, in the base class.
        """
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1`` (``torch.utils.data.SequentialSampler``).

    Args:
        data_source: anything with ``len``.
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        """The indices in order."""
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        """``len(data_source)``."""
        return len(self.data_source)


def _epoch_generator(generator):
    """``generator``, or (PyTorch's rule for ``generator=None``) a fresh Generator seeded from
    one draw of the global generator, so each epoch is a new permutation."""
    if generator is not None:
        return generator
    return Generator().manual_seed(_draw_seed())


class RandomSampler(Sampler[int]):
    """Random indices into ``data_source`` (``torch.utils.data.RandomSampler``).

    Without replacement: one permutation per ``len(data_source)`` samples, the last one cut at
    ``num_samples``. With replacement: ``num_samples`` independent uniform indices.

    Args:
        data_source: anything with ``len``.
        replacement: draw with replacement (default False).
        num_samples: how many indices per epoch (default ``len(data_source)``).
        generator: a ``minigrad.Generator``; None draws a fresh seed from the global generator at
            each ``iter``.

    Raises:
        TypeError: ``replacement`` not a bool.
        ValueError: ``num_samples`` not a positive int (also an empty ``data_source``).
    """

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples=None,
                 generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """``num_samples`` as given, or ``len(data_source)``."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        """The indices of one epoch."""
        n = len(self.data_source)
        generator = _epoch_generator(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), dtype=int64, generator=generator).tolist()
            yield from randint(0, n, (self.num_samples % 32,), dtype=int64,
                               generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        """``num_samples``."""
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order, without replacement
    (``torch.utils.data.SubsetRandomSampler``).

    Args:
        indices: a sequence of indices.
        generator: a ``minigrad.Generator`` (None: the global one).
    """

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        """``indices`` permuted."""
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        """``len(indices)``."""
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices in ``[0, len(weights))`` drawn with probability proportional to
    ``weights`` (``torch.utils.data.WeightedRandomSampler``).

    Args:
        weights: a 1-d sequence (or tensor) of non-negative weights, not necessarily summing
            to 1; stored as a float64 tensor ``self.weights``.
        num_samples: how many indices per epoch.
        replacement: with replacement (default True); without, an index appears at most once.
        generator: a ``minigrad.Generator`` (None: the global one).

    Raises:
        ValueError: ``num_samples`` not a positive int, ``replacement`` not a bool, ``weights``
            not 1-d.
        RuntimeError: when iterated, ``torch.multinomial``'s errors: a negative/NaN or infinite
            weight, weights summing to 0, ``num_samples > len(weights)`` without replacement.

    The draw is the ``multinomial`` op, as PyTorch's (its algorithm and errors; minigrad's
    random stream).
    """

    def __init__(self, weights, num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        """The indices of one epoch."""
        yield from multinomial(self.weights, self.num_samples, self.replacement,
                               generator=self.generator).tolist()

    def __len__(self) -> int:
        """``num_samples``."""
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups the indices of ``sampler`` into lists of ``batch_size``
    (``torch.utils.data.BatchSampler``).

    Args:
        sampler: any iterable of indices (may be infinite).
        batch_size: indices per batch.
        drop_last: drop a last, shorter batch.

    Raises:
        ValueError: ``batch_size`` not a positive int or ``drop_last`` not a bool.

    Example:
        ``list(BatchSampler(SequentialSampler(range(10)), 3, False))`` is
        ``[[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]``.
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list]:
        """Lists of ``batch_size`` indices (the last one shorter unless ``drop_last``)."""
        it = iter(self.sampler)
        batch = list(itertools.islice(it, self.batch_size))
        while batch and (len(batch) == self.batch_size or not self.drop_last):
            yield batch
            batch = list(itertools.islice(it, self.batch_size))

    def __len__(self) -> int:
        """The number of batches (needs ``len(sampler)``)."""
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
