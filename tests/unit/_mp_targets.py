"""Targets for tests/unit/test_multiprocessing.py's child processes (a light module: spawned
children import it, and with it only minigrad)."""
from __future__ import annotations

import minigrad as mg


def hogwild_step(model):
    """One SGD step on ``model`` (an ``nn.Linear(2, 1)``): the ``mnist_hogwild`` worker."""
    import minigrad.optim as optim
    opt = optim.SGD(model.parameters(), lr=0.5)
    model(mg.ones(1, 2)).sum().backward()
    opt.step()
    assert model.weight.is_shared()


def fill_from_queue(q, done):
    """Take a tensor from ``q``, write 7 into it, report its sharing state on ``done``."""
    t = q.get()
    t.fill_(7.0)
    done.put((t.is_shared(), t.tolist()))


def rank_writes(i, t):
    """``spawn``'s ``fn(i, *args)``: process ``i`` writes ``i + 1`` at position ``i``."""
    t[i] = i + 1


def fails(i):
    if i == 1:
        raise ValueError("child 1 failed")


def exits(i):
    import os
    os._exit(3)
