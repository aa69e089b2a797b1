"""The hook-based weight and spectral normalization (``torch.nn.utils.weight_norm`` /
``remove_weight_norm`` and ``torch.nn.utils.spectral_norm`` / ``remove_spectral_norm``), kept
by PyTorch for old code; ``nn.utils.parametrizations`` has the current versions.

Both replace the parameter ``weight`` by others (``weight_g`` and ``weight_v``; or
``weight_orig`` with the buffers ``weight_u``, ``weight_v``) and install a forward pre-hook
that recomputes ``module.weight`` (a plain attribute) before each call.

Deliberate difference: spectral norm's state-dict version hooks (for checkpoints from
PyTorch < 1.1) are not installed (minigrad's Module has no state-dict hooks).
"""
from __future__ import annotations

import warnings

from ..._functional.matmul import dot, mv
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter
from .parametrizations import _norm_except_dim, _weight_norm

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "SpectralNorm", "spectral_norm",
           "remove_spectral_norm"]


class WeightNorm:
    """The forward pre-hook of ``weight_norm`` (``torch.nn.utils.weight_norm.WeightNorm``)."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        """``g * v / ||v||`` from ``<name>_g`` and ``<name>_v``."""
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"),
                            self.dim)

    @staticmethod
    def apply(module, name, dim):
        """Install on ``module``; warns FutureWarning (deprecated, as PyTorch).

        Raises:
            RuntimeError: already installed on ``name``.
        """
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, 2,
                                                                          fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Make ``<name>`` a plain parameter again, with the current normalized value."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Hook-based weight normalization (``torch.nn.utils.weight_norm``, deprecated): the
    parameter ``name`` becomes ``<name>_g`` (magnitude, shaped like the norm over every dim
    but ``dim``) and ``<name>_v`` (direction). Returns ``module``.

    Raises:
        RuntimeError: applied twice to the same parameter.
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo ``weight_norm`` (``torch.nn.utils.remove_weight_norm``). Returns ``module``.

    Raises:
        ValueError: no weight norm on ``name``.
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm``
    (``torch.nn.utils.spectral_norm.SpectralNorm``).

    Raises:
        ValueError: ``n_power_iterations`` <= 0.
    """

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` with ``dim`` first, flattened to (size(dim), -1)."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        """``weight_orig / sigma``; with ``do_power_iteration`` the buffers u, v are first
        advanced in place (``v = normalize(W^T u)``, then ``u = normalize(W v)``)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mv(weight_mat, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        """Make ``<name>`` a plain parameter again, with the current normalized value."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Install on ``module``: u, v ~ normalize(N(0, 1)) from the global generator.

        Raises:
            RuntimeError: already installed on ``name``. ValueError: the parameter is None.
        """
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Hook-based spectral normalization (``torch.nn.utils.spectral_norm``): ``weight``
    becomes ``weight_orig`` / sigma, sigma estimated by power iteration in training mode.
    ``dim`` defaults to 1 for ConvTranspose, else 0. Returns ``module``."""
    from .parametrizations import _default_dim
    SpectralNorm.apply(module, name, n_power_iterations, _default_dim(module, dim), eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm`` (``torch.nn.utils.remove_spectral_norm``). Returns ``module``.

    Raises:
        ValueError: no spectral norm on ``name``.
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
