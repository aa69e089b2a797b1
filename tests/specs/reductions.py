"""Catalogue entries for the reductions, scans and sorting ops of issue 7 (var, cumsum, topk...).

Samples for the order statistics whose tie-breaking PyTorch leaves unspecified (``topk``,
``kthvalue``, ``median`` over a dim: ``std::nth_element``) draw tie-free values (``distinct``);
``sort`` over at most 16 elements is stable in PyTorch (insertion sort) and gets any values.
"""
from __future__ import annotations

import math

import numpy as np

from tests.op_samples import dim_sample, norm_sample, reduce_sample, with_keepdim
from tests.op_specs import ACC, OpSpec, _dt, _u
from tests.strategies import FloatIn, Sample


# ------------------------------------------------------------------------------ samples
def distinct(d, shape):
    """A tensor of distinct values (multiples of 0.5, exact in bf16) in a drawn order."""
    v = np.asarray(d.floats(shape, "real", "smooth").values, np.float64).reshape(-1)
    rank = np.argsort(np.argsort(v, kind="stable"), kind="stable")
    return FloatIn(((rank - v.size // 2) * 0.5).reshape(tuple(shape)).astype(np.float64))


def _reduced(shape, dim):
    if dim is None or not shape:
        return math.prod(shape)
    dims = (dim,) if isinstance(dim, int) else dim
    return math.prod(shape[x] for x in dims)


def moment_sample(d):
    """var/std inputs: dims as ``reduce_sample``, a ``correction`` (or the legacy ``unbiased``);
    gradcheck keeps ``N - correction > 0``."""
    s = reduce_sample(values="finite")(d)
    shape = s.args[0].values.shape
    n = _reduced(shape, s.kwargs.get("dim"))
    pool = [0, 1, 0.5, "unbiased"] if not d.smooth or n > 1 else [0]
    if not d.smooth:
        pool += [2, None]
    c = d.choice(pool)
    if c == "unbiased":
        s.kwargs["unbiased"] = d.choice([True, False]) if n > 1 or not d.smooth else False
    elif c is not None:
        s.kwargs["correction"] = c
    return s


def lse_sample(d):
    shape = d.shape()
    nd = max(len(shape), 1)
    if len(shape) >= 2 and d.choice([False, True]):
        dim = (0, -1)
    else:
        dim = d.integer(-nd, nd - 1)
    return with_keepdim(d, Sample([d.floats(shape, "real"), dim]))


def scan_sample(with_dtype=False):
    def gen(d):
        s = dim_sample(min_dims=0)(d)
        if with_dtype:
            s.kwargs["dtype"] = "float64" if d.smooth else d.choice(["float32", "float64"])
        return s
    return gen


def prod_dim_sample(d):
    return with_keepdim(d, dim_sample(min_dims=0)(d))


def sort_sample(d):
    s = dim_sample(min_dims=0)(d)
    if d.choice([False, True]):
        s.kwargs["descending"] = True
    if d.choice([False, True]):          # sort.stable: dim by keyword (PyTorch's signature)
        s.kwargs.update(stable=d.choice([True, False]), dim=s.args.pop())
    return s


def topk_sample(d):
    shape = d.shape(min_dims=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    k = d.integer(0, shape[dim])
    return Sample([distinct(d, shape), k], {"dim": dim, "largest": d.choice([True, False])})


def kth_sample(d):
    shape = d.shape(min_dims=1, min_side=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    k = d.integer(1, shape[dim])
    return with_keepdim(d, Sample([distinct(d, shape), k], {"dim": dim}))


def median_dim_sample(d):
    shape = d.shape(min_dims=1, min_side=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    return with_keepdim(d, Sample([distinct(d, shape), dim]))


def _max_abs(tin, kw):
    """The largest |input|: renorm's outputs are at most that large (two outputs: renorm and
    renorm_, so the harness's "abs" scale, which reruns the op, does not apply)."""
    return float(tin[0].amax()) if tin[0].numel() else 0.0


def renorm_sample(d):
    """2 or 3 dims, any ``dim``, the p of norm_sample but 0 and -inf (renorm needs p > 0), a
    ``maxnorm`` that some slices exceed and some do not (0: every non-zero slice scaled)."""
    shape = d.shape(min_dims=2)
    nd = len(shape)
    p = d.choice([2, 1, 3, 1.5, 0.5, math.inf])
    return Sample([d.floats(shape, "real", "finite"), p, d.integer(-nd, nd - 1),
                   d.choice([0.0, 0.5, 1.0, 3.0])])


def norm_dim_sample(d):
    s = norm_sample(d)
    shape = s.args[0].values.shape
    if shape:
        nd = len(shape)
        s.kwargs["dim"] = d.choice([d.integer(-nd, nd - 1), tuple(range(nd))[:2]])
        if s.kwargs["ord"] in (math.inf, -math.inf):      # no identity over an empty dim
            s.kwargs["dim"] = -1 if shape[-1] else None
            if s.kwargs["dim"] is None:
                s.kwargs["ord"] = 2
    if d.choice([False, True]):
        s.kwargs["keepdim"] = True
    return s


def matrix_norm_sample(d):
    shape = d.shape(min_dims=2, min_side=1)
    kw = {"ord": d.choice(["fro", 1, -1, math.inf, -math.inf])}
    if len(shape) == 3 and d.choice([False, True]):
        kw["dim"] = (0, 2)
    if d.choice([False, True]):
        kw["keepdim"] = True
    return Sample([d.floats(shape, "real", "finite")], kw)


def torch_norm_sample(d):
    shape = d.shape(min_side=1)
    kw = {"p": d.choice(["fro", 2, 1, 3])}
    if shape and d.choice([False, True]):
        kw["dim"] = d.integer(-len(shape), len(shape) - 1)
    return Sample([d.floats(shape, "real", "finite")], kw)


# ------------------------------------------------------------------------------ scales
def _var_scale(tin, kw):
    """The moment's accumulation error scales with the largest square (and 1/dof)."""
    x = tin[0]
    return float((x * x).max()) if x.numel() else 0.0


def _lse_scale(tin, kw):
    x = tin[0]
    return float(x.abs().max()) + 4.0 if x.numel() else 0.0


MOMENT = _u(8, 2, 0, 0)
MOMENT_NOTES = ("float64 accumulation (Welford over dims as ATen's WelfordOps, two-pass over "
                "all), one rounding to fp32 and a second into fp16/bf16 as PyTorch's upcast; "
                "measured fp16/bf16/fp32 bit-exact, fp64 within 4 ulp (PyTorch's summation "
                "order) plus the cancellation slack 32 eps max(x^2)")


def _mfn(name):
    return lambda lib, F, a, **kw: getattr(lib, name)(a, **kw)


SPECS = [
    OpSpec("var", _mfn("var"), moment_sample, fwd_ulp=MOMENT, bwd_ulp=ACC, scale=_var_scale,
           bwd_scale="max", notes=MOMENT_NOTES + "; backward var_backward as dispatched ops"),
    OpSpec("var.method", lambda lib, F, a, **kw: a.var(**kw), moment_sample, fwd_ulp=MOMENT,
           bwd_ulp=ACC, scale=_var_scale, bwd_scale="max", gradcheck=False),
    OpSpec("std", _mfn("std"), moment_sample, fwd_ulp=MOMENT, bwd_ulp=ACC, scale=_var_scale,
           bwd_scale="max", notes=MOMENT_NOTES + "; sqrt taken in float64"),
    OpSpec("var_mean", _mfn("var_mean"), moment_sample, fwd_ulp=MOMENT, bwd_ulp=ACC,
           scale=_var_scale, bwd_scale="max",
           notes="the mean is the float64 accumulation's (Welford) rounded as the variance"),
    OpSpec("std_mean", _mfn("std_mean"), moment_sample, fwd_ulp=MOMENT, bwd_ulp=ACC,
           scale=_var_scale, bwd_scale="max"),
    OpSpec("logsumexp", lambda lib, F, a, dim, **kw: lib.logsumexp(a, dim, **kw), lse_sample,
           fwd_ulp=_u(8, 16, 0, 1), bwd_ulp=_u(4, 4, 0, 1), scale=_lse_scale, bwd_scale="max",
           notes="PyTorch's composite replayed step by step with its roundings; fp32/fp64: "
                 "libm vs SLEEF exp/log and a near-zero result after log(s) + max (cancellation "
                 "slack); bf16 1 ulp: PyTorch's vectorised exp (facts §5)"),
    OpSpec("cumsum", lambda lib, F, a, dim, **kw: lib.cumsum(a, dim, **_dt(lib, kw)),
           scan_sample(), notes="left-to-right in ATen's CPU acc type (double for fp32, fp32 "
                                "for 16-bit), each output rounded once: bit-exact"),
    OpSpec("cumsum.dtype", lambda lib, F, a, dim, **kw: a.cumsum(dim, **_dt(lib, kw)),
           scan_sample(with_dtype=True), gradcheck=False),
    OpSpec("cumprod", lambda lib, F, a, dim, **kw: lib.cumprod(a, dim, **kw), scan_sample(),
           bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="backward: reversed_cumsum(out * grad) / input as PyTorch; with zeros in the "
                 "input the exclusive-product expansion (same values, another order)"),
    OpSpec("prod", lambda lib, F, a, **kw: lib.prod(a, **_dt(lib, kw)),
           lambda d: Sample([d.floats(d.shape(), "real")]), bwd_ulp=_u(2, 2, 1, 1),
           bwd_scale="max",
           notes="binary_kernel_reduce_vec's order and per-product rounding "
                 "(numerics.vec_inner_reduce): bit-exact forward"),
    OpSpec("prod.dim_int", lambda lib, F, a, dim, **kw: a.prod(dim, **kw), prod_dim_sample,
           bwd_ulp=_u(2, 2, 1, 1), bwd_scale="max"),
    OpSpec("sort", lambda lib, F, a, *dim, **kw: lib.sort(a, *dim, **kw), sort_sample,
           notes="stable; PyTorch's stable=False sort of more than 16 elements orders ties "
                 "differently (its introsort); the samples have at most 4"),
    OpSpec("argsort", lambda lib, F, a, *dim, **kw: a.argsort(*dim, **kw), sort_sample,
           differentiable=False),
    OpSpec("topk", lambda lib, F, a, k, **kw: lib.topk(a, k, **kw), topk_sample),
    OpSpec("kthvalue", lambda lib, F, a, k, **kw: a.kthvalue(k, **kw), kth_sample),
    OpSpec("median", lambda lib, F, a: lib.median(a),
           lambda d: Sample([d.floats(d.shape(), "real")])),
    OpSpec("median.dim", lambda lib, F, a, dim, **kw: lib.median(a, dim, **kw),
           median_dim_sample),
    OpSpec("count_nonzero", lambda lib, F, a, **kw: lib.count_nonzero(a, **kw),
           reduce_sample(), differentiable=False),
    OpSpec("all.dim", lambda lib, F, a, **kw: lib.all(a, **kw), reduce_sample(),
           differentiable=False),
    OpSpec("any.dim", lambda lib, F, a, **kw: a.any(**kw), reduce_sample(),
           differentiable=False),
    OpSpec("linalg.vector_norm.dim", lambda lib, F, a, **kw: lib.linalg.vector_norm(a, **kw),
           norm_dim_sample, fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1), scale="abs",
           bwd_scale="max", notes="accumulation order; backward PyTorch's norm_backward"),
    OpSpec("linalg.matrix_norm", lambda lib, F, a, **kw: lib.linalg.matrix_norm(a, **kw),
           matrix_norm_sample, fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1), scale="abs",
           bwd_scale="max", notes="PyTorch's composite: vector_norm (+ amax/amin)"),
    OpSpec("renorm", lambda lib, F, a, *args: (lib.renorm(a, *args), a.clone().renorm_(*args)),
           renorm_sample, fwd_ulp=_u(4, 4, 0, 0), bwd_ulp=_u(4, 4, 1, 1), scale=_max_abs,
           bwd_scale="max", dtype_test=False,
           notes="with renorm_; fp32/fp64: the norm's accumulation order (as vector_norm), "
                 "fp16/bf16 bit-exact (the factor rounded into the storage dtype); backward "
                 "PyTorch's renorm_backward composite (norms and sums in fp64 for fp32)"),
    OpSpec("norm", lambda lib, F, a, **kw: lib.norm(a, **kw), torch_norm_sample,
           fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1), scale="abs", bwd_scale="max",
           notes="torch.norm routes to linalg.vector_norm"),
]


# ------------------------------------------------------------------------ bucketing and unique
def _sorted_1d(lib, b):
    return lib.sort(b)[0]


def searchsorted_sample(d):
    """Boundaries (sorted in the call) of 1 to 5 values, 1-D or with leading dims matching the
    values'; values with duplicates of the boundaries likely (small integers as floats)."""
    n = d.integer(1, 5)
    lead = d.choice([(), (2,)])
    vshape = lead + (d.integer(0, 3),) if lead else d.shape(max_dims=2)
    kw = d.choice([{}, {"right": True}, {"side": "right"}, {"out_int32": True}])
    if d.choice([True, False]):          # floats: the dtype under test, no NaN (unordered)
        return Sample([d.floats(lead + (n,), "real", "smooth"),
                       d.floats(vshape, "real", "smooth")], kw)
    return Sample([d.ints(lead + (n,), -3, 4), d.ints(vshape, -4, 5)], kw)


def bucketize_sample(d):
    return Sample([d.ints(d.shape(max_dims=2), -4, 5), d.ints((d.integer(1, 5),), -3, 4)],
                  d.choice([{}, {"right": True}, {"out_int32": True}]))


def unique_sample(d):
    shape = d.shape(min_dims=1, max_dims=2, min_side=1)
    kw = d.choice([{}, {"return_inverse": True}, {"return_counts": True},
                   {"return_inverse": True, "return_counts": True, "sorted": False}])
    return Sample([d.ints(shape, 0, 3)], kw)


def unique_dim_sample(d):
    shape = d.shape(min_dims=1, max_dims=3, min_side=1)
    return Sample([d.ints(shape, 0, 2)], {"dim": d.integer(-len(shape), len(shape) - 1),
                                          "return_inverse": True, "return_counts": True})


SPECS += [
    OpSpec("searchsorted", lambda lib, F, b, v, **kw: lib.searchsorted(_sorted_1d(lib, b), v,
                                                                      **kw),
           searchsorted_sample, dtypes=("float64", "bfloat16"), differentiable=False,
           dtype_test=False, notes="integer boundaries and values with ties, or floats (no "
           "NaN); both sides; boundaries sorted in the call"),
    OpSpec("bucketize", lambda lib, F, v, b, **kw: lib.bucketize(v, _sorted_1d(lib, b), **kw),
           bucketize_sample, dtypes=("float64",), differentiable=False, dtype_test=False,
           notes="int64 inputs only (the float dtype under test is unused)"),
    OpSpec("_unique2", lambda lib, F, a, **kw: lib.unique(a, **kw), unique_sample,
           dtypes=("float64",), differentiable=False, dtype_test=False,
           notes="torch.unique without dim; values, inverse and counts"),
    OpSpec("unique_dim", lambda lib, F, a, **kw: lib.unique(a, **kw), unique_dim_sample,
           dtypes=("float64",), differentiable=False, dtype_test=False,
           notes="distinct slices along dim, lexicographic"),
]
