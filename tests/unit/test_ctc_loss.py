"""``F.ctc_loss`` / ``nn.CTCLoss`` against torch 2.13 CPU: losses and gradients bit for bit
(fp32, fp64) over random batches (padded and concatenated targets, tensor and tuple lengths,
every reduction, ``zero_infinity``, zero-length inputs and targets, unbatched input); the aten
ops and graph nodes; PyTorch's errors; autocast's fp32 cast on CPU."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
import minigrad.dispatch as D
from amp_emu import autocast
from minigrad.nn import functional as F
from minigrad.testing import from_torch

LIBS = {"torch": (torch, TF), "minigrad": (mg, F)}


def _mg(x):
    return from_torch(x.detach()) if isinstance(x, torch.Tensor) else x


def _np(t):
    return t.detach().to(torch.float64 if isinstance(t, torch.Tensor) else mg.float64).numpy()


def _case(rng, dt, k):
    t_max, n, c, s = int(rng.integers(1, 8)), int(rng.integers(1, 4)), int(rng.integers(2, 6)), \
        int(rng.integers(0, 5))
    lp = torch.from_numpy(rng.standard_normal((t_max, n, c))).to(dt).log_softmax(2)
    tl = torch.from_numpy(rng.integers(0, s + 1, n))
    il = torch.from_numpy(rng.integers(0, t_max + 1, n))
    blank = int(rng.integers(0, c))
    tg = torch.from_numpy(rng.integers(0, c - 1, (n, max(s, 1))))
    tg = tg + (tg >= blank).long()
    if k % 2:
        tg = torch.cat([tg[b, :tl[b]] for b in range(n)])
    lens = (il, tl) if k % 5 else (tuple(il.tolist()), tuple(tl.tolist()))
    kw = {"blank": blank, "reduction": ("none", "sum", "mean")[k % 3],
          "zero_infinity": k % 4 == 1}
    return lp, tg, lens, kw


@pytest.mark.parametrize("dt", [torch.float64, torch.float32])
def test_losses_and_gradients_match_torch_bits(dt):
    rng = np.random.default_rng(0)
    for k in range(24):
        lp, tg, lens, kw = _case(rng, dt, k)
        tlp, mlp = lp.clone().requires_grad_(), _mg(lp).requires_grad_()
        t = TF.ctc_loss(tlp, tg, *lens, **kw)
        m = F.ctc_loss(mlp, _mg(tg), *map(_mg, lens), **kw)
        g = torch.from_numpy(rng.random(tuple(t.shape))).to(dt)
        t.backward(g)
        m.backward(_mg(g))
        assert m.dtype is (mg.float32 if dt is torch.float32 else mg.float64)
        if dt is torch.float32:     # exp/log from float64, rounded: bit for bit
            np.testing.assert_array_equal(_np(m), _np(t), err_msg=str(kw))
            np.testing.assert_array_equal(_np(mlp.grad), _np(tlp.grad), err_msg=str(kw))
        else:   # equal against glibc's exp/log (measured); NumPy's SIMD ones may differ by ulps
            np.testing.assert_allclose(_np(m), _np(t), rtol=1e-13, err_msg=str(kw))
            np.testing.assert_allclose(_np(mlp.grad), _np(tlp.grad), rtol=1e-12, atol=1e-14)


def test_unbatched_and_module_match_torch():
    torch.manual_seed(0)
    lp = torch.randn(6, 5, dtype=torch.float64).log_softmax(1)
    tg = torch.tensor([1, 3, 3])
    for lens in ((torch.tensor(6), torch.tensor(3)), ((6,), (3,))):
        for red in ("none", "mean"):
            t = TF.ctc_loss(lp, tg, *lens, reduction=red)
            m = F.ctc_loss(_mg(lp), _mg(tg), *map(_mg, lens), reduction=red)
            assert tuple(m.shape) == tuple(t.shape)
            np.testing.assert_array_equal(_np(m), _np(t))
    tm, mm = torch.nn.CTCLoss(blank=4, zero_infinity=True), mg.nn.CTCLoss(blank=4,
                                                                           zero_infinity=True)
    assert repr(mm) == repr(tm) and (mm.blank, mm.reduction) == (tm.blank, tm.reduction)
    lp3 = lp.unsqueeze(1)
    args = (tg.view(1, 3).float(), torch.tensor([2]), torch.tensor([3]))   # impossible: inf
    t, m = tm(lp3, *args), mm(_mg(lp3), *map(_mg, args))
    assert float(m) == float(t) == 0.0


@pytest.mark.parametrize("lengths", ["tensor", "tuple"])
def test_aten_ops_and_nodes_match_torch(lengths):
    lp0 = torch.randn(4, 2, 3, dtype=torch.float64).log_softmax(2)
    tg = torch.tensor([[1, 2], [2, 0]])
    lens = (torch.tensor([4, 3]), torch.tensor([2, 1]))
    if lengths == "tuple":
        lens = tuple(tuple(x.tolist()) for x in lens)
    names = []

    class Rec(D.DispatchMode):
        def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
            names.append(op_name)
            return call_next(args, kwargs)

    mlp = _mg(lp0).requires_grad_()
    with Rec():
        m = F.ctc_loss(mlp, _mg(tg), *map(_mg, lens), reduction="none")
        gm, = mg.autograd.grad(m.sum(), mlp, create_graph=True)
    tlp = lp0.clone().requires_grad_()
    t = TF.ctc_loss(tlp, tg, *lens, reduction="none")
    gt, = torch.autograd.grad(t.sum(), tlp, create_graph=True)
    over = ".Tensor" if lengths == "tensor" else ".IntList"
    assert {"ctc_loss" + over, "_ctc_loss", "_ctc_loss_backward"} <= set(names)
    assert m.grad_fn.name() == t.grad_fn.name() == "CtcLossBackward0"
    assert gm.grad_fn.name() == gt.grad_fn.name() == "torch::autograd::NotImplemented"
    for g in (gm, gt):
        with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not "
                           "implemented"):
            g.sum().backward()


def _lp(L):
    return L.zeros(5, 2, 4, dtype=L.float64).log_softmax(2)


_ERRORS = {
    "half": lambda L, F_: F_.ctc_loss(_lp(L).half(), L.tensor([[1, 2], [1, 1]]),
                                      L.tensor([5, 4]), L.tensor([2, 2])),
    "blank": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2], [1, 1]]), L.tensor([5, 4]),
                                       L.tensor([2, 2]), blank=4),
    "il max": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2], [1, 1]]), L.tensor([6, 4]),
                                        L.tensor([2, 2])),
    "tl size": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2], [1, 1]]), L.tensor([5, 4]),
                                         L.tensor([2, 3])),
    "il batch": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2], [1, 1]]), L.tensor([5]),
                                          L.tensor([2, 2])),
    "tl batch": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2], [1, 1]]), (5, 4), (2,)),
    "tg batch": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2]]), L.tensor([5, 4]),
                                          L.tensor([2, 2])),
    "concat": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([1, 2, 1]), L.tensor([5, 4]),
                                        L.tensor([2, 2])),
    "float lengths": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2], [1, 1]]),
                                               L.tensor([5.0, 4.0]), L.tensor([2, 2])),
    "negative tl": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2], [1, 1]]), (5, 4),
                                             (2, -1)),
    "reduction": lambda L, F_: F_.ctc_loss(_lp(L), L.tensor([[1, 2], [1, 1]]), (5, 4), (2, 2),
                                           reduction="foo"),
    "1d log_probs": lambda L, F_: F_.ctc_loss(_lp(L)[0, 0], L.tensor([1]), (5,), (1,)),
}


@pytest.mark.parametrize("name", sorted(_ERRORS))
def test_errors_match_torch(name):
    out = {}
    for lib, (L, F_) in LIBS.items():
        try:
            _ERRORS[name](L, F_)
            out[lib] = None
        except Exception as exc:      # noqa: BLE001 - the exception is the result
            out[lib] = (type(exc).__name__, str(exc))
    assert out["torch"] is not None and out["minigrad"] == out["torch"]


def test_autocast_cpu_runs_ctc_loss_in_fp32():
    lp = torch.randn(5, 2, 4).log_softmax(2).bfloat16()
    tg = torch.tensor([[1, 2], [1, 1]])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        t = TF.ctc_loss(lp, tg, (5, 5), (2, 2))
    with autocast("cpu", dtype=mg.bfloat16):
        m = F.ctc_loss(_mg(lp), _mg(tg), (5, 5), (2, 2))
    assert m.dtype is mg.float32 and t.dtype is torch.float32
    np.testing.assert_array_equal(_np(m), _np(t))
