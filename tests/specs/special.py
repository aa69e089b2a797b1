"""Catalogue entries for the special pointwise ops of issue 7's second in-place batch
(``sinc``, ``logit``, ``copysign``, ``ldexp``, ``nextafter``, ``gcd``, ``lcm``, ``heaviside``)
and the number overloads of ``xlogy``; their in-place forms are exempt here and checked in
tests/differential/test_inplace_methods_special.py.

Bounds: fp16/bf16 bit-exact (``sinc`` and ``logit`` measured over all 65,536 inputs of each
format); fp32/fp64 within the C library's last bits (``sinc``'s sine, ``logit``'s log).
"""
from __future__ import annotations

from tests.op_samples import binary, unary
from tests.op_specs import EXEMPT, OpSpec, _u
from tests.strategies import Sample

_INTS = ("int64", "int32", "int16", "uint8")


def _two_tensors(da="real", db="real"):
    def gen(d):
        sa, sb = d.bshapes(2)
        return Sample([d.floats(sa, da, "smooth"), d.floats(sb, db, "smooth")])
    return gen


def _logit_sample(d):
    eps = d.choice([None, None, 0.05, 0.2])
    kw = {} if eps is None else {"eps": eps}
    return Sample([d.floats(d.shape(), "unit", "smooth")], kw)


def _ldexp_sample(d):
    sa, sb = d.bshapes(2)
    return Sample([d.floats(sa, "real", "smooth"), d.floats(sb, "real", "smooth")])


def _number_sample(first):
    def gen(d):
        t = d.floats(d.shape(), "positive" if first else "real", "smooth")
        n = d.choice([2.5, 0.5, 3, 0.0, 1.7])
        return Sample([n, t] if first else [t, n])
    return gen


def _put_fn(lib, F, a, s, *, acc):
    n = a.numel()
    idx = lib.tensor([(3 * k + 1) % n for k in range(min(n, s.numel()))], dtype=lib.int64)
    return lib.put(a, idx, s.reshape(-1)[:idx.numel()], accumulate=acc)


def _take_fn(lib, F, a, *, reps):
    n = a.numel()
    if n == 0:
        return lib.take(a, lib.tensor([], dtype=lib.int64))
    # a 2-d index with negative and repeated entries: the gradient adds the repeats
    flat = [(3 * k + 1) % n - (n if k % 2 else 0) for k in range(reps)] + [0, 0]
    return lib.take(a, lib.tensor(flat, dtype=lib.int64).reshape(2, -1))


def _take_sample(d):
    return Sample([d.floats(d.shape(), "real", "smooth")], {"reps": 2 * d.integer(1, 3)})


def _put_sample(d):
    shape = d.shape()
    return Sample([d.floats(shape, "real", "smooth"), d.floats(shape, "real", "smooth")],
                  {"acc": d.choice([False, True])})


SPECS = [
    OpSpec("sinc", lambda lib, F, a: lib.sinc(a), unary(), fwd_ulp=_u(2, 2, 0, 0),
           bwd_ulp=_u(8, 8, 2, 2), bwd_scale="max",
           notes="pi*x and the quotient rounded in opmath (ATen's scalar kernel), sine correctly "
                 "rounded; backward composite (pi x cos(pi x) - sin(pi x)) / (pi x^2)"),
    OpSpec("logit", lambda lib, F, a, **kw: lib.logit(a, **kw), _logit_sample,
           fwd_ulp=_u(2, 2, 0, 0), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="16-bit: every step rounded to 16 bits, as ATen's storage-type kernel"),
    OpSpec("copysign.Tensor", lambda lib, F, a, b: lib.copysign(a, b), _two_tensors(),
           gradcheck=False, notes="kink at 0 (gradient taken as 0 there)"),
    OpSpec("copysign.Scalar", lambda lib, F, a, b: lib.copysign(a, b),
           lambda d: Sample([d.floats(d.shape(), "real", "smooth"),
                             d.choice([-1.0, 2.5, -0.0, 0.0, 3])]), gradcheck=False),
    OpSpec("ldexp", lambda lib, F, a, b: lib.ldexp(a, b), _ldexp_sample,
           fwd_ulp=_u(2, 2, 0, 0), bwd_ulp=_u(4, 4, 8, 8), bwd_scale="max",
           notes="a * 2**b in opmath; float exponents: exp2 correctly rounded; the exponent's "
                 "gradient is grad * (a * 2**b) * ln 2 in PyTorch's order (16-bit overflow "
                 "included); a broadcast exponent sums 16-bit terms, so terms of opposite "
                 "signs cancel: 8 ulp of the result"),
    OpSpec("nextafter", lambda lib, F, a, b: lib.nextafter(a, b), _two_tensors(),
           gradcheck=False, notes="steps of one ulp (no finite differences)"),
    OpSpec("gcd", lambda lib, F, a, b: lib.gcd(a, b), _two_tensors(), dtypes=_INTS,
           differentiable=False),
    OpSpec("lcm", lambda lib, F, a, b: lib.lcm(a, b), _two_tensors(), dtypes=("int64",
                                                                             "int32"),
           differentiable=False, notes="int16/uint8 lcm overflow wraps differently"),
    OpSpec("heaviside", lambda lib, F, a, b: lib.heaviside(a, b), _two_tensors(),
           differentiable=False),
    OpSpec("erfc", lambda lib, F, a: lib.erfc(a), unary(), fwd_ulp=_u(2, 2, 0, 0),
           bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="float64 erfc rounded to fp32 then 16 bits (Sleef erfcf_u15 in PyTorch: "
                 "bit-exact on every 16-bit input, measured)"),
    OpSpec("i0", lambda lib, F, a: lib.i0(a), unary(), fwd_ulp=_u(0, 0, 0, 0),
           bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="Cephes' Chebyshev series with GCC's fma contraction, expf/exp from the C "
                 "library: bit-exact (40,000 fp32/fp64 draws, every 16-bit input); backward "
                 "grad * i1(x)"),
    OpSpec("special_i0e", lambda lib, F, a: lib.special.i0e(a), unary(),
           fwd_ulp=_u(0, 0, 0, 0), bwd_ulp=_u(4, 4, 2, 2), bwd_scale="max",
           notes="as i0; 16-bit scalar tail in 16-bit steps as ATen's (bit-exact on every "
                 "16-bit input); backward grad * (i1e - sgn(x) i0e) composite"),
    OpSpec("special_i1", lambda lib, F, a: lib.special.i1(a), unary(),
           fwd_ulp=_u(0, 1, 0, 0), bwd_ulp=_u(4, 4, 2, 2), bwd_scale="max",
           notes="as i0; fp32: 2 of 250,000 draws 1 ulp off (not identified); backward "
                 "grad * (i0 - i1 / x), 0.5 at |x| <= eps (ATen's i1_backward)"),
    OpSpec("special_i1e", lambda lib, F, a: lib.special.i1e(a), unary(),
           fwd_ulp=_u(0, 1, 0, 0), bwd_ulp=_u(4, 4, 2, 2), bwd_scale="max",
           notes="as special_i1 (i1e_backward)"),
    OpSpec("special_ndtri", lambda lib, F, a: lib.special.ndtri(a), unary("unit", "smooth"),
           dtypes=("float64", "float32"), fwd_ulp=_u(0, 0), bwd_ulp=_u(4, 4), bwd_scale="max",
           notes="Cephes' rational approximations with GCC's fmas, fp32 logs in double as "
                 "ATen's ::log: bit-exact (35,000 draws); no 16-bit kernel in PyTorch"),
    OpSpec("special_erfcx", lambda lib, F, a: lib.special.erfcx(a), unary(),
           dtypes=("float64", "float32"), fwd_ulp=_u(6, 2), bwd_ulp=_u(8, 4), bwd_scale="max",
           notes="ATen's Faddeeva table not reproduced: exp(x^2) erfc(x) with an exact x^2 "
                 "below 10, a 100-level continued fraction above (double), ATen's formulas "
                 "for x < 0 and x > 50; fp32 within 2 ulp (mostly x > 50), fp64 within 5 ulp "
                 "(measured on 180,000 draws)"),
    OpSpec("special_log_ndtr", lambda lib, F, a: lib.special.log_ndtr(a), unary(),
           dtypes=("float64", "float32"), fwd_ulp=_u(4, 1), bwd_ulp=_u(8, 4), bwd_scale="max",
           notes="log1p(-erfc(t)/2) for x >= -1 (C library, bit-exact), log(erfcx(-t)/2) - "
                 "t^2 below (erfcx's error: fp32 1 ulp, fp64 4 ulp measured)"),
    OpSpec("put", _put_fn, _put_sample, gradcheck=False, dtype_test=False,
           notes="flat-index write; accumulate adds in order in the dtype; gradcheck off: "
                 "the sample's index is a fixed permutation"),
    OpSpec("take", _take_fn, _take_sample,
           notes="flat-index read; backward puts grad with accumulate (repeats summed)"),
    OpSpec("xlogy.Scalar_Other", lambda lib, F, a, b: lib.xlogy(a, b), _number_sample(False),
           fwd_ulp=_u(2, 2, 0, 0), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max"),
    OpSpec("xlogy.Scalar_Self", lambda lib, F, a, b: lib.xlogy(a, b), _number_sample(True),
           fwd_ulp=_u(2, 2, 0, 0), bwd_ulp=_u(4, 4, 2, 2), bwd_scale="max",
           notes="16-bit gradient grad * self / other: PyTorch rounds the product before the "
                 "division (2 ulp here, found by CI's hypothesis draws)"),
]

_WHY = ("in-place form of a special pointwise op (values are its kernel's): values, node, "
        "version, gradients, CopySlices and errors vs torch in "
        "tests/differential/test_inplace_methods_special.py")
EXEMPT.update({name: _WHY for name in (
    "sinc_", "logit_", "copysign_.Tensor", "copysign_.Scalar", "ldexp_", "nextafter_", "gcd_",
    "lcm_", "heaviside_", "erfc_", "conj_physical_", "put_")})
EXEMPT["i0_"] = ("in-place i0 (run_inplace around the i0 kernel): values, node and errors vs "
                 "torch in tests/differential/test_special_bessel_normal.py")
