"""optim.lr_scheduler against torch.optim.lr_scheduler: identical learning rates (and OneCycleLR
momenta/betas) at every step, checkpoint/restore, warnings and errors."""
from __future__ import annotations

import warnings

import pytest
import torch

import minigrad as mg
import optim
from optim import lr_scheduler as mls


SCHEDS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=1e-4)),
    ("LambdaLR", dict(lr_lambda=lambda e: 1.0 / (1 + e))),
    ("LinearLR", dict(start_factor=0.25, end_factor=0.9, total_iters=6)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=25)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.2], total_steps=25, three_phase=True,
                        anneal_strategy="linear")),
]


@pytest.mark.parametrize("opt_kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name,kw", SCHEDS)
def test_lr_schedulers_match_torch(opt_kind, name, kw):
    p, tp = mg.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    q, tq = mg.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    okw = {"momentum": 0.9} if opt_kind == "SGD" else {}
    mo = getattr(optim, opt_kind)([{"params": [p]}, {"params": [q], "lr": 0.05}], lr=0.1, **okw)
    to = getattr(torch.optim, opt_kind)([{"params": [tp]}, {"params": [tq], "lr": 0.05}],
                                        lr=0.1, **okw)
    ms = getattr(mls, name)(mo, **kw)
    ts = getattr(torch.optim.lr_scheduler, name)(to, **kw)
    assert ms.get_last_lr() == ts.get_last_lr()
    for i in range(24):
        mo.step()
        to.step()
        ms.step()
        ts.step()
        assert ms.get_last_lr() == ts.get_last_lr(), i
        for g, tg in zip(mo.param_groups, to.param_groups):
            assert {k: v for k, v in g.items() if k != "params"} == \
                {k: v for k, v in tg.items() if k != "params"}
        if i == 10:   # checkpoint, rebuild, restore (torch's order): the schedule continues
            sd, osd = ms.state_dict(), mo.state_dict()
            ms = getattr(mls, name)(mo, **kw)
            mo.load_state_dict(osd)
            ms.load_state_dict(sd)
            assert ms.last_epoch == ts.last_epoch


def test_scheduler_warnings_and_errors():
    p = mg.zeros(2, requires_grad=True)
    o = optim.SGD([p], lr=0.1)
    s = mls.StepLR(o, step_size=2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s.step()
    assert any("before `optimizer.step()`" in str(x.message) for x in w)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        mls.StepLR(object(), step_size=2)
    with pytest.raises(ValueError, match="total steps is 3"):
        s = mls.OneCycleLR(optim.SGD([p], lr=0.1), max_lr=1.0, total_steps=3)
        for _ in range(4):
            s.optimizer.step()
            s.step()
