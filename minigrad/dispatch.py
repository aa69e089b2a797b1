"""The dispatcher: the one entry point of every op, forward and backward.

``dispatch(op_name, *args, **kwargs)`` looks the op up in the registry and runs it through the
mode stack. A *mode* (autocast, a profiler, a tracer, a numerics monitor) is an object with a
``__minigrad_dispatch__(op_name, args, kwargs, call_next)`` method; modes run innermost (most
recently pushed) first and each either returns ``call_next(args, kwargs)`` (possibly with changed
arguments) or a result of its own. While a mode runs, ops it dispatches itself (e.g. the casts that
autocast inserts) see only the modes outside it, as with PyTorch's ``TorchDispatchMode``.

After the modes, the op's device is found (``minigrad.devices.run_on_device``: PyTorch's
same-device rule; results carry the device) once any cuda tensor exists, and ``Function.apply``
of the registered op runs: dtype promotion, the opmath kernel,
one rounding, and the graph node when grad mode is on.

Op names are PyTorch's. Where PyTorch has several overloads of one op with different kernels or
graph nodes, each is registered under its explicit name (``div.Tensor``, ``div.Tensor_mode``,
``pow.Tensor_Scalar``, ``rsub.Scalar``...) and the plain name is an *overload packet*
(``register_packet``): ``dispatch("div", a, b, rounding_mode="floor")`` picks the overload from
the arguments *before* the modes run, as PyTorch's argument parser does, so a mode sees
``div.Tensor_mode``, exactly what a ``TorchDispatchMode`` sees. A name is registered once:
``register_op`` raises on a duplicate, so no op is overridden by accident.

Mirrors PyTorch's dispatcher + ``torch.utils._python_dispatch.TorchDispatchMode`` in spirit; the
mode protocol is our own.
"""
from __future__ import annotations

import threading
from functools import partial

from . import devices as _device

__all__ = ["dispatch", "dispatch2", "OPERATOR2", "use_operator2", "register_op", "register_packet", "get_op", "registered_ops",
           "registered_packets", "resolve", "DispatchMode", "push_mode", "pop_mode",
           "current_modes", "flat_tensors"]

_OPS: dict = {}
_CALL: dict = {}    # name -> the callable to run (Function.apply or the plain function)
# name -> the callable for two positional arguments and no keyword: ``Function._apply2`` for an
# op with a fast path (``Function._fast``), else the ``_CALL`` entry
_CALL2: dict = {}
_PACKETS: dict = {}  # packet name -> resolver(args, kwargs) -> (op name, args, kwargs)


class _State(threading.local):
    def __init__(self):
        self.modes = []      # the mode stack, outermost first
        self.limit = None    # while a mode runs: how many outer modes later dispatches may see


_state = _State()
_dev_state = _device.state
# [modes pushed in all threads together]: while 0, no thread has a mode and ``dispatch`` skips
# the (slower) thread-local read of its mode stack
_MODES_PUSHED = [0]
_PUSH_LOCK = threading.Lock()


# name -> what ``dispatch2(name, a, b)`` runs at this moment, for the callers on every step (the
# Python operators ``x + y``..., the engine's gradient sums), who name their ops once with
# ``use_operator2``: while no thread has a mode and no cuda tensor exists, the op's
# two-argument entry (``_CALL2``); otherwise, and for an overload packet or a name not (yet)
# registered, ``dispatch`` bound to the name. ``OPERATOR2[name](a, b)`` is
# ``dispatch2(name, a, b)`` without a Python frame of its own (in CPython 3.11 a frame costs
# about a sixteenth of a no_grad ``x + y``). ``_refresh2`` rewrites the entries whenever the
# answer changes: an op (un)registered, the first mode pushed or the last popped (under
# ``_PUSH_LOCK``), the first cuda tensor made (``devices.ON_CUDA_SEEN``).
OPERATOR2: dict = {}


def use_operator2(*names) -> None:
    """Keep ``OPERATOR2`` entries for the op ``names`` (registered now or later)."""
    for name in names:
        OPERATOR2[name] = _entry2(name)


def _entry2(name):
    if not _MODES_PUSHED[0] and not _dev_state.cuda_seen:
        f = _CALL2.get(name)
        if f is not None:
            return f
    return partial(dispatch, name)


def _refresh2(name=None):
    """Rewrite ``OPERATOR2``'s entry for ``name`` (when it has one), or every entry."""
    if name is None:
        for n in list(OPERATOR2):
            OPERATOR2[n] = _entry2(n)
    elif name in OPERATOR2:
        OPERATOR2[name] = _entry2(name)


_device.ON_CUDA_SEEN.append(_refresh2)


def register_op(name: str, fn=None):
    """Register ``fn`` (a ``Function`` subclass, or any callable) as the op ``name``.

    Usable as a decorator: ``@register_op("add")``. ``name`` is PyTorch's op name, with the
    overload when the op has several (``"div.Tensor_mode"``).

    Raises:
        RuntimeError: ``name`` is already registered (as an op or an overload packet).
    """
    def deco(f):
        _check_new(name)
        _OPS[name] = f
        _CALL[name] = getattr(f, "apply", f)
        two = getattr(f, "_apply2", None) if getattr(f, "_fast", None) is not None else None
        _CALL2[name] = _CALL[name] if two is None else two
        if getattr(f, "_op_name", None) is None and isinstance(f, type):
            f._op_name = name
        _refresh2(name)
        return f
    return deco if fn is None else deco(fn)


def _unregister_op(name: str) -> None:
    """Forget the op ``name`` in every table ``register_op`` filled (nothing if unknown): for
    tests that register a throw-away op; a table left holding it would keep its closure (and
    the tensors it holds) alive."""
    for table in (_OPS, _CALL, _CALL2):
        table.pop(name, None)
    _refresh2(name)


def _check_new(name):
    if name in _OPS or name in _PACKETS:
        raise RuntimeError(f"an op named {name!r} is already registered; register each overload "
                           "under its own name (e.g. 'div.Tensor_mode')")


def register_packet(name: str, resolver=None):
    """Register the overload packet ``name``: ``resolver(args, kwargs)`` returns the registered
    overload to run and its ``(args, kwargs)`` (usually unchanged). Usable as a decorator.
    Mirrors how PyTorch picks ``aten.div.Tensor`` or ``aten.div.Tensor_mode`` for ``torch.div``
    before dispatching.

    Raises:
        RuntimeError: ``name`` is already registered.
    """
    def deco(r):
        _check_new(name)
        _PACKETS[name] = r
        _refresh2(name)
        return r
    return deco if resolver is None else deco(resolver)


def resolve(op_name: str, args=(), kwargs=None):
    """The registered op that ``dispatch(op_name, *args, **kwargs)`` runs, with its arguments:
    ``(name, args, kwargs)``; ``op_name`` itself unless it is an overload packet.

    Raises:
        NotImplementedError: for an unknown name.
    """
    kwargs = {} if kwargs is None else kwargs
    if op_name in _OPS:
        return op_name, tuple(args), kwargs
    r = _PACKETS.get(op_name)
    if r is None:
        get_op(op_name)
    return r(tuple(args), kwargs)


def get_op(name: str):
    """The callable registered as ``name``.

    Raises:
        NotImplementedError: when no op of that name exists.
    """
    try:
        return _OPS[name]
    except KeyError:
        raise NotImplementedError(f"minigrad has no op named {name!r}") from None


def registered_ops() -> list:
    """Names of all registered ops (overloads included, packets not), sorted."""
    return sorted(_OPS)


def registered_packets() -> list:
    """Names of all overload packets (``"div"``, ``"pow"``...), sorted."""
    return sorted(_PACKETS)


def _apply(op_name, args, kwargs):
    f = _CALL.get(op_name)
    if f is None:       # an unknown name reaches the modes first (autocast bans some names)
        get_op(op_name)
    if _dev_state.cuda_seen:
        return _device.run_on_device(op_name, f, args, kwargs)
    return f(*args, **kwargs)


def dispatch(op_name: str, *args, **kwargs):
    """Run the op ``op_name`` on ``args``/``kwargs`` through the mode stack.

    An overload packet (``"div"``) is resolved to its overload first; modes see the overload.
    Returns whatever the op returns (a Tensor or a tuple of Tensors).

    Raises:
        NotImplementedError: for an unknown op name; otherwise whatever the op or a mode raises.
    """
    f = _CALL.get(op_name)
    if f is None:
        r = _PACKETS.get(op_name)
        if r is not None:
            op_name, args, kwargs = r(args, kwargs)
            f = _CALL[op_name]
    if not _MODES_PUSHED[0] or not _state.modes:      # no mode: the op itself
        if f is None:
            get_op(op_name)
        if _dev_state.cuda_seen:        # see minigrad.devices: which device the op runs on
            return _device.run_on_device(op_name, f, args, kwargs)
        if not kwargs:
            # one or two positional arguments (most ops): a plain call, which CPython 3.11 runs
            # without the ``f(*args)`` splat's C-level frame (a third of this function's cost)
            n = len(args)
            if n == 2:
                return _CALL2[op_name](args[0], args[1])
            if n == 1:
                return f(args[0])
        return f(*args, **kwargs)
    st = _state
    n = len(st.modes) if st.limit is None else st.limit
    return _run_modes(op_name, args, kwargs, n)


def dispatch2(op_name: str, a, b):
    """``dispatch(op_name, a, b)``, for the ops called with two positional arguments on every
    step (the Python operators ``x + y``, ``x * y``..., which call its table form ``OPERATOR2``
    instead). The same op and the same modes: while
    no thread has a mode and no cuda tensor exists, it calls the op's two-argument entry
    (``_CALL2``: ``Function._apply2`` for an op with a fast path) without ``dispatch``'s
    ``*args``/``**kwargs`` packing; otherwise, and for an overload packet, it is ``dispatch``.
    """
    if not _MODES_PUSHED[0] and not _dev_state.cuda_seen:
        f = _CALL2.get(op_name)
        if f is not None:
            return f(a, b)
    return dispatch(op_name, a, b)


def _run_modes(op_name, args, kwargs, n):
    if n == 0:
        return _apply(op_name, args, kwargs)
    st = _state
    mode = st.modes[n - 1]
    saved = st.limit

    def call_next(a, k):
        inner_saved = st.limit
        st.limit = saved
        try:
            return _run_modes(op_name, a, k, n - 1)
        finally:
            st.limit = inner_saved

    st.limit = n - 1
    try:
        return mode.__minigrad_dispatch__(op_name, args, kwargs, call_next)
    finally:
        st.limit = saved


def push_mode(mode) -> None:
    """Push ``mode`` on this thread's mode stack (innermost)."""
    with _PUSH_LOCK:
        _state.modes.append(mode)
        _MODES_PUSHED[0] += 1
        if _MODES_PUSHED[0] == 1:
            _refresh2()


def pop_mode(mode=None):
    """Pop the innermost mode (which must be ``mode`` when given).

    Raises:
        RuntimeError: when the stack is empty or its top is not ``mode``.
    """
    modes = _state.modes
    if not modes or (mode is not None and modes[-1] is not mode):
        raise RuntimeError(f"pop_mode: {mode!r} is not the innermost dispatch mode")
    with _PUSH_LOCK:
        _MODES_PUSHED[0] -= 1
        if _MODES_PUSHED[0] == 0:
            _refresh2()
        return modes.pop()


def current_modes() -> tuple:
    """The mode stack, outermost first (a copy)."""
    return tuple(_state.modes)


class DispatchMode:
    """Base class for modes: a context manager that pushes itself on enter and pops on exit.

    Subclasses override ``__minigrad_dispatch__(op_name, args, kwargs, call_next)``; the default
    just calls ``call_next(args, kwargs)``.
    """

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        return call_next(args, kwargs)

    def __enter__(self):
        push_mode(self)
        return self

    def __exit__(self, *exc):
        pop_mode(self)
        return False


def flat_tensors(x) -> list:
    """The Tensors in ``x`` (a Tensor, or nested lists/tuples of them), in order; other values
    are skipped. For modes that read an op's arguments or results (``_foreach_*`` ops take
    lists)."""
    from .tensor import Tensor      # (tensor.py imports this module)
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(flat_tensors(v))
        return out
    return [x] if isinstance(x, Tensor) else []
