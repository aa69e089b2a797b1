"""Anomaly mode (``detect_anomaly`` / ``set_detect_anomaly``) against PyTorch: the NaN error, the
warnings naming the forward call (and the node that induced it under ``create_graph``), the
flags, and the in-place version error's hint."""
from __future__ import annotations

import warnings

import pytest
import torch

import minigrad as mg

LIBS = pytest.mark.parametrize("L", [torch, mg], ids=["torch", "minigrad"])


def _run(fn):
    """Call ``fn``; return (exception type and message or None, warning texts)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except Exception as e:      # noqa: BLE001 - which exception is the point
            err = (type(e), str(e).replace("torch.", "").replace("minigrad.", ""))
    # PyTorch's C++ warnings end with "(Triggered internally at ...)"
    return err, [str(x.message).split(" (Triggered internally")[0] for x in w]


def _nan_div(L):
    x = L.tensor([0.0, 1.0], requires_grad=True)
    with L.autograd.detect_anomaly():
        z = (x / x).sum()                                   # FORWARD-LINE-DIV
        z.backward()


def _nan_induced(L):
    x = L.tensor([0.0, 1.0], requires_grad=True)
    with L.autograd.detect_anomaly():
        y = x.sqrt().sum()                                  # FORWARD-LINE-SQRT
        (g,) = L.autograd.grad(y, x, create_graph=True)     # FORWARD-LINE-GRAD
        (g * 0).sum().backward()


def _raising_function(L):
    class Boom(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    x = L.ones(2, requires_grad=True)
    with L.autograd.detect_anomaly():
        Boom.apply(x).sum().backward()                      # FORWARD-LINE-BOOM


def _line(tag):
    import inspect
    src = inspect.getsource(inspect.getmodule(_line)).splitlines()
    return next(i + 1 for i, s in enumerate(src) if s.rstrip().endswith("# " + tag))


def test_nan_in_backward_raises_and_names_the_forward_line():
    for fn in (_nan_div,):
        (et, em), tw = _run(lambda: fn(torch))
        (mt, mm), mw = _run(lambda: fn(mg))
        assert (mt, mm) == (et, em) == (RuntimeError,
                                        "Function 'DivBackward0' returned nan values in its 1th "
                                        "output.")
        assert tw[0] == mw[0].replace("minigrad", "torch") == (
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.")
        head = "Error detected in DivBackward0. Traceback of forward call that caused the error:\n"
        where = f'line {_line("FORWARD-LINE-DIV")}, in _nan_div'
        for w in (tw[1], mw[1]):
            assert w.startswith(head) and where in w
        assert len(tw) == len(mw) == 2


def test_node_made_in_backward_names_the_inducing_node():
    (et, em), tw = _run(lambda: _nan_induced(torch))
    (mt, mm), mw = _run(lambda: _nan_induced(mg))
    assert (mt, mm) == (et, em)
    assert len(mw) == len(tw) == 3
    for w in (tw[1], mw[1]):
        assert w.startswith("Error detected in DivBackward0.")
        assert f'line {_line("FORWARD-LINE-GRAD")}' in w
    for w in (tw[2], mw[2]):
        assert w.startswith("\n\nPrevious calculation was induced by SqrtBackward0. Traceback of "
                            "forward call that induced the previous calculation:\n")
        assert f'line {_line("FORWARD-LINE-SQRT")}' in w


def test_error_in_a_custom_backward_warns_then_propagates():
    (et, em), tw = _run(lambda: _raising_function(torch))
    (mt, mm), mw = _run(lambda: _raising_function(mg))
    assert (mt, mm) == (et, em) == (ValueError, "boom")
    for w in (tw[1], mw[1]):
        assert w.startswith("Error detected in BoomBackward. Traceback of forward call that "
                            "caused the error:\n")
        assert f'line {_line("FORWARD-LINE-BOOM")}' in w


@LIBS
def test_check_nan_false_lets_nan_through_and_grads_match(L):
    x = L.tensor([0.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with L.autograd.detect_anomaly(check_nan=False):
            (x / x).sum().backward()
    g = x.grad.tolist()
    assert g[0] != g[0] and g[1] == 0.0          # nan, then d(x/x)/dx = 0


@LIBS
def test_flags_and_restoring(L):
    assert not L.is_anomaly_enabled() and L.is_anomaly_check_nan_enabled()
    with L.autograd.set_detect_anomaly(True, check_nan=False):
        assert L.is_anomaly_enabled() and not L.is_anomaly_check_nan_enabled()
    assert not L.is_anomaly_enabled() and L.is_anomaly_check_nan_enabled()
    L.autograd.set_detect_anomaly(True)
    try:
        assert L.is_anomaly_enabled()
    finally:
        L.autograd.set_detect_anomaly(False)
    assert not L.is_anomaly_enabled()
    with pytest.raises(TypeError, match="not callable"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            L.autograd.detect_anomaly()(lambda: None)


def test_metadata_holds_the_forward_stack_only_in_the_mode():
    for L in (torch, mg):
        x = L.ones(2, requires_grad=True)
        assert (x * 2).grad_fn.metadata == {}
        with L.autograd.set_detect_anomaly(True):
            y = x * 2
        tb = y.grad_fn.metadata["traceback_"]
        assert isinstance(tb, list) and "test_anomaly_mode.py" in tb[-1]


def test_version_error_hint_follows_the_mode():
    def bump(L):
        a = L.ones(3, requires_grad=True)
        b = a.sigmoid()
        b.mul_(2)
        b.sum().backward()

    assert _run(lambda: bump(mg))[0] == _run(lambda: bump(torch))[0]
    with torch.autograd.set_detect_anomaly(True), mg.autograd.set_detect_anomaly(True):
        (et, em), _ = _run(lambda: bump(torch))
        (mt, mm), mw = _run(lambda: bump(mg))
    assert (mt, mm) == (et, em) and mm.endswith("Good luck!")
    assert mw[0].startswith("Error detected in SigmoidBackward0.")


def test_a_training_step_is_unchanged_under_the_mode():
    def step():
        mg.manual_seed(0)
        m = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.GELU(), mg.nn.LayerNorm(8),
                             mg.nn.Linear(8, 3))
        opt = mg.optim.AdamW(m.parameters(), lr=1e-2)
        x, t = mg.randn(5, 4), mg.tensor([0, 1, 2, 1, 0])
        for _ in range(2):
            opt.zero_grad()
            mg.nn.functional.cross_entropy(m(x), t).backward()
            opt.step()
        return [p.detach().numpy().copy() for p in m.parameters()]

    plain = step()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mg.autograd.detect_anomaly():
            watched = step()
    for a, b in zip(plain, watched):
        assert a.tobytes() == b.tobytes()
