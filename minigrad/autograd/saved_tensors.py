"""What a graph node keeps for its backward: ``SavedTensor``, and the hook points on it.

A node's ``save_for_backward`` turns each tensor into a ``SavedTensor``, which keeps the tensor
(an output of the node only as its array and metadata, so that no reference cycle keeps the
graph alive) and the version it was saved at, and gives it back, checked, on ``unpack``.

Under ``minigrad.autograd.graph.saved_tensors_hooks`` the node keeps a ``_HookedSaved`` instead:
what the pack hook returned, unpacked by the unpack hook on each access. This module also makes
the ``grad_fn._saved_<name>`` / ``_raw_saved_<name>`` attributes PyTorch's nodes expose, from
the names an op declares for what it saves.
"""
from __future__ import annotations

import re

import threading
import weakref

import numpy as np

from .. import devices as _devices
from ..devices import CPU
from ..tensor import Tensor

__all__ = ["SavedTensor", "RawSavedTensor", "FREED_MSG"]

_new = object.__new__

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.")


class _SavedHooksState(threading.local):
    """This thread's default saved-tensor hooks (``minigrad.autograd.graph.saved_tensors_hooks``):
    a stack of ``(pack_hook, unpack_hook)``, innermost last, and the error message set by
    ``disable_saved_tensors_hooks`` (None when enabled)."""

    def __init__(self):
        self.stack = []
        self.disabled = None


_hooks_state = _SavedHooksState()
# [number of saved-tensor hook regions and disabled regions open in any thread]: saving reads the
# thread-local stack only when some exist, so the common save stays as cheap as before
_HOOKS_ACTIVE = [0]


def _current_hooks():
    """The innermost default hooks of this thread, or None.

    Raises:
        RuntimeError: hooks are on the stack while ``disable_saved_tensors_hooks`` is active
            (its message, as PyTorch).
    """
    st = _hooks_state
    if st.disabled is not None and st.stack:
        raise RuntimeError(st.disabled)
    return st.stack[-1] if st.stack else None


def _op_name(node) -> str:
    """A node's name as PyTorch's version-counter error prints it: without ``Backward<N>``
    (``SigmoidBackward0`` -> ``Sigmoid``)."""
    return re.sub(r"Backward\d*$", "", node.name())


class SavedTensor:
    """A tensor saved for backward: keeps the array and the version it was saved at.

    An op's own output is stored without its ``grad_fn`` (so no reference cycle keeps the graph
    alive) and rebuilt on unpack, like PyTorch's ``SavedVariable``.
    """

    __slots__ = ("tensor", "data", "dtype", "version", "vc", "is_output", "requires_grad",
                 "base", "output_nr", "device")

    def __init__(self, t, node):
        self.vc = t._vc
        self.version = t._vc[0]
        fn = t._grad_fn if t._view is None else t.grad_fn
        self.is_output = fn is node and node is not None
        if self.is_output:
            self.tensor = None
            self.data, self.dtype, self.base = t._data, t.dtype, t._base
            self.requires_grad, self.output_nr = t._requires_grad, t._output_nr
            self.device = t._device
        else:
            self.tensor = t

    @staticmethod
    def _of(t, node):
        """``SavedTensor(t, node)``, cheaper on the per-op path (a Python-level call costs less
        than instantiating a class in CPython 3.11): in ``forward`` a saved tensor is not yet
        an output of ``node``, so only the tensor and its version are kept."""
        if (t._grad_fn if t._view is None else t.grad_fn) is node and node is not None:
            return SavedTensor(t, node)         # (rare) already node's output: the general path
        s = _new(SavedTensor)
        s.tensor = t
        s.vc = vc = t._vc
        s.version = vc[0]
        s.is_output = False
        return s

    def _to_output(self, t):
        """Re-store an output of the saving node without a strong reference to the tensor (its
        grad_fn is the node itself: keeping it would make a reference cycle)."""
        self.tensor = None
        self.is_output = True
        self.data, self.dtype, self.base = t._data, t.dtype, t._base
        self.requires_grad, self.output_nr = t._requires_grad, t._output_nr
        self.device = t._device

    def unpack(self, node):
        if self.vc[0] != self.version:
            from ..dtypes import legacy_type_name
            t = self.tensor
            if t is not None:
                shape, dt = list(t._data.shape), t.dtype
                made_by = "" if t.grad_fn is None else \
                    f", which is output {t._output_nr} of {_op_name(t.grad_fn)},"
            else:
                shape, dt = list(self.data.shape), self.dtype
                made_by = f", which is output {self.output_nr} of {_op_name(node)},"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{legacy_type_name(dt)} {shape}]{made_by} is at version "
                f"{self.vc[0]}; expected version {self.version} instead. " + _version_hint())
        if not self.is_output:
            return self.tensor
        t = Tensor._make(self.data, self.dtype)
        t._vc = self.vc
        t._base = self.base
        if self.device is not t._device:
            t._device = self.device
        if self.requires_grad:
            t._requires_grad = True
            t._grad_fn = node
            t._output_nr = self.output_nr
        return t

_PENDING = object()


class _HookedSaved(SavedTensor):
    """A tensor saved while saved-tensor hooks were set: the graph keeps what ``pack_hook``
    returned instead of the tensor, and ``unpack_hook`` gives the tensor back on each access
    (PyTorch's ``SavedVariable`` with hooks).

    Packing waits until the saving op's outputs have their ``grad_fn`` (``pack`` is called by
    ``Function.apply`` after recording), so a pack hook sees an output with its history, as in
    PyTorch. What the unpacked tensor needs of the original's history (its ``grad_fn`` and
    output number, or its leaf's gradient accumulator) is kept beside the packed value. As in
    PyTorch, a tensor saved with hooks is not checked for in-place modification.
    """

    __slots__ = ("hooks", "packed", "edge", "out")

    def __init__(self, t, node, hooks):
        SavedTensor.__init__(self, t, node)
        self.hooks = hooks
        self.packed = _PENDING
        self.edge = self.out = None

    def _to_output(self, t):
        SavedTensor._to_output(self, t)
        self.out = t            # the output itself goes to the pack hook, then is let go

    def pack(self, node):
        """Call the pack hook on the tensor (an output of ``node`` once it has its history).

        Raises:
            RuntimeError: the pack hook modified its input in place (PyTorch's message).
        """
        if self.is_output:
            t = self.out if self.out is not None else SavedTensor.unpack(self, node)
            self.data = self.base = self.out = None
        else:
            t = self.tensor
            self.tensor = None
            if t._requires_grad or t.grad_fn is not None:
                from .function import _edge       # (function.py imports this module)
                self.edge = _edge(t)
        v = t._vc[0]
        self.packed = self.hooks[0](t)
        if t._vc[0] != v:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform in-place "
                "operations on the input to a pack hook.")

    def unpack(self, node):
        if self.packed is _PENDING:          # read before its op finished recording
            self.pack(node)
        u = self.hooks[1](self.packed)
        if not isinstance(u, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(u).__name__}")
        if self.is_output:
            if not self.requires_grad:
                return u
            fn, nr = node, self.output_nr
        elif self.edge is None:
            return u
        else:
            fn, nr = self.edge
        # the unpacked values with the saved tensor's place in the graph (PyTorch re-wraps them)
        t = Tensor._make(u._data, u.dtype)
        t._vc = u._vc
        t._base = u._base
        if u._device is not t._device:
            t._device = u._device
        from .function import AccumulateGrad
        if type(fn) is AccumulateGrad:
            t._requires_grad = True
            t._grad_accumulator = weakref.ref(fn)
        elif fn is not None:
            t._requires_grad = True
            t._grad_fn = fn
            t._output_nr = nr
        return t


def _make_saved(t, node=None):
    """A SavedTensor of ``t`` taken as the current default hooks say (PyTorch's
    ``_make_saved_tensor``): with hooks set, packed at once (``t`` is not an output of
    ``node``)."""
    hooks = _current_hooks() if _HOOKS_ACTIVE[0] else None
    if hooks is None:
        return SavedTensor(t, node)
    s = _HookedSaved(t, node, hooks)
    s.pack(node)
    return s


def _pack_pending(node, outs, args):
    """Pack the tensors ``node`` saved under hooks, now that its outputs are recorded. On the
    emulated cuda device the outputs are first put on their op's device (which the dispatcher
    would do right after), so that a pack hook sees their true device."""
    if _devices.state.cuda_seen and node._function._op_name not in _devices.OWN_DEVICE:
        dev = _devices.common_device(args, None, strict=False)
        if dev is not CPU:
            _devices.place(tuple(outs), dev, args)
    for s in node._saved:
        if s is not None and type(s) is _HookedSaved and s.packed is _PENDING:
            s.pack(node)

class RawSavedTensor:
    """One saved tensor of a node, as ``grad_fn._raw_saved_<name>`` gives it (PyTorch's
    ``torch._C._autograd.SavedTensor``): ``register_hooks(pack_hook, unpack_hook)`` packs it
    now and unpacks it on each later access; ``unpack()`` gives the tensor."""

    __slots__ = ("_node", "_i")

    def __init__(self, node, i):
        self._node, self._i = node, i

    def _entry(self):
        node = self._node
        saved = node._saved
        if node._freed or saved is None:
            return None, True
        return (saved[self._i] if self._i < len(saved) else None), False

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the saved tensor with ``pack_hook`` now; ``unpack_hook`` runs on each access.

        Raises:
            TypeError: a hook that is not callable.
            RuntimeError: after the graph was freed, on a saved None, or when hooks are set
                already (PyTorch's messages).
        """
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments: pack_hook and "
                            "unpack_hook must be callables")
        s, freed = self._entry()
        if freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        if s is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if isinstance(s, _HookedSaved):
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at a "
                               "time.")
        node = self._node
        t = s.unpack(node)
        h = _HookedSaved(t, node, (pack_hook, unpack_hook))
        if s.is_output:
            h._to_output(t)
        h.pack(node)
        saved = list(node._saved)
        saved[self._i] = h
        node._saved = tuple(saved)

    def unpack(self):
        """The saved tensor (through its unpack hook, if any), or None.

        Raises:
            RuntimeError: after the graph was freed (PyTorch's "Trying to backward through the
                graph a second time..." message).
        """
        s, freed = self._entry()
        if freed:
            raise RuntimeError(FREED_MSG)
        return None if s is None else s.unpack(self._node)


def _saved_property(i, name, scalar_attr=None):
    def get(node):
        if node._freed:
            raise RuntimeError(FREED_MSG)
        saved = node._saved
        if saved is not None and i < len(saved):
            s = saved[i]
            return None if s is None else s.unpack(node)
        v = None if scalar_attr is None else getattr(node, scalar_attr, None)
        # a Python-number operand, which PyTorch saves as a wrapped 0-dim tensor
        return None if v is None else Tensor._make(np.array(v))
    get.__doc__ = f"The saved tensor ``{name}`` (``grad_fn._saved_{name}`` in PyTorch)."
    return property(get)


def _scalar_property(attr, name):
    def get(node):
        return getattr(node, attr)
    get.__doc__ = f"The saved argument ``{name}`` (``grad_fn._saved_{name}`` in PyTorch)."
    return property(get)


def _raw_saved_property(i, name):
    def get(node):
        return RawSavedTensor(node, i)
    get.__doc__ = f"The saved tensor ``{name}`` as a ``RawSavedTensor`` (``_raw_saved_{name}``)."
    return property(get)


def _saved_attributes(cls):
    """``_saved_<name>`` / ``_raw_saved_<name>`` properties for a node class, from the op's
    ``_saved_names`` (PyTorch's names of what ``save_for_backward`` got, in order), or from a
    kernel op's ``saves`` (``input`` is PyTorch's ``self``) and ``keeps``, and from ``_saved_scalars``
    (PyTorch's name -> the ctx attribute holding a non-tensor argument, e.g. ``exponent``; a
    name that is also a tensor slot is the Python-number case of that operand)."""
    names = getattr(cls, "_saved_names", None)
    if names is None:
        saves = getattr(cls, "saves", None)
        names = tuple("self" if n == "input" else n for n in saves) \
            if isinstance(saves, tuple) else ()
    keeps = getattr(cls, "keeps", None)
    scalars = {k: k for k in keeps} if isinstance(keeps, tuple) else {}
    scalars.update(getattr(cls, "_saved_scalars", None) or {})
    attrs = {}
    for i, n in enumerate(names):
        if n is not None:
            attrs["_saved_" + n] = _saved_property(i, n, scalars.get(n))
            attrs["_raw_saved_" + n] = _raw_saved_property(i, n)
    for n, attr in scalars.items():
        if n not in names:
            attrs["_saved_" + n] = _scalar_property(attr, n)
    return attrs


def _version_hint() -> str:
    """The hint PyTorch ends its in-place version error with (it depends on anomaly mode)."""
    from .anomaly_mode import _ANOMALY
    if _ANOMALY[0]:
        return ("Hint: the backtrace further above shows the operation that failed to compute "
                "its gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    return ("Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
