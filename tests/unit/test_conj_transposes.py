"""``Tensor.H`` / ``mH`` / ``adjoint`` / ``torch.adjoint`` against torch 2.13 (real dtypes:
the transposes), with torch's errors and 0-dim warnings; and ``__float__``'s warning, given as
torch's ``TORCH_WARN_ONCE`` only in grad mode."""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (1, 5)])
@pytest.mark.parametrize("attr", ["H", "mH", "adjoint", "torch.adjoint"])
def test_values_and_shapes_as_torch(attr, shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)

    def get(lib, t):
        if attr == "torch.adjoint":
            return lib.adjoint(t)
        v = getattr(t, attr)
        return v() if attr == "adjoint" else v
    try:
        want = get(torch, torch.from_numpy(x))
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as ours:
            get(mg, mg.tensor(x))
        assert str(ours.value) == str(e).split(" (Triggered")[0]
        return
    got = get(mg, mg.tensor(x))
    assert np.array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("attr", ["H", "mH", "adjoint"])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_errors_and_warnings_as_torch(attr, shape):
    def get(t):
        v = getattr(t, attr)
        return v() if attr == "adjoint" else v
    for lib, rec in ((torch, []), (mg, [])):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                out = get(lib.ones(shape))
                rec.append(("ok", tuple(out.shape)))
            except RuntimeError as e:
                rec.append(("error", str(e).split(" (Triggered")[0]))
        rec.append([str(x.message).split(" (Triggered")[0] for x in w])
        if lib is torch:
            theirs = rec
        else:
            ours = rec
    assert ours == theirs


def test_float_warning_once_and_not_under_no_grad(monkeypatch):
    monkeypatch.setattr(sys.modules["minigrad.tensor"], "_FLOAT_WARNED", [False])
    x = mg.ones(1, requires_grad=True) * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with mg.no_grad():
            float(x)
        assert w == []                      # torch: no warning outside grad mode
        float(x)
        float(x)
    assert [str(m.message).split("\n")[0] for m in w] == [
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
        "behavior."]                        # once per process, as TORCH_WARN_ONCE
