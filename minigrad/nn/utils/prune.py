"""Pruning (``torch.nn.utils.prune``): zero chosen entries of a parameter through a mask.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, stores the 0/1 mask as the
buffer ``weight_mask`` and installs a forward pre-hook that sets ``module.weight = weight_mask *
weight_orig`` (a plain attribute) before every call, so the pruned entries get zero gradient.
Pruning the same tensor again builds a ``PruningContainer``: the new method only chooses among
the entries still unpruned. ``remove`` makes the pruning permanent (``weight`` a parameter
again, holding the masked values).

Provided: ``identity``, ``random_unstructured``, ``l1_unstructured``, ``random_structured``,
``ln_structured`` (whole channels along ``dim``), ``global_unstructured``, ``custom_from_mask``,
``remove``, ``is_pruned`` and the method classes (the hook machinery is in ``_pruning_base``,
the methods in ``_pruning_methods``).
"""
from __future__ import annotations

from collections.abc import Iterable

from ..._functional.factories import ones_like
from ...autograd.grad_mode import no_grad
from ._pruning_base import BasePruningMethod, PruningContainer
from ._pruning_methods import (CustomFromMask, Identity, L1Unstructured, LnStructured,
                               RandomStructured, RandomUnstructured)
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def identity(module, name):
    """Install an all-ones mask on ``module.<name>`` (``torch.nn.utils.prune.identity``)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` (an int count, or a fraction) random entries of ``module.<name>``
    (``torch.nn.utils.prune.random_unstructured``). Returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` smallest-magnitude entries of ``module.<name>``
    (``torch.nn.utils.prune.l1_unstructured``). Returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``
    (``torch.nn.utils.prune.random_structured``). Returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` with the smallest
    ``n``-norm (``torch.nn.utils.prune.ln_structured``). Returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune several tensors as one: ``pruning_method(**kwargs)`` chooses among all their
    (still unpruned) entries together, then each gets its slice of the mask as a
    ``CustomFromMask`` (``torch.nn.utils.prune.global_unstructured``).

    Args:
        parameters: an iterable of ``(module, name)`` pairs.
        pruning_method: an unstructured method class, e.g. ``L1Unstructured``.
        importance_scores: optional dict ``(module, name) -> scores``.
        kwargs: the method's arguments (``amount=``).

    Raises:
        TypeError: ``parameters`` not iterable, ``importance_scores`` not a dict, or a method
            that is not unstructured (PyTorch's messages).
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    default_mask = parameters_to_vector([getattr(m, n + "_mask") if hasattr(m, n + "_mask")
                                         else ones_like(getattr(m, n)) for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    with no_grad():
        final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        n = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + n].view_as(param))
        pointer += n


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` with ``mask`` (``torch.nn.utils.prune.custom_from_mask``).
    Returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (``torch.nn.utils.prune.remove``).

    Raises:
        ValueError: ``name`` is not pruned.
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can "
                     "be removed")


def is_pruned(module):
    """Whether ``module`` or a submodule has a pruning hook
    (``torch.nn.utils.prune.is_pruned``)."""
    for _, sub in module.named_modules():
        for hook in sub._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False
