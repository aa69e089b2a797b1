"""Shared helpers of the ``minigrad.utils.data`` tests: run one lambda with ``torch`` /
``torch.utils.data`` and with ``minigrad`` / ``minigrad.utils.data`` and compare the results
through ``canon`` (container kinds, tensor dtypes, shapes and values) or the exceptions raised.
"""
from __future__ import annotations

import collections
import collections.abc

import numpy as np
import torch
import torch.utils.data as tud

import minigrad as mg
import minigrad.utils.data as mud

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


def rows(lib, n=7):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = rng.integers(0, 5, n)
    return lib.TensorDataset(lib_tensor(lib, x), lib_tensor(lib, y))


def lib_tensor(lib, arr):
    return (torch if lib is tud else mg).from_numpy(np.array(arr))


class Samples:
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



class Stream:
    """Make an IterableDataset class of each library over ``range(n)``."""

    @staticmethod
    def make(D, n, with_len=True):
        class Stream(D.IterableDataset):
            def __iter__(self):
                return iter(range(n))

        if with_len:
            Stream.__len__ = lambda self: n
        return Stream()
