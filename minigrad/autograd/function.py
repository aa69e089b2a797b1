"""``Function`` and its context: user-definable differentiable ops (``torch.autograd.Function``).

A ``Function`` subclass defines ``forward(ctx, *args, **kwargs)`` and ``backward(ctx, *grads)``.
``apply`` runs ``forward`` with grad mode off and, when grad mode is on and a tensor input
requires grad, makes ``ctx`` the ``grad_fn`` of the outputs. The ctx *is* the graph node, as in
PyTorch: its class is named ``<FunctionName>Backward`` (built-in ops set ``_backward_name``, e.g.
``"AddBackward0"``), and it offers ``save_for_backward``, ``saved_tensors`` (with PyTorch's
freed-graph and in-place version checks), ``needs_input_grad``, ``mark_non_differentiable``,
``set_materialize_grads`` and ``next_functions``.
"""
from __future__ import annotations

import inspect
import itertools
import types
import warnings
import weakref

from ..devices import CPU
from ..tensor import Tensor
from .anomaly_mode import _ANOMALY, _store_stack
from .grad_mode import _INFERENCE_SEEN, grad_enabled, set_grad_enabled_raw
from .saved_tensors import (FREED_MSG, _HOOKS_ACTIVE, RawSavedTensor, SavedTensor, _HookedSaved,
                            _current_hooks, _pack_pending, _saved_attributes)

__all__ = ["Function", "FunctionCtx", "Node", "AccumulateGrad", "SavedTensor", "once_differentiable"]

_seq = itertools.count()
_saved_of = SavedTensor._of
_new = object.__new__


def _anomaly_parent():
    """The node whose backward is running in this thread (None outside backward)."""
    from .engine import _task
    return getattr(_task, "node", None)


class Node:
    """A node of the backward graph (``torch.autograd.graph.Node``).

    Attributes:
        next_functions: tuple of ``(node or None, output_nr)``, one per differentiable input.
        _input_meta: per input ``(shape, dtype)`` or None, used to validate incoming grads.
    """

    # class-level defaults keep node creation cheap (one attribute set per node)
    next_functions = ()
    _input_meta = ()
    _pre_hooks = None
    _hooks = None
    _retain_grad_hooks = None   # {output_nr: hook} for Tensor.retain_grad
    _num_outputs = 1
    _saved = None               # what backward needs (a FunctionCtx's saved tensors)
    _device = CPU               # the device its op ran on (set by minigrad.devices.place)

    def __init__(self):
        self._seq = next(_seq)      # graph nodes made by ``Function.apply`` get it when recorded

    _cpp_namespace = ""       # "torch::autograd::" for nodes PyTorch writes by hand (CopySlices)

    _metadata = None

    @property
    def metadata(self) -> dict:
        """A dict of user data kept with the node (``torch.autograd.graph.Node.metadata``);
        anomaly mode stores the forward stack under ``"traceback_"`` in it."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def name(self) -> str:
        """The node's name as PyTorch's ``Node.name()``: its class name, e.g.
        ``"MulBackward0"``, or ``"torch::autograd::CopySlices"`` for hand-written nodes."""
        return self._cpp_namespace + type(self).__name__

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs; see PyTorch."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return _RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this node runs; a non-None return replaces them."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        return _RemovableHandle(self._pre_hooks, fn)

    def _release(self):
        pass

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class _RemovableHandle:
    def __init__(self, lst, item):
        self._lst, self._item = lst, item

    def remove(self):
        try:
            self._lst.remove(self._item)
        except ValueError:
            pass


class AccumulateGrad(Node):
    """The node that accumulates a leaf's gradient into ``leaf.grad``; its ``name()`` is
    PyTorch's, ``"torch::autograd::AccumulateGrad"``."""

    _cpp_namespace = "torch::autograd::"
    _seq = 1 << 62     # run as soon as ready, like PyTorch's UINT64_MAX sequence number

    def __init__(self, variable):
        self.variable = variable
        self._input_meta = ((variable._data.shape, variable.dtype),)


class FunctionCtx(Node):
    """The context passed to ``forward``/``backward`` (and the graph node itself)."""

    _freed = False
    needs_input_grad = ()
    _non_diff = None
    _dirty = None
    materialize_grads = True
    _out_meta = ()
    _edge_args = None         # positional indices with an edge, when not all have one
    _unrecorded = False       # set by Function.apply when no node will be recorded

    def _run_backward(self, *grads):
        """``self._function.backward(self, *grads)``. A Function's node class replaces it by
        the backward function itself (see ``_backward_method``), so that the engine calls it
        as a method of the node (the node is backward's ctx), one specialised look-up instead
        of two class-attribute reads."""
        return self._function.backward(self, *grads)

    def save_for_backward(self, *tensors):
        """Save tensors (or None) for ``backward``; read them back via ``saved_tensors``.

        When no node is recorded (grad mode off, or no input requires grad) nothing is kept,
        as in PyTorch, which saves (and type-checks) only for a recorded node.

        Raises:
            TypeError: for an argument that is neither a Tensor nor None (as PyTorch).
        """
        if self._unrecorded:
            return
        saved = []          # loops, not comprehensions, on the per-op paths: cheaper in 3.11
        for t in tensors:
            if t is None:
                saved.append(None)
            elif type(t) is Tensor or isinstance(t, Tensor):
                saved.append(_saved_of(t, self))
            else:
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{len(saved)} is of type {type(t).__name__}")
        if _HOOKS_ACTIVE[0]:
            hooks = _current_hooks()
            if hooks is not None:       # packed once the outputs are recorded (_saved_outputs)
                self._saved = tuple(None if t is None else _HookedSaved(t, self, hooks)
                                    for t in tensors)
                return
        self._saved = tuple(saved)

    @property
    def saved_tensors(self):
        """The saved tensors, checked against in-place modification.

        Raises:
            RuntimeError: after the graph was freed by a backward without ``retain_graph``, or when
                a saved tensor was modified in place since it was saved.
        """
        if self._freed:
            raise RuntimeError(FREED_MSG)
        if self._saved is None:
            return ()
        out = []
        for s in self._saved:
            out.append(None if s is None else s.unpack(self))
        return tuple(out)

    @property
    def _raw_saved_tensors(self):
        """The saved tensors as ``RawSavedTensor`` objects (PyTorch's ``_raw_saved_tensors``).

        Raises:
            RuntimeError: after the graph was freed.
        """
        if self._freed:
            raise RuntimeError(FREED_MSG)
        return tuple(RawSavedTensor(self, i) for i in range(len(self._saved or ())))

    def mark_non_differentiable(self, *tensors):
        """Mark outputs that get no gradient (``requires_grad=False`` outputs)."""
        self._non_diff = set(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        """Declare inputs that ``forward`` modified in place and returns: as in PyTorch, such an
        output is the input tensor itself, now with this node as its ``grad_fn`` (and its
        version bumped), instead of a fresh alias.

        The in-place checks apply when the node is recorded (a leaf that requires grad raises
        "a leaf Variable that requires grad has been used in an in-place operation.")."""
        self._dirty = set(id(t) for t in tensors)
        if self._non_diff is None:
            self._non_diff = set()      # so that _connect's common case tests one attribute

    def set_materialize_grads(self, value: bool):
        """When False, undefined output grads reach ``backward`` as None instead of zeros."""
        self.materialize_grads = value

    def _release(self):
        if self._saved is not None:
            self._saved = None
            self._freed = True


def _backward_method(cls):
    """What ``cls``'s node class holds as ``_run_backward``: ``cls.backward``'s function when it
    is a staticmethod or a plain function (the usual case; called as a method, the node is its
    ctx), else ``FunctionCtx``'s, which looks ``backward`` up at each call."""
    bw = inspect.getattr_static(cls, "backward", None)
    if isinstance(bw, staticmethod):
        bw = bw.__func__
    return bw if isinstance(bw, types.FunctionType) else FunctionCtx._run_backward


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        base_setup = globals().get("Function")
        cls._new_style = base_setup is not None and \
            getattr(cls, "setup_context", None) is not getattr(base_setup, "setup_context", None)
        bname = ns.get("_backward_name") or (name + "Backward")
        # (``__init__``: object's, so that ``_node_cls()`` makes a bare node without a Python
        # frame; a node gets its sequence number when it is recorded)
        extra = {"_function": cls, "_run_backward": _backward_method(cls),
                 "__init__": object.__init__}
        extra.update(_saved_attributes(cls))
        if bname.startswith("torch::autograd::"):
            bname = bname[len("torch::autograd::"):]
            extra["_cpp_namespace"] = "torch::autograd::"
        cls._node_cls = type(bname, (FunctionCtx,), extra)
        if base_setup is not None and cls.apply.__func__ is not base_setup.apply.__func__:
            cls._apply2 = None      # its own apply: the dispatcher calls that one

    def __setattr__(cls, name, value):
        super().__setattr__(name, value)
        if name == "backward":      # (set after the class was made)
            cls._backward_changed()

    def __delattr__(cls, name):
        super().__delattr__(name)
        if name == "backward":
            cls._backward_changed()

    def _backward_changed(cls):
        """A new ``backward``: the node classes of ``cls`` and its subclasses run it."""
        todo = [cls]
        while todo:
            c = todo.pop()
            if "_node_cls" in c.__dict__:
                c._node_cls._run_backward = _backward_method(c)
            todo.extend(c.__subclasses__())


class Function(metaclass=_FunctionMeta):
    """Base class of differentiable ops (``torch.autograd.Function``).

    Subclass it with static ``forward(ctx, *args, **kwargs)`` returning a Tensor or a tuple of
    Tensors, and ``backward(ctx, *grad_outputs)`` returning one gradient (or None) per positional
    input of ``forward``. Call it with ``MyFn.apply(*args)``. ``forward`` runs with grad mode off;
    ``backward`` runs with grad mode on only under ``create_graph=True``.

    PyTorch 2 style is supported too: a ``forward(*args)`` without ``ctx`` plus a static
    ``setup_context(ctx, inputs, output)`` that saves what ``backward`` needs (it runs right after
    ``forward``, also with grad mode off).

    Deliberate difference: ``vmap``/``jvp`` are not supported.
    """

    _backward_name = None
    _op_name = None
    _scalar_edges = False     # binary arithmetic: a Python-number operand gets an edge
    # A built-in op's fast path (None: none), a static ``_fast(ctx, args)`` that ``apply`` tries
    # first when there are no keyword arguments. ``args`` is ``apply``'s tuple of positional
    # arguments; ``ctx`` is the node to fill as ``forward`` would (attributes, saved tensors), or
    # None when no node is recorded (grad mode off, or no input requires grad). It returns the
    # output, a fresh Tensor as ``Tensor._make`` builds it (which ``_apply2`` relies on), or None,
    # having touched nothing, for the general path (``forward``). It may
    # run NumPy code and ``Tensor._make`` only (no dispatched op): ``apply`` runs it without
    # switching grad mode off. Each one is tested against the general path (bit for bit, same
    # node): ``tests/unit/test_op_fast_paths.py``.
    _fast = None
    # True when ``_fast`` takes tensor operands of the output's shape and dtype only (add, mul:
    # no broadcasting, no promotion): ``_apply2`` then reuses the output's ``(shape, dtype)``
    # as theirs (an ndarray's ``.shape`` builds a new tuple at each read)
    _fast_same_meta = False

    def __init__(self, *args, **kwargs):
        """PyTorch's DeprecationWarning: a Function is used through its class (``apply``)."""
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        """A legacy (pre-0.4) ``MyFn()(x)`` call: PyTorch's RuntimeError."""
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """PyTorch 2 style: override (as a staticmethod) to use a ``forward`` without ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the op on ``args``: ``forward`` with grad mode off and, when grad mode is on and
        an input requires grad, the graph node (ctx) as the outputs' ``grad_fn``."""
        enabled = grad_enabled()    # off (no_grad, a backward): nothing to switch or to record
        fast = cls._fast if not kwargs else None
        if fast is not None and not enabled:
            out = fast(None, args)      # no graph: the op's fast path needs no ctx
            if out is not None:
                return out
            fast = None
        ctx = cls._node_cls()     # (no __init__: the sequence number is given when recorded)
        ctx._saved = None
        if len(args) == 2:  # (most ops) the tuple built directly, cheaper than the loop below
            a, b = args
            needs = (isinstance(a, Tensor) and (a._requires_grad or (
                a._view is not None and a._view.base._requires_grad)),
                isinstance(b, Tensor) and (b._requires_grad or (
                    b._view is not None and b._view.base._requires_grad)))
        else:
            needs = []      # a loop, not a list comprehension: cheaper in CPython 3.11
            for a in args:
                needs.append(isinstance(a, Tensor) and (a._requires_grad or (
                    a._view is not None and a._view.base._requires_grad)))
            needs = tuple(needs)
        ctx.needs_input_grad = needs
        record = enabled and True in needs
        if fast is not None:        # (grad mode on) the fast path, with a ctx when recorded
            out = fast(ctx if record else None, args)
            if out is not None:
                if not record:
                    return out
                if _INFERENCE_SEEN[0] and ctx._saved:
                    _check_no_inference(ctx._saved)
                return _connect(ctx, args, needs, out)
        if not record:
            ctx._unrecorded = True      # forward's save_for_backward keeps nothing
        if enabled:
            set_grad_enabled_raw(False)
        try:
            if cls._new_style:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            elif kwargs or not 0 < len(args) < 3:
                out = cls.forward(ctx, *args, **kwargs)
            # one or two positional arguments (most ops): a plain call, cheaper in CPython 3.11
            # than the ``*args`` splat (see ``dispatch``)
            elif len(args) == 2:
                out = cls.forward(ctx, args[0], args[1])
            else:
                out = cls.forward(ctx, args[0])
        finally:
            if enabled:
                set_grad_enabled_raw(True)
        # any result is allowed, as PyTorch's ``_wrap_outputs``: the Tensors of a Tensor or a
        # tuple get the node, other objects (an int, None, a list) are returned as they are
        if record:
            if _INFERENCE_SEEN[0] and ctx._saved:
                _check_no_inference(ctx._saved)
            return _connect(ctx, args, needs, out)
        if ctx._saved is not None:
            ctx._saved = None
        return out

    @classmethod
    def _apply2(cls, a, b):
        """``apply(a, b)``, what the dispatcher calls for an op with a fast path (``_fast``) and
        two positional arguments (``x + y``, ``x * y``): ``apply``'s fast-path steps (the same
        ``needs_input_grad``, node and output), without its ``*args``/``**kwargs`` packing and
        per-argument loops. Whatever the fast path does not take goes to ``apply``.
        ``tests/unit/test_op_fast_paths.py`` checks that the two agree."""
        fast = cls._fast
        if fast is None:
            return cls.apply(a, b)
        if not grad_enabled():
            out = fast(None, (a, b))
            if out is not None:
                return out
            return cls.apply(a, b)
        ra = isinstance(a, Tensor) and (a._requires_grad or (
            a._view is not None and a._view.base._requires_grad))
        rb = isinstance(b, Tensor) and (b._requires_grad or (
            b._view is not None and b._view.base._requires_grad))
        if not (ra or rb):
            out = fast(None, (a, b))
            if out is not None:
                return out
            return cls.apply(a, b)
        ctx = cls._node_cls()
        ctx._saved = None
        # (constant tuples: no tuple built per op)
        ctx.needs_input_grad = (True, True) if ra and rb else (True, False) if ra else \
            (False, True)
        out = fast(ctx, (a, b))
        if out is None:
            return cls.apply(a, b)
        if _INFERENCE_SEEN[0] and ctx._saved:
            _check_no_inference(ctx._saved)
        if not out.dtype.is_floating_point or \
                not (ra or (type(a) is Tensor and a.dtype.is_floating_point)) or \
                not (rb or (type(b) is Tensor and b.dtype.is_floating_point)):
            return _connect(ctx, (a, b), (ra, rb), out)
        # The common case (each operand a floating Tensor or needing grad, a floating output;
        # ``out`` a fresh Tensor, no ``mark_non_differentiable``): the node ``_connect`` would
        # build, written out here (a call's frame costs ~3% of a recorded small add in CPython
        # 3.11).
        ctx._seq = next(_seq)
        if _ANOMALY[0]:
            _store_stack(ctx, _anomaly_parent())
        meta = (out._data.shape, out.dtype)
        # each edge as _connect finds it: a non-leaf's grad_fn, a leaf's live accumulator (read
        # here: a call less per leaf operand), else _edge; (few locals: a frame's cost grows
        # with their number)
        if ra:
            if a._view is None:
                fn = a._grad_fn
                if fn is None:
                    fn = a._grad_accumulator
                    fn = None if fn is None else fn()
                    ea = (fn, 0) if fn is not None else _edge(a)
                else:
                    ea = (fn, a._output_nr)
            else:
                ea = _edge(a)
        else:
            ea = (None, 0)
        if rb:
            if b._view is None:
                fn = b._grad_fn
                if fn is None:
                    fn = b._grad_accumulator
                    fn = None if fn is None else fn()
                    eb = (fn, 0) if fn is not None else _edge(b)
                else:
                    eb = (fn, b._output_nr)
            else:
                eb = _edge(b)
        else:
            eb = (None, 0)
        ctx.next_functions = (ea, eb)
        if cls._fast_same_meta:      # (each operand's shape and dtype are the output's)
            ctx._input_meta = [meta if ra else None, meta if rb else None]
        else:
            ctx._input_meta = [(a._data.shape, a.dtype) if ra else None,
                               (b._data.shape, b.dtype) if rb else None]
        ctx._pre_hooks = ctx._retain_grad_hooks = ctx._hooks = None
        ctx._edge_args = None
        out._requires_grad = True
        out._grad_fn = ctx
        ctx._out_meta = (meta,)
        if ctx._saved is not None:     # as _connect, for the one output
            for s in ctx._saved:
                if s is not None and s.tensor is out:
                    s._to_output(out)
            if _HOOKS_ACTIVE[0]:
                _pack_pending(ctx, (out,), (a, b))
        return out


def _check_no_inference(saved):
    """Raises PyTorch's RuntimeError when a recorded op saved an inference tensor."""
    for s in saved:
        if s is not None and s.tensor is not None and s.tensor._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or use "
                "`torch.no_grad()` instead of `torch.inference_mode()`.")


def _edge(t):
    """The gradient edge of ``t``: ``(grad_fn, output_nr)``, or its leaf's ``AccumulateGrad``
    (made on first use), or ``(None, 0)`` for a leaf that does not itself require grad (a view
    that requires grad only through its base, as in PyTorch: that gradient is dropped)."""
    fn = t._grad_fn if t._view is None else t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if not t._requires_grad:
        return (None, 0)
    ref = t._grad_accumulator      # a weakref, as in PyTorch: the graph owns the node
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_accumulator = weakref.ref(acc)
    return (acc, 0)


def _saved_outputs(ctx, outs, args):
    """Saved tensors that turned out to be this node's outputs drop their strong reference;
    then tensors saved under saved-tensor hooks are packed."""
    ids = {id(o): o for o in outs if isinstance(o, Tensor) and o.grad_fn is ctx}
    for s in ctx._saved:
        if s is not None and s.tensor is not None and id(s.tensor) in ids:
            s._to_output(s.tensor)
    if _HOOKS_ACTIVE[0]:
        _pack_pending(ctx, outs, args)


def _connect(ctx, args, needs, out):
    ctx._seq = next(_seq)
    if _ANOMALY[0]:                 # detect_anomaly: the forward stack that made this node
        _store_stack(ctx, _anomaly_parent())
    edges = []
    metas = []
    idx = None
    i = -1
    for a in args:
        i += 1
        if needs[i]:
            fn = a._grad_fn if a._view is None else a.grad_fn
            if fn is not None:
                edges.append((fn, a._output_nr))
            else:           # a leaf: its live accumulator, as _edge finds it, else _edge
                ref = a._grad_accumulator
                acc = None if ref is None else ref()
                edges.append((acc, 0) if acc is not None else _edge(a))
            metas.append((a._data.shape, a.dtype))
        # an argument that needs no grad still gets an edge, ``(None, 0)``, as in PyTorch when
        # it is a floating tensor, or the Python-number operand of binary arithmetic (which
        # PyTorch wraps into a tensor: ``_scalar_edges``); integer/bool tensors and other
        # arguments (dims, flags) get none
        elif a.dtype.is_floating_point if isinstance(a, Tensor) else (
                ctx._function._scalar_edges and i < 2 and isinstance(a, (int, float))):
            edges.append((None, 0))
            metas.append(None)
        else:
            if idx is None:
                idx = list(range(i))
            continue
        if idx is not None:
            idx.append(i)
    ctx.next_functions = tuple(edges)
    ctx._input_meta = metas
    if idx is not None:            # idx: which of backward's per-argument results feed the edges
        ctx._n_args = len(args)
    # the hook slots the engine reads for every node, as instance attributes (cheap to read)
    ctx._pre_hooks = ctx._retain_grad_hooks = ctx._hooks = None
    ctx._edge_args = idx
    if type(out) is Tensor and not out._requires_grad and out.dtype.is_floating_point \
            and ctx._non_diff is None:   # the common single-output case (mark_dirty sets it too)
        out._requires_grad = True
        out._grad_fn = ctx
        ctx._out_meta = ((out._data.shape, out.dtype),)
        if ctx._saved is not None:     # as _saved_outputs, for the one output
            for s in ctx._saved:
                if s is not None and s.tensor is out:
                    s._to_output(out)
            if _HOOKS_ACTIVE[0]:
                _pack_pending(ctx, (out,), args)
        return out
    is_tuple = isinstance(out, tuple)
    outs = list(out) if is_tuple else [out]
    nd = ctx._non_diff
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor) or not o.dtype.is_floating_point or (nd and id(o) in nd):
            continue
        if ctx._dirty and id(o) in ctx._dirty:
            # modified in place and declared with mark_dirty: the input itself gets the history
            if o._requires_grad and o._grad_fn is None and o._view is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
            o._vc[0] += 1
        elif o._grad_fn is not None or o._requires_grad:
            # forward returned an input (or a tensor already in a graph) as-is: PyTorch returns
            # a view of it; we return a new Tensor sharing its storage and version counter.
            o = outs[i] = o._alias()
        o._requires_grad = True
        o._grad_fn = ctx
        o._output_nr = i
    if is_tuple:
        ctx._num_outputs = len(outs)
    ctx._out_meta = tuple([(o._data.shape, o.dtype) if isinstance(o, Tensor) else None
                           for o in outs])
    if ctx._saved is not None:
        _saved_outputs(ctx, outs, args)
    return tuple(outs) if is_tuple else outs[0]


class _DelayedError(Function):
    """Identity whose backward raises: marks gradients computed by a ``once_differentiable``
    backward under ``create_graph`` (PyTorch's ``DelayedError`` node)."""

    _backward_name = "DelayedError"

    @staticmethod
    def forward(ctx, x):
        return Tensor._make(x._data, x.dtype)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def once_differentiable(fn):
    """Decorator for ``Function.backward`` (``torch.autograd.function.once_differentiable``):
    the backward runs with grad mode off, so it need not be differentiable. Under
    ``create_graph=True``, the gradients it returns get a node that raises RuntimeError
    ("trying to differentiate twice a function that was marked with @once_differentiable") if a
    higher-order backward reaches it."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = grad_enabled()
        set_grad_enabled_raw(False)
        try:
            outputs = fn(ctx, *args)
        finally:
            set_grad_enabled_raw(prev)
        if not prev or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        # as PyTorch: each output is detached and made to require grad, so that the error node
        # gets an edge and any later backward through it raises
        outs = tuple(_DelayedError.apply(o.detach().requires_grad_(True))
                     if isinstance(o, Tensor) and o.dtype.is_floating_point else o for o in outs)
        return outs[0] if single else outs
    return wrapper
