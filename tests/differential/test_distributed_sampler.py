"""``utils.data.distributed.DistributedSampler`` against PyTorch 2.13: every rank's indices, for
shuffled and ordered splits, padding and ``drop_last``, several epochs; and its errors."""
import itertools

import pytest

from minigrad.utils.data import DistributedSampler as Ours

torch = pytest.importorskip("torch")
from torch.utils.data.distributed import DistributedSampler as Theirs  # noqa: E402


@pytest.mark.parametrize("n,replicas", [(1, 1), (5, 2), (7, 3), (10, 3), (2, 3), (12, 4)])
def test_every_rank_gets_torch_indices(n, replicas):
    data = list(range(n))
    for rank, shuffle, drop_last, epoch in itertools.product(range(replicas), (True, False),
                                                             (True, False), (0, 3)):
        ours = Ours(data, replicas, rank, shuffle, seed=5, drop_last=drop_last)
        theirs = Theirs(data, replicas, rank, shuffle, seed=5, drop_last=drop_last)
        ours.set_epoch(epoch)
        theirs.set_epoch(epoch)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


@pytest.mark.parametrize("make", [lambda D: D([1], 2, 2), lambda D: D([1], 2, -1),
                                  lambda D: D([1])])
def test_errors_as_torch(make):
    with pytest.raises(Exception) as ours:
        make(Ours)
    with pytest.raises(Exception) as theirs:
        make(Theirs)
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)


def test_loader_with_sampler_covers_the_dataset():
    import minigrad as mg
    ds = mg.utils.data.TensorDataset(mg.arange(10))
    seen = []
    for rank in range(2):
        s = Ours(ds, num_replicas=2, rank=rank)
        seen += [int(v) for (b,) in mg.utils.data.DataLoader(ds, batch_size=3, sampler=s)
                 for v in b]
    assert sorted(seen) == list(range(10))
