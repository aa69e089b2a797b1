"""Dropout and embedding against torch.

Dropout draws its mask from minigrad's generator, so each test replays the mask: the same seed
drawn again through ``bernoulli_`` gives the keep pattern, and PyTorch's own formula applied to
that pattern (``input * (mask / (1 - p))`` on CPU, the alpha-dropout affine map, the fused
``native_dropout`` on cuda) must equal our output and gradient bit for bit, in every dtype.
Embedding: values, gradients and in-place renormalisation against ``F.embedding`` from the same
weights, and the modules against their torch twins.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
from minigrad.nn import functional as F
from minigrad.testing import to_torch
from tests.unit._data_compare import error_of

DTYPES = ["float64", "float32", "float16", "bfloat16"]
LIBS = {"torch": (torch, TF), "minigrad": (mg, F)}


def _same_error(fn):
    t, m = (error_of(fn, *LIBS[n]) for n in ("torch", "minigrad"))
    assert t is not None, "torch raised nothing"
    assert m == t


def _bits(t):
    t = t.detach()
    if isinstance(t, torch.Tensor):
        return t.to(torch.float64).numpy()
    return t.to(mg.float64).numpy()


def _mask(shape, p, seed, dt):
    """The keep pattern a dropout with ``generator=Generator().manual_seed(seed)`` draws."""
    m = mg.empty(shape, dtype=dt).bernoulli_(1 - p, generator=mg.Generator().manual_seed(seed))
    return torch.from_numpy(_bits(m))


@pytest.mark.parametrize("dt", DTYPES)
def test_dropout_replays_torch_formula(dt):
    rng = np.random.default_rng(0)
    x0, g0 = rng.standard_normal((4, 7)), rng.standard_normal((4, 7))
    tdt = getattr(torch, dt)
    for name, p, feature in (("dropout", 0.3, False), ("dropout2d", 0.5, True),
                             ("alpha_dropout", 0.2, False)):
        x = mg.tensor(x0, dtype=getattr(mg, dt), requires_grad=True)
        tx = torch.tensor(x0).to(tdt).requires_grad_()
        kw = {"training": True}
        shape = (4, 7)
        if feature:
            x = mg.tensor(x0.reshape(2, 2, 7), dtype=getattr(mg, dt), requires_grad=True)
            tx = torch.tensor(x0.reshape(2, 2, 7)).to(tdt).requires_grad_()
            shape = (2, 2, 1)
        y = getattr(F, name if name != "dropout2d" else "dropout1d")(
            x, p, generator=mg.Generator().manual_seed(5), **kw)
        m = _mask(shape, p, 5, getattr(mg, dt)).to(tdt)
        if name == "alpha_dropout":
            alpha = 1.7580993408473766
            a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
            b = m.add(-1).mul_(alpha * a).add_(alpha * a * p)
            ty = tx * m.mul_(a) + b
        else:
            ty = tx * m.div_(1 - p)
        gy = torch.tensor(g0.reshape(tx.shape)).to(tdt)
        y.backward(mg.tensor(gy.to(torch.float64).numpy(), dtype=getattr(mg, dt)))
        ty.backward(gy)
        assert np.array_equal(_bits(y), _bits(ty), equal_nan=True), name
        assert np.array_equal(_bits(x.grad), _bits(tx.grad)), name
        assert y.grad_fn.name() == ty.grad_fn.name()


@pytest.mark.parametrize("dt", ["float32", "float16"])
def test_native_dropout_on_cuda_replays_fused_formula(dt):
    x0 = np.random.default_rng(1).standard_normal((3, 8))
    x = mg.tensor(x0, dtype=getattr(mg, dt), device="cuda", requires_grad=True)
    y = F.dropout(x, 0.4, generator=mg.Generator().manual_seed(2))
    assert y.grad_fn.name() == "NativeDropoutBackward0" and y.device.type == "cuda"
    # the mask: the CPU generator's bernoulli_(1 - p) draws (PyTorch's CUDA Philox stream is
    # not emulated), as torch's CPU native_dropout draws it
    keep = torch.empty(3, 8).bernoulli_(0.6, generator=torch.Generator().manual_seed(2)).bool()
    keep = keep.numpy()
    # CUDA's fused kernel: x * mask * (1 / (1 - p)) in fp32, one rounding
    t = torch.tensor(x0).to(getattr(torch, dt))
    want = (t.float() * torch.from_numpy(keep) * np.float32(1 / 0.6)).to(t.dtype)
    assert np.array_equal(_bits(y.cpu()), _bits(want))
    y.sum().backward()
    gw = (torch.ones(3, 8) * torch.from_numpy(keep) * np.float32(1 / 0.6)).to(t.dtype)
    assert np.array_equal(_bits(x.grad.cpu()), _bits(gw))


def test_dropout_semantics_like_torch():
    for L, FF in ((torch, TF), (mg, F)):
        x = L.ones(3, 4, requires_grad=True)
        assert FF.dropout(x, 0.0) is x and FF.dropout(x, 0.5, training=False) is x
        assert FF.alpha_dropout(x, 0.5) is x                      # training defaults to False
        z = FF.dropout(x, 1.0)
        assert z.grad_fn.name() == "MulBackward0" and float(z.abs().sum()) == 0
        c = L.ones(200, 10)
        assert FF.dropout(c, 0.5, inplace=True) is c
        kept = (_bits(c) != 0).mean()
        assert 0.4 < kept < 0.6 and set(np.unique(_bits(c))) <= {0.0, 2.0}
        ch = FF.dropout2d(L.ones(50, 8, 3, 3), 0.5)
        per = _bits(ch).reshape(50, 8, 9)
        assert (per.min(-1) == per.max(-1)).all()                 # whole channels
    for L in (torch, mg):
        assert repr(L.nn.Dropout(0.2)) == "Dropout(p=0.2, inplace=False)"
        assert repr(L.nn.Dropout2d(inplace=True)) == "Dropout2d(p=0.5, inplace=True)"
        assert repr(L.nn.AlphaDropout()) == "AlphaDropout(p=0.5, inplace=False)"
        m = L.nn.Dropout(0.5).eval()
        x = L.ones(4)
        assert m(x) is x


@pytest.mark.parametrize("fn", [
    lambda L, F: F.dropout(L.ones(3), 1.5),
    lambda L, F: F.dropout2d(L.ones(3, 2, 2), -0.1),
    lambda L, F: F.dropout1d(L.ones(3, 2, 2, 2), 0.5),
    lambda L, F: F.feature_alpha_dropout(L.ones(3), 0.5, True),
    lambda L, F: F.dropout(L.ones(3, dtype=L.int64), 0.5),
    lambda L, F: L.nn.Dropout(1.5),
])
def test_dropout_errors_like_torch(fn):
    _same_error(fn)


def test_dropout_warnings_like_torch():
    for nd, fn in ((3, "dropout2d"), (2, "dropout2d"), (3, "dropout3d")):
        msgs = []
        for L, FF in ((torch, TF), (mg, F)):
            with pytest.warns(UserWarning) as rec:
                getattr(FF, fn)(L.ones(*([2] * nd)), 0.5)
            msgs.append([str(w.message) for w in rec])
        assert msgs[0] == msgs[1]


# ------------------------------------------------------------------------------ embedding
@pytest.mark.parametrize("dt", DTYPES)
def test_embedding_values_grads_renorm(dt):
    rng = np.random.default_rng(0)
    w0, idx = rng.standard_normal((6, 5)), rng.integers(0, 6, (4, 30))
    g0 = rng.standard_normal((4, 30, 5))
    for kw in ({}, {"padding_idx": 2}, {"scale_grad_by_freq": True}, {"max_norm": 1.0}):
        w = mg.tensor(w0, dtype=getattr(mg, dt), requires_grad=True)
        tw = torch.tensor(w0).to(getattr(torch, dt)).requires_grad_()
        y, ty = F.embedding(mg.tensor(idx), w, **kw), TF.embedding(torch.tensor(idx), tw, **kw)
        y.backward(mg.tensor(g0, dtype=getattr(mg, dt)))
        ty.backward(torch.tensor(g0).to(getattr(torch, dt)))
        assert y.grad_fn.name() == ty.grad_fn.name() == "EmbeddingBackward0"
        if "max_norm" in kw and dt != "float32":
            # not bit-exact: PyTorch's 16-bit renorm differs from its own row.norm() / row *=
            # scale on a few elements, and its fp64 row norm sums in another order (neither is
            # reproduced): within one ulp of the weight's format (fp64: 4)
            ulp = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float64": 2.0 ** -50}[dt]
            scale = np.abs(_bits(tw)) + 2.0 ** -14
            assert (np.abs(_bits(w) - _bits(tw)) <= ulp * scale).all()
            assert (np.abs(_bits(y) - _bits(ty)) <= ulp * (np.abs(_bits(ty)) + 2.0 ** -14)).all()
            continue
        assert np.array_equal(_bits(y), _bits(ty)), kw
        assert np.array_equal(_bits(w), _bits(tw)), kw
        assert np.array_equal(_bits(w.grad), _bits(tw.grad)), kw


def test_embedding_double_backward():
    w0 = np.random.default_rng(2).standard_normal((5, 3))
    idx = [[1, 2, 2], [0, 4, 1]]
    outs = []
    for L, FF in ((torch, TF), (mg, F)):
        w = L.tensor(w0, requires_grad=True)
        g = L.ones(2, 3, 3, dtype=L.float64, requires_grad=True)
        y = FF.embedding(L.tensor(idx), w, padding_idx=1)
        (gw,) = L.autograd.grad(y, w, g, create_graph=True)
        (gg,) = L.autograd.grad((gw * gw).sum(), g)
        outs.append(_bits(gg))
    assert np.array_equal(outs[0], outs[1])


def test_embedding_module_like_torch():
    for L in (torch, mg):
        e = L.nn.Embedding(5, 3, padding_idx=1)
        assert repr(e) == "Embedding(5, 3, padding_idx=1)" and list(e.state_dict()) == ["weight"]
        assert float(e.weight[1].abs().sum()) == 0
        assert repr(L.nn.Embedding(5, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True)) \
            == "Embedding(5, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True)"
        f = L.nn.Embedding.from_pretrained(L.ones(4, 2))
        assert not f.weight.requires_grad and f(L.tensor([3])).shape == (1, 2)
        assert L.nn.Embedding.from_pretrained(L.ones(4, 2), freeze=False).weight.requires_grad
    t = torch.nn.Embedding(6, 4, padding_idx=-2)
    m = mg.nn.Embedding(6, 4, padding_idx=-2)
    assert m.padding_idx == t.padding_idx == 4
    m.load_state_dict({"weight": mg.tensor(t.weight.detach().numpy())})
    i = [[0, 4, 5], [4, 4, 1]]
    t(torch.tensor(i)).pow(2).sum().backward()
    m(mg.tensor(i)).pow(2).sum().backward()
    assert np.array_equal(_bits(m.weight.grad), _bits(t.weight.grad))
    with pytest.raises(NotImplementedError, match="sparse"):
        mg.nn.Embedding(3, 2, sparse=True)(mg.tensor([1]))


@pytest.mark.parametrize("fn", [
    lambda L, F: F.embedding(L.tensor([1.0]), L.ones(5, 3)),
    lambda L, F: F.embedding(L.tensor([7]), L.ones(5, 3)),
    lambda L, F: F.embedding(L.tensor([-1]), L.ones(5, 3)),
    lambda L, F: F.embedding(L.tensor([1]), L.ones(5, 3), padding_idx=9),
    lambda L, F: F.embedding(L.tensor([1]), L.ones(5, 3), padding_idx=-9),
    lambda L, F: F.embedding(L.tensor([1]), L.ones(5)),
    lambda L, F: L.nn.Embedding(5, 3, padding_idx=5),
    lambda L, F: L.nn.Embedding(5, 3, _weight=L.ones(4, 3)),
    lambda L, F: L.nn.Embedding.from_pretrained(L.ones(3)),
])
def test_embedding_errors_like_torch(fn):
    _same_error(fn)


def test_embedding_int32_indices_and_to_torch_bridge():
    w = mg.randn(5, 3)
    i = mg.tensor([[1, 2]], dtype=mg.int32)
    assert np.array_equal(_bits(F.embedding(i, w)),
                          _bits(TF.embedding(to_torch(i), to_torch(w))))
