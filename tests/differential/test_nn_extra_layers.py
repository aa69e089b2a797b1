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


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border"])
def test_affine_grid_and_grid_sample(align_corners, mode, padding_mode):
    th = RNG.standard_normal((2, 2, 3)) * 0.7
    gm = mg.nn.functional.affine_grid(mg.tensor(th), (2, 3, 4, 5), align_corners)
    gt = torch.nn.functional.affine_grid(torch.tensor(th), (2, 3, 4, 5), align_corners)
    close(gm, gt)
    x = RNG.standard_normal((2, 3, 4, 5))
    g = RNG.uniform(-1.3, 1.3, (2, 3, 6, 2))
    (mx, tx), (mgr, tgr) = both(x), both(g)
    om = mg.nn.functional.grid_sample(mx, mgr, mode, padding_mode, align_corners)
    ot = torch.nn.functional.grid_sample(tx, tgr, mode, padding_mode, align_corners)
    close(om, ot)
    w = RNG.standard_normal(tuple(ot.shape))
    (om * mg.tensor(w)).sum().backward()
    (ot * torch.tensor(w)).sum().backward()
    close(mx.grad, tx.grad)
    if mode == "bilinear":
        close(mgr.grad, tgr.grad, 1e-10)
    else:
        assert mgr.grad is None and not tgr.grad.any()


@pytest.mark.parametrize("case", [
    lambda F, lib: F.affine_grid(lib.eye(2, 3).unsqueeze(0).long(), (1, 1, 2, 2), False),
    lambda F, lib: F.affine_grid(lib.eye(2, 3).unsqueeze(0), (1, 1, 2), False),
    lambda F, lib: F.affine_grid(lib.eye(2, 3).unsqueeze(0), (1, 1, 0, 2), False),
    lambda F, lib: F.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), mode="x",
                                 align_corners=False),
    lambda F, lib: F.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2), padding_mode="x",
                                 align_corners=False),
    lambda F, lib: F.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 3),
                                 align_corners=False),
    lambda F, lib: F.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(2, 1, 1, 2),
                                 align_corners=False),
])
def test_grid_errors_match_torch(case):
    errs = []
    for lib in (mg, torch):
        with pytest.raises(Exception) as info:
            case(lib.nn.functional, lib)
        errs.append((type(info.value).__name__, str(info.value).replace("minigrad", "torch")))
    assert errs[0] == errs[1]


def test_align_corners_warning():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        mg.nn.functional.affine_grid(mg.eye(2, 3).unsqueeze(0), (1, 1, 2, 2))
