"""Pruning (``torch.nn.utils.prune``): zero chosen entries of a parameter through a mask.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, stores the 0/1 mask as the
buffer ``weight_mask`` and installs a forward pre-hook that sets ``module.weight = weight_mask *
weight_orig`` (a plain attribute) before every call, so the pruned entries get zero gradient.
Pruning the same tensor again builds a ``PruningContainer``: the new method only chooses among
the entries still unpruned. ``remove`` makes the pruning permanent (``weight`` a parameter
again, holding the masked values).

Provided: ``identity``, ``random_unstructured``, ``l1_unstructured``, ``random_structured``,
``ln_structured`` (whole channels along ``dim``), ``global_unstructured``, ``custom_from_mask``,
``remove``, ``is_pruned`` and the method classes.
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._functional.factories import ones_like, rand, rand_like, zeros_like
from ..._functional.indexing import nonzero
from ..._functional.reduction import norm
from ..._functional.sorting import kthvalue, topk
from ...autograd.grad_mode import no_grad
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask`` chooses the mask, ``apply`` installs it as a forward
    pre-hook on a module (``torch.nn.utils.prune.BasePruningMethod``)."""

    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t`` (same shape), given the mask of earlier pruning."""

    def apply_mask(self, module):
        """``<name>_mask * <name>_orig`` (the mask cast to the parameter's dtype)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, combined with any earlier
        pruning of that tensor; ``importance_scores`` (shaped like the parameter) replace its
        values when choosing the entries.

        Raises:
            AssertionError: ``importance_scores`` of another shape (PyTorch's message).
        """
        old, keys = None, []
        for k, hook in module._forward_pre_hooks.items():
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old = hook
                keys.append(k)
        if len(keys) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                                 f"of module {module}. Use a PruningContainer.")
        for k in keys:
            del module._forward_pre_hooks[k]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old is not None:
            if not isinstance(old, PruningContainer):
                old = PruningContainer(old)
            old.add_pruning_method(method)
            method = old
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter "
                                     f"{name} of {module}, got {importance_scores.shape} vs "
                                     f"{orig.shape}")
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            with no_grad():
                mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes (nothing is installed)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t, "
                                 f"got {importance_scores.shape} vs {t.shape}")
        scores = t if importance_scores is None else importance_scores
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` becomes the parameter ``<name>_orig`` holding
        the masked values; ``_orig`` and ``_mask`` go."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        with no_grad():
            orig.copy_(weight)      # PyTorch: orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """Successive pruning of one tensor (``torch.nn.utils.prune.PruningContainer``): the last
    method added chooses only among the entries the earlier masks kept.

    Raises:
        TypeError: a method that is not a BasePruningMethod. ValueError: a method for another
            tensor name.
    """

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (for the same tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask on the still-unpruned entries (unstructured: those where the
        mask is 1; structured: the channels along ``method.dim`` not all zero; global: all),
        written into a copy of ``default_mask``.

        Raises:
            ValueError: a method whose PRUNING_TYPE is unknown. AttributeError: a structured
                method without ``dim``. IndexError: a ``dim`` out of range.
        """
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            keep = default_mask == 1
            partial = method.compute_mask(t[keep], default_mask=default_mask[keep])
            new_mask[keep] = partial.to(dtype=new_mask.dtype)
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have '
                                     "the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            others = [d for d in range(n_dims) if d != dim]
            keep = nonzero(default_mask.sum(dim=others) != 0).flatten()
            partial = method.compute_mask(t.index_select(dim, keep),
                                          default_mask=default_mask.index_select(dim, keep))
            new_mask.index_copy_(dim, keep, partial.to(dtype=new_mask.dtype))
        elif method.PRUNING_TYPE == "global":
            new_mask = method.compute_mask(t, default_mask=default_mask).to(dtype=t.dtype)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        return new_mask


class Identity(BasePruningMethod):
    """Prune nothing (the mask stays all ones) (``torch.nn.utils.prune.Identity``)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Install on ``module.<name>``."""
        return super().apply(module, name)


def _validate_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _nparams_to_prune(amount, size):
    """How many entries to prune: ``amount`` itself (an int) or ``round(amount * size)``.

    Raises:
        ValueError: an int ``amount`` larger than ``size``.
    """
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters "
                             f"to prune={size}")
        return amount
    return round(amount * size)


class RandomUnstructured(BasePruningMethod):
    """Prune ``amount`` entries chosen at random: the ``k`` largest of ``rand_like(t)``
    (``torch.nn.utils.prune.RandomUnstructured``, the same draws as PyTorch's generator).

    Raises:
        TypeError / ValueError: a bad ``amount`` (PyTorch's messages).
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _nparams_to_prune(self.amount, t.nelement())
        mask = default_mask.clone()
        if k != 0:
            idx = topk(rand_like(t).view(-1), k=k).indices
            mask.view(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        """Install on ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune the ``amount`` entries of smallest absolute value
    (``torch.nn.utils.prune.L1Unstructured``).

    Raises:
        TypeError / ValueError: a bad ``amount`` (PyTorch's messages).
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        k = _nparams_to_prune(self.amount, t.nelement())
        mask = default_mask.clone()
        if k != 0:
            idx = topk(t.abs().view(-1), k=k, largest=False).indices
            mask.view(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Install on ``module.<name>``."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _validate_structured(t, dim):
    if len(t.shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {len(t.shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channel_mask(t, dim, channels):
    """Ones on the channels ``channels`` (int64 indices) along ``dim``, zeros elsewhere."""
    return zeros_like(t).index_fill_(dim, channels, 1)


class RandomStructured(BasePruningMethod):
    """Prune ``amount`` whole channels along ``dim`` chosen at random: those whose
    ``rand(channels)`` draw is at most the ``k``-th smallest
    (``torch.nn.utils.prune.RandomStructured``, the same draws as PyTorch).

    Raises:
        TypeError / ValueError: a bad ``amount``; ValueError: a 1-d tensor; IndexError: a bad
            ``dim`` (PyTorch's messages).
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _nparams_to_prune(self.amount, size)
        if k == 0:
            return default_mask
        prob = rand(size)
        threshold = kthvalue(prob, k=k).values
        mask = _channel_mask(t, self.dim, nonzero(prob > threshold).flatten())
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Install on ``module.<name>``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune the ``amount`` channels along ``dim`` of smallest ``n``-norm
    (``torch.nn.utils.prune.LnStructured``).

    Raises:
        as ``RandomStructured``.
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured(t, self.dim)
        size = t.shape[self.dim]
        k = _nparams_to_prune(self.amount, size)
        dims = list(range(t.dim()))
        dims.remove(dims[self.dim])
        channel_norms = norm(t, p=self.n, dim=dims)
        if k == 0:
            return default_mask
        kept = topk(channel_norms, k=size - k, largest=True).indices
        mask = _channel_mask(t, self.dim, kept)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Install on ``module.<name>``."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune with a given mask (``torch.nn.utils.prune.CustomFromMask``)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask "
                                 f"shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Install on ``module.<name>``."""
        return super().apply(module, name, mask=mask)


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
