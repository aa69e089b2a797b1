"""``minigrad.nn.utils`` (``torch.nn.utils``): gradient clipping, parameters as one vector,
``rnn`` (padding and packing), ``stateless`` (functional_call), ``parametrize`` and
``parametrizations`` (weight_norm, spectral_norm), the legacy hook-based ``weight_norm`` /
``spectral_norm`` (from ``legacy_norms``), ``prune``."""
from . import parametrizations, parametrize, prune, rnn, stateless
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .legacy_norms import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters", "rnn",
           "stateless", "parametrize", "parametrizations", "prune", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm"]
