"""``minigrad.utils.data.distributed`` (``torch.utils.data.distributed``): ``DistributedSampler``,
which gives each of ``num_replicas`` processes its own share of a dataset's indices.

minigrad runs one process (``minigrad.distributed``: world size 1), but a script written for
several still builds the sampler, usually with ``num_replicas`` and ``rank`` given, and a
single-process run with ``num_replicas=1`` gets every index; with other values it computes the
share rank ``rank`` would get, as PyTorch does (useful to study or test the split).
"""
from __future__ import annotations

import math

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Rank ``rank``'s share of ``range(len(dataset))`` (``torch.utils.data.distributed.
    DistributedSampler``).

    The indices (shuffled with a generator seeded ``seed + epoch`` when ``shuffle``: PyTorch's
    ``randperm`` stream, so the same order as PyTorch's) are padded by repeating them from the
    start until every rank gets ``ceil(len / num_replicas)``, or cut to a multiple of
    ``num_replicas`` with ``drop_last``; rank ``r`` takes every ``num_replicas``-th from ``r``.
    Call ``set_epoch(e)`` before each epoch for a new order.

    Raises:
        ValueError: ``rank`` outside ``[0, num_replicas - 1]`` (PyTorch's message).
        ValueError: ``num_replicas`` / ``rank`` None before ``init_process_group``
            (``minigrad.distributed``'s error, as PyTorch's).
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False):
        from ... import distributed as dist
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            from ... import randperm
            from ...random import Generator
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use ``seed + epoch`` for the next shuffle (call before each epoch)."""
        self.epoch = epoch
