"""Attention against torch: ``F.scaled_dot_product_attention`` (which backend runs, the graph
node, dtype errors, grouped-query attention, the math path in fp32) and ``nn.MultiheadAttention``
against its torch twin from the same weights (outputs, attention weights, input and parameter
gradients) over its options; parameter names and initialisation.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
from minigrad.nn import functional as F
from tests.unit._data_compare import error_of
from tests.unit.test_random_ops import _Names

LIBS = {"torch": (torch, TF), "minigrad": (mg, F)}


def _np(t):
    t = t.detach()
    return t.to(torch.float64).numpy() if isinstance(t, torch.Tensor) else \
        t.to(mg.float64).numpy()


def _pair(arr, dt="float32", grad=True):
    t = torch.tensor(arr).to(getattr(torch, dt)).requires_grad_(grad)
    m = mg.tensor(arr, dtype=getattr(mg, dt), requires_grad=grad)
    return m, t


def test_sdpa_backend_choice_and_nodes_like_torch():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((1, 2, 3, 4)), rng.standard_normal((1, 2, 5, 4))
    cases = [({}, rng.standard_normal((1, 2, 5, 4))),          # flash
             ({}, rng.standard_normal((1, 2, 5, 3))),          # head dims differ: math
             ({"is_causal": True}, rng.standard_normal((1, 2, 5, 4)))]
    for kw, v in cases:
        (mq, tq), (mk, tk), (mv, tv) = _pair(q), _pair(k), _pair(v)
        rec = _Names()
        with rec:
            y = F.scaled_dot_product_attention(mq, mk, mv, **kw)
        ty = TF.scaled_dot_product_attention(tq, tk, tv, **kw)
        fused = "_scaled_dot_product_flash_attention_for_cpu" in rec.names
        assert fused == (ty.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0")
        assert rec.names[0] == "scaled_dot_product_attention"
        g = rng.standard_normal(tuple(ty.shape))
        y.backward(mg.tensor(g, dtype=mg.float32))
        ty.backward(torch.tensor(g, dtype=torch.float32))
        for a, b in ((y, ty), (mq.grad, tq.grad), (mk.grad, tk.grad), (mv.grad, tv.grad)):
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-6)


def test_sdpa_masks_gqa_and_dead_rows():
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal(s) for s in ((2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)))
    keep = rng.random((3, 5)) > 0.4
    keep[0] = False                                             # a row with every key masked
    for dt in ("float32", "bfloat16"):
        outs = []
        for L, FF in ((torch, TF), (mg, F)):
            tq, tk, tv = (L.tensor(x).to(getattr(L, dt)) for x in (q, k, v))
            outs.append([FF.scaled_dot_product_attention(tq, tk, tv, attn_mask=L.tensor(keep),
                                                         enable_gqa=True),
                         FF.scaled_dot_product_attention(tq, tk, tv, attn_mask=L.tensor(keep)
                                                         .to(L.float32), scale=0.5,
                                                         enable_gqa=True)])
        for a, b in zip(*outs):
            assert a.dtype == getattr(torch, dt) and b.dtype == getattr(mg, dt)
            np.testing.assert_allclose(_np(b), _np(a), rtol=1e-5 if dt == "float32" else 0,
                                       atol=1e-6 if dt == "float32" else 0)
        assert np.all(_np(outs[1][0])[:, :, 0] == 0)
    (mq, tq), (mk, tk), (mv, tv), (mm, tm) = (_pair(x, grad=False) for x in
                                              (q[:, :2], k, v, rng.standard_normal((3, 5))))
    both = F.scaled_dot_product_attention(mq, mk, mv, attn_mask=mm, is_causal=True)
    tboth = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, is_causal=True)
    np.testing.assert_allclose(_np(both), _np(tboth), rtol=1e-5, atol=1e-6)


def test_sdpa_math_path_with_mask_grad_fp32():
    rng = np.random.default_rng(2)
    (mq, tq), (mk, tk), (mv, tv) = (_pair(rng.standard_normal(s)) for s in
                                    ((1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4)))
    mm, tm = _pair(rng.standard_normal((3, 4)))
    y = F.scaled_dot_product_attention(mq, mk, mv, attn_mask=mm)
    ty = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm)
    y.sum().backward()
    ty.sum().backward()
    for a, b in ((y, ty), (mq.grad, tq.grad), (mm.grad, tm.grad)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-6)


def test_sdpa_dropout_takes_the_math_path():
    q = mg.ones(1, 1, 200, 4)
    rec = _Names()
    with rec:
        y = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5,
                                           generator=mg.Generator().manual_seed(0))
    assert "dropout" in rec.names and "_scaled_dot_product_flash_attention_for_cpu" \
        not in rec.names
    assert abs(float(y.mean()) - 1.0) < 0.25        # E[dropout(p) / (1 - p)] = 1


@pytest.mark.parametrize("fn", [
    lambda L, F: F.scaled_dot_product_attention(L.ones(1, 1, 1, 2), L.ones(1, 1, 1, 2).double(),
                                                L.ones(1, 1, 1, 2)),
    lambda L, F: F.scaled_dot_product_attention(*[L.ones(1, 1, 1, 2)] * 3,
                                                attn_mask=L.ones(1, 1, dtype=L.float64)),
    lambda L, F: F.scaled_dot_product_attention(*[L.ones(1, 1, 1, 2).half()] * 3,
                                                attn_mask=L.ones(1, 1, dtype=L.int64)),
    lambda L, F: F.scaled_dot_product_attention(L.ones(1, 1, 2, 2), L.ones(1, 1, 2, 2),
                                                L.ones(1, 1, 2, 3), attn_mask=L.ones(2, 2),
                                                is_causal=True),
    lambda L, F: F.scaled_dot_product_attention(*[L.ones(1, 1, 1, 2, dtype=L.int64)] * 3),
])
def test_sdpa_errors_like_torch(fn):
    t, m = (error_of(fn, *LIBS[n]) for n in ("torch", "minigrad"))
    assert t is not None and m == t


# ------------------------------------------------------------------------------ MultiheadAttention
def _copy(tm, mm):
    theirs = dict(mm.named_parameters())
    for n, p in tm.named_parameters():
        theirs[n].detach().copy_(mg.tensor(p.detach().numpy()))


MHA_CASES = [({}, {}), ({"batch_first": True}, {}), ({"kdim": 6, "vdim": 5}, {}),
             ({"add_bias_kv": True, "add_zero_attn": True}, {"kpm": True}),
             ({}, {"need_weights": False}), ({}, {"average_attn_weights": False, "mask": "3d"}),
             ({"bias": False}, {"need_weights": False, "mask": "bool"}),
             ({}, {"kpm": True, "mask": "float"})]


@pytest.mark.parametrize("kw,call", MHA_CASES)
def test_mha_matches_torch_twin(kw, call):
    torch.manual_seed(0)
    tm, mm = torch.nn.MultiheadAttention(8, 2, **kw), mg.nn.MultiheadAttention(8, 2, **kw)
    assert [n for n, _ in tm.named_parameters()] == [n for n, _ in mm.named_parameters()]
    assert list(tm.state_dict()) == list(mm.state_dict())
    _copy(tm, mm)
    rng = np.random.default_rng(1)
    shapes = [(3, 2, 8), (4, 2, kw.get("kdim", 8)), (4, 2, kw.get("vdim", 8))]
    arrs = [rng.standard_normal(s) for s in shapes]
    if kw.get("batch_first"):
        arrs = [a.transpose(1, 0, 2) for a in arrs]
    pairs = [_pair(a) for a in arrs]
    margs, targs = {}, {}
    if call.get("kpm"):
        kp = np.array([[False, False, False, True], [False] * 4])
        margs["key_padding_mask"], targs["key_padding_mask"] = mg.tensor(kp), torch.tensor(kp)
    if call.get("mask") == "bool":
        am = np.triu(np.ones((3, 4), bool), 1)
        margs["attn_mask"], targs["attn_mask"] = mg.tensor(am), torch.tensor(am)
    elif call.get("mask") == "float":
        am = rng.standard_normal((3, 4))
        margs["attn_mask"], targs["attn_mask"] = _pair(am, grad=False)
    elif call.get("mask") == "3d":
        am = rng.standard_normal((4, 3, 4))
        margs["attn_mask"], targs["attn_mask"] = _pair(am, grad=False)
    for n in ("need_weights", "average_attn_weights"):
        if n in call:
            margs[n] = targs[n] = call[n]
    mo, mw = mm(*[m for m, _ in pairs], **margs)
    to, tw = tm(*[t for _, t in pairs], **targs)
    assert (mw is None) == (tw is None)
    to.pow(2).sum().backward()
    mo.pow(2).sum().backward()
    got = [mo] + ([mw] if mw is not None else []) + [m.grad for m, _ in pairs]
    want = [to] + ([tw] if tw is not None else []) + [t.grad for _, t in pairs]
    mp = dict(mm.named_parameters())
    got += [mp[n].grad for n, _ in tm.named_parameters()]
    want += [p.grad for _, p in tm.named_parameters()]
    for a, b in zip(got, want):
        np.testing.assert_allclose(_np(a), _np(b), rtol=2e-5, atol=2e-6)


def test_mha_init_repr_and_unbatched():
    for L in (torch, mg):
        m = L.nn.MultiheadAttention(6, 3, kdim=4, vdim=5)
        names = [n for n, _ in m.named_parameters()]
        assert names == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias",
                         "out_proj.weight", "out_proj.bias"]
        assert type(m.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
        assert float(m.in_proj_bias.abs().sum()) == 0 and float(m.out_proj.bias.abs().sum()) == 0
    m = mg.nn.MultiheadAttention(8, 2)
    bound = (6 / (8 + 24)) ** 0.5                       # xavier_uniform_ on (24, 8)
    assert float(m.in_proj_weight.abs().max()) <= bound
    assert repr(m) == repr(torch.nn.MultiheadAttention(8, 2))
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2)
    _copy(tm, m)
    x = np.random.default_rng(3).standard_normal((3, 8))
    (mx, tx) = _pair(x)
    mo, mw = m(mx, mx, mx)
    to, tw = tm(tx, tx, tx)
    np.testing.assert_allclose(_np(mo), _np(to), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mw), _np(tw), rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match="divisible"):
        mg.nn.MultiheadAttention(7, 2)


def test_mha_canonicalises_masks_like_torch():
    """``F._canonical_mask`` / ``F._none_or_dtype`` as torch's (bool -> 0/-inf float, errors);
    MultiheadAttention's deprecation warning for a bool key padding mask beside a float
    attn_mask (same text, once), and its ``is_causal`` hint with a causal mask."""
    import warnings
    kpm = np.array([[False, False, True], [False] * 3])
    causal = np.triu(np.full((3, 3), -np.inf, np.float32), 1)
    x = np.random.default_rng(4).standard_normal((3, 2, 8)).astype(np.float32)
    for L, LF in LIBS.values():
        got = LF._canonical_mask(L.tensor(kpm), "m", None, "", L.float32)
        assert str(got.dtype).endswith("float32")
        np.testing.assert_array_equal(_np(got), np.where(kpm, -np.inf, 0.0))
        with pytest.raises(AssertionError, match="only bool and floating types of m are"):
            LF._canonical_mask(L.tensor([1, 2]), "m", None, "", L.float32)
        with pytest.raises(RuntimeError, match="input to _none_or_dtype"):
            LF._none_or_dtype(3)
        assert LF._none_or_dtype(None) is None
    torch.manual_seed(0)
    tm, mm = torch.nn.MultiheadAttention(8, 2), mg.nn.MultiheadAttention(8, 2)
    _copy(tm, mm)
    texts, outs = [], []
    for L, m in ((torch, tm), (mg, mm)):
        q = L.tensor(x)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            m(q, q, q, key_padding_mask=L.tensor(kpm), attn_mask=L.tensor(causal))
        texts.append([str(w.message) for w in rec])
        outs.append(m(q, q, q, attn_mask=L.tensor(causal), is_causal=True,
                      need_weights=False)[0])
    assert texts[0] == texts[1] and len(texts[0]) == 1
    assert "mismatched key_padding_mask and attn_mask" in texts[0][0]
    np.testing.assert_allclose(_np(outs[1]), _np(outs[0]), rtol=1e-5, atol=1e-6)


def test_fully_masked_row_has_zero_output_and_gradients_as_torch():
    # a CI draw found it: the math path's all-masked row gave NaN gradients (torch: 0)
    outs = []
    for lib in (torch, mg):
        q = lib.zeros(1, 1, 1, 2, requires_grad=True)
        k = lib.ones(1, 1, 2, 2, requires_grad=True)
        v = lib.ones(1, 1, 2, 3, requires_grad=True)
        o = lib.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=lib.zeros(1, 2, dtype=lib.bool))
        o.sum().backward()
        outs.append([np.asarray(t.detach().tolist()) for t in (o, q.grad, k.grad, v.grad)])
    for a, b in zip(*outs):
        assert np.array_equal(a, b)
