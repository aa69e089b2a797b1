"""GradScaler's unscale kernel (``_amp_foreach_non_finite_check_and_unscale_``) gives the bits and
flags of its straightforward form, and PyTorch's.

Its finiteness test reads the maximum and minimum of each gradient (no bool temporary), skips the
test once an inf/NaN is found, and converts fp16 gradients with ``minigrad/_fp16.py``'s casts; the
reference below is the plain form (``np.isfinite(...).all()`` and ``astype``): same found_inf, same
gradient bits (NaN payloads, -0.0, subnormals, overflow), same version counters, on empty,
non-contiguous and every floating dtype.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.dispatch import dispatch


def _reference(arrays, inv):
    """The kernel's plain form on NumPy copies: (found, unscaled arrays)."""
    found = False
    out = []
    for a in arrays:
        a = a.copy()
        if a.dtype in (np.float32, np.float64):
            if not np.isfinite(a).all():
                found = True
            if inv != 1.0:
                np.multiply(a, a.dtype.type(inv), out=a)
        else:
            f = a.astype(np.float32)
            if not np.isfinite(f).all():
                found = True
            if inv != 1.0:
                f *= np.float32(inv)
                with np.errstate(over="ignore"):
                    a[...] = f.astype(a.dtype)
        out.append(a)
    return found, out


def _grads(dtype, special, rng):
    shapes = [(0,), (7,), (64, 65), (300, 70)]         # empty, small, both sides of _fp16.MIN_SIZE
    gs = []
    for k, s in enumerate(shapes):
        a = rng.standard_normal(s).astype(np.float32) * np.float32(2.0 ** rng.integers(-20, 12))
        if a.size:
            flat = a.reshape(-1)
            flat[:3] = (-0.0, 1e-41, -3e-39)              # -0 and fp32 subnormals
            if special is not None and k == 2:
                flat[rng.integers(flat.size)] = special
        t = mg.tensor(a).to(dtype)
        gs.append(t)
    gs.append(mg.tensor(rng.standard_normal((40, 90)).astype(np.float32)).to(dtype).t())
    return gs


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("special", [None, np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("inv", [1.0, 2.0 ** -16, 0.3, 3.0e5])
def test_unscale_matches_plain_form(dt, special, inv):
    rng = np.random.default_rng(hash((dt, str(special), inv)) % 2 ** 32)
    gs = _grads(getattr(mg, dt), special, rng)
    before = [g._data.copy() for g in gs]
    versions = [g._version for g in gs]
    found = mg.zeros((), dtype=mg.float32)
    inv_t = mg.tensor(inv, dtype=mg.float32)
    with np.errstate(all="ignore"):
        dispatch("_amp_foreach_non_finite_check_and_unscale_", gs, found, inv_t)
        ref_found, ref = _reference(before, np.float32(inv))
    assert float(found.item()) == (1.0 if ref_found else 0.0)
    for g, r, v in zip(gs, ref, versions):
        assert g._data.dtype == r.dtype and g._data.shape == r.shape
        bits = np.uint64 if r.itemsize == 8 else np.uint32 if r.itemsize == 4 else np.uint16
        assert np.array_equal(np.ascontiguousarray(g._data).view(bits),
                              np.ascontiguousarray(r).view(bits))
        assert g._version == v + 1


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("special", [None, np.inf, np.nan])
def test_unscale_matches_torch(dt, special):
    rng = np.random.default_rng(7)
    gs = _grads(getattr(mg, dt), special, rng)
    # torch gets the same bits (a bf16 tensor through int16: torch's own fp32 -> bf16 cast
    # would write its vectorised loop's NaN 0xffff)
    tg = [torch.from_numpy(np.ascontiguousarray(g._data).view(np.int16).copy()).view(torch.bfloat16)
          if dt == "bfloat16" else torch.from_numpy(np.ascontiguousarray(g._data).copy())
          for g in gs]
    found, inv = mg.zeros((), dtype=mg.float32), mg.tensor(2.0 ** -10, dtype=mg.float32)
    tfound, tinv = torch.zeros(()), torch.tensor(2.0 ** -10)
    dispatch("_amp_foreach_non_finite_check_and_unscale_", gs, found, inv)
    torch._amp_foreach_non_finite_check_and_unscale_(tg, tfound, tinv)
    assert float(found.item()) == float(tfound.item())
    for g, t in zip(gs, tg):
        got = np.ascontiguousarray(g.float()._data).view(np.uint32)
        want = t.float().contiguous().numpy().view(np.uint32)
        nan = np.isnan(t.float().contiguous().numpy())
        assert np.array_equal(np.isnan(np.ascontiguousarray(g.float()._data)), nan)
        # the NaNs' bits aside: torch's bf16 kernel writes c10's canonical 0x7fc0 for every NaN
        # (a -NaN loses its sign), ml_dtypes' cast keeps the sign (a known divergence, as before)
        assert np.array_equal(got[~nan], want[~nan])
        if dt != "bfloat16":
            assert np.array_equal(got, want)


def test_all_finite_helper():
    from minigrad.ops.amp_kernels import _all_finite
    a = np.ones(10, np.float32)
    assert _all_finite(a)
    for v in (np.inf, -np.inf, np.nan):
        b = a.copy()
        b[4] = v
        assert not _all_finite(b)
    s = np.array([1.0, 0.0], np.float32)
    s.view(np.uint32)[1] = 0x7F800001                   # a signalling NaN
    assert not _all_finite(s)
