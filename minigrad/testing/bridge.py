"""Bridges between minigrad and PyTorch: ``to_torch(obj)`` and ``from_torch(obj)``.

They convert tensors bit for bit (bfloat16 and float8 included), and the objects a training
run is made of:

- tensors (``Parameter``s included), and lists, tuples and dicts of them, recursively (a
  ``state_dict``, an optimizer's or a GradScaler's state dict): other values are kept;
- modules: ``to_torch(model)`` builds the ``torch.nn`` twin of a ``minigrad.nn`` module tree
  (same classes by name, same parameters and buffers, same plain attributes), and
  ``from_torch(torch_model)`` the minigrad twin of a ``torch.nn`` one; ``into=`` instead loads
  the weights into an existing module of the other framework by ``state_dict`` names (the way
  to bridge a user-defined ``Module`` subclass, which has no twin class);
- optimizers and GradScalers: their ``state_dict()`` converted (momentum buffers, Adam's
  moments and steps, the scale and growth tracker), or with ``into=`` loaded into the other
  framework's optimizer / scaler, which must have been built over the twin parameters in the
  same order.

Mirrors nothing in PyTorch (our addition); torch is imported lazily, so minigrad itself never
needs it.
"""
from __future__ import annotations

import importlib

import ml_dtypes
import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor

__all__ = ["to_torch", "from_torch"]


def _is_torch_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _tensor_to_torch(t, *, requires_grad=None):
    """A ``torch.Tensor`` (CPU, contiguous, own storage) with the same bits and dtype as ``t``.

    Args:
        t: a minigrad ``Tensor``.
        requires_grad: the new tensor's flag; None copies ``t.requires_grad``. The result is
            always a leaf (no graph is carried over).

    Returns:
        ``torch.Tensor`` of the matching ``torch.dtype`` (bfloat16 stays bfloat16, bit for bit).

    Raises:
        ImportError: when PyTorch is not installed (imported lazily, on first use).
    """
    import torch
    arr = np.array(t._data, copy=True, order="C")
    if t.dtype is _dt.bfloat16:
        tt = torch.from_numpy(arr.view(np.int16)).view(torch.bfloat16)
    elif t.dtype.is_float8:         # byte for byte
        tt = torch.from_numpy(arr.view(np.uint8)).view(getattr(torch, t.dtype.name))
    else:
        tt = torch.from_numpy(arr)
    rg = t.requires_grad if requires_grad is None else requires_grad
    if rg:
        tt.requires_grad_(True)
    return tt


def _tensor_from_torch(tt, *, requires_grad=None):
    """A minigrad ``Tensor`` with the same bits and dtype as the torch tensor ``tt``.

    Args:
        tt: a ``torch.Tensor`` (detached and copied; any device PyTorch can move to CPU).
        requires_grad: the new leaf's flag; None copies ``tt.requires_grad``.

    Raises:
        TypeError: for a dtype minigrad lacks (complex, uint16...).
    """
    import torch
    name = str(tt.dtype).replace("torch.", "")
    try:
        dt = _dt.as_dtype(name)
    except TypeError:
        raise TypeError(f"from_torch(): minigrad has no dtype for {tt.dtype}") from None
    src = tt.detach().cpu().contiguous()
    if dt is _dt.bfloat16:
        arr = src.view(torch.int16).numpy().view(ml_dtypes.bfloat16).copy()
    elif dt.is_float8:
        arr = src.view(torch.uint8).numpy().view(dt.np).copy()
    else:
        arr = src.numpy().copy()
    out = Tensor._make(arr, dt)
    rg = tt.requires_grad if requires_grad is None else requires_grad
    if rg and dt.is_floating_point:
        out.requires_grad_(True)
    return out




def _convert_tree(x, leaf):
    """``x`` with ``leaf`` applied to each tensor in nested lists, tuples and dicts."""
    if isinstance(x, dict):
        return type(x)((k, _convert_tree(v, leaf)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return type(x)(_convert_tree(v, leaf) for v in x)
    return leaf(x)


def _is_scaler(x, lib) -> bool:
    return type(x).__name__ == "GradScaler" and type(x).__module__.startswith(lib)


def _is_optimizer(x, lib) -> bool:
    return any(c.__name__ == "Optimizer" and c.__module__.startswith(lib)
               for c in type(x).__mro__)


def to_torch(obj, *, requires_grad=None, into=None):
    """PyTorch's copy of a minigrad object (see the module docstring).

    Args:
        obj: a minigrad ``Tensor``; a list/tuple/dict of them (a ``state_dict``); a
            ``minigrad.nn.Module``; an ``optim`` optimizer; an ``amp_emu.GradScaler``.
        requires_grad: for tensors: the new tensors' flag; None copies each one's.
        into: a ``torch.nn.Module`` / ``torch.optim.Optimizer`` / ``torch.amp.GradScaler`` to
            load ``obj``'s state into (``load_state_dict``); it is returned.

    Returns:
        a ``torch.Tensor`` (CPU, contiguous, own storage, same bits and dtype; always a leaf),
        the converted container, the ``torch.nn`` twin module, or the converted state dict
        (optimizers and scalers without ``into``).

    Raises:
        ImportError: without PyTorch. TypeError: for an object it cannot convert (a module
        subclass of the user's own without ``into=``). Whatever ``load_state_dict`` raises for
        mismatched names or shapes.
    """
    from ..nn import Module
    if isinstance(obj, Tensor):
        return _tensor_to_torch(obj, requires_grad=requires_grad)
    if isinstance(obj, (list, tuple, dict)):
        return _convert_tree(obj, lambda v: to_torch(v, requires_grad=requires_grad)
                             if isinstance(v, Tensor) else v)
    if isinstance(obj, Module):
        if into is not None:
            into.load_state_dict(to_torch(obj.state_dict(), requires_grad=False))
            return into
        return _module_to_torch(obj)
    if _is_optimizer(obj, "optim") or _is_scaler(obj, "amp_emu"):
        state = to_torch(obj.state_dict(), requires_grad=False)
        if into is not None:
            into.load_state_dict(state)
            return into
        return state
    raise TypeError(f"to_torch() cannot convert {type(obj).__name__} (tensors, containers of "
                    "them, minigrad.nn modules, optimizers and GradScalers)")


def from_torch(obj, *, requires_grad=None, into=None):
    """minigrad's copy of a PyTorch object: the mirror of ``to_torch`` (see there).

    Args:
        obj: a ``torch.Tensor`` (any device PyTorch can move to CPU); a list/tuple/dict of them;
            a ``torch.nn.Module``; a ``torch.optim.Optimizer``; a ``torch.amp.GradScaler``.
        requires_grad: for tensors: the new leaves' flag; None copies each one's.
        into: a ``minigrad.nn.Module`` / ``optim`` optimizer / ``amp_emu.GradScaler`` to load
            ``obj``'s state into; it is returned.

    Raises:
        TypeError: for a dtype minigrad lacks (complex, uint16...) or an object it cannot
        convert (a module class minigrad.nn lacks, without ``into=``).
    """
    if _is_torch_tensor(obj):
        return _tensor_from_torch(obj, requires_grad=requires_grad)
    if isinstance(obj, (list, tuple, dict)):
        return _convert_tree(obj, lambda v: from_torch(v, requires_grad=requires_grad)
                             if _is_torch_tensor(v) else v)
    import torch
    if isinstance(obj, torch.nn.Module):
        if into is not None:
            into.load_state_dict(from_torch(obj.state_dict(), requires_grad=False))
            return into
        return _module_from_torch(obj)
    if isinstance(obj, torch.optim.Optimizer) or _is_scaler(obj, "torch"):
        state = from_torch(obj.state_dict(), requires_grad=False)
        if into is not None:
            into.load_state_dict(state)
            return into
        return state
    raise TypeError(f"from_torch() cannot convert {type(obj).__name__} (tensors, containers "
                    "of them, torch.nn modules, optimizers and GradScalers)")


# ----------------------------------------------------------------------------- module twins
_INTERNALS = []


def _module_internals():
    """The attribute names ``torch.nn.Module.__init__`` itself sets (and minigrad's own
    bookkeeping): not copied onto a twin."""
    if not _INTERNALS:
        import torch
        from ..nn import Module
        _INTERNALS.append(set(vars(torch.nn.Module())) | set(vars(Module())))
    return _INTERNALS[0]


def _twin_class(m, src, dst):
    """The class of ``dst`` (``"torch"`` or ``"minigrad"``) named as ``m``'s, looked up in
    ``dst.nn`` or in the module of the same path (``...nn.modules.linear``); None if none."""
    mod = type(m).__module__
    if not mod.startswith(src + ".nn"):
        return None
    nn = importlib.import_module(dst + ".nn")
    cls = getattr(nn, type(m).__name__, None)
    if cls is None and mod.startswith(src + ".nn.modules."):    # e.g. attention's
        try:                                                    # NonDynamicallyQuantizable-
            cls = getattr(importlib.import_module(dst + mod[len(src):]),     # Linear
                          type(m).__name__, None)
        except ImportError:
            cls = None
    return cls


def _holds_tensor(v) -> bool:
    """Whether ``v`` is a tensor of either framework or a list/tuple holding one (an RNN's
    ``_flat_weights``): the twin makes its own."""
    if isinstance(v, (list, tuple)):
        return any(_holds_tensor(x) for x in v)
    return isinstance(v, Tensor) or _is_torch_tensor(v)


def _copy_attributes(m, t, functional):
    """Plain attributes of ``m`` onto its twin ``t`` (functions such as ``F.relu`` swapped for
    ``functional``'s namesake)."""
    internals = _module_internals()
    for k, v in vars(m).items():
        if k in internals or k.startswith("__") or _holds_tensor(v):
            continue            # (private plain attributes are copied: _qkv_same_embed_dim...)
        if callable(v) and getattr(v, "__module__", "").split(".")[0] in ("minigrad", "torch") \
                and not isinstance(v, type):
            v = getattr(functional, getattr(v, "__name__", ""), None)     # F.relu...
            if v is None:
                continue
        try:
            setattr(t, k, v)
        except (AttributeError, TypeError):
            pass


def _module_to_torch(m):
    """The ``torch.nn`` twin of a ``minigrad.nn`` module tree, with the same parameters and
    buffers (bit for bit) and the same plain attributes."""
    import torch
    cls = _twin_class(m, "minigrad", "torch")
    if cls is None:
        raise TypeError(f"to_torch: cannot build a torch twin of {type(m).__name__} (only "
                        "minigrad.nn modules have one; build the torch model yourself and pass "
                        "it as into=, which loads the weights by state_dict names; in "
                        "compare_with_torch: Twin(module, torch_module))")
    t = cls.__new__(cls)
    torch.nn.Module.__init__(t)
    _copy_attributes(m, t, torch.nn.functional)
    for k, p in m._parameters.items():
        t._parameters[k] = None if p is None else torch.nn.Parameter(
            _tensor_to_torch(p.detach()), requires_grad=p.requires_grad)
    for k, b in m._buffers.items():
        t._buffers[k] = None if b is None else _tensor_to_torch(b)
    for k, sub in m._modules.items():
        t._modules[k] = None if sub is None else _module_to_torch(sub)
    if isinstance(t, torch.nn.RNNBase):     # its forward reads the flat weight list
        t._flat_weights_names = list(m._parameters)
        t._all_weights = [list(m._parameters)]
        t._init_flat_weights()
    return t


def _module_from_torch(t):
    """The ``minigrad.nn`` twin of a ``torch.nn`` module tree (the mirror of
    ``_module_to_torch``)."""
    from .. import nn
    cls = _twin_class(t, "torch", "minigrad")
    if cls is None:
        raise TypeError(f"from_torch: cannot build a minigrad twin of {type(t).__name__} "
                        "(only torch.nn modules that minigrad.nn has; build the minigrad model "
                        "yourself and pass it as into=, which loads the weights by state_dict "
                        "names)")
    m = cls.__new__(cls)
    nn.Module.__init__(m)
    _copy_attributes(t, m, nn.functional)
    for k, p in t._parameters.items():
        m._parameters[k] = None if p is None else nn.Parameter(
            _tensor_from_torch(p.detach(), requires_grad=False), requires_grad=p.requires_grad)
    for k, b in t._buffers.items():
        m._buffers[k] = None if b is None else _tensor_from_torch(b, requires_grad=False)
    for k, sub in t._modules.items():
        m._modules[k] = None if sub is None else _module_from_torch(sub)
    return m
