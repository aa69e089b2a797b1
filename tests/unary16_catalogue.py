"""Every registered unary float op, as one lambda that runs in both frameworks, for the bit-for-bit
check of fp16/bf16 results (``bench/check_16bit_unary_exhaustive.py`` over all 65,536 inputs of
each format; ``tests/differential/test_16bit_unary.py`` over a sample plus the known hard inputs).

``UNARY`` maps a case name to ``(registered op name, f(L, x))`` with ``L`` either ``torch`` or
``minigrad``; ops with a Python-number argument (pow, rpow, mul/div/add/sub by a number, clamp)
appear with several numbers. ``NOT_ELEMENTWISE_MATH`` names the registered ops that take one
tensor and return its shape but do no arithmetic (views, copies), which the coverage test skips.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

UNARY = {
    # in-place forms: the same kernels written into the input (a clone, so inputs stay intact)
    "relu_": ("relu_", lambda L, a: a.clone().relu_()),
    "sigmoid_": ("sigmoid_", lambda L, a: a.clone().sigmoid_()),
    "tanh_": ("tanh_", lambda L, a: a.clone().tanh_()),
    "abs": ("abs", lambda L, a: a.abs()),
    "neg": ("neg", lambda L, a: -a),
    "exp": ("exp", lambda L, a: a.exp()),
    "log": ("log", lambda L, a: a.log()),
    "sqrt": ("sqrt", lambda L, a: a.sqrt()),
    "reciprocal": ("reciprocal", lambda L, a: a.reciprocal()),
    "sign": ("sign", lambda L, a: a.sign()),
    "relu": ("relu", lambda L, a: a.relu()),
    "sigmoid": ("sigmoid", lambda L, a: a.sigmoid()),
    "tanh": ("tanh", lambda L, a: a.tanh()),
    "pow0": ("pow", lambda L, a: a ** 0),
    "pow1": ("pow", lambda L, a: a ** 1),
    "pow2": ("pow", lambda L, a: a ** 2),
    "pow3": ("pow", lambda L, a: a ** 3),
    "pow0.5": ("pow", lambda L, a: a ** 0.5),
    "pow-0.5": ("pow", lambda L, a: a ** -0.5),
    "pow-1": ("pow", lambda L, a: a ** -1),
    "pow-2": ("pow", lambda L, a: a ** -2),
    "pow2.5": ("pow", lambda L, a: a ** 2.5),
    "pow-1.3": ("pow", lambda L, a: a ** -1.3),
    "rpow1.7": ("rpow", lambda L, a: 1.7 ** a),
    "rpow2": ("rpow", lambda L, a: 2 ** a),
    "mul0.1": ("mul", lambda L, a: a * 0.1),
    "div3": ("div", lambda L, a: a / 3.0),
    "rdiv2": ("rdiv", lambda L, a: 2.0 / a),
    "add0.1": ("add", lambda L, a: a + 0.1),
    "sub0.3": ("sub", lambda L, a: a - 0.3),
    "rsub1": ("rsub", lambda L, a: 1 - a),
    "add_alpha": ("add", lambda L, a: L.add(a, a, alpha=0.3)),
    "mul_self": ("mul", lambda L, a: a * a),
    "div_trunc2.5": ("div", lambda L, a: L.div(a, 2.5, rounding_mode="trunc")),
    "div_floor2.5": ("div", lambda L, a: L.div(a, 2.5, rounding_mode="floor")),
    "clamp": ("clamp", lambda L, a: L.clamp(a, -1.5, 2.0)),
    "maximum0": ("maximum", lambda L, a: L.maximum(a, L.zeros_like(a))),
    "minimum0": ("minimum", lambda L, a: L.minimum(a, -L.zeros_like(a))),
    "where": ("where", lambda L, a: L.where(a > 1, a, 0.5)),
    "masked_fill": ("masked_fill", lambda L, a: a.masked_fill(a < 0, 2.0)),
    "isnan": ("isnan", lambda L, a: L.isnan(a)),
    "isinf": ("isinf", lambda L, a: L.isinf(a)),
    "isfinite": ("isfinite", lambda L, a: L.isfinite(a)),
    "eq0.1": ("eq", lambda L, a: a == 0.1),
    "lt1": ("lt", lambda L, a: a < 1),
    "logical_not": ("logical_not", lambda L, a: L.logical_not(a)),
    "to_float32": ("_to_copy", lambda L, a: a.float()),
    "digamma": ("digamma", lambda L, a: a.digamma()),
    "lgamma": ("lgamma", lambda L, a: a.lgamma()),
    "i0": ("i0", lambda L, a: a.i0()),
    "i0_": ("i0_", lambda L, a: a.clone().i0_()),
    # pointwise math and activations of issue 7 (each op, and its in-place form on a clone)
    **{n: (n, lambda L, a, n=n: getattr(a, n)()) for n in (
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
        "exp2", "erf", "erfinv", "log1p",
        "expm1", "log2", "log10", "rsqrt", "floor", "ceil", "trunc", "frac", "round")},
    **{n + "_": (n + "_", lambda L, a, n=n: getattr(a.clone(), n + "_")()) for n in (
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
        "exp2", "erf", "erfinv", "log1p",
        "expm1", "log2", "log10", "rsqrt", "floor", "ceil", "trunc", "frac", "round")},
    **{n + "_": (n + "_", lambda L, a, n=n: getattr(a.clone(), n + "_")()) for n in (
        "exp", "log", "sqrt", "abs", "neg", "reciprocal", "sign", "square", "sgn", "deg2rad",
        "rad2deg")},
    **{n: (n, lambda L, a, n=n: getattr(a, n)()) for n in ("sgn", "deg2rad", "rad2deg")},
    "pow_0.5": ("pow_.Scalar", lambda L, a: a.clone().pow_(0.5)),
    "round2": ("round.decimals", lambda L, a: a.round(decimals=2)),
    "round-1": ("round.decimals", lambda L, a: a.round(decimals=-1)),
    "nan_to_num": ("nan_to_num", lambda L, a: a.nan_to_num()),
    "nan_to_num_": ("nan_to_num_", lambda L, a: a.clone().nan_to_num_(1.5, 100.0, -3.0)),
    "clamp_min0.3": ("clamp_min", lambda L, a: a.clamp_min(0.3)),
    "clamp_max-0.7": ("clamp_max", lambda L, a: a.clamp_max(-0.7)),
    "clamp_min_": ("clamp_min_", lambda L, a: a.clone().clamp_min_(0.3)),
    "clamp_max_": ("clamp_max_", lambda L, a: a.clone().clamp_max_(-0.7)),
    "clamp_min_t": ("clamp_min.Tensor", lambda L, a: a.clamp_min(_rot(L, a, 1))),
    "clamp_max_t": ("clamp_max.Tensor", lambda L, a: a.clamp_max(_rot(L, a, 1))),
    "atan2": ("atan2", lambda L, a: L.atan2(a, _rot(L, a, 1))),
    "atan2_": ("atan2_", lambda L, a: a.clone().atan2_(_rot(L, a, 1))),
    "hypot": ("hypot", lambda L, a: L.hypot(a, _rot(L, a, 1))),
    "hypot_": ("hypot_", lambda L, a: a.clone().hypot_(_rot(L, a, 1))),
    "sinc": ("sinc", lambda L, a: L.sinc(a)),
    "sinc_": ("sinc_", lambda L, a: a.clone().sinc_()),
    "logit": ("logit", lambda L, a: L.logit(a)),
    "logit_eps": ("logit", lambda L, a: L.logit(a, eps=0.05)),
    "logit_": ("logit_", lambda L, a: a.clone().logit_(0.2)),
    "erfc": ("erfc", lambda L, a: L.erfc(a)),
    "erfc_": ("erfc_", lambda L, a: a.clone().erfc_()),
    "lerp0.3": ("lerp.Scalar", lambda L, a: L.lerp(a, _rot(L, a, 1), 0.3)),
    "lerp0.7_": ("lerp_.Scalar", lambda L, a: a.clone().lerp_(_rot(L, a, 1), 0.7)),
    "lerp_t": ("lerp.Tensor", lambda L, a: L.lerp(a, _rot(L, a, 1), _rot(L, a, 7))),
    "lerp_t_": ("lerp_.Tensor", lambda L, a: a.clone().lerp_(_rot(L, a, 1), _rot(L, a, 7))),
    "addcmul": ("addcmul", lambda L, a: L.addcmul(a, _rot(L, a, 1), _rot(L, a, 7), value=0.3)),
    "addcmul_": ("addcmul_", lambda L, a: a.clone().addcmul_(_rot(L, a, 1), _rot(L, a, 7))),
    "addcdiv": ("addcdiv", lambda L, a: L.addcdiv(a, _rot(L, a, 1), _rot(L, a, 7), value=0.3)),
    "addcdiv_": ("addcdiv_", lambda L, a: a.clone().addcdiv_(_rot(L, a, 1), _rot(L, a, 7))),
    "gelu": ("gelu", lambda L, a: L.nn.functional.gelu(a)),
    "gelu_tanh": ("gelu", lambda L, a: L.nn.functional.gelu(a, approximate="tanh")),
    "silu": ("silu", lambda L, a: L.nn.functional.silu(a)),
    "silu_": ("silu_", lambda L, a: L.nn.functional.silu(a.clone(), inplace=True)),
    "mish": ("mish", lambda L, a: L.nn.functional.mish(a)),
    "mish_": ("mish_", lambda L, a: L.nn.functional.mish(a.clone(), inplace=True)),
    "softplus": ("softplus", lambda L, a: L.nn.functional.softplus(a)),
    "softplus2_5": ("softplus", lambda L, a: L.nn.functional.softplus(a, 2.0, 5.0)),
    "logsigmoid": ("log_sigmoid", lambda L, a: L.nn.functional.logsigmoid(a)),
    "leaky_relu": ("leaky_relu", lambda L, a: L.nn.functional.leaky_relu(a)),
    "leaky_relu0.2_": ("leaky_relu_", lambda L, a: L.nn.functional.leaky_relu(a.clone(), 0.2,
                                                                           inplace=True)),
    "elu": ("elu", lambda L, a: L.nn.functional.elu(a)),
    "elu0.5_": ("elu_", lambda L, a: L.nn.functional.elu(a.clone(), 0.5, inplace=True)),
    "selu": ("selu", lambda L, a: L.nn.functional.selu(a)),
    "selu_": ("selu_", lambda L, a: L.nn.functional.selu(a.clone(), inplace=True)),
    "hardtanh": ("hardtanh", lambda L, a: L.nn.functional.hardtanh(a)),
    "hardtanh_": ("hardtanh_", lambda L, a: L.nn.functional.hardtanh(a.clone(), -0.3, 1.7,
                                                                    inplace=True)),
    "relu6": ("relu6", lambda L, a: L.nn.functional.relu6(a)),
    "relu6_": ("relu6_", lambda L, a: L.nn.functional.relu6(a.clone(), inplace=True)),
    "hardswish": ("hardswish", lambda L, a: L.nn.functional.hardswish(a)),
    "hardswish_": ("hardswish_", lambda L, a: L.nn.functional.hardswish(a.clone(), inplace=True)),
    "hardsigmoid": ("hardsigmoid", lambda L, a: L.nn.functional.hardsigmoid(a)),
    "hardsigmoid_": ("hardsigmoid_", lambda L, a: L.nn.functional.hardsigmoid(a.clone(),
                                                                             inplace=True)),
    "celu": ("celu", lambda L, a: L.nn.functional.celu(a)),
    "celu0.7_": ("celu_", lambda L, a: L.nn.functional.celu(a.clone(), 0.7, inplace=True)),
    "hardshrink": ("hardshrink", lambda L, a: L.nn.functional.hardshrink(a)),
    "hardshrink0.3": ("hardshrink", lambda L, a: L.nn.functional.hardshrink(a, 0.3)),
    "softshrink0.3": ("softshrink", lambda L, a: L.nn.functional.softshrink(a, 0.3)),
    "threshold": ("threshold", lambda L, a: L.nn.functional.threshold(a, 0.3, -1.7)),
    "threshold_": ("threshold_", lambda L, a: L.nn.functional.threshold(a.clone(), -0.1, 7.3,
                                                                       inplace=True)),
    "rrelu": ("rrelu", lambda L, a: L.nn.functional.rrelu(a)),
    "rrelu_": ("rrelu_", lambda L, a: L.nn.functional.rrelu(a.clone(), 0.1, 0.7, inplace=True)),
    "prelu": ("_prelu_kernel", lambda L, a: L.nn.functional.prelu(a, L.full((1,), 0.3,
                                                                            dtype=a.dtype))),
    "logical_not_": ("logical_not_", lambda L, a: a.clone().logical_not_()),
    "logical_and_": ("logical_and_", lambda L, a: a.clone().logical_and_(_rot(L, a, 1))),
    "logical_or_": ("logical_or_", lambda L, a: a.clone().logical_or_(_rot(L, a, 1))),
    "logical_xor_": ("logical_xor_", lambda L, a: a.clone().logical_xor_(_rot(L, a, 1))),
    # the fused backward kernels, with an upstream gradient that is the input rotated
    **{k: (op, lambda L, a, f=f: f(L.ops.aten if L.__name__ == "torch" else _MgAten(L), a, L))
       for k, (op, f) in {
        "gelu_backward": ("gelu_backward", lambda A, a, L: A.gelu_backward(_rot(L, a, 1), a)),
        "gelu_backward_tanh": ("gelu_backward", lambda A, a, L: A.gelu_backward(
            _rot(L, a, 1), a, approximate="tanh")),
        "silu_backward": ("silu_backward", lambda A, a, L: A.silu_backward(_rot(L, a, 1), a)),
        "mish_backward": ("mish_backward", lambda A, a, L: A.mish_backward(_rot(L, a, 1), a)),
        "softplus_backward": ("softplus_backward",
                              lambda A, a, L: A.softplus_backward(_rot(L, a, 1), a, 1.0, 20.0)),
        "leaky_relu_backward": ("leaky_relu_backward", lambda A, a, L: A.leaky_relu_backward(
            _rot(L, a, 1), a, 0.2, False)),
        "elu_backward": ("elu_backward",
                         lambda A, a, L: A.elu_backward(_rot(L, a, 1), 1.0, 1.0, 1.0, False, a)),
        "elu_backward_result": ("elu_backward", lambda A, a, L: A.elu_backward(
            _rot(L, a, 1), 0.7, 1.3, 1.0, True, a)),
        "hardtanh_backward": ("hardtanh_backward",
                              lambda A, a, L: A.hardtanh_backward(_rot(L, a, 1), a, -0.3, 1.7)),
        "hardswish_backward": ("hardswish_backward",
                               lambda A, a, L: A.hardswish_backward(_rot(L, a, 1), a)),
        "hardsigmoid_backward": ("hardsigmoid_backward",
                                 lambda A, a, L: A.hardsigmoid_backward(_rot(L, a, 1), a)),
        "hardshrink_backward": ("hardshrink_backward", lambda A, a, L: A.hardshrink_backward(
            _rot(L, a, 1), a, 0.3)),
        "softshrink_backward": ("softshrink_backward", lambda A, a, L: A.softshrink_backward(
            _rot(L, a, 1), a, 0.3)),
        "rrelu_with_noise_backward": ("rrelu_with_noise_backward",
                                      lambda A, a, L: A.rrelu_with_noise_backward(
                                          _rot(L, a, 1), a, _rot(L, a, 3), 0.1, 0.7, False,
                                          False)),
        "rrelu_with_noise_backward_training": (
            "rrelu_with_noise_backward", lambda A, a, L: A.rrelu_with_noise_backward(
                _rot(L, a, 1), a, _rot(L, a, 3), 0.1, 0.7, True, False)),
        "prelu_kernel_backward": ("_prelu_kernel_backward", lambda A, a, L: L.cat(
            A._prelu_kernel_backward(_rot(L, a, 1), a, _rot(L, a, 5)))),
    }.items()},
}

def _rot(L, a, k):
    """``a`` rotated left by ``k`` elements (``cat``): a second operand paired with every input."""
    return L.cat([a[k:], a[:k]])


class _MgAten:
    """``torch.ops.aten.<op>(...)`` for minigrad: ``dispatch("<op>", ...)``."""

    def __init__(self, lib):
        self._dispatch = lib.dispatch.dispatch

    def __getattr__(self, name):
        return lambda *args, **kwargs: self._dispatch(name, *args, **kwargs)


# registered ops that take one tensor and keep its shape without doing arithmetic on it
NOT_ELEMENTWISE_MATH = {"clone", "t", "squeeze", "flatten", "_to_copy", "zeros_like",
                        "ones_like", "fill_", "zero_", "copy_", "unsqueeze", "transpose",
                        "permute", "view", "reshape", "expand", "contiguous", "detach",
                        "softmax", "log_softmax", "_softmax", "_log_softmax", "cat", "stack",
                        "full_like", "rand_like", "randn_like", "tensor", "empty_like",
                        "t_", "squeeze_", "conj_physical_",
                        # random fills (values are random draws; tests/unit/test_random_ops.py)
                        "normal_", "uniform_", "exponential_", "random_", "cauchy_",
                        "log_normal_", "geometric_"}

FORMATS = {"float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16)}

# inputs where a double rounding through NumPy's fp32 math once gave a different 16-bit result
HARD_INPUTS = {"bfloat16": [6.84375], "float16": [0.0025424957275390625, -0.00439453125,
                                                  -0.01025390625]}


def all_inputs(fmt):
    """All 65,536 bit patterns of the 16-bit format ``fmt`` (a NumPy array of that dtype)."""
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(FORMATS[fmt])


def mismatches(got, ref):
    """Indices where two result arrays differ in bits (both NaN counts as equal; the sign of
    zero counts)."""
    got, ref = np.asarray(got), np.asarray(ref)
    if got.dtype.kind == "b" or ref.dtype.kind == "b":
        return np.flatnonzero(got != ref)
    g = got.astype(np.float64)
    r = ref.astype(np.float64)
    nan = np.isnan(g) & np.isnan(r)
    if got.dtype.itemsize == ref.dtype.itemsize and got.dtype.kind == ref.dtype.kind:
        differ = got.view(f"u{got.dtype.itemsize}") != ref.view(f"u{ref.dtype.itemsize}")
    else:
        differ = (g != r) | (np.signbit(g) != np.signbit(r))
    return np.flatnonzero(differ & ~nan)


def run_both(case, fmt, values):
    """Run ``UNARY[case]`` on ``values`` (an array of format ``fmt``) in torch and minigrad;
    returns (torch result, minigrad result) as NumPy arrays in their storage formats (bf16 as
    ``ml_dtypes.bfloat16``), or raises what either framework raised."""
    import torch

    import minigrad as mg
    from minigrad import dtypes as _dt

    _, f = UNARY[case]
    vals = np.ascontiguousarray(values, dtype=FORMATS[fmt])
    t = torch.from_numpy(vals.view(np.int16).copy()).view(getattr(torch, fmt))
    m = mg.Tensor._make(vals.copy(), _dt.as_dtype(fmt))
    tr, mr = f(torch, t), f(mg, m)
    if tr.dtype == torch.bfloat16:
        tn = tr.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    else:
        tn = tr.numpy()
    return tn, np.asarray(mr._data)
