"""``save`` / ``load`` of tensors sharing one storage, and ``load``'s ``mmap`` and
``map_location`` forms, against PyTorch 2.13: views saved together still share memory after
loading, with PyTorch's offsets, strides, storage sizes, leaf-ness and version counters."""
from __future__ import annotations

import io
import pickle
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def _views(lib):
    t = lib.arange(6.0)
    p = lib.nn.Parameter(lib.arange(4.0))
    return t, p, {"t": t, "v": t[1:], "w": t.view(2, 3), "T": t.view(2, 3).T, "s": t[::2],
                  "e": t[:1].expand(3), "p": p, "pv": p[1:], "d": t.detach()}


def _roundtrip(lib, obj, **kw):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return lib.load(buf, **kw)


def _layout(d):
    return {k: (type(v).__name__, tuple(v.shape), v.stride(), v.storage_offset(),
                v.untyped_storage().nbytes(), v.requires_grad, v.is_leaf, v._base is None,
                v._version, v.dtype.__repr__().split(".")[-1]) for k, v in d.items()}


def test_views_keep_layout_as_torch():
    got = _layout(_roundtrip(mg, _views(mg)[2]))
    want = _layout(_roundtrip(torch, _views(torch)[2]))
    assert got == want


@pytest.mark.parametrize("weights_only", [True, False])
def test_views_share_memory_after_load(weights_only):
    for lib in (mg, torch):
        d = _roundtrip(lib, _views(lib)[2], weights_only=weights_only)
        with lib.no_grad():
            d["v"][0] = 100.0
            d["T"][2, 1] = -5.0
            d["p"][3] = 9.0
        res = {k: v.detach().tolist() for k, v in d.items()}
        if lib is torch:
            assert res == mine
        else:
            mine = res
    assert mine["t"] == [0.0, 100.0, 2.0, 3.0, 4.0, -5.0] and mine["pv"] == [1.0, 2.0, 9.0]


def test_a_slice_alone_saves_the_whole_storage():
    got = _roundtrip(mg, mg.arange(6.0)[2:4])
    want = _roundtrip(torch, torch.arange(6.0)[2:4])
    assert (got.tolist(), got.storage_offset(), got.untyped_storage().nbytes()) == \
        (want.tolist(), want.storage_offset(), want.untyped_storage().nbytes())


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "int64", "bool"])
def test_dtype_views_bit_exact(dt):
    t = mg.tensor([[1.0, -0.0, 3.0], [float("inf"), 2.5, 0.0]]).to(getattr(mg, dt))
    r = _roundtrip(mg, [t, t[:, 1:], t.t()])
    assert all(a.dtype is getattr(mg, dt) for a in r)
    assert np.array_equal(np.asarray(r[0]._data).view(np.uint8),
                          np.asarray(t._data).view(np.uint8))
    assert r[1].tolist() == t[:, 1:].tolist() and r[2].tolist() == t.t().tolist()
    assert r[1].data_ptr() == r[0].data_ptr() + r[0].element_size()


def test_separate_pickles_do_not_share():
    t = mg.arange(3.0)
    a, b = pickle.loads(pickle.dumps(t)), pickle.loads(pickle.dumps(t[1:]))
    a[1] = 7.0
    assert b.tolist() == [1.0, 2.0]


def test_mmap_path_and_file_object(tmp_path):
    for lib in (mg, torch):
        path = tmp_path / f"{lib.__name__}.pt"
        t = lib.arange(6.0)
        lib.save({"t": t, "v": t[2:]}, path)
        d = lib.load(path, mmap=True)
        d["t"][3] = 50.0
        assert d["v"].tolist() == [2.0, 50.0, 4.0, 5.0] and d["v"].storage_offset() == 2
        assert lib.load(str(path), mmap=True, weights_only=True)["v"].tolist() == \
            [2.0, 3.0, 4.0, 5.0]      # the file itself is unchanged (copy-on-write in torch)
        with open(path, "rb") as fh, pytest.raises(
                ValueError, match="^f must be a file path in order to use the mmap argument$"):
            lib.load(fh, mmap=True)


@pytest.mark.parametrize("loc", ["callable", "callable None", "device", "str", "dict"])
def test_map_location_forms(loc, tmp_path):
    for lib in (mg, torch):
        ml = {"callable": lambda s, where: s, "callable None": lambda s, where: None,
              "device": lib.device("cpu"), "str": "cpu", "dict": {"cpu": "cpu"}}[loc]
        path = tmp_path / "ck.pt"
        t = lib.arange(4.0)
        lib.save([t, t[1:]], path)
        a, b = lib.load(path, map_location=ml)
        a[1] = 8.0
        assert str(a.device) == "cpu" and b.tolist() == [8.0, 2.0, 3.0]


def test_map_location_callable_gets_storage_and_location(tmp_path):
    seen = {}
    for lib in (mg, torch):
        path = tmp_path / "ck.pt"
        lib.save(lib.arange(4.0)[1:], path)

        def f(storage, where):
            seen[lib.__name__] = (storage.nbytes(), str(storage.device), where)
            return storage
        lib.load(path, map_location=f)
    assert seen["minigrad"] == seen["torch"] == (16, "cpu", "cpu")


def test_pickle_load_args_warning_and_pickle_module_error(tmp_path):
    for lib in (mg, torch):
        path = tmp_path / "ck.pt"
        lib.save(lib.ones(2), path)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.load(path, encoding="latin1")
        assert [str(x.message) for x in w] == \
            ["pickle_load_args only works if `weights_only=False`."]
        with pytest.raises(RuntimeError, match="^Can not safely load weights when explicit "
                                               "pickle_module is specified$"):
            lib.load(path, pickle_module=pickle, weights_only=True)


def test_cuda_views_count_one_storage_and_callable_moves(tmp_path):
    t = mg.arange(256.0, device="cuda")
    path = tmp_path / "ck.pt"
    mg.save([t, t[1:], t.view(16, 16).T], path)
    del t
    before = mg.cuda.memory_allocated()
    got = mg.load(path)
    assert all(str(g.device) == "cuda:0" for g in got)
    assert mg.cuda.memory_allocated() - before == 1024          # one storage, counted once
    cpu = mg.load(path, map_location=lambda s, loc: s.cpu())
    assert all(str(g.device) == "cpu" for g in cpu)
    back = mg.load(path, map_location=lambda s, loc: s.cuda(0))
    assert all(str(g.device) == "cuda:0" for g in back)
