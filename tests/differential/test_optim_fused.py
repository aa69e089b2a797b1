"""The chunked in-place fp32 fast path of the foreach kernels (minigrad/ops/foreach_kernels.py)
under torch.optim's default for-loop, on tensors larger than one chunk (so chunk boundaries and
the last partial chunk are crossed), bit for bit, plus the cases that must leave the fast path:
non-contiguous storage and a grad sharing memory with its parameter. The small-tensor grids live
in test_optim.py. (Before the optimizers wrote through dispatched ops this tested
optim/_fused32.py, which the kernels' fast path replaces.)"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg
import optim
from minigrad.ops import foreach_kernels as F
from optim import adam as adam_mod

from ._optim_util import same
from .test_optim import torch_sqrt

SHAPES = [(2 * F.CHUNK + 7,), (300, 257), (7,), ()]


def _pair(seed, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    init = [np.asarray(rng.standard_normal(s), dtype=np.float32) for s in shapes]
    m = [mg.from_numpy(a.copy()).requires_grad_() for a in init]
    t = [torch.from_numpy(a.copy()).requires_grad_() for a in init]
    return rng, m, t


def _run(kind, kw, steps=3, seed=0):
    rng, ms, ts = _pair(seed)
    mo, to = getattr(optim, kind)(ms, **kw), getattr(torch.optim, kind)(ts, **kw)
    storage = [m._data for m in ms]
    for s in range(steps):
        for i, (m, t) in enumerate(zip(ms, ts)):
            g = np.asarray(rng.standard_normal(m.shape) * (1e-3 if (s + i) % 2 else 1.0),
                           dtype=np.float32)
            if g.size > 8:
                g.reshape(-1)[:5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
            m.grad, t.grad = mg.from_numpy(g.copy()), torch.from_numpy(g.copy())
        versions = [m._version for m in ms]
        mo.step()
        to.step()
        for m, t, arr, v in zip(ms, ts, storage, versions):
            assert m._data is arr and m._version > v, "the step must write in place"
            assert same(m._data, t.detach().numpy())
            assert set(mo.state[m]) == set(to.state[t])
            for k, val in to.state[t].items():
                if k != "step":
                    assert same(mo.state[m][k]._data, val.numpy()), k


@pytest.mark.parametrize("kw", [
    dict(lr=0.01, momentum=0.9), dict(lr=0.1), dict(lr=0.1, momentum=0.9, nesterov=True),
    dict(lr=0.05, momentum=0.5, dampening=0.3, weight_decay=0.01, maximize=True),
    dict(lr=0.37, momentum=0.9, weight_decay=1.0, nesterov=True, maximize=True)])
def test_sgd_fp32_large_tensors_bit_exact(kw):
    _run("SGD", kw)


@pytest.mark.parametrize("kind,kw", [
    ("Adam", dict(lr=1e-3)), ("Adam", dict(lr=0.05, weight_decay=0.3, maximize=True)),
    ("AdamW", dict(lr=0.05, amsgrad=True, betas=(0.3, 0.8), eps=1e-3)),
    ("Adam", dict(lr=1e-3, amsgrad=True, weight_decay=1e-2, betas=(0.5, 0.8)))])
def test_adam_fp32_large_tensors_bit_exact_given_torch_sqrt(kind, kw):
    old = adam_mod._sqrt
    adam_mod._sqrt = torch_sqrt
    try:
        _run(kind, kw)
    finally:
        adam_mod._sqrt = old


@pytest.mark.parametrize("kind,kw", [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
                                     ("AdamW", dict(lr=0.05, amsgrad=True))])
def test_noncontiguous_param_and_grad_fall_back_exactly(kind, kw):
    """A transposed (Fortran-order) parameter and grad take the per-kernel path; same bits."""
    rng = np.random.default_rng(3)
    base = np.asarray(rng.standard_normal((40, 33)), dtype=np.float32)
    m = mg.from_numpy(base.copy().T).requires_grad_()
    t = torch.from_numpy(base.copy().T).requires_grad_()
    assert not F._fast(m._data, m._data)
    mo, to = getattr(optim, kind)([m], **kw), getattr(torch.optim, kind)([t], **kw)
    if kind == "AdamW":
        adam_mod._sqrt, old = torch_sqrt, adam_mod._sqrt
    try:
        for _ in range(3):
            g = np.asarray(rng.standard_normal((40, 33)), dtype=np.float32).T
            m.grad, t.grad = mg.from_numpy(g.copy(order="F")), torch.from_numpy(g.copy())
            mo.step()
            to.step()
            assert same(m._data, t.detach().numpy())
    finally:
        if kind == "AdamW":
            adam_mod._sqrt = old


def test_grad_sharing_param_memory_is_read_before_written():
    """A grad that is a (reversed) view of its own parameter is read as it was before the step,
    as if it were a copy: such a step is not fused (later chunks would read updated values)."""
    init = np.linspace(-1, 1, 2 * F.CHUNK + 3, dtype=np.float32)
    m = mg.from_numpy(init.copy()).requires_grad_()
    t = torch.from_numpy(init.copy()).requires_grad_()
    mo, to = optim.SGD([m], lr=0.1, momentum=0.9), torch.optim.SGD([t], lr=0.1, momentum=0.9)
    for _ in range(3):
        m.grad = mg.from_numpy(m._data[::-1])   # a reversed view of the parameter itself
        t.grad = t.detach().flip(0).clone()
        assert not F._fast(m._data, m.grad._data)
        mo.step()
        to.step()
        assert same(m._data, t.detach().numpy())
