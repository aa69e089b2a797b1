"""``nn.utils.parameters_to_vector`` / ``vector_to_parameters`` and ``nn.utils.rnn.pad_sequence``
against torch: values, dtypes, graph nodes, gradients, aliasing and errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad
import minigrad.nn as nn
from minigrad.nn.utils.rnn import pad_sequence
from tests.unit.test_nn import _copy_params, _err, _m, _np


def _models():
    torch.manual_seed(0)
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    _copy_params(m, t)
    return m, t


# ---------------------------------------------------------------- parameters <-> vector
def test_parameters_to_vector_equals_torch_and_is_differentiable():
    m, t = _models()
    mv = nn.utils.parameters_to_vector(m.parameters())
    tv = torch.nn.utils.parameters_to_vector(t.parameters())
    assert np.array_equal(_np(mv), tv.detach().numpy()) and mv.dtype is minigrad.float32
    assert type(mv.grad_fn).__name__ == type(tv.grad_fn).__name__ == "CatBackward0"
    w = np.arange(tv.numel(), dtype=np.float32)
    (mv * minigrad.tensor(w)).sum().backward()
    (tv * torch.tensor(w)).sum().backward()
    for mp, tp in zip(m.parameters(), t.parameters()):
        assert np.array_equal(_np(mp.grad), tp.grad.numpy())


def test_vector_to_parameters_round_trip_and_aliasing_as_torch():
    m, t = _models()
    n = sum(p.numel() for p in t.parameters())
    vec = np.linspace(-1, 1, n + 3).astype(np.float32)      # longer than needed: allowed
    mvec, tvec = minigrad.tensor(vec), torch.tensor(vec)
    mparams, tparams = list(m.parameters()), list(t.parameters())
    nn.utils.vector_to_parameters(mvec, m.parameters())
    torch.nn.utils.vector_to_parameters(tvec, t.parameters())
    assert all(a is b for a, b in zip(mparams, m.parameters()))     # same Parameter objects
    for mp, tp in zip(m.parameters(), t.parameters()):
        assert np.array_equal(_np(mp), tp.detach().numpy()) and tuple(mp.shape) == tuple(tp.shape)
        assert mp.requires_grad and isinstance(mp, nn.Parameter)
    back = nn.utils.parameters_to_vector(m.parameters())
    assert np.array_equal(_np(back), vec[:n])
    x = np.ones((2, 3), np.float32)
    got, want = _np(m(minigrad.tensor(x))), t(torch.tensor(x)).detach().numpy()
    if minigrad.numerics.MKL_AVX512:
        # MKL's AVX-512 sgemm sums the K=4 products of the last Linear in another order
        # (numerics.MKL_AVX512): any order is within K * 2**-24 * sum|a*w| + |bias| <= 5 of
        # the exact sum, 4 * 2**-24 * 5 = 1.2e-6; bit-exact everywhere else
        np.testing.assert_allclose(got, want, rtol=0, atol=4 * 2.0 ** -24 * 5)
    else:
        assert np.array_equal(got, want)
    # as in torch, the parameters now share the vector's storage (.data assignment)
    with torch.no_grad():
        tvec.mul_(2)
    with minigrad.no_grad():
        mvec.mul_(2)
    assert np.array_equal(_np(m[0].weight), t[0].weight.detach().numpy())
    # and take the vector's dtype
    for lib, lnn, mod in ((minigrad, nn, m), (torch, torch.nn, t)):
        lnn.utils.vector_to_parameters(lib.zeros(n, dtype=lib.float64), mod.parameters())
    assert m[0].weight.dtype is minigrad.float64 and t[0].weight.dtype is torch.float64


def test_vector_helpers_errors_match_torch():
    m, t = _models()
    for bad in (3, [1.0, 2.0]):
        mine = _err(lambda: nn.utils.vector_to_parameters(bad, m.parameters()))
        assert mine == _err(lambda: torch.nn.utils.vector_to_parameters(bad, t.parameters()))
        assert mine is not None
    mixed = [minigrad.ones(2), minigrad.ones(2, device="cuda")]
    assert _err(lambda: nn.utils.parameters_to_vector(mixed)) == \
        ("TypeError", "Found two parameters on different devices, this is currently not "
                      "supported.")
    assert _err(lambda: nn.utils.vector_to_parameters(minigrad.ones(4), mixed))[0] == "TypeError"
    assert _err(lambda: nn.utils.parameters_to_vector([]))[0] == \
        _err(lambda: torch.nn.utils.parameters_to_vector([]))[0]
    assert _err(lambda: nn.utils.vector_to_parameters(minigrad.ones(3), m.parameters()))[0] == \
        _err(lambda: torch.nn.utils.vector_to_parameters(torch.ones(3), t.parameters()))[0]


# ---------------------------------------------------------------- pad_sequence
@settings(max_examples=40)
@given(lengths=st.lists(st.integers(0, 5), min_size=1, max_size=4),
       trailing=st.sampled_from([(), (3,), (2, 2)]), batch_first=st.booleans(),
       side=st.sampled_from(["right", "left"]), value=st.sampled_from([0.0, -1.5, 7.0]))
def test_pad_sequence_values_and_grads_match_torch(lengths, trailing, batch_first, side, value):
    rng = np.random.default_rng(len(lengths))
    seqs = [rng.standard_normal((n,) + trailing).astype(np.float32) for n in lengths]
    ms = [minigrad.tensor(s, requires_grad=True) for s in seqs]
    ts = [torch.tensor(s, requires_grad=True) for s in seqs]
    mo = pad_sequence(ms, batch_first, value, side)
    to = torch.nn.utils.rnn.pad_sequence(ts, batch_first, value, side)
    assert tuple(mo.shape) == tuple(to.shape) and mo.dtype is minigrad.float32
    assert np.array_equal(_np(mo), to.detach().numpy())
    assert type(mo.grad_fn).__name__ == type(to.grad_fn).__name__ == "CopySlices"
    g = rng.standard_normal(tuple(to.shape)).astype(np.float32)
    mo.backward(minigrad.tensor(g))
    to.backward(torch.tensor(g))
    for a, b in zip(ms, ts):
        assert np.array_equal(_np(a.grad), b.grad.numpy())


def test_pad_sequence_dtypes_broadcast_and_inputs_as_torch():
    cases = [
        lambda lib: [lib.arange(2), lib.arange(3)],                          # int64, -1.5 -> -1
        lambda lib: [lib.ones(2, dtype=lib.float16), lib.ones(3, dtype=lib.float64)],
        lambda lib: [lib.ones(2, dtype=lib.bool), lib.ones(1, dtype=lib.bool)],
        lambda lib: [lib.ones(2, 3), lib.ones(3, 1)],                        # broadcast
        lambda lib: lib.ones(3, 2),                                          # a Tensor: rows
        lambda lib: (x for x in [lib.ones(2), lib.ones(1)])]                 # a generator
    for make in cases:
        mo = pad_sequence(make(minigrad), padding_value=-1.5)
        to = torch.nn.utils.rnn.pad_sequence(make(torch), padding_value=-1.5)
        assert str(mo.dtype).split(".")[1] == str(to.dtype).split(".")[1]
        assert np.array_equal(_np(mo), to.numpy().astype(np.float64))
    b = minigrad.nn.utils.rnn.pad_sequence([minigrad.ones(2, device="cuda")])
    assert b.device.type == "cuda"


@pytest.mark.parametrize("make,kw", [
    (lambda lib: [], {}), (lambda lib: [], {"padding_side": "x"}),
    (lambda lib: [lib.ones(2)], {"padding_side": "middle"}), (lambda lib: [1, 2], {}),
    (lambda lib: [lib.ones(2, 3), lib.ones(3, 4)], {}),
    (lambda lib: [lib.ones(2, 3), lib.ones(3, 4)], {"batch_first": True}),
    (lambda lib: [lib.ones(2, 1), lib.ones(3, 3)], {}),
    (lambda lib: [lib.ones(()), lib.ones(2)], {}), (lambda lib: [lib.ones(2), lib.ones(())], {}),
    (lambda lib: 5, {})])
def test_pad_sequence_errors_match_torch(make, kw):
    m = _err(lambda: pad_sequence(make(minigrad), **kw))
    t = _err(lambda: torch.nn.utils.rnn.pad_sequence(make(torch), **kw))
    assert m == t and m is not None
