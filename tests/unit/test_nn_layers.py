"""minigrad.nn layers, losses, functional and init against torch.nn (Linear's default init
statistics, gains and bounds, forward/backward of an MLP with copied weights, losses)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
from tests.unit.test_nn import _copy_params, _err, _m, _np


# ---------------------------------------------------------------- init
def test_linear_default_init_bounds_and_statistics():
    minigrad.manual_seed(0)
    fan_in, fan_out = 400, 300
    m = nn.Linear(fan_in, fan_out)
    bound = 1 / math.sqrt(fan_in)       # kaiming_uniform_(a=sqrt(5)) on (out, in)
    w, b = _np(m.weight), _np(m.bias)
    assert m.weight.dtype is minigrad.float32 and tuple(m.weight.shape) == (fan_out, fan_in)
    t = torch.nn.Linear(fan_in, fan_out)
    tw = t.weight.detach().double().numpy()
    # torch's bound is the same, and both samples fill it (samples are fp32: the bound itself
    # rounded to fp32 can be reached)
    b32 = float(np.float32(bound))
    assert np.abs(w).max() <= b32 and np.abs(tw).max() <= b32
    assert np.abs(w).max() > 0.99 * bound and np.abs(b).max() <= b32
    # U(-bound, bound): mean 0, variance bound^2/3 (120k samples: a few % of tolerance)
    assert abs(w.mean()) < 0.01 * bound
    assert w.var() == pytest.approx(bound ** 2 / 3, rel=0.02)
    assert w.var() == pytest.approx(tw.var(), rel=0.03)
    assert len(np.unique(b)) == fan_out
    m16 = nn.Linear(8, 4, dtype=minigrad.float16)
    assert m16.weight.dtype is minigrad.float16 and m16.bias.dtype is minigrad.float16
    assert repr(nn.Linear(3, 2, bias=False)) == repr(torch.nn.Linear(3, 2, bias=False))
    assert nn.Linear(3, 2, bias=False).bias is None


def test_manual_seed_reproduces_init():
    minigrad.manual_seed(123)
    a = nn.Linear(5, 4)
    minigrad.manual_seed(123)
    b = nn.Linear(5, 4)
    assert a.weight.tolist() == b.weight.tolist() and a.bias.tolist() == b.bias.tolist()


def test_init_functions_match_torch_gains_and_bounds():
    for args in [("linear",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
                 ("leaky_relu", 0.2), ("selu",), ("conv2d",)]:
        assert nn.init.calculate_gain(*args) == pytest.approx(torch.nn.init.calculate_gain(*args))
    assert _err(lambda: nn.init.calculate_gain("foo")) == \
        _err(lambda: torch.nn.init.calculate_gain("foo"))
    assert _err(lambda: nn.init.calculate_gain("leaky_relu", "x")) == \
        _err(lambda: torch.nn.init.calculate_gain("leaky_relu", "x"))
    w, tw = minigrad.zeros(30, 20, 3), torch.zeros(30, 20, 3)
    assert nn.init._calculate_fan_in_and_fan_out(w) == \
        torch.nn.init._calculate_fan_in_and_fan_out(tw)
    assert _err(lambda: nn.init._calculate_fan_in_and_fan_out(minigrad.zeros(3))) == \
        _err(lambda: torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(3)))
    assert _err(lambda: nn.init.kaiming_uniform_(w, mode="fan_x")) == \
        _err(lambda: torch.nn.init.kaiming_uniform_(tw, mode="fan_x"))
    # bounds: kaiming_uniform_ relu -> sqrt(6/fan_in); xavier_uniform_ -> sqrt(6/(fi+fo))
    nn.init.kaiming_uniform_(w, nonlinearity="relu")
    assert np.abs(_np(w)).max() <= math.sqrt(6 / 60) and np.abs(_np(w)).max() > 0.95 * \
        math.sqrt(6 / 60)
    nn.init.xavier_uniform_(w, gain=2.0)
    lim = 2.0 * math.sqrt(6 / (60 + 90))
    assert np.abs(_np(w)).max() <= lim and np.abs(_np(w)).max() > 0.95 * lim
    big = minigrad.zeros(200, 300)
    nn.init.kaiming_normal_(big, mode="fan_out", nonlinearity="relu")
    assert _np(big).std() == pytest.approx(math.sqrt(2 / 200), rel=0.02)
    nn.init.xavier_normal_(big)
    assert _np(big).std() == pytest.approx(math.sqrt(2 / 500), rel=0.02)
    nn.init.normal_(big, 3.0, 0.5)
    assert _np(big).mean() == pytest.approx(3.0, abs=0.01)
    nn.init.uniform_(big, -2, -1)
    assert -2 <= _np(big).min() and _np(big).max() <= -1
    nn.init.constant_(big, 0.25)
    assert (_np(big) == 0.25).all()
    nn.init.ones_(big)
    assert (_np(big) == 1).all()
    nn.init.zeros_(big)
    assert (_np(big) == 0).all()
    p = nn.Parameter(minigrad.zeros(3, 4))
    assert nn.init.uniform_(p) is p and p.requires_grad and p.is_leaf
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        nn.init.kaiming_uniform_(minigrad.zeros(0, 3))


# ---------------------------------------------------------------- layers and losses vs torch
def test_mlp_forward_backward_matches_torch():
    def mk(lib):
        return lib.Sequential(lib.Linear(6, 8), lib.ReLU(), lib.Linear(8, 8), lib.Tanh(),
                              lib.Linear(8, 8), lib.Sigmoid(), lib.Flatten(), lib.Linear(8, 3))
    t, m = mk(torch.nn), mk(nn)
    _copy_params(m, t)
    x = torch.randn(5, 6)
    y = torch.tensor([0, 2, 1, 1, 0])
    lt = torch.nn.CrossEntropyLoss()(t(x), y)
    lm = nn.CrossEntropyLoss()(m(_m(x)), _m(y))
    assert lm.item() == pytest.approx(lt.item(), rel=1e-5)
    lt.backward()
    lm.backward()
    for (k, pm), (_, pt) in zip(m.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(_np(pm.grad), pt.grad.double().numpy(), rtol=1e-4,
                                   atol=1e-6, err_msg=k)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(reduction):
    x = torch.randn(4, 5)
    y = torch.tensor([1, 0, 4, -100])
    w = torch.rand(5)
    got = nn.CrossEntropyLoss(weight=_m(w), reduction=reduction, label_smoothing=0.1)(_m(x), _m(y))
    want = torch.nn.CrossEntropyLoss(weight=w, reduction=reduction, label_smoothing=0.1)(x, y)
    np.testing.assert_allclose(_np(got), want.double().numpy(), rtol=1e-5, atol=1e-6)
    lp = torch.log_softmax(x, 1)
    got = nn.NLLLoss(reduction=reduction)(_m(lp), _m(y))
    want = torch.nn.NLLLoss(reduction=reduction)(lp, y)
    np.testing.assert_allclose(_np(got), want.double().numpy(), rtol=1e-5, atol=1e-6)
    z = torch.randn(4, 5)
    got = nn.MSELoss(reduction=reduction)(_m(x), _m(z))
    want = torch.nn.MSELoss(reduction=reduction)(x, z)
    np.testing.assert_allclose(_np(got), want.double().numpy(), rtol=1e-5, atol=1e-6)
    assert nn.CrossEntropyLoss(reduction=reduction).weight is None
    assert list(nn.CrossEntropyLoss(weight=_m(w)).state_dict()) == \
        list(torch.nn.CrossEntropyLoss(weight=w).state_dict())


def test_functional_softmax_implicit_dim_and_activations():
    x = torch.randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        got = F.softmax(_m(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.nn.functional.softmax(x)
        want_ls = torch.nn.Softmax()(x)
    np.testing.assert_allclose(_np(got), want.numpy(), rtol=1e-6)
    with pytest.warns(UserWarning):
        np.testing.assert_allclose(_np(nn.Softmax()(_m(x))), want_ls.numpy(), rtol=1e-6)
    np.testing.assert_allclose(_np(nn.LogSoftmax(dim=0)(_m(x))),
                               torch.log_softmax(x, 0).numpy(), rtol=1e-6)
    for mm, tm in [(nn.ReLU(), torch.nn.ReLU()), (nn.Tanh(), torch.nn.Tanh()),
                   (nn.Sigmoid(), torch.nn.Sigmoid()), (nn.Identity(), torch.nn.Identity()),
                   (nn.Flatten(0), torch.nn.Flatten(0))]:
        np.testing.assert_allclose(_np(mm(_m(x))), tm(x).numpy(), rtol=1e-6)
