"""Fast paths of the transformer-block and CNN kernels agree bit for bit with their general
paths (the general path is the reference: each fast path only reorganises the same arithmetic).
"""
import numpy as np
import pytest

import minigrad as mg
from minigrad.dispatch import dispatch
from minigrad.ops import smooth_activation as sa


def _bits(a):
    a = np.asarray(a)
    return a.view(np.uint8).tobytes(), a.shape, a.dtype


@pytest.mark.parametrize("dtype", [mg.float32, mg.float16, mg.bfloat16, mg.float64])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_blockwise_matches_whole_array(monkeypatch, dtype, approximate):
    """gelu / gelu_backward run in ``_BLOCK``-element pieces give the whole-array call's bits
    (values over the erf/tanh range, specials and a length that leaves a short last piece)."""
    rng = np.random.default_rng(0)
    n = 3 * 64 + 17
    x = (rng.standard_normal(n) * 4).astype(np.float64 if dtype is mg.float64 else np.float32)
    x[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40]
    dy = rng.standard_normal(n).astype(x.dtype)
    monkeypatch.setattr(sa, "_BLOCK", 10 ** 9)
    want = (sa.Gelu.kernel(dtype, x, approximate),
            sa.GeluBackward.kernel(dtype, dy, x, approximate))
    monkeypatch.setattr(sa, "_BLOCK", 64)
    got = (sa.Gelu.kernel(dtype, x, approximate),
           sa.GeluBackward.kernel(dtype, dy, x, approximate))
    for g, w in zip(got, want):
        assert _bits(g) == _bits(w)


@pytest.mark.parametrize("low", [None, "bfloat16"])
def test_dgamma_row_fma_filter_keeps_subnormal_and_halfway_rows(low):
    """``_fma_row_sums32``'s cheap filter before the round-to-odd check lets through every row
    the check could change: sums below fp32's normal range (products near 2**-140, where a
    double rounding happens on the subnormal grid), zeros, and halfway points; the result is
    the general per-row ``fma32`` loop's, bit for bit."""
    from minigrad import numerics as nx
    from minigrad.ops import _normalization as norm
    if not nx.HAS_FMA:
        pytest.skip("no fma in this build: the general loop is the only path")
    lowdt = None if low is None else getattr(mg, low)
    rng = np.random.default_rng(2)
    k, size, n = 2, 40, 24
    u = rng.standard_normal((k, size, n)).astype(np.float32)
    v = (rng.standard_normal((k, size, n)) * 2.0 ** rng.integers(-75, -60, (k, size, n))
         ).astype(np.float32)
    u[:, ::5] = 0
    u[1, 3, 0], v[1, 3, 0] = 1 + 2 ** -23, 1.0
    u[1, 4, 0], v[1, 4, 0] = 2 ** -24 * (1 + 2 ** -15), 1 - 2 ** -15
    want = norm._row_sums_loop(u, v, lowdt)
    got = norm._fma_row_sums32(u, v, lowdt)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("taps", [(2, 2), (3, 3), (1, 5)])
@pytest.mark.parametrize("special", [None, "nan", "negzero"])
def test_max_pool_tap_loop_matches_argmax_path(monkeypatch, dtype, taps, special):
    """``window_max``'s per-tap loop (small windows; its maximum-chain shortcut when there are
    no NaNs or negative zeros) against its argmax path on the same windows: ties (the first
    maximum), NaNs (the last one), signed zeros, -inf-only windows, a strided view."""
    from minigrad.ops import pooling
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 3, (5, 7, 6) + taps).astype(dtype)
    if dtype != np.int64:
        a[0, 0] = -np.inf
        if special == "nan":
            a[rng.random(a.shape) < 0.1] = np.nan
        elif special == "negzero":
            a[rng.random(a.shape) < 0.3] = -0.0
    win = a[:, ::2]                                   # a strided view
    got = pooling.window_max(win, axes=2)
    monkeypatch.setattr(pooling, "_TAP_LOOP_MAX", 0)
    want = pooling.window_max(win, axes=2)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cols", [9, 3, 1])
@pytest.mark.parametrize("threads", [1, 2])
def test_dbeta_row_sums_accumulate_matches_row_loop(dtype, cols, threads):
    """``thread_row_sums``' plain sums (no products, an opmath buffer; ``np.add.reduce`` over
    the rows, ``accumulate`` for one column) give the row loop's bits: negative zeros (a
    column of -0.0 sums to 0.0 in the loop), infinities and NaN, terms of very different sizes
    (a pairwise or reordered sum would show), thread chunks with a padded last chunk."""
    from minigrad.ops import _normalization as norm
    rng = np.random.default_rng(4)
    u = (rng.standard_normal((37, cols)) * 2.0 ** rng.integers(-20, 20, (37, cols))).astype(dtype)
    big = 2.0 ** (25 if dtype == np.float32 else 54)
    u[:, 0] = 1
    u[0, 0], u[-1, 0] = big, -big          # in order each 1 is lost against big: the sum is 0
    if cols > 1:
        u[:, 1] = -0.0
    if cols > 2:
        u[3, 2], u[5, 2], u[6, 2], u[7, 2] = np.inf, np.inf, -np.inf, np.nan
    with mg.numerics.num_threads(threads):
        got = norm.thread_row_sums(u, None, mg.float32 if dtype == np.float32 else mg.float64)
        chunks = mg.numerics.parallel_chunks(37, 1)         # the loop on the same chunks
    size = chunks[0][1] - chunks[0][0]
    k = len(chunks)
    pad = np.concatenate([u, np.zeros((k * size - 37, cols), dtype)]).reshape(k, size, cols)
    buf = norm._row_sums_loop(pad, None, None)
    want = np.zeros(cols, dtype)
    for t in range(k):
        want = want + buf[t]
    assert got.tobytes() == want.tobytes()
    pairwise = np.add.reduce(np.ascontiguousarray(pad[:, :, 0]), axis=1)   # what it must avoid
    assert k > 1 or pairwise.tobytes() != want[:1].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("case", [
    ((2, 24, 4, 4), (48, 24, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 12, 5, 6), (8, 6, 3, 2), (2, 1), (1, 0), (1, 2), 2),
    ((1, 16, 3, 7), (4, 16, 2, 3), (1, 3), (0, 2), (2, 1), 1),
    ((2, 12, 9), (4, 6, 3), (2,), (1,), (1,), 2),
    # stride 1, rows as wide as the input's (``_col2im_same_width``)
    ((2, 6, 5, 7), (4, 3, 3, 5), (1, 1), (0, 2), (1, 1), 2),
    ((2, 4, 5, 7), (6, 4, 2, 3), (1, 1), (1, 2), (2, 2), 1),
    ((3, 4, 9), (4, 2, 5), (1,), (4,), (2,), 2),
    ((2, 3, 1, 1), (5, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 2, 4, 3), (3, 2, 1, 1), (1, 1), (0, 0), (1, 1), 1),
])
def test_col2im_channels_last_matches_channel_first(monkeypatch, dtype, case):
    """``_corr_t``'s channels-last buffer (many channels, narrow maps) against the (N, g,
    Cin/g, *S) buffer: the same adds in the same order, so the same bits (strides, padding,
    dilation, groups, 1-d; signed zeros, inf and nan in the gradient)."""
    from minigrad.ops import conv
    xs, ws, stride, padding, dilation, groups = case
    rng = np.random.default_rng(5)
    w = (rng.standard_normal(ws) * 8).astype(dtype)
    x = np.zeros(xs, dtype)
    y = conv._corr(x, w, stride, padding, dilation, groups)
    g = (rng.standard_normal(y.shape) * 8).astype(dtype)
    if dtype == np.float32:       # signed zeros (a sum of -0.0s stays +0.0), inf, nan
        g.flat[::5] = -0.0
        g.flat[1], g.flat[2] = np.inf, np.nan
    with np.errstate(all="ignore"):                 # inf * 0 in the products, as the op
        got = conv._corr_t(g, w, xs[2:], stride, padding, dilation, groups)
        monkeypatch.setattr(conv, "_CHANNELS_LAST_COL2IM", False)
        want = conv._corr_t(g, w, xs[2:], stride, padding, dilation, groups)
    assert got.shape == want.shape and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("case", [
    ((2, 24, 4, 4), (3, 3), (1, 1), (1, 1), (1, 1), 1, None),
    ((2, 12, 5, 6), (3, 2), (2, 1), (1, 0), (1, 2), 2, None),
    ((1, 16, 3, 7), (2, 3), (1, 3), (0, 2), (2, 1), 1, (1, 2)),
    ((2, 12, 9), (3,), (2,), (1,), (1,), 2, None),
    ((3, 1, 8, 8), (3, 3), (1, 1), (1, 1), (1, 1), 1, None),
    ((2, 4, 7, 5), (3, 2), (2, 1), (1, 0), (1, 2), 4, None),
    ((2, 1, 9), (3,), (1,), (2,), (2,), 1, (8,)),
    # stride 1, rows as wide as the input's (``_columns_same_width``): padding, dilation,
    # groups, 1-d, a 1x1 map, a given output size
    ((2, 6, 5, 7), (3, 5), (1, 1), (0, 2), (1, 1), 2, None),
    ((2, 4, 5, 7), (2, 3), (1, 1), (1, 2), (2, 2), 1, None),
    ((3, 4, 9), (5,), (1,), (4,), (2,), 2, None),
    ((2, 3, 1, 1), (3, 3), (1, 1), (1, 1), (1, 1), 1, None),
    ((2, 3, 6, 5), (3, 3), (1, 1), (1, 1), (1, 1), 1, (4, 5)),
    ((2, 2, 4, 3), (1, 1), (1, 1), (0, 0), (1, 1), 1, None),
])
def test_im2col_channels_last_matches_window_view(monkeypatch, dtype, case):
    """``_columns``' tap-by-tap copy from a channels-last input (many channels, narrow maps)
    against the strided window view's copy: the same column matrix, bit for bit (strides,
    padding, dilation, groups, a given output size, 1-d)."""
    from minigrad.ops import conv
    xs, kernel, stride, padding, dilation, groups, out = case
    x = (np.random.default_rng(6).standard_normal(xs) * 8).astype(dtype)
    got = conv._columns(x, kernel, stride, padding, dilation, groups, out)
    monkeypatch.setattr(conv, "_CHANNELS_LAST_COL2IM", False)
    want = conv._columns(x, kernel, stride, padding, dilation, groups, out)
    assert got[1] == want[1] and got[0].shape == want[0].shape
    assert got[0].tobytes() == want[0].tobytes()


def test_fma32_shapes_match_round_to_odd_path():
    """``fma32``'s one-buffer shortcut for every operand layout (scalar product with an array
    addend, broadcasting addends of a larger shape, 0-d arrays) equals the round-to-odd path
    (``_fma32_exact``) elementwise, halfway cases included."""
    from minigrad import numerics as nx
    if not nx.HAS_FMA:
        pytest.skip("no fma in this build: fma32 rounds twice by design")
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    c = rng.standard_normal((2, 3, 4)).astype(np.float32)
    tie = np.float32(1 + 2 ** -23), np.float32(1), np.float32(2 ** -24 * (1 + 2 ** -15))
    cases = [(np.float32(3), np.float32(0.1), c), (np.array(np.float32(3)), b, c),
             (a, b, c), (a, b, np.float32(0.5)), (b, a, a), (tie[0], tie[1], np.full(5, tie[2]))]
    for x, y, z in cases:
        shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(z))
        p = (np.asarray(x, np.float64) * np.asarray(y, np.float64)) + np.zeros(shape)
        z64 = np.asarray(z, np.float64) + np.zeros(shape)
        want = nx._fma32_exact(p, z64, p + z64)
        got = nx.fma32(x, y, z)
        assert np.shape(got) == shape and np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_fma32_zero_and_subnormal_sums_match_round_to_odd_path():
    """``fma32``'s filter skips exact zero sums (``1 - t*t`` at ``t = +-1``, ``x*y = -z``) but
    not subnormal or nonzero tiny ones: each equals ``_fma32_exact`` elementwise, signs of zero
    included."""
    from minigrad import numerics as nx
    if not nx.HAS_FMA:
        pytest.skip("no fma in this build: fma32 rounds twice by design")
    rng = np.random.default_rng(3)
    t = np.concatenate([np.tanh(rng.standard_normal(500) * 6), [1, -1, 0, -0.0]]).astype(np.float32)
    small = (rng.standard_normal(500) * 2.0 ** rng.integers(-80, -60, 500)).astype(np.float32)
    z = -(small * small)
    z[::2] = np.nextafter(z[::2], np.float32(np.inf))
    cases = [(-t, t, np.float32(1)), (small, small, z), (small, -small, np.float32(-0.0)),
             (np.float32(-0.0), small, np.float32(-0.0)), (small, small, np.float32(2 ** -149))]
    for x, y, zz in cases:
        shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(zz))
        p = np.multiply(np.broadcast_to(x, shape), np.broadcast_to(y, shape), dtype=np.float64)
        z64 = np.broadcast_to(np.asarray(zz, np.float64), shape)
        want = nx._fma32_exact(p, z64, p + z64)
        assert np.asarray(nx.fma32(x, y, zz)).tobytes() == np.asarray(want).tobytes()


def test_tanh32_buffered_matches_widened_array():
    """``_tanh``'s fp32 path (NumPy's float64 tanh with ``dtype=``/``out=``, +-1 set only where
    needed) gives the bits of the plain ``tanh(float64(a))`` rounded to fp32 with Sleef's +-1
    edge, on all 65,536 fp16 values widened, fp32 subnormals, specials, a strided view, 0-d
    input and a scalar tail mask, given as an array or as a function (called only when an
    element lies past the +-1 edge; NaNs beside such elements), and empty input (checked once
    on all 2**32 fp32 inputs as well)."""
    def plain(a, tail=None):
        out = np.tanh(a.astype(np.float64)).astype(np.float32)
        one = np.abs(a) > sa._TANH_ONE
        if tail is not None:
            one &= ~tail
        return np.where(one, np.copysign(np.float32(1), a), out)
    every16 = np.arange(2 ** 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    sub = np.arange(1, 2 ** 23, 4099, dtype=np.uint32).view(np.float32)
    spec = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 8.664339742, -8.6643397, 8.7, -9, 20],
                    np.float32)
    x = np.concatenate([every16, sub, -sub, spec])
    tail = np.arange(x.size) % 5 == 0
    calls = []

    def lazy(mask):
        def f():
            calls.append(1)
            return mask
        return f
    nan_big = np.array([np.nan, 9.0, np.nan, -9.5, 0.5], np.float32)
    cases = [(x, None), (x, tail), (x[::3], tail[::3]), (np.asarray(np.float32(-9.0)), None),
             (np.float32(0.25), None), (nan_big, nan_big == 9), (np.zeros(0, np.float32), None)]
    for a, m in cases + [(a, lazy(m)) for a, m in cases if m is not None]:
        want = np.asarray(plain(np.asarray(a), m() if callable(m) else m))
        got = np.asarray(sa._tanh(a, m))
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()
    small = every16[np.abs(every16) < 8]              # nothing past the edge: mask not built
    calls.clear()
    assert sa._tanh(small, lazy(None)).tobytes() == plain(small).tobytes() and not calls


def _sdpa_reference(q, k, v, mask, causal, scale, g):
    """The flash-attention kernels' formulas written out of place with ``np.where`` (the
    in-place kernels' reference): ``(out, lse, dq, dk, dv)`` in fp32."""
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * np.float32(scale)
    if mask is not None:
        s = s + mask
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, np.float32(-np.inf))
    m = np.max(s, axis=-1, keepdims=True)
    dead = m == -np.inf
    e = np.exp(s - np.where(dead, 0, m))
    l = np.sum(e, axis=-1, keepdims=True)
    out = np.where(dead, 0, np.matmul(e, v) / np.where(dead, 1, l))
    lse = m + np.log(l)
    p = np.where(lse == -np.inf, 0, np.exp(s - lse))
    dv = np.matmul(np.swapaxes(p, -1, -2), g)
    ds = p * (np.matmul(g, np.swapaxes(v, -1, -2)) - np.sum(g * out, axis=-1, keepdims=True))
    dq = np.matmul(ds, k) * np.float32(scale)
    dk = np.matmul(np.swapaxes(ds, -1, -2), q) * np.float32(scale)
    return out, lse[..., 0], dq, dk, dv


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("mask", [None, "additive", "dead rows", "broadcast"])
@pytest.mark.parametrize("L, S", [(6, 6), (4, 7), (7, 3), (1, 1)])
def test_sdpa_in_place_kernels_match_out_of_place_formula(causal, mask, L, S):
    """The flash-attention forward and backward kernels, which reuse their score buffer in
    place, fill the causal -inf row by row and zero the rows whose keys are all masked only
    when there are any, give the bits of the out-of-place ``np.where`` formulas (NaN and inf
    inputs, dead rows, masks that broadcast, fewer or more keys than queries)."""
    from minigrad.dispatch import dispatch
    rng = np.random.default_rng(8)
    N, H, E = 2, 3, 4
    q, k, v, g = (rng.standard_normal(s).astype(np.float32) * 2
                  for s in ((N, H, L, E), (N, H, S, E), (N, H, S, E), (N, H, L, E)))
    q[1, 2, min(3, L - 1), 1] = np.nan
    v[0, 1, min(4, S - 1), 2] = np.inf        # a dead row's 0 * inf would be NaN unzeroed
    m = {None: None, "additive": rng.standard_normal((N, H, L, S)).astype(np.float32),
         "broadcast": rng.standard_normal((1, 1, L, S)).astype(np.float32),
         "dead rows": np.where(np.arange(S) < (3 if causal else 9), 0, -np.inf)[None]
         .repeat(L, 0).astype(np.float32)}[mask]
    if mask == "dead rows":
        m[min(2, L - 1)] = -np.inf
    with np.errstate(all="ignore"):
        want = _sdpa_reference(q, k, v, m, causal, 0.5, g)
    mq, mk, mv, mgo = (mg.tensor(a) for a in (q, k, v, g))
    mm = None if m is None else mg.tensor(m)
    out, lse = dispatch("_scaled_dot_product_flash_attention_for_cpu", mq, mk, mv, 0.0, causal,
                        attn_mask=mm, scale=0.5)
    grads = dispatch("_scaled_dot_product_flash_attention_for_cpu_backward", mgo, mq, mk, mv,
                     out, lse, 0.0, causal, attn_mask=mm, scale=0.5)
    for got, w in zip((out, lse) + tuple(grads), want):
        assert _bits(got._data) == _bits(w.astype(np.float32))


@pytest.mark.parametrize("case", [
    ((2, 3, 8, 8), (4, 4), (2, 2), (2, 2), (0, 0), (1, 1)),      # no padding: a view of a
    ((2, 3, 7, 6), (3, 2), (3, 3), (2, 3), (1, 1), (1, 1)),      # ceil_mode's right overhang
    ((3, 5, 6), (3, 3), (2, 2), (2, 2), (1, 0), (2, 1)),
    ((1, 2, 5, 5), (2, 2), (3, 3), (3, 3), (1, 1), (1, 1)),
])
@pytest.mark.parametrize("fill", [-np.inf, 0.0])
def test_pool_windows_padded_buffer_matches_np_pad(case, fill):
    """``pooling.windows`` (no copy without padding; else a filled buffer with the input
    inside) gives the windows of ``np.pad``'s padded copy, on a strided input."""
    from minigrad.ops import pooling
    shape, out, kernel, stride, padding, dilation = case
    a = np.random.default_rng(6).standard_normal(shape + (2,)).astype(np.float32)[..., 0]
    got = pooling.windows(a, out, kernel, stride, padding, dilation, fill)
    pads = [(padding[i], max((out[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
                             - a.shape[-2 + i] - padding[i], padding[i])) for i in range(2)]
    ap = np.pad(a, [(0, 0)] * (a.ndim - 2) + pads, constant_values=fill)
    st = ap.strides
    want = np.lib.stride_tricks.as_strided(
        ap, ap.shape[:-2] + out + kernel, st[:-2] + (st[-2] * stride[0], st[-1] * stride[1],
                                                     st[-2] * dilation[0], st[-1] * dilation[1]))
    assert got.shape == want.shape and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("shape, padding", [((2, 3, 4, 5), (1, 2)), ((1, 2, 7), (3,)),
                                            ((2, 1, 3, 3), (0, 1)), ((2, 2, 3, 3), (0, 0))])
def test_conv_pad_matches_np_pad(dtype, shape, padding):
    """``conv._pad`` (a zero buffer with the input copied inside) is ``np.pad`` with zeros on
    both sides of each spatial dim, on a strided input."""
    from minigrad.ops import conv
    x = (np.random.default_rng(7).standard_normal(shape + (2,)) * 8).astype(dtype)[..., 1]
    got = conv._pad(x, padding)
    want = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("shape", [(3, 4, 8, 8), (2, 5, 7, 9), (6, 4, 6), (1, 1, 2, 2),
                                   (0, 3, 4, 4), (2, 3, 17, 20), (1, 1, 258, 256)])
@pytest.mark.parametrize("special", [None, "nan", "negzero"])
@pytest.mark.parametrize("few", [16, 0])
def test_max_pool_2x2_matches_window_max(monkeypatch, dtype, shape, special, few):
    """``_max_2x2`` (the 2x2 stride-2 pool in two stages) against the general path
    (``window_max`` over ``windows``' taps, then the flat indices): ties everywhere (small
    integer values), -inf-only windows, odd sizes (the last row/column left out), a strided
    input, an empty batch, planes whose flat indices need 8, 16 or 64 bits in the index
    arithmetic, the results copied back per window position or whole; with a NaN
    or a -0.0 it declines (None), and the general path's loop decides."""
    from minigrad.ops import pooling
    monkeypatch.setattr(pooling, "_FEW_POSITIONS", few)
    rng = np.random.default_rng(8)
    a = rng.integers(-2, 2, shape + (2,)).astype(dtype)[..., 0]        # a strided view
    if dtype != np.int64 and a.size:
        a[..., :2, :2] = -np.inf
        if special == "nan":
            a.flat[a.size - 1] = np.nan
        elif special == "negzero":
            a.flat[a.size - 1] = -0.0
    oh, ow = shape[-2] // 2, shape[-1] // 2
    got = pooling._max_2x2(a, oh, ow)
    if special is not None and dtype != np.int64 and a.size:
        assert got is None
        return
    dt = {np.float32: mg.float32, np.float64: mg.float64, np.int64: mg.int64}[dtype]
    want = pooling._max_indices(a, dt, shape[-1], oh, ow, (2, 2), (2, 2), (0, 0), (1, 1))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("shape", [(6, 4, 5, 5), (3, 5, 7), (2, 3, 2, 2, 3), (1, 2, 3, 3)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_sample_rows_match_broadcast(dtype, shape, training):
    """``native_batch_norm``'s ``x * alpha + beta`` over (N, C * S) rows with alpha/beta
    repeated per sample (a contiguous input) against the (1, C, 1, ...) broadcast (the same
    values through a strided view): the same bits."""
    dt = getattr(mg, dtype)
    rng = np.random.default_rng(9)
    c = shape[1]
    big = mg.tensor(rng.standard_normal(shape[:-1] + (2 * shape[-1],)).astype(np.float32)).to(dt)
    strided = big[..., ::2]
    contiguous = strided.contiguous()
    w = mg.tensor(rng.standard_normal(c).astype(np.float32)).to(dt)
    b = mg.tensor(rng.standard_normal(c).astype(np.float32)).to(dt)
    outs = []
    for x in (contiguous, strided):
        rm, rv = mg.zeros(c, dtype=dt), mg.ones(c, dtype=dt)
        y = mg.batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5, False)
        outs.append((y.numpy().tobytes(), y.dtype, tuple(y.shape), rm.numpy().tobytes()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("order", ["row, x, row", "x, col, col"])
def test_layer_norm_fma_widened_operands_match_fma32(order):
    """``layer_norm._fma_bcast`` (the per-row / per-column fp32 operands widened to float64
    before ``fma32``) gives ``fma32``'s bits on the fp32 operands: halfway cases (the
    round-to-odd fix), subnormal and zero sums, signed zeros, infinities and NaNs of either
    sign in the broadcast operands and the full one."""
    from minigrad import numerics as nx
    from minigrad.ops import layer_norm as ln
    rng = np.random.default_rng(11)
    m, n = 40, 24
    x = (rng.standard_normal((m, n)) * 2.0 ** rng.integers(-70, 10, (m, n))).astype(np.float32)
    row = (rng.standard_normal((m, 1)) * 2.0 ** rng.integers(-70, 10, (m, 1))).astype(np.float32)
    col = rng.standard_normal((1, n)).astype(np.float32)
    x[0, :4] = [np.nan, -np.nan, np.inf, -0.0]
    x[1, 0], row[1, 0] = 1 + 2 ** -23, 1.0                  # halfway: fma != double rounding
    x[2, 0], row[2, 0] = 2 ** -24 * (1 + 2 ** -15), 1 - 2 ** -15
    row[3:6, 0] = [-np.nan, -np.inf, -0.0]
    col[0, :3] = [np.nan, 0.0, -np.inf]
    z_row = (-row * rng.standard_normal((m, 1))).astype(np.float32)
    z_row[1, 0], z_row[2, 0] = 2 ** -24 * (1 + 2 ** -15), 1 + 2 ** -23
    z_row[6, 0] = -x[6, 0] * row[6, 0]                       # a (near-)zero sum
    ops = (row, x, z_row) if order == "row, x, row" else (x, col, -col * np.float32(0.75))
    with np.errstate(all="ignore"):
        got, want = ln._fma_bcast(*ops), nx.fma32(*ops)
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_two_norm_of_all_matches_norm_kernel(monkeypatch, dtype):
    """``linalg_vector_norm(x)``'s shortcut (2-norm over all elements, clip_grad_norm_'s call)
    gives the general path's bits: contiguous, transposed and 1-element-row inputs, tiny and
    huge values (the fp32 rounding of the sum overflowing), NaN and inf; and torch's value."""
    import torch
    from minigrad.ops import norm
    rng = np.random.default_rng(8)
    npd = np.float32 if dtype is mg.float32 else np.float64
    cases = [rng.standard_normal((48, 24, 3, 3)), rng.standard_normal((10, 192)).T,
             rng.standard_normal(7) * 1e-30, rng.standard_normal(5) * 1e19,
             np.array([1.0, np.nan, 2.0]), np.array([1.0, np.inf]), np.array([3.0, -4.0])]
    if dtype is mg.float64:
        cases.append(rng.standard_normal(9) * 1e200)
    for a in cases:
        x = mg.tensor(a.astype(npd))
        got = mg.linalg.vector_norm(x)
        with monkeypatch.context() as m:
            m.setattr(norm, "_two_norm_of_all", lambda arr: None)
            want = mg.linalg.vector_norm(x)
        assert got.numpy().tobytes() == want.numpy().tobytes(), a
        ref = torch.linalg.vector_norm(torch.from_numpy(a.astype(npd)))
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=4e-7 if npd is np.float32
                                   else 1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 24, 8, 8), (3, 5, 7), (2, 40), (5, 3), (4, 0, 32),
                                   (2, 3, 4, 4, 4, 4)])
def test_relu_zero_row_matches_scalar_zero(dtype, shape):
    """``relu``'s maximum with a zero row over rows of the trailing dims (the vectorised loop)
    equals the maximum with a 0-d zero (the scalar loop) and torch.relu, bit for bit, on
    signed zeros, infinities, NaN and subnormals; shapes whose rows take 1, 2 or more dims,
    too short ones, an empty one; a non-contiguous input."""
    import torch
    from minigrad.ops.activation import Relu
    rng = np.random.default_rng(10)
    a = rng.standard_normal(shape).astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40], dtype)
    a.reshape(-1)[:min(a.size, 7)] = specials[:min(a.size, 7)]
    for x in (a, a.swapaxes(0, -1)):
        got = Relu.kernel(mg.float32 if dtype == np.float32 else mg.float64, x)
        want = np.maximum(np.zeros((), dtype), x)
        assert got.shape == want.shape and got.tobytes() == want.tobytes()
        assert got.tobytes() == torch.relu(torch.from_numpy(x.copy())).numpy().tobytes()


@pytest.mark.parametrize("dtype", [mg.float32, mg.bfloat16, mg.float16, mg.float64])
def test_gelu_tanh_backward_takes_forward_tanh_only_when_inner_matches(monkeypatch, dtype):
    """gelu (tanh form) through autograd: the node keeps its forward's ``tanh(inner)`` and its
    backward takes it (one tanh per forward+backward, counted) with the bits of
    ``gelu_backward`` computed from scratch; it recomputes when the forward was not
    edge-free (an element past Sleef's +-1 edge), when the input was changed behind
    autograd's back (``.data``), and on a retained graph's second backward; a no-grad forward
    or one under saved-tensor hooks keeps nothing. bf16 is checked against torch as well."""
    torch = pytest.importorskip("torch")
    calls = []
    real = sa._tanh_edge

    def counted(a, tail=None):
        calls.append(1)
        return real(a, tail)
    monkeypatch.setattr(sa, "_tanh_edge", counted)
    rng = np.random.default_rng(3)
    x0 = np.clip(rng.standard_normal((4, 5, 40)) * 2, -4, 4).astype(np.float32)   # |inner| < 6
    x0.flat[:5] = [0.0, -0.0, 1e-40, -2.5, 3.25]
    g0 = rng.standard_normal(x0.shape).astype(np.float32)
    big = x0.copy()
    big.flat[7] = 9.5                       # inner past the +-1 edge (fp64 has none)

    def reference(x, g):                    # the kernel, without a kept tanh
        xs, gs = (mg.tensor(a).to(dtype) for a in (x, g))
        return dispatch("gelu_backward", gs, xs, approximate="tanh")

    for data, kept in ((x0, True), (big, dtype is mg.float64)):
        x = mg.tensor(data).to(dtype).requires_grad_()
        g = mg.tensor(g0).to(dtype)
        calls.clear()
        y = mg.nn.functional.gelu(x, approximate="tanh")
        y.backward(g, retain_graph=True)
        assert len(calls) == (1 if kept else 2)
        want = reference(data, g0)
        assert _bits(x.grad._data) == _bits(want._data)
        x.grad = None
        calls.clear()
        y.backward(g)                       # retained graph: nothing kept any more
        assert len(calls) == 1 and _bits(x.grad._data) == _bits(want._data)
        if dtype is mg.bfloat16:
            tx = torch.tensor(data).to(torch.bfloat16).requires_grad_()
            torch.nn.functional.gelu(tx, approximate="tanh").backward(
                torch.tensor(g0).to(torch.bfloat16))
            assert np.array_equal(x.grad.float()._data, tx.grad.float().numpy())
    # changed behind autograd's back: the backward sees the new input, as PyTorch's would
    x = mg.tensor(x0).to(dtype).requires_grad_()
    y = mg.nn.functional.gelu(x, approximate="tanh")
    x.data.mul_(0.5)
    calls.clear()
    y.backward(mg.tensor(g0).to(dtype))
    assert len(calls) == 1
    assert _bits(x.grad._data) == _bits(reference(x0 * np.float32(0.5), g0)._data)
    with mg.no_grad():
        x = mg.tensor(x0).requires_grad_()
        assert mg.nn.functional.gelu(x, approximate="tanh").grad_fn is None
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = mg.nn.functional.gelu(mg.tensor(x0).requires_grad_(), approximate="tanh")
    assert not hasattr(y.grad_fn, "_forward_tanh")
    assert sa._KERNEL_TANH[0] is None and sa._FORWARD_TANH[0] is None


def test_fma32_normal_skips_only_the_subnormal_test_for_one_minus_square():
    """``fma32(-t, t, 1, normal=True)`` (gelu_backward's ``1 - t*t``, ``|t| <= 1``) gives the
    bits of the full ``fma32``: every fp32 ``t`` in ``[1 - 2**-10, 1]`` (where the float64
    sum often sits on an fp32 halfway point), a stride over the rest of ``[0, 1]``, both signs,
    NaN, +-0 and +-1 (the halfway suspects, which take the round-to-odd test, among them)."""
    from minigrad import numerics as nx
    one = np.float32(1)
    top = np.arange(np.float32(1 - 2 ** -10).view(np.int32), 0x3F800001,
                    dtype=np.int32).view(np.float32)
    rest = np.arange(0, 0x3F800001, 9973, dtype=np.int32).view(np.float32)
    t = np.concatenate([top, rest, -top, -rest, np.array([np.nan, -0.0], np.float32)])
    got = nx.fma32(-t, t, one, normal=True)
    assert got.tobytes() == nx.fma32(-t, t, one).tobytes()
    r = 1 - t.astype(np.float64) ** 2           # the float64 sums fma32 rounds
    assert ((r.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)).sum() > 100
