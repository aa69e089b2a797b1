"""nn.Fold, nn.Unfold, nn.ChannelShuffle, F.channel_shuffle, F.pdist and F.gumbel_softmax
against PyTorch 2.13 (values, gradients, reprs, errors)."""
import numpy as np
import pytest
import torch

import minigrad as mg

RNG = np.random.default_rng(4)


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def both(x):
    return mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.Unfold((2, 3), padding=1, stride=2), (2, 3, 5, 6)),
    (lambda nn: nn.Fold((4, 5), 2, dilation=1, stride=1), (2, 12, 12)),
    (lambda nn: nn.ChannelShuffle(3), (2, 6, 2, 3)),
    (lambda nn: nn.ChannelShuffle(2), (1, 4, 5)),
])
def test_modules(make, shape):
    mm, tm = make(mg.nn), make(torch.nn)
    assert repr(mm) == repr(tm)
    x = RNG.standard_normal(shape)
    (mx, tx) = both(x)
    om, ot = mm(mx), tm(tx)
    close(om, ot)
    w = RNG.standard_normal(tuple(ot.shape))
    (om * mg.tensor(w)).sum().backward()
    (ot * torch.tensor(w)).sum().backward()
    close(mx.grad, tx.grad)


def test_channel_shuffle_bf16_exact():
    x = RNG.standard_normal((2, 6, 3)).astype(np.float32)
    om = mg.nn.functional.channel_shuffle(mg.tensor(x).to(mg.bfloat16), 3)
    ot = torch.nn.functional.channel_shuffle(torch.tensor(x).to(torch.bfloat16), 3)
    assert om.float().tolist() == ot.float().tolist()


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, float("inf")])
def test_pdist(p):
    x = RNG.standard_normal((5, 3))
    x[1] = x[0]                     # a zero distance
    mx, tx = both(x)
    om, ot = mg.nn.functional.pdist(mx, p), torch.nn.functional.pdist(tx, p)
    close(om, ot)
    if p != 0:
        w = RNG.standard_normal(tuple(ot.shape))
        (om * mg.tensor(w)).sum().backward()
        (ot * torch.tensor(w)).sum().backward()
        close(mx.grad, tx.grad)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_same_draws(hard):
    x = RNG.standard_normal((4, 5))
    mx, tx = both(x)
    mg.manual_seed(3)
    torch.manual_seed(3)
    om = mg.nn.functional.gumbel_softmax(mx, tau=0.5, hard=hard)
    ot = torch.nn.functional.gumbel_softmax(tx, tau=0.5, hard=hard)
    close(om, ot, 1e-10)
    w = RNG.standard_normal((4, 5))
    (om * mg.tensor(w)).sum().backward()
    (ot * torch.tensor(w)).sum().backward()
    close(mx.grad, tx.grad, 1e-10)


@pytest.mark.parametrize("case", [
    lambda F, lib: F.channel_shuffle(lib.ones(2, 4, 3), 0),
    lambda F, lib: F.channel_shuffle(lib.ones(2, 5, 3), 2),
    lambda F, lib: F.channel_shuffle(lib.ones(2, 4), 2),
    lambda F, lib: F.pdist(lib.ones(3)),
    lambda F, lib: F.pdist(lib.ones(3, 2), -1),
    lambda F, lib: F.pdist(lib.ones(3, 2, dtype=lib.int64)),
])
def test_errors_match_torch(case):
    errs = []
    for lib in (mg, torch):
        with pytest.raises(Exception) as info:
            case(lib.nn.functional, lib)
        errs.append((type(info.value).__name__, str(info.value)))
    assert errs[0] == errs[1]
