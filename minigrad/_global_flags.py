"""Process-wide switches of PyTorch that minigrad records: ``set_warn_always`` /
``is_warn_always_enabled`` and ``set_flush_denormal`` (mirror ``torch.*`` of those names)."""
from __future__ import annotations

__all__ = ["set_warn_always", "is_warn_always_enabled", "set_flush_denormal", "warn_once"]

_warn_always = [False]


def set_warn_always(b: bool) -> None:
    """Whether warnings PyTorch gives once per process (``TORCH_WARN_ONCE``) are given every
    time (``torch.set_warn_always``; default False); minigrad's once-per-process warnings ask
    ``warn_once``."""
    _warn_always[0] = bool(b)


def warn_once(flag: list, i: int = 0) -> bool:
    """PyTorch's ``TORCH_WARN_ONCE``: True (warn now) the first time for ``flag[i]``, or every
    time while ``set_warn_always(True)``; marks the flag."""
    first = not flag[i]
    flag[i] = True
    return first or _warn_always[0]


def is_warn_always_enabled() -> bool:
    """The flag set by ``set_warn_always`` (``torch.is_warn_always_enabled``; False by default)."""
    return _warn_always[0]


def set_flush_denormal(mode: bool) -> bool:
    """Mirrors ``torch.set_flush_denormal``, which returns whether the CPU's flush-to-zero mode
    could be set as asked. minigrad's NumPy kernels always keep denormals, so asking to flush
    them returns False (what PyTorch returns on a CPU without the mode: nothing changes), and
    asking not to returns True."""
    return not mode
