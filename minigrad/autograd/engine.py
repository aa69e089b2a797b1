"""The backward engine: ``backward`` and ``grad`` (``torch.autograd.backward`` / ``.grad``).

Iterative: the graph reachable from the roots is discovered with an explicit stack, dependency
counts are taken, and nodes run from a ready queue ordered like PyTorch's CPU engine (most recently
created node first; gradient accumulators as soon as they are ready). Gradients arriving at one
node input from several consumers are summed with the dispatched ``add`` op, in arrival order.

Centrally, for every gradient a node returns (PyTorch's ``validate_outputs``): a gradient whose
shape is broadcast-expanded relative to the input is summed back with ``sum_to_size``, and one
whose dtype differs is cast to the input's dtype; so ops need not unbroadcast or cast themselves.
"""
from __future__ import annotations

import heapq
import itertools
import sys
import threading
import weakref

import numpy as np

from .. import _widening
from .._global_flags import warn_once
from ..devices import depth as _device_depth
from ..dispatch import OPERATOR2, dispatch, use_operator2
from ..tensor import Tensor
from .anomaly_mode import _ANOMALY, _check_nan, _print_stack
from .function import AccumulateGrad, _edge
from .grad_mode import grad_enabled, set_grad_enabled_raw

__all__ = ["backward", "grad"]

# Set by minigrad.profiler while it records (``Recorder.node_range``), None otherwise: called as
# ``_profile_hook(node, engine_range)`` it opens the engine's range for ``node`` (True) or the
# range of the node's own backward formula (False) and returns the callable that closes it.
_profile_hook = None

# The loop's fast path for a plain node (see ``_execute``); tests switch it off to check that the
# general path gives the same results.
_FAST_PATH = True

use_operator2("add")        # the sums of gradients sent to one input (OPERATOR2["add"])


class _TaskState(threading.local):
    """The backward running in this thread (PyTorch's current ``GraphTask``): its id (-1 outside
    backward) and whether reentrant checkpointing may run in it (not under ``autograd.grad`` or
    ``backward(inputs=...)``, nor inside a backward that is so)."""

    def __init__(self):
        self.task_id = -1
        self.checkpoint_valid = True


_task = _TaskState()
_task_ids = itertools.count()


def _current_graph_task_id() -> int:
    """Mirrors ``torch._C._current_graph_task_id``: the running backward's id, -1 outside."""
    return _task.task_id


def _is_checkpoint_valid() -> bool:
    """Mirrors ``torch.autograd._is_checkpoint_valid``: False inside a backward that was given
    ``inputs`` (``autograd.grad``, ``backward(inputs=...)``), where reentrant checkpointing
    cannot run."""
    return _task.checkpoint_valid


def _as_tuple(x):
    """A tensor, or any iterable of them (a list, a generator such as ``model.parameters()``),
    as a tuple (PyTorch's ``_tensor_or_tensors_to_tuple``)."""
    if x is None:
        return ()
    if isinstance(x, tuple):
        return x
    if isinstance(x, Tensor) or not hasattr(x, "__iter__"):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grads):
    grads = _as_tuple(grads) if grads is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad_tensors/grad_outputs has length {len(grads)} but outputs has "
                           f"length {len(outputs)}")
    res = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out._requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                g = dispatch("ones_like", out)
        elif not isinstance(g, Tensor):
            g = dispatch("full", out.shape, g, dtype=out.dtype, device=out._device)
        elif g.shape != out.shape:
            # PyTorch's text, shapes as Size reprs; PyTorch finds the index with list.index(),
            # which for a mismatch past the first pair raises "Boolean value of Tensor with
            # more than one value is ambiguous" instead: here the index is the pair's own
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} "
                               f"and output[{i}] has a shape of {out.shape}.")
        res.append(g)
    return res


def _root_edge(t, i):
    if not t._requires_grad:
        raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                           "grad_fn")
    return _edge(t)


#: backward(create_graph=True)'s reference-cycle warning was given (once per process, as torch)
_CYCLE_WARNED = [False]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad`` (``torch.autograd.backward``).

    Args:
        tensors: a Tensor or sequence of Tensors to differentiate.
        grad_tensors: matching gradients (None allowed for scalar outputs: ones).
        retain_graph: keep saved tensors for another backward; defaults to ``create_graph``.
        create_graph: record the backward itself (higher-order gradients); warns once per
            process, as PyTorch, that ``.grad`` and its graph then form a reference cycle.
        inputs: accumulate only into these leaves (or non-leaves' ``.grad``).

    Raises:
        RuntimeError: non-scalar output without a gradient ("grad can be implicitly created only
            for scalar outputs"), an output that does not require grad, a graph already freed, a
            saved tensor modified in place, a shape mismatch in the given gradients.
    """
    outs = _as_tuple(tensors)
    grads = _make_grads(outs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and warn_once(_CYCLE_WARNED):     # PyTorch's TORCH_WARN_ONCE in its engine
        import warnings
        warnings.warn("Using backward() with create_graph=True will create a reference cycle "
                      "between the parameter and its gradient which can cause a memory leak. We "
                      "recommend using autograd.grad when creating the graph to avoid this. If "
                      "you have to use this function, make sure to reset the .grad fields of "
                      "your parameters to None after use to break the cycle and avoid the leak.",
                      UserWarning, stacklevel=3)
    inputs = _as_tuple(inputs)
    if inputs:
        for t in inputs:
            if not t._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
    got = _execute(outs, grads, retain_graph, create_graph, inputs, capture=False)
    for t, g in zip(inputs, got):          # non-leaf inputs: accumulate into their .grad
        if t.grad_fn is not None and g is not None:
            _accumulate_leaf(t, g, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching ``.grad`` (``torch.autograd.grad``).

    Returns:
        a tuple with one Tensor (or None when unused and ``allow_unused``) per input.

    Raises:
        RuntimeError: an input that does not require grad ("One of the differentiated Tensors does
            not require grad"), or is not used in the graph and ``allow_unused`` is False
            ("The differentiated Tensor at index i appears to not have been used in the graph.
            ..."); plus ``backward``'s errors.
    """
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported by minigrad")
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = _make_grads(outs, grad_outputs)        # checked first, as PyTorch
    for t in ins:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    res = _execute(outs, grads, retain_graph, create_graph, ins, capture=True)
    final = []
    for i, (t, g) in enumerate(zip(ins, res)):
        if g is None:
            if materialize_grads:
                g = dispatch("zeros_like", t)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        final.append(g)
    return tuple(final)


def _key_of(t):
    return _edge(t)


def _execute(outs, grads, retain_graph, create_graph, inputs, capture):
    roots = [_root_edge(t, i) for i, t in enumerate(outs)]
    # 1. discover the graph and count dependencies (iterative DFS)
    deps = {}       # node -> how many edges lead to it; a node is in it once reached
    stack = []
    for n, _ in roots:
        if n is not None and n not in deps:
            deps[n] = 0     # a root: counted from 0, and visited once (it is on the stack)
            stack.append(n)
    while stack:
        n = stack.pop()
        while n is not None:
            nn = None       # a first-reached input visited next without the stack (a chain's)
            for nx, _ in n.next_functions:
                if nx is None:
                    continue
                if nx in deps:
                    deps[nx] += 1
                else:                   # reached for the first time: visit its inputs (once)
                    deps[nx] = 1
                    if nn is None:
                        nn = nx
                    else:
                        stack.append(nx)
            n = nn
    # capture targets: (node, output_nr) -> input index
    targets = {}
    needed = None
    if inputs:
        for i, t in enumerate(inputs):
            targets[_key_of(t)] = i
        needed = _needed_nodes(deps, {n for n, _ in targets})
    captured = [None] * len(inputs)
    # no gradient to capture, no node to skip: the loop's fast path may run
    plain = not inputs and _FAST_PATH
    buffers = {}
    prev = grad_enabled()
    set_grad_enabled_raw(create_graph)
    _device_depth.n += 1        # backward formulas follow their inputs' device, unchecked
    task = _task
    prev_task, prev_valid = task.task_id, task.checkpoint_valid
    task.task_id = next(_task_ids)
    task.checkpoint_valid = prev_valid and not inputs
    try:
        for (n, nr), g in zip(roots, grads):
            if n is not None:
                _accumulate(buffers, n, nr, g)
        heap = []
        push, pop = heapq.heappush, heapq.heappop
        for n, _ in roots:
            if n is not None and deps.get(n, 0) == 0 and n in buffers and \
                    not (heap and any(n is h[2] for h in heap)):
                push(heap, (-n._seq, id(n), n))
        # ``nxt``: a node that became ready while no other was (a chain's next node); it runs
        # next without going through the heap, which would give it back first anyway
        nxt = None
        while heap or nxt is not None:
            if nxt is not None and not heap:
                node = nxt
            else:
                if nxt is not None:
                    push(heap, (-nxt._seq, id(nxt), nxt))
                node = pop(heap)[2]
            nxt = None
            buf = buffers.pop(node)
            if needed is not None and node not in needed:
                # PyTorch's exec_info: a node that leads to none of the inputs does not run
                _skip(node, deps, buffers, heap)
                continue
            # the profiler's range "autograd::engine::evaluate_function: <name>" (one global
            # read when no profiler records)
            close = _profile_hook and _profile_hook(node, True)
            try:
                if plain and close is None and type(node) is not AccumulateGrad and \
                        len(buf) == 1 and buf[0] is not None and not _ANOMALY[0] and \
                        not (node._pre_hooks or node._retain_grad_hooks or node._hooks):
                    # the common case: a one-output node without hooks, no ``inputs``, no
                    # profiler, no anomaly mode, a gradient present: what ``_call_node`` does
                    # then, inline
                    try:
                        in_grads = node._run_backward(buf[0])     # backward(node, grad)
                    finally:
                        if not retain_graph and node._saved is not None:
                            node._release()
                    if type(in_grads) is not tuple or node._edge_args is not None or \
                            len(in_grads) != len(node.next_functions):
                        in_grads = _edge_grads(node, in_grads)
                else:
                    is_acc = type(node) is AccumulateGrad
                    if targets:
                        # tensor hooks run before a gradient is captured (as PyTorch's engine)
                        if is_acc:
                            v = node.variable
                            if capture and v._hooks and buf[0] is not None:
                                buf[0] = _run_tensor_hooks(v._hooks, buf[0])
                        elif node._pre_hooks or node._retain_grad_hooks:
                            buf = _tensor_pre_hooks(node, buf)
                        for nr, g in enumerate(buf):
                            k = (node, nr)
                            if k in targets and g is not None:
                                idx = targets[k]
                                captured[idx] = g if captured[idx] is None else \
                                    dispatch("add", captured[idx], g)
                    if is_acc:
                        g = buf[0]
                        buf = None
                        if g is not None and not capture and \
                                (not inputs or (node, 0) in targets) and \
                                node.variable._requires_grad:   # PyTorch skips a leaf turned off
                            _accumulate_leaf(node.variable, g, create_graph, node)
                        g = None
                        continue
                    if not targets and (node._pre_hooks or node._retain_grad_hooks):
                        buf = _tensor_pre_hooks(node, buf)
                    in_grads = _call_node(node, buf, retain_graph)
                metas = node._input_meta
                # the gradient last found to fit ``ok_meta`` as it is: add's ``(grad, grad)``
                # (one gradient object, one metadata object) is checked once
                ok = ok_meta = None
                i = -1
                for nx, nr in node.next_functions:
                    i += 1
                    if nx is None:
                        continue
                    g = in_grads[i]
                    if g is not None:
                        meta = metas[i]
                        if g is not ok or meta is not ok_meta:
                            if type(g) is not Tensor or g._data.shape != meta[0] or \
                                    g.dtype is not meta[1]:
                                g = _validate(node, i, g, meta)
                            else:
                                ok, ok_meta = g, meta
                        # (``in`` and ``[]`` rather than ``dict.get``: no method call)
                        if nx not in buffers:
                            nout = nx._num_outputs
                            if nout == 1 and nr == 0:     # (most nodes) the buffer built whole
                                buffers[nx] = [g]
                            else:
                                b = buffers[nx] = [None] * (nout if nout > nr else nr + 1)
                                b[nr] = g
                        else:
                            b = buffers[nx]
                            old = b[nr]
                            b[nr] = g if old is None else OPERATOR2["add"](old, g)
                    d = deps[nx] - 1
                    deps[nx] = d
                    if d == 0:
                        if g is None and nx not in buffers:    # (a gradient sent: it is)
                            _drop_unreached(nx, deps, buffers, heap, retain_graph)
                        elif nxt is None and not heap:
                            nxt = nx
                        else:
                            push(heap, (-nx._seq, id(nx), nx))
                # drop references, so _accumulate_leaf sees sole ownership
                in_grads = g = b = ok = None
            finally:
                if close is not None:
                    close()
    finally:
        set_grad_enabled_raw(prev)
        _device_depth.n -= 1
        task.task_id, task.checkpoint_valid = prev_task, prev_valid
    return captured


def _needed_nodes(seen, target_nodes):
    """The nodes (of ``seen``, every node reached) from which some target node can be
    reached (PyTorch's ``exec_info``)."""
    parents = {}
    for n in seen:
        for nx, _ in n.next_functions:
            if nx is not None:
                parents.setdefault(nx, []).append(n)
    needed = set()
    stack = [n for n in target_nodes if n in seen]
    while stack:
        n = stack.pop()
        if n in needed:
            continue
        needed.add(n)
        stack.extend(parents.get(n, ()))
    return needed


def _skip(node, deps, buffers, heap):
    """Count ``node`` as done without running (or freeing) it: its inputs may still be ready
    through other consumers."""
    _drop_unreached(node, deps, buffers, heap, retain_graph=True)


def _drop_unreached(node, deps, buffers, heap, retain_graph):
    """A node whose every consumer sent no gradient: propagate 'nothing' to its inputs."""
    stack = [node]
    while stack:
        n = stack.pop()
        if not retain_graph:
            n._release()
        for nx, _ in n.next_functions:
            if nx is None:
                continue
            deps[nx] -= 1
            if deps[nx] == 0:
                if nx in buffers:
                    heapq.heappush(heap, (-nx._seq, id(nx), nx))
                else:
                    stack.append(nx)


def _accumulate(buffers, node, nr, g):
    buf = buffers.get(node)
    if buf is None:
        nout = node._num_outputs
        buf = buffers[node] = [None] * (nout if nout > nr else nr + 1)
    old = buf[nr]
    buf[nr] = g if old is None else dispatch("add", old, g)


def _run_tensor_hooks(hooks, g):
    for fn in list(hooks):
        r = fn(g)
        if r is not None:
            g = _check_hook_result(fn, g, r)
    return g


def _tensor_pre_hooks(node, buf):
    """Tensor hooks (``register_hook`` on a non-leaf, stored as ``(output_nr, fn)``) and node
    pre-hooks, then ``retain_grad``'s, in PyTorch's order; returns the (new) buffer."""
    if node._pre_hooks:
        for h in list(node._pre_hooks):
            if isinstance(h, tuple):
                nr, fn = h
                if buf[nr] is not None:
                    r = fn(buf[nr])
                    if r is not None:
                        buf[nr] = _check_hook_result(fn, buf[nr], r)
            else:
                r = h(tuple(buf))
                if r is not None:
                    buf = list(r)
    if node._retain_grad_hooks:        # PyTorch runs retain_grad after all other tensor hooks
        for nr, h in node._retain_grad_hooks.items():
            if buf[nr] is not None:
                h(buf[nr])
    return buf


def _call_node(node, buf, retain_graph):
    """Run ``node``'s backward on the gradients ``buf`` (pre-hooks already applied); returns
    one gradient per ``next_functions`` entry, after the node's post-hooks."""
    fn = node._function
    if (buf[0] is None if len(buf) == 1 else any([g is None for g in buf])):
        if node.materialize_grads:
            metas = node._out_meta
            for i, g in enumerate(buf):
                if g is None and i < len(metas) and metas[i] is not None:
                    shape, dt = metas[i]
                    buf[i] = dispatch("zeros", shape, dtype=dt, device=node._device)
    close = _profile_hook and _profile_hook(node, False)     # the profiler's "AddmmBackward0"
    try:
        if _ANOMALY[0]:
            res = _call_anomalous(node, fn, buf)
        elif len(buf) == 1:     # (most nodes) a plain call, cheaper than the splat in 3.11
            res = fn.backward(node, buf[0])
        else:
            res = fn.backward(node, *buf)
    finally:
        if close is not None:
            close()
        if not retain_graph and node._saved is not None:
            node._release()
    res = _edge_grads(node, res)
    if _ANOMALY[0] and _ANOMALY[1]:
        try:
            _check_nan(node, res)       # PyTorch checks before the node's post-hooks
        except RuntimeError:
            _print_stack(node)
            raise
    if node._hooks:
        for h in list(node._hooks):
            r = h(res, tuple(buf))
            if r is not None:
                r = tuple(r)
                if len(r) != len(res):
                    raise RuntimeError(f"hook '{getattr(h, '__name__', h)}' has returned an "
                                       f"incorrect number of values (got {len(r)}, but "
                                       f"expected {len(res)})")
                res = r
    return res


def _edge_grads(node, res):
    """``res`` (what ``node``'s backward returned: one gradient per forward argument) as one
    gradient per ``next_functions`` entry: a lone gradient is wrapped, surplus trailing Nones
    dropped, missing trailing ones of a built-in op added, and the gradients of arguments
    without an edge (dims, integer tensors: ``node._edge_args``) left out.

    Raises:
        RuntimeError: "function XBackward returned an incorrect number of gradients ...".
    """
    if type(res) is not tuple:
        res = (res,)
    idx = node._edge_args
    n_in = len(node.next_functions) if idx is None else node._n_args
    if len(res) != n_in:
        if len(res) > n_in and all(r is None for r in res[n_in:]):
            res = res[:n_in]
        elif len(res) < n_in and node._function.__module__.startswith("minigrad.") and \
                (idx is not None or
                 all(nx is None for nx, _ in node.next_functions[len(res):])):
            # built-in ops may omit trailing Nones for non-tensor arguments; user Functions
            # must return one gradient per forward input, as in PyTorch
            res = res + (None,) * (n_in - len(res))
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {n_in}, got {len(res)})")
    if idx is not None:
        picked = []          # a loop, not a list comprehension: cheaper in CPython 3.11
        for i in idx:
            picked.append(res[i])
        res = tuple(picked)
    return res


def _call_anomalous(node, fn, buf):
    """``fn.backward`` under anomaly mode: nodes it makes (``create_graph``) record ``node`` as
    their parent, and an error is preceded by the forward stack that made ``node``."""
    task = _task
    prev = getattr(task, "node", None)
    task.node = node
    try:
        return fn.backward(node, *buf)
    except Exception:
        _print_stack(node)
        raise
    finally:
        task.node = prev


def _validate(node, i, g, meta):
    if meta is None:
        return g
    if not isinstance(g, Tensor):
        raise TypeError(f"function {node.name()} returned a gradient of type {type(g).__name__} "
                        f"at index {i}; expected a Tensor or None")
    shape, dtype = meta
    gshape = g._data.shape
    if gshape != shape:
        if not _expandable(shape, gshape):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} "
                               f"- got {list(g.shape)} but expected shape compatible with "
                               f"{list(shape)}")
        g = dispatch("sum_to_size", g, shape)
    if g.dtype is not dtype:
        g = dispatch("_to_copy", g, dtype=dtype)
    return g


def _expandable(shape, target):
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


_STEAL = [True]


def _calibrate_steal():
    """Stealing relies on CPython's reference counts; check once, on tiny graphs, that a
    gradient shared by two leaves is copied and an exclusive one is taken. If this
    interpreter counts differently, always copy (slower, never wrong)."""
    a = Tensor._make(np.ones(3, np.float32)).requires_grad_()
    b = Tensor._make(np.ones(3, np.float32)).requires_grad_()
    dispatch("sum", dispatch("add", a, b)).backward()          # one gradient, two leaves
    _STEAL[0] = not np.shares_memory(a._grad._data, b._grad._data)


def _check_hook_result(fn, g, r):
    """A tensor hook's replacement gradient must keep the gradient's shape (as in PyTorch).

    Raises:
        TypeError: a non-Tensor result; RuntimeError: "hook 'name' has changed the size of value".
    """
    if not isinstance(r, Tensor):
        raise TypeError(f"hook '{getattr(fn, '__name__', fn)}' returned a "
                        f"{type(r).__name__}; expected a Tensor or None")
    if r._data.shape != g._data.shape:
        raise RuntimeError(f"hook '{getattr(fn, '__name__', fn)}' has changed the size of value")
    if r.dtype is not g.dtype:
        from ..dtypes import legacy_type_name
        raise RuntimeError(f"hook '{getattr(fn, '__name__', fn)}' has changed the type of value "
                           f"(was {legacy_type_name(g.dtype)} got {legacy_type_name(r.dtype)})")
    return r


def _sole_owner(g):
    """True when nothing but the engine references ``g`` and its array: no other buffer, edge,
    hook, user variable or NumPy view, so ``.grad`` may take the buffer without a copy."""
    a = g._data
    # references: g in the engine's loop, in _accumulate_leaf and here, plus getrefcount's own
    # argument (4); a in g._data, here, and getrefcount's argument (3)
    if type(g) is not Tensor or (g._grad_fn if g._view is None else g.grad_fn) is not None \
            or not a.flags.writeable \
            or sys.getrefcount(g) > 4 or sys.getrefcount(a) > 3:
        return False
    if a.base is None:
        return g._base is None
    # a view that is the whole of a fresh buffer (e.g. weight.t()'s gradient transposed back):
    # the buffer is held by the view and by the view's base Tensor, which only g holds: as
    # g._base, and as g._view.base when g carries view metadata (references to gb: those, the
    # local gb and getrefcount's argument)
    base = a.base
    gb = g._base
    refs = 3 if g._view is None or g._view.base is not gb else 4
    return (a.flags.c_contiguous and base.base is None and base.size == a.size
            and gb is not None and gb._data is base
            and sys.getrefcount(base) <= 4 and sys.getrefcount(gb) <= refs)


def _accumulate_leaf(v, g, create_graph, node=None):
    """Accumulate ``g`` into leaf ``v``'s ``.grad`` as PyTorch's AccumulateGrad node, hooks in
    PyTorch's order: the leaf's tensor hooks (``v.register_hook``), the node's pre-hooks
    (``node.register_prehook``: ``fn((g,))``, a non-None result replaces the gradient), the
    accumulation (stealing a buffer nothing else holds), the leaf's post-accumulate-grad hooks,
    then the node's hooks (``node.register_hook``: ``fn((), (g,))``, as the node has no
    inputs)."""
    if g._device is not v._device:      # PyTorch's validate_outputs moves it to the leaf's device
        g = dispatch("_to_copy", g, device=v._device)
    if v._hooks:
        g = _run_tensor_hooks(v._hooks, g)
    if node is not None and node._pre_hooks:
        for h in list(node._pre_hooks):
            r = h((g,))
            if r is not None:
                g = _check_hook_result(h, g, r[0])
            r = None
    if v._grad is None:
        if create_graph:
            v.grad = g
        elif _STEAL[0] and _sole_owner(g):  # steal the buffer, as PyTorch's AccumulateGrad does
            if _widening._entries:          # a .grad keeps no widening image (minigrad/_widening.py)
                _widening.forget(g._data)
            v.grad = g if g._base is None else g.data
        else:
            v.grad = g._detached_copy()
    elif create_graph:
        v.grad = dispatch("add", v._grad, g)
    else:
        v._grad.add_(g)
    if v._post_acc_hooks:
        for fn in list(v._post_acc_hooks):
            fn(v)
    if node is not None and node._hooks:
        for h in list(node._hooks):
            h((), (g,))


def register_retain_grad(t):
    """Make non-leaf ``t`` keep its gradient in ``t.grad`` (``Tensor.retain_grad``)."""
    ref = weakref.ref(t)

    def hook(g):
        tt = ref()
        if tt is not None:
            if tt._grad is None:
                tt.grad = g._detached_copy()
            else:
                tt.grad = dispatch("add", tt._grad, g).detach()
        return None
    return hook
