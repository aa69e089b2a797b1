"""Catalogue entries for the pointwise math and activation ops of issue 7 (gelu, silu, sin...).

Bounds: fp16/bf16 bit-exact (measured over all 65,536 inputs of each format by
``bench/check_16bit_unary_exhaustive.py``; the few stated exceptions are in ``notes``). fp32/fp64:
the vectorised functions PyTorch calls (MKL, Sleef) are within an ulp or two of the correctly
rounded values used here. Where a formula cancels (``1 + erf(x)`` for x < -3 in gelu, the
backward kernels' sums near their zeros), PyTorch's own fp32 value carries that cancellation
error, so the bound there is absolute: ``scale="max"`` (slack relative to the largest |result|).
"""
from __future__ import annotations

import minigrad as mg
from minigrad.numerics import onednn_takes
from tests.op_samples import binary, unary
from tests.op_specs import EXEMPT, OpSpec, _u
from tests.strategies import Sample

TRANSC = _u(2, 2, 0, 0)
# On a CPU where PyTorch hands 16-bit gelu to oneDNN (``numerics.onednn_takes``: AVX-512 /
# AVX512-FP16 flags), oneDNN's AVX-512 JIT evaluates it with erf/exp polynomials of its own:
# 1 ulp in fp16/bf16 there (measured over every finite input: 99.4-99.96% bit-exact, the rest
# 1 ulp apart or below 2**-20 where 1 + erf cancels), bit-exact on every other CPU.
_ONEDNN_GELU = _u(4, 4, 1, 1)
SMOOTH = _u(4, 4, 0, 0)
_CANCEL = ("fp32/fp64: absolute bound (scale='max') where the formula cancels: PyTorch's "
           "vectorised fp32 value carries that cancellation error (measured max 4 * eps * "
           "max|y| in fp32, 21 in fp64 over 65k normal(0, 3) inputs); fp16/bf16 bit-exact")


def _kw(**choices):
    """A unary sample with keyword arguments drawn from ``choices`` (name -> list)."""
    def gen(d):
        kw = {k: d.choice(v) for k, v in choices.items()}
        return Sample([d.floats(d.shape(), "real")], {k: v for k, v in kw.items()
                                                       if v is not None})
    return gen


def _pos(name):
    return (name, "positive")


def _unit(name):
    return (name, "unit")


_MATH = [("sin", "real"), ("cos", "real"), ("tan", "real"), _unit("asin"), _unit("acos"),
         ("atan", "real"), ("sinh", "real"), ("cosh", "real"), ("asinh", "real"),
         _unit("atanh"), ("exp2", "real"), ("erf", "real"),
         _unit("erfinv"), ("log1p", "nonneg"), ("expm1", "real"), _pos("log2"), _pos("log10"),
         _pos("rsqrt")]
_NOTES = {
    "sin": "fp16: 1 ulp on 2 of 65,536 inputs (+-300, a sine within 1e-7 of an fp16 midpoint: "
           "Sleef's sinf_u35 lands on its other side); all other inputs bit-exact",
    "asin": "fp16: 1 ulp on 2 of 65,536 inputs (+-0.136474609375, next to an fp16 midpoint)",
    "erf": "fp16/bf16: ATen's own fp32 erf (A&S 7.1.26) then one rounding; fp32/fp64 MKL "
           "(correctly rounded here)",
    "rsqrt": "1 / sqrt(x) with two fp32 roundings, as ATen",
}


def _math_spec(name, domain):
    f16 = 1 if name in ("sin", "asin") else 0
    return OpSpec(name, lambda lib, F, a, n=name: getattr(lib, n)(a), unary(domain),
                  fwd_ulp=_u(2, 2, f16, 0), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
                  notes=_NOTES.get(name, "") + ("; " if name in _NOTES else "") +
                  "backward: composite of dispatched ops (two or three roundings in 16-bit, "
                  "as PyTorch's autograd formula)")


def _fn(name):
    return lambda lib, F, a, **kw: getattr(F, name)(a, **kw)


SPECS = [_math_spec(n, dom) for n, dom in _MATH] + [
    OpSpec("hypot", lambda lib, F, a, b: lib.hypot(a, b), binary(scalars=False),
           fwd_ulp=_u(2, 2, 0, 0), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="float64 hypot rounded to fp32 then 16 bits; backward composite "
                 "(grad * x / result)"),
    OpSpec("logaddexp", lambda lib, F, a, b: lib.logaddexp(a, b), binary(scalars=False),
           fwd_ulp=_u(2, 2, 1, 0), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="fp32 steps with correctly rounded exp/log1p for ATen's Sleef _u10 calls (1 "
                 "ulp off now and then in fp32, which shows in fp16 where the sum cancels: 2 of "
                 "400,000 random pairs); backward composite grad / (1 + exp(other - input))"),
    OpSpec("logaddexp2", lambda lib, F, a, b: lib.logaddexp2(a, b), binary(scalars=False),
           fwd_ulp=_u(2, 2, 1, 0), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="as logaddexp, with ATen's fused multiply-add by 1 / ln 2; backward composite "
                 "grad / (1 + 2 ** (other - input))"),
    OpSpec("sgn", lambda lib, F, a: lib.sgn(a), unary(), differentiable=False,
           notes="sign for real tensors; PyTorch's gradient is a ZeroTensor the harness cannot "
                 "read: node and zero gradient checked in tests/differential/"
                 "test_inplace_methods.py"),
    OpSpec("deg2rad", lambda lib, F, a: lib.deg2rad(a), unary(),
           notes="one product by the fp32 (fp64) constant in opmath, as ATen's mul"),
    OpSpec("rad2deg", lambda lib, F, a: lib.rad2deg(a), unary()),
    OpSpec("acosh", lambda lib, F, a: lib.acosh(a.abs() + 1), unary(), fwd_ulp=_u(2, 2, 0, 0),
           bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="input |a| + 1 (acosh is nan below 1); backward composite of dispatched ops "
                 "(grad * rsqrt(x**2 - 1), as PyTorch's formula)"),
    OpSpec("atan2", lambda lib, F, a, b: lib.atan2(a, b), binary(scalars=False),
           fwd_ulp=_u(2, 2, 1, 0), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="fp16: 1 ulp on 30 of 65,536 (x, next x) pairs near -3pi/4 (measured by "
                 "bench/check_16bit_unary_exhaustive.py; PyTorch's value is the farther one, "
                 "not reproduced); bf16 bit-exact"),
    OpSpec("floor", lambda lib, F, a: lib.floor(a), unary(), gradcheck=False,
           notes="zero gradient; steps at integers (no finite-difference check)"),
    OpSpec("ceil", lambda lib, F, a: lib.ceil(a), unary(), gradcheck=False),
    OpSpec("trunc", lambda lib, F, a: lib.trunc(a), unary(), gradcheck=False),
    OpSpec("round", lambda lib, F, a: lib.round(a), unary(), gradcheck=False),
    OpSpec("round.decimals", lambda lib, F, a, decimals: lib.round(a, decimals=decimals),
           lambda d: Sample([d.floats(d.shape(), "real")], {"decimals": d.choice([1, 2, -1])}),
           gradcheck=False, dtype_test=False,
           notes="dtype test off: integer input raises NotImplementedError in both, but "
                 "the mixed-dtype template passes decimals positionally"),
    OpSpec("frac", lambda lib, F, a: lib.frac(a), unary(), gradcheck=False,
           notes="gradient 1 except at the jumps at integers"),
    OpSpec("clamp_min", lambda lib, F, a, m: lib.clamp_min(a, m),
           lambda d: Sample([d.floats(d.shape(), "real"), d.choice([0.5, -1, 0, 2.5])])),
    OpSpec("clamp_max", lambda lib, F, a, m: lib.clamp_max(a, m),
           lambda d: Sample([d.floats(d.shape(), "real"), d.choice([0.5, -1, 0, 2.5])])),
    OpSpec("clamp_min.Tensor", lambda lib, F, a, b: lib.clamp_min(a, b), binary(scalars=False),
           gradcheck=False, notes="ties a == b split the gradient at a kink"),
    OpSpec("clamp_max.Tensor", lambda lib, F, a, b: lib.clamp_max(a, b), binary(scalars=False),
           gradcheck=False),
    OpSpec("nan_to_num", lambda lib, F, a, **kw: lib.nan_to_num(a, **kw),
           lambda d: Sample([d.floats(d.shape(), "real")],
                            d.choice([{}, {"nan": 1.5}, {"posinf": 100.0, "neginf": -3.0}]))),
    OpSpec("lerp", lambda lib, F, a, b, w: lib.lerp(a, b, w),
           lambda d: Sample([*(d.floats(s, "real") for s in d.bshapes(2)),
                             d.choice([0.3, 0.7, 0.0, 1.0, -0.5])])),
    OpSpec("lerp.Tensor", lambda lib, F, a, b, w: lib.lerp(a, b, w),
           lambda d: Sample([d.floats(s, "real") for s in d.bshapes(3)]),
           bwd_ulp=_u(2, 2, 1, 1), bwd_scale="max"),
    OpSpec("addcmul", lambda lib, F, a, b, c, **kw: lib.addcmul(a, b, c, **kw),
           lambda d: Sample([d.floats(s, "real") for s in d.bshapes(3)],
                            d.choice([{}, {"value": 0.3}, {"value": -2}])),
           bwd_ulp=_u(2, 2, 1, 1), bwd_scale="max"),
    OpSpec("addcdiv", lambda lib, F, a, b, c, **kw: lib.addcdiv(a, b, c, **kw),
           lambda d: Sample([d.floats(s, dom) for s, dom in zip(d.bshapes(3),
                                                                ("real", "real", "nonzero"))],
                            d.choice([{}, {"value": 0.3}, {"value": -2}])),
           bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max"),
    # activations (F.*), each with its fused backward kernel
    OpSpec("gelu", _fn("gelu"), _kw(approximate=[None, "none", "tanh"]),
           fwd_ulp=_ONEDNN_GELU if onednn_takes(mg.bfloat16) else SMOOTH,
           bwd_ulp=_ONEDNN_GELU if onednn_takes(mg.bfloat16) else SMOOTH, scale="abs",
           bwd_scale="max",
           notes="ATen's fp32 erf (A&S 7.1.26) and formula order; gelu_backward fused "
                 "(tanh form: 1 - t*t is an fma). Exhaustive fp16 forward bit-exact; "
                 "gelu_backward fp16 1 ulp on 2 (erf) / 1 (tanh) of 65,536 (grad, x) pairs. "
                 "Forward slack scaled by gelu(|x|) ~ |x|: for x < 0, 0.5*x*(1 + tanh(...)) "
                 "cancels terms of size |x|/2 (fp64 tanh form at x=-2.4765625: 40 ulp of the "
                 "0.016 result). " + _CANCEL),
    OpSpec("silu", _fn("silu"), unary(), fwd_ulp=SMOOTH, bwd_ulp=SMOOTH, bwd_scale="max",
           notes="x / (1 + exp(-x)) in fp32; silu_backward fused (fp16: 1 ulp on 1 of 65,536 "
                 "(grad, x) pairs). " + _CANCEL),
    OpSpec("mish", _fn("mish"), unary(), fwd_ulp=_u(4, 4, 1, 0), bwd_ulp=SMOOTH,
           bwd_scale="max",
           notes="fp16: 1 ulp on 1 of 65,536 inputs (-9.2890625, a Sleef log1pf/tanhf last-bit "
                 "difference); mish_backward fused. " + _CANCEL),
    OpSpec("softplus", _fn("softplus"), _kw(beta=[None, 2.0, 0.5], threshold=[None, 5.0]),
           fwd_ulp=SMOOTH, bwd_ulp=SMOOTH, bwd_scale="max",
           notes="softplus_backward fused: dy * z / (z + 1), z = exp(beta * x)"),
    OpSpec("logsigmoid", _fn("logsigmoid"), unary(), fwd_ulp=SMOOTH, bwd_ulp=SMOOTH,
           bwd_scale="max",
           notes="min(x, 0) - log1p(exp(-|x|)); Sleef's expf gives 0 where the result would be "
                 "the smallest fp32 subnormal (reproduced); log_sigmoid_backward fused"),
    OpSpec("leaky_relu", _fn("leaky_relu"), _kw(negative_slope=[None, 0.2, -0.5]),
           notes="leaky_relu_backward fused (exact selection, one multiply)"),
    OpSpec("elu", _fn("elu"), _kw(alpha=[None, 0.5, 2.0]), fwd_ulp=TRANSC, bwd_ulp=TRANSC,
           notes="expm1(x) * alpha in fp32; elu_backward fused"),
    OpSpec("selu", _fn("selu"), unary(), fwd_ulp=TRANSC, bwd_ulp=TRANSC,
           notes="elu with PyTorch's constants (node EluBackward0)"),
    OpSpec("hardtanh", _fn("hardtanh"),
           lambda d: Sample([d.floats(d.shape(), "real")],
                            d.choice([{}, {"min_val": -0.5, "max_val": 2.0}])),
           gradcheck=False, notes="kinks at the bounds; hardtanh_backward exact"),
    OpSpec("relu6", _fn("relu6"), unary(), gradcheck=False),
    OpSpec("hardswish", _fn("hardswish"), unary(), gradcheck=False,
           notes="kinks at +-3; hardswish_backward fused"),
    OpSpec("hardsigmoid", _fn("hardsigmoid"), unary(), gradcheck=False,
           notes="kinks at +-3; hardsigmoid_backward fused (1/6 is the fp32 1.0f/6.0f)"),
    OpSpec("celu", _fn("celu"), _kw(alpha=[None, 0.5, 2.0]), fwd_ulp=TRANSC, bwd_ulp=TRANSC,
           notes="elu kernel with input_scale 1/alpha; CeluBackward0 -> elu_backward fused"),
    OpSpec("hardshrink", _fn("hardshrink"), _kw(lambd=[None, 0.3, 1.0]), gradcheck=False,
           notes="exact selection (lambd in the input's dtype); jumps at +-lambd; "
                 "hardshrink_backward exact"),
    OpSpec("softshrink", _fn("softshrink"), _kw(lambd=[None, 0.3, 1.0]), gradcheck=False,
           notes="one subtraction in fp32; kinks at +-lambd; softshrink_backward exact"),
    OpSpec("threshold", _fn("threshold"), _kw(threshold=[0.1, -0.5], value=[20.0, -1.5]),
           gradcheck=False, notes="exact selection; jump at the threshold; "
                                  "threshold_backward exact"),
    OpSpec("rrelu", _fn("rrelu"), _kw(lower=[None, 0.2], upper=[None, 0.6]), gradcheck=False,
           notes="eval mode (training=False): leaky_relu with slope (lower + upper) / 2 "
                 "(RreluWithNoiseBackward0); training draws random slopes, tested in "
                 "tests/differential/test_activation_modules.py"),
    OpSpec("prelu", lambda lib, F, a, w: F.prelu(a, w), lambda d: _prelu_sample(d),
           gradcheck=False, notes="_prelu_kernel and _prelu_kernel_backward fused (one "
                                  "rounding each); kink at 0; weight grad summed by autograd"),
]


def _prelu_sample(d):
    """An input of 1 to 3 dims and a weight of one value or one per channel (dim 1)."""
    shape = d.shape(min_dims=1, max_dims=3, min_side=1)
    c = shape[1] if len(shape) > 1 else 1
    wshape = d.choice([(1,), (c,)]) if c > 1 else (1,)
    return Sample([d.floats(shape, "real"), d.floats(wshape, "real")])


_INPLACE = ("in-place form of a catalogue op (values are its kernel's): values, graph node and "
            "gradients against torch in tests/differential/test_pointwise_inplace.py; 16-bit "
            "values in tests/unary16_catalogue.py")
EXEMPT.update({name: _INPLACE for name in (
    "sin_", "cos_", "tan_", "asin_", "acos_", "atan_", "sinh_", "cosh_", "asinh_", "acosh_",
    "atanh_", "exp2_", "log1p_", "expm1_",
    "log2_", "log10_", "rsqrt_", "erf_", "erfinv_", "floor_", "ceil_", "trunc_", "frac_",
    "round_", "nan_to_num_", "atan2_", "hypot_", "lerp_.Scalar", "lerp_.Tensor", "addcmul_",
    "addcdiv_",
    "clamp_min_", "clamp_min_.Tensor", "clamp_max_", "clamp_max_.Tensor", "silu_", "mish_",
    "elu_", "selu_", "leaky_relu_", "hardtanh_", "relu6_", "hardswish_", "hardsigmoid_",
    "celu_", "threshold_", "rrelu_", "rrelu_with_noise_",
    "logical_and_", "logical_or_", "logical_xor_", "logical_not_")})
