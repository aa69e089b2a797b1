"""Catalogue entries for the gamma family (``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``,
``special_zeta``), the entropy specials (``special_entr``, ``special_xlog1py``, ``ndtr``) and
the NaN-ignoring reductions (``nansum``, ``nanmean``, ``nanmedian``) and ``mode``.

Bounds (measured against torch 2.13, see ``minigrad/ops/gamma.py``): ``digamma``,
``polygamma``, ``zeta``, ``entr``, ``xlog1py`` bit-exact (ATen's own series repeated step by
step, the C library's ``logf``/``log1pf``/``sinf``/``powf``); ``lgamma`` is SLEEF's in PyTorch:
on positive inputs within 1 ulp (fp32), 2 ulp (fp64), 1 ulp (fp16, one input of 65,536), bf16
exact; negative inputs near lgamma's zeros reach 52 ulp (fp32) / 76 ulp (fp64) of a result
near 0, measured in tests/differential/test_gamma_family.py, so the specs draw positive inputs.
"""
from __future__ import annotations

import numpy as np

from tests.op_samples import reduce_sample, unary, with_keepdim
from tests.op_specs import ACC, OpSpec, _u
from tests.specs.reductions import distinct
from tests.strategies import FloatIn, Sample

_F32_64 = ("float64", "float32")


def _poly_sample(d):
    return Sample([d.floats(d.shape(), "real"), d.choice([0, 1, 2, 3])])


def _mvl_sample(d):
    return Sample([d.floats(d.shape(), "positive"), d.choice([1, 2, 3])])


def _two(da="real", db="real", values="extreme"):
    def gen(d):
        sa, sb = d.bshapes(2)
        return Sample([d.floats(sa, da, values), d.floats(sb, db, values)])
    return gen


def _number_sample(first):
    def gen(d):
        t = d.floats(d.shape(), "positive", "smooth")
        n = d.choice([2.5, 0.5, 3, 1.7])
        return Sample([n, t] if first else [t, n])
    return gen


def _zeta_sample(d):
    return Sample([d.choice([2, 2.5, 3.0, 4.5]), d.floats(d.shape(), "positive")])


def _with_nans(s, d):
    """The sample's first tensor with NaN at every ``k``-th element (``k`` drawn); none for
    gradcheck (finite differences of NaN are NaN)."""
    v = np.array(s.args[0].values, np.float64, copy=True)
    if v.size and not d.smooth:
        k = d.choice([2, 3, 5])
        flat = v.reshape(-1)
        flat[d.integer(0, k - 1)::k] = np.nan
    s.args[0] = FloatIn(v)
    return s


def _nan_reduce_sample(values):
    def gen(d):
        return _with_nans(reduce_sample(allow_tuple=True, values=values)(d), d)
    return gen


def _nanmedian_sample(d):
    shape = d.shape()
    s = Sample([distinct(d, shape)])
    return _with_nans(s, d)


def _nanmedian_dim_sample(d):
    """Tie-free values, a NaN at position 0 of every slice whose dim has >= 2 elements (never an
    all-NaN slice: PyTorch's index there is wherever its nth_element leaves a NaN)."""
    shape = d.shape(min_dims=1, min_side=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    v = np.array(distinct(d, shape).values, np.float64, copy=True)
    if shape[dim] >= 2 and not d.smooth:
        idx = [slice(None)] * len(shape)
        idx[dim] = 0
        v[tuple(idx)] = np.nan
    return with_keepdim(d, Sample([FloatIn(v), dim]))


def _mode_sample(d):
    """Small integers (ties on purpose) along a dim of at most 4 elements."""
    shape = d.shape(min_dims=1, min_side=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    v = np.asarray(d.floats(shape, "real", "smooth").values, np.float64)
    return with_keepdim(d, Sample([FloatIn(np.round(v)), dim]))


SPECS = [
    OpSpec("lgamma", lambda lib, F, a: lib.lgamma(a), unary("positive"),
           fwd_ulp=_u(2, 1, 1, 0),
           notes="PyTorch: SLEEF lgamma_u10; here glibc's double lgamma rounded (positive "
                 "inputs: 1 ulp fp32, 2 ulp fp64, 1 ulp fp16 at one input; negative inputs near "
                 "lgamma's zeros up to 52/76 ulp, measured separately)"),
    OpSpec("digamma", lambda lib, F, a: lib.digamma(a), unary(), fwd_ulp=_u(1, 0, 0, 0),
           bwd_ulp=_u(1, 0, 0, 0),
           notes="ATen's calc_digamma step by step: bit-exact but fp64 (1 ulp on rare inputs "
                 "near digamma's root 1.4616, measured 1 in ~6000)"),
    OpSpec("polygamma", lambda lib, F, a, n: lib.polygamma(n, a), _poly_sample,
           fwd_ulp=_u(1, 0, 0, 0), bwd_ulp=_u(1, 0, 0, 0),
           notes="fp64 n <= 1: 1 ulp on rare inputs (as digamma); otherwise n=0 digamma, n=1 ATen's trigamma, n>=2 calc_polygamma with Cephes' zeta in "
                 "the accumulate type: bit-exact"),
    OpSpec("mvlgamma", lambda lib, F, a, p: lib.mvlgamma(a + p, p), _mvl_sample,
           fwd_ulp=_u(4, 2, 1, 1), bwd_ulp=ACC, scale="max", bwd_scale="max",
           notes="sum of p lgamma values (lgamma's bound each); x shifted by p so that every "
                 "argument is positive"),
    OpSpec("special_zeta", lambda lib, F, a, b: lib.special.zeta(a + 1, b),
           _two("positive", "positive"), dtypes=_F32_64, differentiable=False,
           notes="Cephes zeta in double: bit-exact; 16-bit refused as PyTorch's CPU kernel; "
                 "no gradient for x in PyTorch (backward raises 'not implemented'), so the "
                 "gradient of q is checked through special_zeta.self_scalar"),
    OpSpec("special_zeta.self_scalar", lambda lib, F, a, b: lib.special.zeta(a, b),
           _zeta_sample, dtypes=_F32_64),
    OpSpec("special_zeta.other_scalar", lambda lib, F, a, b: lib.special.zeta(a + 1, b),
           lambda d: Sample([d.floats(d.shape(), "positive"), d.choice([1.5, 2.0, 0.5])]),
           dtypes=_F32_64, differentiable=False,
           notes="no gradient for x in PyTorch ('not implemented')"),
    OpSpec("special_entr", lambda lib, F, a: lib.special.entr(a),
           lambda d: Sample([d.floats(d.shape(), "positive" if d.smooth else "real")]),
           bwd_ulp=_u(2, 2, 0, 0), bwd_scale="max",
           notes="-x * log(x), log rounded to 16 bits first for fp16/bf16 (c10's log); "
                 "backward -(1 + log x) cancels near 1/e: absolute slack"),
    OpSpec("special_xlog1py", lambda lib, F, a, b: lib.special.xlog1py(a, b),
           _two("real", "positive"), bwd_ulp=_u(2, 2, 1, 1), bwd_scale="max",
           notes="log1p rounded to 16 bits first for fp16/bf16 (c10's log1p)"),
    OpSpec("special_xlog1py.other_scalar", lambda lib, F, a, b: lib.special.xlog1py(a, b),
           _number_sample(False)),
    OpSpec("special_xlog1py.self_scalar", lambda lib, F, a, b: lib.special.xlog1py(a, b),
           _number_sample(True), bwd_ulp=_u(2, 2, 1, 1), bwd_scale="max"),
    OpSpec("special.ndtr", lambda lib, F, a: lib.special.ndtr(a), unary(),
           fwd_ulp=_u(2, 2, 0, 0), bwd_ulp=_u(2, 2, 0, 0), scale="max", bwd_scale="max",
           notes="PyTorch's composite (1 + erf(x/sqrt2)) * 0.5: erf's fp32/fp64 bound, the "
                 "sum cancels for x << 0 (absolute slack)"),
    OpSpec("nansum", lambda lib, F, a, **kw: lib.nansum(a, **kw), _nan_reduce_sample("finite"),
           fwd_ulp=ACC, scale="abs",
           notes="sum's kernel on the NaN-zeroed input: sum's bounds"),
    OpSpec("nanmean", lambda lib, F, a, **kw: lib.nanmean(a, **kw),
           _nan_reduce_sample("finite"), fwd_ulp=ACC, scale="abs",
           notes="nansum / count, as PyTorch's composite"),
    OpSpec("nanmedian", lambda lib, F, a: lib.nanmedian(a), _nanmedian_sample),
    OpSpec("nanmedian.dim", lambda lib, F, a, dim, **kw: lib.nanmedian(a, dim, **kw),
           _nanmedian_dim_sample),
    OpSpec("mode", lambda lib, F, a, dim, **kw: lib.mode(a, dim, **kw), _mode_sample,
           gradcheck=False,
           notes="ties on purpose (the index is the mode's last occurrence for <= 16 elements); "
                 "gradient to that index only: no finite differences across ties"),
]
