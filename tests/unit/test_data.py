"""``minigrad.utils.data.DataLoader`` against ``torch.utils.data.DataLoader``: batches, their
order, dtypes and shapes (sequential, fixed and minigrad-drawn indices, iterable datasets), argument
errors, ``len()``, the in-process ``num_workers`` warning.

Random orders come from different streams (a deliberate difference), so they are compared by
feeding the indices minigrad drew to PyTorch as a fixed sampler.
"""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch.utils.data as tud

import minigrad as mg
import minigrad.utils.data as mud
from minigrad.utils.data import dataloader as mud_dataloader
from tests.unit._data_compare import Samples, Stream, both, canon, rows, same_error

# ---------------------------------------------------------------------------------------------
# import layout

def test_import_paths_and_import_minigrad_stays_light():
    code = ("import sys, minigrad; assert 'minigrad.utils' not in sys.modules; "
            "from minigrad.utils.data import DataLoader; "
            "assert minigrad.utils.data.DataLoader is DataLoader; "
            "import minigrad.utils.data as d; assert d is minigrad.utils.data; print('ok')")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_public_names_match_torch():
    for name in mud.__all__:
        assert hasattr(tud, name), name
        assert getattr(mud, name).__doc__, name
    for name in ("Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset",
                 "random_split", "DataLoader", "default_collate", "default_convert", "Sampler",
                 "SequentialSampler", "RandomSampler", "BatchSampler", "SubsetRandomSampler",
                 "WeightedRandomSampler", "StackDataset", "ChainDataset", "get_worker_info"):
        assert name in mud.__all__


# ---------------------------------------------------------------------------------------------
# batches, order, dtypes, shapes

@pytest.mark.parametrize("batch_size", [1, 3, 7, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_tensor_dataset_batches_sequential(batch_size, drop_last):
    t, m = both(lambda T, D: list(D.DataLoader(rows(D), batch_size=batch_size,
                                               drop_last=drop_last)))
    assert t == m


@pytest.mark.parametrize("batch_size", [2, 4])
def test_mixed_samples_collate_like_torch(batch_size):
    t, m = both(lambda T, D: list(D.DataLoader(Samples(T), batch_size=batch_size)))
    assert t == m


def test_fixed_index_sampler_and_batch_sampler():
    idx = [3, 1, 4, 1, 5, 6, 2, 0]
    t, m = both(lambda T, D: list(D.DataLoader(rows(D), sampler=idx, batch_size=3)))
    assert t == m
    t, m = both(lambda T, D: list(D.DataLoader(Samples(T), batch_sampler=[[0, 2], [5], [1, 3, 4]])))
    assert t == m
    t, m = both(lambda T, D: list(D.DataLoader(rows(D), sampler=D.SequentialSampler(range(5)),
                                               batch_size=2, drop_last=True)))
    assert t == m


def test_minigrad_random_indices_give_torch_batches():
    """Given the indices minigrad's random samplers drew, PyTorch's loader makes the same
    batches."""
    g = mg.Generator().manual_seed(5)
    ds = rows(mud, 9)
    for sampler in (mud.RandomSampler(ds, generator=g),
                    mud.RandomSampler(ds, replacement=True, num_samples=40, generator=g),
                    mud.SubsetRandomSampler([8, 2, 5, 0], generator=g),
                    mud.WeightedRandomSampler([1, 2, 0, 4, 1, 1, 0, 3, 1], 12, generator=g)):
        indices = list(sampler)
        mine = list(mud.DataLoader(ds, sampler=indices, batch_size=4))
        theirs = list(tud.DataLoader(rows(tud, 9), sampler=indices, batch_size=4))
        assert canon(mine) == canon(theirs)


def test_shuffle_is_a_seeded_permutation_each_epoch():
    loader = mud.DataLoader(range(20), batch_size=6, shuffle=True,
                            generator=mg.Generator().manual_seed(1))
    e1 = [v for b in loader for v in b.tolist()]
    e2 = [v for b in loader for v in b.tolist()]
    assert sorted(e1) == sorted(e2) == list(range(20)) and e1 != e2
    again = mud.DataLoader(range(20), batch_size=6, shuffle=True,
                           generator=mg.Generator().manual_seed(1))
    assert [v for b in again for v in b.tolist()] == e1
    with mg.random.fork_rng():          # generator=None: a fresh seed from the global generator
        mg.manual_seed(3)
        a = [b.tolist() for b in mud.DataLoader(range(10), batch_size=3, shuffle=True)]
        mg.manual_seed(3)
        b = [b.tolist() for b in mud.DataLoader(range(10), batch_size=3, shuffle=True)]
    assert a == b
    assert [len(x) for x in a] == [3, 3, 3, 1]


def test_no_auto_batching_and_custom_collate():
    t, m = both(lambda T, D: list(D.DataLoader(Samples(T, 3), batch_size=None)))
    assert t == m
    t, m = both(lambda T, D: list(D.DataLoader([np.arange(3), (np.int64(2), "a")],
                                               batch_size=None)))
    assert t == m
    t, m = both(lambda T, D: list(D.DataLoader(range(7), batch_size=3, collate_fn=lambda b: b)))
    assert t == m


def test_getitems_is_used_for_whole_batches():
    class Batched(mud.Dataset):
        calls = []

        def __len__(self):
            return 5

        def __getitem__(self, i):
            raise AssertionError("__getitems__ should be used")

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [i * 10 for i in indices]

    out = [b.tolist() for b in mud.DataLoader(Batched(), batch_size=2)]
    assert out == [[0, 10], [20, 30], [40]] and Batched.calls == [[0, 1], [2, 3], [4]]
    t, m = both(lambda T, D: list(D.DataLoader(D.Subset(rows(D, 6), [5, 0, 3]), batch_size=2)))
    assert t == m


@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (3, False), (3, True), (None, False)])
def test_iterable_dataset_batches_and_len(batch_size, drop_last):
    t, m = both(lambda T, D: list(D.DataLoader(Stream.make(D, 7), batch_size=batch_size,
                                               drop_last=drop_last)))
    assert t == m
    t, m = both(lambda T, D: len(D.DataLoader(Stream.make(D, 7), batch_size=batch_size,
                                              drop_last=drop_last)))
    assert t == m
    t, m = both(lambda T, D: list(D.DataLoader(Stream.make(D, 3) + Stream.make(D, 2),
                                               batch_size=2)))
    assert t == m


def test_iterable_dataset_longer_than_reported_warns():
    def run(T, D):
        class Liar(D.IterableDataset):
            def __iter__(self):
                return iter(range(5))

            def __len__(self):
                return 2

        loader = D.DataLoader(Liar(), batch_size=1)
        assert len(loader) == 2
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            list(loader)
        return [str(w.message).split(" was reported")[1] for w in rec]

    t, m = both(run)
    assert t == m and len(t[1]) == 3


def test_iterable_dataset_needs_iter():
    same_error(lambda T, D: D.IterableDataset())
    same_error(lambda T, D: len(D.DataLoader(Stream.make(D, 3, with_len=False))))


def test_len_of_everything_like_torch():
    t, m = both(lambda T, D: [
        len(D.SequentialSampler(range(7))), len(D.RandomSampler(range(7))),
        len(D.RandomSampler(range(7), replacement=True, num_samples=20)),
        len(D.RandomSampler(range(7), num_samples=3)),
        len(D.SubsetRandomSampler([1, 5, 2])), len(D.WeightedRandomSampler([1.0, 2.0], 9)),
        len(D.BatchSampler(range(10), 3, False)), len(D.BatchSampler(range(10), 3, True)),
        len(D.DataLoader(range(10), batch_size=4)),
        len(D.DataLoader(range(10), batch_size=4, drop_last=True)),
        len(D.DataLoader(range(10), batch_size=None)),
        len(D.DataLoader(range(10), batch_sampler=[[0], [1, 2]])),
        len(D.DataLoader(range(10), sampler=[1, 2, 3], batch_size=2)),
        len(D.DataLoader(range(10), shuffle=True, batch_size=3)),
        len(D.ConcatDataset([range(3), range(4)])), len(D.Subset(range(9), [1, 2])),
        len(rows(D)), len(list(D.RandomSampler(range(7), num_samples=17)))])
    assert t == m


# ---------------------------------------------------------------------------------------------
# DataLoader arguments

@pytest.mark.parametrize("fn", [
    lambda T, D: D.DataLoader(range(5), batch_sampler=[[0]], batch_size=2),
    lambda T, D: D.DataLoader(range(5), batch_sampler=[[0]], shuffle=True),
    lambda T, D: D.DataLoader(range(5), batch_sampler=[[0]], sampler=[0]),
    lambda T, D: D.DataLoader(range(5), batch_sampler=[[0]], drop_last=True),
    lambda T, D: D.DataLoader(range(5), sampler=[0], shuffle=True),
    lambda T, D: D.DataLoader(range(5), batch_size=None, drop_last=True),
    lambda T, D: D.DataLoader(range(5), batch_size=0),
    lambda T, D: D.DataLoader(range(5), num_workers=-1),
    lambda T, D: D.DataLoader(range(5), timeout=-1),
    lambda T, D: D.DataLoader(range(5), prefetch_factor=2),
    lambda T, D: D.DataLoader(range(5), num_workers=1, prefetch_factor=-1),
    lambda T, D: D.DataLoader(range(5), persistent_workers=True),
    lambda T, D: D.DataLoader(range(5), multiprocessing_context="spawn"),
    lambda T, D: D.DataLoader(range(5), num_workers=1, multiprocessing_context="nope"),
    lambda T, D: D.DataLoader(range(5), num_workers=1, multiprocessing_context=3),
    lambda T, D: D.DataLoader(Stream.make(D, 3), shuffle=True),
    lambda T, D: D.DataLoader(Stream.make(D, 3), sampler=[0]),
    lambda T, D: D.DataLoader(Stream.make(D, 3), batch_sampler=[[0]]),
    lambda T, D: setattr(D.DataLoader(range(5)), "batch_size", 2),
    lambda T, D: setattr(D.DataLoader(range(5)), "dataset", range(2)),
    lambda T, D: iter(D.DataLoader(range(5), timeout=1)),
], ids=lambda f: "")
def test_dataloader_argument_errors_like_torch(fn, monkeypatch):
    monkeypatch.setattr(mud_dataloader, "_in_process_warned", True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(fn)


def test_num_workers_runs_in_process_with_one_warning(monkeypatch):
    monkeypatch.setattr(mud_dataloader, "_in_process_warned", False)
    called = []
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        a = mud.DataLoader(rows(mud), batch_size=3, num_workers=4, worker_init_fn=called.append,
                           persistent_workers=True, prefetch_factor=4, pin_memory=True,
                           multiprocessing_context="spawn")
        b = mud.DataLoader(rows(mud), batch_size=3, num_workers=2)
        batches = list(a) + list(a) + list(b)
    msgs = [str(w.message) for w in rec if "num_workers" in str(w.message)]
    assert len(msgs) == 1 and "num_workers=4" in msgs[0] and "main process" in msgs[0]
    assert rec[0].filename == __file__
    assert a.prefetch_factor == 4 and b.prefetch_factor == 2 and not called
    assert canon(batches) == canon(list(tud.DataLoader(rows(tud), batch_size=3)) * 3)
    assert mud.get_worker_info() is None


def test_pin_memory_warns_without_accelerator_like_torch(monkeypatch):
    def run(T, D):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = list(D.DataLoader(range(3), pin_memory=True))
        return out, [str(w.message) for w in rec]

    monkeypatch.setenv("MINIGRAD_EMULATE_CUDA", "0")      # torch here is CPU-only
    t, m = both(run)
    assert t == m and len(t[1][1][1]) == 1
    monkeypatch.setenv("MINIGRAD_EMULATE_CUDA", "1")      # the emulated GPU: nothing to warn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [b.tolist() for b in mud.DataLoader(range(3), pin_memory=True)] == [[0], [1], [2]]


def test_dataloader_attributes_like_torch():
    def attrs(T, D):
        loader = D.DataLoader(range(6), batch_size=4, drop_last=True, shuffle=True)
        none = D.DataLoader(range(6), batch_size=None)
        return [loader.batch_size, loader.drop_last, type(loader.sampler).__name__,
                type(loader.batch_sampler).__name__, loader.num_workers, loader.prefetch_factor,
                loader.collate_fn.__name__, none.collate_fn.__name__, none.batch_sampler,
                type(D.DataLoader(range(3), batch_sampler=[[0]]).sampler).__name__,
                D.DataLoader(range(3), batch_sampler=[[0]]).batch_size]

    t, m = both(attrs)
