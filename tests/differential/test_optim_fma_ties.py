"""SGD and Adam on fp32 operands built so that their fmas hit fp32 halfway points.

``fma(x, alpha, y)`` computed as fp32(float64(x*alpha) + y) rounds twice and breaks a false tie
to even when the float64 sum lands on an fp32 halfway point; minigrad's kernels must round once,
as torch's (``tests/unit/test_foreach_kernels.py`` builds the operands: ``_tie_operands``).
SGD's ``p.add_(buf, alpha=-lr)`` and Adam's ``exp_avg.lerp_(grad, 1 - beta1)`` get such
operands, for-loop and ``foreach=True``; params and state are compared with torch bit for bit
(Adam's fp32 sqrt is torch's own: MKL's rounding, see ``foreach_kernels``).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg
import optim
from minigrad.ops import foreach_kernels as K
from tests.unit.test_foreach_kernels import _double_rounded, _tie_operands

from .test_optim import torch_sqrt

N = [9, 2 * K.CHUNK + 3]     # one piece; chunks


def _same(m, t):
    return np.array_equal(m.detach().numpy().view(np.uint32), t.detach().numpy().view(np.uint32))


@pytest.mark.parametrize("n", N)
@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("above,subnormal", [(True, False), (False, False), (True, True),
                                             (False, True)])
def test_sgd_update_ties(above, subnormal, momentum, foreach, n):
    y, x, lr = _tie_operands(n, above, -23, subnormal, seed=n + above)
    ps = [(mg.from_numpy(y.copy()).requires_grad_(), torch.from_numpy(y.copy()).requires_grad_())
          for _ in range(2)]
    mo = optim.SGD([p for p, _ in ps], lr=lr, momentum=momentum, foreach=foreach)
    to = torch.optim.SGD([q for _, q in ps], lr=lr, momentum=momentum, foreach=foreach)
    for p, q in ps:
        p.grad = mg.from_numpy(x.copy())
        q.grad = torch.from_numpy(x.copy())
    mo.step()
    to.step()
    for p, q in ps:
        assert _same(p, q)
    naive = _double_rounded(y, x, -lr)     # the test hits double roundings
    assert not np.array_equal(naive.view(np.uint32), ps[0][1].detach().numpy().view(np.uint32))


@pytest.mark.parametrize("n", N)
@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("above", [True, False])
def test_adam_exp_avg_lerp_ties(above, foreach, n):
    """exp_avg = lerp(exp_avg, g, 1 - beta1) = fma(w, g - exp_avg, exp_avg) with w about
    2**-23: exp_avg set to y after a first step, g = y + x (g - exp_avg is x exactly on the
    constructed elements)."""
    y, x, w = _tie_operands(n, above, -23, False, seed=n + 2 * above)
    g = y + x
    # w = 2**-23 (1 +- 2**-11) needs 12 bits: 1 - w is exact in float64, and 1 - beta1 gives w
    # back exactly (Sterbenz), so the optimizer's weight 1 - beta1 is the constructed w
    beta1 = 1.0 - w
    p0 = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    mp = mg.from_numpy(p0.copy()).requires_grad_()
    tp = torch.from_numpy(p0.copy()).requires_grad_()
    mo = optim.Adam([mp], lr=1e-3, betas=(beta1, 0.999), foreach=foreach)
    to = torch.optim.Adam([tp], lr=1e-3, betas=(beta1, 0.999), foreach=foreach)
    with K.using_sqrt(torch_sqrt):
        for step in range(2):
            mp.grad = mg.from_numpy(g.copy())
            tp.grad = torch.from_numpy(g.copy())
            if step == 1:    # the state before the tie step
                with mg.no_grad():
                    mo.state[mp]["exp_avg"]._data[...] = y
                to.state[tp]["exp_avg"].copy_(torch.from_numpy(y))
            mo.step()
            to.step()
    assert _same(mo.state[mp]["exp_avg"], to.state[tp]["exp_avg"])
    assert _same(mo.state[mp]["exp_avg_sq"], to.state[tp]["exp_avg_sq"])
    assert _same(mp, tp)
    naive = (np.float64(np.float32(w)) * x.astype(np.float64) + y).astype(np.float32)
    assert not np.array_equal(naive.view(np.uint32),
                              to.state[tp]["exp_avg"].numpy().view(np.uint32))
