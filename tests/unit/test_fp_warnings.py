"""No NumPy floating-point RuntimeWarning reaches the user in fp16/bf16 overflow, inf and nan
situations (PyTorch is silent there: inf/nan are results, not warnings).

Each test rebuilds the user's filter list (Python's defaults + minigrad's import-time filter,
via ``minigrad._install_warning_filters``) inside ``catch_warnings(record=True)``, so warnings
attributed to NumPy's own files (``np.sum`` -> ``fromnumeric.py``) would be recorded.
The expected numbers come from PyTorch 2.13.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import amp_emu
import minigrad as mg
import optim
from minigrad import nn

INF, NAN = float("inf"), float("nan")


class _UserFilters:
    """``warnings.catch_warnings(record=True)`` with a fresh user's filters (no pytest ones)."""

    def __enter__(self):
        self._cm = warnings.catch_warnings(record=True)
        self.records = self._cm.__enter__()
        warnings.resetwarnings()
        warnings.simplefilter("always")          # record every occurrence, not once
        mg._install_warning_filters()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)

    def runtime_warnings(self):
        return [f"{w.filename}:{w.lineno}: {w.message}" for w in self.records
                if issubclass(w.category, RuntimeWarning)]


def test_filter_function_silences_only_our_modules():
    with _UserFilters() as uf:
        np.add.reduce(np.array([np.inf, -np.inf]))          # attributed to this test module
    assert len(uf.runtime_warnings()) == 1                   # the filter is not a blanket one


def test_fp16_autocast_gradscaler_overflow_step_is_silent():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = optim.SGD(model.parameters(), lr=0.1)
    scaler = amp_emu.GradScaler("cpu", init_scale=2.0 ** 40)
    x = mg.randn(3, 4) * 1e4
    y = mg.tensor([0, 1, 1])
    with _UserFilters() as uf:
        for _ in range(2):
            with mg.autocast("cpu", dtype=mg.float16):
                loss = nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
    assert uf.runtime_warnings() == []
    assert scaler.get_scale() < 2.0 ** 40                   # the overflow really happened


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32"])
def test_inf_nan_ops_and_backward_are_silent(dt):
    dtype = getattr(mg, dt)
    big = 3e38 if dt == "float32" else 6e4
    with _UserFilters() as uf:
        a = mg.tensor([INF, -INF, 1.0], dtype=dtype, requires_grad=True)
        s = a.sum()
        m = a.mean()
        sm = mg.softmax(a, 0)
        ls = mg.log_softmax(a, 0)
        b = mg.tensor([big, big, big], dtype=dtype, requires_grad=True)
        bs = b.sum()
        prod = mg.tensor([INF, 0.0], dtype=dtype) * mg.tensor([0.0, INF], dtype=dtype)
        mat = mg.tensor([[INF, 1.0]], dtype=dtype) @ mg.tensor([[0.0], [2.0]], dtype=dtype)
        (a * a).sum().backward()
        (b.reshape(3, 1) @ b.reshape(1, 3)).sum().backward()
        mg.softmax(b, 0).sum().backward()
        mg.log_softmax(a, 0).sum().backward()
        a.amax().backward()
    assert uf.runtime_warnings() == []
    # torch: sum/mean of [inf, -inf, 1] are nan; softmax of it is nan everywhere
    assert math.isnan(s.item()) and math.isnan(m.item())
    assert all(math.isnan(v) for v in sm.tolist()) and all(math.isnan(v) for v in ls.tolist())
    # torch 2.13: fp16 sum of three 60000s overflows -> inf; bf16 gives 180224; fp32 -> inf
    expected = {"float16": INF, "bfloat16": 180224.0, "float32": INF}[dt]
    assert bs.item() == expected
    assert all(math.isnan(v) for v in prod.tolist()) and math.isnan(mat.item())


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, INF])
@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32"])
def test_clip_grad_norm_with_nonfinite_grads_is_silent(dt, norm_type):
    dtype = getattr(mg, dt)
    with _UserFilters() as uf:
        p = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
        p.grad = mg.tensor([INF, -INF, 1.0], dtype=dtype)
        total = nn.utils.clip_grad_norm_([p], 1.0, norm_type=norm_type)
        q = mg.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
        q.grad = mg.tensor([NAN, 1.0], dtype=dtype)
        total_nan = nn.utils.clip_grad_norm_([q], 1.0, norm_type=norm_type)
    assert uf.runtime_warnings() == []
    # torch 2.13: total norm inf with inf grads (grads -> [nan, nan, 0]), nan with a nan grad
    assert total.item() == INF
    g = p.grad.float().tolist()
    assert math.isnan(g[0]) and math.isnan(g[1]) and g[2] == 0.0
    assert math.isnan(total_nan.item())
