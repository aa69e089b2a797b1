"""amp_emu.formats: fast fp16 conversion bit-identical to NumPy, ULP distances, limits."""
from __future__ import annotations


import ml_dtypes
import numpy as np
import pytest
import torch

import minigrad as mg
from amp_emu import formats as fm

_EDGES = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7F800001, 0x7FC00000, 0xFFC00001,
                   0x7FA00000, 0x7F802000, 0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001,
                   0x38800000, 0x387FFFFF, 0x33000000, 0x33000001, 0x32FFFFFF, 0x337FFFFF,
                   0x33800000, 0x00000001, 0x007FFFFF, 0x3F800000, 0x3F801000, 0x3F803000,
                   0x3F802FFF, 0x7F7FFFFF], dtype=np.uint32)


def _check(u):
    ref = u.view(np.float32).astype(np.float16).view(np.uint16)
    got = fm.float32_to_float16_bits(u.view(np.float32))
    bad = np.flatnonzero(ref != got)
    assert bad.size == 0, [hex(int(u[i])) for i in bad[:5]]


def test_fast_fp16_edges_and_neighbourhoods():
    with np.errstate(all="ignore"):
        _check(_EDGES)
        near = (_EDGES[:, None].astype(np.int64) + np.arange(-64, 65)[None, :]).ravel()
        _check(np.clip(near, 0, 2 ** 32 - 1).astype(np.uint32))
        # every fp32 around the fp16 subnormal/normal boundary and overflow threshold
        _check(np.arange(0x33000000 - 4096, 0x33000000 + 4096, dtype=np.uint32))
        _check(np.arange(0x38800000 - 4096, 0x38800000 + 4096, dtype=np.uint32))
        _check(np.arange(0x33000000, 0x38800100, 97, dtype=np.uint32))
        _check(np.arange(0x477F0000, 0x47800100, dtype=np.uint32))


def test_fast_fp16_random_bit_patterns():
    rng = np.random.default_rng(123)
    with np.errstate(all="ignore"):
        for _ in range(2):
            _check(rng.integers(0, 2 ** 32, size=1 << 21, dtype=np.uint64).astype(np.uint32))


def test_fp16_lookup_table_exact():
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    np.testing.assert_array_equal(fm.float16_to_float32(h).view(np.uint32),
                                  h.astype(np.float32).view(np.uint32))


def test_round_to_matches_torch():
    x = np.random.default_rng(0).standard_normal(10000).astype(np.float32) * 1e3
    for dt, tdt in [(mg.float16, torch.float16), (mg.bfloat16, torch.bfloat16)]:
        ours = fm.round_to(x, dt).astype(np.float32)
        np.testing.assert_array_equal(ours, torch.tensor(x).to(tdt).float().numpy())
    d = np.random.default_rng(1).standard_normal(100) * 1e5
    np.testing.assert_array_equal(fm.round_to(d, "fp16").astype(np.float32),
                                  torch.tensor(d).to(torch.float16).float().numpy())


def test_ulp_distance():
    one = np.float32(1.0)
    nxt = np.nextafter(np.float16(1), np.float16(2))
    assert fm.ulp_distance(one, np.float32(nxt), "fp16") == 1
    assert fm.ulp_distance(np.float32(-0.0), np.float32(0.0), "fp32") == 0
    assert fm.ulp_distance(np.float32(-2 ** -149), np.float32(2 ** -149), "fp32") == 2
    b = ml_dtypes.bfloat16
    assert fm.ulp_distance(np.array(1.0, b), np.array(1.0 + 2 ** -7, b), mg.bfloat16) == 1
    assert fm.ulp_distance(np.float32(1), np.float32(2), "bf16") == 128
    assert fm.ulp_distance(np.float32(np.nan), np.float32(np.nan), "fp32") == 0
    assert fm.ulp_distance(np.float32(np.nan), np.float32(1), "fp32") == np.iinfo(np.int64).max
    assert fm.ulp(np.float32(1.0), "bf16") == 2 ** -7


def test_format_limits_match_torch_finfo():
    for name, tdt in [("fp32", torch.float32), ("fp16", torch.float16),
                      ("bf16", torch.bfloat16)]:
        f, ti = fm.get_format(name), torch.finfo(tdt)
        assert (f.max, f.tiny, f.eps, f.bits) == (ti.max, ti.tiny, ti.eps, ti.bits)
        assert f.smallest_subnormal == ti.smallest_normal * ti.eps
        assert fm.finfo(name).max == ti.max
    with pytest.raises(TypeError):
        fm.get_format(mg.int32)
