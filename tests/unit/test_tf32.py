"""TF32 emulation: ``numerics.round_tf32`` against the format's definition (exact rationals),
and which products take TF32 inputs (fp32 gemm-like products and convolutions on the emulated
cuda device under ``allow_tf32``), checked by recomputing them from rounded operands."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import minigrad as mg
from minigrad.numerics import round_tf32

F = mg.nn.functional


def _tf32_reference(x: np.float32) -> np.float32:
    """Round to the nearest value with 10 mantissa bits (ties away from zero), by exact
    rational arithmetic over the two neighbouring TF32 values."""
    if not np.isfinite(x):
        return x
    b = int(np.array(x).view(np.uint32))
    sign, mag = b & 0x80000000, b & 0x7FFFFFFF
    lo = mag & ~0x1FFF
    hi = lo + 0x2000                       # may step into the exponent or reach inf: fine
    vals = [Fraction(float(np.array(v, np.uint32).view(np.float32))) if v < 0x7F800000 else None
            for v in (lo, hi)]
    exact = Fraction(float(abs(x)))
    if vals[1] is None:                    # above the largest TF32 value's midpoint: inf
        top = Fraction(float(np.array(lo, np.uint32).view(np.float32)))
        half = Fraction(2) ** 127 * Fraction(1, 2 ** 11)
        pick = lo if exact - top < half else 0x7F800000
    else:
        d_lo, d_hi = exact - vals[0], vals[1] - exact
        pick = lo if d_lo < d_hi else hi
    return np.array(sign | pick, np.uint32).view(np.float32)


def test_round_tf32_matches_the_definition():
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2 ** 32, 4000, dtype=np.uint64).astype(np.uint32)
    ties = (bits & np.uint32(0xFFFFE000)) | np.uint32(0x1000)         # exact midpoints
    special = np.array([0, 0x80000000, 1, 0x1000, 0x1FFF, 0x00800000, 0x7F7FFFFF, 0x7F7FF000,
                        0x7F7FEFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x3F801000,
                        0x3F803000], np.uint32)
    xs = np.concatenate([bits, ties, special]).view(np.float32)
    got = round_tf32(xs)
    want = np.array([_tf32_reference(x) for x in xs], np.float32)
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), xs[~same][:5]
    assert ((got.view(np.uint32)[np.isfinite(got)] & 0x1FFF) == 0).all()
    assert got.shape == xs.shape and got.dtype == np.float32


@pytest.fixture
def tf32():
    prev = mg.get_float32_matmul_precision()
    mg.set_float32_matmul_precision("high")
    yield
    mg.set_float32_matmul_precision(prev)


def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("op", ["mm", "matmul", "bmm", "linear", "addmm", "baddbmm"])
def test_cuda_fp32_products_take_tf32_inputs(tf32, op):
    a, b, c = _r(2, 4, 5), _r(2, 5, 3, seed=1), _r(2, 4, 3, seed=2)
    if op in ("mm", "addmm", "linear"):
        a, b, c = a[0], b[0], c[0]
    rt = round_tf32
    fns = {"mm": lambda L, x, y, z: L.mm(x, y), "matmul": lambda L, x, y, z: L.matmul(x, y),
           "bmm": lambda L, x, y, z: L.bmm(x, y),
           "linear": lambda L, x, y, z: F.linear(x, y.t(), z[0]),
           "addmm": lambda L, x, y, z: L.addmm(z, x, y),
           "baddbmm": lambda L, x, y, z: L.baddbmm(z, x, y)}
    fn = fns[op]
    got = fn(mg, *(mg.tensor(v, device="cuda") for v in (a, b, c))).cpu().numpy()
    want = fn(mg, mg.tensor(rt(a)), mg.tensor(rt(b)), mg.tensor(c)).numpy()   # cpu: no TF32
    assert got.tobytes() == want.tobytes()
    plain = fn(mg, mg.tensor(a), mg.tensor(b), mg.tensor(c)).numpy()
    assert not np.array_equal(got, plain)           # the rounding shows


def test_backward_products_take_tf32_inputs_too(tf32):
    a, b = _r(4, 5), _r(5, 3, seed=1)
    x = mg.tensor(a, device="cuda", requires_grad=True)
    y = mg.tensor(b, device="cuda", requires_grad=True)
    g = _r(4, 3, seed=2)
    (x @ y).backward(mg.tensor(g, device="cuda"))
    rt = round_tf32
    assert x.grad.cpu().numpy().tobytes() == (rt(g) @ rt(b).T).astype(np.float32).tobytes()
    assert y.grad.cpu().numpy().tobytes() == (rt(a).T @ rt(g)).astype(np.float32).tobytes()


def test_unaffected_products(tf32):
    a, b, v = _r(4, 5), _r(5, 3, seed=1), _r(5, seed=2)
    for dev, dt in (("cpu", mg.float32), ("cuda", mg.float64), ("cuda", mg.bfloat16)):
        x, y = mg.tensor(a, device=dev, dtype=dt), mg.tensor(b, device=dev, dtype=dt)
        ref = mg.tensor(a, dtype=dt) @ mg.tensor(b, dtype=dt)
        mg.set_float32_matmul_precision("highest")
        ref = (mg.tensor(a, dtype=dt) @ mg.tensor(b, dtype=dt)).numpy()
        mg.set_float32_matmul_precision("high")
        assert (x @ y).cpu().numpy().tobytes() == ref.tobytes()
    # mv and dot are gemv/dot kernels in cuBLAS: no TF32
    m, w = mg.tensor(a, device="cuda"), mg.tensor(v, device="cuda")
    assert (m @ w).cpu().numpy().tobytes() == (mg.tensor(a) @ mg.tensor(v)).numpy().tobytes()


def test_highest_precision_is_untouched_on_cuda():
    a, b = _r(4, 5), _r(5, 3, seed=1)
    assert mg.get_float32_matmul_precision() == "highest"
    got = (mg.tensor(a, device="cuda") @ mg.tensor(b, device="cuda")).cpu().numpy()
    assert got.tobytes() == (mg.tensor(a) @ mg.tensor(b)).numpy().tobytes()


def test_cuda_conv_takes_tf32_inputs_forward_and_backward(tf32):
    x, w, bias = _r(2, 3, 6, 6), _r(4, 3, 3, 3, seed=1), _r(4, seed=2)
    g = _r(2, 4, 4, 4, seed=3)
    xc = mg.tensor(x, device="cuda", requires_grad=True)
    wc = mg.tensor(w, device="cuda", requires_grad=True)
    bc = mg.tensor(bias, device="cuda", requires_grad=True)
    F.conv2d(xc, wc, bc).backward(mg.tensor(g, device="cuda"))
    rt = round_tf32
    xr = mg.tensor(rt(x), requires_grad=True)
    wr = mg.tensor(rt(w), requires_grad=True)
    br = mg.tensor(bias, requires_grad=True)
    out = F.conv2d(xr, wr, br)
    assert F.conv2d(xc, wc, bc).detach().cpu().numpy().tobytes() == \
        out.detach().numpy().tobytes()
    # the gradient products see TF32 copies of the incoming gradient as well
    xr2 = mg.tensor(rt(x), requires_grad=True)
    wr2 = mg.tensor(rt(w), requires_grad=True)
    F.conv2d(xr2, wr2, mg.tensor(bias)).backward(mg.tensor(rt(g)))
    assert xc.grad.cpu().numpy().tobytes() == xr2.grad.numpy().tobytes()
    assert wc.grad.cpu().numpy().tobytes() == wr2.grad.numpy().tobytes()
    # the bias gradient is a plain fp32 sum of the unrounded gradient
    out.backward(mg.tensor(g))
    assert bc.grad.cpu().numpy().tobytes() == br.grad.numpy().tobytes()


def test_allow_tf32_flag_is_the_precision():
    assert mg.backends.cuda.matmul.allow_tf32 is False
    mg.backends.cuda.matmul.allow_tf32 = True
    try:
        assert mg.get_float32_matmul_precision() == "high"
        a, b = _r(3, 4), _r(4, 2, seed=1)
        got = (mg.tensor(a, device="cuda") @ mg.tensor(b, device="cuda")).cpu().numpy()
        assert got.tobytes() == (mg.tensor(round_tf32(a)) @ mg.tensor(round_tf32(b))).numpy() \
            .tobytes()
    finally:
        mg.backends.cuda.matmul.allow_tf32 = False
    assert mg.get_float32_matmul_precision() == "highest"
