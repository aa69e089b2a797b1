"""Recomputation checkpointing: keep a region's inputs, rerun it in backward (``torch.utils.checkpoint``).

``checkpoint(fn, *args)`` runs ``fn`` without keeping what its ops save for backward, and reruns
it when the backward needs those tensors: activation memory traded for one more forward. Both of
PyTorch's variants exist, with their documented differences:

- ``use_reentrant=True`` (PyTorch 2.13's default when not passed, with its warning):
  ``CheckpointFunction``, a ``Function`` whose forward saves only the tensor inputs and runs
  ``fn`` under ``no_grad``; its backward reruns ``fn`` with grad on and runs a nested backward
  through that graph. So no parameter gets a gradient when no input requires grad (PyTorch's
  warning says so), and ``autograd.grad`` / ``backward(inputs=...)`` are refused.
- ``use_reentrant=False``: built on ``minigrad.autograd.graph.saved_tensors_hooks``. Every
  tensor saved in ``fn`` is packed as an empty holder; the first unpack in a backward reruns
  ``fn`` under hooks that fill the holders in save order, and stops the rerun as soon as the
  last holder is full (early stop). Works with ``autograd.grad``, keyword arguments, inputs
  that do not require grad, and nested checkpoints (an inner checkpoint's inputs are saved
  tensors of the outer one). A rerun that saves a different number of tensors, or tensors of
  another shape/dtype/device, raises ``CheckpointError``.

Both replay the forward's state: the random generator (minigrad has one stream for the cpu and
the emulated cuda device, so saving it covers both; the rerun is wrapped in ``fork_rng``, so the
global stream ends as the uncheckpointed run leaves it) and the autocast regions of both device
types. Autocast lives in ``amp_emu``, which minigrad's core never imports: the state is read from
``amp_emu.autocast`` only if that module is already loaded (``sys.modules``). If it is not, no
autocast region can be open, so there is nothing to replay.
"""
from __future__ import annotations

import contextlib
import itertools
import sys
import warnings
import weakref
from collections import defaultdict

from .. import random as _random
from ..autograd import engine as _engine
from ..autograd.function import Function
from ..autograd.saved_tensors import SavedTensor, _make_saved
from ..autograd.grad_mode import _grad_state, enable_grad, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..tensor import Tensor
from ._checkpoint_debug import debug_context_and_callback

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "noop_context_fn", "set_checkpoint_debug_enabled", "set_checkpoint_early_stop",
           "detach_variable", "check_backward_validity"]

_DEBUG = [None]          # set_checkpoint_debug_enabled's override of ``debug``
_EARLY_STOP = [None]     # set_checkpoint_early_stop's override of ``early_stop``
_TIP = ("\nTip: To see a more detailed error message, either pass `debug=True` to\n"
        "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block\n"
        "with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n"
        "enable checkpoint\u2011debug mode globally.\n")


class CheckpointError(RuntimeError):
    """Raised when the recomputation of a non-reentrant checkpoint does not save what the
    original forward saved (``torch.utils.checkpoint.CheckpointError``)."""


@contextlib.contextmanager
def _overriding(slot, value):
    prev, slot[0] = slot[0], value
    try:
        yield
    finally:
        slot[0] = prev


def set_checkpoint_debug_enabled(enabled):
    """Context manager overriding ``checkpoint``'s ``debug`` argument in the region (None:
    defer to it) (``torch.utils.checkpoint.set_checkpoint_debug_enabled``)."""
    return _overriding(_DEBUG, enabled)


def set_checkpoint_early_stop(enable: bool):
    """Context manager overriding ``checkpoint``'s ``early_stop`` in the region
    (``torch.utils.checkpoint.set_checkpoint_early_stop``)."""
    return _overriding(_EARLY_STOP, enable)


def noop_context_fn():
    """The default ``context_fn``: two null contexts (forward, recomputation)."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Detached copies of the tensors of tuple ``inputs``, keeping ``requires_grad``
    (``torch.utils.checkpoint.detach_variable``); other items as they are.

    Raises:
        RuntimeError: ``inputs`` is not a tuple (PyTorch's message).
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Warn "None of the inputs have requires_grad=True. Gradients will be None" when no tensor
    of ``inputs`` requires grad (``torch.utils.checkpoint.check_backward_validity``)."""
    if not any(isinstance(i, Tensor) and i.requires_grad for i in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=3)


# ---------------------------------------------------------------------------------- forward state
class _ForwardState:
    """What the forward ran under, to be replayed by the recomputation: the random generator's
    state (if ``preserve_rng_state``) and the autocast state of the cuda and cpu device types."""

    def __init__(self, preserve_rng_state):
        self.rng = _random.get_rng_state() if preserve_rng_state else None
        self.autocast = None
        ac = sys.modules.get("amp_emu.autocast")       # never imported from here (layering)
        if ac is not None:
            self.autocast = (ac, [(dev, ac.is_autocast_enabled(dev), ac.get_autocast_dtype(dev),
                                   ac.is_autocast_cache_enabled()) for dev in ("cuda", "cpu")])

    @contextlib.contextmanager
    def replay(self):
        """Run the block with the forward's random state (restoring the current one after) and
        its autocast regions."""
        with contextlib.ExitStack() as stack:
            if self.rng is not None:
                stack.enter_context(_random.fork_rng())
                _random.set_rng_state(self.rng)
            if self.autocast is not None:
                ac, regions = self.autocast
                for dev, enabled, dtype, cache in regions:
                    stack.enter_context(ac.autocast(dev, dtype=dtype, enabled=enabled,
                                                    cache_enabled=cache))
            yield


# ---------------------------------------------------------------------------------- reentrant
class CheckpointFunction(Function):
    """The reentrant checkpoint (``torch.utils.checkpoint.CheckpointFunction``): forward saves
    the tensor inputs and runs ``run_function`` under ``no_grad``; backward reruns it with grad
    on, with the forward's RNG and autocast state, and backpropagates through the new graph.

    Raises (in backward):
        RuntimeError: under ``autograd.grad`` or ``backward(inputs=...)`` (PyTorch's message),
            or when no output of the rerun requires grad.
    """

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.state = _ForwardState(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _engine._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with ctx.state.replay():
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _engine.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(t.grad if isinstance(t, Tensor) else None for t in detached)


# ---------------------------------------------------------------------------------- non-reentrant
class _StopRecomputationError(Exception):
    pass


class _Holder:
    """What the graph keeps for a tensor saved in a checkpointed region: per backward (graph
    task id), a handle to the recomputed tensor (None once unpacked), and the frame it belongs
    to (so that memory accounting can find what the frame keeps; the graph's unpack hook keeps
    the frame alive as long anyway, and the frame holds its holders only weakly)."""

    def __init__(self, frame=None):
        self.handles = {}
        self.frame = frame


class _Handle:
    pass


_temp_ids = itertools.count(1)

# callables told ``watcher(frame)`` when a frame's recomputed tensors change (a rerun filled a
# holder, an unpack took one): ``minigrad.memory.track`` counts what frames keep as saved for
# backward
frame_watchers = []


def _frame_changed(frame):
    for w in frame_watchers:
        w(frame)


class _CheckpointFrame:
    """One non-reentrant checkpoint: its inputs (saved tensors, Rule 2 of PyTorch's nestable
    checkpoint), weak references to its holders in save order, and per backward the recomputed
    tensors (weakly keyed by handle, so a partial backward frees them)."""

    def __init__(self, recompute_fn, early_stop, unpack_error_cb, metadata_fn):
        self.recompute_fn = recompute_fn
        self.early_stop = early_stop
        self.unpack_error_cb = unpack_error_cb
        self.metadata_fn = metadata_fn
        self.saved_args = []
        self.weak_holders = []
        self.x_metadatas = []
        self.recomputed = defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter = defaultdict(int)
        self.is_recomputed = defaultdict(bool)
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, *args):
        self.saved_args = [_make_saved(a) if isinstance(a, Tensor) else a for a in args]

    def kept(self):
        """What the frame keeps alive for the backward: its saved inputs (``SavedTensor`` objects,
        possibly packed by outer hooks) and the recomputed tensors not unpacked yet."""
        out = [a for a in self.saved_args if isinstance(a, SavedTensor)]
        for per_gid in list(self.recomputed.values()):
            out.extend(per_gid.values())
        return out

    def get_inputs(self):
        return [a.unpack(None) if isinstance(a, SavedTensor) else a for a in self.saved_args]

    def check_recomputed_tensors_match(self, gid):
        """Raises CheckpointError when the rerun saved another number of tensors, or tensors
        with other metadata, than the forward (PyTorch's messages)."""
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                + _TIP)
        different = []
        for idx, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None:
                continue
            x = self.recomputed[gid][holder.handles[gid]]
            meta = self.metadata_fn(x)
            if self.x_metadatas[idx] != meta:
                different.append((idx, self.x_metadatas[idx], meta))
        if different:
            lines = "".join(f"tensor at position {i}:\nsaved metadata: {a}\n"
                            f"recomputed metadata: {b}\n" for i, a, b in different)
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{lines}.\n" + _TIP)


def _default_meta_extractor(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM_CHECKS = {"default": _default_meta_extractor, "none": lambda _: None}


class _recomputation_hook(saved_tensors_hooks):
    """During a rerun: each saved tensor fills the next holder; stop once all are full."""

    def __init__(self, frame_ref, gid):
        def pack_hook(x):
            x = x.detach() if x.requires_grad else x
            frame = frame_ref()
            idx = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if idx >= len(frame.weak_holders):
                if not frame.forward_completed:     # a backward inside the forward, no early stop
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors "
                                      "during recomputation than during the original forward "
                                      "pass.\n" + _TIP)
            holder = frame.weak_holders[idx]()
            if holder is not None:           # None: freed already by a backward in the forward
                holder.handles[gid] = _Handle()
                frame.recomputed[gid][holder.handles[gid]] = x
                if frame_watchers:
                    _frame_changed(frame)
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputationError
            return x

        super().__init__(pack_hook, lambda x: x)


class _checkpoint_hook(saved_tensors_hooks):
    """During the forward: each saved tensor becomes an empty holder; its first unpack in a
    backward reruns the region."""

    def __init__(self, frame):
        def pack_hook(x):
            holder = _Holder(frame)
            frame.weak_holders.append(weakref.ref(holder))
            if frame.metadata_fn is not None:
                with no_grad():
                    frame.x_metadatas.append(frame.metadata_fn(x))
            return holder

        def unpack_hook(holder):
            gid = _engine._current_graph_task_id()
            if gid == -1:                        # unpacked outside a backward
                gid = -1 - next(_temp_ids)
            if not frame.is_recomputed[gid]:
                args = frame.get_inputs()
                try:
                    with _recomputation_hook(weakref.ref(frame), gid), enable_grad():
                        frame.recompute_fn(*args)
                except _StopRecomputationError:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed_tensors_match(gid)
            if holder.handles.get(gid) is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    "already unpacked once. If you are calling ctx.saved_tensors in backward, "
                    "make sure to do so only once. Otherwise please open an issue with details "
                    "on your use case.")
            ret = frame.recomputed[gid][holder.handles[gid]]
            holder.handles[gid] = None
            if frame_watchers:
                _frame_changed(frame)
            return ret

        if frame.unpack_error_cb is None:
            super().__init__(pack_hook, unpack_hook)
        else:
            def unpack_hook_with_error_cb(holder):
                try:
                    return unpack_hook(holder)
                except CheckpointError as e:
                    frame.unpack_error_cb(e)
            super().__init__(pack_hook, unpack_hook_with_error_cb)


def _checkpoint_without_reentrant(fn, preserve_rng_state, context_fn, determinism_check, debug,
                                  early_stop, args, kwargs):
    unpack_error_cb = None
    if _DEBUG[0] if _DEBUG[0] is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        context_fn, unpack_error_cb = debug_context_and_callback(CheckpointError)
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    metadata_fn = _DETERMINISM_CHECKS[determinism_check]
    forward_context, recompute_context = context_fn()
    state = _ForwardState(preserve_rng_state)

    def recompute_fn(*inputs):
        with state.replay(), recompute_context:
            fn(*inputs, **kwargs)

    frame = _CheckpointFrame(recompute_fn, early_stop if _EARLY_STOP[0] is None
                             else _EARLY_STOP[0], unpack_error_cb, metadata_fn)
    if not _grad_state.enabled:
        return fn(*args, **kwargs)
    frame.save_inputs(*args)
    with _checkpoint_hook(frame), forward_context:
        out = fn(*args, **kwargs)
    frame.forward_completed = True
    return out


# ---------------------------------------------------------------------------------- public API
def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` keeping only its inputs; recompute the rest in backward
    (``torch.utils.checkpoint.checkpoint``).

    Args:
        function: the region; its outputs are returned as they are.
        *args: its positional arguments (Tensors or anything else).
        use_reentrant: True for the reentrant variant, False for the saved-tensor-hooks one.
            Not passing it warns and takes True, as PyTorch 2.13 does.
        context_fn: non-reentrant only: returns two context managers, entered around the
            forward and around the recomputation.
        determinism_check: "default" compares shape, dtype and device of every recomputed
            tensor with the forward's; "none" does not.
        debug: non-reentrant only: a CheckpointError also lists the ops of the forward and of
            the recomputation (``aten.<op>`` lines).
        early_stop: non-reentrant only: stop the recomputation once every saved tensor is back.
        preserve_rng_state (keyword): replay the random generator's state (default True).
        **kwargs: keyword arguments of ``function`` (non-reentrant only).

    Returns:
        what ``function`` returns.

    Raises:
        ValueError: keyword arguments, ``context_fn`` or ``debug`` with ``use_reentrant=True``;
            an unknown ``determinism_check``; ``debug`` with a non-default ``context_fn``.
        CheckpointError: (in backward) the recomputation saved other tensors than the forward.
        RuntimeError: (in backward, reentrant) under ``autograd.grad`` / ``backward(inputs=)``.

    Deliberate differences: no device-context or torch.compile handling; the debug log names
    ops and output shapes but has no C++ stack traces.
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         debug, early_stop, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a list, or an ``nn.Sequential``'s children) in order, checkpointing
    ``segments - 1`` chunks of ``len(functions) // segments`` modules each; the remainder runs
    without checkpointing, as PyTorch's rule (``torch.utils.checkpoint.checkpoint_sequential``).

    Args:
        functions: modules or callables of one argument.
        segments: the number of chunks.
        input: the first module's input.
        use_reentrant: as ``checkpoint`` (not passing it warns and takes True).
        preserve_rng_state (keyword): as ``checkpoint``.

    Raises:
        ValueError: another keyword argument ("Unexpected keyword arguments: ..."); more
            segments than functions ("range() arg 3 must not be zero", as PyTorch).
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
