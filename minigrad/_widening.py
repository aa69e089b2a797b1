"""The widening cache: the fp32 image of an fp16 array, kept so that it is widened once.

fp16 products and sums compute in fp32 (``ops._util.opmath``), so an fp16 tensor is widened
each time an op reads it: under autocast the input cast to fp16 is widened by the forward
``addmm`` and again by its backward (it is saved for the weight's gradient), a ReLU output by
the next layer's ``addmm`` and again by its backward, the weight's fp16 copy by the forward and
again by the input's gradient, a gradient by both matmuls of an ``addmm`` backward and by the
bias's sum. The widening is exact (an fp16 value is an fp32 value), so reading a kept copy
instead gives the same bits; this module keeps it.

Who makes and reads images:

- Readers: the fp16 operands of a matmul (``linalg._product``) and the input of ``SumToSize``
  (a bias's gradient) through ``ops._util.opmath_read`` (``widen``: the image, else a plain
  widening: a reader never keeps one, since it cannot tell an array minigrad made from memory
  shared with NumPy, ``from_numpy(a)``, which the caller may write without a version bump);
  ``_to_copy`` to float32 (``take``: the image handed over or copied).
- Makers by the rounding itself (``_fp16.float32_to_float16_widened``: one more pass where a
  later widening takes five): ``_to_copy`` fp32 -> fp16 (autocast's casts) and, while a
  backward runs, an fp16 ``mm``'s result (``ops._util.wrap_widened``: a weight's gradient,
  which autocast's ``ToCopyBackward0`` widens next).

Rules:

- An entry belongs to one fp16 array that owns its memory (the *root*: a tensor's storage) of
  at least ``_fp16.MIN_SIZE`` elements, C- or F-contiguous, and holds its fp32 image in the
  same layout. A lookup through the root itself or its 2-D transpose (``weight.t()``,
  ``grad.t()``) gets the image viewed the same way, so a matmul operand has the layout an
  uncached widening would give it (OpenBLAS's bits depend on it); other views miss.
- Valid while the tensor's version counter is the one recorded: an in-place write (which bumps
  it) invalidates the entry. Handing the buffer out where writes would not bump it
  (``Tensor.data``, ``numpy()``, ``__array__``), sharing it under another version counter
  (``Tensor.data = ...``) or making it a parameter's (``nn.Parameter(t)``,
  ``requires_grad_()``) drops the entry (``forget``).
- Lifetime: the fp16 array's (a weak reference: the entry goes when the array is freed). The
  arrays that get images are a graph's activations and casts, kept by its saved tensors until
  backward frees the graph (unless ``retain_graph``), and gradients, freed as backward moves
  on; a temporary's image goes with it (under ``no_grad`` nothing is saved, so nothing stays
  but the images of fp16 tensors the caller keeps, e.g. ``x16 = x.half()``, while it keeps
  them).
  Never for a Parameter (or another Tensor subclass) nor a leaf that requires grad, whose
  arrays live as long as the model and which optimizers update in place.
- Host-side emulation state, not device memory: the emulated device's figures
  (``minigrad.cuda.memory_allocated``, ``memory_stats``, snapshots, ``minigrad.memory``) do not
  count it, so they stay PyTorch's. Its own figure is ``stats()``
  (``minigrad.memory.widening_cache_stats``): bytes held now and at the peak, entries, hits.

PyTorch has no such cache (its fp16 matmuls read fp16 directly); it mirrors nothing.
"""
from __future__ import annotations

import contextlib
import weakref

import numpy as np

from ._fp16 import MIN_SIZE, float16_to_float32

_Tensor = None                # minigrad.tensor.Tensor, set by tensor.py (which imports this)

__all__ = ["lookup", "take", "widen", "put", "forget", "stats", "reset_peak", "clear", "disabled",
           "account"]

_F16 = np.dtype(np.float16)
_entries = {}                 # id(root fp16 array) -> _Entry
_figures = {"current": 0, "peak": 0, "hits": 0}
_on = [True]                  # False inside ``disabled()``


class _Entry:
    __slots__ = ("ref", "wide", "vc", "version")


def _dropped(key):
    def callback(_ref):
        e = _entries.pop(key, None)
        if e is not None and e.ref is _ref:
            _figures["current"] -= e.wide.nbytes
        elif e is not None:               # a newer entry under a reused id: put it back
            _entries[key] = e
    return callback


def _root(a):
    """The array owning ``a``'s memory, when it is an ndarray (else None)."""
    b = a.base
    if b is None:
        return a
    return b if type(b) is np.ndarray and b.base is None else None


def _as_viewed(a, root, wide):
    """``wide`` (root's image) viewed as ``a`` views ``root``: root itself or its 2-D transpose;
    None for another view."""
    if a is root:
        return wide
    if a.shape == root.shape and a.strides == root.strides:
        return wide if _same_start(a, root) else None
    if a.ndim == 2 and a.shape == root.shape[::-1] and a.strides == root.strides[::-1]:
        return wide.T if _same_start(a, root) else None
    return None


def _same_start(a, root):
    return a.__array_interface__["data"][0] == root.__array_interface__["data"][0]


def lookup(t):
    """The kept fp32 image of fp16 tensor ``t``'s array (viewed as ``t``'s), or None.

    The result is shared: read it, never write it."""
    if not _entries or not _on[0]:
        return None
    a = t._data
    root = _root(a)
    if root is None:
        return None
    e = _entries.get(id(root))
    if e is None or e.ref() is not root or e.vc is not t._vc or e.version != t._vc[0]:
        return None
    w = _as_viewed(a, root, e.wide)
    if w is not None:
        _figures["hits"] += 1
    return w


def take(t):
    """fp16 tensor ``t``'s kept image as an fp32 array that owns its memory, for a copy-out
    (``_to_copy`` to float32), or None when there is none. When ``t`` reads its array in the
    root's own layout and the image owns its memory, the entry is handed over (removed from the
    cache: no copy, and nothing else holds the array); otherwise the image is copied, in the
    layout ``float16_to_float32`` gives."""
    w = lookup(t)
    if w is None:
        return None
    root = _root(t._data)
    e = _entries[id(root)]
    if w is e.wide and w.base is None:
        del _entries[id(root)]
        _figures["current"] -= w.nbytes
        return w
    return w.copy(order="K")


def _may_keep(t):
    """Whether an image of ``t``'s array may be kept: not for a Parameter (or another Tensor
    subclass) nor a leaf that requires grad, whose arrays live as long as the model and are
    updated in place by optimizers; not inside ``disabled()``."""
    b = t if t._base is None else t._base
    return _on[0] and type(b) is _Tensor and not (b._requires_grad and b._grad_fn is None)


def widen(t):
    """fp16 tensor ``t``'s values as an fp32 array, bit-identical to
    ``_fp16.float16_to_float32(t._data)``: the kept image when there is one, else a fresh
    widening (not kept: see the module docstring). Shared: read it, never write it.
    ``t._data`` must be float16."""
    a = t._data
    if a.size < MIN_SIZE:
        return float16_to_float32(a)
    w = lookup(t)
    if w is not None:
        return w
    return float16_to_float32(a)


def put(t, wide):
    """Keep ``wide`` (fp32, ``t``'s shape and layout) as the image of the array of fp16 tensor
    ``t``, which must own it (a fresh result), when the rules allow."""
    a = t._data
    if a.size >= MIN_SIZE and a.base is None and _may_keep(t):
        _put(t, a, wide)


def _put(t, root, wide):
    f = root.flags
    if not (f.c_contiguous or f.f_contiguous) or root.size < MIN_SIZE:
        return
    key = id(root)
    old = _entries.get(key)
    if old is not None:
        _figures["current"] -= old.wide.nbytes
    e = _Entry()
    e.ref = weakref.ref(root, _dropped(key))
    e.wide, e.vc, e.version = wide, t._vc, t._vc[0]
    _entries[key] = e
    cur = _figures["current"] = _figures["current"] + wide.nbytes
    if cur > _figures["peak"]:
        _figures["peak"] = cur


def forget(a):
    """Drop the entry of the array owning ``a``'s memory (its buffer is being handed out)."""
    root = _root(a) if isinstance(a, np.ndarray) else None
    if root is not None:
        e = _entries.pop(id(root), None)
        if e is not None:
            _figures["current"] -= e.wide.nbytes


def account(nbytes: int) -> None:
    """Add ``nbytes`` (negative: release) to the figures' ``current`` / ``peak``: the other
    host-side emulation cache, tanh-form GELU's kept forward tanh (``ops.smooth_activation``),
    is counted here too, so that ``stats()`` shows every byte minigrad keeps beside PyTorch's."""
    cur = _figures["current"] = _figures["current"] + nbytes
    if cur > _figures["peak"]:
        _figures["peak"] = cur


def stats() -> dict:
    """The cache's figures: ``{"current": bytes held, "peak": most bytes held since the last
    ``reset_peak``, "entries": arrays with an image, "hits": lookups served}``."""
    return {"current": _figures["current"], "peak": _figures["peak"],
            "entries": len(_entries), "hits": _figures["hits"]}


def reset_peak() -> None:
    """Set the peak to the bytes held now, and the hit count to 0."""
    _figures["peak"] = _figures["current"]
    _figures["hits"] = 0


@contextlib.contextmanager
def disabled():
    """A region where the cache neither serves nor keeps anything (every widening is done
    afresh, the path without a cache), for tests that compare the two; entries made before
    stay."""
    prev = _on[0]
    _on[0] = False
    try:
        yield
    finally:
        _on[0] = prev


def clear() -> None:
    """Drop every entry."""
    _entries.clear()
    _figures["current"] = 0
