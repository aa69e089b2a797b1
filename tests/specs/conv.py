"""Catalogue entries for convolution, pooling, upsampling and pixel shuffle (issue 7).

One spec per functional family, each sample drawing the 1-d or 2-d form and the options
(stride, padding, dilation, groups, ceil_mode, count_include_pad...), so that every op of the
family (the composites ``conv2d``/``max_pool1d``..., the kernels ``convolution``/
``max_pool2d_with_indices``... and their fused backwards) is covered at a small test cost.

Bounds (measured against torch 2.13 CPU, see the notes): exact where the op only selects or
moves values (max pooling, nearest upsampling, pixel shuffle); accumulating ops allow the
catalogue's summation-order slack (``ACC`` plus ``scale="abs"``: the op on |inputs| bounds the
cancellation).
"""
from __future__ import annotations

from tests.op_specs import ACC, OpSpec, _u
from tests.strategies import Sample

_CONV_NOTES = (
    "im2col + one fp32/fp64 matrix product per group (sum order differs from oneDNN): fp32/fp64 "
    "a few ulps plus 'abs' slack; fp16/bf16: ours is fp32 accumulation rounded once (error <= "
    "0.5 eps*max|exact| measured), PyTorch's CPU 16-bit convolution kernels round partial sums "
    "(grad_input and grad_weight errors up to 0.9 eps*max|exact|, measured over 40 random "
    "convolutions), hence low_slack=2 (in eps of the 16-bit format, times the 'abs' scale)")


_CONV_DTYPES = ("; no dtype-mix test (three tensor operands: 1,000 combinations, too slow for "
                "the suite): tests/unit/test_conv_pool.py checks integer, bool and mixed dtypes")


_MOVES = ("float64", "bfloat16")
_MOVES_NOTE = ("a pure rearrangement (reshape + permute of the storage array), exact in every "
               "dtype: checked in one full and one 16-bit format to save suite time")


def _spatial(d, nd, reach, lo=1, hi=5):
    return tuple(d.integer(max(lo, reach[i]), max(hi, reach[i])) for i in range(nd))


def _conv_sample(transposed):
    def gen(d):
        nd = d.choice([1, 2])
        g = d.choice([1, 2])
        cin, cout = g * d.integer(1, 2), g * d.integer(1, 2)
        k = tuple(d.integer(1, 3) for _ in range(nd))
        stride, dil, pad = d.integer(1, 2), d.integer(1, 2), d.integer(0, 1)
        kw = {"stride": stride, "dilation": dil, "groups": g}
        if transposed:
            kw["padding"] = pad
            kw["output_padding"] = d.integer(0, max(stride, dil) - 1)
            spatial = _spatial(d, nd, (1,) * nd, hi=4)
            x = d.floats((d.integer(1, 2), cin) + spatial, "real", "smooth")
            w = d.floats((cin, cout // g) + k, "real", "smooth")
            out = [(n - 1) * stride - 2 * pad + dil * (kk - 1) + kw["output_padding"] + 1
                   for n, kk in zip(spatial, k)]
            if min(out) < 1:
                # an output size below 1: torch's backends disagree (oneDNN returns an empty
                # 1-d result for 0, slow_conv_transpose2d raises): values are what this checks
                kw["padding"] = 0
        else:
            even = all(dil * (kk - 1) % 2 == 0 for kk in k)
            kw["padding"] = d.choice([pad, "valid"] + (["same"] if stride == 1 and even else []))
            p = pad if isinstance(kw["padding"], int) else 0
            reach = tuple(dil * (kk - 1) + 1 - 2 * p for kk in k)
            x = d.floats((d.integer(1, 2), cin) + _spatial(d, nd, reach), "real", "smooth")
            w = d.floats((cout, cin // g) + k, "real", "smooth")
        args = [x, w] + ([d.floats((cout,), "real", "smooth")] if d.choice([True, False]) else [])
        return Sample(args, kw)
    return gen


def _conv(lib, F, x, w, b=None, **kw):
    return (F.conv1d if x.ndim == 3 else F.conv2d)(x, w, b, **kw)


def _conv_t(lib, F, x, w, b=None, **kw):
    return (F.conv_transpose1d if x.ndim == 3 else F.conv_transpose2d)(x, w, b, **kw)


def _pool_sample(kind):
    def gen(d):
        nd = d.choice([1, 2])
        k = d.integer(1, 3)
        kw = {"kernel_size": k, "stride": d.choice([None, 1, 2]), "padding": d.integer(0, k // 2),
              "ceil_mode": d.choice([False, True])}
        if kind == "max":
            kw["dilation"] = d.integer(1, 2)
            kw["return_indices"] = d.choice([False, True, False])
        else:
            kw["count_include_pad"] = d.choice([True, False])
            if nd == 2 and d.choice([False, False, True]):
                kw["divisor_override"] = d.integer(1, 5)
        reach = (kw.get("dilation", 1) * (k - 1) + 1,) * nd
        lead = (d.integer(1, 2),) if d.choice([True, False]) else ()
        shape = lead + (d.integer(1, 3),) + _spatial(d, nd, reach)
        return Sample([d.floats(shape, "real", "finite" if kind == "avg" else "extreme")],
                      {"_nd": nd, **kw})
    return gen


def _pool(kind):
    def fn(lib, F, x, _nd, **kw):
        return getattr(F, f"{kind}_pool{_nd}d")(x, **kw)
    return fn


def _unpool_sample(d):
    """A max pool (overlapping windows: repeated indices; padding) whose values and indices
    go back through max_unpool, with output_size None, the input's size, or its full shape."""
    nd = d.choice([1, 2])
    k = d.integer(1, 3)
    kw = {"kernel_size": k, "stride": d.choice([None, 1, 2]), "padding": d.integer(0, k // 2)}
    lead = (d.integer(1, 2),) if d.choice([True, False]) else ()
    shape = lead + (d.integer(1, 2),) + _spatial(d, nd, (k,) * nd)
    kw["_size"] = d.choice(["default", "spatial", "full"])
    return Sample([d.floats(shape, "real")], {"_nd": nd, **kw})


def _unpool(lib, F, x, _nd, _size, **kw):
    pooled, idx = getattr(F, f"max_pool{_nd}d")(x, return_indices=True, **kw)
    size = None
    spatial = tuple(x.shape[-_nd:])
    s = kw["stride"] or kw["kernel_size"]
    default = tuple((pooled.shape[-_nd + i] - 1) * s + kw["kernel_size"] - 2 * kw["padding"]
                    for i in range(_nd))
    if _size != "default" or default != spatial:      # the input's size (within a stride)
        size = spatial if _size != "full" else tuple(x.shape[:-_nd]) + spatial
        size = size[-_nd - 2:] if len(size) > _nd + 2 else size
        size = spatial if len(size) not in (_nd, _nd + 2) else size
    return getattr(F, f"max_unpool{_nd}d")(pooled, idx, output_size=size, **kw)


def _adaptive_sample(kind):
    def gen(d):
        nd = d.choice([1, 2])
        lead = (d.integer(1, 2),) if d.choice([True, False]) else ()
        spatial = tuple(d.integer(1, 5) for _ in range(nd))
        x = d.floats(lead + (d.integer(1, 3),) + spatial, "real",
                     "finite" if kind == "avg" else "extreme")
        out = tuple(d.choice([1, 2, 3, s]) for s in spatial)
        if nd == 2 and d.choice([False, True]):
            out = (out[0], None)
        kw = {"return_indices": d.choice([False, True])} if kind == "max" else {}
        return Sample([x], {"output_size": out if nd == 2 else out[0], "_nd": nd, **kw})
    return gen


def _adaptive(kind):
    def fn(lib, F, x, _nd, **kw):
        return getattr(F, f"adaptive_{kind}_pool{_nd}d")(x, **kw)
    return fn


def _interp_sample(mode):
    def gen(d):
        nd = 2 if mode == "bilinear" else d.choice([1, 2])
        spatial = tuple(d.integer(1, 4) for _ in range(nd))
        x = d.floats((d.integer(1, 2), d.integer(1, 2)) + spatial, "real",
                     "smooth" if mode == "bilinear" else "extreme")
        kw = {"mode": mode}
        if d.choice([True, False]):
            kw["size"] = tuple(d.integer(1, 6) for _ in range(nd))
        else:
            kw["scale_factor"] = d.choice([2, 0.5, 1.5, 1.7, 3])
            if d.choice([False, False, True]):
                kw["recompute_scale_factor"] = True
        if mode == "bilinear":
            kw["align_corners"] = d.choice([False, True])
        return Sample([x], kw)
    return gen


def _linear_nd_sample(nd):
    def gen(d):
        spatial = tuple(d.integer(1, 4) for _ in range(nd))
        x = d.floats((d.integer(1, 2), d.integer(1, 2)) + spatial, "real", "smooth")
        kw = {"mode": "linear" if nd == 1 else "trilinear",
              "align_corners": d.choice([False, True])}
        if d.choice([True, False]):
            kw["size"] = tuple(d.integer(1, 5) for _ in range(nd))
        else:
            kw["scale_factor"] = d.choice([2, 0.5, 1.5, 1.7])
        return Sample([x], kw)
    return gen


def _bicubic_sample(d):
    x = d.floats((d.integer(1, 2), d.integer(1, 2), d.integer(1, 4), d.integer(1, 4)), "real",
                 "smooth")
    kw = {"mode": "bicubic", "align_corners": d.choice([False, True])}
    if d.choice([True, False]):
        kw["size"] = (d.integer(1, 6), d.integer(1, 6))
    else:
        kw["scale_factor"] = d.choice([2, 0.5, 1.5, 1.7])
    return Sample([x], kw)


def _shuffle_sample(down):
    def gen(d):
        r = d.integer(1, 2)
        lead = (d.integer(1, 2),) if d.choice([True, False]) else ()
        if down:
            shape = lead + (d.integer(1, 2), r * d.integer(1, 2), r * d.integer(1, 2))
        else:
            shape = lead + (r * r * d.integer(1, 2), d.integer(1, 2), d.integer(1, 2))
        return Sample([d.floats(shape, "real")], {"_r": r})
    return gen


SPECS = [
    OpSpec("conv", _conv, _conv_sample(False), fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1),
           scale="abs", bwd_scale="abs", low_slack=2.0, dtype_test=False,
           notes=_CONV_NOTES + _CONV_DTYPES),
    OpSpec("conv_transpose", _conv_t, _conv_sample(True), fwd_ulp=_u(4, 4, 1, 1),
           bwd_ulp=_u(4, 4, 1, 1), scale="abs", bwd_scale="abs", low_slack=2.0,
           dtype_test=False, notes=_CONV_NOTES + _CONV_DTYPES),
    OpSpec("max_pool", _pool("max"), _pool_sample("max"),
           notes="exact: a NaN wins (its last index, as PyTorch's loop); the backward adds "
                 "overlapping windows' gradients in output order in the gradient's dtype, as "
                 "PyTorch's CPU loop"),
    OpSpec("avg_pool", _pool("avg"), _pool_sample("avg"),
           notes="bit-exact: PyTorch's CPU loops (window summed in order in opmath, one "
                 "division; backward delta rounded to the grad's dtype, added in order in it)"),
    OpSpec("adaptive_avg_pool", _adaptive("avg"), _adaptive_sample("avg"), fwd_ulp=ACC,
           bwd_ulp=ACC, scale="abs", bwd_scale="abs",
           notes="_adaptive_avg_pool2d and its backward are bit-exact (PyTorch's CPU loops: "
                 "sum / kh / kw in opmath; backward gO / kh / kw rounded at each division, added "
                 "in order; measured); a 1x1 output is the mean op, whose summation order "
                 "differs (ACC bound)"),
    OpSpec("adaptive_max_pool", _adaptive("max"), _adaptive_sample("max")),
    OpSpec("max_unpool", _unpool, _unpool_sample, dtypes=("float16",), dtype_test=False,
           notes="exact: values written at their indices (a repeated index keeps the last), "
                 "backward gathers (max_pool_double_backward); run after max_pool, whose "
                 "indices it takes. fp16 only, no dtype-mix test (suite time: a pure move): "
                 "tests/unit/test_conv_pool.py checks every dtype and the integer errors"),
    OpSpec("interpolate.nearest", lambda lib, F, x, **kw: F.interpolate(x, **kw),
           _interp_sample("nearest"), bwd_ulp=ACC, bwd_scale="abs",
           notes="forward exact (ATen's float32 source indices); backward sums in opmath"),
    OpSpec("interpolate.bilinear", lambda lib, F, x, **kw: F.interpolate(x, **kw),
           _interp_sample("bilinear"), fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1),
           scale="abs", bwd_scale="abs", dtype_test=False,
           notes="no dtype-mix test: PyTorch's uint8 kernel (fixed point) is not reproduced, "
                 "uint8 raises NotImplementedError (tests/unit/test_conv_pool.py checks the "
                 "other dtypes); opmath weights and sums, the last dim first; PyTorch's "
                 "compiled loop rounds "
                 "differently (about half the fp32 elements differ by an ulp, measured; not "
                 "reproduced), so ulp bounds plus 'abs' slack. Smooth inputs: with inf/nan "
                 "inputs, which zero-weight neighbours PyTorch multiplies (inf * 0 = nan) "
                 "differs in the same-size case"),
    OpSpec("interpolate.linear", lambda lib, F, x, **kw: F.interpolate(x, **kw),
           _linear_nd_sample(1), fwd_ulp=_u(4, 0, 0, 0), bwd_ulp=_u(4, 0, 0, 0),
           scale="abs", bwd_scale="abs", dtype_test=False,
           notes="upsample_linear1d: ATen's separable kernel with its fused multiply-adds "
                 "(forward fma(t0, l0, t1 * l1), backward acc = fma(w, g, acc) in output "
                 "order; the forward's lambdas in 16-bit for fp16/bf16, as ATen's scalar_t "
                 "weights): bit-exact in fp32/fp16/bf16; fp64 too except with a scale "
                 "recomputed from the sizes (that source index's rounding is not reproduced: "
                 "a few ulp); smooth inputs as bilinear"),
    OpSpec("interpolate.trilinear", lambda lib, F, x, **kw: F.interpolate(x, **kw),
           _linear_nd_sample(3), fwd_ulp=_u(4, 0, 0, 0), bwd_ulp=_u(4, 0, 0, 0),
           scale="abs", bwd_scale="abs", dtype_test=False,
           notes="upsample_trilinear3d: as interpolate.linear, one fma per dim"),
    OpSpec("interpolate.bicubic", lambda lib, F, x, **kw: F.interpolate(x, **kw),
           _bicubic_sample, fwd_ulp=_u(4, 0, 0, 0), bwd_ulp=_u(4, 0, 0, 0),
           scale="abs", bwd_scale="abs", dtype_test=False,
           notes="upsample_bicubic2d: ATen's non-separable kernel with GCC's fused "
                 "multiply-adds (weights and sums, measured), 16-bit weight tables; backward "
                 "the plain loop (16 taps per output, rounded products, in order): bit-exact "
                 "in fp32/fp16/bf16; fp64 too except for a scale derived from the sizes (a few "
                 "ulp, 'abs' slack); smooth inputs as bilinear; integers raise (PyTorch's uint8 "
                 "kernel is not reproduced), so no dtype-mix test"),
    OpSpec("pixel_shuffle", lambda lib, F, x, _r: F.pixel_shuffle(x, _r),
           _shuffle_sample(False), dtypes=_MOVES, notes=_MOVES_NOTE),
    OpSpec("pixel_unshuffle", lambda lib, F, x, _r: F.pixel_unshuffle(x, _r),
           _shuffle_sample(True), dtypes=_MOVES, notes=_MOVES_NOTE),
]
