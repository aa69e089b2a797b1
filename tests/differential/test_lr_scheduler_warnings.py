"""The schedulers' warnings and errors, in optim.lr_scheduler and in torch.optim.lr_scheduler
2.13 side by side (``pytest.warns`` / ``pytest.raises`` on both): the step-order warning (and
when PyTorch does not give it: ReduceLROnPlateau, CosineAnnealingWarmRestarts), the one a
GradScaler-skipped first step causes, an optimizer.step replaced after construction, the
``step(epoch)`` deprecation, ``get_lr()`` outside ``step``, and the constructors' errors."""
from __future__ import annotations

import warnings

import pytest
import torch

import amp_emu
import minigrad as mg
import optim
from optim import lr_scheduler as mls

TLS = torch.optim.lr_scheduler
LIBS = ["mg", "torch"]
ORDER = r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"
OVERRIDDEN = r"Seems like `optimizer.step\(\)` has been overridden after learning rate scheduler"
EPOCH = r"The epoch parameter in `scheduler.step\(\)` was not necessary"


def _env(lib, kind="SGD", groups=2):
    """(scheduler module, optimizer, param list) of one library."""
    if lib == "torch":
        ps, ns, L = [torch.zeros(2, requires_grad=True) for _ in range(groups)], torch.optim, TLS
    else:
        ps, ns, L = [mg.zeros(2, requires_grad=True) for _ in range(groups)], optim, mls
    pg = [{"params": [p]} for p in ps]
    opt = ns.SGD(pg, lr=0.1, momentum=0.9) if kind == "SGD" else ns.Adam(pg, lr=0.1)
    return L, opt, ps


BUILDERS = [
    ("StepLR", lambda L, o: L.StepLR(o, 2)),
    ("LambdaLR", lambda L, o: L.LambdaLR(o, lambda e: 1.0)),
    ("MultiplicativeLR", lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9)),
    ("ConstantLR", lambda L, o: L.ConstantLR(o)),
    ("PolynomialLR", lambda L, o: L.PolynomialLR(o)),
    ("CyclicLR", lambda L, o: L.CyclicLR(o, 0.01, 0.1)),
    ("OneCycleLR", lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10)),
    ("SequentialLR", lambda L, o: L.SequentialLR(o, [L.ConstantLR(o), L.ExponentialLR(o, 0.9)],
                                                 milestones=[3])),
]


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("name,build", BUILDERS, ids=[b[0] for b in BUILDERS])
def test_scheduler_step_before_optimizer_step_warns(lib, name, build):
    L, opt, _ = _env(lib)
    s = build(L, opt)
    with pytest.warns(UserWarning, match=ORDER):
        s.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # only the first step checks
        opt.step()
        s.step()


@pytest.mark.parametrize("lib", LIBS)
def test_chained_scheduler_step_before_optimizer_step_warns_per_part(lib):
    L, opt, _ = _env(lib)
    s = L.ChainedScheduler([L.StepLR(opt, 2), L.ExponentialLR(opt, 0.9)])
    with pytest.warns(UserWarning, match=ORDER) as rec:
        s.step()
    assert sum("Detected call" in str(w.message) for w in rec) == 2


@pytest.mark.parametrize("lib", LIBS)
def test_plateau_and_warm_restarts_never_warn_about_order(lib):
    """Neither goes through the base step's check in PyTorch 2.13."""
    L, opt, _ = _env(lib)
    plateau = L.ReduceLROnPlateau(opt)
    restarts = L.CosineAnnealingWarmRestarts(opt, T_0=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            plateau.step(1.0)
            restarts.step()
    assert restarts._step_count == 0


@pytest.mark.parametrize("lib", LIBS)
def test_optimizer_called_first_does_not_warn(lib):
    L, opt, _ = _env(lib, "Adam")
    s = L.ExponentialLR(opt, 0.9)
    s2 = L.StepLR(opt, 3)              # a second scheduler keeps the first wrapper
    assert opt.step._wrapped_by_lr_sched
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        s.step()
        s2.step()


@pytest.mark.parametrize("lib", LIBS)
def test_gradscaler_skipped_first_step_triggers_the_warning(lib):
    """An inf in the first backward makes GradScaler skip ``optimizer.step()``; the scheduler
    then sees no optimizer step and warns, as in PyTorch. The next (finite) iteration steps."""
    L, opt, (p, q) = _env(lib)
    s = L.StepLR(opt, 1, gamma=0.5)
    if lib == "torch":
        scaler, inf = torch.amp.GradScaler("cpu", init_scale=2.0 ** 4), torch.tensor(float("inf"))
    else:
        scaler, inf = amp_emu.GradScaler("cpu", init_scale=2.0 ** 4), mg.tensor(float("inf"))
    scaler.scale(((p + 1) * inf).sum() + q.sum()).backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 8.0 and p.detach().sum().item() == 0.0    # skipped
    with pytest.warns(UserWarning, match=ORDER):
        s.step()
    opt.zero_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaler.scale((p + q).sum()).backward()
        scaler.step(opt)
        scaler.update()
        s.step()
    assert p.detach().sum().item() != 0.0 and s.get_last_lr() == [0.025, 0.025]


@pytest.mark.parametrize("lib", LIBS)
def test_gradscaler_finite_first_step_does_not_warn(lib):
    L, opt, (p, q) = _env(lib)
    s = L.StepLR(opt, 1)
    scaler = (torch.amp.GradScaler("cpu") if lib == "torch" else amp_emu.GradScaler("cpu"))
    scaler.scale((p + q).sum()).backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaler.step(opt)
        scaler.update()
        s.step()


@pytest.mark.parametrize("lib", LIBS)
def test_optimizer_step_overridden_after_construction_warns(lib):
    L, opt, _ = _env(lib)
    s = L.StepLR(opt, 2)
    opt.step = lambda: None
    with pytest.warns(UserWarning, match=OVERRIDDEN):
        s.step()


@pytest.mark.parametrize("lib", LIBS)
def test_epoch_argument_is_deprecated(lib):
    L, opt, _ = _env(lib)
    s = L.StepLR(opt, 2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match=EPOCH):
        s.step(4)
    assert s.get_last_lr() == [0.025, 0.025]
    p = L.ReduceLROnPlateau(opt)
    with pytest.warns(UserWarning, match=EPOCH):
        p.step(1.0, 3)


@pytest.mark.parametrize("lib", LIBS)
def test_get_lr_outside_step_warns(lib):
    L, opt, _ = _env(lib)
    s = L.ExponentialLR(opt, 0.5)
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        s.get_lr()


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


def _no_momentum_optimizer(lib):
    """An Optimizer whose defaults have neither ``momentum`` nor ``betas``."""
    base, p = ((torch.optim.Optimizer, torch.zeros(1, requires_grad=True)) if lib == "torch"
               else (optim.Optimizer, mg.zeros(1, requires_grad=True)))
    return type("Plain", (base,), {"step": lambda self, closure=None: None})([p], {"lr": 0.1})


ERRORS = [
    ("constant-factor", lambda L, o: L.ConstantLR(o, factor=1.5)),
    ("linear-start", lambda L, o: L.LinearLR(o, start_factor=0.0)),
    ("linear-end", lambda L, o: L.LinearLR(o, end_factor=1.5)),
    ("lambda-count", lambda L, o: L.LambdaLR(o, [lambda e: 1.0] * 3)),
    ("multiplicative-count", lambda L, o: L.MultiplicativeLR(o, [lambda e: 1.0])),
    ("multiplicative-callable", lambda L, o: L.MultiplicativeLR(o, 0.9)),
    ("restarts-T0", lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=0)),
    ("restarts-T0-float", lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2.0)),
    ("restarts-Tmult", lambda L, o: L.CosineAnnealingWarmRestarts(o, 2, T_mult=0)),
    ("restarts-eta", lambda L, o: L.CosineAnnealingWarmRestarts(o, 2, eta_min="0")),
    ("cyclic-mode", lambda L, o: L.CyclicLR(o, 0.01, 0.1, mode="square")),
    ("cyclic-lengths", lambda L, o: L.CyclicLR(o, [0.01] * 3, 0.1)),
    ("cyclic-momentum-lengths", lambda L, o: L.CyclicLR(o, 0.01, 0.1, max_momentum=[0.9])),
    ("onecycle-steps", lambda L, o: L.OneCycleLR(o, 0.1)),
    ("onecycle-pct", lambda L, o: L.OneCycleLR(o, 0.1, total_steps=5, pct_start=1)),
    ("onecycle-momentum-lengths", lambda L, o: L.OneCycleLR(
        o, 0.1, total_steps=5, base_momentum=[0.8], max_momentum=[0.9])),
    ("sequential-empty", lambda L, o: L.SequentialLR(o, [], milestones=[])),
    ("sequential-milestones", lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2)], milestones=[3])),
    ("sequential-plateau", lambda L, o: L.SequentialLR(
        o, [L.StepLR(o, 2), L.ReduceLROnPlateau(o)], milestones=[3])),
    ("sequential-no-optimizer", lambda L, o: L.SequentialLR(o, [object()], milestones=[])),
    ("chained-empty", lambda L, o: L.ChainedScheduler([])),
    ("chained-plateau", lambda L, o: L.ChainedScheduler([L.ReduceLROnPlateau(o)])),
    ("resume-without-initial-lr", lambda L, o: L.StepLR(o, 2, last_epoch=3)),
    ("not-an-optimizer", lambda L, o: L.StepLR(object(), 2)),
    ("cyclic-not-an-optimizer", lambda L, o: L.CyclicLR(object(), 0.01, 0.1)),
]


@pytest.mark.parametrize("name,build", ERRORS, ids=[e[0] for e in ERRORS])
def test_constructor_errors_as_torch(name, build):
    (L1, o1, _), (L2, o2, _) = _env("mg"), _env("torch")
    assert _error(lambda: build(L1, o1)) == _error(lambda: build(L2, o2))


def test_cycling_momentum_needs_momentum_or_betas():
    for L, lib in ((mls, "mg"), (TLS, "torch")):
        for ctor in (lambda o, L=L: L.CyclicLR(o, 0.01, 0.1),
                     lambda o, L=L: L.OneCycleLR(o, 0.1, 10)):
            with pytest.raises(ValueError, match="optimizer must support momentum or beta1 with "
                                                 "`cycle_momentum` option enabled"):
                ctor(_no_momentum_optimizer(lib))
        L.CyclicLR(_no_momentum_optimizer(lib), 0.01, 0.1, cycle_momentum=False)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("composite", ["SequentialLR", "ChainedScheduler"])
def test_schedulers_of_another_optimizer_are_refused(lib, composite):
    L, o, _ = _env(lib)
    _, other, _ = _env(lib)
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same "
                                         "optimizer, but got scheduler StepLR at index"):
        if composite == "SequentialLR":
            L.SequentialLR(o, [L.StepLR(other, 2)], milestones=[])
        else:
            L.ChainedScheduler([L.StepLR(o, 2), L.StepLR(other, 2)])


def test_dropin_alias_exposes_every_torch_schedule():
    import minigrad.optim.lr_scheduler as alias
    assert alias is mls
    for name in TLS.__all__:
        assert getattr(alias, name).__name__ == name
    assert issubclass(alias._LRScheduler, alias.LRScheduler)
