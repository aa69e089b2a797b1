"""``optim.Muon`` against ``torch.optim.Muon`` (PyTorch 2.13).

Muon's Newton-Schulz steps are bf16 matmuls: PyTorch's run through oneDNN's bf16 gemm, ours
through minigrad's (fp32 accumulation in another order, one rounding), so a rare element of the
orthogonalised update differs by one bf16 ulp. Stated bound: after ``steps`` steps every element
is within ``steps * adjusted_lr * 2**-7`` of torch's (one bf16 ulp of an update of magnitude <=
1 per step) and at least 90% of the elements are bit-identical.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minigrad as mg
import optim
from optim.muon import zeropower_via_newtonschulz

SHAPES = [(6, 4), (3, 9), (16, 16)]     # tall, wide, square


def _run(dtype, kw, steps=10, seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    tp = [torch.tensor(a).to(getattr(torch, dtype)).requires_grad_() for a in init]
    mp = [mg.tensor(a).to(getattr(mg, dtype)).requires_grad_() for a in init]
    to, mo = torch.optim.Muon(tp, **kw), optim.Muon(mp, **kw)
    for _ in range(steps):
        for t, m, sh in zip(tp, mp, SHAPES):
            g = rng.standard_normal(sh).astype(np.float32)
            t.grad = torch.tensor(g).to(t.dtype)
            m.grad = mg.tensor(g).to(m.dtype)
        to.step()
        mo.step()
    return tp, mp, to, mo


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kw", [dict(),
                                dict(nesterov=False, lr=0.02, adjust_lr_fn="match_rms_adamw"),
                                dict(momentum=0.5, weight_decay=0.0, ns_steps=3,
                                     adjust_lr_fn="original")], ids=range(3))
def test_matches_torch_within_the_bf16_gemm_bound(kw, dtype):
    steps = 10
    tp, mp, to, mo = _run(dtype, kw, steps)
    lr = kw.get("lr", 1e-3)
    same = total = 0
    for t, m, sh in zip(tp, mp, SHAPES):
        a, b = t.detach().float().numpy(), m.detach().float().numpy()
        ratio = (0.2 * math.sqrt(max(sh)) if kw.get("adjust_lr_fn") == "match_rms_adamw"
                 else math.sqrt(max(1, sh[0] / sh[1])))
        ulp_p = float(torch.finfo(getattr(torch, dtype)).eps) * np.abs(a)
        assert np.all(np.abs(a - b) <= steps * lr * ratio * 2.0 ** -7 + 2 * ulp_p)
        same += int(np.sum(a == b))
        total += a.size
        ms, ts = mo.state[m]["momentum_buffer"], to.state[t]["momentum_buffer"]
        assert ms.dtype.name == str(ts.dtype).split(".")[1] and tuple(ms.shape) == tuple(ts.shape)
    assert same >= 0.9 * total


def test_newton_schulz_mostly_bit_exact_and_orthogonalises():
    rng = np.random.default_rng(3)
    exact = 0
    coeffs = (3.4445, -4.7750, 2.0315)
    for i in range(30):
        g = rng.standard_normal(SHAPES[i % 3]).astype(np.float32)
        want = torch.optim._muon._zeropower_via_newtonschulz(torch.tensor(g), coeffs, 5, 1e-7)
        got = zeropower_via_newtonschulz(mg.tensor(g), coeffs, 5, 1e-7)
        assert got.dtype == mg.bfloat16 and tuple(got.shape) == tuple(want.shape)
        exact += np.array_equal(got.float().numpy(), want.float().numpy())
        # no singular value above ~1.5 (Muon's S' ~ U(0.5, 1.5); small ones grow more slowly)
        s = np.linalg.svd(got.float().numpy().astype(np.float64), compute_uv=False)
        assert s.max() < 1.6 and np.median(s) > 0.5
    assert exact >= 25


@pytest.mark.parametrize("kw", [dict(lr=-1.0), dict(momentum=-0.1), dict(weight_decay=-1.0),
                                dict(adjust_lr_fn="nope")])
def test_constructor_errors_as_torch(kw):
    with pytest.raises(ValueError) as theirs:
        torch.optim.Muon([torch.zeros(2, 2, requires_grad=True)], **kw)
    with pytest.raises(ValueError) as ours:
        optim.Muon([mg.zeros(2, 2, requires_grad=True)], **kw)
    assert str(ours.value) == str(theirs.value)


def test_non_2d_parameter_refused_as_torch():
    with pytest.raises(ValueError) as theirs:
        torch.optim.Muon([torch.zeros(3, requires_grad=True)])
    with pytest.raises(ValueError) as ours:
        optim.Muon([mg.zeros(3, requires_grad=True)])
    assert str(ours.value) == str(theirs.value).replace("torch.Size", "minigrad.Size")


def test_too_many_ns_steps_raise_at_step_and_change_nothing():
    p = mg.ones(2, 2, requires_grad=True)
    p.grad = mg.ones(2, 2)
    opt = optim.Muon([p], ns_steps=100)
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        opt.step()
    tp = torch.ones(2, 2, requires_grad=True)
    tp.grad = torch.ones(2, 2)
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        torch.optim.Muon([tp], ns_steps=100).step()
    assert np.array_equal(p.detach().numpy(), tp.detach().numpy())
    assert not opt.state.get(p)          # no state was created
