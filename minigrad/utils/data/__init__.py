"""``minigrad.utils.data`` (mirrors ``torch.utils.data``): datasets, samplers, collation and the
``DataLoader``, so that ``from torch.utils.data import DataLoader, TensorDataset`` ports by
renaming the import.

- ``dataset``: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``StackDataset``,
  ``ConcatDataset``, ``ChainDataset``, ``Subset``, ``random_split``;
- ``sampler``: ``Sampler``, ``SequentialSampler``, ``RandomSampler``, ``SubsetRandomSampler``,
  ``WeightedRandomSampler``, ``BatchSampler``;
- ``collate``: ``default_collate``, ``default_convert``;
- ``dataloader``: ``DataLoader``, ``get_worker_info``;
- ``distributed``: ``DistributedSampler``.

Deliberate differences (each stated where it lives): random orders come from minigrad's generators,
not PyTorch's random stream (given the same indices, batches are PyTorch's); no worker processes
(``num_workers > 0`` loads in the main process, with a one-time warning).
"""
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                      TensorDataset, random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "DataLoader", "get_worker_info", "default_collate", "default_convert",
           "DistributedSampler"]
