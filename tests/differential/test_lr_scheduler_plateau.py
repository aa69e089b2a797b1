"""ReduceLROnPlateau against torch.optim.lr_scheduler.ReduceLROnPlateau 2.13 on metric streams:
the same learning rates, best value, bad-epoch and cooldown counters and ``state_dict`` at
every step, for both modes, both threshold modes, cooldown, per-group ``min_lr`` and ``eps``;
checkpoint/restore mid-run; Tensor metrics; a param group added mid-run; the errors."""
from __future__ import annotations

import math
import random
import warnings

import pytest
import torch

import minigrad as mg
import optim
from optim import lr_scheduler as mls

TLS = torch.optim.lr_scheduler
GROUP_LRS = (0.1, 0.05, 0.2)


def _optimizer(lib):
    if lib == "torch":
        ps, ns = [torch.zeros(1, requires_grad=True) for _ in GROUP_LRS], torch.optim
    else:
        ps, ns = [mg.zeros(1, requires_grad=True) for _ in GROUP_LRS], optim
    return ns.SGD([{"params": [p], "lr": lr} for p, lr in zip(ps, GROUP_LRS)], lr=0.1)


def _stream(seed, n=300, mode="min"):
    """A noisy metric that improves in bursts and then plateaus (values exactly equal to the
    best, or worse by less than a threshold, occur too)."""
    rng = random.Random(seed)
    v, out = 5.0, []
    for i in range(n):
        if (i // 25) % 2 == 0:
            v *= 0.97 if mode == "min" else 1.03
        r = rng.random()
        out.append(v if r < 0.2 else v * (1 + (rng.random() - 0.5) * 1e-3) if r < 0.5
                   else v + rng.random() * (1 if mode == "min" else -1) * 0.1)
    return out


SETTINGS = [
    dict(),
    dict(patience=3),
    dict(mode="max", patience=2, factor=0.5),
    dict(patience=0, threshold=0.01, threshold_mode="abs"),
    dict(mode="max", threshold_mode="abs", threshold=0.05, patience=4, cooldown=3),
    dict(patience=2, cooldown=5, min_lr=[0.01, 0.0, 0.05], factor=0.3),
    dict(patience=1, min_lr=1e-3, factor=0.2),
    dict(patience=1, factor=0.999, eps=1e-3),          # changes below eps are skipped
    dict(threshold=0.0, patience=5, factor=0.0),
]


def _state(s):
    return (s.get_last_lr(), s.best, s.num_bad_epochs, s.cooldown_counter, s.last_epoch,
            s.in_cooldown)


@pytest.mark.parametrize("kw", SETTINGS, ids=[str(k) for k in SETTINGS])
@pytest.mark.parametrize("seed", [0, 1])
def test_plateau_matches_torch_on_metric_stream(kw, seed):
    mo, to = _optimizer("mg"), _optimizer("torch")
    ms, ts = mls.ReduceLROnPlateau(mo, **kw), TLS.ReduceLROnPlateau(to, **kw)
    assert ms.state_dict() == ts.state_dict()
    reductions = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # no step-order warning: it does not wrap step
        for i, m in enumerate(_stream(seed, mode=kw.get("mode", "min"))):
            before = ms.get_last_lr()
            ms.step(m)
            ts.step(m)
            reductions += ms.get_last_lr() != before
            assert _state(ms) == _state(ts), i
            assert [g["lr"] for g in mo.param_groups] == [g["lr"] for g in to.param_groups]
            if i == 150:
                sd = ms.state_dict()
                assert sd == ts.state_dict()
                ms = mls.ReduceLROnPlateau(mo, mode="max" if kw.get("mode") == "min" else "min")
                ms.load_state_dict(sd)
                assert ms.state_dict() == ts.state_dict()
    if kw.get("eps") != 1e-3:
        assert reductions > 0           # the stream does plateau


def test_plateau_reduces_after_patience_then_cools_down():
    """Maths on a constant metric: the first epoch sets the best; the lr drops on the
    (patience+1)-th bad epoch after it, then every cooldown + patience + 1 epochs, never below
    min_lr; the same in PyTorch."""
    for L, opt in ((mls, _optimizer("mg")), (TLS, _optimizer("torch"))):
        s = L.ReduceLROnPlateau(opt, patience=2, cooldown=1, factor=0.5, min_lr=0.02)
        lrs = []
        for _ in range(12):
            s.step(1.0)
            lrs.append(s.get_last_lr()[0])
        assert lrs == [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.025,
                       0.02]


def test_plateau_tensor_metric_and_epoch_deprecation():
    mo, to = _optimizer("mg"), _optimizer("torch")
    ms, ts = mls.ReduceLROnPlateau(mo, patience=0), TLS.ReduceLROnPlateau(to, patience=0)
    for v in (3.0, 2.0, 2.5, 2.5):
        ms.step(mg.tensor(v))
        ts.step(torch.tensor(v))
        assert _state(ms) == _state(ts)
    for s in (ms, ts):
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step"):
            s.step(1.0, epoch=10)
        assert s.last_epoch == 10
        s.step(0.5)
        assert s.last_epoch == 11
    assert _state(ms) == _state(ts)


def test_plateau_param_group_added_mid_run():
    for L, lib in ((mls, "mg"), (TLS, "torch")):
        new = (lambda: mg.zeros(1, requires_grad=True)) if lib == "mg" else \
            (lambda: torch.zeros(1, requires_grad=True))
        opt = _optimizer(lib)
        s = L.ReduceLROnPlateau(opt, patience=0, min_lr=0.01)
        s.step(1.0)
        opt.add_param_group({"params": [new()], "lr": 0.3})
        s.step(2.0)
        assert s.min_lrs == [0.01] * 4 and opt.param_groups[3]["lr"] == 0.3 * 0.1
        opt = _optimizer(lib)
        s = L.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0, 0.0])
        s.step(1.0)
        opt.add_param_group({"params": [new()], "lr": 0.3})
        with pytest.raises(RuntimeError, match=r"The number of param groups in the `optimizer` "
                                               r"\(4\) differs from when `ReduceLROnPlateau` was "
                                               r"initialized \(3\)"):
            s.step(2.0)


@pytest.mark.parametrize("kw,exc,msg", [
    (dict(factor=1.0), ValueError, "Factor should be < 1.0."),
    (dict(mode="avg"), ValueError, "mode avg is unknown!"),
    (dict(threshold_mode="pct"), ValueError, "threshold mode pct is unknown!"),
    (dict(min_lr=[0.0, 0.1]), ValueError, "expected 3 min_lrs, got 2"),
])
def test_plateau_errors_as_torch(kw, exc, msg):
    for L, lib in ((mls, "mg"), (TLS, "torch")):
        with pytest.raises(exc) as info:
            L.ReduceLROnPlateau(_optimizer(lib), **kw)
        assert str(info.value) == msg
    for L in (mls, TLS):
        with pytest.raises(TypeError, match="object is not an Optimizer"):
            L.ReduceLROnPlateau(object())


def test_plateau_mode_worse_is_infinite():
    assert mls.ReduceLROnPlateau(_optimizer("mg")).best == math.inf
    assert mls.ReduceLROnPlateau(_optimizer("mg"), mode="max").best == -math.inf
