"""PyTorch's checkpoint format both ways: ``torch.save`` files read by ``minigrad.load`` and
``minigrad.save`` files read by ``torch.load`` (``weights_only=True``): state dicts with their
``_metadata``, optimizer state dicts (training continues bit for bit), plain and nested tensors,
views sharing a storage (offsets, strides, storage sizes), every dtype's bits (fp16/bf16/bool/
ints/float8), ``map_location``, ``mmap``, the weights-only allowlist on torch's files, the
archive's records and alignment, and minigrad's former plain-pickle files."""
from __future__ import annotations

import collections
import io
import pickle
import zipfile

import numpy as np
import pytest
import torch

import minigrad as mg

DTYPES = ["float32", "float64", "float16", "bfloat16", "bool", "uint8", "int8", "int16",
          "int32", "int64", "float8_e4m3fn", "float8_e5m2"]


def _bits(t):
    """A tensor's values as raw bytes in C order (torch or minigrad)."""
    if isinstance(t, torch.Tensor):
        t = t.detach().contiguous()
        return t.view(torch.uint8).numpy().tobytes() if t.dim() else \
            t.reshape(1).view(torch.uint8).numpy().tobytes()
    return np.ascontiguousarray(t._data).tobytes()


def _layout(t):
    return (tuple(t.shape), tuple(t.stride()), t.storage_offset(),
            t.untyped_storage().nbytes(), str(t.dtype).split(".")[-1], t.requires_grad,
            type(t).__name__)


def _torch_values():
    g = torch.Generator().manual_seed(0)
    return {d: (torch.randn(2, 3, generator=g) * 4).to(getattr(torch, d)) for d in DTYPES}


def _same_structure(m, t):
    """``m`` (minigrad) mirrors ``t`` (torch): containers, keys, tensors bit for bit."""
    if isinstance(t, torch.Tensor):
        assert isinstance(m, mg.Tensor) and _layout(m) == _layout(t)
        assert _bits(m) == _bits(t)
    elif isinstance(t, dict):
        assert type(m) is type(t) and list(m) == list(t)
        for k in t:
            _same_structure(m[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(m) is type(t) and len(m) == len(t)
        for a, b in zip(m, t):
            _same_structure(a, b)
    else:
        assert m == t


def _torch_to_mg(obj, tmp_path, **kw):
    torch.save(obj, tmp_path / "t.pt")
    return mg.load(tmp_path / "t.pt", **kw)


def _mg_to_torch(obj, tmp_path, **kw):
    mg.save(obj, tmp_path / "m.pt")
    return torch.load(tmp_path / "m.pt", **kw)


def test_every_dtype_bit_exact_both_ways(tmp_path):
    tv = _torch_values()
    _same_structure(_torch_to_mg(tv, tmp_path), tv)
    mv = {k: mg.testing.from_torch(v) for k, v in tv.items()}
    back = _mg_to_torch(mv, tmp_path)
    _same_structure(mv, back)
    assert all(back[d].dtype is getattr(torch, d) for d in DTYPES)


def _views(lib):
    t = lib.arange(12.0).to(lib.bfloat16)
    p = lib.nn.Parameter(lib.arange(4.0, dtype=lib.float16))
    return {"t": t, "v": t[2:], "w": t.view(3, 4), "T": t.view(3, 4).T, "s": t[1::3],
            "e": t[:1].expand(3), "p": p, "pv": p[1:], "scalar": lib.tensor(2.5),
            "empty": lib.zeros(0, 3), "i": lib.arange(5)[1:4], "b": lib.ones(2, dtype=lib.bool)}


def test_views_share_storage_with_torchs_layout_both_ways(tmp_path):
    from_torch = _torch_to_mg(_views(torch), tmp_path)
    from_mg = _mg_to_torch(_views(mg), tmp_path)
    want = _views(torch)
    for k in want:
        assert _layout(from_torch[k]) == _layout(want[k]) == _layout(from_mg[k]), k
        assert _bits(from_torch[k]) == _bits(want[k]) == _bits(from_mg[k]), k
    for d, lib in ((from_torch, mg), (from_mg, torch)):
        with lib.no_grad():
            d["v"][0] = 100.0
            d["p"][3] = 9.0
        assert d["w"][0, 2].item() == 100.0 and d["T"][2, 0].item() == 100.0
        assert d["pv"].tolist() == [1.0, 2.0, 9.0]


def test_nested_containers_and_plain_objects_both_ways(tmp_path):
    for lib, other, go in ((torch, mg, _torch_to_mg), (mg, torch, _mg_to_torch)):
        x = lib.arange(3.0)
        obj = {"list": [x, (x[1:], 3)], "od": collections.OrderedDict(a=x), "n": None,
               "s": {1, 2}, "f": 1.5, "str": "hi", "bytes": b"ab", "c": 1 + 2j,
               "dt": lib.float16, "dev": lib.device("cpu"), "size": lib.Size([2, 3]),
               "counter": collections.Counter("aab")}
        got = go(obj, tmp_path)
        assert got["list"][1][0].tolist() == [1.0, 2.0] and got["list"][1][1] == 3
        assert type(got["od"]) is collections.OrderedDict and got["od"]["a"].tolist() == \
            [0.0, 1.0, 2.0]
        assert got["dt"] is other.float16 and got["dev"] == other.device("cpu")
        assert type(got["size"]) is other.Size and got["size"] == (2, 3)
        assert (got["n"], got["s"], got["f"], got["str"], got["bytes"], got["c"],
                got["counter"]) == (None, {1, 2}, 1.5, "hi", b"ab", 1 + 2j,
                                    collections.Counter("aab"))
        got["list"][0][0] = 5.0
        assert got["list"][1][0].tolist() == [1.0, 2.0]     # x[1:] still a view of x


def _nets(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3), lib.nn.ReLU(),
                             lib.nn.Flatten(), lib.nn.Linear(12, 4))


def test_state_dict_with_metadata_and_buffers_from_torch(tmp_path):
    torch.manual_seed(0)
    tn = _nets(torch)
    tn(torch.randn(5, 2, 4, 4))                 # running stats and num_batches_tracked move
    tn.eval()
    sd = _torch_to_mg(tn.state_dict(), tmp_path)
    _same_structure(sd, tn.state_dict())
    assert sd._metadata == tn.state_dict()._metadata
    assert sd["1.num_batches_tracked"].dtype is mg.int64
    mn = _nets(mg)
    mn.load_state_dict(sd)
    mn.eval()
    x = np.random.default_rng(1).normal(size=(2, 2, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(mn(mg.tensor(x)).detach().numpy(),
                               tn(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_state_dict_from_minigrad_loads_into_torch(tmp_path):
    mg.manual_seed(0)
    mn = _nets(mg)
    mn(mg.randn(5, 2, 4, 4))
    sd = _mg_to_torch(mn.state_dict(), tmp_path)        # weights_only=True, the default
    _same_structure(mn.state_dict(), sd)
    assert sd._metadata == mn.state_dict()._metadata
    tn = _nets(torch)
    res = tn.load_state_dict(sd)
    assert not res.missing_keys and not res.unexpected_keys


@pytest.mark.parametrize("opt", ["Adam", "SGD"])
def test_optimizer_checkpoint_resumes_bit_for_bit_across_libraries(opt, tmp_path):
    """Step in one library, checkpoint model and optimizer, resume in the other: the next step
    (same gradients) gives the same bits as continuing where the checkpoint was made."""
    kw = {"Adam": dict(lr=1e-2, betas=(0.8, 0.9)), "SGD": dict(lr=0.1, momentum=0.9)}[opt]
    rng = np.random.default_rng(2)
    grads = [[rng.normal(size=s).astype(np.float32) for s in ((4, 5), (4,))]
             for _ in range(3)]

    def step(lib, model, o, g):
        for p, gv in zip(model.parameters(), g):
            p.grad = lib.tensor(gv)
        o.step()

    for src, dst in ((torch, mg), (mg, torch)):
        src.manual_seed(0)
        m1 = src.nn.Linear(5, 4)
        o1 = getattr(src.optim, opt)(m1.parameters(), **kw)
        for g in grads[:2]:
            step(src, m1, o1, g)
        src.save({"model": m1.state_dict(), "opt": o1.state_dict()}, tmp_path / "ck.pt")
        ck = dst.load(tmp_path / "ck.pt")
        m2 = dst.nn.Linear(5, 4)
        m2.load_state_dict(ck["model"])
        o2 = getattr(dst.optim, opt)(m2.parameters(), lr=123.0)
        o2.load_state_dict(ck["opt"])
        assert o2.param_groups[0]["lr"] == kw["lr"]
        step(src, m1, o1, grads[2])
        step(dst, m2, o2, grads[2])
        for a, b in zip(m1.parameters(), m2.parameters()):
            assert _bits(a) == _bits(b)


def test_plain_tensor_and_parameter_from_torch(tmp_path):
    t = torch.randn(3, 4).t()
    got = _torch_to_mg(t, tmp_path)
    assert type(got) is mg.Tensor and _layout(got) == _layout(t) and _bits(got) == _bits(t)
    assert got.is_leaf and got._version == 1
    p = torch.nn.Parameter(torch.randn(2, dtype=torch.bfloat16), requires_grad=False)
    got = _torch_to_mg(p, tmp_path)
    assert type(got) is mg.nn.Parameter and not got.requires_grad and _bits(got) == _bits(p)
    leaf = torch.ones(2, requires_grad=True)
    got = _torch_to_mg([leaf, leaf], tmp_path)
    assert got[0].requires_grad and got[0] is got[1]


class Custom:
    """A user class: not in the weights-only allowlist."""

    def __init__(self, v=1):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Custom) and other.v == self.v


def _message(f):
    try:
        f()
    except pickle.UnpicklingError as e:
        return str(e).split("WeightsUnpickler error: ")[1].split(" was not")[0]
    return "loaded"


def test_weights_only_on_torchs_files_refuses_what_torch_refuses(tmp_path):
    path = tmp_path / "c.pt"
    for obj in (Custom(3), np.arange(3.0), slice(1, 2), collections.defaultdict(int),
                torch.nn.Linear(2, 2)):
        torch.save({"x": obj}, path)
        want = _message(lambda: torch.load(path))
        assert _message(lambda: mg.load(path)) == want, obj
    torch.save({"x": Custom(3), "t": torch.ones(2)}, path)
    with mg.serialization.safe_globals([Custom]):
        got = mg.load(path)
    assert got["x"] == Custom(3) and got["t"].tolist() == [1.0, 1.0]
    got = mg.load(path, weights_only=False)
    assert got["x"] == Custom(3) and isinstance(got["t"], mg.Tensor)


def test_map_location_and_mmap_on_torchs_files(tmp_path):
    path = tmp_path / "t.pt"
    t = torch.arange(8.0)
    torch.save({"t": t, "v": t[3:]}, path)
    seen = []
    for ml in (None, "cpu", mg.device("cuda"), {"cpu": "cuda:0"},
               lambda s, loc: seen.append((s.nbytes(), loc)) or s.cuda()):
        got = mg.load(path, map_location=ml)
        want = "cpu" if ml in (None, "cpu") else "cuda:0"
        assert str(got["t"].device).startswith(want[:4]) and got["v"].device == got["t"].device
        assert got["v"].storage_offset() == 3 and got["v"].tolist() == [3.0, 4.0, 5.0, 6.0, 7.0]
    assert seen == [(32, "cpu")]                 # once per storage, as torch calls it
    got = mg.load(path, mmap=True)
    got["t"][4] = -1.0
    assert got["v"][1].item() == -1.0 and mg.load(path)["v"][1].item() == 4.0


def test_cuda_checkpoint_from_minigrad_loads_in_torch_on_the_cpu(tmp_path):
    x = mg.arange(6.0, device="cuda")
    mg.save({"x": x, "v": x[2:]}, tmp_path / "m.pt")
    z = zipfile.ZipFile(tmp_path / "m.pt")
    got = torch.load(tmp_path / "m.pt", map_location="cpu")
    assert got["v"].tolist() == [2.0, 3.0, 4.0, 5.0] and got["v"].storage_offset() == 2
    assert b"cuda:0" in z.read("m/data.pkl")
    assert str(mg.load(tmp_path / "m.pt")["v"].device) == "cuda:0"


def test_archive_records_and_alignment_as_torchs(tmp_path):
    obj = {"a": torch.arange(3.0), "b": torch.ones(5, dtype=torch.float16)}
    torch.save(obj, tmp_path / "ckpt.pt")
    (tmp_path / "x").mkdir()
    mg.save({k: mg.testing.from_torch(v) for k, v in obj.items()}, tmp_path / "x" / "ckpt.pt")
    zt, zm = zipfile.ZipFile(tmp_path / "ckpt.pt"), zipfile.ZipFile(tmp_path / "x/ckpt.pt")
    assert zm.namelist() == zt.namelist()
    for name in ("ckpt/.format_version", "ckpt/.storage_alignment", "ckpt/byteorder",
                 "ckpt/version", "ckpt/data/0", "ckpt/data/1"):
        assert zm.read(name) == zt.read(name), name
    assert len(zm.read("ckpt/.data/serialization_id")) == 40
    raw = (tmp_path / "x/ckpt.pt").read_bytes()
    for info in zm.infolist():
        n, e = np.frombuffer(raw[info.header_offset + 26:info.header_offset + 30], "<u2")
        assert (info.header_offset + 30 + n + e) % 64 == 0, info.filename
    buf = io.BytesIO()
    mg.save(mg.ones(1), buf)
    assert zipfile.ZipFile(buf).namelist()[0] == "archive/data.pkl"
    assert torch.load(tmp_path / "x/ckpt.pt", mmap=True)["b"].tolist() == [1.0] * 5


def test_minigrads_former_plain_pickle_files_still_load(tmp_path):
    t = mg.arange(6.0).to(mg.bfloat16)
    lin = mg.nn.Linear(2, 2)
    path = tmp_path / "old.pt"
    with open(path, "wb") as fh:              # what minigrad.save wrote before the zip format
        pickle.Pickler(fh, protocol=pickle.DEFAULT_PROTOCOL).dump(
            {"t": t, "v": t[2:], "sd": lin.state_dict()})
    got = mg.load(path)
    assert got["v"].storage_offset() == 2 and _bits(got["t"]) == _bits(t)
    got["t"][3] = 50.0
    assert got["v"][1].item() == 50.0
    assert _bits(got["sd"]["weight"]) == _bits(lin.weight)


def test_tensor_attributes_and_subclasses_travel_as_torchs(tmp_path):
    p = mg.nn.Parameter(mg.ones(2))
    p.note = "hi"
    got = _mg_to_torch({"p": p}, tmp_path)
    assert got["p"].note == "hi" and isinstance(got["p"], torch.nn.Parameter)
    tp = torch.nn.Parameter(torch.ones(2))
    tp.note = "yo"
    assert _torch_to_mg(tp, tmp_path).note == "yo"


def test_views_of_one_storage_as_two_dtypes_are_refused_as_torch():
    for lib in (torch, mg):
        t = lib.zeros(4)
        with pytest.raises(RuntimeError, match="^Cannot save multiple tensors or storages that "
                                               "view the same data as different types$"):
            lib.save([t, t.view(lib.int32)], io.BytesIO())


def test_torch_whole_model_loads_as_minigrads_modules(tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    torch.save(tm, tmp_path / "whole.pt")
    assert _message(lambda: mg.load(tmp_path / "whole.pt")) == \
        _message(lambda: torch.load(tmp_path / "whole.pt")) == \
        "Unsupported global: GLOBAL torch.nn.modules.container.Sequential"
    for kw in ({"weights_only": False}, {}):
        if kw:
            mm = mg.load(tmp_path / "whole.pt", **kw)
        else:                      # allowlisting minigrad's classes (torch.nn.X under import as)
            with mg.serialization.safe_globals([mg.nn.Sequential, mg.nn.Linear, mg.nn.ReLU,
                                                set]):
                mm = mg.load(tmp_path / "whole.pt")
        assert type(mm) is mg.nn.Sequential and type(mm[0]) is mg.nn.Linear
        assert type(mm[0].weight) is mg.nn.Parameter
        x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
        np.testing.assert_allclose(mm(mg.tensor(x)).detach().numpy(),
                                   tm(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-7)
