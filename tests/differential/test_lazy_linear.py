"""``nn.LazyLinear`` and ``nn.parameter.UninitializedParameter`` against torch: the module and
its placeholders before the first call (reprs, ``in_features``, ``size()``, the ``shape``
error), the first call (in_features inferred, the parameters materialized in place and drawn
as a ``Linear`` built then, after the same seed: bit for bit), the module turned into a
``Linear``, gradients, dtype and ``bias=False``."""
from __future__ import annotations

import numpy as np
import torch

import minigrad as mg


def _run(L):
    out = {}
    L.manual_seed(0)
    m = L.nn.LazyLinear(4)
    out["repr0"] = repr(m)
    out["wrepr"] = repr(m.weight)
    out["lazy0"] = (m.has_uninitialized_params(), m.in_features, tuple(m.weight.size()),
                    isinstance(m.weight, L.nn.Parameter), len(list(m.parameters())))
    try:
        m.weight.shape
        out["shape"] = None
    except RuntimeError as e:
        out["shape"] = str(e)
    w = m.weight
    L.manual_seed(1)
    x = L.randn(3, 5)
    y = m(x)
    out["y"] = y.detach().numpy()
    out["after"] = (type(m).__name__, repr(m), m.weight is w, type(w).__name__,
                    m.in_features, tuple(m.weight.shape), tuple(m.bias.shape),
                    isinstance(m, L.nn.Linear), hasattr(m, "_initialize_hook"))
    out["w"], out["b"] = m.weight.detach().numpy(), m.bias.detach().numpy()
    L.manual_seed(0)
    L.manual_seed(1)
    L.randn(3, 5)
    ref = L.nn.Linear(5, 4)                 # built where the lazy one drew its weights
    out["ref"] = (ref.weight.detach().numpy(), ref.bias.detach().numpy())
    y.sum().backward()
    out["g"] = m.weight.grad.numpy()
    m2 = L.nn.LazyLinear(3, bias=False, dtype=L.float64)
    out["m2"] = repr(m2)
    m2(L.ones(2, 6, dtype=L.float64))
    out["m2b"] = (m2.bias, str(m2.weight.dtype).split(".")[-1], tuple(m2.weight.shape),
                  repr(m2))
    return out


def test_lazy_linear_matches_torch():
    T, M = _run(torch), _run(mg)
    assert T.keys() == M.keys()
    for k in T:
        if k == "y":        # F.linear's summation order: a last-bit difference at most
            np.testing.assert_allclose(M[k], T[k], rtol=1e-6, atol=1e-7)
        elif k == "ref":
            assert all(np.array_equal(a, b) for a, b in zip(T[k], M[k]))
        elif isinstance(T[k], np.ndarray):
            assert np.array_equal(T[k], M[k]), k
        else:
            assert T[k] == M[k], k
    assert np.array_equal(M["w"], M["ref"][0]) and np.array_equal(M["b"], M["ref"][1])


def test_materialize_and_is_lazy():
    p = mg.nn.parameter.UninitializedParameter(dtype=mg.float64)
    assert mg.nn.parameter.is_lazy(p) and p.requires_grad
    p.materialize((2, 3))
    assert type(p) is mg.nn.Parameter and not mg.nn.parameter.is_lazy(p)
    assert tuple(p.shape) == (2, 3) and p.dtype is mg.float64 and p.requires_grad


def test_optimizer_after_a_dry_run_trains():
    import optim
    mg.manual_seed(0)
    net = mg.nn.Sequential(mg.nn.LazyLinear(8), mg.nn.ReLU(), mg.nn.LazyLinear(1))
    x, y = mg.randn(16, 3), mg.randn(16, 1)
    net(x)                                   # dry run: shapes inferred
    opt = optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = mg.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert [type(m).__name__ for m in net] == ["Linear", "ReLU", "Linear"]
    assert set(net.state_dict()) == {"0.weight", "0.bias", "2.weight", "2.bias"}
