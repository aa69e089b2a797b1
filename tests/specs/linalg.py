"""Catalogue entries for the linear algebra of issue 7 (baddbmm, addbmm, addmv, addr, outer,
einsum, tensordot, linalg.multi_dot, bilinear) and issue 9's float8 ``_scaled_mm``.

Bounds: products accumulate in fp32 for 16-bit and round once (addbmm: once per batch), as
PyTorch's CPU kernels; the summation order differs from MKL's, so the bound is ``ACC`` with an
absolute slack relative to the products of |inputs| (``scale="abs"``). ``addr`` is a pointwise
kernel (every step rounded in the dtype, as ATen) and ``bilinear``'s ``_trilinear`` rounds after
each of its two stages as ATen does: both measured bit-exact in 16-bit on our samples, but kept
at the accumulating bound for the fp32 sums. To keep the suite inside its time budget each spec
runs in one or two dtypes (the ones whose rounding this code decides).
"""
from __future__ import annotations


from tests.op_specs import ACC, EXACT, OpSpec, _u
from tests.strategies import Sample
from tests.torch_platform import TORCH_ONEDNN_FP8

F32, F16, BF16 = "float32", "float16", "bfloat16"


def _scaled(d, kw):
    beta, alpha = d.choice([1, 0, 0.5, -1]), d.choice([1, 2, -0.5])
    if beta != 1:
        kw["beta"] = beta
    if alpha != 1:
        kw["alpha"] = alpha
    return beta


def baddbmm_sample(d):
    b, n, k, m = (d.integer(0, 3) for _ in range(4))
    kw = {}
    beta = _scaled(d, kw)
    cs = d.choice([(b, n, m), (m,), (1, n, 1), ()])
    return Sample([d.floats(cs, "real", "extreme" if beta == 0 else "finite"),
                   d.floats((b, n, k), "real", "finite"), d.floats((b, k, m), "real", "finite")],
                  kw)


def addbmm_sample(d):
    b, n, k, m = (d.integer(0, 3) for _ in range(4))
    kw = {}
    _scaled(d, kw)
    cs = d.choice([(n, m), (m,), (n, 1)])
    return Sample([d.floats(cs, "real", "finite"), d.floats((b, n, k), "real", "finite"),
                   d.floats((b, k, m), "real", "finite")], kw)


def addmv_sample(d):
    n, k = d.integer(0, 4), d.integer(0, 4)
    kw = {}
    beta = _scaled(d, kw)
    cs = d.choice([(n,), (1,), ()])
    return Sample([d.floats(cs, "real", "extreme" if beta == 0 else "finite"),
                   d.floats((n, k), "real", "finite"), d.floats((k,), "real", "finite")], kw)


def addr_sample(d):
    n, m = d.integer(0, 4), d.integer(0, 4)
    kw = {}
    _scaled(d, kw)
    cs = d.choice([(n, m), (m,), (n, 1), ()])
    return Sample([d.floats(cs, "real", "finite"), d.floats((n,), "real", "finite"),
                   d.floats((m,), "real", "finite")], kw)


def outer_sample(d):
    return Sample([d.floats((d.integer(0, 4),), "real"), d.floats((d.integer(0, 4),), "real")])


_EINSUM = [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
           ("ij,kj->ik", [(2, 3), (4, 3)]), ("ijk->j", [(2, 3, 2)]), ("ijk->kij", [(2, 3, 2)]),
           ("...ij,...jk", [(2, 2, 3), (2, 3, 2)]), ("i,j->ij", [(3,), (2,)]),
           ("i,i", [(3,), (3,)]), ("bhqd,bhkd->bhqk", [(1, 2, 3, 2), (1, 2, 2, 2)]),
           ("bij,jk->bik", [(2, 2, 3), (3, 2)]), ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)])]


def einsum_sample(d):
    eq, shapes = d.choice(_EINSUM)
    return Sample([d.floats(s, "real", "finite") for s in shapes], {"equation": eq})


def _einsum(lib, F, *ops, equation):
    return lib.einsum(equation, *ops)


_TENSORDOT = [((2, 3, 2), (3, 2, 2), 2), ((2, 3), (3, 2), 1), ((2, 3, 2), (2, 2, 3),
                                                                ([0, 2], [1, 0])),
              ((2, 1, 3), (2, 3), ([1, 2], [0, 1])), ((2,), (3,), 0)]


def tensordot_sample(d):
    sa, sb, dims = d.choice(_TENSORDOT)
    return Sample([d.floats(sa, "real", "finite"), d.floats(sb, "real", "finite")],
                  {"dims": dims})


def multi_dot_sample(d):
    n = d.integer(2, 5)
    sizes = [d.integer(1, 3) for _ in range(n + 1)]
    shapes = [(sizes[i], sizes[i + 1]) for i in range(n)]
    if d.choice([False, True]):
        shapes[0] = (sizes[1],)
    if d.choice([False, True]):
        shapes[-1] = (sizes[-2],)
    return Sample([d.floats(s, "real", "finite") for s in shapes])


def bilinear_sample(d):
    batch = d.choice([(d.integer(0, 3),), (2, d.integer(1, 2)), ()])
    i1, i2, o = d.integer(1, 3), d.integer(1, 3), d.integer(1, 3)
    bias = d.floats((o,), "real", "finite") if d.choice([True, False]) else None
    return Sample([d.floats(batch + (i1,), "real", "finite"),
                   d.floats(batch + (i2,), "real", "finite"),
                   d.floats((o, i1, i2), "real", "finite"), bias])


def scaled_mm_sample(d):
    n, k, m = d.integer(1, 4), d.integer(1, 5), d.integer(1, 4)   # k=0: torch leaves garbage
    return Sample([d.floats((n, k), "real", "finite"), d.floats((m, k), "real", "finite")],
                  {"sa": d.choice([1.0, 0.5, 0.37]), "sb": d.choice([1.0, 2.0, 1.9]),
                   # ATen's emulated path (no AMX-INT8) sums in MKL's order, not reproduced: an
                   # fp32 output within ACC, the 16-bit/float8 roundings in test_float8.py
                   "out": d.choice(["float32", "bfloat16", "float8_e4m3fn"] if TORCH_ONEDNN_FP8
                                   else ["float32"])})


def _scaled_mm(lib, F, a, b, *, sa, sb, out):
    """``_scaled_mm`` on the float8 (e4m3fn) roundings of the samples, ``mat2`` column-major."""
    f8 = lib.float8_e4m3fn
    r = lib._scaled_mm(a.detach().to(f8), b.detach().to(f8).t(), lib.tensor(sa),
                       lib.tensor(sb), out_dtype=getattr(lib, out))
    return r.float()


SPECS = [
    OpSpec("_scaled_mm", _scaled_mm, scaled_mm_sample, dtypes=(F32,), differentiable=False,
           gradcheck=False, dtype_test=False, fwd_ulp=EXACT if TORCH_ONEDNN_FP8 else ACC,
           scale=None if TORCH_ONEDNN_FP8 else "abs",
           notes="the CPU's path, as torch's: oneDNN's float8 gemm reproduced bit for bit "
                 "(AMX-INT8 CPUs: per-product scaling, k order), else ATen's emulated path "
                 "(small k: one summation order); more in tests/unit/test_float8.py"),
    OpSpec("baddbmm", lambda lib, F, c, a, b, **kw: lib.baddbmm(c, a, b, **kw), baddbmm_sample,
           dtypes=(BF16,), fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", bwd_scale="abs",
           dtype_test=False, notes="fp32 product and beta*input, one rounding (16-bit)"),
    OpSpec("addbmm", lambda lib, F, c, a, b, **kw: lib.addbmm(c, a, b, **kw), addbmm_sample,
           dtypes=(F16,), fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", bwd_scale="abs",
           dtype_test=False, notes="one rounding per batch (PyTorch's addmm_ loop)"),
    OpSpec("addmv", lambda lib, F, c, a, b, **kw: lib.addmv(c, a, b, **kw), addmv_sample,
           dtypes=(BF16,), fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", bwd_scale="abs",
           dtype_test=False),
    OpSpec("addr", lambda lib, F, c, a, b, **kw: lib.addr(c, a, b, **kw), addr_sample,
           dtypes=(F16,), fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", bwd_scale="abs",
           dtype_test=False, notes="pointwise kernel, each step rounded in the dtype"),
    OpSpec("outer", lambda lib, F, a, b: lib.outer(a, b), outer_sample, dtypes=(BF16,),
           bwd_ulp=ACC, bwd_scale="abs"),
    OpSpec("einsum", _einsum, einsum_sample, dtypes=(F32,), fwd_ulp=ACC, bwd_ulp=ACC,
           scale="abs", bwd_scale="abs", dtype_test=False,
           notes="PyTorch's bmm path (sumproduct_pair), left to right (no opt_einsum)"),
    OpSpec("tensordot", lambda lib, F, a, b, **kw: lib.tensordot(a, b, **kw), tensordot_sample,
           dtypes=(BF16,), fwd_ulp=ACC, bwd_ulp=ACC, scale="abs", bwd_scale="abs",
           dtype_test=False),
    OpSpec("linalg.multi_dot", lambda lib, F, *ts: lib.linalg.multi_dot(list(ts)),
           multi_dot_sample, dtypes=(F32,), fwd_ulp=_u(4, 4, 1, 1), bwd_ulp=_u(4, 4, 1, 1),
           scale="abs", bwd_scale="abs", dtype_test=False,
           notes="PyTorch's multiplication order (matrix_chain_order), one mm per product"),
    OpSpec("bilinear", lambda lib, F, a, b, w, c=None: F.bilinear(a, b, w, c),
           bilinear_sample, dtypes=(F16,), fwd_ulp=ACC, bwd_ulp=ACC, scale="abs",
           bwd_scale="abs", dtype_test=False,
           notes="_trilinear's two stages, each rounded (ATen's sumproduct_pair twice)"),
]
