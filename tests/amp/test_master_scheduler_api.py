"""``MasterWeightOptimizer`` with LR schedulers and ``GradScaler`` (the docstring's promise), and
the torch-level autocast queries ``minigrad.is_autocast_enabled`` / ``get_autocast_dtype``.
Expected learning rates and autocast answers come from PyTorch 2.13."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import amp_emu
import minigrad as mg
import optim
from minigrad import nn
from optim.lr_scheduler import StepLR


def _torch_lrs(n, step_size, gamma, lr):
    p = torch.nn.Parameter(torch.zeros(1))
    o = torch.optim.SGD([p], lr=lr)
    s = torch.optim.lr_scheduler.StepLR(o, step_size, gamma=gamma)
    out = []
    for _ in range(n):
        o.step()
        s.step()
        out.append(o.param_groups[0]["lr"])
    return out


def test_master_weight_optimizer_is_an_optimizer():
    m = nn.Linear(3, 2).half()
    opt = amp_emu.MasterWeightOptimizer(optim.SGD, m.parameters(), lr=0.5)
    assert isinstance(opt, optim.Optimizer)
    assert opt.param_groups is opt.optimizer.param_groups and opt.state is opt.optimizer.state
    assert opt.defaults is opt.optimizer.defaults


def test_steplr_and_gradscaler_drive_master_weights():
    mg.manual_seed(0)
    model = nn.Linear(3, 2).half()
    opt = amp_emu.MasterWeightOptimizer(optim.SGD, model.parameters(), lr=0.5)
    sched = StepLR(opt, 2, gamma=0.1)
    scaler = amp_emu.GradScaler("cpu", init_scale=2.0 ** 4)
    lrs = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # no "lr_scheduler.step() before optimizer.step()"
        for _ in range(5):
            before = [p.detach().clone() for p in model.parameters()]
            loss = model(mg.randn(4, 3, dtype=mg.float16)).float().sum()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            sched.step()
            lrs.append(opt.param_groups[0]["lr"])
            # the step went through the masters into the fp16 model
            assert any(not np.array_equal(b._data, p._data)
                       for b, p in zip(before, model.parameters()))
            for p, mp in zip(model.parameters(), opt.master_params):
                assert p.dtype is mg.float16 and mp.dtype is mg.float32
                assert np.array_equal(p._data, mp._data.astype(np.float16))
    assert lrs == pytest.approx(_torch_lrs(5, 2, 0.1, 0.5), rel=0, abs=0)
    assert opt.optimizer.param_groups[0]["lr"] == lrs[-1]
    assert scaler.get_scale() == 2.0 ** 4


def test_gradscaler_skips_overflowing_step_for_master_optimizer():
    model = nn.Linear(2, 1).half()
    opt = amp_emu.MasterWeightOptimizer(optim.SGD, model.parameters(), lr=0.1)
    sched = StepLR(opt, 1, gamma=0.5)
    scaler = amp_emu.GradScaler("cpu", init_scale=2.0 ** 24)
    w = model.weight.detach().clone()
    loss = model(mg.tensor([[1e4, 1e4]], dtype=mg.float16)).float().sum()
    scaler.scale(loss).backward()                 # fp16 grads overflow to inf
    assert scaler.step(opt) is None
    scaler.update()
    assert scaler.get_scale() == 2.0 ** 23 and np.array_equal(model.weight._data, w._data)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()                              # torch warns the same after a skipped step


def test_master_optimizer_add_param_group_and_step_hooks():
    a, b = nn.Linear(2, 2).half(), nn.Linear(2, 1).half()
    opt = amp_emu.MasterWeightOptimizer(optim.SGD, a.parameters(), lr=0.1)
    opt.add_param_group({"params": b.parameters(), "lr": 0.2})
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.2] and len(opt.master_params) == 4
    calls = []
    opt.register_step_post_hook(lambda o, args, kw: calls.append(o))
    b(a(mg.ones(1, 2, dtype=mg.float16))).float().sum().backward()
    opt.step()
    assert calls == [opt]
    assert np.array_equal(b.weight._data, opt.master_params[2]._data.astype(np.float16))


def test_torch_level_autocast_queries_match_torch():
    got, want = [], []
    for mod, ctx in ((mg, mg.autocast), (torch, torch.autocast)):
        res = got if mod is mg else want
        res.append((mod.is_autocast_enabled(), mod.is_autocast_enabled("cpu"),
                    str(mod.get_autocast_dtype("cpu")).split(".")[-1],
                    str(mod.get_autocast_dtype("cuda")).split(".")[-1]))
        with ctx("cpu", dtype=mod.float16):
            res.append((mod.is_autocast_enabled(device_type="cpu"), mod.is_autocast_enabled("cuda"),
                        str(mod.get_autocast_dtype("cpu")).split(".")[-1]))
        res.append((mod.is_autocast_enabled("cpu"), str(mod.get_autocast_dtype("cpu")).split(".")[-1]))
    assert got == want


def test_minigrad_still_imports_amp_emu_lazily():
    code = ("import sys, minigrad; assert 'amp_emu' not in sys.modules; "
            "minigrad.is_autocast_enabled('cpu'); assert 'amp_emu' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
