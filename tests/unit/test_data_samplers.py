"""Samplers against ``torch.utils.data``: orders, lengths, errors; the random samplers (another
random stream, a deliberate difference) checked for coverage and, seeded, statistically."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.utils.data as mud
from tests.unit._data_compare import both, same_error

# ---------------------------------------------------------------------------------------------
# samplers

def test_sequential_and_batch_samplers_like_torch():
    t, m = both(lambda T, D: [list(D.SequentialSampler("abcd")),
                              list(D.BatchSampler(D.SequentialSampler(range(10)), 3, False)),
                              list(D.BatchSampler(range(10), 3, True)),
                              list(D.BatchSampler(range(2), 5, False))])
    assert t == m


def test_random_sampler_without_replacement_covers_each_index():
    g = mg.Generator().manual_seed(0)
    idx = list(mud.RandomSampler(range(5), num_samples=12, generator=g))
    assert len(idx) == 12
    assert sorted(idx[:5]) == sorted(idx[5:10]) == list(range(5)) and len(set(idx[10:])) == 2
    idx = list(mud.RandomSampler(range(4), replacement=True, num_samples=70, generator=g))
    assert len(idx) == 70 and set(idx) == set(range(4))
    assert sorted(mud.SubsetRandomSampler([9, 4, 7], generator=g)) == [4, 7, 9]


def test_weighted_random_sampler_distribution():
    """Seeded and statistical: frequencies within 5 standard deviations of the weights."""
    w = np.array([1.0, 0.0, 3.0, 6.0])
    n = 20000
    idx = list(mud.WeightedRandomSampler(list(w), n, generator=mg.Generator().manual_seed(0)))
    freq = np.bincount(idx, minlength=4) / n
    p = w / w.sum()
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n)) and freq[1] == 0
    # without replacement: distinct indices, zero weights only when the others are used up,
    # the first draw distributed as the weights
    g = mg.Generator().manual_seed(1)
    draws = [list(mud.WeightedRandomSampler(w, 3, replacement=False, generator=g))
             for _ in range(3000)]
    assert all(len(set(d)) == 3 and 1 not in d for d in draws)
    first = np.bincount([d[0] for d in draws], minlength=4) / 3000
    assert np.all(np.abs(first - p) <= 5 * np.sqrt(p * (1 - p) / 3000))
    assert sorted(mud.WeightedRandomSampler(w, 4, replacement=False, generator=g)) == [0, 1, 2, 3]
    assert mud.WeightedRandomSampler(mg.tensor([1, 2]), 1).weights.dtype == mg.float64


@pytest.mark.parametrize("fn", [
    lambda T, D: D.RandomSampler(range(3), replacement=1),
    lambda T, D: D.RandomSampler(range(3), num_samples=0),
    lambda T, D: D.RandomSampler(range(3), num_samples=2.0),
    lambda T, D: D.RandomSampler([]),
    lambda T, D: D.BatchSampler(range(3), 0, False),
    lambda T, D: D.BatchSampler(range(3), True, False),
    lambda T, D: D.BatchSampler(range(3), 2.0, False),
    lambda T, D: D.BatchSampler(range(3), 2, 0),
    lambda T, D: D.WeightedRandomSampler([1.0], 0),
    lambda T, D: D.WeightedRandomSampler([1.0], True),
    lambda T, D: D.WeightedRandomSampler([1.0], 2.5),
    lambda T, D: D.WeightedRandomSampler([1.0], 2, replacement=0),
    lambda T, D: D.WeightedRandomSampler([[1.0, 2.0]], 2),
    lambda T, D: list(D.WeightedRandomSampler([1.0, -1.0], 2)),
    lambda T, D: list(D.WeightedRandomSampler([1.0, float("nan")], 2)),
    lambda T, D: list(D.WeightedRandomSampler([1.0, float("inf")], 2)),
    lambda T, D: list(D.WeightedRandomSampler([0.0, 0.0], 2)),
    lambda T, D: list(D.WeightedRandomSampler([], 2)),
    lambda T, D: list(D.WeightedRandomSampler([1.0, 1.0], 3, replacement=False)),
    lambda T, D: list(D.Sampler()),
])
def test_sampler_errors_like_torch(fn):
    same_error(fn)
