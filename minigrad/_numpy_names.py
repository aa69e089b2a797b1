"""NumPy's argument names ``axis=`` and ``keepdims=``, accepted where PyTorch takes ``dim=`` and
``keepdim=``.

PyTorch's C++ argument parser (``python_arg_parser.cpp``, its NumPy-compatibility names) lets
every native function take ``axis`` for ``dim`` and ``keepdims`` for ``keepdim``, so
``x.sum(axis=0, keepdims=True)`` and ``torch.cat([a, b], axis=1)`` work in PyTorch. minigrad's
functions are Python functions with PyTorch's own parameter names; :func:`install` wraps those
that take ``dim`` / ``keepdim`` so that the NumPy names reach them too. The wrapper only renames
keywords (a call without keywords passes straight through) and keeps the function's name,
docstring and signature (``__wrapped__``).

Not wrapped, as in PyTorch (Python functions there, so ``axis=`` is a TypeError):
``split``, ``unique``, ``unflatten``. Not wrapped to keep the hottest shape methods free of
the extra call: ``size``, ``stride``, ``squeeze``, ``unsqueeze``, ``select``, ``narrow``
(deliberate difference: ``x.unsqueeze(axis=0)`` raises TypeError here).
"""
from __future__ import annotations

import functools
import inspect

_SKIP = {"split", "unique", "unflatten", "size", "stride", "squeeze", "squeeze_", "unsqueeze",
         "unsqueeze_", "select", "narrow"}
_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))


def accepting_numpy_names(fn):
    """``fn`` taking ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``.

    Raises:
        TypeError: both spellings given ("sum() got multiple values for argument 'dim'").
    """
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            for numpy_name, torch_name in _ALIASES:
                if numpy_name in kwargs:
                    if torch_name in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument "
                                        f"{torch_name!r}")
                    kwargs[torch_name] = kwargs.pop(numpy_name)
        return fn(*args, **kwargs)
    wrapper._numpy_names = True
    return wrapper


def _wants(fn) -> bool:
    if getattr(fn, "_numpy_names", False) or not callable(fn) or isinstance(fn, type):
        return False
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return ("dim" in params or "keepdim" in params) and "axis" not in params \
        and "keepdims" not in params


def install(tensor_cls, namespace: dict) -> None:
    """Wrap every public ``tensor_cls`` method and every function in ``namespace`` (a module's
    ``globals()``) that takes ``dim`` or ``keepdim`` (see the module docstring for the
    exceptions)."""
    for name in dir(tensor_cls):
        if name.startswith("_") or name in _SKIP:
            continue
        fn = getattr(tensor_cls, name)
        if _wants(fn):
            setattr(tensor_cls, name, accepting_numpy_names(fn))
    for name, fn in list(namespace.items()):
        if not name.startswith("_") and name not in _SKIP and _wants(fn):
            namespace[name] = accepting_numpy_names(fn)

