"""minigrad._fp16: the chunked fp32 <-> fp16 casts must be bit-identical to NumPy's astype
(the reference: IEEE round-to-nearest-even, NumPy's NaN payload rule). The exhaustive
fp32 -> fp16 proof over 2**32 inputs is bench/check_fp16_fast_exhaustive.py."""
from __future__ import annotations

import numpy as np
import pytest

from minigrad import _fp16

N = 3 * _fp16.CHUNK + 777          # several chunks and a ragged tail


def _bits32(x):
    return np.asarray(x).view(np.uint32)


def _same16(got, x):
    with np.errstate(all="ignore"):                  # astype warns on overflow, as we do
        ref = x.astype(np.float16)
    assert got.dtype == np.float16 and got.shape == x.shape
    np.testing.assert_array_equal(got.view(np.uint16), ref.view(np.uint16))


def _cast(x):
    with np.errstate(all="ignore"):
        return _fp16.float32_to_float16(x)


def test_f16_to_f32_all_65536_patterns():
    h = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    got = _fp16.float16_to_float32(h)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(_bits32(got), _bits32(h.astype(np.float32)))
    # also every finite pattern on the fast path (a chunk without inf/NaN)
    fin = h[np.isfinite(h)]
    np.testing.assert_array_equal(_bits32(_fp16.float16_to_float32(fin)),
                                  _bits32(fin.astype(np.float32)))
    # spot values from IEEE binary16
    spot = np.array([0x0001, 0x03FF, 0x0400, 0x3C00, 0x7BFF, 0x8001, 0xFBFF] * 1000,
                    np.uint16).view(np.float16)
    want = np.array([2.0 ** -24, 1023 * 2.0 ** -24, 2.0 ** -14, 1.0, 65504.0, -(2.0 ** -24),
                     -65504.0] * 1000, np.float32)
    np.testing.assert_array_equal(_fp16.float16_to_float32(spot), want)


EDGES = np.array([
    0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x33000000, 0x33000001, 0x337FFFFF,
    0x33800000, 0x33C00000, 0x387FC000, 0x387FE000, 0x387FF000, 0x38800000, 0x38801000,
    0x38802000, 0x38803000, 0x3F800000, 0x3F801000, 0x3F803000, 0x477FE000, 0x477FEFFF,
    0x477FF000, 0x477FFFFF, 0x47800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7F800001,
    0x7F801FFF, 0x7F802000, 0x7FC00000, 0xFFC00001, 0x7FFFFFFF, 0xC77FF000, 0xC77FEFFF,
], np.uint32)


def test_f32_to_f16_edges_in_a_large_array():
    x = np.tile(EDGES, N // EDGES.size + 1)[:N].view(np.float32)
    _same16(_cast(x), x)


def test_f32_to_f16_known_values():
    # ties to even, the subnormal grid and overflow, from IEEE arithmetic
    x = np.tile(np.array([1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 2.0 ** -25, 3 * 2.0 ** -25,
                          65519.99, 65520.0, -2.0 ** -24], np.float32), 1000)
    want = np.tile(np.array([1.0, 1 + 2 * 2.0 ** -10, 0.0, 2 * 2.0 ** -24, 65504.0, np.inf,
                             -(2.0 ** -24)], np.float16), 1000)
    got = _cast(x)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_f32_to_f16_random_bit_patterns(seed):
    rng = np.random.default_rng(seed)
    u = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    _same16(_cast(u.view(np.float32)), u.view(np.float32))
    # magnitudes below 65520 only: every chunk takes the fast path
    fast = u[(u & np.uint32(0x7FFFFFFF)) < np.uint32(0x477FF000)].view(np.float32)
    _same16(_cast(fast), fast)
    # neighbourhoods of rounding ties and of the subnormal/normal boundary
    base = rng.integers(0x33000000, 0x477FF000, N // 8, dtype=np.uint64).astype(np.uint32)
    base &= np.uint32(~0xFFF & 0xFFFFFFFF)
    near = (base[:, None] + np.array([0xFFF, 0x1000, 0x1001, 0x2FFF, 0x3000, 0x3001],
                                     np.uint32)).reshape(-1)
    near[::2] |= np.uint32(0x80000000)
    _same16(_cast(near.view(np.float32)), near.view(np.float32))


def test_shapes_small_and_non_contiguous():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 70)).astype(np.float32)
    for arr in (x, x.T, x[:, ::3], x[:3, :5], np.array(1.5, np.float32)):
        _same16(_cast(arr), arr)
        h = arr.astype(np.float16)
        got = _fp16.float16_to_float32(h)
        assert got.shape == h.shape
        np.testing.assert_array_equal(_bits32(got), _bits32(h.astype(np.float32)))
        if arr.ndim == 2 and arr.flags.f_contiguous and not arr.flags.c_contiguous:
            # a transposed matrix keeps its column-major layout (as astype's order="K")
            assert _fp16.float32_to_float16(arr).flags.f_contiguous
            assert got.flags.f_contiguous


def test_wrong_dtype_raises_type_error():
    with pytest.raises(TypeError, match="float32"):
        _fp16.float32_to_float16(np.zeros(3, np.float64))
    with pytest.raises(TypeError, match="float16"):
        _fp16.float16_to_float32([1.0])


@pytest.mark.parametrize("pattern", [0x7C00, 0xFC00, 0x7C01, 0x7E00, 0x7FFF, 0xFC01, 0xFE00,
                                     0xFFFF, 0x7BFF, 0xFBFF, 0x8000, 0x0001, 0x8001])
def test_f16_to_f32_one_special_value_in_a_finite_chunk(pattern):
    # the inf/NaN test runs on the fp16 bits (int16 and uint16 maxima): one special value
    # anywhere in a chunk must send that chunk (only) to astype, keeping NaN payloads
    rng = np.random.default_rng(pattern)
    h = rng.standard_normal(N).astype(np.float16)
    for pos in (0, _fp16.CHUNK - 1, _fp16.CHUNK + 5, N - 1):
        g = h.copy()
        g.view(np.uint16)[pos] = pattern
        np.testing.assert_array_equal(_bits32(_fp16.float16_to_float32(g)),
                                      _bits32(g.astype(np.float32)))


def test_f32_to_f16_sign_and_exponent_halves():
    # the tail: the sign (or-ed in at bit 28 of bits(D * 2**-112), which is 0 up to 65504's
    # exponent field 30, then shifted to bit 15), the exponent carry of a rounding and the
    # subnormal grid, for both signs, in chunks that take the fast path
    x = np.array([1.0, 2047 / 1024, 65504.0, 65519.0, 2.0 ** -14, 2.0 ** -24, 3 * 2.0 ** -26,
                  2.0 ** -14 - 2.0 ** -25, 0.0, 1e-30, 1.9990234375, 0.33325195], np.float32)
    x = np.concatenate([x, -x])
    big = np.tile(x, N // x.size + 1)[:N]
    _same16(_cast(big), big)


def test_results_own_their_memory():
    # as astype's: a result that is a view of a private buffer would make AccumulateGrad copy
    # a gradient it could take over (autograd.engine._sole_owner)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((300, 70)).astype(np.float32)
    for arr in (x, x.T, x[:, ::2], x.reshape(30, 10, 70).transpose(2, 1, 0)):
        for got, src in ((_cast(arr), arr), (_fp16.float16_to_float32(arr.astype(np.float16)),
                                             arr.astype(np.float16))):
            assert got.base is None
            colmajor = src.flags.f_contiguous and not src.flags.c_contiguous
            assert got.flags.f_contiguous if colmajor else got.flags.c_contiguous
            bits = np.uint16 if got.dtype == np.float16 else np.uint32
            np.testing.assert_array_equal(got.view(bits), src.astype(got.dtype).view(bits))
