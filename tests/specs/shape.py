"""Catalogue entries for the shape and indexing ops of issue 7 (narrow, roll, gather, scatter,
index_add, masked_select, F.pad, F.unfold...).

Bounds: these ops move values without arithmetic, so they are bit-exact in every dtype, except
the accumulating ones: ``scatter_add``/``scatter_reduce``/``index_add``/``col2im`` and the
gradients that are sums (``repeat``, ``gather``'s ``scatter_add``, the pads' and ``unfold``'s
backward) get the accumulation bound where their order or rounding count differs (stated per
spec). fp16/bf16 ``scatter_add`` sums in fp32 and rounds once, as PyTorch 2.13's CPU kernel
(measured), so it stays bit-exact.

Cost (the suite's time limit): each spec runs in bfloat16 only (the coarsest format, where a
rounding difference shows first; gradcheck runs in float64 anyway), in-place forms are compared
in the same spec as their op (the spec returns both), and the dtype-mix test runs for ``gather``
only (the ops share its index-dtype checks; the others are in tests/unit/
test_shape_index_ops.py). Measured total: see the report.
"""
from __future__ import annotations

import numpy as np

from tests.op_specs import ACC, EXEMPT, OpSpec, _u
from tests.strategies import IntIn, Sample

ONE = ("bfloat16",)
ALL = ("float64", "float32", "float16", "bfloat16")


def _x(d, **kw):
    return d.floats(d.shape(**kw), "real")


# ------------------------------------------------------------------------------ samples
def block_diag_sample(d):
    return Sample([d.floats(d.shape(max_dims=2)) for _ in range(d.integer(1, 3))])


def narrow_sample(d):
    shape = d.shape(min_dims=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    n = shape[dim]
    start = d.integer(-n, n)
    begin = start + n if start < 0 else start
    return Sample([d.floats(shape), dim, start, d.integer(0, n - begin)])


def roll_sample(d):
    shape = d.shape(min_dims=1)
    nd = len(shape)
    if d.choice([False, True]):
        return Sample([d.floats(shape), d.integer(-5, 5)])
    k = d.integer(1, nd)
    dims = tuple(d.integer(-nd, nd - 1) for _ in range(k))
    return Sample([d.floats(shape), tuple(d.integer(-5, 5) for _ in dims), dims])


def dims_sample(d):
    shape = d.shape(min_dims=1)
    nd = len(shape)
    dims = sorted({d.integer(0, nd - 1) for _ in range(d.integer(1, nd))})
    return Sample([d.floats(shape), tuple(dims)])


def repeat_sample(d):
    shape = d.shape(min_dims=1, max_dims=2)
    extra = d.integer(0, 1)
    return Sample([d.floats(shape), tuple(d.integer(0, 3) for _ in range(len(shape) + extra))])


def rep_interleave_sample(d):
    shape = d.shape(min_dims=1, max_dims=3)
    if d.choice([False, True]):
        dim = d.choice([None] + list(range(-len(shape), len(shape))))
        return Sample([d.floats(shape), d.integer(0, 3)], {"dim": dim})
    dim = d.integer(-len(shape), len(shape) - 1)
    return Sample([d.floats(shape), d.ints((shape[dim],), 0, 3)], {"dim": dim})


def bcast_sample(d):
    target = d.shape(min_dims=1)
    k = d.integer(0, len(target))
    src = tuple(d.choice([1, s]) for s in target[len(target) - k:])
    return Sample([d.floats(src), target])


def movedim_sample(d):
    shape = d.shape(min_dims=1)
    nd = len(shape)
    src = list(np.random.default_rng(d.integer(0, 99)).permutation(nd)[:d.integer(1, nd)])
    dst = list(np.random.default_rng(d.integer(0, 99)).permutation(nd)[:len(src)])
    return Sample([d.floats(shape), tuple(int(s) for s in src), tuple(int(s) for s in dst)])


def tri_sample(d):
    return Sample([d.floats(d.shape(min_dims=2))], {"diagonal": d.integer(-3, 3)})


def diag_sample(d):
    shape = d.shape(min_dims=1, max_dims=2)
    return Sample([d.floats(shape), d.integer(-2, 2)])


def diagonal_sample(d):
    shape = d.shape(min_dims=2)
    nd = len(shape)
    d1 = d.integer(0, nd - 1)
    d2 = d.choice([k for k in range(nd) if k != d1])
    return Sample([d.floats(shape)], {"offset": d.integer(-2, 2), "dim1": d1, "dim2": d2 - nd})


def diag_embed_sample(d):
    shape = d.shape(min_dims=1)
    nd = len(shape) + 1
    d1 = d.integer(0, nd - 1)
    d2 = d.choice([k for k in range(nd) if k != d1])
    return Sample([d.floats(shape)], {"offset": d.integer(-2, 2), "dim1": d1, "dim2": d2})


def unfold_sample(d):
    shape = d.shape(min_dims=1, min_side=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    return Sample([d.floats(shape), dim, d.integer(0, shape[dim]), d.integer(1, 3)])


def gather_sample(d):
    shape = d.shape(min_dims=1, min_side=1)
    nd = len(shape)
    dim = d.integer(-nd, nd - 1)
    ishape = tuple(d.integer(0, s) if k != dim % nd else d.integer(0, 4)
                   for k, s in enumerate(shape))
    return Sample([d.floats(shape), dim, d.ints(ishape, 0, shape[dim])])


def _distinct_index(d, shape, dim):
    """An index of ``shape`` whose entries along ``dim`` differ within each column (scatter
    with repeated indices keeps an unspecified value in PyTorch)."""
    size = shape[dim]
    k = d.integer(0, size)
    ishape = tuple(d.integer(0, s) if j != dim else k for j, s in enumerate(shape))
    off = d.ints(ishape[:dim] + (1,) + ishape[dim + 1:], 0, size).values
    ar = np.arange(k).reshape((1,) * dim + (k,) + (1,) * (len(shape) - dim - 1))
    return IntIn(((ar + off) % size).astype(np.int64)), ishape


def scatter_sample(d):
    shape = d.shape(min_dims=1, min_side=1)
    dim = d.integer(0, len(shape) - 1)
    idx, ishape = _distinct_index(d, shape, dim)
    if d.choice([False, True]):
        return Sample([d.floats(shape), dim, idx, d.choice([2.5, -1.0, 0.0])])
    # src the size of index: a larger src has no gradient in PyTorch (its backward fails)
    return Sample([d.floats(shape), dim, idx, d.floats(ishape)])


def scatter_add_sample(d, larger_src=False):
    """Repeated indices; ``larger_src``: a src larger than index (not differentiable in
    PyTorch: its backward fails on the gradient's shape)."""
    shape = d.shape(min_dims=1, min_side=1)
    nd = len(shape)
    dim = d.integer(0, nd - 1)
    ishape = tuple(d.integer(0, s) if k != dim else d.integer(0, 5) for k, s in enumerate(shape))
    sshape = tuple(s + (d.integer(0, 1) if larger_src else 0) for s in ishape)
    return Sample([d.floats(shape), dim, d.ints(ishape, 0, shape[dim]), d.floats(sshape)])


def scatter_reduce_sample(d):
    s = scatter_add_sample(d)
    s.args.append(d.choice(["sum", "prod", "mean", "amax", "amin"]))
    s.kwargs["include_self"] = d.choice([True, False])
    return s


def scatter_reduce_arg_sample(d):
    s = scatter_add_sample(d, larger_src=True)
    if d.choice([False, True]):
        s.args[3] = d.choice([1.5, -2.0])
    s.args.append(d.choice(["add", "multiply"]))
    return s


def index_select_sample(d):
    shape = d.shape(min_dims=1, min_side=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    return Sample([d.floats(shape), dim, d.ints((d.integer(0, 4),), 0, shape[dim])])


def index_src_sample(distinct=False, alpha=False):
    def gen(d):
        shape = d.shape(min_dims=1, min_side=1)
        nd = len(shape)
        dim = d.integer(0, nd - 1)
        if distinct:
            k = d.integer(0, shape[dim])
            perm = np.random.default_rng(d.integer(0, 99)).permutation(shape[dim])[:k]
            idx = IntIn(perm.astype(np.int64))
        else:
            k = d.integer(0, 4)
            idx = d.ints((k,), 0, shape[dim])
        sshape = shape[:dim] + (k,) + shape[dim + 1:]
        kw = {"alpha": d.choice([1, 2, -0.5])} if alpha else {}
        return Sample([d.floats(shape), dim, idx, d.floats(sshape)], kw)
    return gen


def index_reduce_sample(d):
    """``index_src_sample``'s repeated indices, a reduce and ``include_self``. No "prod" on
    2+ dims with one-element slices: PyTorch 2.13 fails an internal assert there in fp16/bf16
    (its ``mul`` kernel on a one-element slice; minigrad computes it, see
    tests/differential/test_renorm_index_reduce.py)."""
    s = index_src_sample()(d)
    shape = s.args[0].values.shape
    one = len(shape) > 1 and np.prod(shape) == shape[s.args[1]]
    s.args.append(d.choice(["mean", "amax", "amin"] if one else ["prod", "mean", "amax", "amin"]))
    s.kwargs["include_self"] = d.choice([True, False])
    return s


def index_fill_sample(d):
    """A number or a 0-dim tensor value (index_fill.int_Scalar / .int_Tensor)."""
    s = index_select_sample(d)
    s.args.append(d.floats((), "real") if d.choice([False, True]) else
                  d.choice([1.5, -2.0, 0.0]))
    return s


def masked_sample(d):
    sa, sm = d.bshapes(2)
    return Sample([d.floats(sa), d.floats(sm, "real", "smooth")])


def masked_scatter_sample(d):
    """A mask that broadcasts to the input (so the in-place form applies too)."""
    shape = d.shape()
    sm = tuple(d.choice([1, s]) for s in shape[len(shape) - d.integer(0, len(shape)):])
    return Sample([d.floats(shape), d.floats(sm, "real", "smooth"),
                   d.floats((int(np.prod(shape)) + d.integer(0, 2),))])


def take_along_sample(d):
    shape = d.shape(min_dims=1, min_side=1)
    if d.choice([False, True]):
        return Sample([d.floats(shape), d.ints((d.integer(0, 4),), 0, int(np.prod(shape)))])
    nd = len(shape)
    dim = d.integer(-nd, nd - 1)
    ishape = tuple(d.choice([1, s]) if k != dim % nd else d.integer(0, 3)
                   for k, s in enumerate(shape))
    return Sample([d.floats(shape), d.ints(ishape, -shape[dim], shape[dim])], {"dim": dim})


def pad_constant_sample(d):
    shape = d.shape(min_dims=1)
    k = d.integer(1, len(shape))
    pad = []
    for j in range(k):
        n = shape[len(shape) - 1 - j]
        pad += [d.integer(-n, 2), d.integer(0, 2)]
    return Sample([d.floats(shape), tuple(pad)], {"value": d.choice([0.0, 1.5])})


def pad_border_sample(mode):
    def gen(d):
        k = d.choice([1, 2, 3])
        nd = d.choice([k + 1, k + 2])
        shape = tuple(d.integer(1, 2) for _ in range(nd - k)) + tuple(
            d.integer(1 if mode == "circular" else 2, 4 if k < 3 else 2) for _ in range(k))
        pad = []
        for j in range(k):
            n = shape[nd - 1 - j]
            top = n - 1 if mode != "circular" else 3
            top = min(top, n) if mode == "circular" else top
            lo = d.integer(-1 if mode == "circular" and n > 1 else 0, top)
            # circular: a right pad no wider than what a negative left pad leaves (beyond it
            # PyTorch's overlapping copy_ gives a forward its gradient does not match)
            hi = d.integer(0, min(top, n + lo) if mode == "circular" else top)
            pad += [lo, hi]
        return Sample([d.floats(shape), tuple(pad)], {"mode": mode} if mode else {})
    return gen


def one_hot_sample(d):
    shape = d.shape(max_dims=2)
    c = d.integer(1, 4)
    return Sample([d.ints(shape, 0, c)], {"num_classes": d.choice([-1, c, c + 1])})


def im2col_sample(d):
    k = (d.integer(1, 2), d.integer(1, 2))
    kw = {"dilation": (d.integer(1, 2), 1), "padding": (d.integer(0, 1), d.integer(0, 1)),
          "stride": (1, d.integer(1, 2))}
    hw = tuple(d.integer(3, 4) for _ in range(2))
    lead = (d.integer(1, 2),) * d.choice([1, 2])
    return Sample([d.floats(lead + hw), k], kw)


def col2im_sample(d):
    k = (d.integer(1, 2), d.integer(1, 2))
    kw = {"dilation": (1, d.integer(1, 2)), "padding": (d.integer(0, 1), 0),
          "stride": (d.integer(1, 2), 1)}
    hw = tuple(d.integer(3, 4) for _ in range(2))
    o = [(hw[i] + 2 * kw["padding"][i] - kw["dilation"][i] * (k[i] - 1) - 1) //
         kw["stride"][i] + 1 for i in range(2)]
    c = d.integer(1, 2)
    lead = (d.integer(1, 2),) * d.choice([0, 1])
    return Sample([d.floats(lead + (c * k[0] * k[1], o[0] * o[1])), hw, k], kw)


# ------------------------------------------------------------------------------ calls
def _both(method):
    """The op as a method and its in-place form on a clone (both outputs compared)."""
    def fn(lib, F, a, *args, **kw):
        out = a.clone()
        getattr(out, method + "_")(*args, **kw)
        return getattr(a, method)(*args, **kw), out
    return fn


def _repeat(lib, F, a, reps):
    return a.repeat(*reps), lib.tile(a, reps[1:] or reps)


def _scatter_reduce_arg(lib, F, a, dim, idx, src, reduce):
    a = a.detach()
    src = src.detach() if hasattr(src, "detach") else src
    if isinstance(src, float):
        return a.scatter(dim, idx, value=src, reduce=reduce), a.clone().scatter_(
            dim, idx, value=src, reduce=reduce)
    return a.scatter(dim, idx, src, reduce=reduce), a.clone().scatter_(dim, idx, src,
                                                                        reduce=reduce)


def _masked_scatter(lib, F, a, m, s):
    out = a.clone()
    out.masked_scatter_(m > 0, s)
    return lib.masked_scatter(a, m > 0, s), out


_SUM = ("gradient is a sum (repeated/broadcast/overlapping positions): accumulation bound "
        "(summation order and, in 16-bit, the one rounding of PyTorch's sum)")
_ACC16 = ("fp16/bf16: fp32 accumulation and one rounding, as PyTorch 2.13's CPU kernel "
          "(measured), bit-exact")

SPECS = [
    OpSpec("narrow", lambda lib, F, a, *args: a.narrow(*args), narrow_sample, dtypes=ONE),
    OpSpec("block_diag", lambda lib, F, *ts: lib.block_diag(*ts), block_diag_sample,
           dtypes=ONE),
    OpSpec("roll", lambda lib, F, a, *args: lib.roll(a, *args), roll_sample, dtypes=ONE),
    OpSpec("flip", lambda lib, F, a, dims: lib.flip(a, dims), dims_sample, dtypes=ONE,
           dtype_test=False),
    OpSpec("repeat", _repeat, repeat_sample, dtypes=ONE, bwd_ulp=ACC, bwd_scale="abs",
           dtype_test=False, notes="with tile (its composite); backward PyTorch's "
           "repeat_backward (leading dims summed one at a time, then one sum): " + _SUM),
    OpSpec("repeat_interleave", lambda lib, F, a, r, **kw: a.repeat_interleave(r, **kw),
           rep_interleave_sample, dtypes=ONE, bwd_ulp=ACC, bwd_scale="abs", dtype_test=False,
           notes="int repeats: unsqueeze/expand/clone/view, tensor repeats: index_select of "
                 "repeat_interleave.Tensor, as PyTorch; " + _SUM),
    OpSpec("movedim", lambda lib, F, a, s, t: lib.movedim(a, s, t), movedim_sample,
           dtypes=ONE, dtype_test=False),
    OpSpec("tril_triu", lambda lib, F, a, **kw: (lib.tril(a, **kw), a.triu(**kw)), tri_sample,
           dtypes=ONE, dtype_test=False),
    OpSpec("diag", lambda lib, F, a, k: lib.diag(a, k), diag_sample, dtypes=ONE,
           dtype_test=False, notes="1-D: diag_embed, 2-D: diagonal_copy (as PyTorch)"),
    OpSpec("diagonal", lambda lib, F, a, **kw: lib.diagonal(a, **kw), diagonal_sample,
           dtypes=ONE, dtype_test=False),
    OpSpec("unfold", lambda lib, F, a, *args: a.unfold(*args), unfold_sample, dtypes=ONE,
           bwd_ulp=ACC, bwd_scale="abs", dtype_test=False,
           notes="backward: overlapping windows add up (" + _SUM + ")"),
    OpSpec("gather", lambda lib, F, a, dim, idx: lib.gather(a, dim, idx), gather_sample,
           dtypes=ONE, notes="backward scatter_add: " + _ACC16),
    OpSpec("scatter", _both("scatter"), scatter_sample, dtypes=ONE, dtype_test=False,
           notes="src tensor or value; with scatter_"),
    OpSpec("scatter.reduce", _scatter_reduce_arg, scatter_reduce_arg_sample, dtypes=ONE,
           differentiable=False, dtype_test=False,
           notes="reduce='add'/'multiply' (src or value; with scatter_), not differentiable as "
                 "in PyTorch; " + _ACC16),
    OpSpec("scatter_add", lambda lib, F, a, *args: lib.scatter_add(a, *args),
           scatter_add_sample, dtypes=ONE, fwd_ulp=_u(2, 2, 0, 0), scale="abs",
           dtype_test=False, notes="fp32/fp64: summation order; " + _ACC16),
    OpSpec("scatter_reduce", lambda lib, F, a, *args, **kw: a.scatter_reduce(*args, **kw),
           scatter_reduce_sample, dtypes=ONE, fwd_ulp=_u(2, 2, 0, 0), bwd_ulp=_u(4, 4, 1, 1),
           scale="abs", bwd_scale="max", dtype_test=False,
           notes="sum/prod/mean/amax/amin, include_self; forward " +
                 _ACC16 + " (mean: the sum rounded, then divided); backward PyTorch's "
                 "scatter_reduce_backward composite (several roundings in 16-bit)"),
    OpSpec("index_select", lambda lib, F, a, dim, idx: lib.index_select(a, dim, idx),
           index_select_sample, dtypes=ONE, dtype_test=False,
           notes="backward index_add: one rounding per repeated index, as PyTorch"),
    OpSpec("index_add", _both("index_add"), index_src_sample(alpha=True), dtypes=ONE,
           dtype_test=False, notes="with index_add_; each slice added with add's kernel"),
    OpSpec("index_reduce", _both("index_reduce"), index_reduce_sample, dtypes=ONE,
           dtype_test=False, notes="prod/mean/amax/amin, include_self, with index_reduce_; one "
           "rounding per index (as PyTorch's loop); backward PyTorch's index_reduce_backward "
           "composite"),
    OpSpec("index_copy", _both("index_copy"), index_src_sample(distinct=True), dtypes=ONE,
           dtype_test=False, notes="with index_copy_"),
    OpSpec("index_fill", _both("index_fill"), index_fill_sample, dtypes=ONE,
           dtype_test=False, notes="with index_fill_"),
    OpSpec("masked_select", lambda lib, F, a, m: lib.masked_select(a, m > 0), masked_sample,
           dtypes=ONE, bwd_ulp=ACC, bwd_scale="abs", dtype_test=False),
    OpSpec("masked_scatter", _masked_scatter, masked_scatter_sample, dtypes=ONE,
           dtype_test=False, notes="with masked_scatter_"),
    OpSpec("take_along_dim", lambda lib, F, a, idx, **kw: lib.take_along_dim(a, idx, **kw),
           take_along_sample, dtypes=ONE, dtype_test=False,
           notes="gradient: scatter_add of expanded indices (" + _ACC16 + ")"),
    OpSpec("nonzero", lambda lib, F, a: (lib.nonzero(a),) + a.nonzero(as_tuple=True),
           lambda d: Sample([d.floats(d.shape(), "real", "smooth")]), dtypes=ONE,
           differentiable=False, dtype_test=False),
    OpSpec("pad.constant", lambda lib, F, a, pad, **kw: F.pad(a, pad, **kw),
           pad_constant_sample, dtypes=ONE, dtype_test=False),
    OpSpec("pad.border", lambda lib, F, a, pad: (F.pad(a, pad, mode="reflect"),
                                                 F.pad(a, pad, mode="replicate")),
           pad_border_sample(None), dtypes=ONE, bwd_ulp=ACC, bwd_scale="abs",
           dtype_test=False, notes="reflect/replicate, 1 to 3 dims; backward adds each output "
           "gradient onto its source in output order, rounded per addition as PyTorch's "
           "cpu_padding_backward"),
    OpSpec("pad.circular", lambda lib, F, a, pad, **kw: F.pad(a, pad, **kw),
           pad_border_sample("circular"), dtypes=ONE, bwd_ulp=ACC, bwd_scale="abs",
           dtype_test=False, notes="PyTorch's _pad_circular composite (copy_ into slices, "
                                   "CopySlices); " + _SUM),
    OpSpec("one_hot", lambda lib, F, t, **kw: F.one_hot(t, **kw), one_hot_sample,
           dtypes=("float64",), differentiable=False, dtype_test=False,
           notes="int64 input only (the float dtype under test is unused)"),
    OpSpec("F.unfold", lambda lib, F, a, k, **kw: F.unfold(a, k, **kw), im2col_sample,
           dtypes=ONE, dtype_test=False, bwd_ulp=ACC, bwd_scale="abs",
           notes="backward col2im: overlapping blocks add up per pixel in (c, i, j) order"),
    OpSpec("F.fold", lambda lib, F, a, hw, k, **kw: F.fold(a, hw, k, **kw), col2im_sample,
           dtypes=ONE, fwd_ulp=ACC, scale="abs", dtype_test=False,
           notes="col2im: overlapping blocks add up per pixel, one rounding per addition"),
]

_INPLACE = ("in-place form (one accumulating kernel with its op, whose spec has an absolute "
            "slack the harness computes for single outputs only); compared with torch, values "
            "and gradients, in tests/unit/test_shape_index_ops.py")
EXEMPT.update({"scatter_add_": _INPLACE, "scatter_reduce_.two": _INPLACE})
