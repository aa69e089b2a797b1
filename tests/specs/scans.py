"""Catalogue entries for the running extrema and log-sum-exp (``cummax``, ``cummin``,
``logcumsumexp``), ``aminmax``, ``rot90``, the counts (``bincount``, ``histc``), the
composites ``diff``, ``trapezoid``, ``cov``, ``corrcoef``, ``quantile``/``nanquantile``, and
``signbit``/``frexp``.

Bounds: the selections and rearrangements are exact; ``logcumsumexp`` is bit-exact in fp32 and
16-bit (PyTorch's double / float accumulation reproduced) and within libm's ULP in fp64; its
backward and the statistics composites sum, hence ``ACC`` with an absolute slack.
"""
from __future__ import annotations

from tests.op_specs import ACC, TRANSC, OpSpec, _u
from tests.strategies import Sample

F64, F32, F16, BF16 = "float64", "float32", "float16", "bfloat16"


def scan_sample(d):
    shape = d.shape(0, 3, 0, 4)
    dim = d.integer(-len(shape), len(shape) - 1) if shape else d.choice([0, -1])
    return Sample([d.floats(shape, "real")], {"dim": dim})


def lcse_sample(d):
    s = scan_sample(d)
    return Sample([d.floats(s.args[0].values.shape, "real", "finite")], s.kwargs)


def aminmax_sample(d):
    shape = d.shape(0, 3, 1, 4)
    kw = {}
    if d.choice([False, True]) and shape:
        kw["dim"] = d.integer(-len(shape), len(shape) - 1)
    if d.choice([False, True]):
        kw["keepdim"] = True
    return Sample([d.floats(shape, "real")], kw)


def rot90_sample(d):
    shape = d.shape(2, 3, 0, 3)
    i, j = d.choice([(0, 1), (1, 0), (-1, 0), (0, -1)])
    return Sample([d.floats(shape, "real")], {"k": d.choice([1, 2, 3, 0, -1, 6]),
                                              "dims": [i, j]})


def diff_sample(d):
    shape = d.shape(1, 3, 0, 4)
    dim = d.integer(-len(shape), len(shape) - 1)
    kw = {"n": d.choice([1, 1, 2, 0, 5]), "dim": dim}
    args = [d.floats(shape, "real")]
    if d.choice([False, True]):
        side = list(shape)
        side[dim] = d.integer(0, 2)
        args.append(d.floats(tuple(side), "real"))
    return Sample(args, kw)


def _diff(lib, F, a, extra=None, **kw):
    return lib.diff(a, prepend=extra, append=extra, **kw)


def trapezoid_sample(d):
    shape = d.shape(1, 3, 0, 4)
    dim = d.integer(-len(shape), len(shape) - 1)
    args = [d.floats(shape, "real", "finite")]
    kw = {"dim": dim}
    which = d.choice(["none", "dx", "x"])
    if which == "dx":
        kw["dx"] = d.choice([0.5, 2.0, -1.0])
    elif which == "x":
        args.append(d.floats((shape[dim],), "real", "finite"))
    return Sample(args, kw)


def cov_sample(d):
    shape = d.choice([(d.integer(1, 4),), (d.integer(1, 3), d.integer(1, 4))])
    kw = {}
    if d.choice([False, True]):
        kw["correction"] = d.choice([0, 2])
    args = [d.floats(shape, "real", "finite")]
    if d.choice([False, True]) and shape[-1] > 2:    # (PyTorch's in-place zeroing of the
        args.append(d.floats((shape[-1],), "positive", "finite"))   # dof fails on a leaf)
    return Sample(args, kw)


def _cov(lib, F, a, aw=None, **kw):
    return lib.cov(a, aweights=aw, **kw)


def _cov_scale(tin, kw):
    x = tin[0]
    if x.numel() == 0:
        return 0.0
    return float(x.abs().max()) ** 2 * 4 * x.shape[-1]


def _corrcoef(lib, F, a):
    """Rows with a variance well away from 0 (a ramp per row), so that 0/0 never decides."""
    ramp = lib.arange(a.shape[-1]) * 3
    return lib.corrcoef(a * 0.5 + ramp)


def corrcoef_sample(d):
    return Sample([d.floats((d.integer(1, 3), d.integer(2, 4)), "real", "smooth")])


def bincount_sample(d):
    n = d.integer(0, 5)
    args = [d.ints((n,), 0, 6)]
    if d.choice([False, True]):
        args.append(d.floats((n,), "real", "finite"))
    return Sample(args, {"minlength": d.choice([0, 3, 8])})


def histc_sample(d):
    lo, hi = d.choice([(0, 0), (-1, 1), (-3.5, 2.0), (0.5, 0.5)])
    return Sample([d.floats((d.integer(1, 12),), "real", "smooth")],
                  {"bins": d.choice([1, 4, 10]), "min": lo, "max": hi})


def quantile_sample(d):
    shape = d.shape(0, 2, 1, 4)
    kw = {"interpolation": d.choice(["linear", "lower", "higher", "midpoint", "nearest"])}
    if shape and d.choice([False, True]):
        kw["dim"] = d.integer(-len(shape), len(shape) - 1)
        kw["keepdim"] = d.choice([False, True])
    args = [d.floats(shape, "real", "finite")]
    if d.choice([False, True]):
        args.append(d.floats((d.integer(1, 3),), "unit", "finite"))
    else:
        kw["q"] = d.choice([0.0, 0.3, 0.5, 1.0])
    return Sample(args, kw)


def _quantile(fn):
    def call(lib, F, a, qt=None, q=None, dim=None, keepdim=False, interpolation="linear"):
        return getattr(lib, fn)(a, q if qt is None else qt, dim, keepdim,
                                interpolation=interpolation)
    return call


SPECS = [
    OpSpec("cummax", lambda lib, F, a, dim: tuple(lib.cummax(a, dim)), scan_sample,
           dtypes=(F32, BF16), notes="a tie moves the index forward; NaN sticks (ATen's loop)"),
    OpSpec("cummin", lambda lib, F, a, dim: tuple(lib.cummin(a, dim)), scan_sample,
           dtypes=(F32,)),
    OpSpec("logcumsumexp", lambda lib, F, a, dim: lib.logcumsumexp(a, dim), lcse_sample,
           dtypes=(F32, F16, BF16), fwd_ulp=TRANSC, bwd_ulp=_u(4, 4, 2, 2), bwd_scale="max",
           notes="ATen's acc_type loop: double for fp32, float for 16-bit; backward in log "
                 "space (PyTorch's formula) through exp/log/logcumsumexp"),
    OpSpec("aminmax", lambda lib, F, a, **kw: tuple(lib.aminmax(a, **kw)), aminmax_sample,
           dtypes=(F32, F16)),
    OpSpec("rot90", lambda lib, F, a, k, dims: lib.rot90(a, k, dims), rot90_sample,
           dtypes=(F32,)),
    OpSpec("diff", _diff, diff_sample, dtypes=(F32, BF16)),
    OpSpec("trapezoid", lambda lib, F, y, *x, **kw: lib.trapezoid(y, *x, **kw),
           trapezoid_sample, dtypes=(F32, BF16), fwd_ulp=ACC, bwd_ulp=ACC, scale="abs",
           bwd_scale="abs"),
    OpSpec("cov", _cov, cov_sample, dtypes=(F32,), fwd_ulp=ACC, bwd_ulp=ACC,
           scale=_cov_scale, bwd_scale="max",
           notes="PyTorch's composite: weighted mean, mm of the centred rows, true division"),
    OpSpec("corrcoef", _corrcoef, corrcoef_sample, dtypes=(F32,), fwd_ulp=_u(8, 8, 1, 1),
           bwd_ulp=_u(8, 8, 1, 1), scale="max", bwd_scale="max"),
    OpSpec("bincount", lambda lib, F, x, w=None, **kw: lib.bincount(x, w, **kw),
           bincount_sample, dtypes=(F32,), differentiable=False, fwd_ulp=ACC, scale="max",
           notes="weights summed in double in input order (ATen's CPU kernel)"),
    OpSpec("histc", lambda lib, F, a, **kw: lib.histc(a, **kw), histc_sample,
           dtypes=(F32, F64), differentiable=False),
    OpSpec("signbit", lambda lib, F, a: lib.signbit(a), lambda d: Sample(
        [d.floats(d.shape(0, 2, 0, 4), "real", "finite")]), dtypes=(F32, F16),
        differentiable=False),
    OpSpec("frexp", lambda lib, F, a: tuple(lib.frexp(a)), lambda d: Sample(
        [d.floats(d.shape(0, 2, 0, 4), "real")]), dtypes=(F32, BF16),
        notes="exact: 16-bit values decomposed through float32"),
    OpSpec("quantile", _quantile("quantile"), quantile_sample, dtypes=(F32,),
           notes="PyTorch's composite: sort, gather, lerp (a NaN slice gives NaN)"),
    OpSpec("nanquantile", _quantile("nanquantile"), quantile_sample, dtypes=(F32,)),
]
