"""Saved-tensor hooks: what the graph keeps for backward, and how (``torch.autograd.graph``).

Every tensor an op saves for its backward (through ``ctx.save_for_backward``, which the built-in
ops use too) becomes a ``SavedTensor`` of its node. Inside ``saved_tensors_hooks(pack, unpack)``
the node keeps ``pack(tensor)`` instead, and each access of the saved tensor (the node's backward
reading ``ctx.saved_tensors``, or ``grad_fn._saved_self``) calls ``unpack(packed)``. That is
enough to build offloading (``save_on_cpu``), compression, or recomputation
(``minigrad.utils.checkpoint``'s non-reentrant variant packs an empty holder and refills it by
rerunning the forward).

Rules, as PyTorch's (checked against torch 2.13 in ``tests/unit/test_saved_tensor_hooks.py``):

- the hooks are per thread and nest; only the innermost pair applies;
- pack runs when the op is recorded (never under ``no_grad``, never for a saved ``None`` or a
  Python number), after the op's outputs have their ``grad_fn``: a saved output reaches
  ``pack`` with its history;
- unpack runs on every access; the tensor it returns gets the saved tensor's place in the graph
  back (``grad_fn``, or the leaf's gradient accumulator), so double backward still works;
- a tensor saved with hooks is not checked for in-place changes, and a pack hook that changes
  its input in place raises RuntimeError;
- after a backward without ``retain_graph`` the packed values are dropped, and any access raises
  the "Trying to backward through the graph a second time" RuntimeError.

``to_dot`` / ``render`` (from ``minigrad.autograd.dot``) draw the graph these hooks act on.
"""
from __future__ import annotations

import contextlib

from .dot import render, to_dot
from .saved_tensors import _HOOKS_ACTIVE, RawSavedTensor, _hooks_state

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "RawSavedTensor",
           "to_dot", "render"]


class saved_tensors_hooks:
    """Context manager setting pack / unpack hooks for tensors saved for backward
    (``torch.autograd.graph.saved_tensors_hooks``).

    Args:
        pack_hook: ``pack_hook(tensor) -> Any``, called once per tensor saved in the region;
            what it returns is stored in the graph instead of the tensor. It must not modify the
            tensor in place, and should not keep a reference to it (``x.detach()``, not ``x``).
        unpack_hook: ``unpack_hook(packed) -> Tensor``, called each time the saved tensor is
            read; it should give a tensor equal in value, shape, dtype and device.

    Raises:
        RuntimeError: on entry, inside ``disable_saved_tensors_hooks`` (its message).
        TypeError: at unpack, when ``unpack_hook`` returns something other than a Tensor.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        st = _hooks_state
        if st.disabled is not None:
            raise RuntimeError(st.disabled)
        st.stack.append((self.pack_hook, self.unpack_hook))
        _HOOKS_ACTIVE[0] += 1

    def __exit__(self, *exc):
        _hooks_state.stack.pop()
        _HOOKS_ACTIVE[0] -= 1
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are moved to the cpu device when saved and back to their device when read
    (``torch.autograd.graph.save_on_cpu``): trade transfer time for (emulated) cuda memory.

    Args:
        pin_memory: accepted for PyTorch compatibility; the emulated device's copies are
            synchronous host copies either way.
        device_type: accepted for PyTorch compatibility ("cuda").

    A tensor already on the cpu is not copied (``.cpu()`` returns it), as in PyTorch.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Disable saved-tensor hooks in the region (``torch.autograd.graph.
    disable_saved_tensors_hooks``): entering ``saved_tensors_hooks`` there, or saving a tensor
    while hooks set outside are active, raises ``RuntimeError(error_message)``. Nests; the
    previous message is restored on exit.
    """
    st = _hooks_state
    prev = st.disabled
    st.disabled = error_message
    _HOOKS_ACTIVE[0] += 1
    try:
        yield
    finally:
        st.disabled = prev
        _HOOKS_ACTIVE[0] -= 1
