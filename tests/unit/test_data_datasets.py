"""Datasets and ``random_split`` against ``torch.utils.data``: indexing, lengths, PyTorch's
fraction-rounding rule, errors."""
from __future__ import annotations

import warnings

import pytest
import torch
import torch.utils.data as tud

import minigrad as mg
import minigrad.utils.data as mud
from tests.unit._data_compare import Stream, both, error_of, rows, same_error

# ---------------------------------------------------------------------------------------------
# datasets, random_split, len()

def test_datasets_like_torch():
    for fn in (lambda T, D: [len(rows(D)), rows(D)[2], rows(D)[-1]],
               lambda T, D: [len(D.ConcatDataset([range(3), range(10, 12)])),
                             [D.ConcatDataset([range(3), range(10, 12)])[i]
                              for i in (0, 2, 3, 4, -1, -5)],
                             D.ConcatDataset([range(3), range(2)]).cumulative_sizes],
               lambda T, D: [len(D.Subset(range(10), [7, 2])), D.Subset(range(10), [7, 2])[1],
                             D.Subset(range(10), [7, 2])[-1],
                             D.Subset(rows(D), [6, 2, 4])[[0, 2]]],
               lambda T, D: [len(D.StackDataset(range(3), range(3))),
                             D.StackDataset(range(3), "abc")[1], D.StackDataset(a=range(2),
                                                                               b="xy")[1]],
               lambda T, D: list(D.ConcatDataset([range(2)]) + D.Subset(range(5), [4]))):
        t, m = both(fn)
        assert t == m


@pytest.mark.parametrize("fn", [
    lambda T, D: D.TensorDataset(T.zeros(3), T.zeros(4)),
    lambda T, D: D.ConcatDataset([]),
    lambda T, D: D.ConcatDataset([range(2), Stream.make(D, 2)]),
    lambda T, D: D.ConcatDataset([range(2)])[-3],
    lambda T, D: D.Dataset()[0],
    lambda T, D: list(D.ChainDataset([range(2)])),
    lambda T, D: D.StackDataset(range(2), range(3)),
    lambda T, D: D.StackDataset(),
], ids=["tensor sizes", "concat empty", "concat iterable", "concat index", "base getitem",
        "chain map-style", "stack sizes", "stack empty"])
def test_dataset_errors_like_torch(fn):
    same_error(fn)


def test_subset_subclass_must_override_getitems():
    def make(T, D):
        class Sub(D.Subset):
            def __getitem__(self, i):
                return 0

        return Sub(range(3), [0])

    same_error(make)


@pytest.mark.parametrize("n", [0, 1, 7, 10, 101])
@pytest.mark.parametrize("lengths", [[0.5, 0.5], [0.3, 0.3, 0.4], [0.34, 0.33, 0.33], [1.0],
                                     [0.1] * 10, [0.2, 0.8], [0.25, 0.25, 0.25, 0.25]])
def test_random_split_fraction_lengths_like_torch(n, lengths):
    def run(T, D):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            parts = D.random_split(range(n), lengths, generator=T.Generator().manual_seed(0))
        return [len(p) for p in parts], [str(w.message) for w in rec]

    if error_of(run, torch, tud) is not None:   # PyTorch rejects it (a float sum above 1)
        same_error(run)
        return
    t, m = both(run)
    assert t == m


def test_random_split_is_a_seeded_partition():
    parts = mud.random_split(range(10), [3, 7], generator=mg.Generator().manual_seed(4))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))
    again = mud.random_split(range(10), [3, 7], generator=mg.Generator().manual_seed(4))
    assert list(again[0]) == list(parts[0])
    with mg.random.fork_rng():
        mg.manual_seed(0)
        a = [list(p) for p in mud.random_split(range(6), [0.5, 0.5])]
        mg.manual_seed(0)
        b = [list(p) for p in mud.random_split(range(6), [0.5, 0.5])]
    assert a == b


@pytest.mark.parametrize("lengths", [[3, 3], [1.5, -0.5], [0.5, 0.6], [0.2, 0.2]])
def test_random_split_errors_like_torch(lengths):
    same_error(lambda T, D: D.random_split(range(10), lengths))
