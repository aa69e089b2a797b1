"""The dispatcher's no-mode fast path (``dispatch._MODES_PUSHED``) agrees with its mode path.

While no thread has a mode, ``dispatch`` skips the thread-local read of the mode stack; a mode
pushed in one thread must still be seen by every op of that thread, and by no other thread's.
"""
from __future__ import annotations

import threading

import minigrad as mg
from minigrad import dispatch as D
from tests.unit.test_random_ops import _Names      # a mode that records op names


def test_a_mode_is_seen_in_its_thread_only_and_the_count_returns_to_zero():
    x = mg.ones(2, requires_grad=True)
    start = D._MODES_PUSHED[0]
    other, pushed, release = _Names(), threading.Event(), threading.Event()

    def worker():
        with other:                 # a mode held by another thread while this one runs ops
            pushed.set()
            release.wait(10)
            mg.add(x, 1)

    t = threading.Thread(target=worker)
    t.start()
    pushed.wait(10)
    assert D._MODES_PUSHED[0] == start + 1
    with _Names() as mine:
        y = (x * 2).sum()
    y.backward()                    # no mode here: the fast path, though the count is not 0
    release.set()
    t.join(10)
    assert mine.names == ["mul", "sum"]
    assert other.names == ["add"]
    assert D._MODES_PUSHED[0] == start and D.current_modes() == ()
    assert x.grad.tolist() == [2.0, 2.0]


def test_operator2_table_follows_modes_registration_and_cuda():
    """``OPERATOR2[name]`` (what ``x + y`` calls) is the op's ``_CALL2`` entry only while no
    thread has a mode and no cuda tensor exists, else ``dispatch`` bound to the name: a mode
    sees every operator; an op registered later gets its entry, an unregistered one raises."""
    from functools import partial

    from minigrad.autograd.function import Function

    x = mg.ones(2, requires_grad=True)
    if not mg.devices.state.cuda_seen:
        assert D.OPERATOR2["add"] is D._CALL2["add"]
    with _Names() as names:
        assert isinstance(D.OPERATOR2["add"], partial)
        y = x + x
        z = x * 3
        w = 2 - x
    assert names.names == ["add", "mul", "rsub.Scalar"]
    assert y.grad_fn.name() == "AddBackward0" and z.tolist() == [3.0, 3.0]
    assert w.tolist() == [1.0, 1.0]
    if not mg.devices.state.cuda_seen:
        assert D.OPERATOR2["add"] is D._CALL2["add"]

    class _Twice(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None
    D.use_operator2("_test_twice")
    try:
        assert isinstance(D.OPERATOR2["_test_twice"], partial)      # not registered yet
        D.register_op("_test_twice", _Twice)
        assert D.OPERATOR2["_test_twice"](x, x).tolist() == [2.0, 2.0]
    finally:
        D._unregister_op("_test_twice")
    try:
        D.OPERATOR2["_test_twice"](x, x)
    except NotImplementedError as e:
        assert "_test_twice" in str(e)
    else:
        raise AssertionError("an unregistered op ran")
    finally:
        D.OPERATOR2.pop("_test_twice", None)


def test_operator2_table_after_the_first_cuda_tensor():
    """Once a cuda tensor exists every operator goes through ``dispatch`` (device checks)."""
    from functools import partial
    a = mg.ones(2, device="cuda")
    assert mg.devices.state.cuda_seen
    assert all(isinstance(f, partial) for f in D.OPERATOR2.values())
    assert (a + a).device.type == "cuda"
    try:
        a + mg.ones(2)
    except RuntimeError as e:
        assert "same device" in str(e)
    else:
        raise AssertionError("mixed devices were accepted")
