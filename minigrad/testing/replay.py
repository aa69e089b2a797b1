"""Op-level tracing, and replaying one program in minigrad and in PyTorch to find the first op
where the two part (``minigrad.testing.compare_with_torch``).

``TraceMode`` is a dispatch mode that records every op minigrad runs: its name, the input dtypes,
shapes and devices, the output dtypes and shapes, how deep it was nested in another op (a
composite such as ``linear`` runs ``t`` and ``addmm`` inside it), the phase (forward, backward,
step) and, with ``values=True``, a copy of each output.

``compare_with_torch(fn, *inputs)`` runs ``fn`` on minigrad copies and on PyTorch copies of the
inputs (same bits; modules from ``minigrad.nn`` become their ``torch.nn`` twins with the same
weights), traces both (PyTorch's side with a ``TorchDispatchMode``, which sees ATen's ops, so
the names are the same), optionally runs the backward of the result, lines the two op sequences
up (``_align``: phase run by phase run in call order, ops by name and result dtypes and shapes,
reordered independent ops paired with a nearby twin), and measures each pair of outputs in the output's own format: ULP distance, and the
max absolute and relative error. The first pair beyond the numerics contract is the first
divergence; the report names it with its inputs and a one-line repro.

The numerics contract used by default: 16-bit outputs bit-exact (minigrad's 16-bit kernels
reproduce PyTorch's) but for matrix products (``_GEMMS``: 1 ULP, or the absolute bound below;
PyTorch's CPU 16-bit gemm does not always round once), fp32/fp64 outputs within 4 ULPs or an absolute error of 4 eps times the
largest reference magnitude (summation order differs between NumPy's BLAS and PyTorch's);
integer and bool outputs equal. ``ulp=`` overrides the bound (one number, or a dict per dtype
name).

Same-input replay: each op's output is first compared as the two programs computed it, so an
op deep in a graph sees the (contract-sized) differences of the ops before it and may cross the
bound without being wrong itself (an fp32 ``pow`` multiplies its input's relative error by the
exponent). A pair beyond the contract is therefore replayed: PyTorch's op runs again on
*minigrad's own inputs* to that op (copied when the op was called), and when that result is
within the contract the row is marked inherited (ok, with the replay's ULP distance in its note).
The first divergence is the first op that also departs on the same inputs. ``replay=False``
turns this off. Repeated same-shaped ops (an RNN's cells) can pair up wrongly, which the report
repairs when another twin matches (``_repair``). An optimizer step is also judged by the
parameters it leaves.

Deliberate differences: PyTorch's CUDA side is used only when a GPU is present; otherwise a
``device="cuda"`` comparison runs PyTorch on its CPU (with autocast's cpu table, noted in the
report). Our composites that PyTorch decomposes before its dispatcher (``linear``, ``dropout``...)
have no PyTorch twin and are shown as unmatched rows, not errors.
"""
from __future__ import annotations

import copy
import difflib
import inspect

import ml_dtypes
import numpy as np

from .. import dtypes as _dt
from ..dispatch import DispatchMode, flat_tensors
from ..tensor import Tensor
from .bridge import _module_to_torch, from_torch, to_torch
from .compare import ulp_distance

__all__ = ["TraceMode", "OpRecord", "Comparison", "compare_with_torch", "Twin"]


class OpRecord:
    """One op call seen by a trace.

    Attributes:
        index: position in the trace (call order).
        name: the op's name as registered (PyTorch's, with the overload: ``"div.Tensor"``).
        base: the name without its overload (``"div"``), used to match the two frameworks.
        depth: 0 for an op called by the program, n for one run inside another op.
        phase: ``"forward"``, ``"backward"`` or ``"step"``.
        inputs: ``(dtype name, shape, device)`` per tensor argument.
        outputs: ``(dtype name, shape)`` per tensor result.
        values: copies of the results' arrays (in their own format), when recorded.
        args: the arguments (for a repro), when values are recorded.
        attrs: the non-tensor arguments: ``(positional, keyword)``, tensors left out (a
            positional tensor's place holds None).
        autocast: the autocast decision when an autocast region acted on the op: ``(category,
            casts)``, the category's name (``"lower_precision_fp"``, ``"fp32"``...) and per
            cast ``(argument, from dtype, to dtype)``; None when autocast left it alone.
        in_values: copies of the tensor arguments' arrays taken before the op ran (minigrad's
            side, when values are recorded): the inputs of a same-input replay.
        func: the ATen op (PyTorch's side): what a same-input replay runs (its name, e.g.
            ``"add.Tensor"``, once pickled), with ``skeleton``: the arguments with each tensor
            replaced by a placeholder.
    """

    __slots__ = ("index", "name", "base", "depth", "phase", "inputs", "outputs", "values",
                 "args", "scale", "in_values", "func", "skeleton", "attrs", "autocast")

    def __init__(self, index, name, depth, phase, inputs):
        self.index, self.name, self.depth, self.phase = index, name, depth, phase
        self.base = name.split(".")[0]
        self.inputs = inputs
        self.outputs, self.values, self.args = [], [], None
        self.scale = None           # the inputs' magnitude (``_input_scale``), once computed
        self.in_values = self.func = self.skeleton = None
        self.attrs = self.autocast = None

    def __getstate__(self):
        state = {k: getattr(self, k) for k in self.__slots__ if k not in ("args", "func")}
        if self.func is not None:       # the ATen op by name; the arguments as their skeleton
            state["func"] = self.name
            if self.skeleton is None and self.args is not None:
                state["skeleton"] = _skeleton(self.args)
        return state

    def __setstate__(self, state):
        self.args = self.func = self.skeleton = self.attrs = self.autocast = None
        for k, v in state.items():
            setattr(self, k, v)

    def __repr__(self):
        ins = ", ".join(f"{d}{list(s)}" for d, s, _ in self.inputs)
        outs = ", ".join(f"{d}{list(s)}" for d, s in self.outputs)
        amp = "" if self.autocast is None else \
            f" [autocast {self.autocast[0]}, {len(self.autocast[1])} cast(s)]"
        return f"<{self.phase} {'  ' * self.depth}{self.name}({ins}) -> {outs}{amp}>"


_tensors = flat_tensors


def _autocast_state():
    """amp_emu's autocast state (where regions leave their decisions), or None without
    amp_emu."""
    import importlib
    try:        # (the module: ``amp_emu.autocast`` the attribute is the context manager)
        return importlib.import_module("amp_emu.autocast")._state
    except ImportError:
        return None


class TraceMode(DispatchMode):
    """Record every dispatched op (see the module docstring); a context manager.

    Args:
        values: also copy each output's array (and keep the arguments) for comparison.
        auto_phase: tell the phase by itself: "backward" while the autograd engine runs,
            "step" inside ``Optimizer.step``, "forward" otherwise (instead of ``phase``).
        max_ops: stop recording after this many ops (None: no limit).

    Attributes:
        records: the ``OpRecord`` list, in call order.
        phase: the phase new records get; set it (``"backward"``, ``"step"``) between phases.
    """

    def __init__(self, values: bool = False, auto_phase: bool = False, max_ops=None):
        self._amp = None
        self.values = values
        self.records = []
        self.phase = "forward"
        self._depth = 0
        self.auto_phase = auto_phase
        self.max_ops = max_ops
        self._in_step = 0

    def _observe(self, name, entering):
        if name.startswith("Optimizer.step#"):
            self._in_step += 1 if entering else -1

    def __enter__(self):
        if self.auto_phase:
            from ..profiler.record_function import observers
            observers.append(self._observe)
        self._amp = _autocast_state()
        if self._amp is not None:
            self._amp.watchers += 1
        return super().__enter__()

    def __exit__(self, *exc):
        if self.auto_phase:
            from ..profiler.record_function import observers
            observers.remove(self._observe)
        if self._amp is not None:
            self._amp.watchers -= 1
        return super().__exit__(*exc)

    def _current_phase(self):
        if not self.auto_phase:
            return self.phase
        if self._in_step:
            return "step"
        from ..autograd.engine import _current_graph_task_id
        return "backward" if _current_graph_task_id() != -1 else "forward"

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        if self.max_ops is not None and len(self.records) >= self.max_ops:
            return call_next(args, kwargs)
        ins = [(t.dtype.name, tuple(t.shape), t.device.type) for t in _tensors(args)]
        rec = OpRecord(len(self.records), op_name, self._depth, self._current_phase(), ins)
        self.records.append(rec)
        rec.attrs = (tuple(None if _tensors([a]) else a for a in args),
                     {k: v for k, v in kwargs.items() if not _tensors([v])})
        amp = self._amp
        if amp is not None and amp.decision is not None and amp.decision[0] == op_name:
            # a region inside this trace has just decided on this op
            rec.autocast = (amp.decision[1].value, amp.decision[2])
            amp.decision = None
        if self.values:
            rec.args = (args, dict(kwargs))
            rec.in_values = [(t.dtype.name, np.array(t._data, copy=True))
                             for t in _tensors(args)]
        self._depth += 1
        try:
            out = call_next(args, kwargs)
        finally:
            self._depth -= 1
        if amp is not None and rec.autocast is None and amp.decision is not None \
                and amp.decision[0] == op_name:     # a region outside this trace decided
            rec.autocast = (amp.decision[1].value, amp.decision[2])
            amp.decision = None
        if out is None and op_name.endswith("_") and args:
            out = args[0]           # an in-place op (``_foreach_add_``): its results are self
        for t in _tensors(out if isinstance(out, (list, tuple)) else [out]):
            rec.outputs.append((t.dtype.name, tuple(t.shape)))
            if self.values:
                rec.values.append(np.array(t._data, copy=True))
        return out


# ------------------------------------------------------------------------------ PyTorch's side

def _torch_trace_mode(records, phase_box, auto_phase=False, max_ops=None, keep_args=True):
    """PyTorch's side of a trace: a ``TorchDispatchMode`` filling ``records`` (``OpRecord``s);
    the phase is ``phase_box[0]``, or found as ``TraceMode``'s ``auto_phase`` does (the
    engine's graph task, global optimizer step hooks)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    in_step = [0]
    if auto_phase:
        from torch.optim.optimizer import (register_optimizer_step_post_hook,
                                           register_optimizer_step_pre_hook)
        register_optimizer_step_pre_hook(lambda *a: in_step.__setitem__(0, in_step[0] + 1))
        register_optimizer_step_post_hook(lambda *a: in_step.__setitem__(0, in_step[0] - 1))

    def phase():
        if not auto_phase:
            return phase_box[0]
        if in_step[0]:
            return "step"
        return "backward" if torch._C._current_graph_task_id() != -1 else "forward"

    class _Trace(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if max_ops is not None and len(records) >= max_ops:
                return func(*args, **kwargs)
            flat = [a for a in torch.utils._pytree.tree_leaves((args, kwargs))
                    if isinstance(a, torch.Tensor)]
            ins = [(str(t.dtype).split(".")[1], tuple(t.shape), t.device.type) for t in flat]
            name = func.overloadpacket.__name__
            overload = func._overloadname
            if name.startswith("_record_function"):     # the profiler's ranges, not ops
                return func(*args, **kwargs)
            rec = OpRecord(len(records), name if overload == "default" else
                           f"{name}.{overload}", 0, phase(), ins)
            records.append(rec)
            out = func(*args, **kwargs)
            res = out if isinstance(out, (list, tuple)) else [out]
            for t in res:
                if isinstance(t, torch.Tensor):
                    rec.outputs.append((str(t.dtype).split(".")[1], tuple(t.shape)))
                    rec.values.append(from_torch(t.detach())._data.copy()
                                      if t.dtype in _TORCH_OK else None)
            rec.args = (args, kwargs)
            rec.func = func
            if not keep_args:
                rec.skeleton = _skeleton(rec.args)                   # for pickling: keep only their magnitude
                rec.scale = _input_scale(rec)
                rec.args = None
            return out

    return _Trace()


_TORCH_OK = set()


def _torch_ok_dtypes():
    import torch
    if not _TORCH_OK:
        _TORCH_OK.update({torch.float16, torch.bfloat16, torch.float32, torch.float64,
                          torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
                          torch.bool})


class Twin:
    """A module of your own and its PyTorch twin, as one input of ``compare_with_torch``:
    ``Twin(MyNet(), TorchMyNet())``. Each side runs a copy of its own module; the PyTorch copy
    gets the minigrad module's weights by ``state_dict`` names first (``to_torch(into=)``),
    so the two start from the same bits. (A ``minigrad.nn`` module tree needs no Twin: its
    ``torch.nn`` twin is built.)"""

    def __init__(self, module, torch_module):
        self.module, self.torch_module = module, torch_module


def _convert(x, to):
    from ..nn import Module
    if isinstance(x, Twin):
        if to == "torch":
            return to_torch(x.module, into=copy.deepcopy(x.torch_module))
        return copy.deepcopy(x.module)
    if isinstance(x, Tensor):
        return to_torch(x) if to == "torch" else _copy(x)
    if isinstance(x, Module):       # a copy: the program's step must not change the input
        return _module_to_torch(x) if to == "torch" else copy.deepcopy(x)
    if isinstance(x, np.ndarray):
        from ..ops.factory import tensor
        return _convert(tensor(x), to)
    if isinstance(x, (list, tuple)):
        return type(x)(_convert(v, to) for v in x)
    if type(x).__module__.startswith("torch") and hasattr(x, "detach"):
        return x.detach().clone().requires_grad_(x.requires_grad) if to == "torch" else \
            from_torch(x)
    return x


def _params(lib, xs):
    ps = []
    for x in xs:
        if isinstance(x, lib.nn.Module):
            ps.extend(x.parameters())
    for x in xs:
        if isinstance(x, lib.Tensor) and x.requires_grad and x.grad_fn is None:
            ps.append(x)
    return ps


def _copy(t):
    c = t.detach().clone()
    c.requires_grad_(t.requires_grad)
    return c


# ------------------------------------------------------------------------------ comparison

class Row:
    """One line of the comparison: our op record and PyTorch's (either may be None)."""

    __slots__ = ("ours", "theirs", "max_ulp", "max_abs", "max_rel", "ok", "note", "replay_ulp")

    def __init__(self, ours, theirs):
        self.ours, self.theirs = ours, theirs
        self.max_ulp = self.max_abs = self.max_rel = self.replay_ulp = None
        self.ok, self.note = True, ""

    def phase_of(self):
        """The phase of the op on either side."""
        return (self.ours or self.theirs).phase


def _bound(dtype_name, ulp):
    if isinstance(ulp, dict):
        return ulp.get(dtype_name, _DEFAULT_ULP.get(dtype_name, 0))
    if ulp is not None:
        return ulp
    return _DEFAULT_ULP.get(dtype_name, 0)


_DEFAULT_ULP = {"float16": 0, "bfloat16": 0, "float32": 4, "float64": 4}

# 16-bit matrix products: the contract is fp32 accumulation and one rounding within a stated
# bound, not bit-exactness (PyTorch 2.13's CPU fp16/bf16 gemm blocks its accumulation and
# departs from one rounding in ~0.05% of outputs, by an ulp or, near cancellation, a few)
_GEMMS = {"mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "mv", "addmv", "dot"}
_GEMM_16BIT_ULP = 1


# ops whose results hold no defined values (uninitialised memory): compared by dtype and shape
_UNDEFINED = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}


def _measure(row, ulp, abs_factor):
    a, b = row.ours, row.theirs
    if [d for d, _ in a.outputs] != [d for d, _ in b.outputs]:
        row.ok, row.note = False, "dtype " + ",".join(d for d, _ in a.outputs) + " vs " + \
            ",".join(d for d, _ in b.outputs)
        return
    if [s for _, s in a.outputs] != [s for _, s in b.outputs]:
        row.ok, row.note = False, "shape"
        return
    worst_u = worst_a = worst_r = 0.0
    if a.base in _UNDEFINED:
        row.max_ulp = row.max_abs = row.max_rel = 0.0
        row.note = "values undefined"
        return
    in_scale = b.scale if b.scale is not None else _input_scale(b)
    for (dname, _), x, y in zip(a.outputs, a.values, b.values):
        if y is None or x is None or x.size == 0:
            continue
        d = _dt.as_dtype(dname)
        if not d.is_floating_point:
            bad = int(np.sum(x != y))
            if bad:
                row.ok, row.note = False, f"{bad} values differ"
            continue
        u = ulp_distance(x, y, d)
        both_nan = np.isnan(x.astype(np.float64)) & np.isnan(y.astype(np.float64))
        u = np.where(both_nan, 0.0, u)
        xf, yf = x.astype(np.float64), y.astype(np.float64)
        with np.errstate(all="ignore"):
            err = np.where(both_nan | (xf == yf), 0.0, np.abs(xf - yf))
            rel = err / np.maximum(np.abs(yf), np.finfo(np.float64).tiny)
        mu = float(np.nanmax(np.where(np.isnan(u), np.inf, u)))
        ma = float(np.max(err)) if err.size else 0.0
        worst_u, worst_a = max(worst_u, mu), max(worst_a, ma)
        worst_r = max(worst_r, float(np.max(rel)) if rel.size else 0.0)
        bound = _bound(dname, ulp)
        if ulp is None and d.itemsize == 2 and a.base in _GEMMS:
            bound = _GEMM_16BIT_ULP     # (and the absolute tolerance below, as for fp32)
        tol = abs_factor * float(ml_dtypes.finfo(d.np).eps) * max(_magnitude(yf), in_scale) \
            if bound else 0.0
        over = (u > bound) & ~(err <= tol)
        if over.any():
            row.ok = False
            row.note = f"{int(over.sum())} of {over.size} beyond {bound} ulp"
    row.max_ulp, row.max_abs, row.max_rel = worst_u, worst_a, worst_r


def _magnitude(arr) -> float:
    arr = arr[np.isfinite(arr)]
    return float(np.max(np.abs(arr))) if arr.size else 0.0


def _input_scale(rec) -> float:
    """How large the op's results may be before cancellation: the largest input magnitude, or
    the product of the two largest for a product of tensors (an absolute error of a few eps
    times it is rounding, not a divergence, for outputs that cancel to near zero)."""
    import torch
    mags = []
    if rec.args is None:
        return 0.0
    n_in = 0
    sizes = []
    for a in torch.utils._pytree.tree_leaves(rec.args):
        if isinstance(a, torch.Tensor) and a.dtype.is_floating_point and a.numel():
            mags.append(_magnitude(a.detach().to(torch.float64).cpu().numpy()))
            n_in += a.numel()
            sizes.append(a.numel())
    mags.sort(reverse=True)
    if not mags:
        return 0.0
    product = len(mags) > 1 and rec.base in _PRODUCTS
    scale = mags[0] * mags[1] if product else mags[0]
    # a reduction or a product adds many terms per result: its rounding error grows with them
    n_out = max(1, sum(int(np.prod(s)) for _, s in rec.outputs))
    if product:
        # terms per output of A @ B: sqrt(|A| |B| / |out|) is K for mm / mv / dot (M K * K N /
        # M N = K^2) with the two largest operands (an addmm's bias is the smallest)
        sizes.sort(reverse=True)
        return scale * max(1.0, float(np.sqrt(sizes[0] * sizes[1] / n_out)), n_in / n_out)
    return scale * max(1.0, n_in / n_out)


_PRODUCTS = {"mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "mv", "dot", "addmv",
             "convolution", "convolution_backward", "_softmax_backward_data",
             "_log_softmax_backward_data", "mul"}


class Comparison:
    """The result of ``compare_with_torch``: ``rows`` (matched and unmatched op pairs, in our
    order), ``first`` (the first matched row beyond the contract, or None), ``ours`` and
    ``theirs`` (the two traces); ``str()`` is the printed table."""

    def __init__(self, rows, ours, theirs, note=""):
        self.rows, self.ours, self.theirs, self.note = rows, ours, theirs, note
        self.first = next((r for r in rows if r.ours is not None and r.theirs is not None
                           and not r.ok), None)

    @property
    def matched(self):
        """The rows with an op on both sides."""
        return [r for r in self.rows if r.ours is not None and r.theirs is not None]

    def table(self, all_rows: bool = False) -> str:
        """The table: phase, op, our dtype vs PyTorch's, max ULP, max abs/rel error, status.
        Unmatched rows (composites, ops only one side runs) only with ``all_rows``."""
        head = f"{'#':>4} {'phase':<8} {'op':<34} {'ours':<10} {'torch':<10} {'max ulp':>8} " \
               f"{'max abs':>10} {'max rel':>10}  status"
        lines = [head, "-" * len(head)]
        for i, r in enumerate(self.rows):
            a, b = r.ours, r.theirs
            if (a is None or b is None) and not all_rows:
                continue
            rec = a or b
            od = ",".join(d for d, _ in a.outputs) if a else "-"
            td = ",".join(d for d, _ in b.outputs) if b else "-"
            if a is None or b is None:
                status = "only torch" if a is None else "only minigrad"
                nums = f"{'':>8} {'':>10} {'':>10}"
            else:
                status = "DIVERGES: " + r.note if not r.ok else \
                    f"ok (inherited: {r.replay_ulp:.0f} ulp on minigrad's inputs)" \
                    if r.replay_ulp is not None else \
                    f"ok ({r.note})" if r.note.startswith("inherited") else "ok"
                nums = f"{'':>8} {'':>10} {'':>10}" if r.max_ulp is None else \
                    f"{r.max_ulp:>8.0f} {r.max_abs:>10.3g} {r.max_rel:>10.3g}"
            lines.append(f"{i:>4} {rec.phase:<8} {'  ' * (a.depth if a else 0) + rec.name:<34} "
                         f"{od[:10]:<10} {td[:10]:<10} {nums}  {status}")
        return "\n".join(lines)

    def repro(self) -> str:
        """A one-line repro of the first divergence (PyTorch's op on the recorded inputs), or
        an empty string."""
        r = self.first
        if r is None:
            return ""
        if r.theirs.func is None:       # a parameter's values after the step: no op to run
            return f"{r.ours.name}: compare the parameters after optimizer.step()"
        shapes = ", ".join(f"{d}{list(s)}" for d, s, _ in r.theirs.inputs)
        return (f"torch.ops.aten.{r.theirs.name}(*inputs)  # inputs: "
                f"{shapes}; minigrad: minigrad.dispatch.dispatch({r.ours.name!r}, *inputs)")

    def __str__(self):
        out = [self.table()]
        if self.note:
            out.append(self.note)
        if self.first is None:
            out.append(f"no divergence beyond the numerics contract in {len(self.matched)} "
                       "matched ops")
        else:
            r = self.first
            size = "" if r.max_ulp is None else \
                f"; max {r.max_ulp:.0f} ulp, abs {r.max_abs:.3g}"
            out.append(f"FIRST DIVERGENCE: {r.ours.phase} op {r.ours.name} ({r.note}{size})")
            out.append("  repro: " + self.repro())
        return "\n".join(out)


def _key(rec):
    return (rec.base, tuple(s for _, s in rec.outputs))


def _split_foreach(recs):
    """A ``_foreach_add_`` over k tensors as k ``add_`` records (PyTorch's for-loop optimizers
    run one op per tensor where minigrad's run one foreach op per chunk)."""
    out = []
    for r in recs:
        if r.base.startswith("_foreach_") and len(r.outputs) > 0:
            k = len(r.outputs)
            # the tensor arguments are k-long lists, flattened in order: the i-th op takes the
            # i-th of each (its own inputs, for a same-input replay); any other layout (a
            # shared tensor besides the lists) keeps them all, and is not replayed
            per_op = len(r.inputs) % k == 0
            for i, meta in enumerate(r.outputs):
                ins = r.inputs[i::k] if per_op else r.inputs
                sub = OpRecord(r.index, r.name[len("_foreach_"):], r.depth, r.phase, ins)
                sub.outputs = [meta]
                sub.values = [r.values[i]] if i < len(r.values) else []
                sub.args = r.args
                if per_op and r.in_values is not None:
                    sub.in_values = r.in_values[i::k]
                out.append(sub)
        else:
            out.append(r)
    return out


def _pair_by_occurrence(a, b):
    """Rows pairing the k-th record of each (op, shapes) key on both sides, in ``a``'s order
    (an optimizer step visits the parameters in the same order, its ops interleave
    differently)."""
    pools = {}
    for r in b:
        pools.setdefault(_key(r), []).append(r)
    rows, used = [], set()
    for r in a:
        pool = pools.get(_key(r))
        mate = pool.pop(0) if pool else None
        if mate is not None:
            used.add(id(mate))
        rows.append(Row(r, mate))
    rows.extend(Row(None, r) for r in b if id(r) not in used)
    return rows


def _typed_key(rec):
    """``_key`` with the results' dtypes: what lines two traces up first (autocast's casts up
    and down of one shape, a gradient's cast back to fp32 and a checkpoint's recomputed cast of
    the input to fp16, are then told apart)."""
    return (rec.base, tuple(rec.outputs))


def _runs(recs):
    """The trace cut into its phase runs: ``[(phase, [records])]``, one per stretch of
    consecutive records of one phase (forward, backward, forward again for the ops between a
    backward and the step, such as ``clip_grad_norm_`` and ``GradScaler.unscale_``...)."""
    runs = []
    for r in recs:
        if runs and runs[-1][0] == r.phase:
            runs[-1][1].append(r)
        else:
            runs.append((r.phase, [r]))
    return runs


# how far apart (in rows) two unmatched ops of one key may be for ``_pair_nearby`` to pair them
_NEARBY = 16


def _pair_nearby(rows, key):
    """Pair each unmatched op of ours with the nearest unmatched PyTorch op of the same
    ``key`` at most ``_NEARBY`` rows away, in place. Independent ops that the two frameworks
    run in another order (PyTorch's autocast casts ``linear``'s bias, weight, input in that
    order, minigrad input first; the engine then runs their backward casts in the reverse
    order) are left unmatched by the sequence alignment, one of each group matched."""
    pools = {}
    for j, r in enumerate(rows):
        if r.ours is None:
            pools.setdefault(key(r.theirs), []).append(j)
    taken = set()
    for i, r in enumerate(rows):
        if r.theirs is not None or r.ours is None:
            continue
        near = [j for j in pools.get(key(r.ours), ())
                if j not in taken and abs(j - i) <= _NEARBY]
        if near:
            j = min(near, key=lambda j: (abs(j - i), j))
            taken.add(j)
            r.theirs = rows[j].theirs
    rows[:] = [r for j, r in enumerate(rows) if j not in taken]


def _align_run(a, b):
    """Rows for one phase run of each side: difflib on ``_typed_key``, then the ops it left
    unmatched paired with a nearby op of the same typed key, then of the same ``_key`` (op and
    result shapes: a dtype divergence pairs up and shows as one)."""
    rows = []
    sm = difflib.SequenceMatcher(None, [_typed_key(r) for r in a], [_typed_key(r) for r in b],
                                 autojunk=False)
    ia = ib = 0
    for blk in sm.get_matching_blocks():
        while ia < blk.a:
            rows.append(Row(a[ia], None))
            ia += 1
        while ib < blk.b:
            rows.append(Row(None, b[ib]))
            ib += 1
        for k in range(blk.size):
            rows.append(Row(a[ia + k], b[ib + k]))
        ia, ib = blk.a + blk.size, blk.b + blk.size
    _pair_nearby(rows, _typed_key)
    _pair_nearby(rows, _key)
    return rows


def _align(ours, theirs):
    """Line the two traces up, in call order: the phase runs of each (``_runs``) are matched
    by phase (difflib on the sequence of phases), then each pair of runs op by op (forward and
    backward: ``_align_run``; the optimizer step by occurrence). The ops of a run one side
    alone has are unmatched rows."""
    ra, rb = _runs(ours), _runs(theirs)
    sm = difflib.SequenceMatcher(None, [p for p, _ in ra], [p for p, _ in rb], autojunk=False)
    rows = []
    ia = ib = 0
    for blk in sm.get_matching_blocks():
        rows.extend(Row(r, None) for _, run in ra[ia:blk.a] for r in run)
        rows.extend(Row(None, r) for _, run in rb[ib:blk.b] for r in run)
        for k in range(blk.size):
            (phase, a), (_, b) = ra[blk.a + k], rb[blk.b + k]
            if phase == "step":     # the parameters in the same order; ops interleave otherwise
                rows.extend(_pair_by_occurrence(_split_foreach(a), b))
            else:
                rows.extend(_align_run(a, b))
        ia, ib = blk.a + blk.size, blk.b + blk.size
    return rows


def compare_with_torch(fn, *inputs, autocast=None, device: str = "cpu", backward: bool = True,
                       grad=None, optimizer=None, ulp=None, abs_factor: float = 4.0,
                       seed=0, replay: bool = True) -> Comparison:
    """Run ``fn`` in minigrad and in PyTorch on the same inputs and compare op by op.

    Args:
        fn: the program. Called as ``fn(*inputs)`` with each framework's copies; if it has a
            parameter named ``torch`` it also gets the framework's module by that keyword
            (``lambda x, torch: torch.nn.functional.gelu(x)``). Tensor methods and operators
            work on both without it.
        inputs: minigrad tensors, NumPy arrays, torch tensors, ``minigrad.nn`` modules (their
            torch twin gets the same weights), ``Twin(my_module, my_torch_module)`` for a
            module class of your own, or plain values. ``requires_grad`` is kept.
        autocast: None, or the autocast dtype (``"bfloat16"``, ``"float16"``, or either
            framework's dtype object) to run ``fn`` under ``autocast(device)``.
        device: ``"cpu"`` or ``"cuda"``; minigrad's side runs on that (emulated) device;
            PyTorch's on CUDA only when it has a GPU, else on its CPU (noted in the report).
        backward: also run and compare the backward of the result (``out.backward(grad)``,
            ``grad`` defaulting to ones), when the result requires grad.
        grad: the gradient for that backward (array or tensor), default ones.
        optimizer: optional ``optimizer(params, torch) -> Optimizer``; after the backward, each
            framework builds it over its copies' parameters (the modules' parameters, then the
            leaf tensor inputs that require grad) and runs one ``step()``, traced as "step".
        ulp: the ULP bound (a number or a dict by dtype name); default: 0 for 16-bit, 4 for
            fp32/fp64 (see the module docstring).
        abs_factor: fp32/fp64 outputs also pass within ``abs_factor * eps`` times the op's
            input magnitude (times the terms per result, for reductions and products).
        seed: both frameworks' generators are seeded with it before ``fn`` runs (dropout and
            other random ops then draw the same numbers); None leaves them as they are.
        replay: replay each op beyond the contract in PyTorch on minigrad's own inputs to it,
            and mark it inherited when that agrees (see the module docstring). Random ops are
            replayed unseeded and so stay divergences.

    Returns:
        ``Comparison``: print it for the table and the first divergence.

    Raises:
        ImportError: without PyTorch. TypeError: for an input module it cannot convert.
    """
    import torch
    import minigrad
    _torch_ok_dtypes()
    from ..devices import as_device
    tdev = device
    note = ""
    if as_device(device).type == "cuda" and not torch.cuda.is_available():
        tdev = "cpu"
        note = ("note: PyTorch has no GPU here, so its side ran on the CPU" +
                (" with autocast's cpu table (minigrad used the cuda table)" if autocast else ""))
    takes_lib = "torch" in inspect.signature(fn).parameters

    def prepare(to):
        vals = [_convert(x, to) for x in inputs]
        if to == "torch":
            return [v.to(tdev) if hasattr(v, "to") and tdev != "cpu" else v for v in vals]
        if as_device(device).type == "cuda":
            return [v.to(device) if hasattr(v, "to") else v for v in vals]
        return vals

    def adtype(lib):
        if autocast is None:
            return None
        name = autocast if isinstance(autocast, str) else str(autocast).split(".")[-1]
        return getattr(lib, name)

    def run(lib, xs, mode, set_phase):
        kw = {"torch": lib} if takes_lib else {}
        dev = tdev if lib is torch else as_device(device).type
        if seed is not None:
            lib.manual_seed(seed)
        with mode:
            if autocast is not None:
                with lib.autocast(dev, dtype=adtype(lib)):
                    out = fn(*xs, **kw)
            else:
                out = fn(*xs, **kw)
            if backward and getattr(out, "requires_grad", False):
                set_phase("backward")
                if grad is None:
                    g = lib.ones_like(out)
                else:
                    g = _convert(grad, "torch" if lib is torch else "minigrad")
                    g = g.to(dev) if dev != "cpu" else g
                out.backward(g)
            if optimizer is not None:
                set_phase("step")
                optimizer(_params(lib, xs), lib).step()
        return out

    xs_ours, xs_theirs = prepare("minigrad"), prepare("torch")
    ours = TraceMode(values=True)
    run(minigrad, xs_ours, ours, lambda p: setattr(ours, "phase", p))
    theirs, box = [], ["forward"]
    run(torch, xs_theirs, _torch_trace_mode(theirs, box), lambda p: box.__setitem__(0, p))
    rows = _align(ours.records, theirs)
    for r in rows:
        if r.ours is not None and r.theirs is not None:
            _measure(r, ulp, abs_factor)
            if note and autocast and not r.ok and r.note.startswith("dtype"):
                r.ok, r.note = True, r.note + " (cuda vs cpu autocast table)"
    _repair(rows, theirs, ulp, abs_factor)
    if replay:
        replay_divergences(rows, ulp, abs_factor)
    if optimizer is not None:
        rows.extend(_final_params(xs_ours, xs_theirs, ulp, abs_factor))
        step = [r for r in rows if r.ours is not None and r.ours.phase == "step"]
        finals = [r for r in step if r.ours.name.startswith("parameter ")]
        inner = [r for r in rows if r.phase_of() == "step" and r not in finals]
        matched = [r for r in inner if r.ours is not None and r.theirs is not None]
        if finals and matched and all(r.ok for r in matched):
            # every op of the step agrees on minigrad's own inputs (some perhaps only
            # inherited): a parameter that still differs inherited it from its gradient,
            # unless an op that only one side runs departs, which no replay can tell
            for r in finals:
                if r.ok:
                    continue
                if len(matched) == len(inner):
                    r.ok, r.note = True, "inherited: every op of the step agrees on " \
                        "minigrad's own inputs"
                else:
                    r.note += "; every matched op of the step agrees on minigrad's own " \
                        "inputs (inherited, unless an op only one side runs departs)"
        if finals and all(r.ok for r in finals):
            # the step's ops are paired by occurrence; when every parameter ends up within the
            # contract, a mismatch in between is a pairing of two same-shaped ops, not a bug
            for r in step:
                if not r.ok and r.theirs is not None:
                    r.ok, r.note = True, r.note + " (paired by occurrence; parameters agree)"
    return Comparison(rows, ours.records, theirs, note)


class _Slot:
    """Where a tensor argument was, in a ``skeleton`` (picklable)."""

    def __repr__(self):
        return "<tensor>"


_SLOT = _Slot()


def _skeleton(args_kwargs):
    """``(args, kwargs)`` with every torch tensor replaced by ``_SLOT``."""
    import torch
    return torch.utils._pytree.tree_map(
        lambda v: _SLOT if isinstance(v, torch.Tensor) else v, args_kwargs)


def _replay(row, ulp, abs_factor):
    """Same-input replay of a pair beyond the contract (see the module docstring): PyTorch's
    op on minigrad's own inputs to it. Marks the row inherited (ok) when that agrees within
    the contract; records the replay's ULP distance in ``row.replay_ulp``. Rows whose inputs
    were not recorded, or do not line up with the ATen op's tensor arguments (dtype and shape,
    in order), are left as they are."""
    import torch
    from torch.utils._pytree import tree_flatten, tree_unflatten
    _torch_ok_dtypes()      # (else the replay's results hold no values, and always "agree")
    a, b = row.ours, row.theirs
    if a.in_values is None or b.func is None or (b.args is None and b.skeleton is None):
        return
    func = b.func
    if isinstance(func, str):
        packet, _, overload = func.partition(".")
        func = getattr(getattr(torch.ops.aten, packet), overload or "default", None)
        if func is None:
            return
    leaves, spec = tree_flatten(b.skeleton if b.skeleton is not None else _skeleton(b.args))
    slots = [i for i, v in enumerate(leaves) if isinstance(v, _Slot)]
    if len(slots) != len(a.in_values) or len(slots) != len(b.inputs):
        return
    for (dname, arr), (tname, tshape, _) in zip(a.in_values, b.inputs):
        if dname != tname or tuple(arr.shape) != tuple(tshape):
            return
    for i, (dname, arr), (_, _, dev) in zip(slots, a.in_values, b.inputs):
        t = to_torch(Tensor._make(np.array(arr, copy=True), _dt.as_dtype(dname)),
                     requires_grad=False)
        leaves[i] = t if dev == "cpu" else t.to(dev)
    args, kwargs = tree_unflatten(leaves, spec)
    try:
        with torch.no_grad():
            out = func(*args, **kwargs)
    except Exception:          # an op PyTorch will not run on these inputs: no verdict
        return
    trial = OpRecord(b.index, b.name, b.depth, b.phase, b.inputs)
    for t in (out if isinstance(out, (list, tuple)) else [out]):
        if isinstance(t, torch.Tensor):
            trial.outputs.append((str(t.dtype).split(".")[1], tuple(t.shape)))
            trial.values.append(from_torch(t.detach())._data.copy()
                                if t.dtype in _TORCH_OK else None)
    trial.args = (args, kwargs)
    check = Row(a, trial)
    _measure(check, ulp, abs_factor)
    row.replay_ulp = check.max_ulp
    size = "" if check.max_ulp is None else f" ({check.max_ulp:.0f} ulp)"
    if check.ok:
        row.ok = True
        row.note = f"inherited: {row.note}; on minigrad's own inputs PyTorch agrees{size}"
    else:
        row.note += f"; also on minigrad's own inputs{size}"


def replay_divergences(rows, ulp=None, abs_factor: float = 4.0):
    """Same-input replay (``_replay``) of every matched row beyond the contract, in place.
    Dtype and shape mismatches are not replayed: they are divergences whatever the inputs."""
    for r in rows:
        if r.ours is not None and r.theirs is not None and not r.ok \
                and not r.note.startswith(("dtype", "shape")):
            _replay(r, ulp, abs_factor)


def _repair(rows, theirs, ulp, abs_factor):
    """A pair beyond the contract whose op has a PyTorch twin of the same name and shapes,
    in the same phase, within the contract is a mis-pairing of repeated ops (an RNN's cells,
    attention's heads): marked ok with a note. Only a value no twin explains stays a
    divergence."""
    by_key = {}
    for r in theirs:
        by_key.setdefault((r.phase,) + _key(r), []).append(r)
    for row in rows:
        if row.ok or row.ours is None or row.theirs is None or row.note.startswith("dtype"):
            continue
        for cand in by_key.get((row.ours.phase,) + _key(row.ours), []):
            if cand is row.theirs:
                continue
            trial = Row(row.ours, cand)
            _measure(trial, ulp, abs_factor)
            if trial.ok:
                row.ok = True
                row.note += f" (another {cand.name} of these shapes matches: a mis-pairing)"
                break


def _final_params(xs_ours, xs_theirs, ulp, abs_factor):
    """One row per parameter: its values after the optimizer step, in both frameworks."""
    import torch
    import minigrad
    rows = []
    for i, (a, b) in enumerate(zip(_params(minigrad, xs_ours), _params(torch, xs_theirs))):
        name = f"parameter {i} after the step"
        ra = OpRecord(-1, name, 0, "step", [])
        rb = OpRecord(-1, name, 0, "step", [])
        ra.outputs = [(a.dtype.name, tuple(a.shape))]
        rb.outputs = [(str(b.dtype).split(".")[1], tuple(b.shape))]
        ra.values = [np.array(a.detach()._data, copy=True)]
        rb.values = [from_torch(b.detach())._data.copy()]
        rb.args = ((b.detach(),), {})
        row = Row(ra, rb)
        _measure(row, ulp, abs_factor)
        rows.append(row)
    return rows
