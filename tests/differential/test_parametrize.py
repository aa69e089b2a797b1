"""torch.nn.utils.parametrize, parametrizations.weight_norm / spectral_norm and the legacy
hook-based weight_norm / spectral_norm, against PyTorch 2.13 (values, gradients, state_dict
keys, class names, errors)."""
import copy
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

RNG = np.random.default_rng(5)


def arr(a, b, tol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def pair(mk):
    tm = mk(torch).double()
    mm = mk(mg).double()
    mm.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return mm, tm


def check_steps(mm, tm, x, steps=2):
    for _ in range(steps):
        om, ot = mm(mg.tensor(x)), tm(torch.tensor(x))
        arr(om, ot)
        (om ** 2).sum().backward()
        (ot ** 2).sum().backward()
    assert list(mm.state_dict()) == list(tm.state_dict())
    for (n, p), (n2, q) in zip(mm.named_parameters(), tm.named_parameters()):
        assert n == n2
        arr(p.grad, q.grad)
    for (n, b), (n2, c) in zip(mm.named_buffers(), tm.named_buffers()):
        assert n == n2
        arr(b, c)


def _apply(lib, which, m, **kw):
    U = lib.nn.utils
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        {"wn": U.parametrizations.weight_norm, "sn": U.parametrizations.spectral_norm,
         "lwn": U.weight_norm, "lsn": U.spectral_norm}[which](m, **kw)


def _remove(lib, which, m):
    U = lib.nn.utils
    if which in ("wn", "sn"):
        U.parametrize.remove_parametrizations(m, "weight")
    elif which == "lwn":
        U.remove_weight_norm(m)
    else:
        U.remove_spectral_norm(m)


@pytest.mark.parametrize("which", ["wn", "sn", "lwn", "lsn"])
@pytest.mark.parametrize("layer", ["linear", "conv"])
def test_norms_match_torch(which, layer):
    if layer == "linear":
        mm, tm = pair(lambda lib: lib.nn.Linear(4, 3))
        x = RNG.standard_normal((2, 4))
        kw = {}
    else:
        mm, tm = pair(lambda lib: lib.nn.Conv2d(2, 3, 2))
        x = RNG.standard_normal((1, 2, 4, 4))
        kw = {"dim": 1} if which in ("wn", "lwn") else {}
    mg.manual_seed(1)
    torch.manual_seed(1)
    _apply(mg, which, mm, **kw)
    _apply(torch, which, tm, **kw)
    assert type(mm).__name__ == type(tm).__name__
    check_steps(mm, tm, x)
    mm.eval()
    tm.eval()
    arr(mm(mg.tensor(x)), tm(torch.tensor(x)))
    _remove(mg, which, mm)
    _remove(torch, which, tm)
    assert type(mm).__name__ == type(tm).__name__
    assert list(mm.state_dict()) == list(tm.state_dict())
    arr(mm.weight, tm.weight)
    assert isinstance(mm.weight, mg.nn.Parameter)


def _custom(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, A):
            return A / 2
    return Symmetric, Scale


def test_custom_parametrization_chain_assign_cached():
    mm, tm = pair(lambda lib: lib.nn.Linear(3, 3))
    for lib, m in ((mg, mm), (torch, tm)):
        P = lib.nn.utils.parametrize
        Sym, Scale = _custom(lib)
        P.register_parametrization(m, "weight", Sym())
        P.register_parametrization(m, "weight", Scale())
        assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
        assert not P.is_parametrized(m, "bias")
        assert P.type_before_parametrizations(m) is lib.nn.Linear
        with P.cached():
            assert m.weight is m.weight
        m.weight = lib.tensor(np.arange(9.0).reshape(3, 3) + np.arange(9.0).reshape(3, 3).T,
                              dtype=lib.float64)
    arr(mm.parametrizations.weight.original, tm.parametrizations.weight.original)
    check_steps(mm, tm, RNG.standard_normal((2, 3)))
    clone = copy.deepcopy(mm)
    arr(clone.weight, mm.weight)
    for lib, m in ((mg, mm), (torch, tm)):
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    arr(mm.weight, tm.weight)


@pytest.mark.parametrize("case", [
    lambda lib, m: lib.nn.utils.parametrize.register_parametrization(m, "nope",
                                                                     lib.nn.Identity()),
    lambda lib, m: lib.nn.utils.parametrize.remove_parametrizations(m, "weight"),
    lambda lib, m: lib.nn.utils.parametrize.register_parametrization(
        m, "weight", lib.nn.Flatten(0)),
    lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=0),
    lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, dim=3),
    lambda lib, m: lib.nn.utils.parametrizations.spectral_norm(m, name="nope"),
    lambda lib, m: (lib.nn.utils.spectral_norm(m), lib.nn.utils.spectral_norm(m)),
    lambda lib, m: lib.nn.utils.remove_weight_norm(m),
    lambda lib, m: lib.nn.utils.remove_spectral_norm(m),
    lambda lib, m: lib.nn.utils.parametrize.ParametrizationList([], m.weight),
])
def test_errors_match_torch(case):
    errs = []
    for lib in (mg, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(Exception) as info:
            case(lib, m)
        msg = str(info.value)
        errs.append((type(info.value).__name__,
                     msg.replace("minigrad.", "torch.") if "Module" not in msg else msg[:30]))
    assert errs[0] == errs[1]


def test_serialization_refused_and_legacy_warns():
    m = mg.nn.Linear(2, 2)
    mg.nn.utils.parametrizations.weight_norm(m)
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        m.__getstate__()
    with pytest.warns(FutureWarning, match="deprecated"):
        mg.nn.utils.weight_norm(mg.nn.Linear(2, 2))
