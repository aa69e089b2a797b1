"""Anomaly detection for the backward pass (``torch.autograd.anomaly_mode``).

While anomaly mode is on:

* every graph node records the Python stack of the forward call that made it, in
  ``node.metadata["traceback_"]`` (a list of ``traceback.format_stack()`` lines, as PyTorch's);
  a node made *during* a backward (``create_graph=True``) also records the node whose backward
  made it, ``metadata["parent_"]``;
* when a node's backward raises, the engine first warns ``"Error detected in MulBackward0.
  Traceback of forward call that caused the error: ..."`` with that stack (and, for a node made in
  a backward, the stack of the node that induced it), then lets the error propagate;
* with ``check_nan`` (the default), a backward that returns a gradient holding a NaN raises
  ``RuntimeError("Function 'DivBackward0' returned nan values in its 1th output.")`` (PyTorch's
  wording, the index counting ``next_functions``).

The mode is process-wide, as PyTorch's ``AnomalyMode`` is (not per thread). Deliberate difference:
the recorded stack ends at the last frame outside minigrad's op machinery (dispatcher, kernels,
``Function.apply``): PyTorch's ops are C++ and leave no Python frames, so the stacks read the same;
frames of ``minigrad.nn`` (PyTorch's ``torch.nn`` is Python too) are kept.
"""
from __future__ import annotations

import os
import traceback
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]

# [enabled, check_nan]: read by Function.apply's node recording and by the engine
_ANOMALY = [False, True]

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_KEEP = (os.path.join(_PKG, "nn") + os.sep, os.path.join(_PKG, "utils") + os.sep)


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return _ANOMALY[0]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode checks backward outputs for NaN
    (``torch.is_anomaly_check_nan_enabled``; True by default, also while the mode is off)."""
    return _ANOMALY[1]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (``torch.set_anomaly_enabled``), with no warning and no
    restoring: prefer ``detect_anomaly`` / ``set_detect_anomaly``."""
    _ANOMALY[0] = bool(enabled)
    _ANOMALY[1] = bool(check_nan)


class detect_anomaly:
    """Context manager that enables anomaly detection (``torch.autograd.detect_anomaly``).

    Args:
        check_nan: raise when a backward formula returns NaN (default True).

    Warns ``UserWarning`` on construction (PyTorch's "Anomaly Detection has been enabled..."):
    the mode records a stack per graph node and slows every op down. Not a decorator (as in
    PyTorch 2.13, whose ``detect_anomaly`` object is not callable).
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _ANOMALY[0]
        self.check_nan = check_nan
        self.prev_check_nan = _ANOMALY[1]
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Set anomaly detection on or off (``torch.autograd.set_detect_anomaly``): it takes effect
    when constructed, so it works as a call or as a context manager that restores the previous
    setting on exit.

    Args:
        mode: enable (True) or disable (False).
        check_nan: raise when a backward formula returns NaN (default True).
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _ANOMALY[0]
        self.prev_check_nan = _ANOMALY[1]
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# ---------------------------------------------------------------- used by the node and the engine

def _in_machinery(filename: str) -> bool:
    return filename.startswith(_PKG) and not filename.startswith(_KEEP)


def _store_stack(node, parent) -> None:
    """Record the forward stack (and the inducing node during a backward) on ``node``."""
    stack = traceback.extract_stack()
    n = len(stack)
    while n and _in_machinery(stack[n - 1].filename):
        n -= 1
    meta = node.metadata
    meta["traceback_"] = traceback.format_list(stack[:n])
    if parent is not None:
        meta["parent_"] = parent


def _print_stack(node) -> None:
    """PyTorch's ``PyAnomalyMetadata::print_stack``: warn with the stack of the forward call
    that made ``node`` and of each node that induced it (nodes made during a backward)."""
    meta = getattr(node, "_metadata", None) or {}
    if "traceback_" not in meta:
        warnings.warn(f"Error detected in {node.name()}. No forward pass information available. "
                      "Enable detect anomaly during forward pass for more information.")
        return
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                  "error:\n" + "".join(meta["traceback_"]))
    parent = meta.get("parent_")
    while parent is not None:           # one warning per inducing node, as PyTorch's
        pmeta = getattr(parent, "_metadata", None) or {}
        if "traceback_" not in pmeta:
            break
        warnings.warn("\n\nPrevious calculation was induced by " + parent.name() + ". Traceback "
                      "of forward call that induced the previous calculation:\n"
                      + "".join(pmeta["traceback_"]))
        parent = pmeta.get("parent_")


def _check_nan(node, res) -> None:
    """Raise PyTorch's error when a gradient in ``res`` (one per ``next_functions`` entry) holds
    a NaN."""
    from ..dispatch import dispatch
    for i, g in enumerate(res):
        if g is None or not g.dtype.is_floating_point or g.numel() == 0:
            continue
        if bool(dispatch("any", dispatch("isnan", g))):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")
