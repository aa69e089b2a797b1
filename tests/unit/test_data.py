"""``minigrad.utils.data`` against ``torch.utils.data``.

Each differential test builds the same data in both libraries (from one NumPy source) and runs the
same lambda with ``torch`` / ``torch.utils.data`` or ``minigrad`` / ``minigrad.utils.data``;
batches are compared through ``canon`` (container types, tensor dtypes, shapes and values).
Random orders come from different streams (a deliberate difference), so they are compared by
feeding the indices minigrad drew to PyTorch as a fixed sampler, and checked statistically.
"""
from __future__ import annotations

import collections
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import minigrad as mg
import minigrad.utils.data as mud
from minigrad.dispatch import DispatchMode
from minigrad.utils.data import dataloader as mud_dataloader

LIBS = {"torch": (torch, tud), "minigrad": (mg, mud)}
Point = collections.namedtuple("Point", "x y")


def canon(x):
    """A library-neutral description of a batch: containers by kind, tensors by (dtype name,
    shape, values)."""
    if isinstance(x, (torch.Tensor, mg.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("namedtuple", type(x).__name__, tuple(canon(v) for v in x))
    if isinstance(x, collections.abc.Mapping):
        return (type(x).__name__, tuple((k, canon(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(canon(v) for v in x))
    return (type(x).__name__, x)


def both(fn):
    """``fn(tensor_lib, data_lib)`` run with each library, canonicalised: (torch's, minigrad's)."""
    return tuple(canon(fn(*LIBS[name])) for name in ("torch", "minigrad"))


def error_of(fn, *args):
    try:
        fn(*args)
    except Exception as exc:     # noqa: BLE001 - the exception is the result
        return type(exc).__name__, str(exc)
    return None


def same_error(fn):
    """``fn`` raises the same exception type and message with both libraries."""
    t, m = (error_of(fn, *LIBS[name]) for name in ("torch", "minigrad"))
    assert t is not None, "torch raised nothing"
    assert m == t


def _rows(lib, n=7):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = rng.integers(0, 5, n)
    return lib.TensorDataset(lib_tensor(lib, x), lib_tensor(lib, y))


def lib_tensor(lib, arr):
    return (torch if lib is tud else mg).from_numpy(np.array(arr))


class _Samples:
    """A map-style dataset of mixed samples (dicts, tuples, namedtuples, NumPy, str, numbers)."""

    def __init__(self, t, n=6):
        self.t, self.n = t, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        a = np.arange(4, dtype=np.float32) * i
        return {"x": self.t.from_numpy(a.reshape(2, 2)), "label": i, "w": i / 4,
                "flag": i % 2 == 0, "name": f"s{i}", "np": a.astype(np.int16),
                "scal": np.float16(i), "pair": (i, [i * 1.5, f"n{i}"]),
                "pt": Point(np.int32(i), self.t.tensor([i, -i], dtype=self.t.bfloat16))}


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
    t, m = both(lambda T, D: list(D.DataLoader(_rows(D), batch_size=batch_size,
                                               drop_last=drop_last)))
    assert t == m


@pytest.mark.parametrize("batch_size", [2, 4])
def test_mixed_samples_collate_like_torch(batch_size):
    t, m = both(lambda T, D: list(D.DataLoader(_Samples(T), batch_size=batch_size)))
    assert t == m


def test_fixed_index_sampler_and_batch_sampler():
    idx = [3, 1, 4, 1, 5, 6, 2, 0]
    t, m = both(lambda T, D: list(D.DataLoader(_rows(D), sampler=idx, batch_size=3)))
    assert t == m
    t, m = both(lambda T, D: list(D.DataLoader(_Samples(T), batch_sampler=[[0, 2], [5], [1, 3, 4]])))
    assert t == m
    t, m = both(lambda T, D: list(D.DataLoader(_rows(D), sampler=D.SequentialSampler(range(5)),
                                               batch_size=2, drop_last=True)))
    assert t == m


def test_minigrad_random_indices_give_torch_batches():
    """Given the indices minigrad's random samplers drew, PyTorch's loader makes the same
    batches."""
    g = mg.Generator().manual_seed(5)
    ds = _rows(mud, 9)
    for sampler in (mud.RandomSampler(ds, generator=g),
                    mud.RandomSampler(ds, replacement=True, num_samples=40, generator=g),
                    mud.SubsetRandomSampler([8, 2, 5, 0], generator=g),
                    mud.WeightedRandomSampler([1, 2, 0, 4, 1, 1, 0, 3, 1], 12, generator=g)):
        indices = list(sampler)
        mine = list(mud.DataLoader(ds, sampler=indices, batch_size=4))
        theirs = list(tud.DataLoader(_rows(tud, 9), sampler=indices, batch_size=4))
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
    t, m = both(lambda T, D: list(D.DataLoader(_Samples(T, 3), batch_size=None)))
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
    t, m = both(lambda T, D: list(D.DataLoader(D.Subset(_rows(D, 6), [5, 0, 3]), batch_size=2)))
    assert t == m


class _Stream:
    """Make an IterableDataset class of each library over ``range(n)``."""

    @staticmethod
    def make(D, n, with_len=True):
        class Stream(D.IterableDataset):
            def __iter__(self):
                return iter(range(n))

        if with_len:
            Stream.__len__ = lambda self: n
        return Stream()


@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (3, False), (3, True), (None, False)])
def test_iterable_dataset_batches_and_len(batch_size, drop_last):
    t, m = both(lambda T, D: list(D.DataLoader(_Stream.make(D, 7), batch_size=batch_size,
                                               drop_last=drop_last)))
    assert t == m
    t, m = both(lambda T, D: len(D.DataLoader(_Stream.make(D, 7), batch_size=batch_size,
                                              drop_last=drop_last)))
    assert t == m
    t, m = both(lambda T, D: list(D.DataLoader(_Stream.make(D, 3) + _Stream.make(D, 2),
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
    same_error(lambda T, D: len(D.DataLoader(_Stream.make(D, 3, with_len=False))))


# ---------------------------------------------------------------------------------------------
# default_collate / default_convert

COLLATE_CASES = {
    "ints": lambda T: [0, 1, 2],
    "floats": lambda T: [0.5, 1.0],
    "bools": lambda T: [True, False],
    "strings": lambda T: ["a", "bc"],
    "bytes": lambda T: [b"a", b"b"],
    "tuples": lambda T: [(0, "a", 1.5), (1, "b", 2.5)],
    "lists": lambda T: [[0, 1], [2, 3]],
    "namedtuple": lambda T: [Point(1, 2.0), Point(3, 4.0)],
    "nested dict": lambda T: [{"a": {"b": (i, [i])}, "c": [i * 1.0]} for i in range(3)],
    "ordered dict": lambda T: [collections.OrderedDict(z=i, a=float(i)) for i in range(2)],
    "numpy arrays": lambda T: [np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)],
    "numpy int/uint/bool": lambda T: [(np.arange(2, dtype=np.int16), np.ones(1, np.uint8),
                                       np.array([True]))] * 2,
    "numpy scalars": lambda T: [(np.float32(1), np.int32(2), np.bool_(True), np.float64(3))] * 2,
    "0-d tensors": lambda T: [T.tensor(1.5), T.tensor(2.5)],
    "fp16/bf16 tensors": lambda T: [(T.ones(2, dtype=T.float16), T.zeros(1, 2, dtype=T.bfloat16))] * 3,
    "int tensors": lambda T: [T.arange(3), T.arange(3) * 2],
}


@pytest.mark.parametrize("case", list(COLLATE_CASES))
def test_default_collate_like_torch(case):
    t, m = both(lambda T, D: D.default_collate(COLLATE_CASES[case](T)))
    assert t == m


@pytest.mark.parametrize("case", ["numpy arrays", "numpy scalars", "tuples", "nested dict",
                                  "namedtuple", "strings"])
def test_default_convert_like_torch(case):
    t, m = both(lambda T, D: D.default_convert(COLLATE_CASES[case](T)))
    assert t == m


def test_default_convert_leaves_string_arrays_alone():
    arr = np.array(["a", "b"])
    assert mud.default_convert(arr) is arr
    assert canon(mud.default_convert(np.float64(2.0))) == canon(tud.default_convert(np.float64(2.0)))


def test_default_collate_stacks_through_dispatch():
    seen = []

    class Record(DispatchMode):
        def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
            seen.append(op_name)
            return call_next(args, kwargs)

    batch = [mg.ones(2, requires_grad=True), mg.zeros(2)]
    with Record():
        out = mud.default_collate(batch)
    assert "stack" in seen
    assert out.grad_fn is not None and out.grad_fn.name() == "StackBackward0"


@pytest.mark.parametrize("bad", [
    lambda T: [T.zeros(3), T.zeros(2)],
    lambda T: [[1, 2], [1]],
    lambda T: [object()],
    lambda T: [np.array(["a"]), np.array(["b"])],
    lambda T: [{"a": T.zeros(1)}, {"a": T.zeros(1, 2)}],
], ids=["tensor sizes", "list lengths", "object", "str array", "dict of sizes"])
def test_default_collate_errors_like_torch(bad):
    same_error(lambda T, D: D.default_collate(bad(T)))


# ---------------------------------------------------------------------------------------------
# datasets, random_split, len()

def test_datasets_like_torch():
    for fn in (lambda T, D: [len(_rows(D)), _rows(D)[2], _rows(D)[-1]],
               lambda T, D: [len(D.ConcatDataset([range(3), range(10, 12)])),
                             [D.ConcatDataset([range(3), range(10, 12)])[i]
                              for i in (0, 2, 3, 4, -1, -5)],
                             D.ConcatDataset([range(3), range(2)]).cumulative_sizes],
               lambda T, D: [len(D.Subset(range(10), [7, 2])), D.Subset(range(10), [7, 2])[1],
                             D.Subset(range(10), [7, 2])[-1],
                             D.Subset(_rows(D), [6, 2, 4])[[0, 2]]],
               lambda T, D: [len(D.StackDataset(range(3), range(3))),
                             D.StackDataset(range(3), "abc")[1], D.StackDataset(a=range(2),
                                                                               b="xy")[1]],
               lambda T, D: list(D.ConcatDataset([range(2)]) + D.Subset(range(5), [4]))):
        t, m = both(fn)
        assert t == m


@pytest.mark.parametrize("fn", [
    lambda T, D: D.TensorDataset(T.zeros(3), T.zeros(4)),
    lambda T, D: D.ConcatDataset([]),
    lambda T, D: D.ConcatDataset([range(2), _Stream.make(D, 2)]),
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
        len(_rows(D)), len(list(D.RandomSampler(range(7), num_samples=17)))])
    assert t == m


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


# ---------------------------------------------------------------------------------------------
# DataLoader arguments

class _Custom(tud.Sampler):
    def __iter__(self):
        return iter([0])


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
    lambda T, D: D.DataLoader(_Stream.make(D, 3), shuffle=True),
    lambda T, D: D.DataLoader(_Stream.make(D, 3), sampler=[0]),
    lambda T, D: D.DataLoader(_Stream.make(D, 3), batch_sampler=[[0]]),
    lambda T, D: setattr(D.DataLoader(range(5)), "batch_size", 2),
    lambda T, D: setattr(D.DataLoader(range(5)), "dataset", range(2)),
    lambda T, D: iter(D.DataLoader(range(5), timeout=1)),
], ids=lambda f: "")
def test_dataloader_argument_errors_like_torch(fn, monkeypatch):
    monkeypatch.setattr(mud_dataloader, "_IN_PROCESS_WARNED", [True])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(fn)


def test_num_workers_runs_in_process_with_one_warning(monkeypatch):
    monkeypatch.setattr(mud_dataloader, "_IN_PROCESS_WARNED", [False])
    called = []
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        a = mud.DataLoader(_rows(mud), batch_size=3, num_workers=4, worker_init_fn=called.append,
                           persistent_workers=True, prefetch_factor=4, pin_memory=True,
                           multiprocessing_context="spawn")
        b = mud.DataLoader(_rows(mud), batch_size=3, num_workers=2)
        batches = list(a) + list(a) + list(b)
    msgs = [str(w.message) for w in rec if "num_workers" in str(w.message)]
    assert len(msgs) == 1 and "num_workers=4" in msgs[0] and "main process" in msgs[0]
    assert rec[0].filename == __file__
    assert a.prefetch_factor == 4 and b.prefetch_factor == 2 and not called
    assert canon(batches) == canon(list(tud.DataLoader(_rows(tud), batch_size=3)) * 3)
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
    assert t == m
