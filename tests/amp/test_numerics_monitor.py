"""amp_emu.numerics.NumericsMonitor: counts equal hand-computed counts on crafted inputs (fp16's
max, just past it, its subnormals, zero, inf, nan), roles, the report, and GradScaler's
skipped-steps warning naming the op."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
from amp_emu import GradScaler
from amp_emu.numerics import NumericsMonitor


def _c(mon, op, role="activation", fmt="float16"):
    return mon.counts[(op, role, fmt)].as_dict()


def test_cast_counts_each_kind_once():
    x = mg.tensor([65504.0, 65520.0, 1e-8, 1e-5, 0.0, float("inf"), float("nan")])
    with NumericsMonitor() as mon:
        x.half()
    # 65520 rounds past fp16's max (overflow -> inf); 1e-8 is below half the smallest
    # subnormal 2**-24 (flushed to zero); 1e-5 < 2**-14 is subnormal; 0 stays 0; inf and nan
    # carry over (an inf input is not an overflow)
    assert _c(mon, "_to_copy") == {"values": 7, "overflow": 1, "underflow": 1, "nan": 1,
                                   "inf": 2, "subnormal": 1}


def test_an_ops_single_rounding_is_watched():
    a = mg.tensor([300.0, 1e-4, 2.0, 2 ** -13], dtype=mg.float16)
    with NumericsMonitor() as mon:
        a * a
    # 90000 > 65504 overflows; (1e-4)^2 ~ 1e-8 flushes to zero; 2**-26 too; 4.0 is fine
    assert _c(mon, "mul") == {"values": 4, "overflow": 1, "underflow": 2, "nan": 0,
                                     "inf": 1, "subnormal": 0}


def test_bf16_keeps_what_fp16_loses():
    x = mg.tensor([1e-8, 1e5])
    with NumericsMonitor() as mon:
        x.bfloat16()
        x.half()
    assert _c(mon, "_to_copy", fmt="bfloat16")["underflow"] == 0
    assert _c(mon, "_to_copy", fmt="bfloat16")["overflow"] == 0
    assert _c(mon, "_to_copy", fmt="float16")["underflow"] == 1
    assert _c(mon, "_to_copy", fmt="float16")["overflow"] == 1


def test_roles_and_views_and_the_report():
    mg.manual_seed(0)
    lin = mg.nn.Linear(4, 3).half()
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    x = mg.randn(5, 4).half()
    with NumericsMonitor() as mon:
        (lin(x).float() * 1e-7).sum().backward()
        opt.step()
    roles = {r for _, r, _ in mon.counts}
    assert {"activation", "gradient", "weight"} <= roles
    assert not any(op in ("t", "expand", "view") for op, _, _ in mon.counts)
    g = mon.totals("gradient")
    assert g.subnormal + g.underflow > 0        # tiny gradients in fp16: the point of scaling
    rep = mon.report()
    assert "gradient" in rep and "flushed to zero" in rep
    assert sum(mon.histograms[("gradient", "float16")].values()) > 0


def test_no_counts_outside_the_watched_formats():
    x = mg.tensor([1e-40, 3e38])
    with NumericsMonitor() as mon:
        x * 10.0
    assert mon.counts == {}
    with NumericsMonitor(formats=("float32",)) as mon:
        x * 10.0
    # fp32 ops compute in fp32 (no rounding from a wider opmath to watch): inf and subnormal
    # results are counted, overflow/underflow only for casts into fp32
    c = _c(mon, "mul", fmt="float32")
    assert (c["inf"], c["subnormal"], c["overflow"]) == (1, 1, 0)


def test_grad_scaler_warns_once_after_consecutive_skips_naming_the_op(monkeypatch):
    monkeypatch.setattr(GradScaler, "skip_warning_steps", 3)
    mg.manual_seed(0)
    lin = mg.nn.Linear(4, 2)
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    scaler = GradScaler("cpu", init_scale=2.0 ** 16)
    x = mg.randn(3, 4) * 1e4
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with NumericsMonitor() as mon:
            for _ in range(5):
                opt.zero_grad()
                with mg.autocast("cpu", dtype=mg.float16):
                    out = lin(x)
                scaler.scale(out.float().pow(4).sum()).backward()
                scaler.step(opt)
                scaler.update()
    msgs = [str(m.message) for m in w if "consecutive" in str(m.message)]
    assert len(msgs) == 1, msgs
    assert "skipped 3 consecutive optimizer steps" in msgs[0]
    op = mon.first_nonfinite_gradient
    assert op is not None and op[0] in msgs[0]
