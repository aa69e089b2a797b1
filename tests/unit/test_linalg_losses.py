"""Loss, distance and linear-algebra modules and functions against their PyTorch twins: values,
gradients, every reduction, constructor arguments, buffers, errors and warnings, autocast
output dtypes. (The ops themselves are in the catalogue: tests/specs/linalg.py, losses.py.)
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
from amp_emu import autocast
from minigrad.testing import from_torch

F = mg.nn.functional


def _mg(x):
    if isinstance(x, torch.Tensor):
        t = from_torch(x.detach())
        return t.requires_grad_(True) if x.requires_grad else t
    return x


def _close(m, t, rtol=1e-6, atol=1e-7):
    assert m.dtype.name == str(t.dtype).replace("torch.", "")
    assert tuple(m.shape) == tuple(t.shape)
    np.testing.assert_allclose(m.detach().to(mg.float64).numpy(),
                               t.detach().double().numpy(), rtol=rtol, atol=atol)


def _compare(mod_m, mod_t, inputs, rtol=1e-6, atol=1e-7, node=True):
    """Forward and gradients of every float input that requires grad (and the node name)."""
    mins = [_mg(x) for x in inputs]
    out_t, out_m = mod_t(*inputs), mod_m(*mins)
    _close(out_m, out_t, rtol, atol)
    if out_t.requires_grad:
        tl = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
        ml = [x for x in mins if isinstance(x, mg.Tensor) and x.requires_grad]
        g = torch.rand(out_t.shape, dtype=out_t.dtype) + 0.5
        gt = torch.autograd.grad(out_t, tl, g, allow_unused=True)
        gm = mg.autograd.grad(out_m, ml, from_torch(g), allow_unused=True)
        for a, b in zip(gm, gt):
            assert (a is None) == (b is None)
            if a is not None:
                _close(a, b, rtol, atol)
        if node:
            assert out_m.grad_fn.name() == out_t.grad_fn.name()


def _r(*s, grad=True, lo=None):
    x = torch.randn(*s, dtype=torch.float64) if lo is None else \
        torch.rand(*s, dtype=torch.float64) * 0.8 + 0.1
    return x.requires_grad_(grad)


def _sign(*s):
    return torch.randint(0, 2, s).double() * 2 - 1


torch.manual_seed(0)
_W = torch.rand(5, dtype=torch.float64) + 0.5
_CASES = {
    "L1Loss": ({}, lambda: [_r(3, 5), _r(3, 5)]),
    "SmoothL1Loss": ({"beta": 0.5}, lambda: [_r(3, 5), _r(3, 5)]),
    "HuberLoss": ({"delta": 0.7}, lambda: [_r(3, 5), _r(3, 5)]),
    "BCELoss": ({"weight": _W}, lambda: [_r(3, 5, lo=0), _r(3, 5, lo=0)]),
    "BCEWithLogitsLoss": ({"weight": _W, "pos_weight": _W * 2},
                          lambda: [_r(3, 5), _r(3, 5, lo=0)]),
    "KLDivLoss": ({"reduction": "batchmean", "log_target": True}, lambda: [_r(3, 5), _r(3, 5)]),
    "PoissonNLLLoss": ({"log_input": False, "full": True},
                       lambda: [_r(3, 5, lo=0), _r(3, 5, lo=0, grad=False) * 4]),
    "GaussianNLLLoss": ({"full": True}, lambda: [_r(3, 5), _r(3, 5), _r(3, 1, lo=0)]),
    "CosineEmbeddingLoss": ({"margin": 0.2}, lambda: [_r(4, 5), _r(4, 5), _sign(4)]),
    "MarginRankingLoss": ({"margin": 0.3}, lambda: [_r(6), _r(6), _sign(6)]),
    "HingeEmbeddingLoss": ({"margin": 0.5}, lambda: [_r(3, 5), _sign(3, 5)]),
    "SoftMarginLoss": ({}, lambda: [_r(3, 5), _sign(3, 5)]),
    "MultiMarginLoss": ({"p": 2, "margin": 0.5, "weight": _W},
                        lambda: [_r(4, 5), torch.tensor([0, 4, 2, 1])]),
    "MultiLabelSoftMarginLoss": ({"weight": _W}, lambda: [_r(3, 5), (_sign(3, 5) > 0).double()]),
    "TripletMarginLoss": ({"margin": 0.5, "p": 1.0, "swap": True},
                          lambda: [_r(4, 5), _r(4, 5), _r(4, 5)]),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_loss_module_matches_torch(name):
    kwargs, make = _CASES[name]
    for reduction in ("mean", "sum", "none"):
        if name == "KLDivLoss" and reduction == "mean":
            continue     # 'batchmean' is the case above; 'mean' warns (tested below)
        kw = dict(kwargs, reduction=reduction if reduction != "mean" or name != "KLDivLoss"
                  else "batchmean")
        mkw = {k: _mg(v) for k, v in kw.items()}
        mod_t, mod_m = getattr(torch.nn, name)(**kw), getattr(mg.nn, name)(**mkw)
        _compare(mod_m, mod_t, make())
        assert sorted(dict(mod_m.named_buffers())) == sorted(dict(mod_t.named_buffers()))


def test_loss_module_attributes_and_buffers():
    pw = torch.ones(3)
    t, m = torch.nn.BCEWithLogitsLoss(pos_weight=pw), mg.nn.BCEWithLogitsLoss(pos_weight=_mg(pw))
    assert list(m.state_dict()) == list(t.state_dict()) == ["pos_weight"]
    assert m.weight is None and m.reduction == "mean"
    for name, kw, attrs in [("SmoothL1Loss", {"beta": 0.3}, ["beta", "reduction"]),
                            ("HuberLoss", {"delta": 2.0}, ["delta"]),
                            ("TripletMarginLoss", {"margin": 2.0}, ["margin", "p", "eps", "swap"]),
                            ("PoissonNLLLoss", {}, ["log_input", "full", "eps"]),
                            ("GaussianNLLLoss", {}, ["full", "eps"]),
                            ("KLDivLoss", {}, ["log_target"]),
                            ("MultiMarginLoss", {"p": 2}, ["p", "margin"])]:
        a, b = getattr(torch.nn, name)(**kw), getattr(mg.nn, name)(**kw)
        assert [getattr(b, k) for k in attrs] == [getattr(a, k) for k in attrs], name
    assert mg.nn.L1Loss(size_average=False).reduction == "sum"


def test_loss_constructor_errors():
    for make in (lambda nn: nn.MultiMarginLoss(p=3),
                 lambda nn: nn.TripletMarginLoss(margin=0)):
        with pytest.raises(ValueError) as et:
            make(torch.nn)
        with pytest.raises(ValueError) as em:
            make(mg.nn)
        assert str(em.value) == str(et.value)


def _raises_like(fm, ft, match_text=True):
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(type(et.value)) as em:
        fm()
    if match_text:
        assert str(em.value) == str(et.value).replace("torch.Size", "minigrad.Size")


def test_loss_errors_match_torch():
    x, t = torch.rand(3, 4), torch.rand(3, 4)
    xm, tm = _mg(x), _mg(t)
    _raises_like(lambda: F.binary_cross_entropy(xm, tm[0]), lambda: TF.binary_cross_entropy(
        x, t[0]))
    _raises_like(lambda: F.binary_cross_entropy(xm * 2, tm),
                 lambda: TF.binary_cross_entropy(x * 2, t))
    _raises_like(lambda: F.binary_cross_entropy(xm, tm.double()),
                 lambda: TF.binary_cross_entropy(x, t.double()))
    _raises_like(lambda: F.binary_cross_entropy_with_logits(xm, tm[0]),
                 lambda: TF.binary_cross_entropy_with_logits(x, t[0]))
    _raises_like(lambda: F.l1_loss(xm, tm, reduction="avg"),
                 lambda: TF.l1_loss(x, t, reduction="avg"), match_text=False)
    _raises_like(lambda: F.smooth_l1_loss(xm, tm, beta=-1.0),
                 lambda: TF.smooth_l1_loss(x, t, beta=-1.0))
    _raises_like(lambda: F.huber_loss(xm, tm, delta=0.0), lambda: TF.huber_loss(x, t, delta=0.0))
    _raises_like(lambda: F.kl_div(xm.long(), tm), lambda: TF.kl_div(x.long(), t))
    _raises_like(lambda: F.multi_margin_loss(xm, mg.tensor([0, 1, 2]), p=3),
                 lambda: TF.multi_margin_loss(x, torch.tensor([0, 1, 2]), p=3))
    _raises_like(lambda: F.multi_margin_loss(xm.half(), mg.tensor([0, 1, 2])),
                 lambda: TF.multi_margin_loss(x.half(), torch.tensor([0, 1, 2])))
    _raises_like(lambda: F.cosine_embedding_loss(xm, tm, mg.ones(3, 1)),
                 lambda: TF.cosine_embedding_loss(x, t, torch.ones(3, 1)))
    _raises_like(lambda: F.cosine_embedding_loss(xm[0], tm[0], mg.ones(3)),
                 lambda: TF.cosine_embedding_loss(x[0], t[0], torch.ones(3)))
    _raises_like(lambda: F.triplet_margin_loss(xm, tm, tm[0]),
                 lambda: TF.triplet_margin_loss(x, t, t[0]))
    _raises_like(lambda: F.gaussian_nll_loss(xm, tm, -1.0), lambda: TF.gaussian_nll_loss(
        x, t, -1.0))
    _raises_like(lambda: F.gaussian_nll_loss(xm, tm, mg.ones(2)),
                 lambda: TF.gaussian_nll_loss(x, t, torch.ones(2)))
    _raises_like(lambda: F.poisson_nll_loss(xm, tm, reduction="x"),
                 lambda: TF.poisson_nll_loss(x, t, reduction="x"))
    w = torch.ones(4, requires_grad=True)
    _raises_like(lambda: F.binary_cross_entropy(xm, tm, weight=_mg(w)),
                 lambda: TF.binary_cross_entropy(x, t, weight=w).backward())
    _raises_like(lambda: F.glu(mg.ones(3)), lambda: TF.glu(torch.ones(3)))
    _raises_like(lambda: F.glu(mg.tensor(1.0)), lambda: TF.glu(torch.tensor(1.0)))


def test_loss_warnings_match_torch():
    x, t = torch.rand(3, 4), torch.rand(4)
    for name in ("l1_loss", "smooth_l1_loss", "huber_loss"):
        with warnings.catch_warnings(record=True) as wt:
            warnings.simplefilter("always")
            getattr(TF, name)(x, t)
        with warnings.catch_warnings(record=True) as wm:
            warnings.simplefilter("always")
            out = getattr(F, name)(_mg(x), _mg(t))
        assert [str(w.message).replace("torch.Size", "minigrad.Size") for w in wt] == \
            [str(w.message) for w in wm]
        _close(out, getattr(TF, name)(x, t))
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(_mg(x), _mg(x))


def test_functional_variants_match_torch():
    torch.manual_seed(1)
    x, y, w = _r(3, 5), _r(3, 5), torch.rand(3, 5, dtype=torch.float64)
    for fm, ft in [
        (lambda a, b: F.l1_loss(a, b, weight=_mg(w)), lambda a, b: TF.l1_loss(a, b, weight=w)),
        (lambda a, b: F.huber_loss(a, b, weight=_mg(w), reduction="mean"),
         lambda a, b: TF.huber_loss(a, b, weight=w, reduction="mean")),
        (lambda a, b: F.smooth_l1_loss(a, b, beta=0.0), lambda a, b: TF.smooth_l1_loss(
            a, b, beta=0.0)),
        (lambda a, b: F.kl_div(a, b.exp(), reduction="none"),
         lambda a, b: TF.kl_div(a, b.exp(), reduction="none")),
        (lambda a, b: F.gaussian_nll_loss(a, b, 0.5), lambda a, b: TF.gaussian_nll_loss(
            a, b, 0.5)),
        (lambda a, b: F.normalize(a, p=1, dim=0), lambda a, b: TF.normalize(a, p=1, dim=0)),
        (lambda a, b: F.cosine_similarity(a, b[0], dim=-1),
         lambda a, b: TF.cosine_similarity(a, b[0], dim=-1)),
        (lambda a, b: mg.cosine_similarity(a, b), lambda a, b: torch.cosine_similarity(a, b)),
        (lambda a, b: mg.xlogy(a, b.abs()), lambda a, b: torch.xlogy(a, b.abs())),
        (lambda a, b: mg.special.xlogy(a, b.abs()), lambda a, b: torch.special.xlogy(
            a, b.abs())),
    ]:
        _compare(fm, ft, [x, y])
    # (deliberate difference: PyTorch's node is NormBackward1, at::norm)
    _compare(lambda a, b: F.pairwise_distance(a, b, keepdim=True),
             lambda a, b: TF.pairwise_distance(a, b, keepdim=True), [x, y], node=False)


def test_nll_and_cross_entropy_nd_match_torch():
    torch.manual_seed(2)
    x = _r(2, 3, 2, 2, 2)
    t = torch.randint(0, 3, (2, 2, 2, 2))
    probs = torch.softmax(torch.randn(2, 3, 2, 2, 2, dtype=torch.float64), 1)
    for red in ("mean", "sum", "none"):
        _compare(lambda a: F.nll_loss(a, _mg(t), reduction=red),
                 lambda a: TF.nll_loss(a, t, reduction=red), [x])
        _compare(lambda a: F.cross_entropy(a, _mg(t), reduction=red, label_smoothing=0.1),
                 lambda a: TF.cross_entropy(a, t, reduction=red, label_smoothing=0.1), [x])
        _compare(lambda a: F.cross_entropy(a, _mg(probs), reduction=red),
                 lambda a: TF.cross_entropy(a, probs, reduction=red), [x])


def test_distance_and_glu_modules_match_torch():
    torch.manual_seed(3)
    a, b = _r(4, 6), _r(4, 6)
    for name, kw in [("CosineSimilarity", {"dim": 0}), ("PairwiseDistance", {"p": 3.0}),
                     ("GLU", {"dim": 0})]:
        mt, mm = getattr(torch.nn, name)(**kw), getattr(mg.nn, name)(**kw)
        assert repr(mm) == repr(mt)
        _compare(mm, mt, [a] if name == "GLU" else [a, b], node=name != "PairwiseDistance")


def test_bilinear_module_matches_torch():
    t = torch.nn.Bilinear(3, 4, 2).double()
    m = mg.nn.Bilinear(3, 4, 2, dtype=mg.float64)
    assert repr(m) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    bound = 1 / np.sqrt(3)
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    m.load_state_dict({k: from_torch(v) for k, v in t.state_dict().items()})
    _compare(m, t, [_r(5, 3), _r(5, 4)])
    nb = mg.nn.Bilinear(3, 4, 2, bias=False)
    assert nb.bias is None and "bias=False" in repr(nb)


def test_linalg_errors_match_torch():
    a, b = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
    am, bm = _mg(a), _mg(b)
    _raises_like(lambda: mg.baddbmm(mg.zeros(2, 3, 5), am, mg.zeros(3, 4, 5)),
                 lambda: torch.baddbmm(torch.zeros(2, 3, 5), a, torch.zeros(3, 4, 5)))
    _raises_like(lambda: mg.baddbmm(mg.zeros(2, 3, 5, dtype=mg.float64), am, bm),
                 lambda: torch.baddbmm(torch.zeros(2, 3, 5).double(), a, b))
    _raises_like(lambda: mg.addbmm(mg.zeros(3, 5), am, mg.zeros(3, 4, 5)),
                 lambda: torch.addbmm(torch.zeros(3, 5), a, torch.zeros(3, 4, 5)))
    _raises_like(lambda: mg.addmv(mg.zeros(3), mg.zeros(3, 4), mg.zeros(5)),
                 lambda: torch.addmv(torch.zeros(3), torch.zeros(3, 4), torch.zeros(5)))
    _raises_like(lambda: mg.addr(mg.zeros(3, 4), mg.zeros(3), mg.zeros(4, 1)),
                 lambda: torch.addr(torch.zeros(3, 4), torch.zeros(3), torch.zeros(4, 1)))
    _raises_like(lambda: mg.outer(mg.zeros(3, 1), mg.zeros(4)),
                 lambda: torch.outer(torch.zeros(3, 1), torch.zeros(4)))
    _raises_like(lambda: mg.einsum("ij,jk", am[0]), lambda: torch.einsum("ij,jk", a[0]))
    _raises_like(lambda: mg.einsum("ijk", am[0]), lambda: torch.einsum("ijk", a[0]))
    _raises_like(lambda: mg.einsum("ij->ik", am[0]), lambda: torch.einsum("ij->ik", a[0]))
    _raises_like(lambda: mg.tensordot(am, bm, dims=([2], [2])),
                 lambda: torch.tensordot(a, b, dims=([2], [2])))
    _raises_like(lambda: mg.linalg.multi_dot([am[0]]), lambda: torch.linalg.multi_dot([a[0]]))
    _raises_like(lambda: mg.linalg.multi_dot([am[0], am[0]]),
                 lambda: torch.linalg.multi_dot([a[0], a[0]]))
    _raises_like(lambda: F.bilinear(am[0], bm[0], mg.zeros(2, 3, 5)),
                 lambda: TF.bilinear(a[0], b[0], torch.zeros(2, 3, 5)))
    _raises_like(lambda: mg.einsum("ii->i", mg.zeros(3, 2)),
                 lambda: torch.einsum("ii->i", torch.zeros(3, 2)))
    # sizes that do not broadcast: a subscript, an ellipsis dim (and size 1 broadcasts)
    for eq, x, y in (("ij,jk->ik", (2, 3), (4, 4)), ("ij,ij->i", (2, 3), (2, 4)),
                     ("ij,kk->ik", (2, 3), (3, 5)), ("...j,...j->...", (3, 4), (2, 5, 4)),
                     ("...j,...j->...", (2, 3, 4), (2, 5, 4))):
        _raises_like(lambda: mg.einsum(eq, mg.ones(x), mg.ones(y)),
                     lambda: torch.einsum(eq, torch.ones(x), torch.ones(y)))
    for eq, x, y in (("ij,jk->ik", (2, 1), (4, 4)), ("...j,...j->...", (1, 3, 4), (2, 1, 4))):
        assert tuple(mg.einsum(eq, mg.ones(x), mg.ones(y)).shape) == \
            tuple(torch.einsum(eq, torch.ones(x), torch.ones(y)).shape)


def test_linalg_tensor_methods_and_aliases():
    torch.manual_seed(4)
    c, v1, v2 = _r(3, 4), _r(3), _r(4)
    _compare(lambda c, a, b: c.addr(a, b, beta=0.5), lambda c, a, b: c.addr(a, b, beta=0.5),
             [c, v1, v2])
    _compare(lambda a, b: a.ger(b), lambda a, b: a.ger(b), [v1, v2])
    _compare(lambda c, m, v: c.addmv(m, v, alpha=2), lambda c, m, v: c.addmv(m, v, alpha=2),
             [v1, c, v2])
    b1, b2 = _r(2, 3, 4), _r(2, 4, 5)
    _compare(lambda c, a, b: c.baddbmm(a, b), lambda c, a, b: c.baddbmm(a, b), [_r(3, 5), b1, b2])
    _compare(lambda c, a, b: c.addbmm(a, b), lambda c, a, b: c.addbmm(a, b), [_r(3, 5), b1, b2])


def test_autocast_output_dtypes_match_torch():
    x, y = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
    p = torch.rand(3, 4)
    cases = [
        (lambda L, F, a, b: L.baddbmm(L.zeros(2, 3, 5), a, b), [x, y]),
        (lambda L, F, a, b: L.einsum("bij,bjk->bik", a, b), [x, y]),
        (lambda L, F, a, b: L.addmv(L.zeros(3), a[0], b[0, :, 0]), [x, y]),
        (lambda L, F, a, b: F.bilinear(a[0], a[1], L.ones(2, 4, 4)), [x, y]),
        (lambda L, F, a, b: F.l1_loss(a.bfloat16(), a.bfloat16()), [p, p]),
        (lambda L, F, a, b: F.binary_cross_entropy(a.bfloat16(), b.bfloat16()), [p, p]),
        (lambda L, F, a, b: F.kl_div(a.bfloat16(), b.bfloat16(), reduction="sum"), [p, p]),
        (lambda L, F, a, b: F.glu(a.bfloat16()), [p, p]),
        (lambda L, F, a, b: F.cosine_similarity(a.bfloat16(), b), [p, p]),
    ]
    for fn, ins in cases:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            et = fn(torch, TF, *ins).dtype
        with autocast("cpu", dtype=mg.bfloat16):
            em = fn(mg, F, *[_mg(i) for i in ins]).dtype
        assert em.name == str(et).replace("torch.", "")


def _double_backward(ft, fm, inputs):
    """d/dx of sum(grad**2) for every input, in both frameworks (create_graph=True)."""
    mins = [_mg(x) for x in inputs]
    tl = [x for x in inputs if x.requires_grad]
    ml = [x for x in mins if isinstance(x, mg.Tensor) and x.requires_grad]
    g1 = torch.autograd.grad(ft(*inputs), tl, create_graph=True)
    h1 = mg.autograd.grad(fm(*mins), ml, create_graph=True)
    g2 = torch.autograd.grad(sum((g * g).sum() for g in g1), tl, allow_unused=True)
    h2 = mg.autograd.grad(sum((h * h).sum() for h in h1), ml, allow_unused=True)
    for a, b in zip(h2, g2):
        assert (a is None) == (b is None)
        if a is not None:
            _close(a, b, rtol=1e-9, atol=1e-12)


def test_double_backward_matches_torch():
    torch.manual_seed(5)
    p, q, x, y = _r(3, 4, lo=0), _r(3, 4, lo=0), _r(3, 4), _r(3, 4)
    pw = torch.full((4,), 2.0, dtype=torch.float64)
    cases = [
        (lambda a, b: TF.binary_cross_entropy(a, b), lambda a, b: F.binary_cross_entropy(a, b),
         [p, q]),
        (lambda a, b: TF.binary_cross_entropy_with_logits(a, b, pos_weight=pw),
         lambda a, b: F.binary_cross_entropy_with_logits(a, b, pos_weight=_mg(pw)), [x, q]),
        (lambda a, b: TF.smooth_l1_loss(a, b, beta=2.0),
         lambda a, b: F.smooth_l1_loss(a, b, beta=2.0), [x, y]),
        (lambda a, b: TF.huber_loss(a, b, delta=1.5, reduction="sum"),
         lambda a, b: F.huber_loss(a, b, delta=1.5, reduction="sum"), [x, y]),
        (lambda a: TF.soft_margin_loss(a, torch.ones(3, 4, dtype=torch.float64)),
         lambda a: F.soft_margin_loss(a, mg.ones(3, 4, dtype=mg.float64)), [x]),
        (lambda a: TF.glu(a, 1).sum(), lambda a: F.glu(a, 1).sum(), [x]),
        (lambda a, b: torch.xlogy(a, b.abs() + 1).sum(), lambda a, b: mg.xlogy(a, b.abs() + 1).sum(),
         [x, y]),
        (lambda a, b, w: TF.bilinear(a, b, w).sum(), lambda a, b, w: F.bilinear(a, b, w).sum(),
         [x[:, :2], y, _r(3, 2, 4)]),
    ]
    for ft, fm, ins in cases:
        _double_backward(ft, fm, ins)
