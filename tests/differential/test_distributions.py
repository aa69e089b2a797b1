"""``minigrad.distributions`` (Categorical, Normal) against ``torch.distributions``: samples
after the same seed, log_prob / entropy / cdf values and gradients, shapes, reprs and the
validation errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg


def _strip(s):
    return s.replace("torch.", "").replace("minigrad.", "")


def _errors(L, m):
    out = []
    for f in (lambda: m.log_prob(L.tensor([3, 0])),
              lambda: L.distributions.Categorical(L.tensor([-1.0, 2.0])),
              lambda: L.distributions.Categorical(),
              lambda: L.distributions.Categorical(L.tensor(1.0)),
              lambda: L.distributions.Normal(0.0, -1.0),
              lambda: L.distributions.Normal(L.zeros(2), L.ones(2)).log_prob(L.zeros(3)),
              lambda: m.log_prob([1, 0])):
        try:
            f()
            out.append(None)
        except Exception as e:          # noqa: BLE001 - the point is which exception
            out.append((type(e).__name__, _strip(str(e))))
    return out


def _run(L):
    L.manual_seed(3)
    logits = L.tensor([[0.2, -1.0, 0.5], [1.5, 0.1, -0.3]], requires_grad=True)
    m = L.distributions.Categorical(L.nn.functional.softmax(logits, dim=1))
    a = m.sample()
    out = dict(a=a, s=m.sample((4,)), lp=m.log_prob(a), ent=m.entropy(), mode=m.mode,
               perp=m.perplexity(), es=m.enumerate_support())
    (out["lp"].sum() + out["ent"].sum()).backward()
    out["grad"] = logits.grad
    m2 = L.distributions.Categorical(logits=logits.detach())
    out.update(p2=m2.probs, lp2=m2.log_prob(L.tensor([[0, 2]])))
    loc = L.tensor([0.5, -1.0], requires_grad=True)
    n = L.distributions.Normal(loc, L.tensor([1.0, 2.0]))
    x = n.sample((3,))
    r = n.rsample()
    (n.log_prob(x).sum() + n.entropy().sum() + r.sum()).backward()
    out.update(x=x, r=r, lg=loc.grad, cdf=n.cdf(L.tensor([0.1, 0.2])),
               icdf=n.icdf(L.tensor([0.3, 0.9])), n1=L.distributions.Normal(0.0, 1.0).sample((2,)))
    meta = dict(errs=_errors(L, m), rep=_strip(repr(m)),
                rep2=_strip(repr(L.distributions.Normal(0.0, 1.0))),
                bs=tuple(m.batch_shape), es=tuple(m.event_shape), bs2=tuple(n.batch_shape))
    return out, meta


def test_categorical_and_normal_match_torch():
    (t, tm), (g, gm) = _run(torch), _run(mg)
    for k in t:
        a, b = t[k].detach().numpy(), g[k].detach().numpy()
        assert a.shape == b.shape and str(a.dtype) == str(b.dtype), k
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7, err_msg=k)
    assert gm == tm


@pytest.mark.parametrize("validate", [True, False])
def test_validate_args_switch(validate):
    m = mg.distributions.Categorical(mg.tensor([0.5, 0.5]), validate_args=validate)
    t = torch.distributions.Categorical(torch.tensor([0.5, 0.5]), validate_args=validate)
    if validate:
        with pytest.raises(ValueError):
            m.log_prob(mg.tensor(2))
        with pytest.raises(ValueError):
            t.log_prob(torch.tensor(2))
    else:
        # no check: gather's own index error in both
        with pytest.raises((RuntimeError, IndexError)):
            m.log_prob(mg.tensor(2))
        with pytest.raises((RuntimeError, IndexError)):
            t.log_prob(torch.tensor(2))
