"""Ready-made parametrizations (``torch.nn.utils.parametrizations``): ``weight_norm`` and
``spectral_norm``, registered with ``nn.utils.parametrize``.

- ``weight_norm``: ``w = g * v / ||v||`` with the norm over every dim but ``dim``; stored as
  ``parametrizations.weight.original0`` (g) and ``original1`` (v).
- ``spectral_norm``: ``w = W / sigma(W)``, sigma the largest singular value of W reshaped to a
  matrix (rows along ``dim``), estimated by power iteration: in training mode every read of
  ``weight`` runs ``n_power_iterations`` steps, updating the buffers ``_u`` and ``_v`` in place.

Both are composites of dispatched ops (``norm``, ``div``, ``mul``, ``mv``, ``dot``,
``F.normalize``), so autograd and the modes see them; PyTorch's CPU ``_weight_norm`` is one fused
kernel, so float results agree to rounding, not bit for bit.

Deliberate difference: the load-state-dict hook that converts a legacy ``weight_g`` /
``weight_v`` state dict is not installed (minigrad's Module has no load_state_dict pre-hooks).
"""
from __future__ import annotations

from ..._functional.matmul import dot, mv
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm"]


def _norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, keeping ``v``'s rank (size 1
    elsewhere); ``dim=-1`` is the norm of the whole tensor (``torch.norm_except_dim``)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = (v.size(0),) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = (1,) * (v.dim() - 1) + (v.size(-1),)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return _norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """``v * (g / norm_except_dim(v, 2, dim))`` (``torch._weight_norm``)."""
    return v * (g / _norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    """The weight-norm parametrization: forward(g, v) = g * v / ||v||; right_inverse(w) =
    (||w||, w)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Weight normalization of ``module.<name>``
    (``torch.nn.utils.parametrizations.weight_norm``).

    Args:
        module: the Module.
        name: the parameter to reparametrize.
        dim: the dim whose slices keep their own magnitude g (None: one g for the whole
            tensor).

    Returns:
        ``module``, with ``parametrizations.<name>.original0`` (g, shaped like the norm) and
        ``original1`` (v) as parameters.
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """The spectral-norm parametrization (buffers ``_u``, ``_v``: the power-iteration vectors).

    Raises:
        IndexError: ``dim`` out of range. ValueError: ``n_power_iterations`` <= 0.
    """

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u <- normalize(W v), v <- normalize(W^T u), written into the buffers (PyTorch: out=)
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def _default_dim(module, dim):
    if dim is not None:
        return dim
    from ..modules import conv
    transposed = tuple(getattr(conv, n) for n in ("ConvTranspose1d", "ConvTranspose2d",
                                                  "ConvTranspose3d") if hasattr(conv, n))
    return 1 if isinstance(module, transposed) else 0


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization of ``module.<name>``
    (``torch.nn.utils.parametrizations.spectral_norm``).

    Args:
        module: the Module.
        name: the parameter to reparametrize.
        n_power_iterations: power-iteration steps per read in training mode (15 at
            registration).
        eps: the normalization's epsilon.
        dim: the output-channel dim (default 1 for ConvTranspose, else 0).

    Returns:
        ``module`` (u and v are drawn from the global generator, as PyTorch draws them).

    Raises:
        ValueError: no parameter or buffer ``name``; see ``_SpectralNorm``.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = _default_dim(module, dim)
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
