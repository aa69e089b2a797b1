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
