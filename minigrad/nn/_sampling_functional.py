"""``F.interpolate`` (nearest, bilinear, area), ``F.pixel_shuffle``, ``F.pixel_unshuffle``,
``F.channel_shuffle``, ``F.affine_grid`` and ``F.grid_sample`` (composites).

``interpolate`` resolves ``size`` / ``scale_factor`` / ``recompute_scale_factor`` exactly as
``torch.nn.functional.interpolate`` does and dispatches the aten kernel
(``upsample_nearest2d``, ``upsample_bilinear2d``, area = ``adaptive_avg_pool``).
"""
from __future__ import annotations

import math

from .. import dtypes as _dt
from ..dispatch import dispatch

__all__ = ["interpolate", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
           "native_channel_shuffle", "affine_grid", "grid_sample", "upsample", "upsample_nearest",
           "upsample_bilinear"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _sizes(input, size, scale_factor, recompute_scale_factor, mode):
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            out = [int(s) for s in size]
        else:
            out = [int(size)] * dim
        scales = None
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, "
                    "C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        out = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and out is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        out = [math.floor(float(input.shape[i + 2]) * scales[i]) for i in range(dim)]
        scales = None
    if out is None:     # the aten "vec" overloads: int(size * scale) in double
        out = [int(input.shape[i + 2] * scales[i]) for i in range(dim)]
    return out, scales


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample ``input`` (N, C, *spatial) to ``size`` or by ``scale_factor``
    (``F.interpolate``).

    Modes: ``"nearest"`` and ``"nearest-exact"`` (3-D and 4-D inputs; exact; nearest-exact
    takes the source pixel under each output pixel's centre, ``floor((o + 0.5) * scale)``, as
    PIL and scikit-image), ``"linear"`` (3-D), ``"bilinear"`` and
    ``"bicubic"`` (4-D), ``"trilinear"`` (5-D) (``align_corners``; opmath, one rounding),
    ``"area"`` (adaptive
    average pooling). Output size: ``size``, or
    ``floor(in * scale_factor)``; the given scale factor (not the size ratio) positions the
    source pixels unless ``recompute_scale_factor=True``, as in PyTorch.

    Deliberate differences: a 3-D nearest / nearest-exact input runs ``upsample_nearest2d`` /
    ``_upsample_nearest_exact2d`` over (N, C, 1, L) (same values; PyTorch calls the 1-d
    kernels); other 5-D inputs raise NotImplementedError. ``antialias=True`` (bilinear and
    bicubic, 4-D): PIL's filter widened when downsampling, float32 only (bit-exact forward; the
    backward within fp32 rounding: ``minigrad.ops.upsample``'s antialias section).

    Raises:
        ValueError: both or neither of size/scale_factor, sizes of the wrong length,
            ``align_corners`` with a non-interpolating mode (PyTorch's messages).
        NotImplementedError: an interpolating mode on an input of the wrong rank ("Got 3D
            input, but bilinear mode needs 4D input"), an unknown mode, the modes above.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    out, scales = _sizes(input, size, scale_factor, recompute_scale_factor, mode)
    nd = input.ndim
    if antialias:
        if mode not in ("bilinear", "bicubic") or nd != 4:
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                             "modes and requires a 4-D tensor as input")
        sh, sw = (None, None) if scales is None else scales
        return dispatch(f"_upsample_{mode}2d_aa", input, out, align_corners, sh, sw)
    if mode in ("nearest", "nearest-exact") and nd in (3, 4):
        op = "upsample_nearest2d" if mode == "nearest" else "_upsample_nearest_exact2d"
        if nd == 3:
            x = dispatch("unsqueeze", input, -2)
            y = dispatch(op, x, [1] + out, None, None if scales is None else scales[0])
            return dispatch("squeeze", y, -2)
        sh, sw = (None, None) if scales is None else scales
        return dispatch(op, input, out, sh, sw)
    if mode == "bilinear" and nd == 4:
        sh, sw = (None, None) if scales is None else scales
        return dispatch("upsample_bilinear2d", input, out, align_corners, sh, sw)
    if mode == "bicubic" and nd == 4:
        sh, sw = (None, None) if scales is None else scales
        return dispatch("upsample_bicubic2d", input, out, align_corners, sh, sw)
    if mode == "linear" and nd == 3:
        return dispatch("upsample_linear1d", input, out, align_corners,
                        None if scales is None else scales[0])
    if mode == "trilinear" and nd == 5:
        return dispatch("upsample_trilinear3d", input, out, align_corners,
                        *((None,) * 3 if scales is None else scales))
    for m, want in (("linear", 3), ("bilinear", 4), ("trilinear", 5)):
        if mode == m and nd != want and nd in (3, 4, 5):
            raise NotImplementedError(f"Got {nd}D input, but {m} mode needs {want}D input")
    if mode == "area" and nd in (3, 4):
        return dispatch("adaptive_avg_pool1d" if nd == 3 else "adaptive_avg_pool2d", input,
                        out[0] if nd == 3 else out)
    if mode in _MODES.split(" | ") and nd in (3, 4, 5) and mode != "bicubic":
        raise NotImplementedError(f"minigrad's interpolate has no mode={mode!r} for "
                                  f"{nd}-D input (nearest, linear, bilinear, bicubic, trilinear and area are implemented)")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{nd}D) for the modes: {_MODES} (got {mode})")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r) (``F.pixel_shuffle``); exact.

    Raises:
        RuntimeError: fewer than 3 dims, r <= 0, channels not divisible by r^2.
    """
    return dispatch("pixel_shuffle", input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W) (``F.pixel_unshuffle``), the inverse of
    ``pixel_shuffle``; exact.

    Raises:
        RuntimeError: fewer than 3 dims, r <= 0, H or W not divisible by r.
    """
    return dispatch("pixel_unshuffle", input, downscale_factor)


def _deprecated(name):
    import warnings
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", UserWarning, stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated ``interpolate`` (``F.upsample``): warns, then ``interpolate`` with the same
    arguments.

    Warns:
        UserWarning: PyTorch's deprecation text.
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated ``interpolate(mode="nearest")`` (``F.upsample_nearest``); warns as PyTorch."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated ``interpolate(mode="bilinear", align_corners=True)``
    (``F.upsample_bilinear``); warns as PyTorch."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def channel_shuffle(input, groups):
    """Interleave the channels of ``groups`` groups (``F.channel_shuffle``, ShuffleNet): (N, C,
    *) viewed as (N, g, C/g, *), the two group dims swapped, viewed back as (N, C, *). A pure
    permutation (views and one copy), so results are exact in every dtype.

    Raises:
        RuntimeError: ``groups`` <= 0, C not divisible by ``groups``, fewer than 3 dims
            (PyTorch's messages).
    """
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and "
                           f"{groups} groups.")
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape(
        (n, c) + rest)


native_channel_shuffle = channel_shuffle


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                  "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")


def _linspace_from_neg_one(n, align_corners, like):
    """ATen's ``linspace_from_neg_one``: the n pixel-centre coordinates in [-1, 1]."""
    from .._functional.factories import linspace, zeros
    if n <= 1:
        return zeros(1, dtype=like.dtype, device=like.device)
    r = linspace(-1, 1, n, dtype=like.dtype, device=like.device)
    return r if align_corners else r * (n - 1) / n


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of 2-D affine transforms (``F.affine_grid``): ``theta``
    (N, 2, 3), ``size`` (N, C, H, W) -> grid (N, H, W, 2) of normalised (x, y) source
    coordinates, ``[x, y, 1] @ theta^T`` at every output pixel (one ``bmm``, as ATen's
    ``affine_grid_generator``). Only 2-D (4-d ``size``) transforms are provided.

    Raises:
        ValueError: a non-floating ``theta``, a ``theta`` of the wrong shape, a size <= 0.
        NotImplementedError: a ``size`` that is not 4-d (PyTorch's messages; 5-d sizes too).
    """
    import warnings
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    from .._functional.factories import ones
    from .._functional.joining import stack
    n, _, h, w = size
    xs = _linspace_from_neg_one(w, align_corners, theta)
    ys = _linspace_from_neg_one(h, align_corners, theta)
    base = stack([xs.view(1, w).expand(h, w), ys.view(h, 1).expand(h, w),
                  ones(h, w, dtype=theta.dtype, device=theta.device)], -1)
    grid = dispatch("bmm", base.view(1, h * w, 3).expand(n, h * w, 3), theta.transpose(1, 2))
    return grid.view(n, h, w, 2)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) at the normalised locations ``grid`` (N, Ho, Wo, 2)
    (``F.grid_sample``): x = -1 / +1 are the left / right edges (pixel centres with
    ``align_corners=True``). Differentiable with respect to ``input`` and ``grid``.

    Composite of dispatched ops (unnormalise, ``floor``/``round``, a ``gather`` per corner,
    the bilinear weights), so results agree with PyTorch's fused kernel to rounding and the
    graph holds those nodes instead of ``GridSampler2DBackward0`` (with "nearest" the grid is
    not in the graph: its ``.grad`` stays None where PyTorch's is zeros). Provided: 4-d input, modes
    "bilinear" and "nearest", padding "zeros" and "border" ("bicubic" and "reflection" raise
    NotImplementedError).

    Raises:
        ValueError: an unknown ``mode`` or ``padding_mode`` (PyTorch's messages).
        RuntimeError: a grid whose last dim is not 2 or whose batch differs from input's.
    """
    import warnings
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
                         f"or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if input.dim() != 4 or mode == "bicubic" or padding_mode == "reflection":
        raise NotImplementedError("minigrad's grid_sample supports 4-d input, modes 'bilinear' "
                                  "and 'nearest', padding 'zeros' and 'border'")
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]

    def unnormalize(coord, size):
        if align_corners:
            coord = (coord + 1) / 2 * (size - 1)
        else:
            coord = ((coord + 1) * size - 1) / 2
        if padding_mode == "border":
            coord = coord.clamp(0, size - 1)
        return coord

    ix = unnormalize(grid[..., 0], w)
    iy = unnormalize(grid[..., 1], h)
    flat = input.reshape(n, c, h * w)

    def corner(x, y):
        """input at integer (x, y) (float tensors (N, Ho, Wo)), 0 outside: (N, C, Ho, Wo)."""
        inside = (x >= 0) & (x <= w - 1) & (y >= 0) & (y <= h - 1)
        xi = x.clamp(0, w - 1).to(_dt.int64)
        yi = y.clamp(0, h - 1).to(_dt.int64)
        idx = (yi * w + xi).reshape(n, 1, ho * wo).expand(n, c, ho * wo)
        vals = flat.gather(2, idx).reshape(n, c, ho, wo)
        return vals * inside.unsqueeze(1).to(input.dtype)

    if mode == "nearest":
        return corner(ix.round(), iy.round())
    ix0, iy0 = ix.floor(), iy.floor()
    ix1, iy1 = ix0 + 1, iy0 + 1
    nw = ((ix1 - ix) * (iy1 - iy)).unsqueeze(1)
    ne = ((ix - ix0) * (iy1 - iy)).unsqueeze(1)
    sw = ((ix1 - ix) * (iy - iy0)).unsqueeze(1)
    se = ((ix - ix0) * (iy - iy0)).unsqueeze(1)
    return (corner(ix0, iy0) * nw + corner(ix1, iy0) * ne + corner(ix0, iy1) * sw
            + corner(ix1, iy1) * se)
