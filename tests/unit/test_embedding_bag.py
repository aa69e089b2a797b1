"""``F.embedding_bag`` / ``nn.EmbeddingBag`` against torch 2.13 CPU.

Values and gradients bit for bit in every dtype (fp32/fp64 per-sample-weight gradients: BLAS
dot order, close), over random bags with empty bags, padding, per-sample weights,
``include_last_offset`` and ``scale_grad_by_freq``; the aten ops recorded and their bookkeeping
outputs; PyTorch's errors; the module against its torch twin from the same weights; the
unstable-sort order the backward replays.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from torch.utils._python_dispatch import TorchDispatchMode

import minigrad as mg
import minigrad.dispatch as D
from minigrad.nn import functional as F
from minigrad.ops._std_sort import std_sort_order
from minigrad.testing import from_torch, to_torch

DTYPES = ["float64", "float32", "float16", "bfloat16"]
LIBS = {"torch": (torch, TF), "minigrad": (mg, F)}


def _np(t):
    t = t.detach()
    return (t.to(torch.float64).numpy() if isinstance(t, torch.Tensor)
            else t.to(mg.float64).numpy())


def _mg(t, grad=False):
    m = from_torch(t.detach())
    return m.requires_grad_() if grad else m


def _case(rng, dt, k):
    """A random 1-d bag batch; every third case a padding_idx, every other sum case weighted."""
    n_emb, d = int(rng.integers(2, 8)), int(rng.integers(1, 12))
    n = int(rng.integers(0, 30))
    idx = torch.from_numpy(rng.integers(0, n_emb, n))
    off = np.sort(rng.integers(0, n + 1, int(rng.integers(1, 6))))
    off[0] = 0
    mode = ("sum", "mean", "max")[k % 3]
    kw = {"mode": mode}
    if k % 4 == 1:
        kw["padding_idx"] = int(rng.integers(-n_emb, n_emb))
    if k % 5 == 2 and mode != "max":
        kw["scale_grad_by_freq"] = True
    if k % 7 == 3:
        kw["include_last_offset"] = True
        off = np.r_[off, n]
    w = torch.from_numpy(rng.standard_normal((n_emb, d))).to(getattr(torch, dt))
    psw = None
    if mode == "sum" and k % 2 == 0:
        psw = torch.from_numpy(rng.standard_normal(n)).to(w.dtype)
    return idx, torch.from_numpy(off), w, psw, kw


@pytest.mark.parametrize("dt", DTYPES)
def test_values_and_gradients_match_torch_bits(dt):
    rng = np.random.default_rng(7)
    for k in range(15):
        idx, off, w, psw, kw = _case(rng, dt, k)
        tw = w.clone().requires_grad_()
        tp = None if psw is None else psw.clone().requires_grad_()
        mw, mp = _mg(w, True), (None if psw is None else _mg(psw, True))
        t = TF.embedding_bag(idx, tw, off, per_sample_weights=tp, **kw)
        m = F.embedding_bag(_mg(idx), mw, _mg(off), per_sample_weights=mp, **kw)
        g = torch.from_numpy(rng.standard_normal(tuple(t.shape))).to(w.dtype)
        t.backward(g)
        m.backward(_mg(g))
        assert m.dtype == getattr(mg, dt) and tuple(m.shape) == tuple(t.shape)
        np.testing.assert_array_equal(_np(m), _np(t), err_msg=f"forward {kw}")
        np.testing.assert_array_equal(_np(mw.grad), _np(tw.grad), err_msg=f"weight grad {kw}")
        if psw is not None:
            if dt in ("float16", "bfloat16"):
                np.testing.assert_array_equal(_np(mp.grad), _np(tp.grad))
            else:     # BLAS dot's summation order
                np.testing.assert_allclose(_np(mp.grad), _np(tp.grad), rtol=1e-5, atol=1e-6)


def test_two_d_input_is_fixed_length_bags_and_int32_indices():
    rng = np.random.default_rng(1)
    w = torch.from_numpy(rng.standard_normal((6, 3))).float()
    idx = torch.from_numpy(rng.integers(0, 6, (4, 3)))
    for mode in ("sum", "mean", "max"):
        for itype in (torch.int64, torch.int32):
            t = TF.embedding_bag(idx.to(itype), w, mode=mode, padding_idx=2)
            m = F.embedding_bag(_mg(idx.to(itype)), _mg(w), mode=mode, padding_idx=2)
            np.testing.assert_array_equal(_np(m), _np(t))
    psw = torch.from_numpy(rng.standard_normal((4, 3))).float()
    t = TF.embedding_bag(idx, w, mode="sum", per_sample_weights=psw)
    m = F.embedding_bag(_mg(idx), _mg(w), mode="sum", per_sample_weights=_mg(psw))
    np.testing.assert_array_equal(_np(m), _np(t))


def test_aten_op_outputs_match_torch():
    """``_embedding_bag``'s bookkeeping outputs (offset2bag, bag_size, max_indices), with
    ATen's quirks: sum's fast path leaves offset2bag empty, bag_size zero."""
    rng = np.random.default_rng(2)
    w = torch.from_numpy(rng.standard_normal((5, 2))).float()
    idx, off = torch.tensor([1, 2, 4, 2, 4, 3, 2, 0]), torch.tensor([0, 4, 4])
    for op in ("_embedding_bag", "_embedding_bag_forward_only"):
        for mode in (0, 1, 2):
            for pad in (-1, 2):
                for last in (False, True):
                    args = (False, mode, False, None, last, pad)
                    t = getattr(torch.ops.aten, op)(w, idx, off, *args)
                    m = D.dispatch(op, _mg(w), _mg(idx), _mg(off), *args)
                    for a, b in zip(m, t):
                        assert tuple(a.shape) == tuple(b.shape), (op, mode, pad, last)
                        np.testing.assert_array_equal(_np(a), _np(b))


class _TorchOps(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


class _OurOps(D.DispatchMode):
    def __init__(self):
        self.names = []

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        self.names.append(op_name)
        return call_next(args, kwargs)


@pytest.mark.parametrize("grad,mode", [(True, "mean"), (True, "sum"), (False, "max")])
def test_records_torchs_aten_ops(grad, mode):
    w0 = torch.randn(6, 3)
    idx, off = torch.tensor([0, 1, 2, 2, 5]), torch.tensor([0, 2])
    psw0 = torch.rand(5) if mode == "sum" else None
    seen = {}
    for lib, rec in (("torch", _TorchOps()), ("minigrad", _OurOps())):
        if lib == "torch":
            w, i, o, p = w0.clone().requires_grad_(grad), idx, off, psw0
            if p is not None:
                p = p.clone().requires_grad_()
            f = TF
        else:
            w, i, o = _mg(w0, grad), _mg(idx), _mg(off)
            p = None if psw0 is None else _mg(psw0, True)
            f = F
        with rec:
            out = f.embedding_bag(i, w, o, mode=mode, per_sample_weights=p)
            if grad:
                out.backward(torch.ones_like(out) if lib == "torch" else mg.ones_like(out))
        seen[lib] = {n for n in rec.names if "embedding_bag" in n}
        if grad:
            assert out.grad_fn.name() == "EmbeddingBagBackward0"
    # minigrad also shows the dense kernel that torch's _embedding_bag_backward calls below
    # the Python dispatcher (its profiler lists it too)
    assert seen["minigrad"] - {"embedding_bag", "_embedding_bag_dense_backward"} == seen["torch"]


def test_double_backward_raises_as_torch():
    for lib, f in ((torch, TF), (mg, F)):
        w = lib.randn(4, 2, dtype=lib.float64, requires_grad=True)
        p = lib.randn(5, dtype=lib.float64, requires_grad=True)
        idx, off = lib.tensor([0, 1, 2, 2, 3]), lib.tensor([0, 2])
        out = f.embedding_bag(idx, w, off, mode="sum", per_sample_weights=p)
        g = lib.randn(2, 2, dtype=lib.float64, requires_grad=True)
        gw, gp = lib.autograd.grad(out, (w, p), g, create_graph=True)
        assert gw.grad_fn.name() == "EmbeddingBagBackwardBackward0"
        assert gp.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(NotImplementedError, match="the derivative for "
                           "'_embedding_bag_backward' is not implemented."):
            gw.sum().backward()
        with pytest.raises(RuntimeError, match="derivative for "
                           "aten::_embedding_bag_per_sample_weights_backward is not implemented"):
            gp.sum().backward()


def _error(fn, lib, f):
    try:
        fn(lib, f)
    except Exception as exc:      # noqa: BLE001 - the exception is the result
        return type(exc).__name__, str(exc).replace("minigrad.tensor.Tensor", "torch.Tensor")
    return None


_ERRORS = {
    "offsets[0]": lambda L, F: F.embedding_bag(L.tensor([0, 1, 2]), L.ones(3, 2), L.tensor([1])),
    "offsets[-1]": lambda L, F: F.embedding_bag(L.tensor([0, 1]), L.ones(3, 2), L.tensor([0, 3])),
    "2d offsets": lambda L, F: F.embedding_bag(L.tensor([[0, 1]]), L.ones(3, 2), L.tensor([0])),
    "no offsets": lambda L, F: F.embedding_bag(L.tensor([0, 1]), L.ones(3, 2)),
    "offsets 2d": lambda L, F: F.embedding_bag(L.tensor([0, 1]), L.ones(3, 2), L.tensor([[0]])),
    "3d input": lambda L, F: F.embedding_bag(L.tensor([[[0]]]), L.ones(3, 2)),
    "mode": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3, 2), mode="min"),
    "psw mean": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3, 2),
                                             per_sample_weights=L.ones(1, 1)),
    "psw shape": lambda L, F: F.embedding_bag(L.tensor([[0, 1]]), L.ones(3, 2), mode="sum",
                                              per_sample_weights=L.ones(2)),
    "psw dtype": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3, 2), mode="sum",
                                              per_sample_weights=L.ones(1, 1).double()),
    "max freq": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3, 2), mode="max",
                                             scale_grad_by_freq=True),
    "max sparse": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3, 2), mode="max",
                                               sparse=True),
    "weight 1d": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3)),
    "weight int": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3, 2).long() + 1),
    "float idx": lambda L, F: F.embedding_bag(L.tensor([0.0]), L.ones(3, 2), L.tensor([0])),
    "padding_idx": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3, 2), padding_idx=3),
    "padding_idx neg": lambda L, F: F.embedding_bag(L.tensor([[0]]), L.ones(3, 2),
                                                    padding_idx=-4),
    "idx range max": lambda L, F: F.embedding_bag(L.tensor([[5]]), L.ones(3, 2), mode="max"),
    "idx range pad": lambda L, F: F.embedding_bag(L.tensor([[-1]]), L.ones(3, 2),
                                                  padding_idx=0),
    "idx range fast": lambda L, F: F.embedding_bag(L.tensor([[0, 3]]), L.ones(3, 2)),
    "last offset": lambda L, F: F.embedding_bag(L.tensor([0]), L.ones(3, 2),
                                                L.tensor([], dtype=L.int64),
                                                include_last_offset=True),
    "zero width": lambda L, F: F.embedding_bag(L.ones(2, 0).long(), L.ones(3, 2)),
}


@pytest.mark.parametrize("name", sorted(_ERRORS))
def test_errors_match_torch(name):
    t, m = (_error(_ERRORS[name], *LIBS[n]) for n in ("torch", "minigrad"))
    assert t is not None, "torch raised nothing"
    assert m == t


def test_sparse_gradient_is_not_implemented():
    w = mg.ones(3, 2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="sparse"):
        F.embedding_bag(mg.tensor([[0, 1]]), w, sparse=True)
    F.embedding_bag(mg.tensor([[0, 1]]), w.detach(), sparse=True)      # no gradient: fine


def test_max_norm_renormalises_like_torch():
    """(embedding_renorm_ is F.embedding's op: its fp32 rows can differ from PyTorch's by an
    ulp, PyTorch's vectorised norm summing in another order; hence the tolerance.)"""
    w0 = torch.from_numpy(np.random.default_rng(4).standard_normal((5, 3)) * 3).float()
    idx = torch.tensor([[0, 1], [4, 1]])
    tw, mw = w0.clone(), _mg(w0)
    t = TF.embedding_bag(idx, tw, max_norm=1.0, mode="sum")
    m = F.embedding_bag(_mg(idx), mw, max_norm=1.0, mode="sum")
    np.testing.assert_allclose(_np(m), _np(t), rtol=1e-6)
    np.testing.assert_allclose(_np(mw), _np(tw), rtol=1e-6)
    assert np.array_equal(_np(mw)[[2, 3]], _np(tw)[[2, 3]])         # rows not looked up


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_module_matches_torch_twin(mode):
    torch.manual_seed(0)
    kw = dict(mode=mode, padding_idx=1, include_last_offset=(mode == "sum"))
    tm = torch.nn.EmbeddingBag(7, 4, **kw)
    mm = mg.nn.EmbeddingBag(7, 4, **kw)
    assert repr(mm) == repr(tm) and list(mm.state_dict()) == list(tm.state_dict())
    assert float(mm.weight[1].abs().sum()) == 0.0
    mm.load_state_dict({k: from_torch(v) for k, v in tm.state_dict().items()})
    idx, off = torch.tensor([1, 2, 6, 6, 0, 1, 3]), torch.tensor([0, 3, 3, 7])
    if mode != "sum":
        off = off[:-1]
    psw = torch.rand(7) if mode == "sum" else None
    t = tm(idx, off, psw)
    m = mm(_mg(idx), _mg(off), None if psw is None else _mg(psw))
    np.testing.assert_array_equal(_np(m), _np(t))
    t.square().sum().backward()
    m.square().sum().backward()
    np.testing.assert_array_equal(_np(mm.weight.grad), _np(tm.weight.grad))
    t2 = torch.nn.EmbeddingBag(7, 4, **kw)
    t2.load_state_dict({k: to_torch(v) for k, v in mm.state_dict().items()})
    np.testing.assert_array_equal(t2.weight.detach().numpy(), tm.weight.detach().numpy())


def test_module_constructor_and_from_pretrained():
    for L in (torch, mg):
        e = L.nn.EmbeddingBag(4, 2, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True,
                              padding_idx=-1, dtype=L.float64)
        assert e.padding_idx == 3 and e.weight.dtype == L.float64
        with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
            L.nn.EmbeddingBag(4, 2, padding_idx=4)
        with pytest.raises(AssertionError, match="Shape of weight does not match"):
            L.nn.EmbeddingBag(4, 2, _weight=L.ones(3, 2))
        with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
            L.nn.EmbeddingBag.from_pretrained(L.ones(3))
        p = L.nn.EmbeddingBag.from_pretrained(L.ones(3, 2), mode="max")
        assert not p.weight.requires_grad and p.mode == "max"
        assert L.nn.EmbeddingBag.from_pretrained(L.ones(3, 2), freeze=False).weight.requires_grad
    assert repr(mg.nn.EmbeddingBag(4, 2, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True,
                                   padding_idx=-1)) == \
        repr(torch.nn.EmbeddingBag(4, 2, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True,
                                   padding_idx=-1))
    assert mg.nn.modules.sparse.EmbeddingBag is mg.nn.EmbeddingBag


def test_std_sort_order_is_torchs_unstable_sort():
    rng = np.random.default_rng(3)
    for n in (0, 1, 5, 16, 17, 40, 300):
        keys = rng.integers(0, max(n // 4, 1), n)
        np.testing.assert_array_equal(std_sort_order(keys),
                                      torch.from_numpy(keys).sort().indices.numpy())
