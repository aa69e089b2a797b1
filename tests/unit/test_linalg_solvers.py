"""The decompositions, solvers and scans beyond the catalogue: PyTorch's errors (LinAlgError
messages, 16-bit refusals), ``info`` outputs, the QR modes without a backward, the singular
``det`` gradient, double backward, named results and the Tensor methods. Expected values come
from torch run side by side."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

RNG = np.random.default_rng(7)


def _both(a, grad=False):
    return (torch.tensor(a, requires_grad=grad), mg.tensor(a, requires_grad=grad))


def _raises_same(fn_t, fn_m):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as em:
        fn_m()
    assert isinstance(em.value, RuntimeError) == isinstance(et.value, RuntimeError)
    assert type(em.value).__name__.lstrip("_") == type(et.value).__name__.lstrip("_")
    assert str(em.value) == str(et.value)
    return em.value


@pytest.mark.parametrize("case", ["inv", "inv_batch", "cholesky", "cholesky_batch", "solve",
                                  "solve_batch"])
def test_linalg_errors_match_torch(case):
    sing = np.ones((3, 3))
    a = np.stack([np.eye(3), sing]) if case.endswith("batch") else sing
    t, m = _both(a)
    fn = {"inv": lambda L, x: L.linalg.inv(x), "cholesky": lambda L, x: L.linalg.cholesky(x),
          "solve": lambda L, x: L.linalg.solve(x, x)}[case.split("_")[0]]
    err = _raises_same(lambda: fn(torch, t), lambda: fn(mg, m))
    assert isinstance(err, mg.linalg.LinAlgError)


@pytest.mark.parametrize("fn", [lambda L, x: L.linalg.inv(x), lambda L, x: L.linalg.det(x),
                                lambda L, x: L.linalg.slogdet(x),
                                lambda L, x: L.linalg.cholesky(x), lambda L, x: L.linalg.qr(x),
                                lambda L, x: L.linalg.svd(x), lambda L, x: L.linalg.eigh(x),
                                lambda L, x: L.linalg.solve(x, x), lambda L, x: L.cdist(x, x)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "vector", "wide"])
def test_dtype_and_shape_errors_match_torch(fn, dtype):
    shape = (3,) if dtype == "vector" else (2, 3) if dtype == "wide" else (3, 3)
    dt = dtype if dtype in ("float16", "bfloat16", "int64") else "float32"
    t = torch.eye(*shape[-2:], dtype=getattr(torch, dt)) if len(shape) == 2 else \
        torch.ones(shape, dtype=getattr(torch, dt))
    m = mg.tensor(t.float().numpy()).to(getattr(mg, dt))
    try:
        fn(torch, t)
    except Exception:  # noqa: BLE001
        _raises_same(lambda: fn(torch, t), lambda: fn(mg, m))
        return
    fn(mg, m)


def test_info_outputs_match_torch():
    a = np.stack([np.eye(3), np.ones((3, 3)), np.diag([1.0, 0.0, 2.0])])
    t, m = _both(a)
    assert torch.linalg.inv_ex(t).info.tolist() == mg.linalg.inv_ex(m).info.tolist()
    assert torch.linalg.cholesky_ex(t).info.tolist() == mg.linalg.cholesky_ex(m).info.tolist()
    assert mg.linalg.inv_ex(m).info.dtype == mg.int32


def test_qr_modes_without_backward():
    a = RNG.normal(size=(4, 2))
    t, m = _both(a, grad=True)
    for mode in ("r", "complete"):
        qt, rt = torch.linalg.qr(t, mode=mode)
        qm, rm = mg.linalg.qr(m, mode=mode)
        assert tuple(qt.shape) == tuple(qm.shape)
        np.testing.assert_allclose(rm.detach().numpy(), rt.detach().numpy(), atol=1e-12)
        with pytest.raises(RuntimeError) as et:
            rt.sum().backward()
        with pytest.raises(RuntimeError) as em:
            rm.sum().backward()
        assert str(em.value) == str(et.value)


def test_det_gradient_of_a_singular_matrix():
    a = np.array([[[1.0, 2.0, 0.5], [0.0, 0.0, 0.0], [3.0, -1.0, 2.0]],
                  [[2.0, 1.0, 0.0], [4.0, 2.0, 0.0], [1.0, 1.0, 1.0]]])
    t, m = _both(a, grad=True)
    torch.linalg.det(t).sum().backward()
    mg.linalg.det(m).sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("name", ["inv", "det", "cholesky", "eigvalsh", "solve"])
def test_double_backward_matches_torch(name):
    a = RNG.normal(size=(3, 3)) * 0.1 + np.diag([4.0, 8.0, 12.0])
    a = a + a.T if name in ("cholesky", "eigvalsh") else a
    f = {"inv": lambda L, x: L.linalg.inv(x), "det": lambda L, x: L.linalg.det(x),
         "cholesky": lambda L, x: L.linalg.cholesky(x),
         "eigvalsh": lambda L, x: L.linalg.eigvalsh(x),
         "solve": lambda L, x: L.linalg.solve(x, x[:, :1] * 2)}[name]
    w = RNG.normal(size=f(torch, torch.tensor(a)).shape)
    res = []
    for L in (torch, mg):
        x = L.tensor(a, requires_grad=True)
        (g,) = L.autograd.grad((f(L, x) * L.tensor(w)).sum(), x, create_graph=True)
        (gg,) = L.autograd.grad((g * g).sum(), x)
        res.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-9, atol=1e-11)


def test_named_results():
    a = RNG.normal(size=(3, 3))
    s = a @ a.T + 3 * np.eye(3)
    m, ms = mg.tensor(a), mg.tensor(s)
    sl = mg.linalg.slogdet(m)
    assert sl.sign is sl[0] and sl.logabsdet is sl[1]
    qr = mg.linalg.qr(m)
    assert qr.Q is qr[0] and qr.R is qr[1]
    u = mg.linalg.svd(m)
    assert u.U is u[0] and u.S is u[1] and u.Vh is u[2]
    e = mg.linalg.eigh(ms)
    assert e.eigenvalues is e[0] and e.eigenvectors is e[1]
    assert mg.linalg.inv_ex(m).inverse is not None and mg.linalg.cholesky_ex(ms).L is not None
    mm = mg.aminmax(m)
    assert mm.min is mm[0] and mm.max is mm[1]
    c = mg.cummax(m, 0)
    assert c.values is c[0] and c.indices is c[1]


def test_tensor_methods_match_torch():
    a = RNG.normal(size=(3, 3))
    t, m = _both(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs = [(t.inverse(), m.inverse()), (t.det(), m.det()), (t.trace(), m.trace()),
                 (t.diff(), m.diff()), (t.cummax(0)[0], m.cummax(0)[0]),
                 (t.cummin(1)[1], m.cummin(1)[1]), (t.logcumsumexp(0), m.logcumsumexp(0)),
                 (t.aminmax()[1], m.aminmax()[1]), (t.rot90(), m.rot90()),
                 (t.kron(t), m.kron(m)), (t.cross(t, dim=0), m.cross(m, dim=0)),
                 (t.matrix_power(2), m.matrix_power(2)), (t.pinverse(), m.pinverse()),
                 (t.slogdet()[1], m.slogdet()[1]), (torch.logdet(t @ t.T), mg.logdet(m @ m.T)),
                 (torch.inverse(t), mg.inverse(m)), (torch.matrix_power(t, -1),
                                                     mg.matrix_power(m, -1))]
    for e, r in pairs:
        np.testing.assert_allclose(r.numpy(), e.numpy(), rtol=1e-10, atol=1e-12)


def test_cdist_matrix_product_path_and_modes():
    x1, x2 = RNG.normal(size=(30, 3)), RNG.normal(size=(4, 3)) + 5
    (t1, m1), (t2, m2) = _both(x1, True), _both(x2, True)
    for mode in ("use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist"):
        tr, mr = torch.cdist(t1, t2, compute_mode=mode), mg.cdist(m1, m2, compute_mode=mode)
        np.testing.assert_allclose(mr.detach().numpy(), tr.detach().numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="is not a valid value for compute_mode"):
        mg.cdist(m1, m2, compute_mode="x")


@pytest.mark.parametrize("call", [
    lambda L: L.bincount(L.tensor([1.0, 2.0])), lambda L: L.bincount(L.tensor([1, -2])),
    lambda L: L.bincount(L.tensor([1, 2]), minlength=-1),
    lambda L: L.bincount(L.tensor([1, 2]), weights=L.tensor([1.0])),
    lambda L: L.histc(L.tensor([1, 2])), lambda L: L.histc(L.tensor([1.0]), bins=0),
    lambda L: L.aminmax(L.tensor([])), lambda L: L.aminmax(L.ones(2, 0), dim=1),
    lambda L: L.diff(L.tensor(2.0)), lambda L: L.diff(L.tensor([1, 2]), n=-1),
    lambda L: L.rot90(L.ones(3)), lambda L: L.rot90(L.ones(3, 3), 1, [0, 0]),
    lambda L: L.logcumsumexp(L.tensor([1, 2]), 0), lambda L: L.trace(L.ones(3)),
    lambda L: L.cov(L.ones(2, 2, 2)), lambda L: L.vander(L.ones(2, 2)),
    lambda L: L.linalg.cross(L.ones(3, 2), L.ones(3, 2)),
    lambda L: L.linalg.matrix_power(L.ones(2, 3), 2),
    lambda L: L.quantile(L.ones(3), 1.5), lambda L: L.quantile(L.ones(3), 0.5, interpolation="x"),
    lambda L: L.quantile(L.ones(3, dtype=L.float16), 0.5), lambda L: L.quantile(L.ones(0), 0.5),
    lambda L: L.quantile(L.ones(3), L.ones(2, 2) * 0.5), lambda L: L.frexp(L.tensor([1, 2])),
    lambda L: L.nanquantile(L.ones(3), L.tensor([0.5], dtype=L.float64)),
])
def test_scan_and_count_errors_match_torch(call):
    _raises_same(lambda: call(torch), lambda: call(mg))


def test_cross_fp32_fused_difference_rounds_once_when_the_float64_difference_is_odd():
    """fp32 ``linalg.cross`` is PyTorch's fused ``x*y - z*w``: one rounding. Here the float64
    difference ``1 + 2**-23 + tiny`` is inexact with an odd last bit, so it is already the
    round-to-odd value; stepping it once more (the old code) gave 0x3F800002, torch gives
    0x3F800001. Also a batch of near-halfway products, bit for bit against torch."""
    x = np.float32(3 * 2.0 ** -24 * (1 - 2.0 ** -10))
    y = np.float32(1 + 2.0 ** -10 + 2.0 ** -20)
    a = np.array([[x, 1, 0]], np.float32)
    b = np.array([[-1, y, 0]], np.float32)
    got = mg.linalg.cross(mg.tensor(a), mg.tensor(b)).numpy().view(np.uint32)
    want = torch.linalg.cross(torch.tensor(a), torch.tensor(b)).numpy().view(np.uint32)
    assert want[0, 2] == 0x3F800001
    np.testing.assert_array_equal(got, want)
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((4000, 3)) * rng.choice([1, 2.0 ** -20, 2.0 ** 10], (4000, 3))
         ).astype(np.float32)
    b = (1 + rng.integers(-2 ** 12, 2 ** 12, (4000, 3)) * 2.0 ** -22).astype(np.float32)
    got = mg.linalg.cross(mg.tensor(a), mg.tensor(b)).numpy().view(np.uint32)
    want = torch.linalg.cross(torch.tensor(a), torch.tensor(b)).numpy().view(np.uint32)
    np.testing.assert_array_equal(got, want)
