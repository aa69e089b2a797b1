"""Calling a module with other tensors in place of its parameters and buffers
(``torch.nn.utils.stateless``; the same function is ``torch.func.functional_call``).

``functional_call(model, {"weight": w}, x)`` swaps ``w`` into ``model.weight`` for the one call,
then puts the original back (in a ``finally``), so gradients flow to ``w`` and never to the
module's own parameter. Tied weights (one tensor under two names) are swapped together unless
``tie_weights=False``.
"""
from __future__ import annotations

import contextlib
import warnings

from ...tensor import Tensor

__all__ = ["functional_call"]

_MISSING = object()


def _swap_tensor(module, name, tensor):
    """Put ``tensor`` (or remove the attribute, for ``_MISSING``) at ``module.name``; return
    what was there (``_MISSING`` if nothing). A parameter slot keeps its place in
    ``_parameters`` (and a buffer in ``_buffers``), as PyTorch's ``swap_tensor`` does."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor
            return orig
    orig = getattr(module, name) if hasattr(module, name) else _MISSING
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def _swap_all(module, tensors):
    """Swap every dotted name of ``tensors`` into ``module``; return the originals."""
    orig = {}
    for name, t in tensors.items():
        prefix, _, attr = name.rpartition(".")
        orig[name] = _swap_tensor(module.get_submodule(prefix), attr, t)
    return orig


def _untie(module, parameters_and_buffers):
    """Extend the mapping to every name of a tied tensor (PyTorch's
    ``_untie_named_tensors_map``).

    Raises:
        ValueError: two names of one tied tensor given different values.
    """
    names_of = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given = [n for n in parameters_and_buffers if n in tied]
    for name in given:
        names = tied[name]
        values = {id(parameters_and_buffers[n]) for n in names if n in parameters_and_buffers}
        if len(names.intersection(given)) > 1 and len(values) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(parameters_and_buffers)
    for name in given:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    """Context manager: ``module`` holds ``parameters_and_buffers`` inside, its own tensors
    again after (also on an exception).

    Raises:
        RuntimeError: ``strict`` and the names do not match the module's exactly.
    """
    tensors = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(valid - set(tensors)), sorted(set(tensors) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    orig = {}
    try:
        orig = _swap_all(module, tensors)
        yield
    finally:
        _swap_all(module, orig)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                     tie_weights=True, strict=False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with ``parameters_and_buffers`` (dotted name -> Tensor)
    in place of the module's own tensors (``torch.nn.utils.stateless.functional_call``,
    deprecated in PyTorch 2.0 for ``torch.func.functional_call``; it warns as PyTorch does).

    Args:
        module: the Module.
        parameters_and_buffers: names as in ``named_parameters`` / ``named_buffers``; names not
            given keep the module's tensors (unless ``strict``).
        args: one argument, or a tuple of positional arguments.
        kwargs: keyword arguments.
        tie_weights: a tensor tied under several names is replaced under all of them.
        strict: the names must be exactly the module's parameters and buffers.

    Returns:
        What ``module`` returns.

    Raises:
        RuntimeError: ``strict`` mismatch (PyTorch's message). ValueError: different values for
        tied names. TypeError: a value that is not a Tensor.
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
