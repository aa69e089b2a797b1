"""Every schedule of optim.lr_scheduler against torch.optim.lr_scheduler 2.13 over 300 steps:
identical learning rates (and momenta / betas where the schedule cycles them) in three param
groups at every step, the same ``state_dict``, a checkpoint/restore mid-run that continues the
schedule, the deprecated ``step(epoch)`` closed forms, and the compositions (SequentialLR,
ChainedScheduler, nested). Expected values are PyTorch's, computed here."""
from __future__ import annotations

import math
import pickle
import warnings

import pytest
import torch

import minigrad as mg
import optim
from optim import lr_scheduler as mls

TLS = torch.optim.lr_scheduler
N_STEPS = 300
GROUP_LRS = (0.1, 0.05, 0.2)


def _optimizer(lib, kind):
    """Three param groups; SGD with momentum (so CyclicLR/OneCycleLR cycle ``momentum``) or
    Adam (they cycle ``betas[0]``)."""
    if lib == "torch":
        params = [torch.zeros(2, requires_grad=True) for _ in GROUP_LRS]
        ns = torch.optim
    else:
        params = [mg.zeros(2, requires_grad=True) for _ in GROUP_LRS]
        ns = optim
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, GROUP_LRS)]
    if kind == "SGD":
        return ns.SGD(groups, lr=0.1, momentum=0.9)
    return ns.Adam(groups, lr=0.1)


def _half(e):
    return 0.5 ** (e // 40)


class _Warmup:
    """A callable object: LambdaLR/MultiplicativeLR save its ``__dict__`` in the state."""

    def __init__(self, n):
        self.n = n

    def __call__(self, e):
        return min(1.0, (e + 1) / self.n)


# (id, builder(L, opt)) where L is the scheduler module (torch's or ours)
SCHEDULES = [
    ("lambda", lambda L, o: L.LambdaLR(o, lambda e: 0.95 ** e)),
    ("lambda-list", lambda L, o: L.LambdaLR(o, [lambda e: 1 / (1 + e), _half, _Warmup(25)])),
    ("multiplicative", lambda L, o: L.MultiplicativeLR(o, lambda e: 0.98)),
    ("multiplicative-list", lambda L, o: L.MultiplicativeLR(
        o, [lambda e: 0.99, lambda e: 1.0 if e % 10 else 0.5, _Warmup(7)])),
    ("step", lambda L, o: L.StepLR(o, 30, gamma=0.5)),
    ("step-7", lambda L, o: L.StepLR(o, step_size=7, gamma=0.9)),
    ("multistep", lambda L, o: L.MultiStepLR(o, [30, 80, 80, 200], gamma=0.3)),
    ("constant", lambda L, o: L.ConstantLR(o)),
    ("constant-40", lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=40)),
    ("constant-0.45", lambda L, o: L.ConstantLR(o, factor=0.45, total_iters=10)),
    ("constant-0", lambda L, o: L.ConstantLR(o, factor=0.25, total_iters=0)),
    ("linear", lambda L, o: L.LinearLR(o)),
    ("linear-up", lambda L, o: L.LinearLR(o, start_factor=0.05, total_iters=40)),
    ("linear-down", lambda L, o: L.LinearLR(o, start_factor=1.0, end_factor=0.1,
                                            total_iters=250)),
    ("exponential", lambda L, o: L.ExponentialLR(o, gamma=0.99)),
    ("polynomial", lambda L, o: L.PolynomialLR(o)),
    ("polynomial-2", lambda L, o: L.PolynomialLR(o, total_iters=200, power=2.0)),
    ("polynomial-sqrt", lambda L, o: L.PolynomialLR(o, total_iters=300, power=0.5)),
    ("cosine", lambda L, o: L.CosineAnnealingLR(o, T_max=50, eta_min=1e-4)),
    ("cosine-7", lambda L, o: L.CosineAnnealingLR(o, 7)),
    ("warm-restarts", lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=10)),
    ("warm-restarts-x2", lambda L, o: L.CosineAnnealingWarmRestarts(o, 10, T_mult=2,
                                                                    eta_min=1e-3)),
    ("warm-restarts-x3", lambda L, o: L.CosineAnnealingWarmRestarts(o, 1, T_mult=3)),
    ("cyclic", lambda L, o: L.CyclicLR(o, base_lr=0.001, max_lr=0.1, step_size_up=20)),
    ("cyclic-2", lambda L, o: L.CyclicLR(o, [0.001, 0.002, 0.01], [0.1, 0.05, 0.3],
                                         step_size_up=15, step_size_down=35,
                                         mode="triangular2", base_momentum=[0.7, 0.8, 0.85],
                                         max_momentum=0.95)),
    ("cyclic-exp", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=25, mode="exp_range",
                                           gamma=0.99)),
    ("cyclic-fn", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=10,
                                          scale_fn=lambda x: 1 / (1 + x / 50),
                                          scale_mode="iterations")),
    ("cyclic-no-momentum", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=30,
                                                   cycle_momentum=False)),
    ("onecycle", lambda L, o: L.OneCycleLR(o, max_lr=0.5, total_steps=N_STEPS)),
    ("onecycle-3", lambda L, o: L.OneCycleLR(o, max_lr=[0.5, 0.2, 1.0], epochs=10,
                                             steps_per_epoch=30, three_phase=True,
                                             anneal_strategy="linear", pct_start=0.2)),
    ("onecycle-nomom", lambda L, o: L.OneCycleLR(o, 0.3, total_steps=N_STEPS + 7,
                                                 cycle_momentum=False, div_factor=10.0,
                                                 final_div_factor=100.0)),
    ("sequential", lambda L, o: L.SequentialLR(
        o, [L.ConstantLR(o, factor=0.1, total_iters=20), L.ExponentialLR(o, gamma=0.99)],
        milestones=[20])),
    ("sequential-3", lambda L, o: L.SequentialLR(
        o, [L.LinearLR(o, start_factor=0.1, total_iters=10), L.CosineAnnealingLR(o, 100),
            L.StepLR(o, 10, 0.5)], milestones=[10, 110])),
    ("sequential-lambda", lambda L, o: L.SequentialLR(
        o, [L.ExponentialLR(o, 0.9), L.LambdaLR(o, lambda e: 1 / (1 + e)),
            L.MultiplicativeLR(o, lambda e: 0.99)], milestones=[5, 150])),
    ("chained", lambda L, o: L.ChainedScheduler(
        [L.ConstantLR(o, factor=0.1, total_iters=20), L.ExponentialLR(o, gamma=0.99)])),
    ("chained-3", lambda L, o: L.ChainedScheduler(
        [L.LinearLR(o, 0.2, total_iters=30), L.StepLR(o, 25, 0.7),
         L.MultiStepLR(o, [100, 200])], optimizer=o)),
    ("sequential-of-chained", lambda L, o: L.SequentialLR(
        o, [L.ChainedScheduler([L.ConstantLR(o, 0.5, 10), L.ExponentialLR(o, 0.97)]),
            L.CosineAnnealingLR(o, 60, eta_min=1e-3)], milestones=[50])),
]


def _groups(opt):
    return [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]


def _comparable(sd):
    """A state_dict with callables' entries dropped (functions do not compare across libs)."""
    out = {}
    for k, v in sd.items():
        if k == "_schedulers":
            out[k] = [_comparable(s) for s in v]
        elif not callable(v):
            out[k] = v
    return out


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name,build", SCHEDULES, ids=[s[0] for s in SCHEDULES])
def test_schedule_matches_torch_over_300_steps(kind, name, build):
    mo, to = _optimizer("mg", kind), _optimizer("torch", kind)
    caught = []
    for L, opt in ((mls, mo), (TLS, to)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            caught.append((build(L, opt), [str(x.message) for x in w]))
    (ms, m_warned), (ts, t_warned) = caught
    assert m_warned == t_warned      # sequential-of-chained warns at construction, in both
    assert ms.get_last_lr() == ts.get_last_lr()
    assert _groups(mo) == _groups(to)
    assert _comparable(ms.state_dict()) == _comparable(ts.state_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # no step-order or other warning in the normal loop
        for i in range(N_STEPS):
            mo.step()
            to.step()
            ms.step()
            ts.step()
            assert ms.get_last_lr() == ts.get_last_lr(), i
            assert _groups(mo) == _groups(to), i
            if i == N_STEPS // 2:
                sd = ms.state_dict()
                assert _comparable(sd) == _comparable(ts.state_dict())
                # checkpoint, rebuild on a fresh optimizer, restore (PyTorch's documented
                # order: scheduler built before the optimizer's state is loaded)
                osd = mo.state_dict()
                mo = _optimizer("mg", kind)
                with warnings.catch_warnings():
                    # a ChainedScheduler's initial step steps its parts: on a fresh optimizer
                    # that gives the step-order warning, in PyTorch too
                    warnings.simplefilter("ignore")
                    ms = build(mls, mo)
                mo.load_state_dict(osd)
                ms.load_state_dict(pickle.loads(pickle.dumps(sd)))   # as saved to disk
                assert _comparable(ms.state_dict()) == _comparable(ts.state_dict())
    assert _comparable(ms.state_dict()) == _comparable(ts.state_dict())


def test_callable_object_state_is_saved_and_restored():
    """LambdaLR saves a callable object's ``__dict__`` (functions as None), as PyTorch."""
    for L, opt in ((mls, _optimizer("mg", "SGD")), (TLS, _optimizer("torch", "SGD"))):
        fn = _Warmup(25)
        s = L.LambdaLR(opt, [lambda e: 1.0, _half, fn])
        assert s.state_dict()["lr_lambdas"] == [None, None, {"n": 25}]
        fn2 = _Warmup(3)
        s2 = L.LambdaLR(opt, [lambda e: 1.0, _half, fn2])
        s2.load_state_dict(s.state_dict())
        assert fn2.n == 25


CLOSED_FORM = [
    ("step", lambda L, o: L.StepLR(o, 7, gamma=0.9)),
    ("multistep", lambda L, o: L.MultiStepLR(o, [3, 10, 10, 25], gamma=0.3)),
    ("constant", lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=12)),
    ("linear", lambda L, o: L.LinearLR(o, start_factor=0.05, end_factor=0.8,
                                       total_iters=20)),
    ("exponential", lambda L, o: L.ExponentialLR(o, gamma=0.97)),
    ("polynomial", lambda L, o: L.PolynomialLR(o, total_iters=30, power=2.0)),
    ("cosine", lambda L, o: L.CosineAnnealingLR(o, T_max=13, eta_min=1e-3)),
    # no closed form: step(epoch) falls back to get_lr at the given epoch
    ("lambda", lambda L, o: L.LambdaLR(o, lambda e: 1 / (1 + e))),
    ("multiplicative", lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9)),
    ("cyclic", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=4)),
    ("onecycle", lambda L, o: L.OneCycleLR(o, 0.5, total_steps=60)),
]
EPOCHS = [1, 2, 5, 3, 17, 17, 40, 0, 9, 50, 33, 12, 11]


@pytest.mark.parametrize("name,build", CLOSED_FORM, ids=[s[0] for s in CLOSED_FORM])
def test_step_with_epoch_uses_closed_form_and_warns(name, build):
    mo, to = _optimizer("mg", "SGD"), _optimizer("torch", "SGD")
    ms, ts = build(mls, mo), build(TLS, to)
    mo.step()
    to.step()
    for e in EPOCHS:
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step"):
            ms.step(e)
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step"):
            ts.step(e)
        assert ms.get_last_lr() == ts.get_last_lr(), e
        assert _groups(mo) == _groups(to), e
        ms.step()          # the chainable form continues from there, in both
        ts.step()
        assert ms.get_last_lr() == ts.get_last_lr(), e


@pytest.mark.parametrize("T_mult", [1, 2, 3])
def test_warm_restarts_fractional_epochs(T_mult):
    """SGDR's documented per-batch use ``step(epoch + i / iters)`` (no warning), interleaved
    with plain ``step()`` and jumps back and forth, as in PyTorch's docstring."""
    mo, to = _optimizer("mg", "Adam"), _optimizer("torch", "Adam")
    ms = mls.CosineAnnealingWarmRestarts(mo, T_0=3, T_mult=T_mult, eta_min=0.001)
    ts = TLS.CosineAnnealingWarmRestarts(to, T_0=3, T_mult=T_mult, eta_min=0.001)
    iters = 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for epoch in range(25):
            for i in range(iters):
                mo.step()
                to.step()
                ms.step(epoch + i / iters)
                ts.step(epoch + i / iters)
                assert ms.get_last_lr() == ts.get_last_lr(), (epoch, i)
                assert (ms.T_cur, ms.T_i, ms.last_epoch) == (ts.T_cur, ts.T_i, ts.last_epoch)
        for e in (26, None, None, 4.5, None, 100, 0, None):
            ms.step(e)
            ts.step(e)
            assert ms.get_last_lr() == ts.get_last_lr(), e
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        ms.step(-1)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        ts.step(-1)


def test_cyclic_momentum_cycles_inversely_to_lr():
    """CyclicLR: at a cycle's start lr = base_lr and momentum = max_momentum; at its peak
    lr = max_lr and momentum = base_momentum (maths), with SGD's momentum and Adam's beta1,
    each value equal to PyTorch's."""
    for kind, key in (("SGD", "momentum"), ("Adam", "betas")):
        mo, to = _optimizer("mg", kind), _optimizer("torch", kind)
        kw = dict(base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=6,
                  base_momentum=0.8, max_momentum=0.9)
        ms, ts = mls.CyclicLR(mo, **kw), TLS.CyclicLR(to, **kw)
        for i in range(31):
            g, tg = mo.param_groups[0], to.param_groups[0]
            mom = g[key][0] if key == "betas" else g[key]
            assert g[key] == tg[key] and ms.get_last_lr() == ts.get_last_lr()
            if i % 10 == 0:
                assert ms.get_last_lr()[0] == 0.01 and mom == 0.9
            if i % 10 == 4:
                assert math.isclose(ms.get_last_lr()[0], 0.1) and math.isclose(mom, 0.8)
            if key == "betas":
                assert g["betas"][1] == 0.999     # beta2 untouched
            mo.step()
            to.step()
            ms.step()
            ts.step()


def test_onecycle_past_total_steps_raises_as_torch():
    for L, opt in ((mls, _optimizer("mg", "SGD")), (TLS, _optimizer("torch", "SGD"))):
        s = L.OneCycleLR(opt, 0.5, total_steps=3)
        for _ in range(3):
            opt.step()
            s.step()
        opt.step()
        with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of "
                                             "total steps is 3"):
            s.step()


def test_sequential_milestone_restarts_the_next_schedule():
    """At a milestone the next schedule starts from its epoch 0 with the closed form: an
    ExponentialLR after 5 epochs of ConstantLR starts again from the base lr (maths)."""
    mo = _optimizer("mg", "SGD")
    s = mls.SequentialLR(mo, [mls.ConstantLR(mo, 0.1, total_iters=100),
                              mls.ExponentialLR(mo, 0.5)], milestones=[5])
    lrs = []
    for _ in range(7):
        lrs.append(s.get_last_lr()[0])
        mo.step()
        s.step()
    assert lrs[:5] == [0.1 * 0.1] * 5
    assert lrs[5] == 0.1 and lrs[6] == 0.05
    with pytest.raises(TypeError):
        s.step(3)              # SequentialLR.step takes no epoch in PyTorch 2.13
