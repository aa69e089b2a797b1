"""Containers and shape modules against torch.nn: ``ModuleDict``, ``ParameterList``,
``ParameterDict`` (methods, order, errors, ``repr``, registration and ``state_dict`` keys),
``Identity``, ``Flatten``, ``Unflatten`` and ``minigrad.unflatten`` (shapes, views, gradients,
errors), and the ``nn.modules`` package paths that pickles name."""
from __future__ import annotations

import inspect
from collections import OrderedDict

import numpy as np
import pytest
import torch

import minigrad
import minigrad.nn as nn
from tests.unit.test_nn import _err, _np


def _both(build):
    """``build(lib_nn, lib)`` run with minigrad and with torch."""
    return build(nn, minigrad), build(torch.nn, torch)


def _same_repr(m, t):
    assert repr(m) == repr(t).replace("torch.", "minigrad.")


# ---------------------------------------------------------------- ModuleDict
def test_module_dict_behaviour_matches_torch():
    def build(lnn, lib):
        d = lnn.ModuleDict({"b": lnn.ReLU(), "a": lnn.Linear(2, 3)})
        d["c"] = lnn.Tanh()
        d.update([("z", lnn.Identity()), ("a", lnn.Linear(3, 1))])
        d.update(OrderedDict(y=lnn.Sigmoid()))
        popped = d.pop("b")
        return d, popped

    (m, mp), (t, tp) = _both(build)
    assert list(m.keys()) == list(t.keys()) == ["a", "c", "z", "y"]
    assert type(mp).__name__ == type(tp).__name__ == "ReLU"
    assert [type(v).__name__ for v in m.values()] == [type(v).__name__ for v in t.values()]
    assert [k for k, _ in m.items()] == list(t)
    assert len(m) == len(t) == 4 and ("c" in m) and ("b" not in m)
    assert list(m.state_dict()) == list(t.state_dict()) == ["a.weight", "a.bias"]
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    _same_repr(m, t)
    del m["c"], t["c"]
    assert list(m) == list(t)
    m.clear()
    t.clear()
    assert len(m) == len(t) == 0


def test_module_dict_errors_match_torch():
    for args in [(5,), ([("a",)],), ([3],)]:
        assert _err(lambda: nn.ModuleDict(*args)) == _err(lambda: torch.nn.ModuleDict(*args))
    assert _err(lambda: nn.ModuleDict({"a": 3})) == _err(lambda: torch.nn.ModuleDict({"a": 3}))
    assert _err(lambda: nn.ModuleDict({"a.b": nn.ReLU()})) == \
        _err(lambda: torch.nn.ModuleDict({"a.b": torch.nn.ReLU()}))
    assert _err(lambda: nn.ModuleDict()["x"]) == _err(lambda: torch.nn.ModuleDict()["x"])
    assert _err(lambda: nn.ModuleDict()(1)) == _err(lambda: torch.nn.ModuleDict()(1))


# ---------------------------------------------------------------- ParameterList
def test_parameter_list_behaviour_matches_torch():
    arrs = [np.arange(6.0).reshape(2, 3), np.ones(4), np.full((1, 2, 2), 3.0)]

    def build(lnn, lib):
        mk = (lambda a: lib.tensor(a, dtype=lib.float32))
        pl = lnn.ParameterList([mk(arrs[0]), lnn.Parameter(mk(arrs[1]))])
        pl.append(mk(arrs[2]))
        pl.extend(["a string", mk(arrs[0][0])])
        pl[1] = mk(arrs[1] * 2)
        return pl

    m, t = build(nn, minigrad), build(torch.nn, torch)
    assert len(m) == len(t) == 5
    for a, b in zip(m, t):
        assert type(a).__name__ == type(b).__name__
        if isinstance(b, torch.Tensor):
            assert isinstance(a, nn.Parameter) and np.array_equal(_np(a), b.detach().numpy())
    assert list(m.state_dict()) == list(t.state_dict()) == ["0", "1", "2", "4"]
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    _same_repr(m, t)
    _same_repr(m[1:4], t[1:4])
    _same_repr(m[::-2], t[::-2])
    assert np.array_equal(_np(m[-1]), t[-1].detach().numpy())
    _same_repr(nn.ParameterList([minigrad.ones(2)]), torch.nn.ParameterList([torch.ones(2)]))
    assert "0" not in dir(m) and "append" in dir(m)
    m.zero_grad()
    # a ParameterList inside a module: dotted keys as torch
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([minigrad.ones(2), minigrad.ones(3)])

    class THolder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = torch.nn.ParameterList([torch.ones(2), torch.ones(3)])

    assert list(Holder().state_dict()) == list(THolder().state_dict()) == ["ps.0", "ps.1"]
    h = Holder()
    h.load_state_dict({"ps.0": minigrad.zeros(2), "ps.1": minigrad.full((3,), 2.0)})
    assert _np(h.ps[1]).tolist() == [2.0, 2.0, 2.0]


def test_parameter_list_errors_match_torch():
    m = nn.ParameterList([minigrad.ones(1)])
    t = torch.nn.ParameterList([torch.ones(1)])
    for f in [lambda pl: pl[3], lambda pl: pl[-2], lambda pl: pl.extend(5), lambda pl: pl(1),
              lambda pl: pl.extend(pl[0] * 1), lambda pl: pl.__setitem__(4, 1.0)]:
        assert _err(lambda: f(m)) == _err(lambda: f(t))
        assert _err(lambda: f(m)) is not None


# ---------------------------------------------------------------- ParameterDict
def test_parameter_dict_behaviour_matches_torch():
    def build(lnn, lib):
        mk = (lambda *s: lib.ones(*s))
        pd = lnn.ParameterDict({"z": mk(2), "b": mk(2, 3)})       # plain dict: sorted
        pd.update(OrderedDict([("y", mk(1)), ("a", 7)]))            # ordered: kept
        pd.update([("x", lnn.Parameter(mk(3)))])
        pd["c"] = mk(4).to(lib.float16)
        d = pd.setdefault("w", mk(5))
        pd.setdefault("w", mk(6))
        return pd, d

    (m, md), (t, td) = _both(build)
    assert list(m) == list(t) == ["b", "z", "y", "a", "x", "c", "w"]
    assert list(reversed(m)) == list(reversed(t))
    assert tuple(md.shape) == tuple(td.shape) == (5,)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert m.get("a") == t.get("a") == 7 and m.get("q", 1) == t.get("q", 1) == 1
    assert m["c"].dtype is minigrad.float16 and isinstance(m["c"], nn.Parameter)
    _same_repr(m, t)
    assert m.popitem()[0] == t.popitem()[0] == "w"
    assert m.pop("a") == t.pop("a") == 7
    assert list(m.copy()) == list(t.copy())
    assert m.copy()["b"] is m["b"]
    assert list(m.fromkeys(["p", "q"])) == list(t.fromkeys(["p", "q"]))
    mo = m | nn.ParameterDict(OrderedDict(k=minigrad.ones(1)))
    to = t | torch.nn.ParameterDict(OrderedDict(k=torch.ones(1)))
    assert list(mo) == list(to) and list(m) == list(t)
    m |= nn.ParameterDict({"k2": minigrad.ones(1)})
    t |= torch.nn.ParameterDict({"k2": torch.ones(1)})
    assert list(m) == list(t)
    del m["b"], t["b"]
    assert list(m) == list(t) and "b" not in m and len(m) == len(t)
    m.clear()
    t.clear()
    assert len(m) == len(t) == 0 and list(m.state_dict()) == []


def test_parameter_dict_errors_match_torch():
    m, t = nn.ParameterDict(), torch.nn.ParameterDict()
    for f in [lambda pd: pd[3], lambda pd: pd["missing"], lambda pd: pd.update(5),
              lambda pd: pd.update([("a",)]), lambda pd: pd.update([3]), lambda pd: pd(1),
              lambda pd: pd.popitem()]:
        assert _err(lambda: f(m)) == _err(lambda: f(t))
        assert _err(lambda: f(m)) is not None
    assert _err(lambda: m.__setitem__("a.b", minigrad.ones(1))) == \
        _err(lambda: t.__setitem__("a.b", torch.ones(1))) != None  # noqa: E711


# ---------------------------------------------------------------- Identity, Flatten, Unflatten
@pytest.mark.parametrize("dim,sizes", [(1, (2, 3)), (1, (2, -1)), (-1, [3, 2]), (0, (1, 2)),
                                       (2, (1, 1, 5))])
def test_unflatten_module_and_function_match_torch(dim, sizes):
    x = np.random.default_rng(0).standard_normal((2, 6, 5)).astype(np.float32)
    if dim == 1 or dim == -1:
        x = x[:, :, 0] if dim == -1 else x
    mx = minigrad.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    mm, tm = nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
    _same_repr(mm, tm)
    my, ty = mm(mx), tm(tx)
    assert tuple(my.shape) == tuple(ty.shape)
    assert np.array_equal(_np(my), ty.detach().numpy())
    assert type(my.grad_fn).__name__ == type(ty.grad_fn).__name__ == "ViewBackward0"
    assert my._base is not None                    # a view of the input
    g = np.random.default_rng(1).standard_normal(tuple(ty.shape)).astype(np.float32)
    my.backward(minigrad.tensor(g))
    ty.backward(torch.tensor(g))
    assert np.array_equal(_np(mx.grad), tx.grad.numpy())
    assert tuple(minigrad.unflatten(mx, dim, sizes).shape) == tuple(ty.shape)


def test_unflatten_of_a_transposed_tensor_is_a_view():
    x = np.arange(12.0).reshape(6, 2)
    m = minigrad.tensor(x).t().unflatten(1, (2, 3))
    t = torch.tensor(x).t().unflatten(1, (2, 3))
    assert np.array_equal(_np(m), t.numpy())


@pytest.mark.parametrize("shape,dim,sizes", [
    ((2, 6), 1, (4, 2)), ((2, 6), 5, (2, 3)), ((2, 6), 1, (-1, -1)), ((2, 6), 1, ()),
    ((2, 6), 1, (0, -1)), ((2, 0), 1, (0, -1)), ((2, 6), 1, (-2, 3)), ((2, 6), -1, (4, 2)),
    ((2, 6), 1, (4, -1)), ((), 0, (1,)), ((2, 6), 1, 6), ((2, 6), 1, (2.0, 3))])
def test_unflatten_errors_match_torch(shape, dim, sizes):
    def err(lib):
        e = _err(lambda: lib.ones(shape).unflatten(dim, sizes))
        return e and (e[0], e[1].split("\nException raised")[0])
    assert err(minigrad) == err(torch)
    assert err(minigrad) is not None


def test_unflatten_constructor_checks_match_torch():
    for args in [(1, 5), (1, (2.0, 3)), (1, [2, "3"])]:
        assert _err(lambda: nn.Unflatten(*args)) == _err(lambda: torch.nn.Unflatten(*args))
        assert _err(lambda: nn.Unflatten(*args)) is not None


def test_identity_and_flatten_match_torch():
    x = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    for mm, tm in [(nn.Identity(54, k=1), torch.nn.Identity(54, k=1)),
                   (nn.Flatten(), torch.nn.Flatten()), (nn.Flatten(0, 1), torch.nn.Flatten(0, 1))]:
        _same_repr(mm, tm)
        assert np.array_equal(_np(mm(minigrad.tensor(x))), tm(torch.tensor(x)).numpy())
    seq = nn.Sequential(nn.Flatten(), nn.Linear(12, 6), nn.Unflatten(1, (2, 3)))
    assert tuple(seq(minigrad.tensor(x)).shape) == (2, 2, 3)


# ---------------------------------------------------------------- PyTorch's class paths
@pytest.mark.parametrize("path,name", [
    ("linear", "Linear"), ("linear", "Identity"), ("activation", "ReLU"),
    ("activation", "Softmax"), ("flatten", "Flatten"), ("flatten", "Unflatten"),
    ("container", "Sequential"), ("container", "ModuleList"), ("container", "ModuleDict"),
    ("container", "ParameterList"), ("container", "ParameterDict"), ("loss", "MSELoss"),
    ("loss", "CrossEntropyLoss")])
def test_module_classes_live_under_torch_paths(path, name):
    tcls = getattr(torch.nn, name)
    mcls = getattr(nn, name)
    assert tcls.__module__ == f"torch.nn.modules.{path}"
    assert mcls.__module__ == f"minigrad.nn.modules.{path}"
    mod = __import__(f"minigrad.nn.modules.{path}", fromlist=[name])
    assert getattr(mod, name) is mcls and getattr(nn.modules, name) is mcls
    assert f"class {name}(" in inspect.getsource(mcls)      # source and docs still found
    assert mcls.__doc__
