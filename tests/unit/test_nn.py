"""minigrad.nn against torch.nn: repr strings, registration, traversal, state_dict and its
errors, dtype conversion, hooks, containers, pickling."""
from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

import minigrad
import minigrad.nn as nn


def _m(t):
    """torch tensor -> minigrad tensor (a copy, same dtype)."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return minigrad.tensor(t.float().numpy()).to(minigrad.bfloat16)
    return minigrad.from_numpy(t.numpy().copy())


def _np(t):
    """minigrad tensor -> float64 numpy."""
    return np.asarray(t.detach()._data, dtype=np.float64)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("torch.", "minigrad.")
    return None


def _copy_params(dst, src):
    """Copy torch module ``src``'s parameters into minigrad module ``dst`` (same names)."""
    sd = {k: _m(v) for k, v in src.state_dict().items()}
    dst.load_state_dict(sd)


# ---------------------------------------------------------------- model builders
def _build(lib):
    class Block(lib.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.Linear(4, 3)
            self.act = lib.Tanh()
            self.register_buffer("running", lib_zeros(lib, 3))
            self.register_buffer("scratch", lib_zeros(lib, 2), persistent=False)
            self.scale = lib.Parameter(lib_ones(lib, 1))

        def forward(self, x):
            return self.act(self.fc(x)) * self.scale

        def extra_repr(self):
            return "custom=1"

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = lib.Sequential(lib.Linear(3, 5), lib.ReLU(), lib.Linear(5, 2, bias=False))
            self.shared = self.head[0]           # the same module twice
            self.extra = lib.Parameter(lib_zeros(lib, 2, 2))

        def forward(self, x):
            return self.head(self.block(x))

    return Net()


def lib_zeros(lib, *s):
    return (torch if lib is torch.nn else minigrad).zeros(*s)


def lib_ones(lib, *s):
    return (torch if lib is torch.nn else minigrad).ones(*s)


# ---------------------------------------------------------------- repr
def _layers(lib):
    return lib.Sequential(lib.Linear(10, 32), lib.ReLU(), lib.Linear(32, 32, bias=False),
                          lib.Tanh(), lib.Sigmoid(), lib.Softmax(dim=1), lib.LogSoftmax(-1),
                          lib.Flatten(), lib.Identity(), lib.ReLU(inplace=True),
                          lib.Sequential(lib.Linear(2, 2)), lib.Softmax())


def test_repr_matches_torch():
    assert repr(_layers(nn)) == repr(_layers(torch.nn))
    assert repr(_build(nn)) == repr(_build(torch.nn))
    assert repr(nn.Sequential()) == repr(torch.nn.Sequential()) == "Sequential()"
    for name in ("CrossEntropyLoss", "NLLLoss", "MSELoss", "Identity"):
        assert repr(getattr(nn, name)()) == repr(getattr(torch.nn, name)())
    assert repr(nn.Flatten(0, 2)) == repr(torch.nn.Flatten(0, 2))


def test_modulelist_repr_compresses_repeats():
    def mk(lib):
        return lib.ModuleList([lib.Linear(2, 2), lib.Linear(2, 2), lib.ReLU(), lib.Linear(2, 2),
                               lib.Tanh(), lib.Tanh(), lib.Tanh()])
    assert repr(mk(nn)) == repr(mk(torch.nn))
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())


def test_parameter_repr_and_storage():
    t = minigrad.tensor([1.0, 2.0])
    p = nn.Parameter(t)
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
    q = nn.Parameter(minigrad.tensor([1.0, 2.0]), requires_grad=False)
    assert repr(q) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0]), requires_grad=False))
    assert p.requires_grad and p.is_leaf and isinstance(p, minigrad.Tensor)
    assert np.shares_memory(p._data, t._data)
    assert repr(nn.Parameter()) == repr(torch.nn.Parameter())
    kind, msg = _err(lambda: nn.Parameter(minigrad.tensor([1, 2])))
    assert (kind, msg) == _err(lambda: torch.nn.Parameter(torch.tensor([1, 2])))
    p2 = copy.deepcopy(p)
    assert isinstance(p2, nn.Parameter) and p2.requires_grad
    assert not np.shares_memory(p2._data, p._data)
    p3 = pickle.loads(pickle.dumps(p))
    assert isinstance(p3, nn.Parameter) and p3.tolist() == [1.0, 2.0]


# ---------------------------------------------------------------- traversal and state_dict
def test_names_and_state_dict_order_match_torch():
    m, t = _build(nn), _build(torch.nn)
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in t.named_parameters()]
    assert [k for k, _ in m.named_buffers()] == [k for k, _ in t.named_buffers()]
    assert [k for k, _ in m.named_modules()] == [k for k, _ in t.named_modules()]
    assert [k for k, _ in m.named_children()] == [k for k, _ in t.named_children()]
    assert list(m.state_dict().keys()) == list(t.state_dict().keys())
    assert [k for k, _ in m.named_parameters(prefix="net", recurse=False)] == \
        [k for k, _ in t.named_parameters(prefix="net", recurse=False)]
    assert [k for k, _ in m.named_parameters(remove_duplicate=False)] == \
        [k for k, _ in t.named_parameters(remove_duplicate=False)]
    assert len(list(m.parameters())) == len(list(t.parameters()))
    assert len(list(m.modules())) == len(list(t.modules()))
    sd = m.state_dict()
    assert not sd["block.fc.weight"].requires_grad
    assert np.shares_memory(sd["block.fc.weight"]._data, m.block.fc.weight._data)
    assert m.state_dict(keep_vars=True)["block.fc.weight"] is m.block.fc.weight


def test_load_state_dict_roundtrip_and_cast():
    t = _build(torch.nn)
    m = _build(nn)
    res = m.load_state_dict({k: _m(v.double()) for k, v in t.state_dict().items()})
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == repr(t.load_state_dict(t.state_dict())) == "<All keys matched successfully>"
    for k, v in t.state_dict().items():
        got = m.state_dict()[k]
        assert got.dtype is minigrad.float32
        np.testing.assert_array_equal(_np(got), v.double().numpy())
    x = torch.randn(6, 4)
    np.testing.assert_allclose(_np(m(_m(x))), t(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_load_state_dict_errors_match_torch():
    t, m = _build(torch.nn), _build(nn)
    tsd = t.state_dict()
    bad = OrderedDict((k, v) for k, v in tsd.items() if k != "head.2.weight")
    bad["block.fc.weight"] = torch.zeros(2, 2)
    bad["nope"] = torch.zeros(1)
    bad["head.9.weight"] = torch.zeros(1)
    mbad = OrderedDict((k, _m(v)) for k, v in bad.items())
    assert _err(lambda: m.load_state_dict(mbad)) == _err(lambda: t.load_state_dict(bad))
    # strict=False: no error, keys reported
    small_t = OrderedDict((k, v) for k, v in tsd.items() if k.startswith("head"))
    small_t["junk"] = torch.zeros(1)
    small_m = OrderedDict((k, _m(v)) for k, v in small_t.items())
    rt = t.load_state_dict(small_t, strict=False)
    rm = m.load_state_dict(small_m, strict=False)
    assert (rm.missing_keys, rm.unexpected_keys) == (rt.missing_keys, rt.unexpected_keys)
    assert tuple(rm) == tuple(rt)
    # a non-tensor value
    t2, m2 = torch.nn.Linear(2, 3), nn.Linear(2, 3)
    assert _err(lambda: m2.load_state_dict({"weight": 3, "bias": minigrad.zeros(3)})) == \
        _err(lambda: t2.load_state_dict({"weight": 3, "bias": torch.zeros(3)}))
    assert _err(lambda: m2.load_state_dict([1])) == _err(lambda: t2.load_state_dict([1]))


def test_load_state_dict_copies_in_place():
    m = nn.Linear(3, 2)
    w = m.weight
    m.load_state_dict({"weight": minigrad.ones(2, 3), "bias": minigrad.zeros(2)})
    assert m.weight is w and w.tolist() == [[1.0] * 3] * 2 and m.bias.tolist() == [0.0, 0.0]
    assert w.requires_grad and w.is_leaf


# ---------------------------------------------------------------- registration errors
def _registration_cases(lib, T):
    return [
        lambda m: setattr(m, "weight", 3),
        lambda m: setattr(m, "weight", T.zeros(3, 2)),
        lambda m: m.register_parameter("a.b", None),
        lambda m: m.register_parameter("", None),
        lambda m: m.register_parameter("training", None),
        lambda m: m.register_parameter("x", T.zeros(2)),
        lambda m: m.register_parameter(3, None),
        lambda m: m.register_buffer("x", 3),
        lambda m: m.register_buffer("a.b", None),
        lambda m: m.register_buffer("weight", T.zeros(1)),
        lambda m: m.add_module("x", 3),
        lambda m: m.add_module("a.b", lib.ReLU()),
        lambda m: m.add_module("", lib.ReLU()),
        lambda m: m.add_module("weight", lib.ReLU()),
        lambda m: m.nothing,
        lambda m: m.train(1),
        lambda m: m.to(T.int64),
        lambda m: m.register_parameter("y", lib.Parameter(T.ones(2, requires_grad=True) * 2)),
    ]


def test_registration_errors_match_torch():
    for cm, ct in zip(_registration_cases(nn, minigrad), _registration_cases(torch.nn, torch)):
        got, want = _err(lambda: cm(nn.Linear(2, 3))), _err(lambda: ct(torch.nn.Linear(2, 3)))
        assert got == want, (got, want)
    assert _err(lambda: nn.Module()(1)) == _err(lambda: torch.nn.Module()(1))


def test_setattr_reassignment_and_delete():
    m = nn.Linear(2, 3)
    m.bias = None
    assert m.bias is None and "bias" not in m.state_dict()
    m.register_buffer("buf", minigrad.zeros(1))
    m.buf = minigrad.ones(2)
    assert m.buf.tolist() == [1.0, 1.0] and "buf" in m.state_dict()
    m.sub = nn.ReLU()
    assert [k for k, _ in m.named_children()] == ["sub"]
    del m.sub
    assert list(m.children()) == []
    m.weight = nn.Parameter(minigrad.zeros(3, 2))
    assert m.weight.tolist() == [[0.0, 0.0]] * 3
    with pytest.raises(AttributeError, match="object has no attribute 'sub'"):
        m.sub


# ---------------------------------------------------------------- modes, grads, dtype
def test_train_eval_apply_requires_grad():
    m = _build(nn)
    assert m.training and all(x.training for x in m.modules())
    assert m.eval() is m and not any(x.training for x in m.modules())
    m.train()
    assert all(x.training for x in m.modules())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    ts = []
    _build(torch.nn).apply(lambda mod: ts.append(type(mod).__name__))
    assert seen == ts
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_zero_grad():
    m = nn.Linear(2, 2)
    for p in m.parameters():
        p.grad = minigrad.ones(p.shape)
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


@pytest.mark.parametrize("meth,tdt", [("half", torch.float16), ("bfloat16", torch.bfloat16),
                                      ("double", torch.float64), ("float", torch.float32)])
def test_dtype_conversion_in_place(meth, tdt):
    t = torch.nn.Linear(5, 3)
    t.register_buffer("count", torch.tensor([3]))
    t.register_buffer("stat", torch.tensor([0.1, 0.2]))
    m = nn.Linear(5, 3)
    m.register_buffer("count", minigrad.tensor([3]))
    m.register_buffer("stat", minigrad.tensor([0.1, 0.2]))
    _copy_params(m, t)
    m.weight.grad = _m(torch.full((3, 5), 0.3))
    w_obj = m.weight
    assert getattr(m, meth)() is m
    getattr(t, meth)()
    assert m.weight is w_obj and isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    for k, v in t.state_dict().items():
        got = m.state_dict()[k]
        assert got.dtype.name == str(v.dtype).replace("torch.", "")
        np.testing.assert_array_equal(_np(got), v.double().numpy())
    assert m.weight.grad.dtype.name == str(tdt).replace("torch.", "")
    assert m.count.dtype is minigrad.int64


def test_to_dtype_argument_forms():
    m = nn.Linear(2, 2)
    assert m.to(minigrad.float64).weight.dtype is minigrad.float64
    assert m.to("cpu", dtype=minigrad.float16).weight.dtype is minigrad.float16
    assert m.to(minigrad.zeros(1, dtype=minigrad.bfloat16)).bias.dtype is minigrad.bfloat16
    assert m.to("cpu") is m


# ---------------------------------------------------------------- hooks
def test_forward_hooks():
    m = nn.Identity()
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 2,)

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = m.register_forward_pre_hook(pre)
    h2 = m.register_forward_hook(post)
    assert m(minigrad.tensor([1.0])).tolist() == [3.0]
    assert calls == ["pre", "post"]
    h1.remove()
    with h2:
        assert m(minigrad.tensor([1.0])).tolist() == [2.0]
    assert m(minigrad.tensor([1.0])).tolist() == [1.0]
    m.register_forward_pre_hook(lambda mod, a, k: ((a[0] * 5,), k), with_kwargs=True)
    assert m(minigrad.tensor([1.0])).tolist() == [5.0]


# ---------------------------------------------------------------- containers
def test_sequential_indexing_like_torch():
    def mk(lib):
        return lib.Sequential(lib.Linear(1, 2), lib.ReLU(), lib.Tanh(), lib.Sigmoid())
    m, t = mk(nn), mk(torch.nn)
    assert len(m) == len(t) == 4
    assert type(m[-1]).__name__ == type(t[-1]).__name__ == "Sigmoid"
    assert repr(m[1:3]) == repr(t[1:3])
    assert list(m[1:3]._modules) == list(t[1:3]._modules) == ["1", "2"]
    assert [type(x).__name__ for x in m] == [type(x).__name__ for x in t]
    assert _err(lambda: m[4]) == _err(lambda: t[4])
    assert _err(lambda: m[-5]) == _err(lambda: t[-5])
    del m[1]
    del t[1]
    assert repr(m) == repr(t)
    m.append(nn.ReLU())
    t.append(torch.nn.ReLU())
    m.insert(0, nn.Tanh())
    t.insert(0, torch.nn.Tanh())
    m[1] = nn.Identity()
    t[1] = torch.nn.Identity()
    assert repr(m) == repr(t)
    od = nn.Sequential(OrderedDict(a=nn.ReLU(), b=nn.Tanh()))
    assert list(od.state_dict()) == [] and [k for k, _ in od.named_children()] == ["a", "b"]


def test_modulelist_like_torch():
    def mk(lib):
        ml = lib.ModuleList([lib.Linear(1, 1), lib.ReLU()])
        ml.append(lib.Tanh())
        ml.extend([lib.Sigmoid()])
        ml.insert(1, lib.Identity())
        ml += [lib.ReLU()]
        return ml
    m, t = mk(nn), mk(torch.nn)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    assert _err(lambda: m[9]) == _err(lambda: t[9])
    assert repr(m[1:3]) == repr(t[1:3])
    del m[0]
    del t[0]
    assert repr(m) == repr(t)
    assert _err(lambda: m.extend(3)) == _err(lambda: t.extend(3))


def test_module_deepcopy_and_pickle():
    m = _build(nn)
    m2 = copy.deepcopy(m)
    assert list(m2.state_dict()) == list(m.state_dict())
    assert m2.shared is m2.head[0] and m2.block.fc.weight is not m.block.fc.weight
    m3 = pickle.loads(pickle.dumps(m.head))
    assert repr(m3) == repr(m.head)
    assert isinstance(m3[0].weight, nn.Parameter)
