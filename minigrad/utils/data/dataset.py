"""Datasets (mirrors ``torch.utils.data.dataset``): what a ``DataLoader`` reads samples from.

Two kinds, as in PyTorch:

- *map-style* (``Dataset``): ``dataset[i]`` returns sample ``i`` and ``len(dataset)`` the count;
  a sampler chooses the indices;
- *iterable-style* (``IterableDataset``): ``iter(dataset)`` streams the samples; no sampler.

``TensorDataset``, ``StackDataset``, ``ConcatDataset``, ``ChainDataset`` and ``Subset`` combine
datasets; ``random_split`` cuts one into random non-overlapping ``Subset`` s.
"""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, Sequence, TypeVar

from ..._functional.factories import randperm
from ...random import default_generator

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``)
    (``torch.utils.data.Dataset``).

    A subclass may also define ``__getitems__(indices) -> list of samples`` to fetch a whole
    batch at once; the ``DataLoader`` then calls it instead of one ``__getitem__`` per index.
    ``dataset_a + dataset_b`` is ``ConcatDataset([dataset_a, dataset_b])``. Generic like
    PyTorch's, so ``class MyData(Dataset[int])`` works.
    """

    def __getitem__(self, index):
        """Sample ``index``.

        Raises:
            NotImplementedError: always, in the base class.
        """
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        """The concatenation ``ConcatDataset([self, other])``."""
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """An iterable-style dataset: subclasses define ``__iter__`` yielding samples
    (``torch.utils.data.IterableDataset``).

    ``__iter__`` is abstract (``collections.abc.Iterable``'s), so a subclass without one cannot be
    instantiated ("Can't instantiate abstract class ..."), as in PyTorch. A ``DataLoader`` over it
    takes no ``sampler``, ``batch_sampler`` or ``shuffle``; it groups the stream into batches of
    ``batch_size``. ``a + b`` is ``ChainDataset([a, b])``. Deliberate difference: minigrad runs no
    worker processes, so ``get_worker_info()`` is always None inside ``__iter__`` and the stream
    is read once.
    """

    def __add__(self, other):
        """The chained stream ``ChainDataset([self, other])``."""
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are rows of tensors: ``dataset[i] == (t[i] for t in tensors)``
    (``torch.utils.data.TensorDataset``).

    Args:
        *tensors: tensors with the same size of dimension 0 (the sample count).

    Raises:
        AssertionError: "Size mismatch between tensors" when the first sizes differ.
    """

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        """The tuple ``(t[index] for t in self.tensors)`` (views of each tensor's row)."""
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        """The size of dimension 0."""
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples of several equally long datasets side by side (``torch.utils.data.StackDataset``):
    ``StackDataset(a, b)[i] == (a[i], b[i])`` and ``StackDataset(x=a, y=b)[i] ==
    {"x": a[i], "y": b[i]}``.

    Raises:
        ValueError: both positional and keyword datasets, none at all, or lengths that differ
            ("Size mismatch between datasets").
    """

    def __init__(self, *args, **kwargs) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or"
                             "``dict``- (via ``kwargs``) like input/output, but both types are "
                             "given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        """A tuple (or dict) of each dataset's sample ``index``."""
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        """The common length."""
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other (``torch.utils.data.ConcatDataset``).

    Attributes:
        datasets: the list of datasets.
        cumulative_sizes: running totals of their lengths (``[3, 5]`` for lengths 3 and 2).

    Raises:
        AssertionError: an empty iterable ("datasets should not be an empty iterable") or an
            ``IterableDataset`` among them.
    """

    @staticmethod
    def cumsum(sequence):
        """Running totals of ``len(e)`` over ``sequence``."""
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets: Iterable) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        """The total length."""
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        """Sample ``idx`` of the concatenation (negative ``idx`` counts from the end).

        Raises:
            ValueError: a negative ``idx`` beyond the length.
        """
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets streamed one after the other (``torch.utils.data.ChainDataset``).

    Raises:
        AssertionError: when iterated (or ``len``) with a map-style dataset among them.
    """

    def __init__(self, datasets: Iterable) -> None:
        self.datasets = datasets

    def __iter__(self):
        """Every sample of each dataset in turn."""
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        """The sum of the datasets' lengths (each must define ``__len__``)."""
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order (``torch.utils.data.Subset``).

    Args:
        dataset: a map-style dataset.
        indices: a sequence of indices into it.

    Raises:
        NotImplementedError: a subclass that overrides ``__getitem__`` but not ``__getitems__``
            (the ``DataLoader`` calls ``__getitems__``, so the override would be bypassed).
    """

    def __init__(self, dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        """``dataset[indices[idx]]``; a list ``idx`` indexes the dataset with a list."""
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        """The samples at ``indices`` (through the dataset's own ``__getitems__`` if any)."""
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        """``len(indices)``."""
        return len(self.indices)


def _lengths_from_fractions(n: int, fractions) -> list:
    """PyTorch's rule: ``floor(n * f)`` each, then the remainder handed out one by one,
    round-robin from the first split."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          f"This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths: Sequence, generator=default_generator) -> list:
    """Split ``dataset`` into non-overlapping random ``Subset`` s
    (``torch.utils.data.random_split``).

    Args:
        dataset: a map-style dataset (anything with ``len``).
        lengths: the split lengths, or fractions summing to 1: then each split gets
            ``floor(len(dataset) * fraction)`` items and the remainder is handed out one item at a
            time, round-robin from the first split (a warning names any split left empty).
        generator: the ``minigrad.Generator`` drawing the permutation (the global one by default).

    Returns:
        A list of ``Subset`` s, one per length, together a permutation of the dataset.

    Raises:
        ValueError: a fraction outside [0, 1] ("Fraction at index i is not between 0 and 1"), or
            lengths not summing to ``len(dataset)``.

    Deliberate difference: the permutation comes from minigrad's generator (NumPy's PCG64), so the
    same seed picks other items than PyTorch does; the split lengths are PyTorch's.
    """
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:      # PyTorch's test for "these are fractions"
        lengths = _lengths_from_fractions(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]
