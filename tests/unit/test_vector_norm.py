"""linalg_vector_norm (the op behind clip_grad_norm_) against torch.linalg.vector_norm:
values in each dtype, gradients, errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.testing import assert_close, from_torch, to_torch

ORDS = [2.0, 1.0, math.inf, -math.inf, 0.0, 0.5, 3.0]
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


@pytest.mark.parametrize("ord_", ORDS)
@pytest.mark.parametrize("tdt", DTYPES)
def test_forward_and_grad_match_torch(ord_, tdt):
    g = torch.Generator().manual_seed(3)
    t = (torch.randn(5, 7, generator=g) * 3).to(tdt)
    t[0, 0] = 0.0
    t = t.requires_grad_()
    m = from_torch(t.detach()).requires_grad_()
    tr = torch.linalg.vector_norm(t, ord_)
    mr = mg.linalg.vector_norm(m, ord_)
    assert mr.dtype is from_torch(tr.detach()).dtype
    # ord 2/1/inf/0: one rounding of an fp32-accumulated sum (1 ulp, summation order); other
    # ords: PyTorch rounds each |x|^p and the final root in fp32, we take them in float64 (4 ulp)
    general = ord_ not in (2.0, 1.0, math.inf, -math.inf, 0.0)
    assert_close(mr, from_torch(tr.detach()), ulp=4 if general else 1)
    if ord_ == 0.0:
        return
    tr.backward()
    mr.backward()
    bound = 2 if tdt in (torch.float32, torch.float64) or general else 1
    assert_close(m.grad, from_torch(t.grad), ulp=bound, atol=1e-6 if bound == 2 else None)


def test_ties_share_the_inf_norm_gradient_and_zero_norm_has_zero_grad():
    for vals, ord_ in (([3.0, -3.0, 1.0], math.inf), ([0.0, 0.0], 2.0)):
        t = torch.tensor(vals, requires_grad=True)
        m = mg.tensor(vals, requires_grad=True)
        torch.linalg.vector_norm(t, ord_).backward()
        mg.linalg.vector_norm(m, ord_).backward()
        np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())


def test_dtype_argument_and_errors():
    x = torch.tensor([1.5, -2.0, 3.25], dtype=torch.float16)
    r = mg.linalg.vector_norm(from_torch(x), dtype=mg.float32)
    e = torch.linalg.vector_norm(x, dtype=torch.float32)
    assert r.dtype is mg.float32 and r.item() == e.item()
    with pytest.raises(RuntimeError, match="Expected a floating point"):
        mg.linalg.vector_norm(mg.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="does not have an identity"):
        mg.linalg.vector_norm(mg.zeros(0), math.inf)
    assert to_torch(mg.linalg.vector_norm(mg.zeros(0))).item() == 0.0


def _norm2_with_abs(a, dtype):
    """norm_kernel's general 2-norm: the sum of |a|*|a| (what its p == 2 shortcut skips)."""
    x = np.abs(a)
    s = np.add.reduce(x * x, axis=-1)
    return np.sqrt(np.asarray(s).astype(dtype.opmath.np).astype(np.float64))


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.float16, mg.bfloat16])
def test_norm2_shortcut_equals_abs_path(dtype):
    """norm_kernel's 2-norm sums a*a without |a|: the same bits as |a|*|a|, NaN rows included
    (a negative NaN keeps its sign in a*a, so those rows must take the |a| path)."""
    from minigrad.ops.norm import norm_kernel
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 300)) * 10.0 ** rng.integers(-30, 30, (6, 1))
    a[1, :5] = [-0.0, 0.0, np.inf, -np.inf, 5e-324]
    a[2, 7] = -np.nan
    a[3, 9] = np.nan
    a[4] = -a[4]
    with np.errstate(over="ignore"):                 # values of that dtype, as the op passes
        a = a.astype(dtype.np).astype(np.float64)    # (fp16 overflows to inf)
    got, ref = norm_kernel(a, 2.0, dtype), _norm2_with_abs(a, dtype)
    assert np.array_equal(got.view(np.uint64), ref.view(np.uint64))
    naive = np.sqrt(np.add.reduce(a * a, axis=-1).astype(dtype.opmath.np).astype(np.float64))
    assert not np.array_equal(naive.view(np.uint64), ref.view(np.uint64))   # the NaN sign
    for row in a:                                    # one row at a time (0-dim sums) too
        assert np.array_equal(norm_kernel(row, 2.0, dtype).view(np.uint64),
                              _norm2_with_abs(row, dtype).view(np.uint64))


# ---------------------------------------------------------------- fp32 2-norm: ATen's order
def _bits(a):
    return np.asarray(a, np.float32).view(np.int32)


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("dim", [None, -1, 0, "trailing"])
def test_fp32_two_norm_bit_exact_as_aten(dim, layout):
    """fp32 ``x.norm()`` / ``norm(dim=...)``: bit for bit with torch over random shapes (sizes
    1..300 cover the 8-lane blocks and every tail length), magnitudes 1e-3..1e3, contiguous and
    transposed inputs (``fp32_two_norm``: ATen's lastdim and sequential loops)."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(1, 300 if nd == 1 else 30)) for _ in range(nd))
        x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)).astype(np.float32)
        t, m = torch.from_numpy(x), mg.tensor(x)
        if layout == "transposed":
            t, m = t.permute(*reversed(range(nd))), m.permute(*reversed(range(nd)))
        d = tuple(range(1, nd)) if dim == "trailing" and nd > 1 else (
            None if dim == "trailing" else dim)
        if layout == "transposed" and dim == "trailing" and nd > 2:
            continue        # several non-contiguous dims: the float64 sum (about 1 ulp)
        want = t.norm() if d is None else t.norm(dim=d)
        got = m.norm() if d is None else m.norm(dim=d)
        assert np.array_equal(_bits(got.numpy()), _bits(want.numpy())), (shape, d, layout)


def test_fp32_two_norm_single_elements_overflow_as_aten():
    """A reduction over one element is |x| (no overflow of x*x); over two, x*x overflows."""
    for shape, dim in [((1,), None), ((3, 1), -1), ((2, 1, 2), 1), ((2,), None), ((3, 1), 0)]:
        x = np.full(shape, 1e20, np.float32)
        want = torch.from_numpy(x).norm(dim=dim) if dim is not None else torch.from_numpy(x).norm()
        got = mg.tensor(x).norm(dim=dim) if dim is not None else mg.tensor(x).norm()
        assert np.array_equal(_bits(got.numpy()), _bits(want.numpy())), (shape, dim)


def test_clip_grad_norm_fp32_bit_exact_on_a_model():
    """clip_grad_norm_ over an MLP's fp32 grads: the total norm and every clipped grad bit for
    bit (each grad's norm and the norm of their stack take ATen's order)."""
    rng = np.random.default_rng(5)
    shapes = [(128, 64), (128,), (10, 128), (10,)]
    grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    tps = [torch.zeros(s, requires_grad=True) for s in shapes]
    mps = [mg.zeros(s, requires_grad=True) for s in shapes]
    for tp, mp, g in zip(tps, mps, grads):
        tp.grad, mp.grad = torch.from_numpy(g.copy()), mg.tensor(g.copy())
    tn = torch.nn.utils.clip_grad_norm_(tps, 1.0)
    mn = mg.nn.utils.clip_grad_norm_(mps, 1.0)
    assert _bits(mn.numpy()) == _bits(tn.numpy())
    for tp, mp in zip(tps, mps):
        assert np.array_equal(_bits(mp.grad.numpy()), _bits(tp.grad.numpy()))


def test_scalar_tail_fma_agrees_with_numerics_fma32():
    """The one-row tail's Python-float fma (ops/norm._fma32_py) gives numerics.fma32's bits,
    on random values and on sums that land on fp32 halfway points."""
    from minigrad import numerics
    from minigrad.ops.norm import _fma32_py
    rng = np.random.default_rng(0)
    v = (rng.standard_normal(3000) * 10.0 ** rng.integers(-20, 20, 3000)).astype(np.float32)
    a = (rng.standard_normal(3000) * 10.0 ** rng.integers(-20, 20, 3000)).astype(np.float32)
    # halfway points: a = 1, v*v = 2**-24 (+ a tiny excess): 1 + v*v sits on/next to a midpoint
    v[:4] = [2.0 ** -12, 2.0 ** -12 * (1 + 2.0 ** -23), 2.0 ** -12 * (1 - 2.0 ** -23), 3e19]
    a[:4] = [1.0, 1.0, 1.0, 1.0]
    want = numerics.fma32(v, v, a)
    got = np.array([_fma32_py(float(x), float(y)) for x, y in zip(v, a)], np.float32)
    assert np.array_equal(got.view(np.int32), want.view(np.int32))
