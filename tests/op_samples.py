"""How each op spec's inputs are drawn: one ``sample(d) -> Sample`` per op family, written
against a drawer ``d`` (``tests/strategies.py``: hypothesis, seeded gradcheck values, or the dtype
tests' small integers), used by the catalogue ``tests/op_specs.py``.
"""
from __future__ import annotations

import math

import numpy as np

from tests.strategies import FloatIn, Sample


def binary(da="real", db="real", values="extreme", scalars=True, alpha=False,
            scalar_kinds=("float", "int")):
    def gen(d):
        sa, sb = d.bshapes(2)
        mode = d.choice(["tt", "tt", "ts", "st"]) if scalars else "tt"
        a = d.scalar(da, scalar_kinds) if mode == "st" else d.floats(sa, da, values)
        b = d.scalar(db, scalar_kinds) if mode == "ts" else d.floats(sb, db, values)
        kw = {}
        if alpha and mode != "st":
            al = d.choice([1, 2, 0.5, -1.5])
            if al != 1:
                kw["alpha"] = al
        return Sample([a, b], kw)
    return gen


def no_quotient_overflow(gen):
    """``gen`` with divisors kept off 0 < |b| < 1e-4 and dividends within +-1e30, so that
    ``a / b`` stays finite in fp32: PyTorch's vectorised remainder loop goes through ``a / b``
    and gives nan where it overflows (measured: ``1.0 % 5e-324`` is nan in the vector body and
    0 in the scalar tail), a kernel quirk we do not emulate."""
    def wrapped(d):
        smp = gen(d)
        a, b = smp.args
        if isinstance(a, FloatIn):
            a.values = np.clip(a.values, -1e30, 1e30)
        if isinstance(b, FloatIn):
            v = b.values
            small = (v != 0) & (np.abs(v) < 1e-4)
            b.values = np.where(small, np.copysign(1e-4, v), v)
        return smp
    return wrapped


def unary(domain="real", values="extreme"):
    return lambda d: Sample([d.floats(d.shape(), domain, values)])


def pow_sample(d):
    mode = d.choice(["tt", "ts", "ts", "st"])
    sa, sb = d.bshapes(2)
    base = "positive" if d.smooth else "real"     # gradcheck: no nan from (-x) ** 0.5
    if mode == "tt":
        return Sample([d.floats(sa, base), d.floats(sb, "real", "smooth")])
    if mode == "ts":
        return Sample([d.floats(sa, base), d.choice([2, 3, 0.5, -1, 0, 2.5, -2, 1, 1.0])])
    return Sample([d.choice([2.0, 0.5, 2, 3, 1.5]), d.floats(sb, "real", "smooth")])


def clamp_scalar(d):
    lo = d.choice([None, -1.0, 0.0, 0.5, -2, 1])
    hi = d.choice([None, 1.0, 2.5, 0, 3, -0.5])
    return Sample([d.floats(d.shape(), "real")], {"min": lo, "max": hi})


def clamp_tensor(d):
    sa, sl, sh = d.bshapes(3)
    which = d.choice(["both", "min", "max"])
    lo = d.floats(sl, "real", "finite") if which in ("both", "min") else None
    hi = d.floats(sh, "real", "finite") if which in ("both", "max") else None
    return Sample([d.floats(sa, "real"), lo, hi])


def matmul_sample(d):
    kind = d.choice(["1x1", "2x1", "1x2", "2x2", "nd"])
    n, k, m = d.integer(0, 4), d.integer(0, 4), d.integer(0, 4)
    if kind == "1x1":
        sa, sb = (k,), (k,)
    elif kind == "2x1":
        sa, sb = (n, k), (k,)
    elif kind == "1x2":
        sa, sb = (k,), (k, m)
    elif kind == "2x2":
        sa, sb = (n, k), (k, m)
    else:
        ba, bb = d.bshapes(2, min_dims=0, max_dims=2, min_side=0, max_side=3)
        sa = tuple(ba) + ((n, k) if d.choice([True, True, False]) else (k,))
        sb = tuple(bb) + (k, m)
    return Sample([d.floats(sa, "real", "finite"), d.floats(sb, "real", "finite")])


def mm_sample(d):
    n, k, m = d.integer(0, 4), d.integer(0, 4), d.integer(0, 4)
    return Sample([d.floats((n, k), "real", "finite"), d.floats((k, m), "real", "finite")])


def addmm_sample(d):
    n, k, m = d.integer(0, 4), d.integer(0, 4), d.integer(0, 4)
    ms = d.choice([(n, m), (m,), (1, m), (n, 1), ()])
    kw = {}
    beta, alpha = d.choice([1, 0, 0.5, -1]), d.choice([1, 2, -0.5])
    if beta != 1:
        kw["beta"] = beta
    if alpha != 1:
        kw["alpha"] = alpha
    return Sample([d.floats(ms, "real", "extreme" if beta == 0 else "finite"),
                   d.floats((n, k), "real", "finite"), d.floats((k, m), "real", "finite")], kw)


def linear_sample(d):
    batch = d.shape(min_dims=0, max_dims=2, max_side=3)
    fin, fout = d.integer(0, 4), d.integer(0, 4)
    bias = d.floats((fout,), "real", "finite") if d.choice([True, True, False]) else None
    return Sample([d.floats(tuple(batch) + (fin,), "real", "finite"),
                   d.floats((fout, fin), "real", "finite"), bias])


def reduce_sample(allow_tuple=True, with_dtype=False, values="extreme", min_side=0):
    def gen(d):
        shape = d.shape(min_side=min_side)
        nd = max(len(shape), 1)
        kind = d.choice(["all", "int", "tuple"] if allow_tuple else ["all", "int"])
        kw = {}
        if kind == "int":
            kw["dim"] = d.integer(-nd, nd - 1)
        elif kind == "tuple" and len(shape) >= 1:
            k = d.integer(1, len(shape))
            dims = sorted(set(d.integer(0, len(shape) - 1) for _ in range(k)))
            kw["dim"] = tuple(x - len(shape) if d.choice([True, False]) else x for x in dims)
        if "dim" in kw and d.choice([True, False]):
            kw["keepdim"] = True
        if with_dtype and d.choice([False, True]):
            kw["dtype"] = "float64" if d.smooth else d.choice(["float32", "float64"])
        return Sample([d.floats(shape, "real", values)], kw)
    return gen


def dim_sample(min_dims=1, values="extreme", last=False):
    def gen(d):
        shape = d.shape(min_dims=min_dims)
        nd = max(len(shape), 1)
        dim = -1 if last else d.integer(-nd, nd - 1)
        return Sample([d.floats(shape, "real", values), dim])
    return gen


def reshape_sample(d):
    shape = d.shape()
    n = math.prod(shape)
    opts = [(-1,), tuple(reversed(shape)), (1,) + tuple(shape), tuple(shape) + (1,), (n,)]
    if len(shape) >= 2:
        opts.append((shape[0] * shape[1],) + tuple(shape[2:]))
    rest = [i for i in range(len(shape)) if math.prod(shape[:i] + shape[i + 1:]) > 0]
    if rest:
        i = d.choice(rest)
        opts.append(tuple(shape[:i]) + (-1,) + tuple(shape[i + 1:]))
    return Sample([d.floats(shape, "real")], {"shape": d.choice(opts)})


def transpose_sample(d):
    shape = d.shape()
    nd = max(len(shape), 1)
    return Sample([d.floats(shape, "real"), d.integer(-nd, nd - 1), d.integer(-nd, nd - 1)])


def permute_sample(d):
    shape = d.shape()
    perm = list(range(len(shape)))
    for i in range(len(perm) - 1, 0, -1):       # Fisher-Yates with drawn indices
        j = d.integer(0, i)
        perm[i], perm[j] = perm[j], perm[i]
    perm = tuple(p - len(shape) if d.choice([False, True]) else p for p in perm)
    return Sample([d.floats(shape, "real")], {"dims": perm})


def unsqueeze_sample(d):
    shape = d.shape()
    return Sample([d.floats(shape, "real"), d.integer(-len(shape) - 1, len(shape))])


def squeeze_sample(d):
    shape = d.shape(max_side=2)
    nd = max(len(shape), 1)
    kind = d.choice(["none", "int", "tuple"])
    kw = {}
    if kind == "int":
        kw["dim"] = d.integer(-nd, nd - 1)
    elif kind == "tuple" and shape:
        kw["dim"] = tuple(sorted(set(d.integer(0, len(shape) - 1) for _ in range(2))))
    return Sample([d.floats(shape, "real")], kw)


def expand_sample(d):
    shape = d.shape(max_side=3)
    target = [d.choice([1, 0, 3, -1]) if s == 1 else d.choice([-1, s]) for s in shape]
    lead = [d.integer(0, 3) for _ in range(d.integer(0, 2))]
    return Sample([d.floats(shape, "real")], {"size": tuple(lead + target)})


def index_basic(d):
    shape = d.shape(min_dims=1)
    idx = []
    for s in shape[:d.integer(1, len(shape))]:
        if s > 0 and d.choice([True, False]):
            idx.append(d.integer(-s, s - 1))
        else:
            idx.append(slice(d.choice([None, 0, 1, -1, -s - 1, s + 1]),
                             d.choice([None, s, 1, -1, 2 * s + 1, 0]),
                             d.choice([None, 1, 2, 3])))
    one = d.choice([True, False])
    return Sample([d.floats(shape, "real")], {"idx": idx[0] if one else tuple(idx)})


def index_array(d):
    shape = d.shape(min_dims=1, min_side=1)
    kind = d.choice(["first", "second", "two"]) if len(shape) >= 2 else "first"
    ishape = d.shape(min_dims=1, max_dims=2, max_side=3)
    if kind == "first":
        return Sample([d.floats(shape, "real"), d.ints(ishape, -shape[0], shape[0])],
                      {"where": "first"})
    if kind == "second":
        return Sample([d.floats(shape, "real"), d.ints(ishape, -shape[1], shape[1])],
                      {"where": "second"})
    s1, s2 = d.bshapes(2, min_dims=1, max_dims=2, min_side=1, max_side=3)
    return Sample([d.floats(shape, "real"), d.ints(s1, -shape[0], shape[0]),
                   d.ints(s2, -shape[1], shape[1])], {"where": "two"})


def cast_sample(target):
    def gen(d):
        ints = target in ("int64", "int32", "bool")
        return Sample([d.floats(d.shape(), "real", "smooth" if ints else "extreme")],
                      {"target": target})
    return gen


def cast_method_sample(d):
    return Sample([d.floats(d.shape(), "real")],
                  {"method": d.choice(["float", "double", "half", "bfloat16"])})


def ce_sample(d):
    c = d.integer(1, 4)
    kind = d.choice(["nc", "nc", "c", "ncd"])
    n = d.integer(0, 4)
    if kind == "nc":
        xs, ts = (n, c), (n,)
    elif kind == "c":
        xs, ts = (c,), ()
    else:
        k = d.integer(1, 3)
        xs, ts = (n, c, k), (n, k)
    kw = {"reduction": d.choice(["mean", "sum", "none"])}
    ii = d.choice([None, None, 0, c - 1])
    if ii is not None:
        kw["ignore_index"] = ii
    return Sample([d.floats(xs, "real", "finite"), d.ints(ts, 0, c)], kw)


def ce_sample_ls(d):
    s = ce_sample(d)
    s.kwargs["label_smoothing"] = d.choice([0.0, 0.1, 0.5])
    return s


def mse_sample(d):
    shape = d.shape()
    return Sample([d.floats(shape, "real", "finite"), d.floats(shape, "real", "finite")],
                  {"reduction": d.choice(["mean", "sum", "none"])})


def int_binary(d):
    sa, sb = d.bshapes(2)
    mode = d.choice(["tt", "tt", "ts"])
    b = d.scalar("real", ("int",)) if mode == "ts" else d.floats(sb, "real", "smooth")
    return Sample([d.floats(sa, "real", "smooth"), b])


def shift_sample(d):
    sa, sb = d.bshapes(2)
    return Sample([d.floats(sa, "real", "smooth"), d.floats(sb, "nonneg", "smooth")])


def div_mode_sample(d):
    """As ``binary`` with a tensor first (``torch.div(2.5, t, rounding_mode=...)`` works in
    PyTorch; minigrad raises TypeError: a known divergence, see the layout report)."""
    s = binary()(d)
    while not isinstance(s.args[0], FloatIn):
        s = binary()(d)
    s.kwargs["rounding_mode"] = d.choice(["trunc", "floor"])
    return s


def rsub_sample(d):
    sa, sb = d.bshapes(2)
    kw = {} if d.choice([True, False]) else {"alpha": d.choice([2, 0.5, -1.5])}
    return Sample([d.floats(sa, "real"), d.floats(sb, "real")], kw)


def inplace_sample(d):
    """``self`` and an operand broadcasting *to* ``self``'s shape (or a scalar)."""
    shape = d.shape()
    other = d.scalar() if d.choice([True, False, False]) else \
        d.floats(shape[len(shape) - d.integer(0, len(shape)):], "real")
    return Sample([d.floats(shape, "real"), other])


def fill_sample(d):
    """Values that fit every dtype: PyTorch raises for 70000 into fp16 even on an empty tensor
    and minigrad does not (a known divergence, see the layout report)."""
    shape = d.shape()
    pool = [2.5, -3.0, 0.0, 1, 7] + ([] if d.smooth else [math.inf, math.nan])
    v = d.choice(pool) if d.choice([True, False]) else \
        d.floats((), "real")
    return Sample([d.floats(shape, "real"), v])


def copy_sample(d):
    shape = d.shape()
    return Sample([d.floats(shape, "real"), d.floats(shape[len(shape) - d.integer(0, len(shape)):],
                                                     "real")])


def setitem_sample(d):
    s = index_basic(d)
    a = s.args[0].values
    target = np.empty(a.shape)[s.kwargs["idx"]].shape
    v = d.scalar() if d.choice([True, False]) else \
        d.floats(target[len(target) - d.integer(0, len(target)):], "real")
    return Sample([s.args[0], v], s.kwargs)


def bmm_sample(d):
    b, n, k, m = (d.integer(0, 3) for _ in range(4))
    return Sample([d.floats((b, n, k), "real", "finite"), d.floats((b, k, m), "real", "finite")])


def mv_sample(d):
    n, k = d.integer(0, 4), d.integer(0, 4)
    return Sample([d.floats((n, k), "real", "finite"), d.floats((k,), "real", "finite")])


def dot_sample(d):
    k = d.integer(0, 5)
    return Sample([d.floats((k,), "real", "finite"), d.floats((k,), "real", "finite")])


def cat_sample(d):
    shape = d.shape(min_dims=1)
    dim = d.integer(-len(shape), len(shape) - 1)
    parts = []
    for _ in range(d.integer(1, 2)):     # two parts at most: the dtype tests try 10**parts
        s = list(shape)
        s[dim] = d.integer(0, 3)
        parts.append(d.floats(tuple(s), "real"))
    return Sample(parts, {"dim": dim})


def stack_sample(d):
    shape = d.shape()
    n = d.integer(1, 2)
    return Sample([d.floats(shape, "real") for _ in range(n)],
                  {"dim": d.integer(-len(shape) - 1, len(shape))})


def flatten_sample(d):
    shape = d.shape()
    nd = max(len(shape), 1)
    a, b = sorted((d.integer(-nd, nd - 1) % nd, d.integer(-nd, nd - 1) % nd))
    return Sample([d.floats(shape, "real")], {"start_dim": a, "end_dim": b})


def norm_sample(d):
    kw = {"ord": d.choice([2, 1, 3, 0.5, math.inf, -math.inf, 0])}
    return Sample([d.floats(d.shape(), "real", "finite")], kw)


def ce_probs_sample(d):
    c = d.integer(1, 4)
    n = d.integer(0, 4)
    kw = {"reduction": d.choice(["mean", "sum", "none"]),
          "label_smoothing": d.choice([0.0, 0.0, 0.2])}
    return Sample([d.floats((n, c), "real", "finite"), d.floats((n, c), "unit", "smooth")], kw)


def nll4d_sample(d):
    n, c, h, w = d.integer(0, 3), d.integer(1, 3), d.integer(1, 3), d.integer(1, 2)
    kw = {"reduction": d.choice(["mean", "sum", "none"])}
    return Sample([d.floats((n, c, h, w), "real", "finite"), d.ints((n, h, w), 0, c)], kw)


def like_sample(d):
    return Sample([d.floats(d.shape(), "real")])


def with_kwargs(d, sample, **kw):
    sample.kwargs.update(kw)
    return sample


def with_keepdim(d, sample):
    if d.choice([True, False]):
        sample.kwargs["keepdim"] = True
    return sample


def nll(d):
    """nll_loss takes log-probabilities: any real input; same shapes/targets as cross_entropy."""
    return ce_sample(d)
