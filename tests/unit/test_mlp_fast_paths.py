"""Fast paths of the MLP step's ops give the general path's bits (and PyTorch's).

- ``loss._fold`` without a rounding step (fp32/fp64: ``np.add.accumulate``) against its Python
  loop (forced by a rounder that is the identity but not the registered one), on sums that
  cancel, overflow, hold -0.0, NaN and subnormals;
- ``loss._cascade`` (which stops at the first level holding one entry) on every length up to a
  few cascade levels, and its one-level shortcut (up to 256 entries) against the general path
  (several NaN payloads at once) and against the entry-by-entry loop;
- ``nll_loss`` of fp32/fp64 class-index targets bit for bit against torch (the loss and the
  input's gradient), with and without ignored targets;
- ``expand`` of a contiguous array (``np.ndarray`` over its buffer) against ``as_strided``;
- the bit-mask selections of ``relu`` / ``threshold_backward`` against torch, specials included;
- ``relu``'s zero row (fp32/fp64/int rows of 16+) against the 0-d zero of its general path, and
  its 16-bit ``x < 0`` test on the bits against the float comparison on every bit pattern;
- ``_log_softmax_backward_data``'s fma with ``dtype=float64`` against float64 copies;
- ``addmm`` without a mode (no dispatched ``expand`` of its input) against ``addmm`` under one.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minigrad as mg
from minigrad.ops import loss as L
from minigrad.testing import from_torch


def _slow_rounder(cd):
    return lambda a: np.asarray(a, cd)      # the identity, but not ``_EXACT``'s: the loop runs


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def _samples(cd, n, rng):
    yield rng.standard_normal(n).astype(cd)
    yield (rng.standard_normal(n) * np.finfo(cd).max / 4).astype(cd)     # overflows to inf
    yield (rng.standard_normal(n) * np.finfo(cd).tiny).astype(cd)        # subnormal sums
    v = np.full(n, -0.0, cd)
    yield v
    if n > 2:
        w = rng.standard_normal(n).astype(cd)
        w[1], w[-1] = np.nan, -0.0
        yield w


@pytest.mark.parametrize("cd", [np.float32, np.float64])
def test_fold_fast_path_matches_loop(cd):
    rng = np.random.default_rng(0)
    fast = L._rounder(mg.float32 if cd is np.float32 else mg.float64)
    slow = _slow_rounder(cd)
    with np.errstate(all="ignore"):
        for n in (0, 1, 2, 3, 16, 17, 40):
            for v in _samples(cd, n, rng):
                assert _bits(L._fold(v, fast)) == _bits(L._fold(v, slow))
                m = v[: (n // 4) * 4].reshape(-1, 4)            # column folds at once
                assert _bits(L._fold(m, fast)) == _bits(L._fold(m, slow))


@pytest.mark.parametrize("dt", [mg.float32, mg.float64])
def test_cascade_fast_path_matches_loop(dt):
    rng = np.random.default_rng(1)
    cd = dt.np
    fast, slow = L._rounder(dt), _slow_rounder(cd)
    with np.errstate(all="ignore"):
        for n in list(range(0, 36)) + [255, 256, 257, 4097]:
            for v in _samples(cd, n, rng):
                keep = np.ones(n, bool)
                assert _bits(L._cascade(v, fast, keep)) == _bits(L._cascade(v, slow, keep))


def _cascade_loop(v, cd):
    """PyTorch's nll_loss_out_frame cascade written out entry by entry (no rounding step)."""
    cd = np.dtype(cd)
    parts = [cd.type(0)] * L._LEVELS
    for b in range(len(v)):
        parts[0] = parts[0] + v[b]
        for j in range(L._LEVELS - 1):
            if b & ((L._STEP - 1) << (4 * j)):
                break
            parts[j + 1] = parts[j + 1] + parts[j]
            parts[j] = cd.type(0)
    total = cd.type(0)
    for x in parts:
        total = total + x
    return np.asarray(total, cd)   # (NumPy's scalar + picks the second NaN: NaN-free inputs)


@pytest.mark.parametrize("cd", [np.float32, np.float64])
def test_cascade_one_level_matches_general_path(cd):
    """The cascade of up to 256 entries (``_cascade_one_level``) against the general levels path
    (forced by the slow rounder) on signed zeros, several NaN payloads at once, infinities of
    both signs, subnormals and overflow; and, NaN-free, against the entry-by-entry loop."""
    rng = np.random.default_rng(3)
    dt = mg.float32 if cd is np.float32 else mg.float64
    itype = np.uint32 if cd is np.float32 else np.uint64
    payloads = np.array([0x7fc00001, 0xffc54321] if cd is np.float32 else
                        [0x7ff8000000000001, 0xfff8000000012345], itype).view(cd)
    special = np.array([np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, np.finfo(cd).smallest_subnormal,
                        np.finfo(cd).max], cd)
    with np.errstate(all="ignore"):
        for n in list(range(2, 40)) + [63, 64, 65, 127, 128, 129, 240, 241, 255, 256]:
            keep = np.ones(n, bool)
            cases = list(_samples(cd, n, rng))
            for pool in (special, np.concatenate([special, payloads])):
                for _ in range(6):
                    v = rng.standard_normal(n).astype(cd)
                    hit = rng.random(n) < 0.3
                    v[hit] = rng.choice(pool, size=int(hit.sum()))
                    cases.append(v)
            for v in cases:
                got = L._cascade(v, L._rounder(dt), keep)
                assert _bits(got) == _bits(L._cascade_one_level(v, np.dtype(cd)))
                assert _bits(got) == _bits(L._cascade(v, _slow_rounder(cd), keep))
                if not np.isnan(v).any():
                    assert _bits(got) == _bits(_cascade_loop(v, cd))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("ignore", [False, True])
def test_nll_loss_bits_match_torch(dtype, ignore):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(300, 7, dtype=dtype, generator=g)
    t = torch.randint(0, 7, (300,), generator=g)
    if ignore:
        t[::5] = -100
    for reduction in ("mean", "sum"):
        xt = x.clone().requires_grad_(True)
        ref = TF.nll_loss(xt, t, reduction=reduction)
        ref.backward()
        xm = from_torch(x).requires_grad_(True)
        out = mg.nn.functional.nll_loss(xm, from_torch(t), reduction=reduction)
        out.backward()
        assert out.detach().numpy().tobytes() == ref.detach().numpy().tobytes(), reduction
        assert xm.grad.numpy().tobytes() == xt.grad.numpy().tobytes(), reduction


@pytest.mark.parametrize("npd", [np.float32, np.float16, mg.bfloat16.np, np.int64, np.bool_])
@pytest.mark.parametrize("shape, size", [((5,), (3, 5)), ((1, 4), (2, 3, 4)), ((3, 1), (3, -1)),
                                         ((0,), (2, 0)), ((), (2, 2)), ((2, 1, 3), (2, 4, 3))])
def test_expand_fast_path_is_as_strided_view(npd, shape, size):
    """``expand`` of a contiguous array (built with ``np.ndarray`` over its buffer) gives the
    view ``as_strided`` gives a non-contiguous one: shape, strides, values, writability, owner."""
    from minigrad.storage_accounting import root_of
    base = np.arange(int(np.prod(shape)), dtype=np.int64).astype(npd).reshape(shape)
    for readonly in (False, True):
        a = base.copy()
        a.flags.writeable = not readonly
        fast = mg.Tensor._make(a).expand(*size)._data
        strided = np.lib.stride_tricks.as_strided(
            a, fast.shape, fast.strides, writeable=not readonly)
        ref = torch.from_numpy(np.ascontiguousarray(base.astype(np.float32))).expand(*size)
        assert fast.shape == tuple(ref.shape) == strided.shape
        assert fast.strides == strided.strides
        assert fast.tobytes() == strided.tobytes()
        assert fast.flags.writeable == (not readonly) and root_of(fast) is a


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_relu_and_threshold_backward_bits_match_torch(dtype):
    """The bit-mask selections of ``relu`` and ``threshold_backward`` against torch's kernels,
    specials (nan, +-inf, -0.0, subnormals) in both operands, and a broadcast ``self``."""
    specials = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-40, -1e-40,
                             1.5, -2.5], dtype=torch.float64)
    g = torch.Generator().manual_seed(3)
    s = torch.cat([specials, torch.randn(5000, generator=g, dtype=torch.float64)]).to(dtype)
    gr = torch.cat([specials.flip(0),
                    torch.randn(5000, generator=g, dtype=torch.float64)]).to(dtype)
    ms, mg_ = from_torch(s), from_torch(gr)
    assert _bits(mg.relu(ms)._data) == _bits(from_torch(torch.relu(s))._data)
    for th in (0.0, 0.5):
        ref = torch.ops.aten.threshold_backward(gr, s, th)
        out = mg.dispatch.dispatch("threshold_backward", mg_, ms, th)
        assert _bits(out._data) == _bits(from_torch(ref)._data), th
    col = s[:7].reshape(7, 1)
    ref = torch.ops.aten.threshold_backward(gr[:28].reshape(7, 4), col, 0.0)
    out = mg.dispatch.dispatch("threshold_backward", from_torch(gr[:28].reshape(7, 4)),
                               from_torch(col), 0.0)
    assert _bits(out._data) == _bits(from_torch(ref)._data)


@pytest.mark.parametrize("npd", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape, layout", [((5009,), "C"), ((3, 17), "C"), ((4, 16), "C"),
                                           ((2, 3, 40), "C"), ((6, 15), "C"), ((40, 20), "F"),
                                           ((20, 40), "strided"), ((), "C"), ((0, 32), "C")])
def test_relu_zero_row_same_bits_as_zero_scalar(npd, shape, layout):
    """``relu``'s kernel (a zero row broadcast over a C-contiguous input with rows of 16 or
    more) gives what ``np.maximum`` against a 0-d zero gives: the same bits (NaN payloads of
    both signs, +-0.0, +-inf, subnormals at every position of a row, so the vectorised loop's
    body and tail both see them), dtype, shape and strides."""
    from minigrad.ops.activation import Relu
    rng = np.random.default_rng(5)
    n = int(np.prod(shape))
    full = n * (2 if layout == "strided" else 1)
    if np.dtype(npd).kind == "f":
        bits = np.uint64 if np.dtype(npd).itemsize == 8 else np.uint32
        v = (rng.standard_normal(full) * 3).astype(npd)
        f = np.finfo(npd)
        special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, f.tiny / 4,
                            -f.tiny / 4, f.max, -f.max], npd)
        special = np.concatenate([special, (special[:2].view(bits) | bits(5)).view(npd)])
        v[rng.integers(0, full, size=full // 3)] = rng.choice(special, size=full // 3)
    else:
        v = rng.integers(-1000, 1000, size=full).astype(npd)
    if layout == "strided":
        d = v.reshape(shape[0], -1)[:, ::2]
    elif layout == "F":
        d = v.reshape(shape[::-1]).T
    else:
        d = v.reshape(shape)
    got = Relu.kernel(None, d)
    want = np.maximum(np.zeros((), d.dtype), d)
    assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("npd", [np.float16, "bfloat16"])
def test_16bit_negative_test_on_bits_is_the_float_comparison(npd):
    """``activation._sign_test(d, strict=True)`` (one wrapping subtract and one comparison of
    the bits) is ``d < 0`` compared as floats, on every 16-bit pattern (NaNs and -0.0
    included), contiguous and not."""
    from minigrad.ops.activation import _sign_test
    dt = mg.bfloat16.np if npd == "bfloat16" else np.dtype(npd)
    d = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dt)
    want = d.astype(np.float32) < 0
    assert np.array_equal(_sign_test(d, strict=True), want)
    assert np.array_equal(_sign_test(d.reshape(256, 256).T, strict=True),
                          want.reshape(256, 256).T)


@pytest.mark.parametrize("shape", [(32, 10), (5, 3), (7,), (), (4, 0), (3, 17)])
def test_log_softmax_backward_fma_same_bits_as_round_to_odd_on_every_element(shape):
    """``_log_softmax_backward_data``'s last-dim fma (``numerics.fma32(..., subtract=True)``,
    which sends only halfway candidates through round-to-odd) against round-to-odd on every
    element (``numerics._fma32_exact``) of float64 copies of the operands; specials (NaN signs
    included: ``g - p`` as the kernel computes it) and a non-contiguous gradient included.
    (Against torch: tests/unit/test_shape_linalg_nn_ops.py's halfway test; torch's SLEEF exp
    differs from NumPy's by an ulp on random inputs.)"""
    from minigrad.dispatch import dispatch
    from minigrad import numerics as nx
    rng = np.random.default_rng(4)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 3e38, -3e38], np.float32)
    y = (rng.standard_normal(shape) * 3).astype(np.float32)
    g = rng.standard_normal(tuple(shape[:-1]) + (2 * shape[-1],) if shape else ()).astype(
        np.float32)
    g = g[..., ::2] if shape else g                      # non-contiguous
    if y.size:
        y.reshape(-1)[:: 3] = rng.choice(special, size=y.reshape(-1)[::3].size)
        g.reshape(-1)[:1] = np.nan
    with np.errstate(all="ignore"):
        got = dispatch("_log_softmax_backward_data", mg.tensor(g), mg.tensor(y),
                       len(shape) - 1 if shape else 0, mg.float32).numpy()
        if y.size:
            s = nx.reduce_all(g, kernel="log_softmax_backward_lastdim") if shape else g
        else:
            s = np.add.reduce(g, axis=-1, keepdims=True)
        g64 = g.astype(np.float64)
        p = np.exp(y).astype(np.float64) * np.asarray(s).astype(np.float64)
        want = nx._fma32_exact(np.broadcast_to(-p, g.shape), g64, g64 - p)
    assert _bits(got) == _bits(want)


@pytest.mark.parametrize("bias_shape", [(5,), (1, 5), (3, 1), (1,), ()])
def test_addmm_without_modes_skips_the_expand_with_the_same_result(bias_shape):
    """``addmm`` dispatches its input's ``expand`` only while a mode is pushed (PyTorch's
    kernel dispatches it: the profiler counts ``aten::expand``); without one a shape check
    stands in. Both give the same bits, node and gradients, and the same error for a bias
    that does not broadcast."""
    from minigrad.dispatch import DispatchMode

    class Names(DispatchMode):
        def __init__(self):
            self.names = []

        def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
            self.names.append(op_name)
            return call_next(args, kwargs)

    def run(mode):
        b = mg.tensor(rng.standard_normal(bias_shape).astype(np.float32), requires_grad=True)
        x = mg.tensor(rng.standard_normal((3, 4)).astype(np.float32))
        w = mg.tensor(rng.standard_normal((4, 5)).astype(np.float32), requires_grad=True)
        if mode is None:
            out = mg.addmm(b, x, w)
        else:
            with mode:
                out = mg.addmm(b, x, w)
        out.sum().backward()
        return out, b.grad, w.grad

    rng = np.random.default_rng(1)
    plain = run(None)
    rng = np.random.default_rng(1)
    names = Names()
    seen = run(names)
    assert ("expand" in names.names) == (bias_shape != (3, 5))
    assert type(plain[0].grad_fn).__name__ == type(seen[0].grad_fn).__name__ == "AddmmBackward0"
    for a, b in zip(plain, seen):
        assert _bits(a.detach().numpy()) == _bits(b.detach().numpy())
    bad = mg.zeros(4)
    msgs = []
    for mode in (None, Names()):
        with pytest.raises(RuntimeError) as e:
            if mode is None:
                mg.addmm(bad, mg.zeros(3, 4), mg.zeros(4, 5))
            else:
                with mode:
                    mg.addmm(bad, mg.zeros(3, 4), mg.zeros(4, 5))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("subtract", [False, True])
def test_fma32_few_suspects_python_floats_match_numpy_path(subtract, monkeypatch):
    """``fma32``'s suspects (float64 sums on an fp32 halfway point) go through round-to-odd
    with Python floats when there are few (``numerics.FMA32_FEW``), else through NumPy
    (``_fma32_exact``): both paths equal round-to-odd on every element, on constructed ties
    (half of them false ties that one rounding must break away from even), subnormal ties, and
    NaN / inf operands."""
    from minigrad import numerics as nx
    from tests.unit.test_foreach_kernels import TIE_CASES, _tie_operands
    if not nx.HAS_FMA:
        pytest.skip("no fma in this build: fma32 rounds twice by design")
    for above, j, sub in TIE_CASES:
        y, x, alpha = _tie_operands(40, above, j, sub, seed=11)
        x[5], y[7], x[9] = np.nan, np.inf, -np.inf
        a = np.float32(-alpha if subtract else alpha)
        p = x.astype(np.float64) * np.float64(a)
        y64 = y.astype(np.float64)
        with np.errstate(all="ignore"):
            want = nx._fma32_exact(-p if subtract else p, y64, y64 - p if subtract else p + y64)
            got = []
            for few in (nx.FMA32_FEW, 0):
                monkeypatch.setattr(nx, "FMA32_FEW", few)
                got.append(nx.fma32(x, a, y, subtract=subtract))
        for g in got:
            assert g.view(np.uint32).tolist() == want.view(np.uint32).tolist(), (above, j, sub)


@pytest.mark.parametrize("subtract", [False, True])
def test_fma32_power_of_two_factor_matches_float64_emulation(subtract, monkeypatch):
    """``fma32`` with a small ``y`` of powers of two (``numerics._fma32_pow2``: the product is
    exact, one fp32 add) against the float64 emulation (the shortcut off) and round-to-odd on
    every element: plain data (where the shortcut applies), products near fp32's smallest
    normal, subnormal, zero, overflowing, NaN/inf operands, NaN payloads and signed zeros in
    ``z`` (where it applies or declines), and a ``y`` that is not all powers of two."""
    from minigrad import numerics as nx
    if not nx.HAS_FMA:
        pytest.skip("no fma in this build: fma32 rounds twice by design")
    rng = np.random.default_rng(12)
    f = np.float32
    x = rng.standard_normal((32, 10)).astype(f)
    z = rng.standard_normal((32, 10)).astype(f)
    z[0, :4] = (np.nan, -0.0, 0.0, np.inf)
    z.view(np.uint32)[1, 0] = 0x7FC01234                     # a NaN payload
    z[2] = -x[2] * f(-0.5 if subtract else 0.5)               # exact cancellations: signed zeros
    y = (-2.0 ** rng.integers(-8, 8, (32, 1))).astype(f)
    y[2] = 0.5
    cases = [(x, y, z, True), (np.asfortranarray(x), y, np.asfortranarray(z), True),
             (np.asfortranarray(x), y, z, True)]
    # (x[3, 0], y[3]): a product that loses bits below 2**-126, one rounding up to 2**-126,
    # one exactly 2**-126, one overflowing, zero, NaN, inf
    for xv, yv in ((1 + 2.0 ** -23, 2.0 ** -130), ((2 - 2.0 ** -23) * 2.0 ** -100, 2.0 ** -27),
                   (1.0, 2.0 ** -126), (3e38, 4.0), (0.0, 1.0), (np.nan, 1.0), (np.inf, 1.0)):
        xe, ye = x.copy(), y.copy()
        xe[3, 0], ye[3] = xv, yv
        cases.append((xe, ye, z, False))
    y3 = y.copy()
    y3[5] = 0.75                                              # not a power of two
    cases.append((x, y3, z, False))
    for xc, yc, zc, applies in cases:
        with np.errstate(all="ignore"):
            assert (nx._fma32_pow2(xc, yc, zc, subtract) is not None) == applies
        p = xc.astype(np.float64) * yc.astype(np.float64)
        z64 = zc.astype(np.float64)
        with np.errstate(all="ignore"):
            want = nx._fma32_exact(-p if subtract else p, z64, z64 - p if subtract else p + z64)
            got = [nx.fma32(xc, yc, zc, subtract=subtract)]
            monkeypatch.setattr(nx, "_POW2_MAX", 0)
            got.append(nx.fma32(xc, yc, zc, subtract=subtract))
            monkeypatch.undo()
        assert got[0].strides == got[1].strides         # the same layout as the emulation's
        for g in got:
            assert g.view(np.uint32).tolist() == want.view(np.uint32).tolist(), applies
    for xs, ys in (((5, 0), (5, 1)), ((5, 0), (5, 0))):      # no element: the emulation's
        e = nx.fma32(np.zeros(xs, f), np.ones(ys, f), np.zeros(xs, f), subtract=subtract)
        assert e.shape == xs and e.dtype == np.float32


@pytest.mark.parametrize("ignore_index", [-100, 0, 3, 6, 7, 50])
def test_nll_loss_nothing_ignored_shortcut_matches_torch(ignore_index):
    """``_nll_prepare``'s first test (every target a class, ``ignore_index`` outside the
    targets' [min, max]: nothing ignored, the kept all-True mask) and its general path (an
    ``ignore_index`` between min and max, met or not) against torch: loss and gradient for
    every reduction, and the out-of-bounds error of a bad target."""
    g = torch.Generator().manual_seed(5)
    x = torch.randn(32, 7, generator=g)
    for t in (torch.randint(1, 6, (32,), generator=g), torch.randint(0, 7, (32,), generator=g)):
        for reduction in ("mean", "sum", "none"):
            xt = x.clone().requires_grad_(True)
            ref = TF.nll_loss(xt, t, ignore_index=ignore_index, reduction=reduction)
            ref.sum().backward()
            xm = from_torch(x).requires_grad_(True)
            out = mg.nn.functional.nll_loss(xm, from_torch(t), ignore_index=ignore_index,
                                            reduction=reduction)
            out.sum().backward()
            assert out.detach().numpy().tobytes() == ref.detach().numpy().tobytes()
            assert xm.grad.numpy().tobytes() == xt.grad.numpy().tobytes()
    bad = torch.randint(0, 7, (32,), generator=g)
    bad[3] = 9
    if ignore_index != 9:
        with pytest.raises(IndexError, match="Target 9 is out of bounds."):
            mg.nn.functional.nll_loss(from_torch(x), from_torch(bad), ignore_index=ignore_index)
