"""THE catalogue of op specs: one entry per op (variant) of issue 2, driving every op test.

Each ``OpSpec`` says how to call the op (``fn(lib, F, *args, **kwargs)``, the same code for
``lib=minigrad, F=minigrad.nn.functional`` and ``lib=torch, F=torch.nn.functional``), how to draw
its inputs (``sample(drawer)``, see ``tests/strategies.py``), which dtypes it is checked in,
whether it is differentiable, and the numerics bound it must meet against PyTorch CPU:

- ``fwd_ulp`` / ``bwd_ulp``: the largest ULP distance allowed per float dtype, in the output's
  own format. 0 means bit-exact: the contract for fp16/bf16 elementwise ops (compute in fp32,
  round once). fp32/fp64 transcendental results may differ by a couple of ULPs from PyTorch's
  vectorised (SLEEF) math; matmul/reductions/softmax allow 1 ULP in fp16/bf16 (summation order).
- ``scale`` / ``bwd_scale`` (accumulating ops only): an extra absolute slack
  ``SCALE_ULPS * eps(opmath) * scale`` where ``scale`` is the error magnitude of the
  accumulation (``"abs"``: the op evaluated on |inputs| in float64, which bounds cancellation;
  ``"max"``: the largest |expected| value; or a function). This is what "within a stated ULP
  bound" means for a sum whose exact value cancels to ~0.
- ``notes``: each exception to the bit-exact contract, with its reason (facts sheet §5).

Tests using it: ``tests/differential/test_ops_vs_torch.py`` (hypothesis forward/backward/dtypes),
``tests/differential/test_gradcheck.py`` (float64 gradcheck), ``tests/differential/
test_opinfo.py`` (PyTorch's OpInfo samples, bounds looked up here).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable, Optional

from tests.strategies import FLOAT_DTYPES, Sample

F64, F32, F16, BF16 = FLOAT_DTYPES
SCALE_ULPS = 32


def _u(f64=0, f32=0, f16=0, bf16=0):
    return {F64: f64, F32: f32, F16: f16, BF16: bf16}


EXACT = _u()
TRANSC = _u(2, 2, 0, 0)          # fp32/fp64 libm vs SLEEF; fp16/bf16 bit-exact after rounding
ACC = _u(2, 2, 1, 1)             # accumulation order (matmul, sum, softmax...)


@dataclasses.dataclass(frozen=True, repr=False)
class OpSpec:
    name: str
    fn: Callable
    sample: Callable
    dtypes: tuple = FLOAT_DTYPES
    differentiable: bool = True
    fwd_ulp: dict = dataclasses.field(default_factory=lambda: dict(EXACT))
    bwd_ulp: dict = dataclasses.field(default_factory=lambda: dict(EXACT))
    scale: Optional[object] = None       # None, "abs", "self", "max" or fn(inputs64, kwargs)
    bwd_scale: Optional[object] = None   # None, "abs" or "max"
    gradcheck: bool = True
    dtype_test: bool = True
    notes: str = ""

    def __repr__(self):
        return self.name


# ------------------------------------------------------------------------------ samples
def _binary(da="real", db="real", values="extreme", scalars=True, alpha=False,
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


def _unary(domain="real", values="extreme"):
    return lambda d: Sample([d.floats(d.shape(), domain, values)])


def _pow_sample(d):
    mode = d.choice(["tt", "ts", "ts", "st"])
    sa, sb = d.bshapes(2)
    base = "positive" if d.smooth else "real"     # gradcheck: no nan from (-x) ** 0.5
    if mode == "tt":
        return Sample([d.floats(sa, base), d.floats(sb, "real", "smooth")])
    if mode == "ts":
        return Sample([d.floats(sa, base), d.choice([2, 3, 0.5, -1, 0, 2.5, -2, 1, 1.0])])
    return Sample([d.choice([2.0, 0.5, 2, 3, 1.5]), d.floats(sb, "real", "smooth")])


def _clamp_scalar(d):
    lo = d.choice([None, -1.0, 0.0, 0.5, -2, 1])
    hi = d.choice([None, 1.0, 2.5, 0, 3, -0.5])
    return Sample([d.floats(d.shape(), "real")], {"min": lo, "max": hi})


def _clamp_tensor(d):
    sa, sl, sh = d.bshapes(3)
    which = d.choice(["both", "min", "max"])
    lo = d.floats(sl, "real", "finite") if which in ("both", "min") else None
    hi = d.floats(sh, "real", "finite") if which in ("both", "max") else None
    return Sample([d.floats(sa, "real"), lo, hi])


def _matmul_sample(d):
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


def _mm_sample(d):
    n, k, m = d.integer(0, 4), d.integer(0, 4), d.integer(0, 4)
    return Sample([d.floats((n, k), "real", "finite"), d.floats((k, m), "real", "finite")])


def _addmm_sample(d):
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


def _linear_sample(d):
    batch = d.shape(min_dims=0, max_dims=2, max_side=3)
    fin, fout = d.integer(0, 4), d.integer(0, 4)
    bias = d.floats((fout,), "real", "finite") if d.choice([True, True, False]) else None
    return Sample([d.floats(tuple(batch) + (fin,), "real", "finite"),
                   d.floats((fout, fin), "real", "finite"), bias])


def _reduce_sample(allow_tuple=True, with_dtype=False, values="extreme", min_side=0):
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


def _dim_sample(min_dims=1, values="extreme", last=False):
    def gen(d):
        shape = d.shape(min_dims=min_dims)
        nd = max(len(shape), 1)
        dim = -1 if last else d.integer(-nd, nd - 1)
        return Sample([d.floats(shape, "real", values), dim])
    return gen


def _reshape_sample(d):
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


def _transpose_sample(d):
    shape = d.shape()
    nd = max(len(shape), 1)
    return Sample([d.floats(shape, "real"), d.integer(-nd, nd - 1), d.integer(-nd, nd - 1)])


def _permute_sample(d):
    shape = d.shape()
    perm = list(range(len(shape)))
    for i in range(len(perm) - 1, 0, -1):       # Fisher-Yates with drawn indices
        j = d.integer(0, i)
        perm[i], perm[j] = perm[j], perm[i]
    perm = tuple(p - len(shape) if d.choice([False, True]) else p for p in perm)
    return Sample([d.floats(shape, "real")], {"dims": perm})


def _unsqueeze_sample(d):
    shape = d.shape()
    return Sample([d.floats(shape, "real"), d.integer(-len(shape) - 1, len(shape))])


def _squeeze_sample(d):
    shape = d.shape(max_side=2)
    nd = max(len(shape), 1)
    kind = d.choice(["none", "int", "tuple"])
    kw = {}
    if kind == "int":
        kw["dim"] = d.integer(-nd, nd - 1)
    elif kind == "tuple" and shape:
        kw["dim"] = tuple(sorted(set(d.integer(0, len(shape) - 1) for _ in range(2))))
    return Sample([d.floats(shape, "real")], kw)


def _expand_sample(d):
    shape = d.shape(max_side=3)
    target = [d.choice([1, 0, 3, -1]) if s == 1 else d.choice([-1, s]) for s in shape]
    lead = [d.integer(0, 3) for _ in range(d.integer(0, 2))]
    return Sample([d.floats(shape, "real")], {"size": tuple(lead + target)})


def _index_basic(d):
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


def _index_array(d):
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


def _index_array_fn(lib, F, a, i, j=None, *, where):
    if where == "first":
        return a[i]
    if where == "second":
        return a[:, i]
    return a[i, j]


def _cast_sample(target):
    def gen(d):
        ints = target in ("int64", "int32", "bool")
        return Sample([d.floats(d.shape(), "real", "smooth" if ints else "extreme")],
                      {"target": target})
    return gen


def _cast_method_sample(d):
    return Sample([d.floats(d.shape(), "real")],
                  {"method": d.choice(["float", "double", "half", "bfloat16"])})


def _ce_sample(d):
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


def _ce_sample_ls(d):
    s = _ce_sample(d)
    s.kwargs["label_smoothing"] = d.choice([0.0, 0.1, 0.5])
    return s


def _mse_sample(d):
    shape = d.shape()
    return Sample([d.floats(shape, "real", "finite"), d.floats(shape, "real", "finite")],
                  {"reduction": d.choice(["mean", "sum", "none"])})


# ------------------------------------------------------------------------------ scales
def _ls_scale(tin, kw):
    """|x - max| + |logsumexp| bounds the cancellation of log_softmax's output."""
    x = tin[0]
    if x.numel() == 0:
        return 0.0
    return x.abs().amax() * 2 + math.log(max(x.shape[kw.get("dim", -1)] if x.ndim else 1, 1)) + 1


def _ce_scale(tin, kw):
    x = tin[0]
    if x.numel() == 0:
        return 0.0
    c = x.shape[1] if x.ndim >= 2 else x.shape[0]
    per = x.abs().amax() * 2 + math.log(max(c, 1)) + 1
    return per * (x.numel() // max(c, 1) if kw.get("reduction") == "sum" else 1)


# ------------------------------------------------------------------------------ the catalogue
def _add(lib, F, a, b, **kw):
    return lib.add(a, b, **kw) if kw else a + b


def _sub(lib, F, a, b, **kw):
    return lib.sub(a, b, **kw) if kw else a - b


SPECS = [
    OpSpec("add", _add, _binary(alpha=True)),
    OpSpec("sub", _sub, _binary(alpha=True)),
    OpSpec("mul", lambda lib, F, a, b: a * b, _binary()),
    OpSpec("div", lambda lib, F, a, b: a / b, _binary()),
    OpSpec("remainder", lambda lib, F, a, b: a % b, _binary(), gradcheck=False,
           notes="gradient jumps where a/b is an integer: no finite-difference check"),
    OpSpec("fmod", lambda lib, F, a, b: lib.fmod(a, b), _binary(scalar_kinds=("float",)),
           gradcheck=False, notes="gradient jumps where a/b is an integer"),
    OpSpec("neg", lambda lib, F, a: lib.neg(a), _unary()),
    OpSpec("pow", lambda lib, F, a, b: a ** b, _pow_sample, fwd_ulp=_u(2, 2, 0, 0),
           bwd_ulp=_u(4, 4, 0, 0), notes="fp32/fp64: libm pow vs PyTorch's; backward composite"),
    OpSpec("exp", lambda lib, F, a: lib.exp(a), _unary(), fwd_ulp=_u(2, 2, 0, 1),
           bwd_ulp=_u(2, 2, 0, 1),
           notes="bf16 forward and backward: 1 ulp, PyTorch's vectorised exp (facts §5)"),
    OpSpec("log", lambda lib, F, a: lib.log(a), _unary("nonneg"), fwd_ulp=TRANSC,
           bwd_ulp=EXACT),
    OpSpec("sqrt", lambda lib, F, a: lib.sqrt(a), _unary("nonneg"), fwd_ulp=_u(1, 1, 0, 0),
           bwd_ulp=_u(2, 2, 0, 0),
           notes="fp32/fp64: 1 ulp, PyTorch's vectorised sqrt is not correctly rounded (fp32: "
                 "facts §5; fp64: ~0.7% of uniform inputs differ from IEEE sqrt, measured); the "
                 "backward g/(2y) uses that y, so 1 ulp from y plus its own rounding: 2 ulp "
                 "(measured max 2 over 400k inputs in fp32 and fp64)"),
    OpSpec("abs", lambda lib, F, a: lib.abs(a), _unary()),
    OpSpec("maximum", lambda lib, F, a, b: lib.maximum(a, b), _binary(scalars=False)),
    OpSpec("minimum", lambda lib, F, a, b: lib.minimum(a, b), _binary(scalars=False)),
    OpSpec("clamp", lambda lib, F, a, **kw: lib.clamp(a, **kw), _clamp_scalar),
    OpSpec("clamp.tensor", lambda lib, F, a, lo, hi: lib.clamp(a, lo, hi), _clamp_tensor),
    OpSpec("tanh", lambda lib, F, a: lib.tanh(a), _unary(), fwd_ulp=TRANSC, bwd_ulp=TRANSC,
           bwd_scale="max",
           notes="fp32/fp64 backward: g*(1-y*y) on our y, which differs from PyTorch's vectorised "
                 "tanh by <= 1 ulp (0.6% of fp32, 22% of fp64 inputs, measured); near |y|~1 the "
                 "cancellation in 1-y*y turns that into an absolute error of 2|g||y|ulp(y) <= "
                 "|g|*eps (measured max 1.46|g|*eps over 400k inputs), i.e. huge ULP counts on a "
                 "tiny result. Bound: absolute slack scaled by max|upstream grad| (bwd_scale="
                 "'max'); fp16/bf16 stay bit-exact (tanh_backward rounds once)"),
    OpSpec("sigmoid", lambda lib, F, a: lib.sigmoid(a), _unary(), fwd_ulp=_u(2, 3, 0, 0),
           bwd_ulp=TRANSC, notes="fp16 backward: PyTorch rounds g*(1-y) to fp16 then *y "
                                 "(facts §5); still bit-exact"),
    OpSpec("relu", lambda lib, F, a: F.relu(a), _unary()),
    OpSpec("relu.method", lambda lib, F, a: a.relu(), _unary()),
    OpSpec("matmul", lambda lib, F, a, b: a @ b, _matmul_sample, fwd_ulp=ACC, bwd_ulp=ACC,
           scale="abs", bwd_scale="abs", notes="fp32 accumulation order (facts §5)"),
    OpSpec("mm", lambda lib, F, a, b: lib.mm(a, b), _mm_sample, fwd_ulp=ACC, bwd_ulp=ACC,
           scale="abs", bwd_scale="abs"),
    OpSpec("addmm", lambda lib, F, m, a, b, **kw: lib.addmm(m, a, b, **kw), _addmm_sample,
           fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", bwd_scale="abs",
           notes="beta=0 ignores nan/inf in input (PyTorch docs)"),
    OpSpec("linear", lambda lib, F, x, w, b: F.linear(x, w, b), _linear_sample, fwd_ulp=ACC,
           bwd_ulp=ACC, scale="abs", bwd_scale="abs",
           notes="bias added before the single rounding (facts §5)"),
    OpSpec("sum", lambda lib, F, a, **kw: lib.sum(a, **_dt(lib, kw)),
           _reduce_sample(with_dtype=True, values="finite"), fwd_ulp=ACC, scale="abs",
           notes="fp16/bf16: fp32 accumulation, one rounding; 1 ulp for summation order"),
    OpSpec("sum.special", lambda lib, F, a, **kw: lib.sum(a, **kw),
           _reduce_sample(allow_tuple=False), fwd_ulp=ACC, scale="abs",
           notes="inf/nan/dtype-max inputs (overflow is order dependent only at fp32 max)"),
    OpSpec("mean", lambda lib, F, a, **kw: lib.mean(a, **_dt(lib, kw)),
           _reduce_sample(with_dtype=True, values="finite"), fwd_ulp=ACC, scale="abs"),
    OpSpec("max.full", lambda lib, F, a: a.max(), _unary()),
    OpSpec("max.dim", lambda lib, F, a, dim, **kw: lib.max(a, dim, **kw),
           lambda d: _with_keepdim(d, _dim_sample(min_dims=0)(d))),
    OpSpec("amax", lambda lib, F, a, **kw: lib.amax(a, **kw),
           _reduce_sample(min_side=1)),
    OpSpec("argmax", lambda lib, F, a, **kw: lib.argmax(a, **kw),
           _reduce_sample(allow_tuple=False, min_side=1), differentiable=False),
    OpSpec("reshape", lambda lib, F, a, shape: a.reshape(shape), _reshape_sample),
    OpSpec("reshape.fn", lambda lib, F, a, shape: lib.reshape(a, shape), _reshape_sample),
    OpSpec("view", lambda lib, F, a, shape: a.view(shape), _reshape_sample),
    OpSpec("transpose", lambda lib, F, a, d0, d1: a.transpose(d0, d1), _transpose_sample),
    OpSpec("permute", lambda lib, F, a, dims: a.permute(dims), _permute_sample),
    OpSpec("t", lambda lib, F, a: a.t(),
           lambda d: Sample([d.floats(d.shape(max_dims=2), "real")])),
    OpSpec("unsqueeze", lambda lib, F, a, dim: a.unsqueeze(dim), _unsqueeze_sample),
    OpSpec("squeeze", lambda lib, F, a, **kw: a.squeeze(**kw), _squeeze_sample),
    OpSpec("expand", lambda lib, F, a, size: a.expand(size), _expand_sample),
    OpSpec("index.basic", lambda lib, F, a, idx: a[idx], _index_basic),
    OpSpec("index.array", _index_array_fn, _index_array,
           notes="repeated indices accumulate in backward"),
    OpSpec("softmax", lambda lib, F, a, dim: lib.softmax(a, dim), _dim_sample(last=True),
           fwd_ulp=_u(4, 4, 1, 0), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="last dim: fp32 + one rounding; fp16 2/51200 mismatches (facts §5); backward "
                 "_softmax_backward_data within a handful of elements -> 1 ulp"),
    OpSpec("softmax.dim", lambda lib, F, a, dim: lib.softmax(a, dim), _dim_sample(),
           fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max",
           notes="non-last dim: SIMD tail columns round twice in PyTorch -> 1 ulp (facts §5)"),
    OpSpec("softmax.dtype", lambda lib, F, a, dim, dtype: F.softmax(a, dim, dtype=getattr(
        lib, dtype)), lambda d: _with(d, _dim_sample()(d), dtype="float64" if d.smooth
                             else d.choice(["float32", "float64"])),
        fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1), bwd_scale="max"),
    OpSpec("log_softmax", lambda lib, F, a, dim: lib.log_softmax(a, dim),
           _dim_sample(last=True), fwd_ulp=_u(4, 4, 0, 0), bwd_ulp=_u(4, 4, 1, 1),
           scale=_ls_scale, bwd_scale="max",
           notes="last dim 16-bit: out = round((x-m) - round(log(round(sum exp)))) (facts §5); "
                 "backward: 1 ulp (PyTorch's order differs on ~1.7% of elements)"),
    OpSpec("log_softmax.dim", lambda lib, F, a, dim: lib.log_softmax(a, dim), _dim_sample(),
           fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1), scale=_ls_scale, bwd_scale="max"),
    OpSpec("cross_entropy", lambda lib, F, x, t, **kw: F.cross_entropy(x, t, **kw), _ce_sample,
           fwd_ulp=ACC, bwd_ulp=ACC, scale=_ce_scale, bwd_scale="max",
           notes="log_softmax then nll_loss (two roundings in 16-bit, as PyTorch)"),
    OpSpec("cross_entropy.label_smoothing",
           lambda lib, F, x, t, **kw: F.cross_entropy(x, t, **kw), _ce_sample_ls,
           fwd_ulp=ACC, bwd_ulp=ACC, scale=_ce_scale, bwd_scale="max"),
    OpSpec("nll_loss", lambda lib, F, x, t, **kw: F.nll_loss(x, t, **kw),
           lambda d: _nll(d), fwd_ulp=ACC, bwd_ulp=EXACT, scale="abs"),
    OpSpec("mse_loss", lambda lib, F, a, b, **kw: F.mse_loss(a, b, **kw), _mse_sample,
           fwd_ulp=ACC, bwd_ulp=_u(2, 2, 0, 0), scale="self",
           notes="sum of non-negative terms: slack relative to the result; backward is the fused mse_loss_backward (one rounding)"),
    OpSpec("cast.method", lambda lib, F, a, method: getattr(a, method)(), _cast_method_sample,
           gradcheck=False),
] + [
    OpSpec(f"to.{t}", lambda lib, F, a, target: a.to(getattr(lib, target)), _cast_sample(t),
           differentiable=t.startswith(("float", "bfloat")),
           gradcheck=False,
           notes="float64 -> fp16/bf16 rounds via float32 in PyTorch's copy kernel"
           if t in ("float16", "bfloat16") else "")
    for t in ("float64", "float32", "float16", "bfloat16", "int64", "int32", "bool")
]


def _dt(lib, kw):
    if "dtype" in kw:
        kw = dict(kw, dtype=getattr(lib, kw["dtype"]))
    return kw


def _with(d, sample, **kw):
    sample.kwargs.update(kw)
    return sample


def _with_keepdim(d, sample):
    if d.choice([True, False]):
        sample.kwargs["keepdim"] = True
    return sample


def _nll(d):
    """nll_loss takes log-probabilities: any real input; same shapes/targets as cross_entropy."""
    return _ce_sample(d)


BY_NAME = {s.name: s for s in SPECS}


def spec(name: str) -> OpSpec:
    return BY_NAME[name]


# ------------------------------------------------------------------ ops outside the catalogue
# Registered ops the catalogue's tensor-in / tensor-out tests cannot drive, each with the reason
# and the test that covers it instead.
_FOREACH = ("list-of-tensors op (in place or tuple result); its Scalar/ScalarList/List/Tensor "
            "overloads are compared with torch._foreach_* bit for bit in "
            "tests/differential/test_optim_foreach_fused.py")
_FUSED = ("fused optimizer kernel on lists of params and state, in place; compared with "
          "torch's fused optimizers in tests/differential/test_optim_foreach_fused.py")
EXEMPTIONS = {
    **{name: _FOREACH for name in (
        "_foreach_add", "_foreach_add_", "_foreach_sub_", "_foreach_mul", "_foreach_mul_",
        "_foreach_div", "_foreach_div_", "_foreach_addcmul_", "_foreach_addcdiv_",
        "_foreach_lerp_", "_foreach_sqrt", "_foreach_sqrt_", "_foreach_neg", "_foreach_neg_",
        "_foreach_maximum_", "_foreach_zero_", "_foreach_norm", "_foreach_clamp_min_",
        "_foreach_clamp_max_")},
    **{name: _FUSED for name in ("_fused_sgd_", "_fused_adam_", "_fused_adamw_")},
    "_amp_foreach_non_finite_check_and_unscale_":
        "GradScaler kernel, in place on a list of grads and a found_inf flag; compared with "
        "torch's in tests/amp/test_grad_scaler.py",
    "_amp_update_scale_":
        "GradScaler kernel, in place on the scale and growth tracker; trajectories compared "
        "with torch's in tests/amp/test_grad_scaler.py",
    "_local_scalar_dense":
        "returns a Python number, not a tensor (Tensor.item); tested through item() everywhere",
}
