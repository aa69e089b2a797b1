"""``minigrad.multiprocessing`` (``torch.multiprocessing``): the re-exported API, Hogwild
training under "fork" and "spawn" (the child's steps land in the parent's shared parameters),
shared tensors through a ``Queue``, ``spawn`` and its errors."""
from __future__ import annotations

import sys

import pytest

import minigrad as mg
import minigrad.multiprocessing as mp
from tests.unit import _mp_targets as targets

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="memfd sharing is Linux's")


def test_reexports_python_multiprocessing():
    import multiprocessing
    for name in ("Process", "Queue", "Pool", "get_context", "set_start_method",
                 "get_start_method", "cpu_count", "Event", "Lock", "Manager", "SimpleQueue"):
        assert getattr(mp, name) is getattr(multiprocessing, name), name
    assert mg.multiprocessing is mp
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("nope")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_child_step_lands_in_parent(method):
    model = mg.nn.Linear(2, 1)
    model.share_memory()
    before = model.weight.detach().clone()
    p = mp.get_context(method).Process(target=targets.hogwild_step, args=(model,))
    p.start()
    p.join(timeout=120)
    assert p.exitcode == 0
    assert (model.weight.detach() - before).tolist() == [[-0.5, -0.5]]
    assert model.bias.is_shared()


def test_shared_tensor_through_a_queue_is_shared_unshared_is_copied():
    ctx = mp.get_context("spawn")
    q, done = ctx.Queue(), ctx.Queue()
    shared = mg.zeros(3).share_memory_()
    view = shared[1:]                       # a view: same storage, offset 1
    plain = mg.zeros(2)
    procs = [ctx.Process(target=targets.fill_from_queue, args=(q, done)) for _ in range(2)]
    for p in procs:
        p.start()
    q.put(view)
    q.put(plain)
    results = sorted([done.get(timeout=120), done.get(timeout=120)])
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    assert results == [(False, [7.0, 7.0]), (True, [7.0, 7.0])]
    assert shared.tolist() == [0.0, 7.0, 7.0]      # the child wrote through the view
    assert plain.tolist() == [0.0, 0.0]            # a copy went (deliberate difference)


def test_spawn_runs_each_rank():
    t = mg.zeros(3).share_memory_()
    assert mp.spawn(targets.rank_writes, args=(t,), nprocs=3) is None
    assert t.tolist() == [1.0, 2.0, 3.0]
    ctx = mp.start_processes(targets.rank_writes, args=(t,), nprocs=1, join=False,
                             start_method="fork")
    assert len(ctx.pids()) == 1
    while not ctx.join():
        pass


def test_spawn_errors():
    with pytest.raises(mp.ProcessRaisedException) as e:
        mp.start_processes(targets.fails, nprocs=2, start_method="fork")
    assert e.value.error_index == 1 and "ValueError: child 1 failed" in str(e.value)
    assert str(e.value).startswith("\n\n-- Process 1 terminated with the following error:\n")
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3"):
        mp.start_processes(targets.exits, nprocs=1, start_method="fork")
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(targets.rank_writes, args=(mg.zeros(1).share_memory_(),), start_method="fork")
