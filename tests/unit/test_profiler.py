"""minigrad.profiler against torch.profiler: event names and counts on one MLP training step,
record_function nesting, schedule actions and the profile's cycle callbacks, tables, Chrome
traces, memory counts from hand-computed bytes."""
import collections
import json
import os
import warnings

import pytest
import torch

import minigrad
import minigrad.nn as nn
import optim
from minigrad.autograd import engine
from minigrad.dispatch import DispatchMode
from minigrad.profiler import (ProfilerAction, ProfilerActivity, profile, record_function,
                               schedule, tensorboard_trace_handler)

# names PyTorch's table has and ours cannot: ops PyTorch's kernels dispatch internally (aten::to,
# _to_copy, empty_strided, copy_, as_strided, transpose inside t, resolve_conj, clamp_min inside
# relu, nll_loss_nd, the bias gradient's sum + view, AccumulateGrad's detach, fill_/zero_, the
# foreach fallbacks' per-tensor ops); ours does that work in NumPy inside one kernel.
# _local_scalar_dense: PyTorch's AdamW reads each step count twice as often.
_COUNT_EXEMPT = {"aten::_local_scalar_dense"}
_MUST_MATCH = {
    "aten::linear", "aten::t", "aten::addmm", "aten::relu", "aten::mm", "aten::expand",
    "aten::cross_entropy_loss", "aten::log_softmax", "aten::_log_softmax", "aten::nll_loss",
    "aten::nll_loss_forward", "aten::ones_like", "aten::nll_loss_backward",
    "aten::_log_softmax_backward_data", "aten::threshold_backward",
    "autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0",
    "autograd::engine::evaluate_function: TBackward0", "TBackward0",
    "autograd::engine::evaluate_function: ReluBackward0", "ReluBackward0",
    "autograd::engine::evaluate_function: NllLossBackward0", "NllLossBackward0",
    "autograd::engine::evaluate_function: LogSoftmaxBackward0", "LogSoftmaxBackward0",
    "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
    "torch::autograd::AccumulateGrad"}
# PyTorch's names of the optimizer's ranges and of foreach AdamW's ops (one step of 4 params:
# measured once with torch.optim.AdamW(foreach=True); PyTorch's optimizer is not run here, its
# first step imports for many seconds)
_OPTIM_COUNTS = {"Optimizer.step#AdamW.step": 1, "Optimizer.zero_grad#AdamW.zero_grad": 1,
                 "aten::_foreach_lerp_": 1, "aten::_foreach_mul_": 2,
                 "aten::_foreach_addcmul_": 1, "aten::_foreach_add_": 2,
                 "aten::_foreach_sqrt": 1, "aten::_foreach_div_": 1, "aten::_foreach_addcdiv_": 1}


def _mlp_step(lib, nn_mod, optim_mod=None):
    """One training step of a tiny MLP; without ``optim_mod`` (PyTorch's side: its optimizers'
    first step imports for seconds) the step stops after backward."""
    lib.manual_seed(0)
    m = nn_mod.Sequential(nn_mod.Linear(4, 8), nn_mod.ReLU(), nn_mod.Linear(8, 3))
    opt = None if optim_mod is None else optim_mod.AdamW(m.parameters(), lr=1e-3, foreach=True)
    x = lib.randn(5, 4)
    y = lib.tensor([0, 1, 2, 0, 1])

    def step():
        if opt is not None:
            opt.zero_grad()
        nn_mod.functional.cross_entropy(m(x), y).backward()
        if opt is not None:
            opt.step()
    step()              # optimizer state exists: the profiled step is a steady one
    return step


def _torch_profile(**kw):
    # PyTorch's legacy profiler records the same events as torch.profiler.profile (checked
    # by hand on this step) without Kineto's start-up, which takes seconds
    return torch.autograd.profiler.profile(use_kineto=False, **kw)


@pytest.fixture(scope="module")
def torch_counts():
    step = _mlp_step(torch, torch.nn)
    with _torch_profile() as p:
        step()
    return {e.key: e.count for e in p.key_averages()}


class _Count(DispatchMode):
    def __init__(self):
        self.counts = collections.Counter()

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        self.counts["aten::" + op_name.split(".")[0]] += 1
        return call_next(args, kwargs)


def test_mlp_step_names_and_counts_match_torch(torch_counts):
    step = _mlp_step(minigrad, nn, optim)
    with profile(activities=[ProfilerActivity.CPU]) as p:
        step()
    ours = {e.key: e.count for e in p.key_averages()}
    assert _MUST_MATCH <= set(torch_counts)
    for name in _MUST_MATCH:
        assert ours.get(name) == torch_counts[name], name
    for name in set(ours) & set(torch_counts) - _COUNT_EXEMPT:
        assert ours[name] == torch_counts[name], name
    for name, n in _OPTIM_COUNTS.items():
        assert ours[name] == n, name
    step_ev = next(e for e in p.events() if e.name == "Optimizer.step#AdamW.step")
    assert {c.name for c in step_ev.cpu_children} >= {"aten::_foreach_lerp_"}
    table = p.key_averages().table(sort_by="count", row_limit=-1)
    assert "Optimizer.step#AdamW.step" in table and "Self CPU time total:" in table


def test_table_holds_every_dispatched_op():
    step = _mlp_step(minigrad, nn, optim)
    counter = _Count()
    with counter, profile() as p:
        step()
    ours = {e.key: e.count for e in p.key_averages()}
    assert counter.counts and all(ours[k] == n for k, n in counter.counts.items())
    assert {k for k in ours if k.startswith("aten::")} == set(counter.counts)
    header = p.key_averages().table(row_limit=1).splitlines()[1].split()
    assert header == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU",
                      "total", "CPU", "time", "avg", "#", "of", "Calls"]
    assert engine._profile_hook is None


def test_record_function_nests_context_and_decorator():
    x = minigrad.ones(3, requires_grad=True)

    @record_function("deco")
    def f(t):
        return (t * 2).sum()

    assert f(x).item() == 6.0                          # outside a profile: a no-op
    with profile() as p:
        with record_function("outer"):
            with minigrad.autograd.profiler.record_function("inner"):
                y = f(x)
        y.backward()
    ev = {}
    for e in p.events():
        ev.setdefault(e.name, e)            # the first event of each name
    assert ev["inner"].cpu_parent is ev["outer"] and ev["deco"].cpu_parent is ev["inner"]
    assert ev["aten::mul"].cpu_parent is ev["deco"] and ev["outer"].is_user_annotation
    assert ev["outer"].cpu_time_total >= ev["inner"].cpu_time_total >= ev["deco"].cpu_time_total
    bw = ev["autograd::engine::evaluate_function: SumBackward0"]
    assert bw.cpu_parent is None and ev["SumBackward0"].cpu_parent is bw
    total = p.events().total_average()
    assert total.key == "Total" and total.count == len(p.events())
    assert minigrad.autograd.profiler.record_function is record_function


@pytest.mark.parametrize("kw", [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=2, active=1,
                                repeat=2, skip_first=3), dict(wait=2, warmup=1, active=1,
                                repeat=1, skip_first=1, skip_first_wait=1)])
def test_schedule_actions_match_torch(kw):
    ours, theirs = schedule(**kw), torch.profiler.schedule(**kw)
    assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]


def test_schedule_errors_and_warning_as_torch():
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        schedule(wait=0, warmup=0, active=1)
    with pytest.raises(AssertionError, match="Step must be non-negative"):
        schedule(wait=0, warmup=1, active=1)(-1)
    assert [a.name for a in ProfilerAction] == \
        [a.name for a in torch.profiler.ProfilerAction][:len(ProfilerAction)]


def test_profile_cycles_and_step_ranges_follow_torch_schedule():
    kw = dict(wait=1, warmup=1, active=2, repeat=2)
    seen = []

    def ready(p):
        # (as torch 2.13: the events are named "ProfilerStep*", trace_name keeps the number)
        assert all(e.name == "ProfilerStep*" for e in p.events() if "ProfilerStep" in e.name)
        seen.append(sorted(e.trace_name for e in p.events() if e.name == "ProfilerStep*"))
    x = minigrad.ones(2)
    with profile(schedule=schedule(**kw), on_trace_ready=ready) as p:
        for _ in range(9):
            x + 1
            p.step()
    # PyTorch's cycles: the recorded steps of its schedule, one cycle per RECORD_AND_SAVE
    theirs = torch.profiler.schedule(**kw)
    cycles, cur = [], []
    for i in range(10):
        act = theirs(i)
        if act.name in ("RECORD", "RECORD_AND_SAVE"):
            cur.append(f"ProfilerStep#{i}")
        if act.name == "RECORD_AND_SAVE":
            cycles.append(sorted(cur))
            cur = []
    assert seen == cycles == [["ProfilerStep#2", "ProfilerStep#3"],
                              ["ProfilerStep#6", "ProfilerStep#7"]]


def test_profiler_steps_merge_into_one_row_as_torch():
    """PyTorch names its step ranges ``ProfilerStep*`` so ``key_averages`` shows one row
    counting every step; the Chrome trace keeps ``ProfilerStep#N``."""
    def run(lib, prof):
        with prof.profile(schedule=prof.schedule(wait=1, warmup=1, active=3),
                          acc_events=True) as p:
            for _ in range(5):
                lib.ones(3) + 1
                p.step()
        return [(e.key, e.count) for e in p.key_averages() if "ProfilerStep" in e.key], p
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, _ = run(torch, torch.profiler)
    ours, p = run(minigrad, minigrad.profiler)
    assert ours == theirs == [("ProfilerStep*", 3)]
    assert "ProfilerStep*" in p.key_averages().table()
    names = {e.trace_name for e in p.events() if e.name == "ProfilerStep*"}
    assert names == {"ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4"}


def test_chrome_trace_parses_and_nests(tmp_path):
    step = _mlp_step(minigrad, nn, optim)
    with profile(record_shapes=True, on_trace_ready=tensorboard_trace_handler(
            str(tmp_path / "tb"), worker_name="w0")) as p:
        step()
    path = tmp_path / "trace.json"
    p.export_chrome_trace(str(path))
    data = json.loads(path.read_text())
    xs = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == len(p.events())
    by_id = {e.id: t for e, t in zip(p.events(), xs)}
    for ev in p.events():
        t = by_id[ev.id]
        assert t["name"] == ev.name and t["dur"] >= 0
        if ev.cpu_parent is not None:
            parent = by_id[ev.cpu_parent.id]
            assert parent["ts"] - 1e-6 <= t["ts"]
            assert t["ts"] + t["dur"] <= parent["ts"] + parent["dur"] + 1e-6
    lin = next(t for t in xs if t["name"] == "aten::linear")
    assert lin["args"]["Input Dims"] == [[5, 4], [8, 4], [8]]
    assert lin["args"]["Input type"] == ["float", "float", "float"]
    files = os.listdir(tmp_path / "tb")
    assert len(files) == 1 and files[0].startswith("w0.") and files[0].endswith(".pt.trace.json")
    json.loads((tmp_path / "tb" / files[0]).read_text())


def test_input_shapes_and_autocast_dtypes_as_torch():
    with _torch_profile(record_shapes=True) as tp:
        with torch.autocast("cpu", torch.bfloat16):
            torch.nn.Linear(4, 8)(torch.randn(5, 4))
    ours_lin = minigrad.nn.Linear(4, 8)
    with profile(record_shapes=True) as p:
        with minigrad.autocast("cpu", minigrad.bfloat16):
            ours_lin(minigrad.randn(5, 4))
    t_addmm = next(e for e in tp.function_events if e.name == "aten::addmm")
    addmm = next(e for e in p.events() if e.name == "aten::addmm")
    assert addmm.input_shapes == t_addmm.input_shapes[:3]      # PyTorch adds beta, alpha: []
    assert addmm.input_dtypes == t_addmm.input_dtypes[:3] == ["c10::BFloat16"] * 3
    rows = p.key_averages(group_by_input_shape=True).table().splitlines()
    assert "Input Shapes" in rows[1] and any("[[5, 4], [8, 4], [8]]" in r for r in rows)


def test_profile_memory_counts_new_storage():
    a = minigrad.ones(5, 8)
    w = minigrad.ones(3, 8, dtype=minigrad.float16)
    with profile(profile_memory=True) as p:
        with record_function("block"):
            b = a * 2           # 5*8*4 = 160 new bytes
            b.t()               # a view: nothing
            b.add_(1)           # in place: nothing
            w.float()           # 3*8*4 = 96
    ev = {e.name: e for e in p.events()}
    assert ev["aten::mul"].self_cpu_memory_usage == 160
    assert ev["aten::t"].cpu_memory_usage == 0 and ev["aten::add_"].cpu_memory_usage == 0
    # the float copy is dropped inside the block: PyTorch shows block 160 B, self -96 B
    assert ev["block"].cpu_memory_usage == 160 and ev["block"].self_cpu_memory_usage == -96
    table = p.key_averages().table()
    assert "CPU Mem" in table and "Self CPU Mem" in table and "160 B" in table
    assert "-96 B" in table


def test_profile_memory_cuda_blocks_and_frees_in_backward():
    lin = minigrad.nn.Linear(64, 64).cuda()
    x = minigrad.randn(32, 64, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 profile_memory=True) as p:
        loss = minigrad.relu(lin(x)).sum()
        loss.backward()
    evs = p.events()
    addmm = next(e for e in evs if e.name == "aten::addmm")
    assert addmm.self_device_memory_usage == 32 * 64 * 4          # a multiple of 512 already
    relu = next(e for e in evs if e.name == "aten::relu")
    assert relu.self_device_memory_usage == 8192
    # the backward frees the saved activations: some backward ranges free more than they make
    bwd = [e for e in evs if e.name.startswith("autograd::engine::evaluate_function")]
    assert any(e.self_device_memory_usage < 0 for e in bwd)
    assert "Self CUDA Mem" in p.key_averages().table()


def test_events_before_a_cycle_and_nesting_errors():
    p = profile(schedule=schedule(wait=5, warmup=1, active=1))
    with p:
        minigrad.ones(2) + 1
    with pytest.raises(AssertionError):
        p.events()
    with profile():
        with pytest.raises(RuntimeError, match="another profiler"):
            profile().start()


def test_flops_match_torch():
    def run(lib, prof):
        a, b, c = lib.randn(5, 4), lib.randn(4, 8), lib.randn(8)
        with prof as p:
            lib.addmm(c, a, b)
            lib.mm(a, b)
            lib.bmm(a[None], b[None])
            a * a
            a + a
        evs = p.function_events if lib is torch else p.events()
        return {e.name: e.flops for e in evs if e.flops}
    assert run(minigrad, profile(with_flops=True)) == \
        run(torch, _torch_profile(with_flops=True))


def _frees_between_ops(lib, prof_cls, rf):
    with prof_cls(profile_memory=True) as p:
        a = lib.randn(64, 64)           # 16384 bytes
        b = a + a                       # 16384
        del a                           # freed outside any op: a [memory] event
        c = lib.empty(10)               # 40
        with rf("foo"):
            del b                       # freed inside a range: the range's self memory
        del c                           # [memory] again
    return p


def test_memory_events_outside_ops_as_torch():
    """Allocations and frees outside every event become ``[memory]`` events, as in PyTorch
    (its legacy profiler here; torch.profiler.profile's Kineto events are the same, checked by
    hand, but take seconds to start)."""
    tp = _frees_between_ops(torch, lambda **kw: _torch_profile(**kw),
                            torch.autograd.profiler.record_function)
    mp = _frees_between_ops(minigrad, profile, record_function)
    t_ev, m_ev = tp.function_events, mp.events()

    def mem(evs):
        return [(e.cpu_memory_usage, e.self_cpu_memory_usage, e.cpu_parent is None,
                 e.time_range.start == e.time_range.end, e.cpu_children == [])
                for e in evs if e.name == "[memory]"]
    assert mem(m_ev) == mem(t_ev) == [(-16384, -16384, True, True, True),
                                      (-40, -40, True, True, True)]
    keep = {"aten::add", "[memory]", "foo"}
    assert [e.name for e in m_ev if e.name in keep] == [e.name for e in t_ev if e.name in keep]
    # numbered after every other event, as PyTorch's
    assert min(e.id for e in m_ev if e.name == "[memory]") > max(
        e.id for e in m_ev if e.name != "[memory]")
    assert min(e.id for e in t_ev if e.name == "[memory]") > max(
        e.id for e in t_ev if e.name != "[memory]")
    foo = [(e.cpu_memory_usage, e.self_cpu_memory_usage) for e in m_ev if e.name == "foo"]
    assert foo == [(e.cpu_memory_usage, e.self_cpu_memory_usage)
                   for e in t_ev if e.name == "foo"]

    def row(p):
        avg = next(a for a in p.key_averages() if a.key == "[memory]")
        line = next(r for r in p.key_averages().table().splitlines()
                    if r.strip().startswith("[memory]"))
        return avg.count, avg.cpu_memory_usage, avg.self_cpu_memory_usage, line.split()
    assert row(mp) == row(tp)
    assert row(mp)[3] == ["[memory]", "0.00%", "0.000us", "0.00%", "0.000us", "0.000us",
                          "-16.04", "KB", "-16.04", "KB", "2"]


def test_memory_instants_in_chrome_trace(tmp_path):
    """The trace has one PyTorch-style ``[memory]`` instant per allocation and free (Kineto's
    args), and no range for the top-level ``[memory]`` events."""
    p = _frees_between_ops(minigrad, profile, record_function)
    path = tmp_path / "t.json"
    p.export_chrome_trace(str(path))
    evs = json.load(open(path))["traceEvents"]
    assert not [e for e in evs if e["name"] == "[memory]" and e["ph"] == "X"]
    inst = [e for e in evs if e["name"] == "[memory]"]
    assert all(e["ph"] == "i" and e["cat"] == "cpu_instant_event" and e["s"] == "t"
               for e in inst)
    assert [e["args"]["Bytes"] for e in inst] == [16384, 16384, -16384, 40, -16384, -40]
    base = inst[0]["args"]["Total Allocated"] - 16384
    assert [e["args"]["Total Allocated"] - base for e in inst] == \
        [16384, 32768, 16384, 16424, 40, 0]
    assert {e["args"]["Device Type"] for e in inst} == {0}
    assert {e["args"]["Device Id"] for e in inst} == {-1}
    assert inst[0]["args"]["Addr"] == inst[2]["args"]["Addr"]       # a's block, freed
    assert set(inst[0]["args"]) == {"Total Reserved", "Total Allocated", "Bytes", "Device Id",
                                    "Device Type", "Addr", "finished", "Ev Idx"}


def test_memory_event_of_a_cuda_free_between_ops():
    x = minigrad.ones(100, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 profile_memory=True) as p:
        y = x * 3                       # 400 bytes: one 512-byte block
        del y
    evs = p.events()
    m = [e for e in evs if e.name == "[memory]"]
    assert [(e.device_memory_usage, e.self_device_memory_usage, e.cpu_memory_usage)
            for e in m] == [(-512, -512, 0)]
    assert next(e for e in evs if e.name == "aten::mul").self_device_memory_usage == 512
    trace = p.events()
    from minigrad.profiler.trace import chrome_trace
    inst = [e for e in chrome_trace(trace)["traceEvents"] if e["name"] == "[memory]"]
    assert [(e["args"]["Bytes"], e["args"]["Device Type"], e["args"]["Device Id"])
            for e in inst] == [(512, 1, 0), (-512, 1, 0)]
    del x
