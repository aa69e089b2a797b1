"""fp32 master weights vs pure fp16 parameters (the failure mode the lecture warns about)."""
from __future__ import annotations

import numpy as np

import minigrad as mg
import optim
from amp_emu import GradScaler, MasterWeightOptimizer, master_params


def _run(use_master, steps=50):
    w = mg.tensor([1.0, 1.0], dtype=mg.float16, requires_grad=True)
    opt = MasterWeightOptimizer(optim.SGD, [w], lr=1e-4) if use_master \
        else optim.SGD([w], lr=1e-4)
    for _ in range(steps):
        loss = (w.float() * mg.tensor([1.0, -1.0])).sum()     # grad = [1, -1]
        loss.backward()
        opt.step()
        opt.zero_grad()
    return w, opt


def test_pure_fp16_update_is_lost_master_weights_keep_it():
    # lr*g = 1e-4 is below half an fp16 ulp at 1.0 (2**-11 ~ 4.9e-4): pure fp16 never moves
    w, _ = _run(False)
    assert w.tolist() == [1.0, 1.0]
    w, opt = _run(True)
    m = opt.master_params[0]
    assert m.dtype is mg.float32 and w.dtype is mg.float16
    expect = np.float32(1.0)
    for _ in range(50):
        expect = np.float32(expect - np.float32(1e-4))          # SGD in fp32: p - lr*g
    assert m.tolist()[0] == float(expect)
    assert w.tolist()[0] == float(np.float16(expect))           # written back, rounded once


def test_master_with_grad_scaler_unscales_fp32_copies():
    w = mg.tensor([1.0, 2.0], dtype=mg.float16, requires_grad=True)
    opt = MasterWeightOptimizer(optim.SGD, [w], lr=0.5)
    s = GradScaler("cuda", init_scale=1024.0)
    s.scale((w * w).sum()).backward()                   # fp16 grads; masters get fp32 copies
    assert opt.master_params[0].grad.dtype is mg.float32
    s.step(opt)                                         # would raise for raw fp16 grads
    s.update()
    assert w.tolist() == [0.0, 0.0]                     # w - 0.5 * 2w
    assert s.skipped_steps == 0


def test_master_params_helper():
    ps = master_params([mg.ones(2, dtype=mg.bfloat16), mg.ones(1, dtype=mg.float64)])
    assert [p.dtype for p in ps] == [mg.float32, mg.float64]
    assert all(p.is_leaf and p.requires_grad for p in ps)
