"""Bernoulli, Uniform, Exponential and Laplace against torch.distributions: samples after the
same seed, log_prob, entropy, mean, variance, cdf/icdf and the validation errors.

Known difference: float64 ``Laplace`` samples (``uniform_(eps - 1, 1)`` in float64) are not
PyTorch's numbers yet; float32 ones are."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

CASES = [("Bernoulli", ([0.2, 0.7, 0.5],), [0., 1., 1.]),
         ("Uniform", ([0., -1., 2.], [1., 3., 2.5]), [0.5, 2.0, 2.2]),
         ("Exponential", ([0.5, 2., 3.],), [0.1, 2.0, 0.7]),
         ("Laplace", ([0., 1., -2.], [1., 0.5, 2.]), [0.3, -1., 2.])]


def _same(a, b):
    return np.array_equal(a.detach().double().numpy(), b.detach().double().numpy(),
                          equal_nan=True)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name,args,val", CASES, ids=[c[0] for c in CASES])
def test_against_torch(name, args, val, dt):
    M = getattr(mg.distributions, name)(*[mg.tensor(a, dtype=getattr(mg, dt)) for a in args])
    T = getattr(torch.distributions, name)(*[torch.tensor(a, dtype=getattr(torch, dt))
                                             for a in args])
    if not (name == "Laplace" and dt == "float64"):
        mg.manual_seed(3)
        torch.manual_seed(3)
        assert _same(M.sample((4,)), T.sample((4,)))
    v = mg.tensor(val, dtype=getattr(mg, dt)), torch.tensor(val, dtype=getattr(torch, dt))
    assert _same(M.log_prob(v[0]), T.log_prob(v[1]))
    assert _same(M.entropy(), T.entropy())
    assert _same(M.mean, T.mean) and _same(M.variance, T.variance)
    if name != "Bernoulli":
        assert _same(M.cdf(v[0]), T.cdf(v[1]))
        p = [0.1, 0.5, 0.9]
        assert _same(M.icdf(mg.tensor(p, dtype=getattr(mg, dt))),
                     T.icdf(torch.tensor(p, dtype=getattr(torch, dt))))


@pytest.mark.parametrize("name,args", [("Bernoulli", ([1.2],)), ("Uniform", ([1.], [0.5])),
                                       ("Exponential", ([-1.],)), ("Laplace", ([0.], [0.]))])
def test_validation_errors(name, args):
    msgs = []
    for L in (mg, torch):
        with pytest.raises(ValueError) as e:
            getattr(L.distributions, name)(*[L.tensor(a) for a in args])
        msgs.append(str(e.value).split(" of distribution")[0])
    assert msgs[0] == msgs[1]


def test_bernoulli_logits_and_support():
    m = mg.distributions.Bernoulli(logits=mg.tensor([0.3, -2.0]))
    t = torch.distributions.Bernoulli(logits=torch.tensor([0.3, -2.0]))
    assert _same(m.probs, t.probs)
    assert _same(m.enumerate_support(), t.enumerate_support())
    with pytest.raises(ValueError):
        m.log_prob(mg.tensor([0.5, 1.0]))
