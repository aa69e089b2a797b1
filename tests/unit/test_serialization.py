"""``minigrad.save`` / ``minigrad.load`` (mirror ``torch.save`` / ``torch.load``): round trips of
tensors, module and optimizer state_dicts (fp16/bf16 storage bit-exact), paths and file
objects, and the ``weights_only`` allowlist (PyTorch >= 2.6 semantics)."""
from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import minigrad as mg
import optim
from minigrad import nn


def _roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    mg.save(obj, buf)
    buf.seek(0)
    return mg.load(buf, **load_kw)


def _bits_equal(a, b):
    return a.dtype is b.dtype and a.shape == b.shape and \
        np.array_equal(np.asarray(a._data).reshape(-1).view(np.uint8),
                       np.asarray(b._data).reshape(-1).view(np.uint8))


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64", "int64", "bool"])
def test_tensor_roundtrip_bit_exact(dt):
    t = mg.tensor([[1.0, -0.0], [float("inf"), 3.0]]).to(getattr(mg, dt))
    r = _roundtrip(t)
    assert type(r) is mg.Tensor and _bits_equal(r, t) and not r.requires_grad


def test_requires_grad_parameter_and_shared_tensors():
    p = nn.Parameter(mg.randn(3, dtype=mg.float16))
    leaf = mg.ones(2, requires_grad=True)
    r = _roundtrip({"p": p, "leaf": leaf, "again": leaf, "size": mg.Size([2, 3])})
    assert isinstance(r["p"], nn.Parameter) and r["p"].requires_grad and _bits_equal(r["p"], p)
    assert r["leaf"].requires_grad and r["again"] is r["leaf"]   # shared stays shared (torch too)
    assert r["size"] == (2, 3)


def test_model_and_optimizer_state_dict_roundtrip(tmp_path):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).to(mg.bfloat16)
    opt = optim.Adam(model.parameters(), lr=1e-2, betas=(0.8, 0.9))
    for _ in range(2):
        model(mg.randn(5, 4, dtype=mg.bfloat16)).float().sum().backward()
        opt.step()
        opt.zero_grad()
    path = tmp_path / "ckpt.pt"
    mg.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 2}, path)
    ck = mg.load(str(path))
    assert ck["epoch"] == 2
    for k, v in model.state_dict().items():
        assert _bits_equal(ck["model"][k], v) and ck["model"][k].dtype is mg.bfloat16
    model2 = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).to(mg.bfloat16)
    model2.load_state_dict(ck["model"])
    opt2 = optim.Adam(model2.parameters(), lr=1.0)
    opt2.load_state_dict(ck["opt"])
    assert opt2.param_groups[0]["lr"] == 1e-2 and opt2.param_groups[0]["betas"] == (0.8, 0.9)
    s1, s2 = opt.state_dict()["state"], opt2.state_dict()["state"]
    for i in s1:
        for key in ("exp_avg", "exp_avg_sq", "step"):
            assert _bits_equal(s1[i][key], s2[i][key])
    # both continue identically
    x = mg.randn(5, 4, dtype=mg.bfloat16)
    for m, o in ((model, opt), (model2, opt2)):
        m(x).float().sum().backward()
        o.step()
    for a, b in zip(model.parameters(), model2.parameters()):
        assert _bits_equal(a, b)


class Custom:
    """A user class: not in load(weights_only=True)'s default allowlist."""


def test_weights_only_rejects_other_globals_and_allowlist():
    buf = io.BytesIO()
    mg.save({"obj": Custom(), "t": mg.ones(1)}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        mg.load(buf)
    buf.seek(0)
    assert isinstance(mg.load(buf, weights_only=False)["obj"], Custom)
    mg.serialization.add_safe_globals([Custom])
    try:
        buf.seek(0)
        assert isinstance(mg.load(buf)["obj"], Custom)
    finally:
        mg.serialization.clear_safe_globals()
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit"):
        mg.load(io.BytesIO(), pickle_module=pickle, weights_only=True)


def test_exported():
    assert "save" in mg.__all__ and "load" in mg.__all__
    assert mg.save.__doc__ and mg.load.__doc__
