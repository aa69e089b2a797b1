"""``minigrad.nn.functional`` (imported as ``F``): thin ``dispatch`` calls with
``torch.nn.functional``'s signatures. The kernels are the ops of the same names in
``minigrad.ops``; this module only resolves PyTorch's Python-level conveniences (the legacy
``size_average``/``reduce`` arguments, the implicit softmax dim, ``inplace``).
"""
from __future__ import annotations

import warnings

from ..dispatch import dispatch
# the families, each in its own module (all re-exported here, as torch.nn.functional has them)
from . import (_activation_functional, _attention_functional, _conv_functional,
               _distance_functional, _dropout_functional, _embedding_functional,
               _loss_functional, _norm_functional, _padding_functional, _pooling_functional,
               _sampling_functional)
from ._activation_functional import *  # noqa: F401,F403  (gelu, silu, elu, hardtanh...)
from ._attention_functional import *  # noqa: F401,F403  (scaled_dot_product_attention...)
from ._attention_functional import _canonical_mask, _none_or_dtype  # noqa: F401  (as torch's F)
from ._conv_functional import *  # noqa: F401,F403  (conv1d, conv2d, conv_transpose1d/2d)
from ._distance_functional import *  # noqa: F401,F403  (normalize, cosine_similarity...)
from ._dropout_functional import *  # noqa: F401,F403  (dropout, dropout2d, alpha_dropout...)
from ._embedding_functional import *  # noqa: F401,F403  (embedding)
from ._loss_functional import *  # noqa: F401,F403  (l1_loss, binary_cross_entropy...)
from ._norm_functional import *  # noqa: F401,F403  (layer_norm, batch_norm, group_norm...)
from ._padding_functional import *  # noqa: F401,F403  (pad, one_hot, unfold, fold)
from ._pooling_functional import *  # noqa: F401,F403  (max/avg/adaptive pools)
from ._sampling_functional import *  # noqa: F401,F403  (interpolate, pixel_shuffle)

__all__ = ["linear", "relu", "tanh", "sigmoid", "softmax", "log_softmax", "cross_entropy",
           "nll_loss", "mse_loss", "bilinear"] + _activation_functional.__all__ + \
    _padding_functional.__all__ + _loss_functional.__all__ + _distance_functional.__all__ + \
    _dropout_functional.__all__ + _embedding_functional.__all__ + _attention_functional.__all__ + \
    _conv_functional.__all__ + _pooling_functional.__all__ + _sampling_functional.__all__ + \
    _norm_functional.__all__


def _legacy_reduction(size_average, reduce, emit_warning=True) -> str:
    """PyTorch's ``_Reduction.legacy_get_string``: the reduction the old flags mean."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.")
    return ret


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` (``F.linear``); input (*, in), weight (out, in), bias (out,).

    Errors come from the ``linear`` op (mismatched shapes or dtypes: RuntimeError).
    """
    return dispatch("linear", input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    """``x1^T A x2 + b`` per output feature (``F.bilinear``): input1 (*, in1), input2 (*, in2),
    weight (out, in1, in2), bias (out,) -> (*, out); the ``bilinear`` op (PyTorch's
    ``_trilinear`` path).

    Raises:
        RuntimeError: dtype or size mismatches (PyTorch's messages).
    """
    return dispatch("bilinear", input1, input2, weight, bias)


def relu(input, inplace: bool = False):
    """max(input, 0) (``F.relu``); ``inplace=True`` uses the ``relu_`` op."""
    if inplace:
        return dispatch("relu_", input)
    return dispatch("relu", input)


def tanh(input):
    """Elementwise tanh (``F.tanh``)."""
    return dispatch("tanh", input)


def sigmoid(input):
    """Elementwise logistic sigmoid (``F.sigmoid``)."""
    return dispatch("sigmoid", input)


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """Softmax along ``dim`` (``F.softmax``); ``dtype`` casts the input first. ``dim=None``
    picks PyTorch's implicit dim (0 for 0/1/3-dim inputs, else 1) with its deprecation warning.
    """
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return dispatch("softmax", input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """Log-softmax along ``dim`` (``F.log_softmax``); see ``softmax`` for ``dim=None``."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return dispatch("log_softmax", input, dim, dtype=dtype)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
    """Cross entropy of logits ``input`` (N, C) or (C,) against class indices (N,) / () or class
    probabilities of ``input``'s shape (``F.cross_entropy``).

    Errors (float targets of the wrong shape, out-of-range classes, a bad ``reduction``) come
    from the ``cross_entropy`` op.
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return dispatch("cross_entropy_loss", input, target, weight=weight, ignore_index=ignore_index,
                    reduction=reduction, label_smoothing=label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean"):
    """Negative log-likelihood of log-probabilities ``input`` (N, C) or (C,) at class indices
    ``target`` (``F.nll_loss``)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return dispatch("nll_loss", input, target, weight=weight, ignore_index=ignore_index,
                    reduction=reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
             weight=None):
    """Mean squared error (``F.mse_loss``); targets of another size broadcast with PyTorch's
    warning.

    Raises:
        NotImplementedError: ``weight`` given (PyTorch 2.13's weighted form is not supported).
    """
    if weight is not None:
        raise NotImplementedError("mse_loss(weight=...) is not supported by minigrad")
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=2)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return dispatch("mse_loss", input, target, reduction=reduction)
