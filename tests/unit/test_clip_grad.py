"""clip_grad_norm_ / clip_grad_value_ against torch.nn.utils (facts sheet section 6)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad
from minigrad.nn.utils import clip_grad_norm_, clip_grad_value_, get_total_norm

_TDT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
        "bfloat16": torch.bfloat16}


def _pair(arrays, dtypes):
    """Matching (minigrad params, torch params) whose grads hold ``arrays`` in ``dtypes``."""
    mps, tps = [], []
    for a, d in zip(arrays, dtypes):
        tg = torch.tensor(a, dtype=torch.float64).to(_TDT[d])
        tp = torch.zeros(tg.shape, dtype=_TDT[d], requires_grad=True)
        tp.grad = tg.clone()
        mp = minigrad.zeros(*tg.shape, dtype=getattr(minigrad, d), requires_grad=True)
        mp.grad = minigrad.tensor(a, dtype=minigrad.float64).to(getattr(minigrad, d))
        mps.append(mp)
        tps.append(tp)
    return mps, tps


def _np(t):
    return np.asarray(t._data, dtype=np.float64)


def _tnp(t):
    return t.detach().double().numpy()


def _check(mps, tps, max_norm, norm_type, rtol, **kw):
    got = clip_grad_norm_(mps, max_norm, norm_type=norm_type, **kw)
    want = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type=norm_type, **kw)
    assert got.shape == () and got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(_np(got), _tnp(want), rtol=rtol)
    for mp, tp in zip(mps, tps):
        assert mp.grad.dtype.name == str(tp.grad.dtype).replace("torch.", "")
        np.testing.assert_allclose(_np(mp.grad), _tnp(tp.grad), rtol=rtol, atol=0)
    return got, want


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 0.5, 3, "inf"])
@pytest.mark.parametrize("max_norm", [0.1, 1.0, 1e6])
def test_matches_torch_fp32(norm_type, max_norm):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((4, 3)), rng.standard_normal(5), rng.standard_normal(1) * 3]
    mps, tps = _pair(arrays, ["float32"] * 3)
    _check(mps, tps, max_norm, float(norm_type) if norm_type != "inf" else norm_type, 1e-6)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_matches_torch_fp64(norm_type):
    rng = np.random.default_rng(1)
    mps, tps = _pair([rng.standard_normal((3, 3)), rng.standard_normal(7)], ["float64"] * 2)
    _check(mps, tps, 0.5, norm_type, 1e-12)


def test_clip_coefficient_formula():
    # grads (3, 4): total 5, coef = 1 / (5 + 1e-6), grads scaled by it
    p = minigrad.zeros(2, requires_grad=True)
    p.grad = minigrad.tensor([3.0, 4.0])
    total = clip_grad_norm_(p, 1.0)
    assert total.item() == 5.0
    coef = np.float32(1.0) / (np.float32(5.0) + np.float32(1e-6))
    np.testing.assert_array_equal(p.grad.numpy(), np.array([3.0, 4.0], np.float32) * coef)
    # below the threshold: multiplied by exactly 1.0, values unchanged
    p.grad = minigrad.tensor([0.3, 0.4])
    assert clip_grad_norm_([p], 10.0).item() == pytest.approx(0.5)
    np.testing.assert_array_equal(p.grad.numpy(), np.array([0.3, 0.4], np.float32))


@pytest.mark.parametrize("dtypes", [["bfloat16", "float32"], ["bfloat16", "bfloat16"],
                                    ["float16", "float16"], ["float16", "bfloat16"]])
def test_low_precision_and_mixed_dtypes(dtypes):
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((8, 8)), rng.standard_normal(16)]
    mps, tps = _pair(arrays, dtypes)
    # fp32 totals within 2 ulp (summation order); 16-bit totals and grads bit-exact (a 16-bit
    # ulp is far above this rtol)
    got, want = _check(mps, tps, 0.25, 2.0, 2.4e-7)
    # the total's dtype is the promotion of the grads' dtypes (bf16 + fp32 -> fp32)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")


def test_none_grads_are_skipped_and_empty_returns_zero():
    a = minigrad.zeros(2, requires_grad=True)
    b = minigrad.zeros(2, requires_grad=True)
    b.grad = minigrad.tensor([6.0, 8.0])
    assert clip_grad_norm_([a, b], 1.0).item() == 10.0
    assert a.grad is None
    z = clip_grad_norm_([a], 1.0)
    tz = torch.nn.utils.clip_grad_norm_([torch.zeros(2, requires_grad=True)], 1.0)
    assert z.dtype is minigrad.float32 and z.item() == tz.item() == 0.0 and z.shape == ()
    with pytest.warns(UserWarning, match="empty generator"):
        clip_grad_norm_((p for p in []), 1.0)


@pytest.mark.parametrize("norm_type", [2.0, float("inf"), 1.0])
def test_nonfinite_grads_like_torch(norm_type):
    for bad in (float("inf"), float("nan")):
        arrays = [[1.0, bad, -2.0], [0.5, 3.0]]
        mps, tps = _pair(arrays, ["float32", "float32"])
        got = clip_grad_norm_(mps, 1.0, norm_type=norm_type)
        want = torch.nn.utils.clip_grad_norm_(tps, 1.0, norm_type=norm_type)
        np.testing.assert_array_equal(_np(got), _tnp(want))
        for mp, tp in zip(mps, tps):
            np.testing.assert_array_equal(_np(mp.grad), _tnp(tp.grad))   # nan == nan here


def test_error_if_nonfinite_message_and_grads_untouched():
    mps, tps = _pair([[1.0, float("inf")]], ["float32"])
    with pytest.raises(RuntimeError) as got:
        clip_grad_norm_(mps, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as want:
        torch.nn.utils.clip_grad_norm_(tps, 1.0, error_if_nonfinite=True)
    assert str(got.value) == str(want.value)
    assert mps[0].grad.tolist() == [1.0, float("inf")]
    mps, _ = _pair([[1.0, float("nan")]], ["float32"])
    with pytest.raises(RuntimeError, match="The total norm of order 1.0 for gradients"):
        clip_grad_norm_(mps, 1.0, norm_type=1, error_if_nonfinite=True)


def test_foreach_flag_does_not_change_results():
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(6), rng.standard_normal((2, 2))]
    outs = []
    for fe in (None, False, True):
        mps, _ = _pair(arrays, ["float32", "float32"])
        t = clip_grad_norm_(mps, 0.3, foreach=fe)
        outs.append((t.item(), [m.grad.tolist() for m in mps]))
    assert outs[0] == outs[1] == outs[2]


def test_get_total_norm_large_and_single_values():
    # one tensor of one element: |x| exactly, no overflow of x^2 (as torch)
    for vals in ([1e20], [1e20, 1e20], [1e-30], [1e-30, 0.0]):
        got = get_total_norm([minigrad.tensor(vals)])
        want = torch.linalg.vector_norm(torch.tensor(vals), 2)
        np.testing.assert_array_equal(_np(got), _tnp(want))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_clip_grad_value_matches_torch(dtype):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((3, 4)) * 2, rng.standard_normal(5)]
    mps, tps = _pair(arrays, [dtype, dtype])
    none_m = minigrad.zeros(2, requires_grad=True)
    assert clip_grad_value_(mps + [none_m], 0.75) is None
    torch.nn.utils.clip_grad_value_(tps, 0.75)
    for mp, tp in zip(mps, tps):
        np.testing.assert_array_equal(_np(mp.grad), _tnp(tp.grad))
    assert none_m.grad is None
    assert math.isclose(float(np.abs(_np(mps[0].grad)).max()), 0.75, rel_tol=1e-2)


def test_clip_in_training_loop_reduces_norm():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lin = minigrad.nn.Linear(4, 2)
        for p in lin.parameters():
            p.grad = minigrad.ones(p.shape) * 10.0
        total = clip_grad_norm_(lin.parameters(), 1.0)
    assert total.item() == pytest.approx(10.0 * math.sqrt(10), rel=1e-6)
    after = math.sqrt(sum(float((_np(p.grad) ** 2).sum()) for p in lin.parameters()))
    assert after == pytest.approx(1.0, rel=1e-5)
