"""Catalogue entries for the losses, distances and ``glu`` of issue 7.

Bounds: the per-element kernels are bit-exact in 16-bit against torch 2.13 (measured; each
kernel's docstring says which steps round); 'mean'/'sum' add an fp32 sum whose order differs
(``ACC`` with ``scale="abs"``). Composite losses round where their dispatched ops do, like
PyTorch's; their sums and norms take the accumulating bound. Arguments PyTorch does not
differentiate (class weights, ``pos_weight``, +-1 targets) travel as lists in the kwargs and
become constant tensors inside the spec's call.
Each spec runs in one or two dtypes to keep the suite inside its time budget.
"""
from __future__ import annotations

import numpy as np

from tests.op_specs import ACC, OpSpec, _u
from tests.strategies import IntIn, Sample

F64, F32, F16, BF16 = "float64", "float32", "float16", "bfloat16"
_RED = ["mean", "sum", "none"]
BOUND = _u(4, 4, 1, 1)


def _pair(da="real", db="real", broadcast=False, values="finite"):
    def gen(d):
        if broadcast:
            sa, sb = d.bshapes(2)
        else:
            sa = sb = d.shape()
        return Sample([d.floats(sa, da, values), d.floats(sb, db, values)],
                      {"reduction": d.choice(_RED)})
    return gen


def _const(lib, values, like):
    """A constant (no grad) tensor of ``like``'s dtype: class weights and +-1 targets travel as
    lists in the sample's kwargs, so that gradcheck does not differentiate them."""
    return None if values is None else lib.tensor(values, dtype=like.dtype)


def _signs(d, shape):
    v = d.floats(shape, "real", "finite").values
    return np.where(v > 0, 1.0, -1.0).tolist()


def _weights(d, shape):
    return d.floats(shape, "positive", "finite").values.tolist()


def bce_sample(d):
    s = _pair("unit", "unit")(d)
    shape = s.args[0].values.shape
    if d.choice([False, True]):
        s.kwargs["w"] = _weights(d, shape[-1:] if shape else ())
    return s


def _bce(lib, F, x, t, w=None, **kw):
    # inputs scaled by 1/4 (exact) so that the output-dtype drawer's values 1..3 are valid too
    return F.binary_cross_entropy(x / 4, t / 4, weight=_const(lib, w, x), **kw)


def bcel_sample(d):
    s = _pair("real", "unit")(d)
    shape = s.args[0].values.shape
    last = shape[-1:] if shape else ()
    for k in ("w", "pw"):
        if d.choice([False, True]):
            s.kwargs[k] = _weights(d, last)
    return s


def _bcel(lib, F, x, t, w=None, pw=None, **kw):
    return F.binary_cross_entropy_with_logits(x, t, weight=_const(lib, w, x),
                                              pos_weight=_const(lib, pw, x), **kw)


def _with(name, *choices):
    def wrap(gen):
        def g(d):
            s = gen(d)
            s.kwargs[name] = d.choice(choices)
            return s
        return g
    return wrap


def multi_margin_sample(d):
    c = d.integer(1, 4)
    n = d.choice([None, d.integer(1, 3)])     # (N = 0: PyTorch returns uninitialised memory)
    xs, ts = ((c,), ()) if n is None else ((n, c), (n,))
    kw = {"reduction": d.choice(_RED), "p": d.choice([1, 2]), "margin": d.choice([1.0, 0.5])}
    if d.choice([False, True]):
        kw["w"] = _weights(d, (c,))
    return Sample([d.floats(xs, "real", "finite"), d.ints(ts, 0, c)], kw)


def _multi_margin(lib, F, x, t, w=None, **kw):
    return F.multi_margin_loss(x, t, weight=_const(lib, w, x), **kw)


def kl_sample(d):
    log_target = d.choice([False, True])
    s = _pair("real", "real" if log_target else "nonneg")(d)
    s.kwargs.update(log_target=log_target, reduction=d.choice(_RED + ["batchmean"]))
    return s


def poisson_sample(d):
    log_input = d.choice([True, False])
    s = _pair("real" if log_input else "positive", "nonneg")(d)
    s.kwargs.update(log_input=log_input, full=d.choice([False, True]))
    return s


def _poisson(lib, F, x, t, **kw):
    return F.poisson_nll_loss(x, t, **kw)


def cos_emb_sample(d):
    n, k = d.integer(0, 3), d.integer(1, 3)
    batched = d.choice([True, True, False])
    xs, ts = ((n, k), (n,)) if batched else ((k,), ())
    return Sample([d.floats(xs, "real", "finite"), d.floats(xs, "real", "finite")],
                  {"reduction": d.choice(_RED), "margin": d.choice([0.0, 0.3]),
                   "target": _signs(d, ts)})


def _cos_emb(lib, F, a, b, target, **kw):
    return F.cosine_embedding_loss(a, b, _const(lib, target, a), **kw)


def ranking_sample(d):
    shape = (d.integer(0, 4),)
    return Sample([d.floats(shape, "real", "finite") for _ in range(2)],
                  {"reduction": d.choice(_RED), "margin": d.choice([0.0, 0.5]),
                   "target": _signs(d, shape)})


def _ranking(lib, F, a, b, target, **kw):
    return F.margin_ranking_loss(a, b, _const(lib, target, a), **kw)


def sign_target_sample(d):
    shape = d.shape()
    return Sample([d.floats(shape, "real", "finite")],
                  {"reduction": d.choice(_RED), "target": _signs(d, shape)})


def _hinge(lib, F, x, target, **kw):
    return F.hinge_embedding_loss(x, _const(lib, target, x), **kw)


def _soft_margin(lib, F, x, target, **kw):
    return F.soft_margin_loss(x, _const(lib, target, x), **kw)


def triplet_sample(d):
    shape = d.choice([(d.integer(0, 3), d.integer(1, 3)), (d.integer(1, 3),)])
    return Sample([d.floats(shape, "real", "finite") for _ in range(3)],
                  {"reduction": d.choice(_RED), "p": d.choice([2, 1, 3]),
                   "swap": d.choice([False, True]), "margin": d.choice([1.0, 0.5])})


def cos_sim_sample(d):
    sa, sb = d.bshapes(2, min_dims=1, min_side=1)
    nd = max(len(sa), len(sb))
    return Sample([d.floats(sa, "real", "finite"), d.floats(sb, "real", "finite")],
                  {"dim": d.integer(-nd, nd - 1)})


def glu_sample(d):
    shape = list(d.shape(min_dims=1))
    dim = d.integer(-len(shape), len(shape) - 1)
    shape[dim] = 2 * d.integer(0, 2)
    return Sample([d.floats(tuple(shape), "real")], {"dim": dim})


def _dist_scale(tin, kw):
    """The distances' magnitude, sum |a| + |p| + |n| (their difference cancels)."""
    return sum(float(t.sum()) for t in tin if hasattr(t, "sum") and t.numel()) + 1.0


def _kl(lib, F, x, t, **kw):
    return F.kl_div(x, t, **kw)


def _ctc_sample(d):
    """(T, N, C) scores (log_softmax'ed in the call: PyTorch's gradient formula assumes
    normalised log-probabilities, as gradcheck shows), padded or
    concatenated targets (never the blank), lengths as tensors or tuples (the two overloads),
    zero-length inputs/targets, impossible alignments (inf) with and without zero_infinity."""
    t, n, c = d.integer(1, 4), d.integer(1, 2), d.integer(2, 3)
    blank = d.integer(0, c - 1)
    tl = [d.integer(0, 2) for _ in range(n)]
    il = [d.integer(0, t) for _ in range(n)]
    labels = [[(blank + 1 + d.integer(0, c - 2)) % c for _ in range(k)] for k in tl]
    if d.choice([True, False]):
        tg = np.array([v for lab in labels for v in lab], np.int64)
    else:
        tg = np.array([lab + [blank] * (2 - len(lab)) for lab in labels], np.int64)
    kw = {"blank": blank, "reduction": d.choice(_RED), "zero_infinity": d.choice([False, True])}
    if d.choice([True, False]):
        return Sample([d.floats((t, n, c), "real"), IntIn(tg), IntIn(np.array(il, np.int64)),
                       IntIn(np.array(tl, np.int64))], kw)
    return Sample([d.floats((t, n, c), "real"), IntIn(tg)], dict(kw, _il=il, _tl=tl))


def _ctc(lib, F, lp, tg, *lengths, _il=None, _tl=None, **kw):
    if not lengths:
        lengths = (tuple(_il), tuple(_tl))
    return F.ctc_loss(lp.log_softmax(-1), tg, *lengths, **kw)


SPECS = [
    OpSpec("ctc_loss", _ctc, _ctc_sample, dtypes=(F64,), dtype_test=False,
           fwd_ulp=_u(4, 2, 0, 0),
           bwd_ulp=_u(4, 2, 0, 0), scale="abs", bwd_scale="max",
           notes="ATen's CPU recursion replayed element by element, exp/log rounded from "
                 "float64 (fp32 bit-exact, measured; fp64 exact against glibc, a few ulp where "
                 "NumPy's SIMD exp/log differ); the gradient exp(lp) - exp(...) cancels: "
                 "slack relative to its largest value; log_softmax first (its own bound). "
                 "fp16/bf16 raise as PyTorch's CPU. fp64 only, no dtype-mix test (suite "
                 "time): tests/unit/test_ctc_loss.py checks fp32 bit for bit and the errors"),
    OpSpec("binary_cross_entropy", _bce, bce_sample, dtypes=(BF16,), fwd_ulp=ACC,
           bwd_ulp=_u(2, 4, 2, 2), scale="abs", bwd_scale="max", dtype_test=False,
           notes="per element bit-exact (scalar_t steps); the target's gradient composes "
                 "logit as log(x / (1 - x)) where PyTorch has one fused logit kernel"),
    OpSpec("binary_cross_entropy_with_logits", _bcel, bcel_sample, dtypes=(F16,),
           fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", bwd_scale="max", dtype_test=False,
           notes="PyTorch's op chain (log_sigmoid, mul_, sub_), each step rounded"),
    OpSpec("smooth_l1_loss", lambda lib, F, a, b, **kw: F.smooth_l1_loss(a, b, **kw),
           _with("beta", 1.0, 0.5, 0.0)(_pair(broadcast=True)), dtypes=(F16,),
           fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", bwd_scale="max", dtype_test=False),
    OpSpec("huber_loss", lambda lib, F, a, b, **kw: F.huber_loss(a, b, **kw),
           _with("delta", 1.0, 0.5, 2.0)(_pair(broadcast=True)), dtypes=(BF16,),
           fwd_ulp=ACC, bwd_ulp=_u(0, 0, 1, 1), scale="abs", dtype_test=False,
           notes="16-bit backward: 1 ulp (ATen's vector body and scalar tail round "
                 "differently, depending on the length; not emulated)"),
    OpSpec("soft_margin_loss", _soft_margin, sign_target_sample, dtypes=(F16,), fwd_ulp=ACC,
           bwd_ulp=_u(2, 2, 1, 1), scale="abs", dtype_test=False,
           notes="PyTorch's chain neg, mul_, exp_, log1p_ (each rounded); exp correctly "
                 "rounded here, Sleef's in PyTorch"),
    OpSpec("multi_margin_loss", _multi_margin, multi_margin_sample, dtypes=(F32,),
           fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", dtype_test=False,
           notes="fp32/fp64 only, as PyTorch's CPU kernel; PyTorch's sequential sums"),
    OpSpec("l1_loss", lambda lib, F, a, b, **kw: F.l1_loss(a, b, **kw), _pair(broadcast=True),
           dtypes=(BF16,), fwd_ulp=ACC, scale="abs", dtype_test=False),
    OpSpec("kl_div", _kl, kl_sample, dtypes=(F32,), fwd_ulp=BOUND, bwd_ulp=BOUND, scale="abs",
           bwd_scale="max", dtype_test=False,
           notes="xlogy(t, t) - t * x; the target's gradient adds three terms (order)"),
    OpSpec("poisson_nll_loss", _poisson, poisson_sample, dtypes=(F32,), fwd_ulp=BOUND,
           bwd_ulp=BOUND, scale="abs", bwd_scale="max", dtype_test=False),
    OpSpec("cosine_embedding_loss", _cos_emb, cos_emb_sample, dtypes=(F32,), fwd_ulp=BOUND,
           bwd_ulp=BOUND, scale="abs", bwd_scale="max", dtype_test=False),
    OpSpec("margin_ranking_loss", _ranking, ranking_sample, dtypes=(BF16,), fwd_ulp=ACC,
           scale="abs", dtype_test=False),
    OpSpec("hinge_embedding_loss", _hinge, _with("margin", 1.0, 0.5)(sign_target_sample),
           dtypes=(F32,), fwd_ulp=ACC, scale="abs", dtype_test=False),
    OpSpec("triplet_margin_loss",
           lambda lib, F, a, pos, neg, **kw: F.triplet_margin_loss(a, pos, neg, **kw),
           triplet_sample, dtypes=(F32,), fwd_ulp=BOUND, bwd_ulp=BOUND, scale=_dist_scale,
           bwd_scale="max", dtype_test=False,
           notes="d(a, p) - d(a, n) cancels: slack relative to the distances' magnitude"),
    OpSpec("cosine_similarity", lambda lib, F, a, b, **kw: F.cosine_similarity(a, b, **kw),
           cos_sim_sample, dtypes=(F32,), fwd_ulp=BOUND, bwd_ulp=BOUND, scale="abs",
           bwd_scale="max", dtype_test=False),
    OpSpec("glu", lambda lib, F, x, **kw: F.glu(x, **kw), glu_sample, dtypes=(F16,),
           fwd_ulp=_u(4, 4, 0, 0), bwd_ulp=_u(4, 4, 0, 0), scale="max", bwd_scale="max",
           dtype_test=False,
           notes="fp32 sigmoid and product, one rounding (16-bit bit-exact); the backward "
                 "stores sigmoid in the dtype first, as ATen; fp32/fp64: exp correctly rounded "
                 "here, Sleef's in PyTorch (<= 3 ulp forward on OpInfo's samples; the "
                 "backward's (1 - s) cancels near s = 1: slack relative to the largest "
                 "gradient)"),
]
