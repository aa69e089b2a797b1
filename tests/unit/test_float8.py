"""The float8 storage dtypes against PyTorch 2.13 CPU, run side by side (issue 9, "More formats").

Casts are compared bit for bit on every fp16 and bf16 value, a few hundred thousand random fp32
bit patterns (all NaN payloads, subnormals, ties, overflow), every byte of each format, and
float64/int sources; the refusals (arithmetic, promotion) compare exception types and messages.
"""
import math

import ml_dtypes
import numpy as np
from tests.torch_platform import NOT_ONEDNN_FP8, TORCH_ONEDNN_FP8
import pytest
import torch

import minigrad
from minigrad.testing import from_torch, to_torch

NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]
_RNG = np.random.default_rng(9)
_F32_BITS = np.concatenate([
    _RNG.integers(0, 2 ** 32, 60_000, dtype=np.uint64).astype(np.uint32),
    np.arange(2 ** 16, dtype=np.uint16).view(np.float16).astype(np.float32).view(np.uint32),
    np.arange(2 ** 16, dtype=np.uint32) << 16,                  # every bfloat16 value
    np.array([0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x43e00000,
              0x43e80000, 0x43f00000, 0x47600000, 0x47700000], dtype=np.uint32)])
_F32 = _F32_BITS.view(np.float32)
_ALL_BYTES = np.arange(256, dtype=np.uint8)


def _bytes(t):
    if isinstance(t, torch.Tensor):
        return t.contiguous().view(torch.uint8).numpy().reshape(-1)
    return t.contiguous().view(minigrad.uint8).numpy().reshape(-1)


def _raises_same(f_torch, f_ours):
    with pytest.raises(Exception) as et:
        f_torch()
    with pytest.raises(Exception) as eo:
        f_ours()
    assert type(et.value) is type(eo.value) and str(et.value) == str(eo.value), \
        (et.value, eo.value)


@pytest.mark.parametrize("name", NAMES)
def test_casts_from_float32_bit_exact(name):
    td, md = getattr(torch, name), getattr(minigrad, name)
    want = _bytes(torch.from_numpy(_F32).to(td))
    got = _bytes(minigrad.tensor(_F32).to(md))
    assert np.array_equal(got, want), np.flatnonzero(got != want)[:10]
    # ml_dtypes agrees wherever PyTorch does not saturate / pick its NaN bytes
    if name.endswith("fnuz"):
        with np.errstate(invalid="ignore"):
            ref = _F32.astype(getattr(ml_dtypes, name)).view(np.uint8)
        assert np.array_equal(got, ref)


def test_e4m3fn_saturates_and_e5m2_nan_bytes():
    """PyTorch's rules that differ from ml_dtypes' astype, from maths: e4m3fn overflow and inf
    become +-448, e5m2 NaN becomes 0x7f/0xff."""
    x = minigrad.tensor([500., math.inf, -math.inf, 464., 463.9, -1e30, math.nan])
    assert _bytes(x.to(minigrad.float8_e4m3fn)).tolist() == [0x7e, 0x7e, 0xfe, 0x7e, 0x7e,
                                                            0xfe, 0x7f]
    assert _bytes(minigrad.tensor([math.nan, -math.nan]).to(minigrad.float8_e5m2)).tolist() \
        == [0x7f, 0xff]
    assert _bytes(minigrad.tensor([-0.0, 1e9]).to(minigrad.float8_e4m3fnuz)).tolist() == \
        [0, 0x80]


@pytest.mark.parametrize("name", NAMES)
def test_casts_from_float8_to_every_dtype(name):
    td, md = getattr(torch, name), getattr(minigrad, name)
    src_t = torch.from_numpy(_ALL_BYTES.copy()).view(td)
    src = minigrad.tensor(_ALL_BYTES).view(md)
    finite = src_t.float().isfinite()
    for dname in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16",
                  "int8", "uint8", "bool", *NAMES):
        want, got = src_t.to(getattr(torch, dname)), src.to(getattr(minigrad, dname))
        if not want.is_floating_point():
            want, got = want[finite], to_torch(got)[finite]
            assert torch.equal(got, want), dname
            continue
        wb, gb = want.view(torch.uint8), to_torch(got).view(torch.uint8)
        assert torch.equal(wb, gb), (name, dname)
    assert np.array_equal(src.float().numpy().view(np.uint32),
                          src_t.float().numpy().view(np.uint32))


@pytest.mark.parametrize("name", NAMES)
def test_casts_into_float8_from_float64_float16_bfloat16_int(name):
    td, md = getattr(torch, name), getattr(minigrad, name)
    f64 = _RNG.standard_normal(20_000) * 10.0 ** _RNG.integers(-9, 7, 20_000)
    ints = np.concatenate([np.arange(-600, 600), _RNG.integers(-2 ** 40, 2 ** 40, 2000)])
    for arr in (f64, ints):
        assert np.array_equal(_bytes(minigrad.tensor(arr).to(md)),
                              _bytes(torch.from_numpy(arr).to(td)))
    for half in ("float16", "bfloat16"):
        x = torch.from_numpy(_F32[:70_000]).to(getattr(torch, half))
        assert np.array_equal(_bytes(from_torch(x).to(md)), _bytes(x.to(td)))
    py = [0.1, -2.7, 1e-4, 300.0, 3e38, -0.0]
    assert np.array_equal(_bytes(minigrad.tensor(py, dtype=md)), _bytes(torch.tensor(py,
                                                                                   dtype=td)))


@pytest.mark.parametrize("name", NAMES)
def test_factories_fill_and_scalar_overflow(name):
    td, md = getattr(torch, name), getattr(minigrad, name)
    for v in (0.3, -1.7, 200.0, 1e-5, math.nan, 57344.0):
        if v > torch.finfo(td).max:
            continue
        assert np.array_equal(_bytes(minigrad.full((3,), v, dtype=md)),
                              _bytes(torch.full((3,), v, dtype=td)))
        assert np.array_equal(_bytes(minigrad.zeros(4, dtype=md).fill_(v)),
                              _bytes(torch.zeros(4, dtype=td).fill_(v)))
    assert _bytes(minigrad.ones(2, 3, dtype=md)).tolist() == _bytes(torch.ones(2, 3,
                                                                            dtype=td)).tolist()
    assert _bytes(minigrad.zeros(2, dtype=md)).tolist() == [0, 0]
    assert minigrad.empty(2, 2, dtype=md).dtype is md
    for v in (torch.finfo(td).max * 1.01, math.inf):
        for shape in ((), (1,), (1, 1)):        # one element: a plain cast, no range check
            assert np.array_equal(_bytes(minigrad.full(shape, v, dtype=md)),
                                  _bytes(torch.full(shape, v, dtype=td)))
            assert np.array_equal(_bytes(minigrad.zeros(shape, dtype=md).fill_(v)),
                                  _bytes(torch.zeros(shape, dtype=td).fill_(v)))
        try:
            torch.full((2,), v, dtype=td)
        except RuntimeError:
            _raises_same(lambda: torch.full((2,), v, dtype=td),
                         lambda: minigrad.full((2,), v, dtype=md))
        else:
            assert np.array_equal(_bytes(minigrad.full((2,), v, dtype=md)),
                                  _bytes(torch.full((2,), v, dtype=td)))


@pytest.mark.parametrize("name", NAMES)
def test_dtype_facts_finfo_and_repr(name):
    td, md = getattr(torch, name), getattr(minigrad, name)
    fi, ft = minigrad.finfo(md), torch.finfo(td)
    for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(fi, k) == getattr(ft, k), k
    assert repr(fi) == repr(ft)
    assert md.is_floating_point and md.is_signed and md.itemsize == td.itemsize == 1
    assert minigrad.dtypes.as_dtype(td) is md and minigrad.dtypes.as_dtype(name) is md
    vals = [[0.1, -2.5, 448.0 if "e4m3fn" == name[7:] else 40.0], [1e-3, 0.0, -0.0]]
    t, m = torch.tensor(vals, dtype=td), minigrad.tensor(vals, dtype=md)
    assert repr(m).replace("minigrad.", "torch.") == repr(t)
    assert repr(m[0, 1]).replace("minigrad.", "torch.") == repr(t[0, 1])
    assert m.element_size() == 1 and m.is_floating_point() and m.tolist() == t.tolist()
    assert m[0, 1].item() == t[0, 1].item()


@pytest.mark.parametrize("name", NAMES)
def test_views_and_data_movement(name):
    td, md = getattr(torch, name), getattr(minigrad, name)
    b = _RNG.integers(0, 256, 24).astype(np.uint8)
    t, m = torch.from_numpy(b.copy()).view(td).reshape(4, 6), minigrad.tensor(b).view(md) \
        .reshape(4, 6)
    assert m.dtype is md and m.view(minigrad.uint8).dtype is minigrad.uint8
    cases = [lambda x: x[1:3, ::2], lambda x: x.t().contiguous(), lambda x: x.clone(),
             lambda x: x.reshape(3, 8), lambda x: x[x[:, 0] == x[:, 0]] if False else x[2],
             lambda x: (torch if isinstance(x, torch.Tensor) else minigrad).cat([x, x], 1),
             lambda x: x.abs(), lambda x: x.flatten().repeat(3).abs()]
    for f in cases:
        assert np.array_equal(_bytes(f(m).contiguous()), _bytes(f(t).contiguous()))
    assert torch.equal(to_torch(m == m), t == t) and torch.equal(to_torch(m != m), t != t)
    assert torch.equal(to_torch(m == 1.0), t == 1.0)
    assert torch.equal(to_torch(m.isnan()), t.isnan())
    r = m.clone().requires_grad_()
    assert r.requires_grad and r.dtype is md


@pytest.mark.parametrize("name", NAMES)
def test_mul_of_two_float8_tensors(name):
    """PyTorch's CPU mul takes two float8 tensors (fp32 product, one rounding)."""
    td, md = getattr(torch, name), getattr(minigrad, name)
    a, b = np.repeat(_ALL_BYTES, 256), np.tile(_ALL_BYTES, 256)
    ta, tb = torch.from_numpy(a).view(td), torch.from_numpy(b).view(td)
    ma, mb = minigrad.tensor(a).view(md), minigrad.tensor(b).view(md)
    want, got = _bytes(ta * tb), _bytes(ma * mb)
    both_nan = np.isnan(ta.float().numpy()) & np.isnan(tb.float().numpy())
    assert np.array_equal(got[~both_nan], want[~both_nan])
    assert np.isnan(np.asarray((ma * mb)._data[both_nan], np.float32)).all()


_REFUSED = [
    ("add", lambda T, x: x + x), ("add scalar", lambda T, x: x + 1), ("sub", lambda T, x: x - x),
    ("rsub", lambda T, x: 1 - x), ("mul scalar", lambda T, x: x * 2),
    ("mul 0-dim", lambda T, x: x * x[0]), ("div", lambda T, x: x / x),
    ("div scalar", lambda T, x: x / 2),
    ("div floor", lambda T, x: T.div(x, x, rounding_mode="floor")),
    ("neg", lambda T, x: -x), ("exp", lambda T, x: x.exp()), ("sqrt", lambda T, x: x.sqrt()),
    ("sigmoid", lambda T, x: x.sigmoid()), ("relu", lambda T, x: x.relu()),
    ("gelu", lambda T, x: T.nn.functional.gelu(x)), ("pow", lambda T, x: x ** 2),
    ("maximum", lambda T, x: T.maximum(x, x)), ("lt", lambda T, x: x < x),
    ("ge scalar", lambda T, x: x >= 1), ("clamp", lambda T, x: x.clamp(0, 1)),
    ("clamp max", lambda T, x: x.clamp(max=1)), ("sign", lambda T, x: x.sign()),
    ("sum", lambda T, x: x.sum()), ("sum dim", lambda T, x: x.sum(0)),
    ("mean", lambda T, x: x.mean()), ("max", lambda T, x: x.max()),
    ("max dim", lambda T, x: x.max(0)), ("min", lambda T, x: x.min()),
    ("amax", lambda T, x: x.amax()), ("argmax", lambda T, x: x.argmax()),
    ("prod", lambda T, x: x.prod()), ("promote float", lambda T, x: x + T.ones(2)),
    ("promote float8", lambda T, x: x == x.to(T.float8_e5m2)),
    ("promote_types", lambda T, x: T.promote_types(x.dtype, T.int64)),
    ("hardtanh", lambda T, x: T.nn.functional.hardtanh(x)),
    ("softplus", lambda T, x: T.nn.functional.softplus(x)),
]


@pytest.mark.parametrize("case", _REFUSED, ids=[c[0] for c in _REFUSED])
def test_refusals_match_torch(case):
    _, f = case
    _raises_same(lambda: f(torch, torch.tensor([1.0, 2.0], dtype=torch.float8_e4m3fn)),
                 lambda: f(minigrad, minigrad.tensor([1.0, 2.0], dtype=minigrad.float8_e4m3fn)))


def test_allowed_ops_and_upcast_reductions():
    x, t = (minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float8_e5m2),
            torch.tensor([1.0, 2.0, 3.0], dtype=torch.float8_e5m2))
    assert x.sum(dtype=minigrad.float32).item() == t.sum(dtype=torch.float32).item()
    assert x.float().mean().item() == t.float().mean().item()
    w = minigrad.where(x == 2.0, x, minigrad.zeros(3, dtype=minigrad.float8_e5m2))
    assert w.dtype is minigrad.float8_e5m2 and w.tolist() == [0.0, 2.0, 0.0]
    g = minigrad.tensor([1.5, -2.0], requires_grad=True)
    g.to(minigrad.float8_e4m3fn).float().sum().backward()
    assert g.grad.tolist() == [1.0, 1.0]


# ---------------------------------------------------------------------------------- _scaled_mm
def _f8_pair(m, k, n, name_a="float8_e4m3fn", name_b="float8_e4m3fn", exact=True, seed=0):
    """torch and minigrad float8 operands; ``exact``: values in [0.5, 8) so every fp32 partial
    sum is exact (any summation order gives the same bits)."""
    rng = np.random.default_rng(seed)
    def draw(shape):
        v = rng.uniform(0.5, 8.0, shape) * rng.choice([-1, 1], shape) if exact else \
            rng.standard_normal(shape) * 3
        return v.astype(np.float32)
    a, b = draw((m, k)), draw((n, k)).T           # mat2 column-major, as cuBLAS wants
    ta = torch.from_numpy(a).to(getattr(torch, name_a))
    tb = torch.from_numpy(np.ascontiguousarray(b.T)).to(getattr(torch, name_b)).t()
    return ta, tb, from_torch(ta), from_torch(tb.contiguous())


def _smm(lib, a, b, sa, sb, **kw):
    if "bias" in kw and kw["bias"] is not None and lib is minigrad:
        kw["bias"] = from_torch(kw["bias"])
    s = (torch.tensor(sa), torch.tensor(sb)) if lib is torch else (minigrad.tensor(sa),
                                                                   minigrad.tensor(sb))
    return lib._scaled_mm(a, b, *s, **kw)


@pytest.mark.skipif(not TORCH_ONEDNN_FP8, reason=NOT_ONEDNN_FP8)
@pytest.mark.parametrize("out", [None, "float32", "bfloat16", "float16", "float8_e5m2"])
def test_scaled_mm_matches_torch_bit_for_bit(out):
    ta, tb, ma, mb = _f8_pair(5, 12, 7)
    bias = torch.randn(7, generator=torch.Generator().manual_seed(1))
    for sa, sb, with_bias in ((0.5, 4.0, False), (0.37, 1.9, True), (30.0, 1.0, False)):
        kw = {"out_dtype": None if out is None else getattr(torch, out)}
        if with_bias:
            kw["bias"] = bias
        want = _smm(torch, ta, tb, sa, sb, **kw)
        kw["out_dtype"] = None if out is None else getattr(minigrad, out)
        got = _smm(minigrad, ma, mb, sa, sb, **kw)
        assert got.dtype.name == str(want.dtype)[6:]
        assert np.array_equal(_bytes(got.contiguous()).reshape(-1),
                              want.contiguous().view(torch.uint8).numpy().reshape(-1)), (sa, sb)


@pytest.mark.skipif(not TORCH_ONEDNN_FP8, reason=NOT_ONEDNN_FP8)
def test_scaled_mm_paths_rowwise_and_general_values():
    # e4m3fn output overflows to NaN on the oneDNN path (no saturation), saturates on the
    # mixed-dtype fallback; row-wise scales
    ta, tb, ma, mb = _f8_pair(4, 8, 6)
    for sa in (100.0, 3.0):
        assert np.array_equal(_bytes(_smm(minigrad, ma, mb, sa, 1.0)),
                              _bytes(_smm(torch, ta, tb, sa, 1.0)))
    ta5, _, ma5, _ = _f8_pair(4, 8, 6, name_a="float8_e5m2")
    for out in (None, "float8_e4m3fn"):
        want = _smm(torch, ta5, tb, 40.0, 1.0, out_dtype=out and getattr(torch, out))
        got = _smm(minigrad, ma5, mb, 40.0, 1.0, out_dtype=out and getattr(minigrad, out))
        assert np.array_equal(_bytes(got), _bytes(want))
    ra = np.linspace(0.5, 2, 4, dtype=np.float32).reshape(4, 1)
    rb = np.linspace(1, 3, 6, dtype=np.float32).reshape(1, 6)
    want = torch._scaled_mm(ta, tb, torch.from_numpy(ra), torch.from_numpy(rb),
                            out_dtype=torch.float32)
    got = minigrad._scaled_mm(ma, mb, minigrad.tensor(ra), minigrad.tensor(rb),
                              out_dtype=minigrad.float32)
    # (row-wise: oneDNN's summation order is not reproduced, see minigrad/ops/scaled_mm.py)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=0)
    # general values, rounding partial sums: oneDNN's order reproduced bit for bit
    ta, tb, ma, mb = _f8_pair(16, 100, 8, exact=False, seed=3)
    bias = torch.randn(8, generator=torch.Generator().manual_seed(2))
    for out in ("float32", "float8_e4m3fn"):
        want = _smm(torch, ta, tb, 0.1, 0.7, out_dtype=getattr(torch, out), bias=bias)
        got = _smm(minigrad, ma, mb, 0.1, 0.7, out_dtype=getattr(minigrad, out), bias=bias)
        assert np.array_equal(_bytes(got), _bytes(want)), out


_SMM_ERRORS = [
    ("a float32", lambda L, a, b, s: L._scaled_mm(a.float(), b, s, s)),
    ("both float32", lambda L, a, b, s: L._scaled_mm(a.float(), b.float(), s, s)),
    ("both float16", lambda L, a, b, s: L._scaled_mm(a.half(), b.half(), s, s)),
    ("bfloat16 and float16", lambda L, a, b, s: L._scaled_mm(a.bfloat16(), b.half(), s, s)),
    ("scale two elements", lambda L, a, b, s: L._scaled_mm(a, b, L.ones(2), s)),
    ("row-wise wrong shape", lambda L, a, b, s: L._scaled_mm(a, b, L.ones(4, 1), L.ones(4, 1))),
    ("mat1 3-d", lambda L, a, b, s: L._scaled_mm(a[None], b, s, s)),
    ("mat2 1-d", lambda L, a, b, s: L._scaled_mm(a, b[0], s, s)),
    ("shapes", lambda L, a, b, s: L._scaled_mm(a, b[:4], s, s)),
    ("bias size", lambda L, a, b, s: L._scaled_mm(a, b, s, s, bias=L.zeros(5))),
    ("out float64", lambda L, a, b, s: L._scaled_mm(a, b, s, s, out_dtype=L.float64)),
    ("out int", lambda L, a, b, s: L._scaled_mm(a, b, s, s, out_dtype=L.int32)),
    ("fnuz", lambda L, a, b, s: L._scaled_mm(a.float().to(L.float8_e4m3fnuz),
                                             b.float().to(L.float8_e4m3fnuz), s, s)),
    ("scale not a tensor", lambda L, a, b, s: L._scaled_mm(a, b, 1.0, s)),
]


@pytest.mark.parametrize("case", _SMM_ERRORS, ids=[c[0] for c in _SMM_ERRORS])
def test_scaled_mm_errors_match_torch(case):
    """The same exception (type and message) as torch's on this CPU's path, or, where torch's
    path accepts the call (the emulated path takes any output dtype and the fnuz formats), the
    same values (exact operands: any summation order gives the same bits)."""
    _, f = case
    ta, tb, ma, mb = _f8_pair(4, 8, 6)
    try:
        want = f(torch, ta, tb, torch.tensor(1.0))
    except Exception:
        _raises_same(lambda: f(torch, ta, tb, torch.tensor(1.0)),
                     lambda: f(minigrad, ma, mb, minigrad.tensor(1.0)))
        return
    got = f(minigrad, ma, mb, minigrad.tensor(1.0))
    assert got.dtype.name == str(want.dtype)[6:]
    assert np.array_equal(got.float().numpy() if got.dtype.is_floating_point else got.numpy(),
                          want.float().numpy() if want.dtype.is_floating_point else want.numpy())


@pytest.mark.skipif(TORCH_ONEDNN_FP8, reason="torch takes oneDNN's path on this CPU (AMX-INT8)")
@pytest.mark.parametrize("out", [None, "float32", "bfloat16", "float16", "float8_e4m3fn",
                                 "float8_e5m2", "float64"])
def test_scaled_mm_emulated_path_matches_torch(out):
    """ATen's emulated path (CPUs without AMX-INT8): the operands times their scales, an fp32
    mm, the bias, ``1 / scale_result`` for a float8 output, the ordinary cast (e4m3fn
    saturates). Power-of-two scales keep every partial sum exact: bit for bit; other scales:
    within the fp32 mm's summation bound (MKL's order is not NumPy's)."""
    ta, tb, ma, mb = _f8_pair(5, 12, 7, name_b="float8_e5m2" if out == "float16" else
                              "float8_e4m3fn")
    bias = torch.randn(7, generator=torch.Generator().manual_seed(1))
    for sa, sb, with_bias, exact in ((0.5, 4.0, False, True), (2.0, 64.0, True, True),
                                     (0.37, 1.9, True, False)):
        kw = {"out_dtype": None if out is None else getattr(torch, out)}
        if with_bias:
            kw["bias"] = bias
        for sr in (None, 4.0):
            if sr is not None:
                kw["scale_result"] = torch.tensor(sr)
            want = _smm(torch, ta, tb, sa, sb, **kw)
            mkw = dict(kw, out_dtype=None if out is None else getattr(minigrad, out))
            if sr is not None:
                mkw["scale_result"] = minigrad.tensor(sr)
            got = _smm(minigrad, ma, mb, sa, sb, **mkw)
            assert got.dtype.name == str(want.dtype)[6:]
            if exact:
                assert np.array_equal(_bytes(got.contiguous()).reshape(-1),
                                      want.contiguous().view(torch.uint8).numpy().reshape(-1))
            elif want.dtype == torch.float32:
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=12 * 2.0 ** -24 * 8,
                                           atol=0)
    # row-wise scales take the same path
    ra = np.linspace(0.5, 2, 5, dtype=np.float32).reshape(5, 1)
    rb = np.linspace(1, 3, 7, dtype=np.float32).reshape(1, 7)
    want = torch._scaled_mm(ta, tb, torch.from_numpy(ra), torch.from_numpy(rb),
                            out_dtype=torch.float32)
    got = minigrad._scaled_mm(ma, mb, minigrad.tensor(ra), minigrad.tensor(rb),
                              out_dtype=minigrad.float32)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=0)


def test_testing_helpers_take_float8():
    """to_torch/from_torch keep the bytes; ulp_distance counts float8 steps (from maths)."""
    t = torch.from_numpy(_ALL_BYTES.copy()).view(torch.float8_e4m3fn)
    assert torch.equal(to_torch(from_torch(t)).view(torch.uint8), t.view(torch.uint8))
    from minigrad.testing import ulp_distance
    x = minigrad.tensor([1.0, -3.0, 0.0, 448.0], dtype=minigrad.float8_e4m3fn)
    y = minigrad.tensor([1.125, -3.5, -0.0, 416.0], dtype=minigrad.float8_e4m3fn)
    assert ulp_distance(x, y).tolist() == [1.0, 2.0, 0.0, 1.0]


def test_repr_layout_as_torch():
    """torch's _add_suffixes (dtype on a new line past 80 columns), int mode turning to sci
    mode for a wide span, zeros not widening the columns: float8 and the other dtypes."""
    rng = np.random.default_rng(4)
    cases = [([-10.0, 4.0, 4096.0], "float8_e5m2fnuz"), ([1.0, 1024.0], "float32"),
             ([-0.0, 0.0, -0.0], "float16"), ([0.0, -0.0, 3.0], "bfloat16")]
    cases += [(rng.standard_normal(10).tolist(), n) for n in ("float8_e4m3fn", "float16")]
    for vals, name in cases:
        for rg in (False, True):
            t = torch.tensor(vals).to(getattr(torch, name)).requires_grad_(rg)
            m = minigrad.tensor(vals).to(getattr(minigrad, name)).requires_grad_(rg)
            assert repr(m).replace("minigrad.", "torch.") == repr(t)


def test_scaled_mm_onednn_path_runs_on_any_cpu(monkeypatch):
    """The oneDNN path (taken on AMX-INT8 CPUs, compared with torch there by the tests above)
    forced on this CPU: its checks (PyTorch 2.13's messages, measured on such a CPU) and its
    float8 output through float16 without saturation (e4m3fn overflow is NaN), against the
    emulated path's saturation; exact operands give the emulated path's values otherwise."""
    from minigrad import numerics
    _, _, ma, mb = _f8_pair(4, 8, 6)
    one = minigrad.tensor(1.0)
    emulated = minigrad._scaled_mm(ma, mb, minigrad.tensor(100.0), one,
                                   out_dtype=minigrad.float8_e4m3fn).float().numpy()
    plain = minigrad._scaled_mm(ma, mb, minigrad.tensor(0.5), one,
                                out_dtype=minigrad.float32).numpy()
    monkeypatch.setattr(numerics, "ONEDNN_FP8", True)
    with pytest.raises(RuntimeError, match="^Expected mat1 to be Float8 matrix got Float$"):
        minigrad._scaled_mm(ma.float(), mb.float(), one, one)
    with pytest.raises(RuntimeError, match="^mat1 and mat2 shapes cannot be multiplied"):
        minigrad._scaled_mm(ma, mb[:4], one, one)
    with pytest.raises(RuntimeError, match="itensor_view_from_dense expects float/bfloat16/"
                                           "half/int8/fp8 tensor inputDouble"):
        minigrad._scaled_mm(ma, mb, one, one, out_dtype=minigrad.float64)
    out = minigrad._scaled_mm(ma, mb, minigrad.tensor(100.0), one,
                              out_dtype=minigrad.float8_e4m3fn).float().numpy()
    big = np.abs(emulated) == 448
    assert big.any() and np.isnan(out[big]).all() and not np.isnan(emulated).any()
    assert np.array_equal(minigrad._scaled_mm(ma, mb, minigrad.tensor(0.5), one,
                                              out_dtype=minigrad.float32).numpy(), plain)
