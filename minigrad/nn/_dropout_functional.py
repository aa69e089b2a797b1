"""The dropout functions of ``torch.nn.functional``: ``dropout``, ``dropout1d``, ``dropout2d``,
``dropout3d``, ``alpha_dropout``, ``feature_alpha_dropout`` (re-exported by ``F``).

Each resolves PyTorch's Python-level rules (the probability check, the unbatched inputs of
``dropout1d``/``dropout3d``, ``dropout2d``'s deprecation warnings, ``inplace``) and dispatches the
ATen op (``minigrad/ops/dropout.py``). Deliberate difference: ``generator=`` is accepted here
(PyTorch's F functions take none) so a test can replay a mask.
"""
from __future__ import annotations

import warnings

from ..dispatch import dispatch

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout"]


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False, *,
            generator=None):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``
    (``F.dropout``); identity when not ``training``.

    Raises:
        ValueError: ``p`` outside [0, 1].
    """
    _check_p(p)
    return dispatch("dropout_" if inplace else "dropout", input, p, training, generator=generator)


def _feature(input, p, training, inplace, generator, alpha=False):
    op = ("feature_alpha_dropout" if alpha else "feature_dropout") + ("_" if inplace else "")
    return dispatch(op, input, p, training, generator=generator)


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False, *,
              generator=None):
    """Zero whole channels of (N, C, L) or unbatched (C, L) input (``F.dropout1d``).

    Raises:
        ValueError: ``p`` outside [0, 1]. RuntimeError: input not 2-D or 3-D.
    """
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an optional "
                           "batch dimension (i.e. 2D or 3D inputs).")
    return _unbatched(input, input.ndim == 2, p, training, inplace, generator)


def _unbatched(input, unbatched, p, training, inplace, generator):
    if unbatched:
        out = _feature(input.unsqueeze(0), p, training, inplace, generator)
        return out.squeeze(0) if not inplace else input
    return _feature(input, p, training, inplace, generator)


def _warn_rank(spatial, nd):
    """PyTorch's deprecation warning for a ``dropout{spatial}d`` input of another rank."""
    fn = f"dropout{spatial}d"
    warnings.warn(f"{fn}: Received a {nd}-D input to {fn}, which is deprecated and will result "
                  "in an error in a future release. To retain the behavior and silence this "
                  f"warning, please use dropout instead. Note that {fn} exists to provide "
                  f"channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
                  "dimension, and an optional batch dimension (i.e. "
                  f"{spatial + 1}D or {spatial + 2}D inputs).", stacklevel=3)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False, *,
              generator=None):
    """Zero whole channels of (N, C, H, W) or (C, H, W) input (``F.dropout2d``); a 3-D input
    is taken as (N, C, L) with PyTorch's warning, other ranks warn as deprecated.

    Raises:
        ValueError: ``p`` outside [0, 1].
    """
    _check_p(p)
    nd = input.ndim
    if nd not in (3, 4):
        _warn_rank(2, nd)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape (C, H, "
                      "W). To maintain the 1D channel-wise dropout behavior, please switch to "
                      "using dropout1d instead.", stacklevel=2)
    return _feature(input, p, training, inplace, generator)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False, *,
              generator=None):
    """Zero whole channels of (N, C, D, H, W) or unbatched (C, D, H, W) input
    (``F.dropout3d``); other ranks warn as deprecated.

    Raises:
        ValueError: ``p`` outside [0, 1].
    """
    _check_p(p)
    nd = input.ndim
    if nd not in (4, 5):
        _warn_rank(3, nd)
    return _unbatched(input, nd == 4, p, training, inplace, generator)


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False, *,
                  generator=None):
    """Dropout that keeps SELU's self-normalising mean and variance (``F.alpha_dropout``; note
    ``training`` defaults to False, as PyTorch).

    Raises:
        ValueError: ``p`` outside [0, 1].
    """
    _check_p(p)
    return dispatch("alpha_dropout_" if inplace else "alpha_dropout", input, p, training,
                    generator=generator)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False,
                          *, generator=None):
    """Alpha dropout of whole channels (``F.feature_alpha_dropout``).

    Raises:
        ValueError: ``p`` outside [0, 1]. RuntimeError: fewer than 2 dims.
    """
    _check_p(p)
    return _feature(input, p, training, inplace, generator, alpha=True)
