"""``meshgrid``, ``searchsorted``, ``bucketize``, ``unique`` and the deterministic-algorithms
flag against PyTorch: values, graph nodes, warnings and errors (the catalogue's specs compare the
values on random samples too)."""
from __future__ import annotations


import numpy as np
import pytest
import torch

import minigrad as mg


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("sizes", [(3, 2), (2, 1, 4), (3,)])
def test_meshgrid_matches_torch(sizes, indexing):
    out = []
    for L in (torch, mg):
        leaves = [L.arange(float(n), requires_grad=True) for n in sizes]
        grids = L.meshgrid(*[t * (i + 1) for i, t in enumerate(leaves)], indexing=indexing)
        assert grids[0].grad_fn.name() == "ExpandBackward0"
        sum(((g * (k + 2)) ** 2).sum() for k, g in enumerate(grids)).backward()
        out.append([g.detach().numpy() for g in grids] + [t.grad.numpy() for t in leaves])
    for a, b in zip(*out):
        assert a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_meshgrid_default_warns_and_errors_match_torch():
    for L in (torch, mg):
        with pytest.warns(UserWarning, match="it will be required to pass the indexing"):
            a, b = L.meshgrid(L.arange(3), L.arange(2))
        assert list(a.shape) == [3, 2]
        assert L.meshgrid([L.arange(2), L.arange(3)], indexing="ij")[1].tolist() == \
            [[0, 1, 2], [0, 1, 2]]
        with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but '
                                               'received: foo'):
            L.meshgrid(L.arange(3), indexing="foo")
        with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
            L.meshgrid(L.ones(2, 2), indexing="ij")


def _both(fn):
    return fn(torch), fn(mg)


@pytest.mark.parametrize("kw", [{}, {"right": True}, {"side": "right"}, {"side": "left"},
                                {"out_int32": True}])
def test_searchsorted_and_bucketize_match_torch(kw):
    def run(L):
        ss = L.tensor([1, 3, 5, 7, 9])
        v = L.tensor([[3, 6, 9], [0, 10, 1]])
        res = [L.searchsorted(ss, v, **kw), L.searchsorted(ss, 5, **kw),
               L.searchsorted(L.tensor([[1.0, 3.0], [2.0, 4.0]]), L.tensor([[2.5, 3], [2, 5]]),
                              **kw),
               L.searchsorted(L.tensor([5.0, 1.0, 3.0]), L.tensor([2.0, 3.0]),
                              sorter=L.tensor([1, 2, 0]), **kw),
               L.searchsorted(L.tensor([1, 2]), L.tensor([1.5, 2.0]), **kw)]
        if "side" not in kw:
            res += [L.bucketize(v, ss, **kw), L.bucketize(4.0, ss, **kw)]
        return res
    for t, m in zip(*_both(run)):
        assert m.dtype.name == str(t.dtype).replace("torch.", "")
        assert list(m.shape) == list(t.shape) and m.tolist() == t.tolist()


def test_search_errors_match_torch():
    cases = [lambda L: L.searchsorted(L.tensor([1, 2]), L.tensor([1]), side="left", right=True),
             lambda L: L.searchsorted(L.tensor([[1, 2]]), L.tensor([1, 2, 3])),
             lambda L: L.bucketize(L.tensor([1]), L.tensor([[1, 2]]))]
    for fn in cases:
        with pytest.raises(RuntimeError) as te:
            fn(torch)
        with pytest.raises(RuntimeError) as me:
            fn(mg)
        assert str(me.value) == str(te.value)


def test_unique_matches_torch():
    def run(L):
        x = L.tensor([3, 1, 2, 3, 1, 5])
        m2 = L.tensor([[1, 2], [1, 2], [0, 3]])
        f = L.tensor([1.0, float("nan"), 0.0, float("nan"), 1.0])
        return [L.unique(x), *L.unique(x, return_inverse=True, return_counts=True),
                *L.unique(x, sorted=False, return_counts=True), x.unique(),
                *L.unique(m2, dim=0, return_inverse=True, return_counts=True),
                *L.unique(m2, dim=1, return_counts=True),
                *L.unique(m2, return_inverse=True), L.unique(f), L.unique(L.tensor(3.0))]
    for t, m in zip(*_both(run)):
        assert m.dtype.name == str(t.dtype).replace("torch.", "")
        np.testing.assert_array_equal(m.numpy(), t.numpy())


def test_deterministic_flag_round_trips():
    """(torch's own call is left out: its first use imports torch._inductor, ~7 s; the texts
    below are torch 2.13's.)"""
    try:
        mg.use_deterministic_algorithms(True, warn_only=True)
        assert mg.are_deterministic_algorithms_enabled()
        assert mg.is_deterministic_algorithms_warn_only_enabled()
        mg.use_deterministic_algorithms(False)
        assert not mg.are_deterministic_algorithms_enabled()
        assert not mg.is_deterministic_algorithms_warn_only_enabled()
        with pytest.raises(TypeError, match=r"^_set_deterministic_algorithms\(\): argument "
                                            r"'mode' \(position 1\) must be bool, not int$"):
            mg.use_deterministic_algorithms(1)
    finally:
        mg.use_deterministic_algorithms(False)
