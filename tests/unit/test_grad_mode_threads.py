"""Grad mode and inference mode are per thread, as PyTorch's thread-local ``GradMode``: a new
thread starts with grad on and inference off, a mode set in one thread is never seen by
another, and the context managers / decorators (functions and generators) restore the previous
state. The flags live in ContextVars (``minigrad._autograd_state``); these tests pin the
thread-local behaviour that storage must keep."""
from __future__ import annotations

import threading

import minigrad as mg
from minigrad.autograd.grad_mode import _grad_state


def _in_thread(fn):
    """``fn()``'s result, run in a fresh thread."""
    out = {}

    def run():
        out["v"] = fn()
    t = threading.Thread(target=run)
    t.start()
    t.join()
    return out["v"]


def _state():
    return (mg.is_grad_enabled(), mg.is_inference_mode_enabled())


def test_new_thread_starts_with_grad_on_inside_no_grad():
    with mg.no_grad():
        assert _in_thread(_state) == (True, False)
        assert not mg.is_grad_enabled()
    with mg.inference_mode():
        assert _in_thread(_state) == (True, False)
        assert _state() == (False, True)
    assert _state() == (True, False)


def test_set_grad_enabled_call_does_not_leak_across_threads():
    mg.set_grad_enabled(False)
    try:
        assert _in_thread(_state) == (True, False)
        assert not mg.is_grad_enabled()
    finally:
        mg.set_grad_enabled(True)

    def off_in_thread():
        mg.set_grad_enabled(False)      # never restored: that thread's own state
        return mg.is_grad_enabled()
    assert _in_thread(off_in_thread) is False
    assert mg.is_grad_enabled()


def test_concurrent_threads_keep_their_own_mode():
    """Two threads alternate inside different modes (barriers force the interleaving): each
    records a graph or not by its own mode only."""
    a = mg.randn(3, requires_grad=True)
    barrier = threading.Barrier(2)
    seen = {}

    def worker(name, cm):
        with cm():
            barrier.wait()
            out = a * 2
            barrier.wait()
            seen[name] = (out.requires_grad, mg.is_grad_enabled(), _grad_state.enabled)
            barrier.wait()
    ts = [threading.Thread(target=worker, args=("off", mg.no_grad)),
          threading.Thread(target=worker, args=("on", mg.enable_grad))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert seen == {"off": (False, False, False), "on": (True, True, True)}


def test_ops_in_thread_record_by_that_threads_mode():
    a = mg.randn(2, 2, requires_grad=True)
    with mg.no_grad():
        out = _in_thread(lambda: a + a)
        inside = a + a
    assert out.grad_fn is not None and out.grad_fn.name() == "AddBackward0"
    assert inside.grad_fn is None
    with mg.inference_mode():
        t = _in_thread(lambda: mg.ones(2))
        u = mg.ones(2)
    assert not t.is_inference() and u.is_inference()


def test_backward_in_thread_leaves_other_thread_on():
    """The engine turns grad mode off while it runs, in its own thread only."""
    a = mg.randn(3, requires_grad=True)
    started, release = threading.Event(), threading.Event()

    def hook(g):
        started.set()
        release.wait(5)
        return g
    a.register_hook(hook)
    t = threading.Thread(target=lambda: (a * 3).sum().backward())
    t.start()
    assert started.wait(5)
    try:
        assert mg.is_grad_enabled()          # the other thread is inside backward
        assert (a * 2).requires_grad
    finally:
        release.set()
        t.join()
    assert a.grad is not None


def test_decorators_and_generators_restore():
    @mg.no_grad()
    def f():
        return mg.is_grad_enabled()

    @mg.no_grad
    def gen():
        for _ in range(2):
            yield mg.is_grad_enabled()

    @mg.set_grad_enabled(False)
    def g():
        return mg.is_grad_enabled()

    @mg.inference_mode()
    def h():
        return _state()
    assert f() is False and mg.is_grad_enabled()
    it = gen()
    assert next(it) is False and mg.is_grad_enabled()
    assert next(it) is False and mg.is_grad_enabled()
    assert g() is False and mg.is_grad_enabled()
    assert h() == (False, True) and _state() == (True, False)
    with mg.no_grad():
        with mg.enable_grad():
            assert mg.is_grad_enabled()
        with mg.inference_mode(False):
            assert _state() == (True, False)
        assert not mg.is_grad_enabled()
        it = gen()
        assert next(it) is False
        with mg.enable_grad():
            assert next(it) is False and mg.is_grad_enabled()
    assert _state() == (True, False)


def test_state_attributes_read_and_set_the_same_flags():
    assert _grad_state.enabled is True and _grad_state.inference is False
    _grad_state.enabled = False
    try:
        assert mg.is_grad_enabled() is False
        assert _in_thread(lambda: _grad_state.enabled) is True
    finally:
        _grad_state.enabled = True
    assert mg.is_grad_enabled() is True


def test_exception_restores_mode():
    try:
        with mg.no_grad():
            raise ValueError
    except ValueError:
        pass
    assert mg.is_grad_enabled()
    try:
        with mg.inference_mode():
            raise ValueError
    except ValueError:
        pass
    assert _state() == (True, False)


def test_a_copied_context_starts_from_its_creators_modes_and_keeps_its_own():
    """The one difference from a thread-local (documented in ``minigrad._autograd_state``):
    code run in a copied context (``contextvars.Context.run``, an asyncio Task) starts from
    the modes at the copy, and a mode it sets stays in its copy. PyTorch's thread-local would
    leak it to the caller."""
    import contextvars
    with mg.no_grad():
        ctx = contextvars.copy_context()
    assert ctx.run(mg.is_grad_enabled) is False
    assert ctx.run(lambda: (mg.set_grad_enabled(True), mg.is_grad_enabled())[1]) is True
    assert mg.is_grad_enabled() is True and ctx.run(mg.is_grad_enabled) is True
    mg.set_grad_enabled(True)
