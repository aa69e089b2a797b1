"""nn.RNN / LSTM / GRU and their cells against torch.nn's, from the same weights (torch's
state_dict loaded into minigrad's): outputs, final states, and the gradients of the input, the
initial states and every parameter; parameter names both ways; init bounds; repr; errors.

Tolerances: float64 runs ATen's portable CPU algorithm in both libraries (same op order), so
results agree to ~1e-12. PyTorch 2.13's fp32 CPU LSTM/GRU go through oneDNN (a fused kernel with
its own summation order), so fp32 is compared with rtol 1e-5 / atol 1e-6 (the one-layer tests
take that default path; the multi-layer ones switch oneDNN off, see ``portable_torch``).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad
import minigrad.nn as nn
from tests.unit.test_nn import _err, _m, _np

TOL = {torch.float32: dict(rtol=1e-5, atol=1e-6), torch.float64: dict(rtol=1e-10, atol=1e-12)}
MG_DTYPE = {torch.float32: minigrad.float32, torch.float64: minigrad.float64}


def _pair(name, *args, dtype=torch.float32, **kwargs):
    """The torch module and its minigrad twin holding the same weights."""
    t = getattr(torch.nn, name)(*args, dtype=dtype, **kwargs)
    m = getattr(nn, name)(*args, dtype=MG_DTYPE[dtype], **kwargs)
    m.load_state_dict({k: _m(v) for k, v in t.state_dict().items()})
    return t, m


def _leaf(a):
    return torch.tensor(a, requires_grad=True), minigrad.tensor(a, requires_grad=True)


def _flat(out):
    """(output, h) / (output, (h, c)) / h / (h, c) -> list of tensors."""
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out]


def _close(a, b, tol, what):
    np.testing.assert_allclose(_np(b), a.detach().double().numpy(), err_msg=what, **tol)


def _check(t, m, x, states=(), dtype=torch.float32):
    """Run both modules on ``x`` (and ``states``: a tuple of arrays, hx or (h0, c0)), compare
    every output, then backprop a random weighting of all outputs and compare the gradients of
    the input, the states and each parameter (by name)."""
    tol = TOL[dtype]
    xt, xm = _leaf(x)
    st = [_leaf(s) for s in states]
    hx_t = hx_m = None
    if st:
        hx_t = tuple(s[0] for s in st) if len(st) == 2 else st[0][0]
        hx_m = tuple(s[1] for s in st) if len(st) == 2 else st[0][1]
    outs_t, outs_m = _flat(t(xt, hx_t)), _flat(m(xm, hx_m))
    assert len(outs_t) == len(outs_m)
    rng = np.random.default_rng(1)
    loss_t, loss_m = 0, 0
    for k, (a, b) in enumerate(zip(outs_t, outs_m)):
        assert tuple(b.shape) == tuple(a.shape), k
        assert b.dtype is MG_DTYPE[dtype]
        _close(a, b, tol, f"output {k}")
        w = rng.standard_normal(tuple(a.shape)).astype(x.dtype)
        loss_t = loss_t + (a * torch.tensor(w)).sum()
        loss_m = loss_m + (b * minigrad.tensor(w)).sum()
    loss_t.backward()
    loss_m.backward()
    _close(xt.grad, xm.grad, tol, "input grad")
    for k, (a, b) in enumerate(st):
        _close(a.grad, b.grad, tol, f"state {k} grad")
    grads_m = dict(m.named_parameters())
    for name, p in t.named_parameters():
        _close(p.grad, grads_m[name].grad, tol, f"{name} grad")


@pytest.fixture
def portable_torch():
    """Run torch with oneDNN off: its CPU RNNs then take ATen's portable path (the algorithm
    minigrad mirrors). Also much faster here: torch's oneDNN LSTM takes ~2 s for a 2-layer
    bidirectional forward+backward on this machine; the default (oneDNN) path is compared in
    the one-layer tests."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # "TF32 acceleration on top of oneDNN ..."
        with torch.backends.mkldnn.flags(enabled=False):
            yield


def _x(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------- full-sequence modules
CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "bias": False}),
    ("GRU", {}),
    ("LSTM", {}),
]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=lambda v: v if isinstance(v, str) else None)
def test_module_matches_torch_with_initial_states(name, kw):
    t, m = _pair(name, 3, 5, **kw)
    states = (_x(1, 2, 5, seed=1),) if name != "LSTM" else (_x(1, 2, 5, seed=1),
                                                             _x(1, 2, 5, seed=2))
    _check(t, m, _x(4, 2, 3), states)


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_two_layers_bidirectional_batch_first(name, portable_torch):
    t, m = _pair(name, 3, 4, num_layers=2, bidirectional=True, batch_first=True)
    _check(t, m, _x(2, 5, 3))


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_float64_agrees_to_rounding(name, portable_torch):
    """float64: both run ATen's portable algorithm, so the agreement is ~1e-12."""
    t, m = _pair(name, 3, 4, num_layers=2, bidirectional=True, dtype=torch.float64)
    _check(t, m, _x(3, 2, 3, dtype=np.float64), dtype=torch.float64)


def test_lstm_proj_size_bidirectional_two_layers(portable_torch):
    t, m = _pair("LSTM", 3, 6, num_layers=2, proj_size=2, bidirectional=True)
    assert tuple(m.weight_hr_l1_reverse.shape) == (2, 6)
    assert tuple(m.weight_ih_l1.shape) == (24, 4) and tuple(m.weight_hh_l0.shape) == (24, 2)
    states = (_x(4, 2, 2, seed=3), _x(4, 2, 6, seed=4))
    _check(t, m, _x(3, 2, 3), states)


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_unbatched_input(name, portable_torch):
    t, m = _pair(name, 3, 4, bidirectional=True)
    states = (_x(2, 4, seed=5),) if name != "LSTM" else (_x(2, 4, seed=5), _x(2, 4, seed=6))
    _check(t, m, _x(5, 3), states)       # (L, H_in) with 2-d states
    _check(t, m, _x(5, 3))               # and zero states


def test_dropout_between_layers_train_and_eval():
    """dropout=1 zeroes the first layer's output in training (deterministically, as in torch),
    so the second layer sees only its biases; eval mode switches dropout off."""
    t, m = _pair("GRU", 3, 4, num_layers=2, dropout=1.0)
    _check(t, m, _x(3, 2, 3))
    t.eval()
    m.eval()
    assert not m.training
    _check(t, m, _x(3, 2, 3))


def test_dropout_half_drops_only_in_training():
    minigrad.manual_seed(0)
    m = nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    x = minigrad.tensor(_x(4, 2, 3))
    a, b = m(x)[0].detach().numpy(), m(x)[0].detach().numpy()
    assert not np.array_equal(a, b)      # fresh masks each call
    m.eval()
    a, b = m(x)[0].detach().numpy(), m(x)[0].detach().numpy()
    assert np.array_equal(a, b)


# ---------------------------------------------------------------- cells
@pytest.mark.parametrize("name,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                     ("LSTMCell", {}), ("GRUCell", {"bias": False})],
                         ids=["rnn_tanh", "rnn_relu", "lstm", "gru_nobias"])
def test_cells_match_torch(name, kw):
    t, m = _pair(name, 3, 4, **kw)
    lstm = name == "LSTMCell"
    states = (_x(2, 4, seed=1), _x(2, 4, seed=2)) if lstm else (_x(2, 4, seed=1),)
    _check(t, m, _x(2, 3), states)
    _check(t, m, _x(3))                                        # unbatched, zero state
    _check(t, m, _x(3), tuple(s[0] for s in states))           # unbatched with 1-d states


# ---------------------------------------------------------------- parameters, init, repr
def test_parameter_names_shapes_and_state_dict_both_ways():
    for name, args, kw in [("LSTM", (3, 6), dict(num_layers=2, bidirectional=True,
                                                  proj_size=2)),
                           ("GRU", (3, 4), dict(num_layers=2, bias=False)),
                           ("RNN", (3, 4), dict(bidirectional=True)),
                           ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), dict(bias=False))]:
        t = getattr(torch.nn, name)(*args, **kw)
        m = getattr(nn, name)(*args, **kw)
        ts, ms = t.state_dict(), m.state_dict()
        assert list(ms) == list(ts), name
        assert [tuple(v.shape) for v in ms.values()] == [tuple(v.shape) for v in ts.values()]
        t.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy())
                           for k, v in ms.items()})                     # minigrad -> torch
        for k, v in t.state_dict().items():
            np.testing.assert_array_equal(v.numpy(), ms[k].detach().numpy())
        if hasattr(t, "all_weights"):
            assert [[tuple(w.shape) for w in g] for g in m.all_weights] == \
                [[tuple(w.shape) for w in g] for g in t.all_weights]
            assert m._flat_weights_names == t._flat_weights_names


def test_default_init_is_uniform_within_one_over_sqrt_hidden():
    minigrad.manual_seed(0)
    m = nn.LSTM(10, 16, num_layers=2, bidirectional=True)
    bound = float(np.float32(1 / math.sqrt(16)))
    w = np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.mean()) < 0.02 * bound and w.var() == pytest.approx(bound ** 2 / 3, rel=0.05)
    m16 = nn.GRUCell(3, 4, dtype=minigrad.float64)
    assert all(p.dtype is minigrad.float64 for p in m16.parameters())
    m.flatten_parameters()                                     # a no-op, as on CPU
    m.double()                                   # _flat_weights follows converted parameters
    out, (h, c) = m(minigrad.zeros(2, 1, 10, dtype=minigrad.float64))
    assert out.dtype is minigrad.float64 and tuple(c.shape) == (4, 1, 16)


def test_repr_matches_torch():
    for name, args, kw in [("LSTM", (3, 6), dict(num_layers=2, bidirectional=True, proj_size=2,
                                                  batch_first=True, bias=False, dropout=0.5)),
                           ("RNN", (3, 4), dict(nonlinearity="relu")), ("GRU", (3, 4), {}),
                           ("RNNCell", (3, 4), dict(nonlinearity="relu", bias=False)),
                           ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), dict(bias=False))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert repr(getattr(nn, name)(*args, **kw)) == \
                repr(getattr(torch.nn, name)(*args, **kw))


# ---------------------------------------------------------------- errors
def _same_error(make, call=None):
    """Build (and call) in both libraries; the exception type and text must be PyTorch's."""
    e_t, e_m = _err(lambda: make(torch)), _err(lambda: make(minigrad))
    assert e_t is not None and e_m == e_t, (e_m, e_t)


CTOR_ERRORS = [
    lambda L: L.nn.LSTM(3, 4, dropout=1.5),
    lambda L: L.nn.LSTM(3, 4, dropout=True),
    lambda L: L.nn.LSTM(3, 4, bias=1),
    lambda L: L.nn.GRU(3, 4, batch_first="yes"),
    lambda L: L.nn.RNN(3.0, 4),
    lambda L: L.nn.RNN(0, 4),
    lambda L: L.nn.RNN(3, 0),
    lambda L: L.nn.GRU(3, 4, num_layers=0),
    lambda L: L.nn.LSTM(3, 4, proj_size=-1),
    lambda L: L.nn.LSTM(3, 4, proj_size=4),
    lambda L: L.nn.GRU(3, 4, proj_size=2),
    lambda L: L.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda L: L.nn.RNN(3, 4, 1, "gelu"),
]


def test_constructor_errors_match_torch():
    for make in CTOR_ERRORS:
        _same_error(make)


def _fwd(name, args, kw, x_shape, *state_shapes, x_dtype=None):
    def run(L):
        mod = getattr(L.nn, name)(*args, **kw)
        x = L.zeros(*x_shape, dtype=x_dtype and getattr(L, x_dtype))
        states = [L.zeros(*s) for s in state_shapes]
        hx = None if not states else (tuple(states) if len(states) == 2 else states[0])
        return mod(x, hx)
    return run


FORWARD_ERRORS = [
    _fwd("LSTM", (3, 4), {}, (5, 2, 7)),                              # input.size(-1)
    _fwd("LSTM", (3, 4), {}, (5, 2, 3), (1, 3, 4), (1, 2, 4)),        # hidden[0] size
    _fwd("LSTM", (3, 4), {"proj_size": 2}, (5, 2, 3), (1, 2, 2), (1, 2, 2)),  # hidden[1] size
    _fwd("LSTM", (3, 4), {}, (5, 2, 3), (2, 4), (2, 4)),              # batched needs 3-d
    _fwd("LSTM", (3, 4), {}, (5, 3), (1, 2, 4), (1, 2, 4)),           # unbatched needs 2-d
    _fwd("GRU", (3, 4), {"num_layers": 2}, (5, 2, 3), (1, 2, 4)),     # expected hidden size
    _fwd("GRU", (3, 4), {}, (5, 2, 3), (2, 4)),
    _fwd("RNN", (3, 4), {}, (5, 3), (1, 2, 4)),
    _fwd("RNN", (3, 4), {}, (2, 5, 2, 3)),                            # 4-d input
    _fwd("GRU", (3, 4), {}, (3,)),
    _fwd("LSTM", (3, 4), {}, (1, 5, 2, 3)),
    _fwd("LSTM", (3, 4), {}, (5, 2, 3), x_dtype="float64"),           # dtype mismatch
    _fwd("LSTM", (3, 4), {}, (0, 2, 3)),                              # empty sequence
    _fwd("LSTMCell", (3, 4), {}, (2, 5)),                             # cell input size
    _fwd("LSTMCell", (3, 4), {}, (2, 3), (3, 4), (2, 4)),             # cell batch size
    _fwd("LSTMCell", (3, 4), {}, (2, 3), (2, 4), (2, 5)),             # hidden1 size
    _fwd("GRUCell", (3, 4), {}, (2, 3), (2, 5)),
    _fwd("RNNCell", (3, 4), {}, (2, 2, 3)),                           # 3-d cell input
    _fwd("RNNCell", (3, 4), {}, (2, 3), (1, 2, 4)),
    _fwd("LSTMCell", (3, 4), {}, (2, 3), (2, 4), (1, 2, 4)),
    _fwd("RNNCell", (3, 4), {"nonlinearity": "foo"}, (2, 3)),         # checked at forward
]


def test_forward_errors_match_torch():
    for run in FORWARD_ERRORS:
        _same_error(run)


def test_dropout_with_one_layer_warns_as_torch():
    with pytest.warns(UserWarning) as w_m:
        nn.GRU(3, 4, dropout=0.2)
    with pytest.warns(UserWarning) as w_t:
        torch.nn.GRU(3, 4, dropout=0.2)
    assert str(w_m[0].message) == str(w_t[0].message)
    assert "num_layers greater than 1" in str(w_m[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.GRU(3, 4, num_layers=2, dropout=0.2)


def test_autocast_bf16_result_dtypes_match_torch():
    """Under CPU autocast the projections (``linear``) run in bf16 and the rest follows type
    promotion, as in ATen's composite cells: RNN stays bf16, GRU/LSTM cells end in fp32 (the
    fp32 state enters the update); the LSTM layer is oneDNN's ``mkldnn_rnn_layer`` in torch,
    on AutocastCPU's lower-precision list: bf16 output and states."""
    import amp_emu  # noqa: F401  (minigrad.autocast)
    for name, x_shape in [("RNN", (4, 2, 3)), ("GRU", (4, 2, 3)), ("GRUCell", (2, 3)),
                          ("LSTMCell", (2, 3)), ("LSTM", (4, 2, 3))]:
        t, m = _pair(name, 3, 4)
        x = _x(*x_shape)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out_t = _flat(t(torch.tensor(x)))
        with minigrad.autocast("cpu", dtype=minigrad.bfloat16):
            out_m = _flat(m(minigrad.tensor(x)))
        assert [str(o.dtype) for o in out_m] == [str(o.dtype).replace("torch", "minigrad")
                                                 for o in out_t], name
        for a, b in zip(out_t, out_m):
            np.testing.assert_allclose(_np(b), a.double().detach().numpy(), atol=2e-2)


def _bits16(a):
    return a.detach().float().numpy().tobytes()


@pytest.mark.parametrize("name,kw", [
    ("LSTM", {}), ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(batch_first=True, bias=False)), ("LSTM", dict(proj_size=2)),
    ("GRU", dict(num_layers=2)), ("RNN", dict(bidirectional=True)),
    ("RNN", dict(nonlinearity="relu"))])
def test_autocast_bf16_outputs_bit_exact(name, kw):
    """fp32 modules under ``autocast("cpu", bfloat16)``: every output and final state has
    torch's dtype and bits (LSTM: oneDNN's 16-bit kernel as torch runs it on this CPU, or the
    composite path with a projection; GRU/RNN: the composite cells with bf16 projections).
    Gradients flow to the fp32 input and parameters (torch's come from oneDNN's backward:
    compared within bf16 rounding)."""
    import amp_emu  # noqa: F401
    if name == "LSTM" and "proj_size" not in kw and not minigrad.numerics.ONEDNN_BF16:
        pytest.skip("torch's fp32 LSTM takes oneDNN's bf16 kernel only on AVX-512 CPUs")
    t, m = _pair(name, 5, 6, **kw)
    x = _x(7, 3, 5, seed=3)
    xt, xm = _leaf(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # torch: "LSTM with projections is not supported"
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out_t = _flat(t(xt))
    with minigrad.autocast("cpu", dtype=minigrad.bfloat16):
        out_m = _flat(m(xm))
    for k, (a, b) in enumerate(zip(out_t, out_m)):
        assert str(b.dtype) == str(a.dtype).replace("torch", "minigrad"), k
        assert _bits16(b) == _bits16(a), k
    sum(o.float().sum() for o in out_t).backward()
    sum(o.float().sum() for o in out_m).backward()
    assert xm.grad.dtype is minigrad.float32
    np.testing.assert_allclose(_np(xm.grad), xt.grad.double().numpy(), rtol=0.05, atol=0.05)


def test_bf16_lstm_model_and_packed_input_take_onednns_numerics():
    """A bf16 LSTM (no autocast) and a packed input whose sequences are all as long take
    oneDNN's kernel in torch on an AVX-512 CPU: same bits; ragged packed sequences keep the
    composite path (fp32 results under autocast, as torch)."""
    import amp_emu  # noqa: F401
    if not minigrad.numerics.ONEDNN_BF16:
        pytest.skip("torch's bf16 LSTM takes oneDNN only on AVX-512 CPUs")
    t, m = _pair("LSTM", 5, 6, num_layers=2)
    x = _x(4, 3, 5, seed=4)
    tb, mb = t.bfloat16(), m.to(minigrad.bfloat16)
    out_t = _flat(tb(torch.tensor(x).bfloat16()))
    out_m = _flat(mb(minigrad.tensor(x).to(minigrad.bfloat16)))
    assert [_bits16(b) for b in out_m] == [_bits16(a) for a in out_t]
    t, m = _pair("LSTM", 5, 6)
    for lengths in ([4, 4, 4], [4, 3, 1]):
        pt = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), lengths)
        pm = nn.utils.rnn.pack_padded_sequence(minigrad.tensor(x), lengths)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            out_t = _flat(t(pt)[1]) + [t(pt)[0].data]
        with minigrad.no_grad(), minigrad.autocast("cpu", dtype=minigrad.bfloat16):
            out_m = _flat(m(pm)[1]) + [m(pm)[0].data]
        for a, b in zip(out_t, out_m):
            assert str(b.dtype) == str(a.dtype).replace("torch", "minigrad"), lengths
            if lengths[-1] == 4:
                assert _bits16(b) == _bits16(a)
            else:
                np.testing.assert_allclose(_np(b), a.double().numpy(), rtol=1e-5, atol=1e-6)


def test_autocast_fp16_lstm_raises_onednns_error_as_torch():
    """fp16 autocast on a CPU whose oneDNN has no fp16 LSTM: torch's oneDNN error."""
    import amp_emu  # noqa: F401
    if minigrad.numerics.ONEDNN_FP16:
        pytest.skip("this CPU's oneDNN has an fp16 LSTM")
    t, m = _pair("LSTM", 3, 4)
    x = _x(2, 1, 3)
    with torch.autocast("cpu", dtype=torch.float16), pytest.raises(RuntimeError) as et:
        t(torch.tensor(x))
    with minigrad.autocast("cpu", dtype=minigrad.float16), pytest.raises(RuntimeError) as em:
        m(minigrad.tensor(x))
    assert str(em.value) == str(et.value)


def test_whole_model_checkpoint_names_pytorch_path(tmp_path):
    """``minigrad.save(model)`` names ``minigrad.nn.modules.rnn.LSTM`` (torch's
    ``torch.nn.modules.rnn.LSTM``); loading it back gives the same outputs."""
    m = nn.LSTM(3, 4, num_layers=2)
    path = tmp_path / "lstm.pt"
    minigrad.save(m, path)
    with pytest.raises(Exception, match=r"minigrad\.nn\.modules\.rnn\.LSTM"):
        minigrad.load(path)
    with minigrad.serialization.safe_globals([nn.LSTM]):
        m2 = minigrad.load(path)
    x = minigrad.tensor(_x(2, 1, 3))
    np.testing.assert_array_equal(m2(x)[0].detach().numpy(), m(x)[0].detach().numpy())


@pytest.mark.parametrize("name,dtype", [("LSTM", "float16"), ("GRU", "bfloat16"),
                                        ("RNN", "float16")])
def test_16bit_bit_exact_with_torch(name, dtype):
    """fp16/bf16 modules: torch's CPU path is the composite one with each op computing in fp32
    and rounding once, as minigrad's ops do, so outputs and all gradients agree bit for bit."""
    kw = dict(num_layers=2, bidirectional=True)
    t = getattr(torch.nn, name)(3, 4, dtype=getattr(torch, dtype), **kw)
    m = getattr(nn, name)(3, 4, dtype=getattr(minigrad, dtype), **kw)
    m.load_state_dict({k: _m(v) for k, v in t.state_dict().items()})
    x = _x(4, 2, 3)
    xt = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    xm = minigrad.tensor(x).to(getattr(minigrad, dtype)).requires_grad_()
    ot, om = t(xt)[0], m(xm)[0]
    assert om.dtype is getattr(minigrad, dtype)
    ot.float().sum().backward()
    om.float().sum().backward()
    pairs = [(ot, om), (xt.grad, xm.grad)] + [(p.grad, q.grad) for p, q in
                                              zip(t.parameters(), m.parameters())]
    for a, b in pairs:
        np.testing.assert_array_equal(_np(b), a.detach().double().numpy())
