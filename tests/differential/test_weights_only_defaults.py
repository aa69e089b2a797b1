"""``load(weights_only=True)``'s default allowlist against PyTorch 2.13's: what each framework
loads and what it refuses, with the global named in the message as PyTorch names it."""
from __future__ import annotations

import collections
import pickle

import numpy as np
import pytest
import torch

import minigrad as mg

OBJECTS = {
    "ndarray": lambda: np.arange(3.0),
    "numpy scalar": lambda: np.float64(1.5),
    "numpy dtype": lambda: np.dtype("float32"),
    "slice": lambda: slice(1, 2),
    "defaultdict": lambda: collections.defaultdict(int),
    "Counter": lambda: collections.Counter("abca"),
    "OrderedDict": lambda: collections.OrderedDict(a=1),
    "set/bytes/complex": lambda: ({1, 2}, b"ab", bytearray(b"c"), 1 + 2j),
    "frozenset": lambda: frozenset({1}),     # protocol 2 names builtins.frozenset: refused
}


def _load(lib, obj, path):
    lib.save(obj, path)
    try:
        return "ok", lib.load(path)
    except pickle.UnpicklingError as e:
        return "refused", str(e).split("WeightsUnpickler error: ")[1].split(" was not")[0]


@pytest.mark.parametrize("name", list(OBJECTS))
def test_default_allowlist_is_torchs(name, tmp_path):
    want = _load(torch, OBJECTS[name](), tmp_path / "t.pt")
    got = _load(mg, OBJECTS[name](), tmp_path / "m.pt")
    assert got == want          # the object, or e.g. "Unsupported global: GLOBAL slice"


def test_refused_numpy_loads_when_allowed_or_trusted(tmp_path):
    a = np.arange(4.0).reshape(2, 2)
    mg.save(a, tmp_path / "a.pt")
    np.testing.assert_array_equal(mg.load(tmp_path / "a.pt", weights_only=False), a)
    from numpy._core.multiarray import _reconstruct
    with mg.serialization.safe_globals([_reconstruct, np.ndarray, np.dtype,
                                        type(np.dtype("float64"))]):
        np.testing.assert_array_equal(mg.load(tmp_path / "a.pt"), a)


def test_tensors_of_every_dtype_need_no_numpy_global(tmp_path):
    """Tensors, Parameters, devices and state dicts load with the default allowlist; the storage
    travels as bytes (16-bit formats bit for bit, a transposed view as its values)."""
    objs = {d: mg.arange(6).to(getattr(mg, d)).reshape(2, 3).t()
            for d in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8",
                      "bool")}
    lin = mg.nn.Linear(3, 2)
    objs.update(param=lin.weight, sd=lin.state_dict(), dev=mg.device("cpu"), dt=mg.bfloat16,
                size=mg.zeros(2, 3).shape)
    mg.save(objs, tmp_path / "x.pt")
    back = mg.load(tmp_path / "x.pt")
    for k, v in objs.items():
        if isinstance(v, mg.Tensor):
            assert back[k].dtype == v.dtype and back[k].shape == v.shape
            assert back[k].requires_grad == v.requires_grad
            assert np.array_equal(back[k].detach().float().numpy(), v.detach().float().numpy())
    assert isinstance(back["param"], mg.nn.Parameter)
    assert back["dev"] == objs["dev"] and back["dt"] is mg.bfloat16 and back["size"] == (2, 3)
