"""The DataLoader (mirrors ``torch.utils.data.DataLoader``): samples -> batches, epoch by epoch.

How a batch is made, as in PyTorch's single-process path:

1. an *index sampler* yields what to fetch: the ``batch_sampler`` (lists of indices) when
   batching is automatic, else the ``sampler`` (one index at a time, ``batch_size=None``);
2. a *fetcher* reads the samples: ``dataset.__getitems__(indices)`` or one ``dataset[i]`` per
   index for a map-style dataset, the next ``len(indices)`` items of the stream for an
   iterable one;
3. ``collate_fn`` (``default_collate``, or ``default_convert`` without automatic batching)
   turns the list of samples into the batch.

Deliberate difference: there are no worker processes. ``num_workers > 0`` is accepted (with its
argument checks) and loads in the main process, with a one-time warning; batches and their order
are those of ``num_workers=0`` (for an ``IterableDataset``, PyTorch's workers would each stream a
full copy unless it shards itself with ``get_worker_info``). ``worker_init_fn`` is therefore never
called, ``get_worker_info()`` is always None, ``timeout``/``prefetch_factor``/
``persistent_workers``/``multiprocessing_context``/``in_order`` are checked and kept but change
nothing, and ``pin_memory=True`` is a no-op on the emulated cuda device (PyTorch's warning when no
accelerator is available).
"""
from __future__ import annotations

import itertools
import math
import multiprocessing
import warnings

from ...accelerator import is_available as _accelerator_available
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _draw_seed

__all__ = ["DataLoader", "get_worker_info"]

_in_process_warned = False      # the one-time num_workers warning has been shown (tests reset it)


def get_worker_info():
    """Information about the current worker process (``torch.utils.data.get_worker_info``):
    always None, as in PyTorch's main process, because minigrad loads in the main process."""
    return None


def _warn_in_process(num_workers: int) -> None:
    global _in_process_warned
    if not _in_process_warned:
        _in_process_warned = True
        warnings.warn(f"DataLoader: num_workers={num_workers} is accepted, but minigrad loads "
                      f"batches in the main process (no worker processes): batches and their "
                      f"order are those of num_workers=0. This warning is shown once.",
                      UserWarning, stacklevel=3)


class _InfiniteConstantSampler(Sampler):
    """The sampler of an ``IterableDataset``: ``None`` forever (the stream decides the end)."""

    def __iter__(self):
        return itertools.repeat(None)


class _MapFetcher:
    """Reads samples of a map-style dataset: a list of samples per batch of indices, or one
    sample per index without automatic batching; then collates them."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            data = getitems(index)
        else:
            data = [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableFetcher:
    """Reads the next samples of an iterable dataset's stream: as many as the batch of
    (``None``) indices is long; a short last batch is dropped with ``drop_last``."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = list(itertools.islice(self.dataset_iter, len(index)))
        if len(data) < len(index):
            self.ended = True
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


class _SingleProcessDataLoaderIter:
    """One epoch over a DataLoader (PyTorch's class of the same name: its name shows in users'
    tracebacks, as ``AttributeError: ... object has no attribute 'next'``)."""

    def __init__(self, loader: "DataLoader") -> None:
        if loader.num_workers == 0 and loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        if loader.pin_memory and not _accelerator_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._dataset = loader.dataset
        self._iterable = loader._iterable_kind
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        # PyTorch draws the workers' base seed here, from the loader's generator: drawn too,
        # so that a shared generator advances as in PyTorch
        self._base_seed = _draw_seed(loader.generator)
        fetcher = _IterableFetcher if self._iterable else _MapFetcher
        self._fetcher = fetcher(loader.dataset, loader._auto_collation, loader.collate_fn,
                                loader.drop_last)
        self._len_reported = loader._IterableDataset_len_called
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __next__(self):
        index = next(self._sampler_iter)
        data = self._fetcher.fetch(index)
        self._num_yielded += 1
        if (self._iterable and self._len_reported is not None
                and self._num_yielded > self._len_reported):
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._len_reported}(when accessing len(dataloader)), but "
                          f"{self._num_yielded} samples have been fetched. ", stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


class DataLoader:
    """Iterate over a dataset in batches (``torch.utils.data.DataLoader``).

    Args:
        dataset: a map-style ``Dataset`` (anything with ``__getitem__``/``__len__``) or an
            ``IterableDataset``.
        batch_size: samples per batch (default 1); None turns automatic batching off (each
            sample is passed through ``collate_fn`` alone, ``default_convert`` by default).
        shuffle: a new random order each epoch (``RandomSampler``); map-style only.
        sampler: an iterable of indices, instead of the default sequential/random order.
        batch_sampler: an iterable of lists of indices; excludes ``batch_size``, ``shuffle``,
            ``sampler`` and ``drop_last``.
        num_workers: accepted; > 0 loads in the main process with a one-time warning.
        collate_fn: list of samples -> batch (default ``default_collate``).
        pin_memory: accepted; a no-op on the emulated cuda device.
        drop_last: drop the last, shorter batch.
        timeout, worker_init_fn, multiprocessing_context, prefetch_factor, persistent_workers,
            pin_memory_device, in_order: accepted and checked as in PyTorch; no effect.
        generator: the ``minigrad.Generator`` of ``shuffle``'s ``RandomSampler`` (and of the
            per-epoch base seed PyTorch draws).

    ``len(loader)`` is the number of batches (the number of samples when ``batch_size=None``);
    for an ``IterableDataset`` it is computed from ``len(dataset)``, and fetching more batches
    than that warns, as in PyTorch.

    Raises:
        ValueError: PyTorch's argument errors: negative ``num_workers``/``timeout``/
            ``prefetch_factor``, ``prefetch_factor`` or ``persistent_workers`` or
            ``multiprocessing_context`` with ``num_workers=0``, ``shuffle``/``sampler``/
            ``batch_sampler`` with an ``IterableDataset``, ``sampler`` with ``shuffle``,
            ``batch_sampler`` with ``batch_size``/``shuffle``/``sampler``/``drop_last``,
            ``batch_size=None`` with ``drop_last``, and setting ``batch_size``, ``sampler``... on
            a built loader.

    See the module docstring for what differs from PyTorch (no worker processes).
    """

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        prefetch_factor = self._check_worker_options(num_workers, timeout, prefetch_factor,
                                                     persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable_kind = isinstance(dataset, IterableDataset)
        if self._iterable_kind:
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._iterable_kind:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        if num_workers > 0:
            _warn_in_process(num_workers)

    @staticmethod
    def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers):
        """PyTorch's checks of the worker options; returns ``prefetch_factor`` (2 by default
        with workers, as PyTorch)."""
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        return prefetch_factor

    @property
    def multiprocessing_context(self):
        """The multiprocessing context (kept, unused: no worker processes run).

        Raises:
            ValueError: set with ``num_workers=0``, or to an unknown start method name.
            TypeError: set to something that is neither a start method name nor a context.
        """
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context) -> None:
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError(f"multiprocessing_context can only be used with multi-process "
                                 f"loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid "
                                     f"start method in {methods!r}, but got "
                                     f"multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(f"multiprocessing_context option should be a valid context "
                                f"object or a string specifying the start method, but got "
                                f"multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                           "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        """A fresh iterator over one epoch's batches."""
        return _SingleProcessDataLoaderIter(self)

    def __len__(self) -> int:
        """The number of batches per epoch (samples, without automatic batching).

        Raises:
            TypeError: an ``IterableDataset`` (or sampler) without ``__len__``.
        """
        if self._iterable_kind:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else math.ceil(length / self.batch_size))
            return length
        return len(self._index_sampler)
