"""A new user's trial (session 23, newuser findings F2, F3, F11, F14, F16 in part) against torch
2.13: ``float()`` of a tensor that requires grad warns, ``mean(dtype=long)``'s wording,
``as_tensor`` shares a NumPy array's memory, ``SummaryWriter``'s non-scalar adds write nothing
(a warning), ``torch.vmap``, ``nn.SyncBatchNorm`` (one process: plain batch norm) and its
``convert_sync_batchnorm``."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402


def _warnings(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f()
    return [(x.category.__name__, str(x.message).split(" (Triggered")[0]) for x in w]


def test_float_of_a_tensor_that_requires_grad_warns_like_torch():
    # the warning is a TORCH_WARN_ONCE (once per process): set_warn_always(True) makes it fire
    # on every call, in both
    for L in (torch, mg):
        L.set_warn_always(True)
    try:
        for f in (lambda L: float(L.tensor([2.0], requires_grad=True)),
                  lambda L: float(L.tensor(2.0)),
                  lambda L: int(L.tensor([2.0], requires_grad=True)),
                  lambda L: L.tensor([2.0], requires_grad=True).item()):
            assert _warnings(lambda: f(mg)) == _warnings(lambda: f(torch))
    finally:
        for L in (torch, mg):
            L.set_warn_always(False)


def test_mean_dtype_message():
    for L in (torch, mg):
        with pytest.raises(RuntimeError, match="Optional dtype must be either a floating"):
            L.randn(3).mean(dtype=L.long)
        with pytest.raises(RuntimeError, match="Input dtype must be either a floating"):
            L.arange(3).mean()


def test_as_tensor_shares_a_numpy_array():
    for L in (torch, mg):
        n = np.ones(3, dtype=np.float32)
        shared, cast = L.as_tensor(n), L.as_tensor(n, dtype=L.float64)
        same = L.as_tensor(n, dtype=L.float32)
        n[0] = 5
        assert shared.tolist() == same.tolist() == [5.0, 1.0, 1.0]
        assert cast.tolist() == [1.0, 1.0, 1.0]
        assert L.as_tensor(np.arange(3)).dtype == L.int64


def test_summary_writer_skips_non_scalar_adds(tmp_path):
    from minigrad.utils.tensorboard import SummaryWriter
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("loss", 1.0, 0)
        with pytest.warns(UserWarning, match="add_image: minigrad's writer records scalars"):
            w.add_image("img", mg.zeros(3, 4, 4), 0)
        w.add_text("t", "hello", 0)
        w.add_hparams({"lr": 0.1}, {"loss": 1.0})


def test_vmap_alias():
    f = mg.vmap(lambda x: x * 2)
    assert f(mg.ones(2, 3)).tolist() == [[2.0] * 3] * 2
    assert mg.vmap is mg.func.vmap


def test_sync_batchnorm_one_process_is_batchnorm():
    x = np.random.default_rng(0).standard_normal((4, 3, 5)).astype(np.float32)
    outs = []
    for L in (torch, mg):
        L.manual_seed(0)
        net = L.nn.Sequential(L.nn.ReLU(), L.nn.BatchNorm1d(3),
                              L.nn.Sequential(L.nn.BatchNorm1d(3)))
        bn = net[1]
        conv = L.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        assert conv is net and type(net[1]).__name__ == "SyncBatchNorm"
        assert type(net[2][0]).__name__ == "SyncBatchNorm" and net[1].weight is bn.weight
        assert net[1].running_mean is bn.running_mean
        y = net(L.tensor(x))
        outs.append((repr(net), y.detach().numpy(), net[1].running_var.numpy(),
                     int(net[1].num_batches_tracked)))
        with pytest.raises(ValueError, match="expected at least 2D input"):
            L.nn.SyncBatchNorm(3)(L.ones(3))
    assert outs[0][0] == outs[1][0]
    # batch norm's own fp32 bound against torch (tests/specs/norm.py); bit for bit against
    # minigrad's BatchNorm1d
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[1][2], outs[0][2], rtol=1e-6)
    assert outs[0][3] == outs[1][3] == 1
    plain = mg.nn.Sequential(mg.nn.ReLU(), mg.nn.BatchNorm1d(3),
                             mg.nn.Sequential(mg.nn.BatchNorm1d(3)))
    np.testing.assert_array_equal(plain(mg.tensor(x)).detach().numpy(), outs[1][1])
