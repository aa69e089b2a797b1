"""torch.func (functional_call, grad, grad_and_value, vjp, jacrev, hessian, vmap) and
torch.nn.utils.stateless.functional_call against PyTorch 2.13."""
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.func as mf
import torch.func as tf

RNG = np.random.default_rng(1)
X = RNG.standard_normal(3)


def close(a, b):
    """Same pytree structure, shapes, values and requires_grad."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, mg.Tensor) and tuple(a.shape) == tuple(b.shape)
        assert a.requires_grad == b.requires_grad
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                   atol=1e-14)
    elif isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b)
        for k in b:
            close(a[k], b[k])
    elif isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for p, q in zip(a, b):
            close(p, q)
    else:
        assert a == b


def lin_pair(seed=0):
    tm = torch.nn.Linear(3, 2).double()
    mm = mg.nn.Linear(3, 2).double()
    mm.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return mm, tm


def test_functional_call_swaps_and_restores():
    mm, tm = lin_pair()
    w = RNG.standard_normal((2, 3))
    xb = RNG.standard_normal((4, 3))
    for lib, mod in ((mg, mm), (torch, tm)):
        wt = lib.tensor(w, requires_grad=True)
        out = mf.functional_call(mod, {"weight": wt}, (lib.tensor(xb),)) if lib is mg else \
            tf.functional_call(mod, {"weight": wt}, (lib.tensor(xb),))
        out.sum().backward()
        assert mod.weight.grad is None and wt.grad is not None
        assert isinstance(mod.weight, lib.nn.Parameter)
    # values and gradients agree
    res = []
    for lib, mod, call in ((mg, mm, mf.functional_call), (torch, tm, tf.functional_call)):
        wt = lib.tensor(w, requires_grad=True)
        out = call(mod, [{"weight": wt}, {"bias": lib.zeros(2, dtype=lib.float64)}],
                   lib.tensor(xb))
        out.sum().backward()
        res.append((out, wt.grad))
    close(*res)


def test_stateless_functional_call_warns_and_strict_errors():
    mm, tm = lin_pair()
    with pytest.warns(FutureWarning):
        mg.nn.utils.stateless.functional_call(mm, {}, mg.ones(1, 3, dtype=mg.float64))
    cases = [
        lambda lib, call, mod: call(mod, {"weight": lib.ones(2, 3), "foo": lib.ones(1)},
                                    lib.ones(1, 3), strict=True),
        lambda lib, call, mod: call(mod, [{"weight": lib.ones(2, 3)}, {"weight": lib.ones(2, 3)}],
                                    lib.ones(1, 3)),
        lambda lib, call, mod: call(mod, [3], lib.ones(1, 3)),
        lambda lib, call, mod: call(mod, 3, lib.ones(1, 3)),
    ]
    for case in cases:
        errs = []
        for lib, call, mod in ((mg, mf.functional_call, mm), (torch, tf.functional_call, tm)):
            with pytest.raises(Exception) as info:
                case(lib, call, mod)
            errs.append((type(info.value).__name__, str(info.value)))
        assert errs[0] == errs[1]
    assert isinstance(mm.weight, mg.nn.Parameter) and "foo" not in mm.__dict__


def test_functional_call_tied_weights():
    for lib, call in ((mg, mf.functional_call), (torch, tf.functional_call)):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
        m[1].weight = m[0].weight
        w = lib.ones(2, 2)
        out = call(m, {"0.weight": w}, lib.ones(1, 2))
        assert out.tolist() == [[4.0, 4.0]]
        with pytest.raises(ValueError, match="which are tied"):
            call(m, {"0.weight": w, "1.weight": lib.zeros(2, 2)}, lib.ones(1, 2))


def _run(lib, fn):
    f = mf if lib is mg else tf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(lib, f)


@pytest.mark.parametrize("fn", [
    lambda lib, f: f.grad(lambda x: (x.sin() * x).sum())(lib.tensor(X)),
    lambda lib, f: f.grad(lambda x: (x.sin() * x).sum())(lib.tensor(X, requires_grad=True)),
    lambda lib, f: f.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(lib.tensor(X),
                                                                      lib.tensor(X * 2)),
    lambda lib, f: f.grad(lambda d: (d["a"] * d["b"].exp()).sum())(
        {"a": lib.tensor(X), "b": lib.tensor(X)}),
    lambda lib, f: f.grad(lambda x: ((x ** 2).sum(), x * 3), has_aux=True)(lib.tensor(X)),
    lambda lib, f: f.grad_and_value(lambda x: (x ** 3).sum())(lib.tensor(X)),
    lambda lib, f: f.grad(f.grad(lambda x: x ** 3))(lib.tensor(1.5, dtype=lib.float64)),
    lambda lib, f: f.jacrev(lambda x: {"a": x.exp(), "b": x.sum()})(lib.tensor(X)),
    lambda lib, f: f.jacrev(lambda x, y: x * y, argnums=(0, 1))(lib.tensor(X), lib.tensor(X)),
    lambda lib, f: f.hessian(lambda x: (x ** 3).prod())(lib.tensor(X)),
    lambda lib, f: f.vjp(lambda x: (x.exp(), x * 2), lib.tensor(X))[1](
        (lib.tensor(X), lib.tensor(X))),
    lambda lib, f: f.vjp(lambda x: x.exp(), lib.tensor(X))[0],
    lambda lib, f: f.vmap(lambda a, b: (a * b, a.sum()), in_dims=(1, None), out_dims=(0, 0))(
        lib.tensor(RNG.standard_normal((3, 2))), lib.tensor(X)),
    lambda lib, f: f.vmap(f.grad(lambda w, x: (w * x).sum().tanh()), in_dims=(None, 0))(
        lib.tensor(X), lib.tensor(RNG.standard_normal((4, 3)))),
])
def test_transforms_match_torch(fn):
    global RNG
    RNG = np.random.default_rng(7)
    a = _run(mg, fn)
    RNG = np.random.default_rng(7)
    b = _run(torch, fn)
    close(a, b)


def test_closure_over_parameter_keeps_graph():
    for lib, f in ((mg, mf), (torch, tf)):
        w = lib.tensor(X, requires_grad=True)
        g = f.grad(lambda x: (x * x * w).sum())(lib.tensor(X))
        assert g.requires_grad
        g.sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), 2 * X)


def test_per_sample_grads_with_functional_call():
    mm, tm = lin_pair()
    xb, yb = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    res = []
    for lib, f, m in ((mg, mf, mm), (torch, tf, tm)):
        params = {k: v.detach() for k, v in m.named_parameters()}

        def loss(p, x, y):
            return ((f.functional_call(m, p, (x.unsqueeze(0),)) - y) ** 2).mean()
        res.append(f.vmap(f.grad(loss), in_dims=(None, 0, 0))(params, lib.tensor(xb),
                                                              lib.tensor(yb)))
    close(*res)


@pytest.mark.parametrize("fn", [
    lambda lib, f: f.grad(lambda x: x * 2)(lib.ones(3)),
    lambda lib, f: f.grad(lambda x: x.sum(), argnums=3)(lib.ones(3)),
    lambda lib, f: f.grad(lambda x: x.sum(), argnums=[0])(lib.ones(3)),
    lambda lib, f: f.grad(lambda x, y: x.sum(), argnums=(0, 0))(lib.ones(3), lib.ones(3)),
    lambda lib, f: f.grad(lambda x: x.sum(), has_aux=True)(lib.ones(3)),
    lambda lib, f: f.grad(lambda x: 3)(lib.ones(3)),
    lambda lib, f: f.vmap(lambda a, b: a + b)(lib.ones(3, 2), lib.ones(4, 2)),
    lambda lib, f: f.vmap(lambda a: a, in_dims=(None,))(lib.ones(3)),
    lambda lib, f: f.vmap(lambda a: a, in_dims=2)(lib.ones(3, 2)),
    lambda lib, f: f.vmap(lambda a: a, randomness="x")(lib.ones(3)),
    lambda lib, f: f.vmap(lambda a: 3)(lib.ones(3)),
    lambda lib, f: f.jacrev(lambda a: a, chunk_size=0)(lib.ones(3)),
])
def test_errors_match_torch(fn):
    errs = []
    for lib in (mg, torch):
        with pytest.raises(Exception) as info:
            _run(lib, fn)
        errs.append((type(info.value).__name__, str(info.value)))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("fn", [
    lambda lib, f: f.jvp(lambda x, y: (x.sin() * y, x.exp()), (lib.tensor(X), lib.tensor(X)),
                         (lib.tensor(X * 2), lib.tensor(X - 1))),
    lambda lib, f: f.jvp(lambda x: (x ** 2).sum(), (lib.tensor(X),), (lib.tensor(X),)),
    lambda lib, f: f.jacfwd(lambda x: x.tanh() * 3)(lib.tensor(X)),
])
def test_jvp_jacfwd_match_torch(fn):
    close(_run(mg, fn), _run(torch, fn))


def test_jvp_errors_match_torch():
    for case in (lambda lib, f: f.jvp(lambda x: x, lib.ones(2), (lib.ones(2),)),):
        errs = []
        for lib in (mg, torch):
            with pytest.raises(Exception) as info:
                _run(lib, case)
            errs.append((type(info.value).__name__, str(info.value)))
        assert errs[0] == errs[1]
