"""Every read and write of a training step goes through the dispatcher.

A recording ``DispatchMode`` watches a whole AMP step (autocast forward, ``scale(loss)
.backward()``, ``unscale_``, ``clip_grad_norm_``, ``step``, ``update``, ``zero_grad``) for SGD
with momentum, Adam and AdamW in their for-loop, foreach and fused implementations, and for
RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta, ASGD and Rprop in their for-loop and foreach
ones; an LBFGS step (closure evaluations, line search) is audited on its own. The tracked
tensors are the parameters, their gradients, every optimizer-state tensor, the scale, the growth
tracker and the found-inf flags. Two independent checks:

- **snapshots** (writes): at every boundary of an outermost dispatched op the bytes of every
  tracked tensor are compared with those seen at the previous boundary. A change between the
  end of one op and the start of the next is a write outside dispatch; a change during an op to
  a tensor that the op was not given (nor a view of one) is a write the op had no right to.
- **sealing** (reads and writes): between dispatched ops every tracked tensor's array is swapped
  for a stand-in that keeps the metadata (shape, dtype, strides) but raises on any access to the
  values; the real arrays are put back while an op runs. Code that reads or writes a tracked
  tensor's storage outside an op therefore fails the step.

Finally the step's results (parameters, state, scale) with the mode are bit-identical to the
same step without it.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import optim
from amp_emu import GradScaler, MasterWeightOptimizer, autocast
from minigrad import nn
from minigrad import dispatch as _dispatch
from minigrad.dispatch import DispatchMode, dispatch, register_op
from minigrad.nn.utils import clip_grad_norm_
from minigrad.tensor import Tensor


class _Sealed:
    """Stands in for a tracked tensor's array between dispatched ops: metadata only."""

    __slots__ = ("shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides", "what")

    def __init__(self, arr, what):
        for k in ("shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides"):
            object.__setattr__(self, k, getattr(arr, k))
        object.__setattr__(self, "what", what)

    def _fail(self, *_, **__):
        raise AssertionError(f"the storage of {self.what} was used outside a dispatched op")

    def __getattr__(self, name):
        self._fail()

    __array__ = __array_ufunc__ = __array_function__ = __getitem__ = __setitem__ = _fail
    __len__ = __iter__ = __float__ = __int__ = __bool__ = __index__ = _fail

    def __repr__(self):
        return f"<sealed storage of {self.what}>"


def _tensors_in(obj, out):
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _tensors_in(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors_in(x, out)
    return out


class WriteAudit(DispatchMode):
    """Record every outermost op; flag storage use of tracked tensors outside ops.

    Args:
        collect: callable returning ``{name: Tensor}``, the tensors to watch right now (called
            at every op boundary, so gradients and state created during the step join in).
        seal: also swap the tracked arrays for ``_Sealed`` stand-ins between ops.
    """

    def __init__(self, collect, seal=True):
        self.collect, self.seal = collect, seal
        self.snap: dict = {}          # id(tensor) -> (name, tensor, bytes)
        self.sealed: dict = {}        # id(tensor) -> (tensor, real array)
        self.ops: list = []           # (op name, names of tracked tensors it changed)
        self.errors: list = []
        self._depth = 0

    def _unseal(self):
        for t, arr in self.sealed.values():
            t._data = arr
        self.sealed.clear()

    def _seal(self, tracked):
        if self.seal:
            for name, t in tracked.items():
                if not isinstance(t._data, _Sealed):
                    self.sealed[id(t)] = (t, t._data)
                    t._data = _Sealed(t._data, name)

    def boundary(self, where, op_args=None):
        """Compare every tracked tensor with its last snapshot; re-snapshot."""
        tracked = self.collect()
        changed = []
        for name, t in tracked.items():
            assert isinstance(t, Tensor), f"{name} is {t!r}"
            old = self.snap.get(id(t))
            now = t._data.tobytes()
            if old is not None and old[1] is t and old[2] != now:
                changed.append((name, t))
            self.snap[id(t)] = (name, t, now)
        if op_args is None:
            for name, _ in changed:
                self.errors.append(f"{name} changed outside dispatch ({where})")
        else:
            for name, t in changed:
                if not any(t is a or np.shares_memory(t._data, a._data) for a in op_args):
                    self.errors.append(f"{where} changed {name}, which it was not given")
            self.ops.append((where, [n for n, _ in changed]))
        return tracked

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        if self._depth:
            return call_next(args, kwargs)
        self._unseal()
        self.boundary(f"before {op_name}")
        self._depth += 1
        try:
            out = call_next(args, kwargs)
        finally:
            self._depth -= 1
        op_args = _tensors_in(args, []) + _tensors_in(kwargs, [])
        self._seal(self.boundary(op_name, op_args))
        return out

    def __enter__(self):
        self.boundary("enter")
        self._seal(self.collect())
        return super().__enter__()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        self._unseal()
        self.boundary("exit")
        return False


def _model(seed):
    mg.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))


def _collect(model, opt, scaler):
    def collect():
        out = {}
        for i, p in enumerate(list(model.parameters()) + getattr(opt, "master_params", [])):
            out[f"param{i}"] = p
            if p.grad is not None:
                out[f"param{i}.grad"] = p.grad
            for k, v in opt.state.get(p, {}).items():
                if isinstance(v, Tensor):
                    out[f"param{i}.{k}"] = v
        for name in ("_scale", "_growth_tracker"):
            if getattr(scaler, name) is not None:       # made one after the other
                out[name[1:]] = getattr(scaler, name)
        for j, st in enumerate(scaler._per_optimizer_states.values()):
            for dev, f in st["found_inf_per_device"].items():
                out[f"found_inf{j}.{dev}"] = f
        return out
    return collect


def _amp_step(model, opt, scaler, x, y):
    with autocast("cpu", dtype=mg.float16):
        loss = nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    clip_grad_norm_(getattr(opt, "master_params", None) or model.parameters(), 0.5)
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()


OPTIMIZERS = [
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=1e-3)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, foreach=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, fused=True)),
    ("Adam", dict(lr=1e-2, amsgrad=True)),
    ("Adam", dict(lr=1e-2, weight_decay=1e-2, foreach=True)),
    ("Adam", dict(lr=1e-2, fused=True)),
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, foreach=True, maximize=True)),
    ("AdamW", dict(lr=1e-2, fused=True, amsgrad=True)),
    ("RMSprop", dict(lr=1e-2, momentum=0.9, centered=True, weight_decay=1e-2)),
    ("RMSprop", dict(lr=1e-2, foreach=True, centered=True, maximize=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=1e-3, weight_decay=1e-2)),
    ("Adagrad", dict(lr=0.1, foreach=True)),
    ("Adagrad", dict(lr=0.1, fused=True, weight_decay=1e-2)),
    ("Adamax", dict(lr=1e-2, weight_decay=1e-2)),
    ("Adamax", dict(lr=1e-2, foreach=True)),
    ("NAdam", dict(lr=1e-2, weight_decay=1e-2, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=1e-2, foreach=True)),
    ("RAdam", dict(lr=1e-2, weight_decay=1e-2)),
    ("RAdam", dict(lr=1e-2, foreach=True, decoupled_weight_decay=True, weight_decay=1e-2)),
    ("Adadelta", dict(weight_decay=1e-2)),
    ("Adadelta", dict(foreach=True, maximize=True)),
    ("ASGD", dict(lr=0.05, t0=1, weight_decay=1e-2)),
    ("ASGD", dict(lr=0.05, t0=1, foreach=True)),
    ("Rprop", dict(lr=0.05, maximize=True)),
    ("Rprop", dict(lr=0.05, foreach=True)),
]


def _train(kind, kw, audit: bool, steps=3, master=False):
    model = _model(0)
    if master:     # a bf16 model whose fp32 master weights are stepped and copied back
        model.to(mg.bfloat16)
        opt = MasterWeightOptimizer(getattr(optim, kind), model.parameters(), **kw)
    else:
        opt = getattr(optim, kind)(model.parameters(), **kw)
    scaler = GradScaler("cpu", init_scale=2.0 ** 14, growth_interval=2)
    rng = np.random.default_rng(1)
    audits = []
    for s in range(steps):
        x = mg.from_numpy(rng.standard_normal((5, 6)).astype(np.float32))
        y = mg.from_numpy(rng.integers(0, 3, 5))
        if s == 1:   # an overflowing step: skipped, the scale backs off
            x = mg.from_numpy(np.full((5, 6), 6e4, np.float32))
        if master:
            x = x.to(mg.bfloat16)
        if audit:
            mode = WriteAudit(_collect(model, opt, scaler))
            with mode:
                _amp_step(model, opt, scaler, x, y)
            audits.append(mode)
        else:
            _amp_step(model, opt, scaler, x, y)
    stepped = getattr(opt, "master_params", None) or list(model.parameters())
    state = [(k, v._data.copy()) for p in stepped for k, v in sorted(opt.state[p].items())]
    assert state
    params = [p._data.copy() for p in list(model.parameters()) + stepped]
    return params, state, scaler.scale_history, scaler.skipped_steps, audits


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # the deliberately overflowing step
@pytest.mark.parametrize("kind,kw,master", [(k, kw, False) for k, kw in OPTIMIZERS] +
                         [("Adam", dict(lr=1e-2), True)], ids=lambda v: str(v))
def test_whole_amp_step_reads_and_writes_only_through_dispatch(kind, kw, master):
    params, state, scales, skipped, audits = _train(kind, kw, audit=True, master=master)
    for mode in audits:
        assert mode.errors == []
    ops = [name for mode in audits for name, _ in mode.ops]
    # the step really was seen: the optimizer's own ops and the scaler's kernels
    assert "_amp_foreach_non_finite_check_and_unscale_" in ops
    assert "_amp_update_scale_" in ops and "_local_scalar_dense" in ops
    if kw.get("fused"):
        assert f"_fused_{kind.lower()}_" in ops
    else:
        assert "_foreach_add_" in ops
    writers = {name for mode in audits for name, changed in mode.ops if changed}
    assert {"_amp_update_scale_", "_amp_foreach_non_finite_check_and_unscale_"} <= writers
    assert skipped == 1 and scales[1] < scales[0]
    # bit-identical without the mode
    if master:
        assert "copy_" in writers        # the masters are copied back into the model
    params2, state2, scales2, skipped2, _ = _train(kind, kw, audit=False, master=master)
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(params, params2))
    assert [k for k, _ in state] == [k for k, _ in state2]
    assert all(np.array_equal(a, b, equal_nan=True) for (_, a), (_, b) in zip(state, state2))
    assert scales == scales2 and skipped == skipped2


def test_the_audit_catches_a_write_and_a_read_outside_dispatch():
    """The checks can fail: a NumPy write between ops, and a NumPy read of a sealed tensor."""
    p = mg.ones(3, requires_grad=True)
    mode = WriteAudit(lambda: {"p": p}, seal=False)
    with mode:
        dispatch("zeros_like", p)
        p._data[0] = 5.0          # a write behind the dispatcher's back
        dispatch("zeros_like", p)
    assert mode.errors == ["p changed outside dispatch (before zeros_like)"]
    mode = WriteAudit(lambda: {"p": p})
    with pytest.raises(AssertionError, match="storage of p was used outside a dispatched op"):
        with mode:
            float(p._data.sum())
    assert isinstance(p._data, np.ndarray)        # restored on exit


def test_the_audit_catches_an_op_writing_a_tensor_it_was_not_given():
    """An op (here a throw-away one, unregistered afterwards) writing a tensor it was not given."""
    p, q = mg.ones(3), mg.ones(3)

    def bad(a):
        q._data[...] = 7.0
        return a
    register_op("_test_bad_write_", bad)
    try:
        mode = WriteAudit(lambda: {"p": p, "q": q})
        with mode:
            dispatch("_test_bad_write_", p)
    finally:
        _dispatch._unregister_op("_test_bad_write_")
    assert mode.errors == ["_test_bad_write_ changed q, which it was not given"]


@pytest.mark.parametrize("kw", [dict(), dict(line_search_fn="strong_wolfe", history_size=2)])
def test_lbfgs_step_reads_and_writes_only_through_dispatch(kw):
    """LBFGS (closure evaluations, line search, history) with every parameter, gradient and
    state tensor tracked and sealed between ops."""
    model = _model(0)
    opt = optim.LBFGS(model.parameters(), max_iter=5, **kw)
    rng = np.random.default_rng(2)
    x = mg.from_numpy(rng.standard_normal((5, 6)).astype(np.float32))
    y = mg.from_numpy(rng.integers(0, 3, 5))

    def collect():
        out = {}
        for i, p in enumerate(model.parameters()):
            out[f"param{i}"] = p
            if p.grad is not None:
                out[f"param{i}.grad"] = p.grad
        for k, v in opt.state[next(iter(model.parameters()))].items():
            for j, t in enumerate(_tensors_in(v, [])):
                out[f"state.{k}{j}"] = t
        return out

    def closure():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        return loss

    before = [p._data.copy() for p in model.parameters()]
    for _ in range(2):
        mode = WriteAudit(collect)
        with mode:
            opt.step(closure)
        assert mode.errors == []
        assert "dot" in [name for name, _ in mode.ops]
    assert any(not np.array_equal(a, p._data) for a, p in zip(before, model.parameters()))
