"""Shape and indexing ops of issue 7 against PyTorch, beyond the catalogue (tests/specs/shape.py):
error types and messages, graph node names of the composites, the in-place forms on views
(CopySlices), views sharing storage, 16-bit accumulation with many repeated indices, autocast.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as tF

import minigrad as mg
import minigrad.nn.functional as mF
from amp_emu import autocast
from minigrad.testing import from_torch, to_torch


def _both(fn, *inputs):
    """fn(lib, F, *inputs) in torch and minigrad (inputs: torch tensors, copied bit for bit)."""
    mins = [from_torch(x.detach()).requires_grad_(x.requires_grad) if isinstance(x, torch.Tensor)
            else x for x in inputs]
    return fn(torch, tF, *inputs), fn(mg, mF, *mins), mins


def _equal(m, t):
    mt = to_torch(m).detach()
    assert mt.dtype == t.dtype and mt.shape == t.shape, (mt, t)
    assert torch.equal(mt, t.detach()) or torch.allclose(mt, t.detach(), equal_nan=True,
                                                         rtol=0, atol=0), (mt, t)


# ------------------------------------------------------------------------------ errors
L, I32 = torch.long, torch.int32
_X = torch.arange(12.).reshape(3, 4)
ERRORS = {
    "gather_oob": lambda T, F, x: x.gather(1, T.tensor([[5]])),
    "gather_float_index": lambda T, F, x: x.gather(1, T.tensor([[0.5]])),
    "gather_dims": lambda T, F, x: x.gather(1, T.tensor([0])),
    "gather_size": lambda T, F, x: x.gather(1, T.zeros(4, 1, dtype=T.long)),
    "gather_neg": lambda T, F, x: x.gather(1, T.tensor([[-1]])),
    "scatter_dtype": lambda T, F, x: x.scatter(1, T.tensor([[0]]), T.ones(1, 1, dtype=T.float64)),
    "scatter_src_small": lambda T, F, x: x.scatter(1, T.zeros(2, 2, dtype=T.long), T.ones(1, 1)),
    "scatter_bad_reduce": lambda T, F, x: x.scatter(1, T.zeros(2, 2, dtype=T.long),
                                                   T.ones(2, 2), reduce="sum"),
    "scatter_reduce_bad": lambda T, F, x: x.scatter_reduce(1, T.zeros(2, 2, dtype=T.long),
                                                          T.ones(2, 2), "foo"),
    "index_select_oob": lambda T, F, x: x.index_select(1, T.tensor([4])),
    # ATen's error depends on the path: dim 1 / an empty self of 2+ dims vs the general loop
    "index_select_oob_dim0": lambda T, F, x: x.index_select(0, T.tensor([3])),
    "index_select_oob_1d": lambda T, F, x: x[0].index_select(0, T.tensor([-1])),
    "index_select_oob_3d_dim2": lambda T, F, x: x[None].index_select(2, T.tensor([4])),
    "index_select_oob_empty_self": lambda T, F, x: x[:, :0].index_select(0, T.tensor([3])),
    "index_select_empty_axis": lambda T, F, x: x[:0].index_select(0, T.tensor([0])),
    "index_select_float": lambda T, F, x: x.index_select(1, T.tensor([1.0])),
    "index_select_2d": lambda T, F, x: x.index_select(1, T.tensor([[1]])),
    "index_add_oob": lambda T, F, x: x.index_add(1, T.tensor([4]), T.ones(3, 1)),
    "index_add_oob_1d": lambda T, F, x: x[0].index_add(0, T.tensor([4]), T.ones(1)),
    "index_add_oob_int32": lambda T, F, x: x.index_add(0, T.tensor([3], dtype=T.int32),
                                                      T.ones(1, 4)),
    "index_add_oob_alpha": lambda T, F, x: x.index_add(0, T.tensor([3]), T.ones(1, 4), alpha=2),
    "index_add_oob_3d_dim1": lambda T, F, x: x[None].index_add(1, T.tensor([3]),
                                                              T.ones(1, 1, 4)),
    "index_add_count": lambda T, F, x: x.index_add(1, T.tensor([1]), T.ones(3, 2)),
    "index_add_dtype": lambda T, F, x: x.index_add(1, T.tensor([1]),
                                                  T.ones(3, 1, dtype=T.float64)),
    "index_copy_count": lambda T, F, x: x.index_copy(1, T.tensor([1]), T.ones(3, 2)),
    "index_copy_int32": lambda T, F, x: x.index_copy(1, T.tensor([1], dtype=T.int32),
                                                    T.ones(3, 1)),
    "index_fill_oob": lambda T, F, x: x.index_fill(1, T.tensor([4]), 1.0),
    "index_fill_int32": lambda T, F, x: x.index_fill(1, T.tensor([1], dtype=T.int32), 1.0),
    "index_fill_value_1d": lambda T, F, x: x.index_fill(1, T.tensor([1]), T.tensor([1.])),
    "masked_select_long": lambda T, F, x: x.masked_select(T.ones(3, 4, dtype=T.long)),
    "masked_select_shape": lambda T, F, x: x.masked_select(T.ones(3, 5, dtype=T.bool)),
    "masked_scatter_small": lambda T, F, x: x.masked_scatter(T.ones(3, 4, dtype=T.bool),
                                                            T.ones(2)),
    "masked_scatter_long": lambda T, F, x: x.masked_scatter(T.ones(3, 4, dtype=T.long),
                                                           T.ones(12)),
    "masked_scatter_shape": lambda T, F, x: x.masked_scatter(T.ones(3, 5, dtype=T.bool),
                                                            T.ones(20)),
    "masked_scatter__big_mask": lambda T, F, x: x.masked_scatter_(T.ones(2, 3, 4, dtype=T.bool),
                                                                 T.ones(30)),
    "narrow_past_end": lambda T, F, x: x.narrow(1, 3, 2),
    "narrow_neg_length": lambda T, F, x: x.narrow(1, 0, -1),
    "narrow_start": lambda T, F, x: x.narrow(1, 5, 0),
    "narrow_0d": lambda T, F, x: x[0, 0].narrow(0, 0, 1),
    "roll_mismatch": lambda T, F, x: x.roll((1, 2), (0,)),
    "flip_repeated": lambda T, F, x: x.flip(0, 0),
    "repeat_few": lambda T, F, x: x.repeat(2),
    "repeat_negative": lambda T, F, x: x.repeat(2, -1),
    "tril_1d": lambda T, F, x: x[0].tril(),
    "diag_3d": lambda T, F, x: x[None].diag(),
    "diagonal_same_dims": lambda T, F, x: x.diagonal(0, 1, 1),
    "take_along_ndim": lambda T, F, x: T.take_along_dim(x, T.zeros(3, dtype=T.long), 1),
    "take_along_float": lambda T, F, x: T.take_along_dim(x, T.zeros(3, 1), 1),
    "repeat_interleave_neg": lambda T, F, x: x.repeat_interleave(-1),
    "repeat_interleave_len": lambda T, F, x: x.repeat_interleave(T.tensor([1, 2]), dim=0),
    "repeat_interleave_2d": lambda T, F, x: x.repeat_interleave(T.tensor([[1]])),
    "one_hot_negative": lambda T, F, x: F.one_hot(T.tensor([-1])),
    "one_hot_too_small": lambda T, F, x: F.one_hot(T.tensor([3]), 2),
    "one_hot_float": lambda T, F, x: F.one_hot(T.tensor([1.0])),
    "one_hot_empty": lambda T, F, x: F.one_hot(T.tensor([], dtype=T.long)),
    "pad_odd": lambda T, F, x: F.pad(x, (1,)),
    "pad_too_long": lambda T, F, x: F.pad(x, (1, 1, 1, 1, 1, 1)),
    "pad_reflect_big": lambda T, F, x: F.pad(x[None], (4, 4), mode="reflect"),
    "pad_reflect_1d": lambda T, F, x: F.pad(x[0], (1, 1), mode="reflect"),
    "pad_unknown_mode": lambda T, F, x: F.pad(x, (1, 1), mode="foo"),
    "pad_circular_wrap": lambda T, F, x: F.pad(x[None], (5, 5), mode="circular"),
    "pad_value_reflect": lambda T, F, x: F.pad(x[None], (1, 1), mode="reflect", value=2.0),
    "pad_replicate_empty": lambda T, F, x: F.pad(x[None, :0], (1, 1), mode="replicate"),
    "unfold_big": lambda T, F, x: x.unfold(1, 5, 1),
    "unfold_step0": lambda T, F, x: x.unfold(1, 2, 0),
    "F_unfold_2d": lambda T, F, x: F.unfold(x, 2),
    "F_unfold_big_kernel": lambda T, F, x: F.unfold(x[None, None], (5, 5)),
    "F_unfold_stride0": lambda T, F, x: F.unfold(x[None, None], 2, stride=0),
    "F_fold_blocks": lambda T, F, x: F.fold(T.ones(1, 4, 5), (3, 4), 2),
    "F_fold_channels": lambda T, F, x: F.fold(T.ones(1, 5, 6), (3, 4), 2),
    "movedim_repeated": lambda T, F, x: x.movedim((0, 0), (0, 1)),
    "movedim_lengths": lambda T, F, x: x.movedim((0, 1), (0,)),
}


def test_index_add_into_empty_self_skips_the_range_check():
    """ATen's index_add returns an empty self of 2+ dims unchanged, whatever the index."""
    t = torch.zeros(0, 2).index_add(0, torch.tensor([7]), torch.ones(1, 2))
    _equal(mg.zeros(0, 2).index_add(0, mg.tensor([7]), mg.ones(1, 2)), t)


# PyTorch's C++ expand names the type "CPUBoolType" there; minigrad's expand message uses the
# Python-level name (as torch's Tensor.expand does)
TYPE_ONLY = {"masked_scatter__big_mask"}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    fn = ERRORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            fn(torch, tF, _X.clone())
        with pytest.raises(Exception) as me:
            fn(mg, mF, from_torch(_X.clone()))
    assert type(me.value) is type(te.value), (me.value, te.value)
    if name not in TYPE_ONLY:
        assert str(me.value) == str(te.value)


def test_index_dtypes_accepted_as_torch():
    """gather/scatter/index_select/index_add take int32 indices; index_copy/index_fill do not;
    an empty index of any dtype is fine for gather."""
    x = torch.arange(12.).reshape(3, 4)
    i32 = torch.tensor([[0, 2]], dtype=torch.int32)
    for fn in (lambda T, a, i: a.gather(1, i), lambda T, a, i: a.scatter(1, i, 1.5),
               lambda T, a, i: a.scatter_add(1, i, a[:1, :2].contiguous()),
               lambda T, a, i: a.index_select(1, i[0]),
               lambda T, a, i: a.index_add(1, i[0], a[:, :2].contiguous())):
        t, m, _ = _both(lambda L, F, a, i: fn(L, a, i), x, i32)
        _equal(m, t)
    t, m, _ = _both(lambda L, F, a, i: a.gather(1, i), x, torch.zeros(0, 0))
    _equal(m, t)


# ------------------------------------------------------------------------------ graph names
NODES = {
    "narrow": lambda L, F, a: a.narrow(1, 1, 2),
    "movedim": lambda L, F, a: a.movedim(0, 2),
    "moveaxis": lambda L, F, a: L.moveaxis(a, (0, 1), (1, 0)),
    "swapdims": lambda L, F, a: L.swapdims(a, 0, 2),
    "swapaxes": lambda L, F, a: a.swapaxes(0, 1),
    "tile": lambda L, F, a: a.tile(2),
    "broadcast_to": lambda L, F, a: L.broadcast_to(a, (2, 3, 4, 5)),
    "expand_as": lambda L, F, a: a.expand_as(L.zeros(2, 3, 4, 5)),
    "view_as": lambda L, F, a: a.view_as(L.zeros(12, 5)),
    "unflatten": lambda L, F, a: a.unflatten(1, (2, 2)),
    "repeat_interleave": lambda L, F, a: a.repeat_interleave(2, dim=1),
    "repeat_interleave_tensor": lambda L, F, a: a.repeat_interleave(L.tensor([1, 0, 2]), dim=0),
    "diag_1d": lambda L, F, a: a[0, 0].diag(1),
    "diag_2d": lambda L, F, a: L.diag(a[0], -1),
    "diag_embed": lambda L, F, a: a.diag_embed(),
    "diagonal": lambda L, F, a: a.diagonal(0, 1, 2),
    "unfold": lambda L, F, a: a.unfold(2, 2, 1),
    "take_along_dim": lambda L, F, a: L.take_along_dim(a, L.zeros(3, 1, 5, dtype=L.long), 1),
    "pad_constant": lambda L, F, a: F.pad(a, (1, 1)),
    "pad_reflect": lambda L, F, a: F.pad(a, (1, 1), mode="reflect"),
    "pad_replicate2d": lambda L, F, a: F.pad(a, (1, 1, 2, 0), mode="replicate"),
    "F_unfold": lambda L, F, a: F.unfold(a, 2),
    "F_fold": lambda L, F, a: F.fold(a[:, :4], (2, 6), (2, 2)),
}


@pytest.mark.parametrize("name", list(NODES))
def test_graph_node_names_match_torch(name):
    x = torch.randn(3, 4, 5, dtype=torch.float64, requires_grad=True)
    t, m, (mx,) = _both(NODES[name], x)
    _equal(m, t)
    assert m.grad_fn.name() == t.grad_fn.name()
    g = torch.randn(t.shape, dtype=torch.float64)
    (tg,) = torch.autograd.grad(t, x, g)
    (mgr,) = mg.autograd.grad(m, mx, from_torch(g))
    assert torch.allclose(to_torch(mgr), tg, rtol=1e-12, atol=1e-12)


def test_circular_pad_is_copy_slices():
    x = torch.randn(1, 2, 3, 4, requires_grad=True)
    t, m, (mx,) = _both(lambda L, F, a: F.pad(a, (1, 2, 2, 1), mode="circular"), x)
    _equal(m, t)
    assert type(m.grad_fn).__name__ == type(t.grad_fn).__name__ == "CopySlices"
    g = torch.randn(t.shape)
    (tg,) = torch.autograd.grad(t, x, g)
    (mgr,) = mg.autograd.grad(m, mx, from_torch(g))
    _equal(mgr, tg)


# ------------------------------------------------------------------------------ in place, views
INPLACE = {
    "scatter_add_": lambda a, i, s: a.scatter_add_(1, i, s),
    "scatter_reduce_": lambda a, i, s: a.scatter_reduce_(1, i, s, "amax", include_self=False),
    "scatter_reduce_mean": lambda a, i, s: a.scatter_reduce_(1, i, s, "mean"),
    "scatter_": lambda a, i, s: a.scatter_(1, i, s),
    "index_add_": lambda a, i, s: a.index_add_(1, i[0, 0, :2], s[:, :2], alpha=-2),
    "index_fill_": lambda a, i, s: a.index_fill_(1, i[0, 0, :1], 7.0),
    "masked_scatter_": lambda a, i, s: a.masked_scatter_(a > 0, s.reshape(-1).repeat(3)),
}


@pytest.mark.parametrize("name", list(INPLACE))
@pytest.mark.parametrize("dtype", [torch.float64, torch.float16])
def test_inplace_on_a_view_records_copy_slices(name, dtype):
    """The in-place op on a view of a non-leaf: base gets CopySlices; values and gradients of
    the leaf and the src match torch."""
    torch.manual_seed(0)
    x = torch.randn(4, 5, 3, dtype=torch.float64).to(dtype).requires_grad_(True)
    s = torch.randn(3, 2, 3, dtype=torch.float64).to(dtype).requires_grad_(True)
    idx = torch.tensor([[[0, 1, 2], [2, 0, 1]]] * 3)     # distinct along dim 1 per column

    def fn(L, F, a, i, src):
        base = a * 1
        INPLACE[name](base[1:], i, src)
        return base

    t, m, (mx, _, ms) = _both(fn, x, idx, s)
    _equal(m, t)
    assert m.grad_fn.name() == t.grad_fn.name() == "torch::autograd::CopySlices"
    g = torch.randn(t.shape, dtype=torch.float64).to(dtype)
    tg = torch.autograd.grad(t, [x, s], g, allow_unused=True)
    mgr = mg.autograd.grad(m, [mx, ms], from_torch(g), allow_unused=True)
    for a, b in zip(mgr, tg):
        if b is None:
            assert a is None or not to_torch(a).any()
        else:
            _equal(a, b)


def test_diagonal_and_unfold_are_views():
    x = mg.arange(12.).reshape(3, 4)
    d, u = x.diagonal(1), x.unfold(1, 2, 2)
    x.add_(1)
    xt = torch.arange(12.).reshape(3, 4) + 1
    _equal(d, xt.diagonal(1))
    _equal(u, xt.unfold(1, 2, 2))
    d.mul_(0)          # writes reach the base
    xt.diagonal(1).mul_(0)
    _equal(x, xt)
    assert d._base is x._base and u._base is x._base


# ------------------------------------------------------------------------------ 16-bit sums
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_repeated_indices_round_like_torch(dtype):
    """Many repeated indices: scatter_add/scatter_reduce sum in fp32 once, index_add rounds per
    slice, gather's and index_select's backward likewise (bit for bit)."""
    torch.manual_seed(1)
    x = (torch.randn(2, 3, 4) * 100).to(dtype).requires_grad_(True)
    src = (torch.randn(2, 40, 4) * 100).to(dtype)
    idx = torch.randint(0, 3, (2, 40, 4))
    cases = [lambda L, F, a, i, s: a.scatter_add(1, i, s),
             lambda L, F, a, i, s: a.scatter_reduce(1, i, s, "sum", include_self=False),
             lambda L, F, a, i, s: a.scatter_reduce(1, i, s, "mean"),
             lambda L, F, a, i, s: a.scatter_reduce(1, i, s, "prod"),
             lambda L, F, a, i, s: a.index_add(1, i[0, :, 0], s, alpha=3),
             lambda L, F, a, i, s: a.gather(1, i),
             lambda L, F, a, i, s: a.index_select(1, i[0, :, 0])]
    for fn in cases:
        t, m, (mx, _, _) = _both(fn, x, idx, src)
        _equal(m, t)
        g = (torch.randn(t.shape) * 10).to(dtype)
        (tg,) = torch.autograd.grad(t, x, g)
        (mgr,) = mg.autograd.grad(m, mx, from_torch(g))
        _equal(mgr, tg)


# ------------------------------------------------------------------------------ misc API
def test_functions_and_methods_match_torch():
    x = torch.randn(2, 3, 4)
    fns = [lambda L, F, a: L.nonzero(L.tensor(5.), as_tuple=True),
           lambda L, F, a: L.tensor(0.).nonzero(as_tuple=True),
           lambda L, F, a: L.tensor(3.).nonzero(),
           lambda L, F, a: F.one_hot(L.tensor([[0, 2], [1, 1]]), -1),
           lambda L, F, a: F.one_hot(L.tensor([0, 2]), 5),
           lambda L, F, a: L.repeat_interleave(L.tensor([2, 0, 1])),
           lambda L, F, a: a.repeat_interleave(L.tensor([2]), dim=1),
           lambda L, F, a: a.roll(-1),
           lambda L, F, a: L.flip(a, (0, 2)),
           lambda L, F, a: a.flip(-1),
           lambda L, F, a: L.index_fill(a, 2, L.tensor([-1, 0]), L.tensor(2.5)),
           lambda L, F, a: L.scatter(a, 2, L.tensor([[[1]]]), value=-4.0),
           lambda L, F, a: L.take_along_dim(a, L.tensor([[[5, -1]]]), dim=2),
           lambda L, F, a: F.pad(a, (-1, 2, 0, 1, 1, 0), value=3.0),
           lambda L, F, a: F.pad(a[None], (1, 1, 2, 2, 1, 0), mode="circular"),
           lambda L, F, a: L.triu(a, 1), lambda L, F, a: a.tril(-1)]
    for fn in fns:
        t, m, _ = _both(fn, x)
        ts = t if isinstance(t, tuple) else (t,)
        ms = m if isinstance(m, tuple) else (m,)
        assert len(ts) == len(ms)
        for a, b in zip(ms, ts):
            _equal(a, b)


def test_autocast_output_dtypes_match_torch():
    """reflection/replication pads are fp32 ops of PyTorch's CPU autocast list, index_copy a
    promote op; gather/scatter/constant pads are untouched."""
    x = torch.randn(1, 2, 5).bfloat16()
    src = torch.randn(1, 2, 2)
    cases = [lambda L, F, a, s: F.pad(a, (2, 1), mode="reflect"),
             lambda L, F, a, s: F.pad(a, (2, 1), mode="replicate"),
             lambda L, F, a, s: F.pad(a, (2, 1)),
             lambda L, F, a, s: a.index_copy(2, L.tensor([0, 3]), s),
             lambda L, F, a, s: a.gather(2, L.tensor([[[0, 3]]]))]
    for fn in cases:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            try:
                t = fn(torch, tF, x, src)
            except RuntimeError:
                t = None
        with autocast("cpu", dtype=mg.bfloat16):
            try:
                m = fn(mg, mF, from_torch(x), from_torch(src))
            except RuntimeError:
                m = None
        assert (m is None) == (t is None)
        if t is not None:
            _equal(m, t)


def test_unfold_backward_and_diagonal_backward_are_differentiable_twice():
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    for fn in (lambda L, F, a: a.unfold(1, 3, 1).pow(2).sum(),
               lambda L, F, a: a.diagonal(1).pow(2).sum(),
               lambda L, F, a: F.pad(a[None], (2, 1), mode="reflect").pow(2).sum(),
               lambda L, F, a: a.gather(1, L.tensor([[0, 0, 4]] * 3)).pow(2).sum()):
        t, m, (mx,) = _both(fn, x)
        (tg,) = torch.autograd.grad(t, x, create_graph=True)
        (mgr,) = mg.autograd.grad(m, mx, create_graph=True)
        (tgg,) = torch.autograd.grad(tg.sum(), x)
        (mgg,) = mg.autograd.grad(mgr.sum(), mx)
        assert torch.allclose(to_torch(mgg), tgg)
        assert np.isfinite(float(mgg.sum().item()))


def test_view_dtype_reinterprets_the_bytes_as_pytorch():
    """``Tensor.view(dtype)`` reads the same bytes as another dtype (it once cast the values)."""
    x = np.array([[1.0, -2.5, 3.0e-41, np.inf]], np.float32)
    for src, dst in [("float32", "int32"), ("float32", "float16"), ("float32", "uint8"),
                     ("float32", "bfloat16"), ("float16", "float32"), ("bfloat16", "int16"),
                     ("float64", "float32"), ("int64", "float64")]:
        t = torch.from_numpy(x).to(getattr(torch, src)).view(getattr(torch, dst))
        m = mg.tensor(x).to(getattr(mg, src)).view(getattr(mg, dst))
        assert tuple(m.shape) == tuple(t.shape) and str(m.dtype)[9:] == str(t.dtype)[6:]
        assert np.array_equal(to_torch(m).view(torch.uint8).numpy(), t.view(torch.uint8).numpy())
    # a view: writes reach the base and bump its version; never requires grad
    base = mg.zeros(4, requires_grad=True)
    v = base.detach().view(mg.int32)
    v.add_(1)
    assert base.detach().view(mg.int32).tolist() == [1, 1, 1, 1] and base._version == 1
    assert not mg.ones(2, requires_grad=True).view(mg.float32).requires_grad
    for f in (lambda L: L.ones(2, 3).t().view(L.float16),
              lambda L: L.ones(3, dtype=L.float16).view(L.float32),
              lambda L: L.ones(()).view(L.float16)):
        with pytest.raises(RuntimeError) as em:
            f(mg)
        with pytest.raises(RuntimeError) as et:
            f(torch)
        assert str(em.value) == str(et.value)


@pytest.mark.parametrize("bounds", ["t0,n", "n,t0", "t1,n", "n,t1", "t0,none", "ti,f"])
def test_clamp_mixes_tensor_and_number_bounds_as_pytorch(bounds):
    """A number beside a 0-dim tensor bound (it once raised TypeError): values, dtype, node,
    grads; beside a 1-d tensor bound PyTorch's binding raises TypeError, and so do we."""
    if "t1" in bounds or bounds == "ti,f":
        for L in (mg, torch):
            spec = {"t1": L.tensor([0.0, 1.0, 1.0, 2.0, 2.0]), "n": 3,
                    "ti": L.tensor([1, 1, 1, 1, 1]), "f": 2.5}
            lo, hi = (spec[k] for k in bounds.split(","))
            with pytest.raises(TypeError):
                L.clamp(L.arange(5.0), min=lo, max=hi)
        return
    def make(L):
        x = L.tensor([-1.0, 0.5, 2.0, 4.0, 7.0], requires_grad=True)
        spec = {"t0": L.tensor(1.0), "t1": L.tensor([0.0, 1.0, 1.0, 2.0, 2.0]), "n": 3,
                "none": None, "ti": L.tensor([1, 1, 1, 1, 1]), "f": 2.5}
        lo, hi = (spec[k] for k in bounds.split(","))
        src = L.arange(5) if bounds == "ti,f" else x
        y = L.clamp(src, min=lo, max=hi)
        if y.requires_grad:
            y.sum().backward()
        return y, x.grad, (y.grad_fn.name() if y.grad_fn is not None else None)
    (ym, gm, nm), (yt, gt, nt) = make(mg), make(torch)
    assert str(ym.dtype)[9:] == str(yt.dtype)[6:] and nm == nt
    np.testing.assert_array_equal(ym.detach().numpy(), yt.detach().numpy())
    if gt is not None:
        np.testing.assert_array_equal(gm.numpy(), gt.numpy())
