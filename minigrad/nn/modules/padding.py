"""The padding modules (``torch.nn.modules.padding``): ``ReflectionPad1d/2d``,
``ReplicationPad1d/2d``, ``ConstantPad1d/2d``, ``ZeroPad1d/2d``, ``CircularPad1d/2d``, each
``F.pad`` with its mode (its errors apply). ``padding`` is an int (every side) or a tuple
(left, right[, top, bottom]); ``extra_repr`` is PyTorch's. The 3-d variants are not here
(``F.pad`` covers up to 2 spatial dims)."""
from __future__ import annotations

from .. import functional as F
from ..module import Module

__all__ = ["ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d",
           "ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "CircularPad1d",
           "CircularPad2d"]


def _ntuple(padding, n):
    if isinstance(padding, (list, tuple)):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    _mode = "constant"
    _n = 2

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._n)

    def forward(self, input):
        """``F.pad(input, self.padding, mode)``."""
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """``torch.nn.ReflectionPad1d(padding)``: (C, W) or (N, C, W), reflected at the edges."""
    _mode, _n = "reflect", 2


class ReflectionPad2d(_PadNd):
    """``torch.nn.ReflectionPad2d(padding)``: (C, H, W) or (N, C, H, W), reflected."""
    _mode, _n = "reflect", 4


class ReplicationPad1d(_PadNd):
    """``torch.nn.ReplicationPad1d(padding)``: the edge values repeated."""
    _mode, _n = "replicate", 2


class ReplicationPad2d(_PadNd):
    """``torch.nn.ReplicationPad2d(padding)``: the edge values repeated."""
    _mode, _n = "replicate", 4


class _CircularPadNd(_PadNd):
    _mode = "circular"
    _dims = (2, 3)

    def forward(self, input):
        """``F.pad(input, self.padding, "circular")``.

        Raises:
            ValueError: an input of the wrong rank ("expected 2D or 3D input (got 4D input)").
        """
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got "
                             f"{input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """``torch.nn.CircularPad1d(padding)``: wraps around (2-d or 3-d input)."""
    _n, _dims = 2, (2, 3)


class CircularPad2d(_CircularPadNd):
    """``torch.nn.CircularPad2d(padding)``: wraps around (3-d or 4-d input)."""
    _n, _dims = 4, (3, 4)


class _ConstantPadNd(Module):
    _n = 2

    def __init__(self, padding, value: float):
        super().__init__()
        self.padding = _ntuple(padding, self._n)
        self.value = value

    def forward(self, input):
        """``F.pad(input, self.padding, "constant", self.value)``."""
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """``torch.nn.ConstantPad1d(padding, value)``."""
    _n = 2


class ConstantPad2d(_ConstantPadNd):
    """``torch.nn.ConstantPad2d(padding, value)``."""
    _n = 4


class ZeroPad1d(ConstantPad1d):
    """``torch.nn.ZeroPad1d(padding)``: ``ConstantPad1d(padding, 0.0)``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """``torch.nn.ZeroPad2d(padding)``: ``ConstantPad2d(padding, 0.0)``."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
