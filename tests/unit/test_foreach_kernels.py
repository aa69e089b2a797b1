"""The fp32 fast path of ``minigrad/ops/foreach_kernels.py`` against its general path.

The fast path writes results straight into the destination, chunk by chunk; the general path
computes new arrays in opmath and copies them in. Both must give the same bits (NaN payloads
included) on sizes crossing chunk boundaries, with inf/NaN/signed zeros in the inputs.
"""
from __future__ import annotations

import numpy as np
import pytest

from minigrad.ops import foreach_kernels as K

SIZES = [1, 7, K.CHUNK - 1, 2 * K.CHUNK, 2 * K.CHUNK + 5]   # one piece, whole chunks, a short last one


def _arrays(n, seed):
    rng = np.random.default_rng(seed)
    a, b = (np.asarray(rng.standard_normal(n), np.float32) for _ in range(2))
    c = np.asarray(rng.random(n) + 0.05, np.float32)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 3e38], np.float32)
    k = min(n, special.size)
    a[:k] = special[:k]
    b[-k:] = special[:k]
    return a, b, c


RECIPES = {
    "add": lambda a, b, c, out: K.add(a, b, -0.37, out=out),
    "add_alpha1": lambda a, b, c, out: K.add(a, b, 1.0, out=out),
    "mul": lambda a, b, c, out: K.mul(a, 0.999, out=out),
    "add_scalar": lambda a, b, c, out: K.add_scalar(a, 1e-3, out=out),
    "div_scalar": lambda a, b, c, out: K.div_scalar(a, 0.7, out=out),
    "lerp_small": lambda a, b, c, out: K.lerp(a, b, 0.1, out=out),
    "lerp_big": lambda a, b, c, out: K.lerp(a, b, 0.7, out=out),
    "addcmul": lambda a, b, c, out: K.addcmul(a, b, c, 0.001, out=out),
    "addcdiv": lambda a, b, c, out: K.addcdiv(a, b, c, -0.01, out=out),
    "sqrt": lambda a, b, c, out: K.sqrt(c, out=out),
    "mul_tensors": lambda a, b, c, out: K.mul_tensors(a, b, out=out),
    "div_tensors": lambda a, b, c, out: K.div_tensors(a, c, out=out),
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", list(RECIPES))
def test_fast_path_equals_general_path(name, n, monkeypatch):
    fn = RECIPES[name]
    a, b, c = _arrays(n, n)
    with np.errstate(all="ignore"):
        monkeypatch.setattr(K, "FAST_FP32", False)
        slow_new = fn(a.copy(), b, c, None)
        slow_in = a.copy()
        fn(slow_in, b, c, slow_in)
        monkeypatch.setattr(K, "FAST_FP32", True)
        fast_in = a.copy()
        assert K._fast(fast_in, fast_in, b, c) == K.numerics.HAS_FMA
        fn(fast_in, b, c, fast_in)
        fast_new = fn(a.copy(), b, c, K.new_out(a))
    for x in (slow_in, fast_in, fast_new):
        assert x.dtype == np.float32
        assert np.array_equal(x.view(np.uint32), slow_new.view(np.uint32)), name


def test_fast_path_refuses_overlapping_inputs():
    """A reversed view of the destination as an input would be read after being written."""
    a = np.arange(10, dtype=np.float32)
    assert not K._fast(a, a[::-1])
    assert K._fast(a, a[::-1].copy()) == K.numerics.HAS_FMA     # a copy never overlaps
    expect = a + a[::-1] * np.float32(-0.5)
    K.add(a, a[::-1], -0.5, out=a)
    assert np.array_equal(a, expect)


# ---------------------------------------------------------------------- fp32 fma halfway points
# ``fma(x, alpha, y)`` computed as fp32(float64(x*alpha) + y) rounds twice: when the float64 sum
# lands exactly on an fp32 halfway point that the exact sum is not on, the second rounding
# breaks the (false) tie to even. The operands below are built so that it happens: with
# a = 2**-11, (1 + a)(1 - a + a*a) = 1 + a**3 and (1 - a)(1 + a + a*a) = 1 - a**3, so
# x*alpha = +-h*(1 +- 2**-33) for h half an fp32 ulp of y, a perturbation below float64's
# resolution at y: the float64 sum is the halfway point y +- h exactly.
_A = 2.0 ** -11


def _tie_operands(n, above, j, subnormal, seed):
    """(y, x, alpha): fp32 arrays y, x and an fp32-exact Python float alpha (about 2**j) with
    x*alpha + y on an fp32 halfway point after one float64 rounding, for even elements; odd
    elements are ordinary. ``above``: |x*alpha| just above half an ulp (else just below);
    ``subnormal``: y (and the results) are large fp32 subnormals (j must be -23)."""
    rng = np.random.default_rng(seed)
    alpha = 2.0 ** j * ((1 - _A + _A * _A) if above else (1 + _A + _A * _A))
    xm = (1 + _A) if above else (1 - _A)
    if subnormal:
        ybits = rng.integers(0x00400001, 0x007FFFFF, n, dtype=np.uint32)
        e = np.full(n, -126)                       # half an ulp: 2**-150 = 2**(e - 24)
    else:
        e = rng.integers(-20, 21, n)
        ybits = ((127 + e).astype(np.uint32) << 23) | \
            rng.integers(1, 1 << 21, n, dtype=np.uint32)   # mantissa in (1, 1.25): no power of 2
    y = ybits.view(np.float32)
    sign = rng.choice(np.array([-1.0, 1.0]), n)
    x = (sign * np.ldexp(xm, e - 24 - j)).astype(np.float32)
    assert np.array_equal(x.astype(np.float64) / np.ldexp(xm, e - 24 - j), sign)   # exact
    flip = rng.choice(np.array([-1, 1], np.float32), n)
    y, x = y * flip, x * flip
    x[1::2] = rng.standard_normal(n // 2).astype(np.float32) * 1e-3
    y[1::2] = rng.standard_normal(n // 2).astype(np.float32)
    return y, x, alpha


def _double_rounded(y, x, alpha):
    return (x.astype(np.float64) * np.float64(np.float32(alpha)) + y).astype(np.float32)


TIE_CASES = [(above, j, sub) for above in (True, False) for j in (0, -23) for sub in (False, True)
             if not (sub and j != -23)]


@pytest.mark.parametrize("n", [1, 8, 1001, 2 * K.CHUNK + 5])
@pytest.mark.parametrize("above,j,subnormal", TIE_CASES)
def test_fma_halfway_points_round_once(above, j, subnormal, n):
    """add / addcmul / lerp (small weight) on constructed ties: the fast path, the general path
    (``numerics.fma32``) and torch agree bit for bit, in place and out of place; and the
    construction does hit double roundings (the naive result differs somewhere)."""
    torch = pytest.importorskip("torch")
    y, x, alpha = _tie_operands(n, above, j, subnormal, seed=n - 7 * j + above)
    ref = torch.from_numpy(y.copy()).add_(torch.from_numpy(x), alpha=alpha).numpy()
    if n >= 8:
        assert not np.array_equal(_double_rounded(y, x, alpha).view(np.uint32),
                                  ref.view(np.uint32))
    cs = np.full(n, np.float32(alpha))
    cases = {
        "add": (lambda a, out: K.add(a, x, alpha, out=out), ref),
        "addcmul": (lambda a, out: K.addcmul(a, x, cs, 1.0, out=out),
                    torch.from_numpy(y.copy()).addcmul_(torch.from_numpy(x),
                                                        torch.from_numpy(cs)).numpy()),
    }
    if abs(alpha) < 0.5 and not subnormal:    # lerp(y, y + x, alpha): b - a is x exactly
        b = y + x                              # (on the constructed elements)
        assert np.array_equal((b - y)[::2], x[::2])
        cases["lerp"] = (lambda a, out: K.lerp(a, b, alpha, out=out),
                         torch.from_numpy(y.copy()).lerp_(torch.from_numpy(b), alpha).numpy())
    for name, (fn, expect) in cases.items():
        for fast in (True, False):
            K.FAST_FP32 = fast
            try:
                inplace = y.copy()
                fn(inplace, inplace)
                new = fn(y.copy(), K.new_out(y))
            finally:
                K.FAST_FP32 = True
            for got in (inplace, new):
                assert np.array_equal(got.view(np.uint32), expect.view(np.uint32)), (name, fast)


def test_fma_halfway_points_any_layout():
    """The one-piece path takes arrays in any layout: a transposed destination and a broadcast
    (read-only) operand, with ties, as the general path."""
    y, x, alpha = _tie_operands(64, True, 0, False, seed=3)
    y2, x2 = y.reshape(8, 8), x.reshape(8, 8)
    expect = K.numerics.fma32(x2.T, np.float32(alpha), y2.T)
    out = y2.copy().T
    K.add(out, x2.T, alpha, out=out)
    assert np.array_equal(out.view(np.uint32), expect.view(np.uint32))
    row = np.broadcast_to(x2[:1], (8, 8))
    expect = K.numerics.fma32(row, np.float32(alpha), y2)
    out = y2.copy()
    K.add(out, row, alpha, out=out)
    assert np.array_equal(out.view(np.uint32), expect.view(np.uint32))
    empty = np.empty((0, 3), np.float32)
    assert K.add(empty, empty, alpha, out=empty).shape == (0, 3)


@pytest.mark.parametrize("n", [8, 1001, 2 * K.CHUNK + 5])
@pytest.mark.parametrize("subnormal", [False, True])
def test_fma_halfway_points_among_exact_sums(n, subnormal):
    """Halfway points mixed with sums that are fp32 numbers (zero products, as dead ReLU units
    give): both have their low 28 float64 bits zero; ``_halfway`` must send exactly the halfway
    points to round-to-odd, wherever they sit among the others."""
    torch = pytest.importorskip("torch")
    y, x, alpha = _tie_operands(n, True, -23 if subnormal else 0, subnormal, seed=n + subnormal)
    x[1::4] = 0.0                      # y + 0*alpha: an fp32 number, a suspect but no tie
    x[3::8] = -0.0
    ref = torch.from_numpy(y.copy()).add_(torch.from_numpy(x), alpha=alpha).numpy()
    assert not np.array_equal(_double_rounded(y, x, alpha).view(np.uint32), ref.view(np.uint32))
    for fast in (True, False):
        K.FAST_FP32 = fast
        try:
            got = y.copy()
            K.add(got, x, alpha, out=got)
        finally:
            K.FAST_FP32 = True
        assert np.array_equal(got.view(np.uint32), ref.view(np.uint32)), fast
    s = np.array([1.0, 1.0 + 2.0 ** -24, 2.0 ** -127, 0.0, np.inf, 3.0 * 2.0 ** -150])
    assert K._halfway(s).tolist() == [False, True, True, True, False, True]


def _bits(rng, n, elo, ehi):
    """fp32 numbers with random significands, signs and biased exponents in [elo, ehi)."""
    u = (rng.integers(0, 2 ** 23, n) | (rng.integers(elo, ehi, n) << 23) |
         (rng.integers(0, 2, n) << 31)).astype(np.uint32)
    return u.view(np.float32)


def _bracket_cases(n, seed):
    """(x, y) pairs for ``add``'s fma: optimizer-like data (the bracket decides almost every
    element), halfway cases (y on a coarse grid, x*a a few bits), subnormal / tiny and huge
    exponents, any bit pattern, and optimizer data sprinkled with inf/NaN/zeros/subnormals."""
    rng = np.random.default_rng(seed)
    f = np.float32
    sgd = ((rng.standard_normal(n) * 1e-3).astype(f), rng.uniform(-0.036, 0.036, n).astype(f))
    yield sgd
    yield ((rng.integers(-2 ** 12, 2 ** 12, n) * f(2 ** -30)).astype(f),
           (rng.integers(-2 ** 10, 2 ** 10, n) * f(2 ** -10)).astype(f))
    yield _bits(rng, n, 0, 70), _bits(rng, n, 0, 70)
    yield _bits(rng, n, 180, 256), _bits(rng, n, 180, 256)
    yield _bits(rng, n, 0, 256), _bits(rng, n, 0, 256)
    x, y = (v.copy() for v in sgd)
    special = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 1e-39, 3e38], f)
    for v in (x, y):
        v[rng.integers(0, n, 4)] = rng.choice(special, 4)
        v[rng.integers(0, n, 4)] = 0
    yield x, y


@pytest.mark.parametrize("n", [7, K.BRACKET_MIN, K.CHUNK + 1, K.BCHUNK + 5, 3 * K.BCHUNK - 3])
@pytest.mark.parametrize("alpha", [-0.01, 0.9, -1.0, 3.0, 1e-30, -7e20, 2.0 ** -126, 3e38])
def test_fma_bracket_equals_float64_emulation(n, alpha, monkeypatch):
    # add's fma with an fp32 scalar (``_axpy``): the fp32 bracket (``_axpy_bracket``, with its
    # gathered fallbacks, or the whole emulation where it decides too few) against the float64
    # emulation alone and against numerics.fma32, in place and into a new array
    for seed, (x, y) in enumerate(_bracket_cases(n, n)):
        ref = K.numerics.fma32(x, np.float32(alpha), y)
        got = []
        for bracket in (True, False):
            monkeypatch.setattr(K, "FP32_BRACKET", bracket)
            with np.errstate(all="ignore"):
                inplace = y.copy()
                K.add(inplace, x, alpha, out=inplace)
                new = K.add(y, x, alpha, out=K.new_out(y))
            got += [inplace, new]
        for g in got:
            assert g.view(np.uint32).tolist() == ref.view(np.uint32).tolist(), (seed, alpha)


def test_fma_bracket_any_layout():
    # a one-piece tensor whose x and y are not C-contiguous (transposed views): the bracket
    # reads them as they are and gathers its fallbacks in C order
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((150, 200)) * 1e-2).astype(np.float32).T
    y = rng.uniform(-0.05, 0.05, (150, 200)).astype(np.float32).T
    ref = K.numerics.fma32(x, np.float32(-0.01), y)
    with np.errstate(all="ignore"):
        out = K.add(y, x, -0.01, out=K.new_out(y))
    assert out.view(np.uint32).tolist() == ref.view(np.uint32).tolist()


@pytest.mark.parametrize("kernel, ufunc", [(K.mul, np.multiply), (K.add_scalar, np.add),
                                           (K.div_scalar, np.divide)])
def test_remembered_fp32_scalars(kernel, ufunc):
    # the fp32 scalars kept per value (``_fp32_of``) give the bits of np.float32(s) made afresh,
    # for equal numbers of several types and for signed zeros (one dict key, two values)
    rng = np.random.default_rng(4)
    a = rng.standard_normal(37).astype(np.float32)
    a[:3] = (0.0, -0.0, 1.0)
    for s in (0.9, np.float64(0.9), -0.01, 2, 2.0, 0.0, -0.0, 0.0, -0.0, 1e-50, -1e-50):
        with np.errstate(all="ignore"):
            got = kernel(a, s, out=K.new_out(a))
            ref = ufunc(a, np.float32(s))
        assert got.view(np.uint32).tolist() == ref.view(np.uint32).tolist(), s


@pytest.mark.parametrize("n", [7, K.BRACKET_MIN])
def test_remembered_alpha_signed_zero(n):
    # add's fma with alpha 0.0 then -0.0 (one key of the remembered scalars): each its own sign
    y = np.zeros(n, np.float32)
    y[::2] = -0.0
    x = np.ones(n, np.float32)
    for alpha in (0.0, -0.0, 0.0, -0.0, -0.01, -0.01):
        ref = K.numerics.fma32(x, np.float32(alpha), y)
        with np.errstate(all="ignore"):
            got = K.add(y, x, alpha, out=K.new_out(y))
        assert got.view(np.uint32).tolist() == ref.view(np.uint32).tolist(), alpha


SHAPES_ALL = [(8, 16), (128,), (3, 5, 7), (), (1,)]


@pytest.mark.parametrize("alpha", [-0.01, 0.9, -1.0, 1e-30, -7e20, 2.0 ** -126, 3e38, 0.0])
def test_add_all_equals_per_tensor_add(alpha):
    # ``add_all`` (the whole list in one float64 pass) against ``add`` tensor by tensor and
    # against numerics.fma32, on several shapes cut from each of the bracket's cases (halfway
    # points, subnormals, inf/NaN, any bit pattern): the same bits, in place
    n = sum(int(np.prod(s)) for s in SHAPES_ALL)
    for seed, (x, y) in enumerate(_bracket_cases(n, 7)):
        xs, ys, i = [], [], 0
        for s in SHAPES_ALL:
            k = int(np.prod(s))
            xs.append(x[i:i + k].reshape(s).copy())
            ys.append(y[i:i + k].reshape(s).copy())
            i += k
        outs = [v.copy() for v in ys]
        with np.errstate(all="ignore"):
            assert K.add_all(outs, outs, xs, alpha)
            for o, a, b in zip(outs, ys, xs):
                ref = K.numerics.fma32(b, np.float32(alpha), a)
                loop = a.copy()
                K.add(loop, b, alpha, out=loop)
                assert o.view(np.uint32).tolist() == loop.view(np.uint32).tolist(), seed
                assert o.view(np.uint32).tolist() == \
                    np.asarray(ref).view(np.uint32).tolist(), seed


def test_add_all_halfway_points():
    # constructed fp32 halfway points (the suspects' path of ``add_all``): one rounding
    for above, j, sub in TIE_CASES:
        y, x, alpha = _tie_operands(40, above, j, sub, seed=5)
        outs = [y[:30].copy(), y[30:].copy()]
        with np.errstate(all="ignore"):
            assert K.add_all(outs, outs, [x[:30].copy(), x[30:].copy()], alpha)
        ref = K.numerics.fma32(x, np.float32(alpha), y)
        assert np.concatenate(outs).view(np.uint32).tolist() == ref.view(np.uint32).tolist()


def test_add_all_declines():
    # where the list cannot be done in one pass, ``add_all`` writes nothing and returns False
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal(6).astype(np.float32) for _ in range(3))
    keep = [v.copy() for v in (a, b, c)]
    big = np.zeros(K.FLAT_MAX + 1, np.float32)
    ro = a.copy()
    ro.flags.writeable = False
    cases = [([a, b], [a, b], [c, a], -0.01),            # an output is another index's input
             ([a, a], [a, a], [b, c], -0.01),            # one output twice
             ([a], [a], [b[::2].copy()], -0.01),         # shapes differ
             ([a[:3]], [a[:3]], [b[:3]], -0.01),         # a view
             ([a], [a], [b.astype(np.float64)], -0.01),  # another dtype
             ([ro], [ro], [b], -0.01),                   # read-only
             ([a], [a], [b], 1.0),                       # alpha' == 1: plain adds
             ([big], [big], [big.copy()], -0.01)]        # too many elements
    for outs, ys, xs, alpha in cases:
        assert not K.add_all(outs, ys, xs, alpha)
        for v, k in zip((a, b, c), keep):
            assert v.tobytes() == k.tobytes()
