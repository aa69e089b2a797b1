"""``nn.Transformer*`` against their torch twins, built with the same arguments and loaded from
torch's ``state_dict``: outputs, input and parameter gradients (train mode, dropout=0: the two
libraries draw different dropout masks) over batch_first, norm_first, relu/gelu/callable
activations and masks (causal float mask, the ``is_causal`` hint, bool key padding); eval mode,
where torch may take its fused fast path; bf16 autocast; ``state_dict`` keys both ways;
PyTorch's warnings and errors; initialisation; a few AdamW steps of a tiny Transformer LM.

Tolerances: fp32 results agree within rtol=atol=2e-5 (different summation orders in matmul,
layer_norm and softmax; measured at most 2.4e-6 absolute, on gradients of magnitude ~10, i.e.
2-3 fp32 ULPs); under ``autocast("cpu", bfloat16)`` within 2e-2 absolute (one bf16 ULP of O(1)
values is 7.8e-3; measured at most 1e-6, both sides rounding the same bf16 linear results).
"""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.testing import to_torch

# torch's own notices, not under test here (test_warnings_like_torch records its own)
pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),
              pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors"),
              pytest.mark.filterwarnings("ignore:Support for mismatched")]
RTOL = ATOL = 2e-5
D, H, FF = 8, 2, 16                           # d_model, nhead, dim_feedforward


def _np(t):
    t = t.detach()
    return t.to(torch.float64).numpy() if isinstance(t, torch.Tensor) else \
        t.to(mg.float64).numpy()


def _close(got, want, rtol=RTOL, atol=ATOL):
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(_np(got), _np(want), rtol=rtol, atol=atol)


def _twins(cls, *args, **kw):
    """The torch module and its minigrad twin, the latter loaded from the former."""
    torch.manual_seed(0)
    tm, mm = getattr(torch.nn, cls)(*args, **kw), getattr(mg.nn, cls)(*args, **kw)
    mm.load_state_dict(tm.state_dict())
    return tm, mm


def _layer(L, cls, kw):
    return getattr(L.nn, cls)(D, H, FF, dropout=0.0, **kw)


def _build(L, kind, kw):
    """A module of ``kind`` from library ``L`` (torch or minigrad); returns (module, is_decoder)."""
    if kind in ("TransformerEncoderLayer", "TransformerDecoderLayer"):
        return _layer(L, kind, kw), kind.startswith("TransformerDecoder")
    if kind == "TransformerEncoder":
        return L.nn.TransformerEncoder(_layer(L, "TransformerEncoderLayer", kw), 2,
                                       norm=L.nn.LayerNorm(D)), False
    if kind == "TransformerDecoder":
        return L.nn.TransformerDecoder(_layer(L, "TransformerDecoderLayer", kw), 2), True
    return L.nn.Transformer(D, H, 1, 2, FF, dropout=0.0, **kw), True


def _arr(rng, shape, batch_first):
    a = rng.standard_normal(shape).astype(np.float32)    # shape is (S, N, E)
    return a.transpose(1, 0, 2).copy() if batch_first else a


CAUSAL = np.triu(np.full((5, 5), -np.inf, np.float32), 1)
KPM = np.zeros((3, 5), bool)
KPM[0, 3:] = KPM[2, 4] = True                 # padding at the end of rows 0 and 2
MEM_KPM = np.zeros((3, 4), bool)
MEM_KPM[1, 2:] = True

# (module, constructor kwargs, masks): "causal" = float causal mask, "hint" = the same with
# is_causal=True, "kpm" = bool key padding (tgt/src and memory), "memory_mask" = float mask
# over the memory; ("fn", name) = that F function as the activation
CASES = [("TransformerEncoderLayer", {}, ()),
         ("TransformerEncoderLayer", {"batch_first": True, "norm_first": True,
                                      "activation": "gelu"}, ("causal", "kpm")),
         ("TransformerEncoder", {"activation": ("fn", "gelu")}, ("hint",)),
         ("TransformerEncoder", {"batch_first": True}, ("kpm",)),
         ("TransformerDecoderLayer", {"norm_first": True, "activation": ("fn", "silu")},
          ("causal", "kpm", "memory_mask")),
         ("TransformerDecoder", {"batch_first": True, "activation": "gelu"}, ("hint",)),
         ("Transformer", {"norm_first": True, "batch_first": True}, ("causal", "kpm"))]


def _call_args(kind, masks, decoder):
    """Forward keyword arguments as arrays (converted per library by ``_lib``)."""
    kw = {}
    self_mask, self_kpm, hint = ("tgt_mask", "tgt_key_padding_mask", "tgt_is_causal") \
        if decoder else (("mask" if kind == "TransformerEncoder" else "src_mask"),
                         "src_key_padding_mask", "is_causal")
    if "causal" in masks or "hint" in masks:
        kw[self_mask] = CAUSAL
    if "hint" in masks:
        kw[hint] = True
    if "kpm" in masks:
        kw[self_kpm] = KPM
        if decoder:
            kw["memory_key_padding_mask"] = MEM_KPM
    if "memory_mask" in masks:                 # a float (T, S) mask over the memory
        kw["memory_mask"] = np.random.default_rng(7).standard_normal((5, 4)).astype(np.float32)
    return kw


def _lib_kw(L, kw):
    """Constructor kwargs for library ``L``: ``("fn", name)`` becomes ``L``'s ``F.<name>``."""
    return {k: (getattr(L.nn.functional, v[1]) if isinstance(v, tuple) else v)
            for k, v in kw.items()}


def _lib(L, kw):
    return {k: (L.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}


def _run(L, module, inputs, call):
    xs = [L.tensor(a, requires_grad=True) for a in inputs]
    out = module(*xs, **_lib(L, call))
    return out, xs


@pytest.mark.parametrize("kind,kw,masks", CASES, ids=[f"{c[0]}-{i}" for i, c in
                                                      enumerate(CASES)])
def test_module_matches_torch_twin(kind, kw, masks):
    """Outputs, input gradients and every parameter's gradient, train mode with dropout=0."""
    torch.manual_seed(0)
    tm, decoder = _build(torch, kind, _lib_kw(torch, kw))
    mm, _ = _build(mg, kind, _lib_kw(mg, kw))
    assert list(mm.state_dict()) == list(tm.state_dict())
    mm.load_state_dict(tm.state_dict())
    rng = np.random.default_rng(1)
    bf = kw.get("batch_first", False)
    inputs = [_arr(rng, (5, 3, D), bf)]
    if kind == "Transformer":
        inputs.append(_arr(rng, (5, 3, D), bf))
    elif decoder:
        inputs.append(_arr(rng, (4, 3, D), bf))        # memory
    call = _call_args(kind, masks, decoder)
    if kind == "Transformer":                  # the masks above went to the decoder's target
        call["src_key_padding_mask"] = call["memory_key_padding_mask"] = KPM
    to, txs = _run(torch, tm, inputs, call)
    mo, mxs = _run(mg, mm, inputs, call)
    assert str(mo.dtype) == str(to.dtype).replace("torch", "minigrad")
    weights = rng.standard_normal(tuple(to.shape)).astype(np.float32)
    (to * torch.tensor(weights)).sum().backward()
    (mo * mg.tensor(weights)).sum().backward()
    _close(mo, to)
    for mx, tx in zip(mxs, txs):
        _close(mx.grad, tx.grad)
    mp = dict(mm.named_parameters())
    for name, p in tm.named_parameters():
        _close(mp[name].grad, p.grad)


def test_unbatched_input_and_eval_mode():
    """An unbatched (S, E) source; eval mode without grad, where torch runs its fused fast
    path (``_transformer_encoder_layer_fwd``) and, for a padded batch through
    ``TransformerEncoder``, nested tensors that return padded positions as zeros: minigrad
    runs the composed path, equal on the real positions within the fp32 tolerance."""
    torch.manual_seed(0)
    tm, mm = (L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(
        D, H, FF, dropout=0.0, batch_first=True), 2) for L in (torch, mg))
    mm.load_state_dict(tm.state_dict())
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, D)).astype(np.float32)
    _close(mm(mg.tensor(x)), tm(torch.tensor(x)))
    tm.eval(), mm.eval()
    xb = rng.standard_normal((3, 5, D)).astype(np.float32)
    with torch.no_grad():
        t_layer = tm.layers[0](torch.tensor(xb))
        t_stack = tm(torch.tensor(xb), src_key_padding_mask=torch.tensor(KPM))
    with mg.no_grad():
        m_layer = mm.layers[0](mg.tensor(xb))
        m_stack = mm(mg.tensor(xb), src_key_padding_mask=mg.tensor(KPM))
    _close(m_layer, t_layer)
    real = ~KPM
    assert np.all(_np(t_stack)[KPM] == 0)              # torch's nested-tensor padding
    np.testing.assert_allclose(_np(m_stack)[real], _np(t_stack)[real], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("norm_first", [False, True])
def test_autocast_bf16_dtypes_and_values(norm_first):
    """``autocast("cpu", bfloat16)``: linear runs in bf16, layer_norm in fp32, so the outputs
    are fp32 as torch's; values and gradients within 2e-2 of torch's."""
    import amp_emu  # noqa: F401  (minigrad.autocast)
    tm, mm = _twins("Transformer", D, H, 1, 1, FF, dropout=0.0, norm_first=norm_first)
    tl, ml = _twins("TransformerEncoderLayer", D, H, FF, dropout=0.0, norm_first=norm_first)
    rng = np.random.default_rng(3)
    s, t = (rng.standard_normal(sh).astype(np.float32) for sh in ((5, 3, D), (4, 3, D)))
    mask = np.triu(np.full((4, 4), -np.inf, np.float32), 1)
    ts, tt = torch.tensor(s, requires_grad=True), torch.tensor(t, requires_grad=True)
    ms, mt = mg.tensor(s, requires_grad=True), mg.tensor(t, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        outs_t = [tm(ts, tt, tgt_mask=torch.tensor(mask)), tl(torch.tensor(s))]
    with mg.autocast("cpu", dtype=mg.bfloat16):
        outs_m = [mm(ms, mt, tgt_mask=mg.tensor(mask)), ml(mg.tensor(s))]
    for a, b in zip(outs_m, outs_t):
        assert str(a.dtype) == str(b.dtype).replace("torch", "minigrad")
        _close(a, b, rtol=0, atol=2e-2)
    weights = rng.standard_normal(tuple(outs_t[0].shape)).astype(np.float32)
    (outs_t[0].float() * torch.tensor(weights)).sum().backward()
    (outs_m[0].float() * mg.tensor(weights)).sum().backward()
    _close(ms.grad, ts.grad, rtol=0, atol=2e-2)
    _close(mt.grad, tt.grad, rtol=0, atol=2e-2)
    mp = dict(mm.named_parameters())
    for name, p in tm.named_parameters():
        assert str(mp[name].grad.dtype) == "minigrad.float32"
        _close(mp[name].grad, p.grad, rtol=0, atol=2e-2)


def test_state_dict_loads_both_ways_and_class_paths(tmp_path):
    """Same keys in the same order; torch's loads into minigrad and minigrad's into torch
    (strict), giving the same outputs; classes live at PyTorch's module path, which a saved
    whole model names."""
    tm, mm = _twins("Transformer", D, H, 2, 1, FF, dropout=0.0, batch_first=True)
    assert list(mm.state_dict()) == list(tm.state_dict())
    assert "encoder.layers.1.self_attn.in_proj_weight" in mm.state_dict()
    assert "decoder.layers.0.multihead_attn.out_proj.bias" in mm.state_dict()
    assert "decoder.norm.weight" in mm.state_dict()
    mm2 = mg.nn.Transformer(D, H, 2, 1, FF, dropout=0.0, batch_first=True)
    tm2 = torch.nn.Transformer(D, H, 2, 1, FF, dropout=0.0, batch_first=True)
    tm2.load_state_dict({k: to_torch(v) for k, v in mm.state_dict().items()})
    mm2.load_state_dict(tm2.state_dict())
    rng = np.random.default_rng(4)
    s, t = rng.standard_normal((2, 5, D)), rng.standard_normal((2, 3, D))
    want = tm(torch.tensor(s, dtype=torch.float32), torch.tensor(t, dtype=torch.float32))
    for m in (mm, mm2):
        _close(m(mg.tensor(s, dtype=mg.float32), mg.tensor(t, dtype=mg.float32)), want)
    for name in ("Transformer", "TransformerEncoder", "TransformerDecoder",
                 "TransformerEncoderLayer", "TransformerDecoderLayer"):
        assert getattr(mg.nn, name).__module__ == "minigrad.nn.modules.transformer"
        assert getattr(mg.nn.modules.transformer, name) is getattr(mg.nn, name)
    assert repr(mm) == repr(tm)
    mg.save(mm, tmp_path / "model.pt")
    with pytest.raises(Exception, match=r"minigrad\.nn\.modules\.transformer\.Transformer"):
        mg.load(tmp_path / "model.pt")
    loaded = mg.load(tmp_path / "model.pt", weights_only=False)
    _close(loaded(mg.tensor(s, dtype=mg.float32), mg.tensor(t, dtype=mg.float32)), want)


def test_clones_reset_parameters_and_masks():
    """``_get_clones`` deep-copies (equal start, independent tensors); ``Transformer``'s
    xavier_uniform_ on every 2-D parameter (linear1's values exceed Linear's own
    1/sqrt(fan_in) bound); ``generate_square_subsequent_mask`` as torch's."""
    layer = mg.nn.TransformerEncoderLayer(D, H, FF)
    enc = mg.nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    ws = [lay.linear1.weight for lay in enc.layers]
    assert len({id(w) for w in ws} | {id(layer.linear1.weight)}) == 4
    assert all(np.array_equal(_np(w), _np(layer.linear1.weight)) for w in ws)
    model = mg.nn.Transformer(D, H, 1, 1, FF, dropout=0.0)
    for name, p in model.named_parameters():
        if p.dim() > 1:
            fan_out, fan_in = p.shape
            assert float(p.abs().max()) <= (6 / (fan_in + fan_out)) ** 0.5, name
    # (16, 8): xavier's bound sqrt(6/24) = 0.5, Linear's 1/sqrt(8) = 0.354
    assert float(model.encoder.layers[0].linear1.weight.abs().max()) > 1 / D ** 0.5
    custom = mg.nn.Linear(D, FF)                       # custom parts are re-initialised too
    model = mg.nn.Transformer(D, H, 1, 1, FF, custom_encoder=custom)
    assert model.encoder is custom and float(custom.weight.abs().max()) > 1 / D ** 0.5
    for kw in ({}, {"dtype": "float64"}, {"dtype": "bfloat16"}):
        m = mg.nn.Transformer.generate_square_subsequent_mask(
            4, **{k: getattr(mg, v) for k, v in kw.items()})
        t = torch.nn.Transformer.generate_square_subsequent_mask(
            4, **{k: getattr(torch, v) for k, v in kw.items()})
        assert str(m.dtype) == str(t.dtype).replace("torch", "minigrad")
        np.testing.assert_array_equal(_np(m), _np(t))
    from minigrad.nn.modules import transformer as mt
    tt = torch.nn.modules.transformer
    np.testing.assert_array_equal(_np(mt._generate_square_subsequent_mask(3)),
                                  _np(tt._generate_square_subsequent_mask(3)))
    not_causal = CAUSAL.copy()
    not_causal[4, 0] = -1.0
    for mask, is_causal, size in [(CAUSAL, None, None), (CAUSAL, None, 4), (CAUSAL, False, None),
                                  (not_causal, None, None), (None, True, None),
                                  (CAUSAL[None].repeat(2, 0), None, None)]:
        args = [(L.tensor(mask) if mask is not None else None, is_causal, size)
                for L in (torch, mg)]
        assert mt._detect_is_causal_mask(*args[1]) is tt._detect_is_causal_mask(*args[0])


def _warning_texts(fn):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in rec]


def test_warnings_like_torch():
    """enable_nested_tensor's notice (its reason for each case) and the deprecated mixing of a
    bool key padding mask with a float attention mask, as torch's texts and counts."""
    ctor_cases = [{"norm_first": True, "batch_first": True}, {}, {"batch_first": True},
                  {"batch_first": True, "activation": lambda x: x}]
    for kw in ctor_cases:
        got = _warning_texts(lambda: mg.nn.TransformerEncoder(
            mg.nn.TransformerEncoderLayer(D, H, FF, **kw), 1))
        want = _warning_texts(lambda: torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(D, H, FF, **kw), 1))
        assert got == want, kw
    assert _warning_texts(lambda: mg.nn.TransformerEncoder(
        mg.nn.TransformerEncoderLayer(6, 3, FF, batch_first=True), 1)) == \
        _warning_texts(lambda: torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(6, 3, FF, batch_first=True), 1))
    x = np.random.default_rng(5).standard_normal((5, 3, D)).astype(np.float32)
    for cls in ("TransformerEncoder", "TransformerEncoderLayer", "TransformerDecoderLayer"):
        texts = []
        for L in (torch, mg):
            torch.manual_seed(0)
            layer = _layer(L, cls if cls != "TransformerEncoder" else "TransformerEncoderLayer",
                           {})
            m = L.nn.TransformerEncoder(layer, 2) if cls == "TransformerEncoder" else layer
            xs = [L.tensor(x)] * (2 if "Decoder" in cls else 1)
            masks = [L.tensor(CAUSAL), L.tensor(KPM)]
            texts.append(_warning_texts(lambda: m(*xs, *((masks[0], None, masks[1])
                                                        if "Decoder" in cls else masks))))
        assert texts[0] == texts[1] and len(texts[1]) == 1, cls


def test_errors_like_torch():
    """PyTorch's exception types and messages."""
    for L in (torch, mg):
        model = L.nn.Transformer(D, H, 1, 1, FF)
        with pytest.raises(RuntimeError, match="the feature number of src and tgt must be "
                                               "equal to d_model"):
            model(L.zeros(5, 2, D), L.zeros(4, 2, D + 2))
        with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
            model(L.zeros(5, 2, D), L.zeros(4, 3, D))
        with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
            L.nn.TransformerEncoderLayer(D, H, activation="tanh")
        with pytest.raises(RuntimeError, match="activation should be relu/gelu, not silu"):
            L.nn.TransformerDecoderLayer(D, H, activation="silu")
        layer = L.nn.TransformerEncoderLayer(D, H, FF)
        with pytest.raises(AssertionError, match="only bool and floating types of src_mask"):
            layer(L.zeros(5, 2, D), src_mask=L.zeros(5, 5, dtype=L.int64))
        assert layer.activation_relu_or_gelu == 1
        assert L.nn.TransformerEncoderLayer(D, H, activation="gelu").activation_relu_or_gelu == 2


def _lm(L):
    """A tiny causal Transformer language model in library ``L``."""
    class TinyLM(L.nn.Module):
        def __init__(self, vocab=11, d=16):
            super().__init__()
            self.emb = L.nn.Embedding(vocab, d)
            layer = L.nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, activation="gelu",
                                                 batch_first=True, norm_first=True)
            self.encoder = L.nn.TransformerEncoder(layer, 2, norm=L.nn.LayerNorm(d),
                                                   enable_nested_tensor=False)
            self.head = L.nn.Linear(d, vocab)

        def forward(self, idx):
            mask = L.nn.Transformer.generate_square_subsequent_mask(idx.shape[1])
            return self.head(self.encoder(self.emb(idx), mask=mask, is_causal=True))
    return TinyLM()


def test_tiny_transformer_lm_adamw_losses_match_torch():
    """Six AdamW steps (weight decay, lr 1e-2) of a causal LM from the same initial weights on
    the same batches (counting sequences mod 11): the loss trajectories agree within 1e-5
    relative, and the loss falls."""
    torch.manual_seed(0)
    tm, mm = _lm(torch), _lm(mg)
    mm.load_state_dict(tm.state_dict())
    topt = torch.optim.AdamW(tm.parameters(), lr=1e-2, weight_decay=0.1)
    mopt = mg.optim.AdamW(mm.parameters(), lr=1e-2, weight_decay=0.1)
    rng = np.random.default_rng(6)
    losses = {"torch": [], "minigrad": []}
    for _ in range(6):
        data = (rng.integers(0, 11, (4, 1)) + np.arange(7)) % 11    # next token = +1
        for L, m, opt, key in ((torch, tm, topt, "torch"), (mg, mm, mopt, "minigrad")):
            idx, tgt = L.tensor(data[:, :-1]), L.tensor(data[:, 1:])
            logits = m(idx)
            loss = L.nn.functional.cross_entropy(logits.reshape(-1, 11), tgt.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses[key].append(loss.item())
    np.testing.assert_allclose(losses["minigrad"], losses["torch"], rtol=1e-5)
    assert losses["torch"][-1] < losses["torch"][0]
    copy.deepcopy(mm)                                  # a trained model still deep-copies
