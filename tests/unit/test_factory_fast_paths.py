"""``zeros_like``/``ones_like``'s plain path (``factory._plain_like``: no argument but a row-major
cpu input, as the engine's implicit gradient) agrees with the general path: same dtype, shape,
strides, bytes, device and flags."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.ops import factory


def _inputs():
    x = mg.randn(3, 4)
    return [x, mg.tensor(2.5), mg.zeros(0, 3), x.half(), x.bfloat16(), x.double(),
            x.to(mg.int64), x > 0, x.t(), x[:, ::2], mg.randn(2, 3, 4, 5).to(
                memory_format=mg.channels_last), x.requires_grad_(True)]


def _call(fn, t, general, monkeypatch, **kw):
    with monkeypatch.context() as m:
        if general:
            m.setattr(factory, "_plain_like", lambda *a: False)
        return fn(t, **kw)


def _same(f, s):
    assert type(f) is type(s) and f.dtype is s.dtype and f.device == s.device
    assert f._data.shape == s._data.shape and f._data.strides == s._data.strides
    assert f.requires_grad == s.requires_grad and f.is_inference() == s.is_inference()
    assert f._base is None and s._base is None and f.grad_fn is None
    assert np.array_equal(f._data.reshape(-1).view(np.uint8), s._data.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("i", range(12))
@pytest.mark.parametrize("fn", [mg.ones_like, mg.zeros_like])
def test_plain_like_agrees_with_the_general_path(fn, i, monkeypatch):
    t = _inputs()[i]
    _same(_call(fn, t, False, monkeypatch), _call(fn, t, True, monkeypatch))


@pytest.mark.parametrize("kw", [{"dtype": mg.float16}, {"device": "cpu"},
                                {"requires_grad": True},
                                {"memory_format": mg.contiguous_format}])
@pytest.mark.parametrize("fn", [mg.ones_like, mg.zeros_like])
def test_any_argument_takes_the_general_path(fn, kw, monkeypatch):
    t = mg.randn(2, 3, 4, 5).to(memory_format=mg.channels_last)
    assert not factory._plain_like(t, kw.get("dtype"), kw.get("device"),
                                   kw.get("requires_grad", False), kw.get("memory_format"))
    _same(_call(fn, t, False, monkeypatch, **kw), _call(fn, t, True, monkeypatch, **kw))


def test_plain_like_is_taken_and_is_fresh():
    t = mg.randn(3, 4)
    assert factory._plain_like(t, None, None, False, None)
    assert not factory._plain_like(t.t(), None, None, False, None)   # strided: general path
    o = mg.ones_like(t)
    assert not np.shares_memory(o._data, t._data) and o._data.flags.writeable


def test_inference_mode_input_and_cuda_input():
    with mg.inference_mode():
        t = mg.randn(2)
        assert mg.ones_like(t).is_inference()
    c = mg.randn(2, device="cuda")
    assert not factory._plain_like(c, None, None, False, None)
    assert mg.ones_like(c).device.type == "cuda" and mg.zeros_like(c).device.type == "cuda"


def test_a_mode_sees_ones_like_of_the_implicit_gradient():
    from tests.unit.test_random_ops import _Names
    a = mg.randn(3, requires_grad=True)
    loss = (a * 2).sum()
    with _Names() as rec:
        loss.backward()
    assert rec.names[0] == "ones_like"
    assert np.array_equal(a.grad._data, np.full(3, 2, np.float32))
