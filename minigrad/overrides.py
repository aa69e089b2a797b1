"""``minigrad.overrides`` (mirrors the basics of ``torch.overrides``): the ``__torch_function__``
checks that library code calls before its own work.

minigrad has no ``__torch_function__`` protocol of its own: its ops never look for the method.
These helpers answer as PyTorch's do for the objects a minigrad script passes: plain tensors and
numbers have no override (``has_torch_function`` is False), and ``handle_torch_function`` calls
the overrides of any argument whose type does define ``__torch_function__`` (PyTorch's calling
convention), or the function itself when only plain tensors are involved.
"""
from __future__ import annotations

from .tensor import Tensor

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like"]


def _overloaded_args(relevant_args):
    """The arguments (one per type, in order) whose types define ``__torch_function__``."""
    seen, out = set(), []
    for arg in relevant_args:
        t = type(arg)
        if t not in seen and hasattr(t, "__torch_function__"):
            seen.add(t)
            out.append(arg)
    return out


def has_torch_function(relevant_args) -> bool:
    """Whether any of ``relevant_args`` (an iterable) has a ``__torch_function__`` override
    (``torch.overrides.has_torch_function``): False for plain tensors and numbers."""
    return bool(_overloaded_args(relevant_args))


def has_torch_function_unary(arg) -> bool:
    """``has_torch_function((arg,))`` (``torch.overrides.has_torch_function_unary``)."""
    return has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    """``has_torch_function(args)`` (``torch.overrides.has_torch_function_variadic``)."""
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the ``__torch_function__`` overrides of ``relevant_args`` for ``public_api(*args,
    **kwargs)`` (``torch.overrides.handle_torch_function``): each override is called as
    ``type(arg).__torch_function__(public_api, types, args, kwargs)`` until one returns something
    other than ``NotImplemented``. With no override and a plain tensor among ``relevant_args``,
    the result is ``public_api(*args, **kwargs)`` (PyTorch's default ``Tensor.__torch_function__``).

    Raises:
        TypeError: no override handled the call ("no implementation found for 'mod.name' on
            types that implement __torch_function__: [...]").
    """
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if not overloaded and any(isinstance(a, Tensor) for a in relevant_args):
        return public_api(*args, **kwargs)
    name = f"{public_api.__module__}.{getattr(public_api, '__qualname__', public_api)}"
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {[type(a) for a in overloaded]}")


def is_tensor_like(inp) -> bool:
    """Whether ``inp`` is a Tensor (or subclass instance) or its type defines
    ``__torch_function__`` (``torch.overrides.is_tensor_like``)."""
    return isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")
