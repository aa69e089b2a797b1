"""``compare_with_torch``: a program that matches PyTorch shows no divergence, and a one-ULP error
injected into one op (forward, backward, optimizer step) is found at that op, first."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.dispatch import DispatchMode
from minigrad.testing import TraceMode, compare_with_torch

pytest.importorskip("torch")


class _OneUlp(DispatchMode):
    """Add one ULP (in the output's format) to the first element of the ``nth`` result of op
    ``name`` (its first tensor output)."""

    def __init__(self, name, nth=0):
        self.name, self.nth, self.seen = name, nth, 0

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        out = call_next(args, kwargs)
        if op_name == self.name:
            if self.seen == self.nth:
                res = args[0] if out is None else out       # in-place foreach: self
                t = res[0] if isinstance(res, (list, tuple)) else res
                flat = t._data.reshape(-1)
                bits = flat.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[flat.itemsize])
                bits[0] += 1
            self.seen += 1
        return out


def _setup():
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(6, 8), mg.nn.GELU(), mg.nn.Linear(8, 3))
    x = mg.randn(5, 6)
    target = mg.randn(5, 3).bfloat16()
    return model, x, target


def _program(m, x, t, torch):
    # a bf16 result under autocast: every op of this program is bit-exact with PyTorch's
    return (m(x) * t).sum()


def _sgd(params, torch):
    return torch.optim.SGD(params, lr=0.1, momentum=0.9)


def _compare(inject=None):
    model, x, t = _setup()
    # 16-bit outputs are compared bit for bit; fp32 ones (the step's, the loss) too here: they
    # are exact for these ops, and a 1-ulp injection must show
    kw = dict(autocast="bfloat16", optimizer=_sgd, ulp={"float32": 0, "bfloat16": 0})
    if inject is None:
        return compare_with_torch(_program, model, x, t, **kw)
    with inject:
        return compare_with_torch(_program, model, x, t, **kw)


def test_matching_program_shows_no_divergence():
    c = _compare()
    assert c.first is None, str(c)
    names = {(r.ours.phase, r.ours.base) for r in c.matched}
    for want in [("forward", "addmm"), ("forward", "gelu"), ("forward", "sum"),
                 ("backward", "gelu_backward"), ("backward", "mm")]:
        assert want in names, want
    assert any(p == "step" for p, _ in names)
    assert "no divergence" in str(c)
    bf16 = [r for r in c.matched if r.ours.base == "addmm"]
    assert bf16 and all(r.ours.outputs[0][0] == "bfloat16" for r in bf16)   # autocast at work


@pytest.mark.parametrize("phase,op", [("forward", "gelu"), ("backward", "gelu_backward"),
                                      ("forward", "addmm")])
def test_injected_ulp_is_found_at_its_op(phase, op):
    c = _compare(_OneUlp(op))
    assert c.first is not None, str(c)
    assert (c.first.ours.phase, c.first.ours.base) == (phase, op)
    assert c.first.max_ulp == 1
    assert "FIRST DIVERGENCE" in str(c) and op in c.repro()


def test_injected_ulp_in_the_optimizer_step_is_found_there():
    clean = _compare()
    assert any(r.ours.phase == "step" and r.ours.base == "add_" for r in clean.matched)
    # SGD's parameter update (one _foreach_add_ per chunk here; PyTorch's for-loop: add_ per
    # parameter): one ulp more in the first parameter
    c = _compare(_OneUlp("_foreach_add_"))
    assert c.first is not None and c.first.ours.phase == "step", str(c)
    assert c.first.ours.base == "add_" and c.first.max_ulp == 1


def test_trace_mode_records_names_depths_and_phases():
    x = mg.randn(3, 4, requires_grad=True)
    w = mg.randn(2, 4, requires_grad=True)
    with TraceMode() as tr:
        y = mg.nn.functional.linear(x, w).relu().sum()
        tr.phase = "backward"
        y.backward()
    fwd = [(r.depth, r.name) for r in tr.records if r.phase == "forward"]
    assert fwd[0] == (0, "linear") and (1, "t") in fwd and (1, "mm") in fwd or \
        (1, "matmul") in fwd
    assert any(r.phase == "backward" and r.base == "threshold_backward" for r in tr.records)
    rec = tr.records[0]
    assert rec.inputs == [("float32", (3, 4), "cpu"), ("float32", (2, 4), "cpu")]
    assert rec.outputs == [("float32", (3, 2))]


def test_diff_cli_runs_a_script_in_both_and_finds_no_divergence(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "torch.manual_seed(0)\n"
        "model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)\n"
        "x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))\n"
        "for step in range(2):\n"
        "    opt.zero_grad()\n"
        "    with torch.autocast('cpu', dtype=torch.bfloat16):\n"
        "        loss = (model(x) * 0.5).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n")
    res = subprocess.run([sys.executable, "-m", "minigrad.diff", str(script)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    out = res.stdout
    assert "no divergence beyond the numerics contract" in out
    for phase, op in (("forward", "addmm"), ("backward", "mm"), ("step", "add_")):
        assert any(line.split()[1:3] == [phase, op] for line in out.splitlines()
                   if len(line.split()) > 3), (phase, op)


def test_module_twins_seeds_and_the_step_verdict():
    """RNN and attention modules get torch twins; the generators are seeded alike (dropout
    matches); a nesterov/weight-decay step whose ops interleave differently is judged by the
    parameters it leaves."""
    mg.manual_seed(0)
    x = mg.randn(2, 5, 8)
    for m, f in ((mg.nn.LSTM(8, 4, batch_first=True), lambda m, x: m(x)[0].sum()),
                 (mg.nn.MultiheadAttention(8, 2, batch_first=True),
                  lambda m, x: m(x, x, x)[0].sum())):
        c = compare_with_torch(f, m, x)
        assert c.first is None and len(c.matched) > 5, str(c)
    c = compare_with_torch(lambda x, torch: torch.nn.functional.dropout(x, 0.5).sum(),
                           mg.randn(4, 6, requires_grad=True))
    assert c.first is None, str(c)
    lin = mg.nn.Sequential(mg.nn.Linear(6, 8), mg.nn.ReLU(), mg.nn.Linear(8, 3))
    c = compare_with_torch(lambda m, x: m(x).pow(2).sum(), lin, mg.randn(5, 6),
                           optimizer=lambda p, torch: torch.optim.SGD(
                               p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-2))
    assert c.first is None, str(c)
    assert sum(r.ours.name.startswith("parameter ") for r in c.matched) == 4


class _UlpsUp(DispatchMode):
    """Add ``n`` ULPs to every element of each fp32 result of op ``name``."""

    def __init__(self, name, n):
        self.name, self.n = name, n

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        out = call_next(args, kwargs)
        if op_name == self.name:
            out._data.reshape(-1).view(np.uint32)[:] += self.n
        return out


def _amplified(inject, replay):
    # pow(., 60) multiplies its input's relative error by 60: exp's contract-sized error
    # (1 ulp) becomes ~60 ulp in pow's result, although pow itself is exact on its inputs
    x = mg.rand(64) + 0.5
    with inject:
        return compare_with_torch(lambda x: (x.exp() ** 60).sum(), x, backward=False,
                                  replay=replay, ulp={"float32": 4})


def test_same_input_replay_tells_inherited_from_own_divergence():
    c = _amplified(_UlpsUp("exp", 1), replay=False)
    assert c.first is not None and c.first.ours.base == "pow", str(c)   # as computed
    c = _amplified(_UlpsUp("exp", 1), replay=True)
    assert c.first is None, str(c)      # exp within 4 ulp; pow exact on exp's output
    pow_row = next(r for r in c.matched if r.ours.base == "pow")
    assert pow_row.ok and pow_row.replay_ulp <= 1 and "inherited" in pow_row.note
    assert "inherited" in c.table()
    c = _amplified(_UlpsUp("exp", 8), replay=True)
    assert c.first is not None and c.first.ours.base == "exp" and c.first.max_ulp == 8, str(c)
    assert c.first.replay_ulp == 8


def test_same_input_replay_survives_pickling():
    import pickle
    import torch
    from minigrad.testing.replay import (OpRecord, Row, _measure, _torch_ok_dtypes,
                                         _torch_trace_mode, replay_divergences)
    _torch_ok_dtypes()
    x = mg.rand(16) + 0.5
    with TraceMode(values=True) as tr, _UlpsUp("exp", 1):
        (x.exp() ** 60).sum()
    recs, tx = [], torch.from_numpy(x.numpy())
    with _torch_trace_mode(recs, ["forward"], keep_args=False):
        (tx.exp() ** 60).sum()
    ours, theirs = pickle.loads(pickle.dumps((tr.records, recs)))
    assert [r.name for r in ours] == [r.name for r in theirs] == \
        ["exp", "pow.Tensor_Scalar", "sum"]
    assert all(isinstance(r, OpRecord) and r.args is None for r in ours + theirs)
    rows = [Row(a, b) for a, b in zip(ours, theirs)]
    for r in rows:
        _measure(r, 4, 4.0)
    assert not rows[1].ok           # pow, as computed
    replay_divergences(rows, 4, 4.0)
    assert rows[1].ok and rows[1].replay_ulp is not None


@pytest.mark.parametrize("trace_outside", [True, False])
def test_trace_records_attributes_and_the_autocast_decision(trace_outside):
    import contextlib
    x, t = mg.randn(3, 4), mg.randn(3, 4)
    a = x.bfloat16()
    tr = TraceMode()
    region = mg.autocast("cpu", dtype=mg.bfloat16)
    outer, inner = (tr, region) if trace_outside else (region, tr)
    with outer, inner:
        mg.nn.functional.mse_loss(a, t)       # fp32 list: the bf16 input is cast up
        mg.cat([a, t], dim=1)                 # promote: to the widest input dtype
        a.sum(0, keepdim=True)                # not listed: autocast leaves it
        with contextlib.nullcontext():
            mg.mm(x, t.t())                   # lower precision: both cast down
    rec = {r.base: r for r in tr.records if r.depth == 0}
    assert rec["mse_loss"].autocast == ("fp32", ((0, "bfloat16", "float32"),))
    assert rec["cat"].autocast == ("promote", (("0[0]", "bfloat16", "float32"),))
    assert rec["sum"].autocast is None
    assert rec["mm"].autocast == ("lower_precision_fp", ((0, "float32", "bfloat16"),
                                                         (1, "float32", "bfloat16")))
    assert rec["cat"].attrs == ((None, 1), {})            # the tensor list's place: None
    assert rec["sum"].attrs == ((None, 0, True), {"dtype": None})
    assert "[autocast promote, 1 cast(s)]" in repr(rec["cat"])


def test_a_module_class_of_ones_own_runs_through_a_twin():
    import torch
    from minigrad.testing import Twin

    class Net(mg.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = mg.nn.Linear(4, 6), mg.nn.Linear(6, 2)

        def forward(self, x):
            return self.b(self.a(x).tanh())

    class TNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = torch.nn.Linear(4, 6), torch.nn.Linear(6, 2)

        def forward(self, x):
            return self.b(self.a(x).tanh())

    mg.manual_seed(3)
    net = Net()
    with pytest.raises(TypeError, match="Twin"):
        compare_with_torch(lambda m, x: m(x).sum(), net, mg.randn(3, 4))
    c = compare_with_torch(lambda m, x: m(x).sum(), Twin(net, TNet()), mg.randn(3, 4),
                           optimizer=_sgd)
    assert c.first is None and len(c.matched) > 6, str(c)
    assert sum(r.ours.name.startswith("parameter ") for r in c.matched) == 4


def test_the_step_inherits_a_gradient_difference():
    # one ulp more in a gradient: the optimizer's foreach ops (split into PyTorch's per-tensor
    # ops) are replayed on minigrad's own inputs, each its own, and read inherited; a
    # parameter that differs after the step says so
    c = _compare(_OneUlp("gelu_backward"))
    assert c.first is not None and c.first.ours.base == "gelu_backward", str(c)
    step = [r for r in c.matched if r.ours.phase == "step"]
    ops = [r for r in step if not r.ours.name.startswith("parameter ")]
    assert ops and all(r.ok for r in ops), str(c)
    assert any(r.replay_ulp == 0 for r in ops), str(c)        # replayed, not skipped
    params = [r for r in step if r.ours.name.startswith("parameter ")]
    assert any(not r.ok for r in params)
    assert all(r.ok or "every matched op of the step agrees" in r.note for r in params), str(c)


# newuser F13: non-reentrant checkpoint + fp16 autocast + GradScaler + clip_grad_norm_. PyTorch's
# autocast casts linear's bias, weight, input in that order (minigrad: input first), so the
# engine runs their backward casts in the other order too, and the recomputation's casts down to
# fp16 sit among the gradients' casts up to fp32 of the same shapes. PLANT puts a divergence on
# minigrad's side: "gelu" computes a gelu in fp32 (a dtype divergence, forward and in the
# recomputation), "scale" multiplies a gradient by 1 + 2**-8 in a hook (a value divergence in
# the backward).
_CHECKPOINT_AMP = '''
import os
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

plant = os.environ.get("PLANT", "") if torch.__name__ == "minigrad" else ""
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(s):
        super().__init__()
        s.a, s.b = nn.Linear(16, 16), nn.Linear(16, 16)

    def forward(s, x):
        h = s.a(x)
        h = nn.functional.gelu(h.float() if plant == "gelu" else h)
        return x + s.b(h)


blocks = nn.ModuleList([Block() for _ in range(2)])
head = nn.Linear(16, 4)
params = list(blocks.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 4)
x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
with torch.autocast("cpu", dtype=torch.float16):
    h = x
    for b in blocks:
        h = checkpoint(b, h, use_reentrant=False)
    h.register_hook(lambda g: g * (1.0 + 2.0 ** -8 if plant == "scale" else 1.0))
    loss = nn.functional.cross_entropy(head(h), y)
scaler.scale(loss).backward()
scaler.unscale_(opt)
torch.nn.utils.clip_grad_norm_(params, 1.0)
scaler.step(opt)
scaler.update()
print(f"{loss.item():.6f}", scaler.get_scale())
'''


@pytest.mark.parametrize("plant,verdict", [
    ("", None),
    ("gelu", "FIRST DIVERGENCE: forward op gelu (dtype float32 vs float16)"),
    ("scale", "FIRST DIVERGENCE: backward op mul (128 of 128 beyond 4 ulp; also on "
              "minigrad's own inputs")])
def test_diff_cli_checkpoint_under_fp16_autocast(tmp_path, plant, verdict):
    import os
    import subprocess
    import sys
    script = tmp_path / "ck.py"
    script.write_text(_CHECKPOINT_AMP)
    env = dict(os.environ, PLANT=plant, MINIGRAD_EMULATE_CUDA="0")
    res = subprocess.run([sys.executable, "-m", "minigrad.diff", "--max-ops", "400",
                          str(script)], capture_output=True, text=True, timeout=300, env=env)
    out = res.stdout
    assert res.returncode == (0 if verdict is None else 1), out[-3000:] + res.stderr[-3000:]
    if verdict is None:
        assert "no divergence beyond the numerics contract" in out, out[-3000:]
        assert "DIVERGES" not in out
    else:
        assert verdict in out, out[-3000:]
    lines = [line.split() for line in out.splitlines() if len(line.split()) > 3]
    phases = [w[1] for w in lines if w[0].isdigit()]
    # the rows in call order: forward, the backward (with the recomputation), then the ops
    # after it (clip_grad_norm_'s norms, GradScaler's update) tagged forward again
    first_bwd = phases.index("backward")
    assert "forward" in phases[first_bwd:] and phases[0] == "forward"
    assert any(w[1:3] == ["backward", "gelu"] for w in lines)       # recomputed, and matched


def _rec(index, name, phase, out_dtype, shape):
    from minigrad.testing.replay import OpRecord
    r = OpRecord(index, name, 0, phase, [])
    r.outputs = [(out_dtype, shape)]
    return r


def test_align_pairs_reordered_casts_by_dtype_and_runs_in_call_order():
    from minigrad.testing.replay import _align
    # minigrad casts input, weight, bias; PyTorch bias, weight, input. Then a backward whose
    # gradient cast up (fp16 -> fp32) and recomputed cast down (fp32 -> fp16) of one shape come
    # in the other order, then a forward-tagged op after the backward
    ours = [_rec(0, "_to_copy", "forward", "float16", (8, 4)),
            _rec(1, "_to_copy", "forward", "float16", (4, 4)),
            _rec(2, "_to_copy", "forward", "float16", (4,)),
            _rec(3, "addmm", "forward", "float16", (8, 4)),
            _rec(4, "_to_copy", "backward", "float32", (8, 4)),
            _rec(5, "_to_copy", "backward", "float16", (8, 4)),
            _rec(6, "norm", "forward", "float32", ())]
    theirs = [_rec(0, "_to_copy", "forward", "float16", (4,)),
              _rec(1, "_to_copy", "forward", "float16", (4, 4)),
              _rec(2, "_to_copy", "forward", "float16", (8, 4)),
              _rec(3, "addmm", "forward", "float16", (8, 4)),
              _rec(4, "_to_copy", "backward", "float16", (8, 4)),
              _rec(5, "_to_copy", "backward", "float32", (8, 4)),
              _rec(6, "norm", "forward", "float32", ())]
    rows = _align(ours, theirs)
    assert all(r.ours is not None and r.theirs is not None for r in rows), rows
    assert [r.ours.index for r in rows] == list(range(7))           # our call order
    assert all(r.ours.outputs == r.theirs.outputs for r in rows)
    # a real dtype difference still pairs up (op and shapes), so that it shows as one
    theirs[5].outputs = [("float16", (8, 4))]
    theirs[4].outputs = [("float32", (8, 4))]
    theirs[3].outputs = [("float32", (8, 4))]
    rows = _align(ours, theirs)
    mm = next(r for r in rows if r.ours.base == "addmm")
    assert mm.theirs is theirs[3]


def test_default_contract_16bit_gemm_one_ulp_elementwise_exact():
    from minigrad.testing.replay import Row, _measure
    y = np.array([0.5, 1.0, -2.0], dtype=np.float16)
    x = y.copy()
    x.view(np.uint16)[1] += 1                   # one ulp off in one element
    for op, ok in (("addmm", True), ("mm", True), ("gelu", False)):
        a, b = _rec(0, op, "forward", "float16", (3,)), _rec(0, op, "forward", "float16", (3,))
        a.values, b.values = [x], [y]
        row = Row(a, b)
        _measure(row, None, 4.0)
        assert row.ok is ok and row.max_ulp == 1, (op, row.note)
        row = Row(a, b)
        _measure(row, {"float16": 0}, 4.0)      # an explicit bound holds for every op
        assert not row.ok
