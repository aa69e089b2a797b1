"""float8 training with per-tensor delayed scaling (NVIDIA Transformer Engine's recipe).

``fp8_autocast(enabled=True, fp8_recipe=None)`` is a region (a dispatch mode, like ``autocast``)
in which the gemm-like ops ``linear``, ``addmm``, ``mm`` and ``matmul`` run on float8 operands:
each operand is multiplied by its own float32 scale, cast to float8 (saturating) and the product
is computed by ``_scaled_mm`` with the inverse scales (``minigrad/ops/fp8_scaling.py``: the
dispatched ``_fp8_gemm`` op, whose backward casts the incoming gradient to float8 too). The output
has the dtype of the enclosing ``autocast`` region when one is enabled for the tensors' device
(bfloat16 by default on cpu), else the input's dtype (float32). Every other op runs as usual.

The recipe, ``DelayedScaling`` (TE's names and defaults):

- ``fp8_format``: ``Format.HYBRID`` (default: input and weight in ``float8_e4m3fn``, max 448;
  gradients in ``float8_e5m2``, max 57344) or ``Format.E4M3`` (all e4m3fn). ``Format.E5M2``
  alone is refused, as by TE ("Pure E5M2 training is not supported.").
- ``amax_history_len`` (default 1024) and ``amax_compute_algo`` ("max" over the history, the
  default, or "most_recent"); ``margin`` (default 0):
  ``scale = (fp8_max / amax) / 2**margin``, so the tensor's amax lands ``margin`` binades below
  the format's max. An amax of 0 (the tensor was all zeros, or not used) leaves the history and
  the scale as they are; an inf or NaN amax keeps the previous scale (a NaN entry of the history
  is skipped by "max"); the first step casts with scale 1 (the history is empty, as in TE).

State: per gemm call site, three ``Fp8TensorMeta`` (``input``, ``weight``, ``grad_output``) with
``amax_history``, ``scale`` and ``scale_inv`` (float32 tensors), in ``recipe.fp8_meta``. Call
sites are numbered in the order the gemms run in a region: the k-th gemm of each step's forward
uses ``recipe.fp8_meta[k]``, so a model must run its gemms in the same order every step (as TE's
modules are called). When the state moves (TE's current behaviour for the forward tensors):

1. during the forward, each cast records its tensor's amax in ``amax_history[0]`` (only while grad
   mode is on: an inference region uses the scales and records nothing);
2. at the exit of the outermost region (grad mode on), the input and weight scales of every call
   site are updated (``_fp8_amax_and_scale_update_``: the history rolls, the new scale comes
   from the history), so the next forward uses them;
3. in backward, each gemm's incoming gradient is cast with the ``grad_output`` scale and records
   its amax; those scales are updated at the entry of the next region with this recipe.
   (TE updates them right after the backward of the first module; minigrad's engine offers a
   mode no end-of-backward hook, and the next backward sees the same scales either way.)

fp8 as an autocast target in a user policy: ``Fp8Policy(device_type, fp8_recipe)`` is an
``autocast`` ``Policy`` (PyTorch's table for the device) that also runs this region inside the
autocast region, so ``with amp_emu.autocast("cpu", dtype=minigrad.bfloat16,
policy=Fp8Policy("cpu", recipe)):`` trains with float8 gemms and bf16 elsewhere. The float8
step is a region and not a row of the table because autocast's cast is a plain ``_to_copy`` per
argument, with no scale, no state and the op's own backward; a delayed-scaled gemm needs a
per-tensor scale on each operand, a state that outlives the region, and a backward that scales
the gradient. ``fp8_autocast`` also composes with ``autocast`` by hand (its docstring), autocast
outside.

Deliberate differences from TE: the state lives in the recipe (minigrad's ``nn.Linear`` is a plain
module, so TE's per-module ``fp8_meta`` has no home), keyed by call order; an inference (no_grad)
forward records no amax (our choice: the scales follow the training steps only);
the custom-callable ``amax_compute_algo`` / ``scaling_factor_compute_algo``, ``calibrating``,
amax reduction across processes and fp8 attention are not provided; gemm dimensions need not be
multiples of 16; the saturating cast is ``clamp`` then PyTorch's cast (TE's ``satfinite``
conversion gives the same values).
"""
from __future__ import annotations

import enum
import threading
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

from minigrad import dtypes as _dt
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.dispatch import dispatch, pop_mode, push_mode
from minigrad.ops.fp8_scaling import Fp8GemmMeta, Fp8TensorMeta
from minigrad.tensor import Tensor

from .policy import Policy

from .autocast import get_autocast_dtype, is_autocast_enabled

__all__ = ["Format", "DelayedScaling", "fp8_autocast", "is_fp8_enabled", "Fp8GemmMeta",
           "Fp8TensorMeta", "Fp8Policy"]


class _FormatHelper(NamedTuple):
    max_fwd: float
    max_bwd: float


class Format(enum.Enum):
    """The float8 formats of a recipe (TE's ``transformer_engine.common.recipe.Format``).

    Values: ``E4M3`` (every float8 tensor in e4m3fn), ``E5M2`` (every one in e5m2; refused by
    ``DelayedScaling``), ``HYBRID`` (e4m3fn in forward, e5m2 for gradients). ``.value`` holds the
    forward and backward maxima (``max_fwd``, ``max_bwd``)."""

    E4M3 = _FormatHelper(max_fwd=448, max_bwd=448)
    E5M2 = _FormatHelper(max_fwd=57344, max_bwd=57344)
    HYBRID = _FormatHelper(max_fwd=448, max_bwd=57344)

    @property
    def fwd_dtype(self):
        """The float8 DType of forward tensors (input, weight)."""
        return _dt.float8_e5m2 if self is Format.E5M2 else _dt.float8_e4m3fn

    @property
    def bwd_dtype(self):
        """The float8 DType of gradients."""
        return _dt.float8_e4m3fn if self is Format.E4M3 else _dt.float8_e5m2


@dataclass
class DelayedScaling:
    """The delayed-scaling recipe (TE's ``DelayedScaling``): the scale of a tensor is computed
    from the amax history of earlier steps, before the tensor is seen.

    Args:
        margin: binades of headroom: ``scale = (fp8_max / amax) / 2**margin`` (int or float).
        fp8_format: ``Format.HYBRID`` (default) or ``Format.E4M3``.
        amax_history_len: amaxes kept per tensor (>= 1; default 1024).
        amax_compute_algo: "max" (default: the largest amax of the history) or "most_recent".
        scaling_factor_compute_algo: must be None (TE's custom callable is not provided).
        reduce_amax: accepted for TE's signature; one process, nothing to reduce.

    Attributes:
        fp8_meta: list of ``Fp8GemmMeta``, one per gemm call site in call order (module
            docstring), filled as regions run; ``reset()`` empties it.

    Raises:
        ValueError: ``Format.E5M2`` ("Pure E5M2 training is not supported."), an
            ``amax_history_len`` below 1, an unknown or callable ``amax_compute_algo``, a
            ``scaling_factor_compute_algo``, a non-finite margin.
        TypeError: ``fp8_format`` not a ``Format``, a non-integer ``amax_history_len``, a
            non-numeric margin.
    """

    margin: float = 0
    fp8_format: Format = Format.HYBRID
    amax_history_len: int = 1024
    amax_compute_algo: str = "max"
    scaling_factor_compute_algo: Optional[object] = None
    reduce_amax: bool = True
    fp8_meta: list = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.fp8_format, Format):
            raise TypeError(f"fp8_format must be an amp_emu.fp8.Format, got {self.fp8_format!r}")
        if self.fp8_format is Format.E5M2:
            raise ValueError("Pure E5M2 training is not supported.")
        if isinstance(self.amax_history_len, bool) or not isinstance(self.amax_history_len, int):
            raise TypeError("amax_history_len must be an int, got "
                            f"{type(self.amax_history_len).__name__}")
        if self.amax_history_len < 1:
            raise ValueError(f"amax_history_len must be at least 1, got {self.amax_history_len}")
        if callable(self.amax_compute_algo):
            raise ValueError("a callable amax_compute_algo is not supported by amp_emu.fp8; "
                             "use 'max' or 'most_recent'")
        if self.amax_compute_algo not in ("max", "most_recent"):
            raise ValueError("amax_compute_algo must be 'max' or 'most_recent', got "
                             f"{self.amax_compute_algo!r}")
        if self.scaling_factor_compute_algo is not None:
            raise ValueError("scaling_factor_compute_algo is not supported by amp_emu.fp8 "
                             "(the scale is (fp8_max / amax) / 2**margin)")
        if isinstance(self.margin, bool) or not isinstance(self.margin, (int, float)):
            raise TypeError(f"margin must be a number, got {type(self.margin).__name__}")
        if self.margin != self.margin or abs(self.margin) == float("inf"):
            raise ValueError(f"margin must be finite, got {self.margin}")

    def reset(self) -> None:
        """Forget every call site's state (the next region starts with scale 1)."""
        self.fp8_meta.clear()

    def _site(self, k, op, device):
        if k == len(self.fp8_meta):
            f = self.fp8_format
            self.fp8_meta.append(Fp8GemmMeta(op, self.amax_history_len, f.fwd_dtype,
                                             f.bwd_dtype, device))
        return self.fp8_meta[k]

    def _update(self, roles):
        for site in self.fp8_meta:
            for role in roles:
                m = getattr(site, role)
                dispatch("_fp8_amax_and_scale_update_", m.amax_history, m.scale, m.scale_inv,
                         m.fp8_max, self.margin, self.amax_compute_algo)


class _State(threading.local):
    def __init__(self):
        self.regions = []       # live fp8_autocast regions, innermost last
        # since the outermost region began: id(recipe) -> [recipe, gemm call sites met]; these
        # recipes' forward scales update when it exits
        self.used = {}


_state = _State()
_default_recipe = [None]


def _default():
    if _default_recipe[0] is None:
        _default_recipe[0] = DelayedScaling()
    return _default_recipe[0]


def is_fp8_enabled() -> bool:
    """True inside an enabled ``fp8_autocast`` region (TE's ``FP8GlobalStateManager
    .is_fp8_enabled``)."""
    return bool(_state.regions) and _state.regions[-1].enabled


_FLOATS = (_dt.float32, _dt.bfloat16, _dt.float16)


def _gemm_args(op, args, kwargs):
    """``(input, weight, bias, weight_transposed)`` of a gemm the fp8 path takes, else None:
    linear(input, weight, bias=None); mm(input, mat2); matmul(input, other) with a 2-D
    ``other``; addmm(bias, mat1, mat2) with a 1-D bias and beta = alpha = 1. The input is at
    least 2-D (exactly 2-D for mm and addmm), the shapes fit (a bias of n elements); every
    tensor float32, bfloat16 or float16."""
    if op == "linear" and 2 <= len(args) <= 3 and set(kwargs) <= {"bias"}:
        x, w = args[0], args[1]
        b = args[2] if len(args) == 3 else kwargs.get("bias")
        got = (x, w, b, True)
    elif op in ("mm", "matmul") and len(args) == 2 and not kwargs:
        got = (args[0], args[1], None, False)
    elif op == "addmm" and len(args) == 3 and set(kwargs) <= {"beta", "alpha"} \
            and kwargs.get("beta", 1) == 1 and kwargs.get("alpha", 1) == 1:
        got = (args[1], args[2], args[0], False)
        if not isinstance(args[0], Tensor) or args[0].ndim != 1:
            return None
    else:
        return None             # another op, out=, or arguments the fp8 path does not take
    x, w, b = got[:3]
    if not (isinstance(x, Tensor) and isinstance(w, Tensor)) or w.ndim != 2 or x.ndim < 2 \
            or (x.ndim != 2 and op in ("mm", "addmm")):
        return None
    if x.dtype not in _FLOATS or w.dtype not in _FLOATS or \
            (b is not None and (not isinstance(b, Tensor) or b.dtype not in _FLOATS)):
        return None
    k, n = (w.shape[1], w.shape[0]) if got[3] else tuple(w.shape)
    if x.shape[-1] != k or (b is not None and tuple(b.shape) != (n,)):
        return None             # the op itself raises its shape error
    return got


class _Fp8Mode:
    """The dispatch mode of one region: gemms go to ``_fp8_gemm``, every other op passes."""

    __slots__ = ("region",)

    def __init__(self, region):
        self.region = region

    def __minigrad_dispatch__(self, op, args, kwargs, call_next):
        region = self.region
        if not region.enabled or _state.regions[-1] is not region:
            return call_next(args, kwargs)
        got = _gemm_args(op, args, kwargs)
        if got is None:
            return call_next(args, kwargs)
        x, w, b, transposed = got
        dev = "cuda" if x.device.type == "cuda" else "cpu"
        if is_autocast_enabled(dev):
            out_dtype = get_autocast_dtype(dev)
        elif x.dtype is w.dtype and (b is None or b.dtype is x.dtype):
            out_dtype = x.dtype
        else:
            return call_next(args, kwargs)    # mixed dtypes: the op's own error
        recipe = region.recipe
        count = _state.used.setdefault(id(recipe), [recipe, 0])
        site = recipe._site(count[1], op, x.device)
        count[1] += 1
        return dispatch("_fp8_gemm", x, w, b, site, transposed, out_dtype, is_grad_enabled())


class fp8_autocast:
    """Context manager: gemms inside run in float8 with delayed scaling (TE's
    ``transformer_engine.pytorch.fp8_autocast``; module docstring for what runs and when the
    scales move).

    Args:
        enabled: False makes a region where gemms run as usual (nothing recorded).
        fp8_recipe: a ``DelayedScaling``; None takes one default recipe shared by every region
            that passes None (TE builds a default recipe; here the recipe also holds the state).

    Raises:
        TypeError: ``fp8_recipe`` not a ``DelayedScaling``.

    Nesting: an inner region's recipe and ``enabled`` apply to the gemms inside it; call sites
    are numbered across the whole outermost region. With ``autocast`` OUTSIDE
    (``with autocast("cpu"): with fp8_autocast(): ...``) the gemms cast the original (float32)
    operands to float8 and give their outputs in autocast's dtype; with ``autocast`` inside,
    autocast first casts the operands to bfloat16/float16 (one more rounding before the float8
    cast), as its table says for those ops.
    """

    def __init__(self, enabled=True, fp8_recipe=None):
        if fp8_recipe is not None and not isinstance(fp8_recipe, DelayedScaling):
            raise TypeError("fp8_recipe must be an amp_emu.fp8.DelayedScaling, got "
                            f"{type(fp8_recipe).__name__}")
        self.enabled = bool(enabled)
        self.recipe = fp8_recipe if fp8_recipe is not None else _default()
        self._mode = None

    def __enter__(self):
        st = _state
        if self.enabled:    # a backward since this recipe's last region recorded gradient
            self.recipe._update(("grad_output",))   # amaxes: their scales move now
        if not st.regions:
            st.used = {}
        st.regions.append(self)
        self._mode = _Fp8Mode(self)
        push_mode(self._mode)
        return self

    def __exit__(self, exc_type, exc, tb):
        st = _state
        try:
            pop_mode(self._mode)
        finally:
            st.regions.pop()
            self._mode = None
        if not st.regions:
            used, st.used = st.used, {}
            if exc_type is None and is_grad_enabled():
                for recipe, _ in used.values():
                    recipe._update(("input", "weight"))
        return False


class Fp8Policy(Policy):
    """An ``autocast`` user policy with float8 gemms: PyTorch's autocast table for
    ``device_type`` (edit it as any ``Policy``), plus the ``fp8_autocast`` region with
    ``fp8_recipe`` (a ``DelayedScaling``, default the default recipe) entered inside each
    ``autocast(device_type, ..., policy=this)`` region. The recipe's state (``fp8_meta``) lives
    on across regions, as with ``fp8_autocast``.

    Raises:
        TypeError: ``fp8_recipe`` not a ``DelayedScaling``.
        ValueError: a device type without a built-in table.
    """

    def __init__(self, device_type: str = "cpu", fp8_recipe=None):
        super().__init__(device_type)
        if fp8_recipe is not None and not isinstance(fp8_recipe, DelayedScaling):
            raise TypeError(f"fp8_recipe must be a DelayedScaling, got "
                            f"{type(fp8_recipe).__name__}")
        self.fp8_recipe = DelayedScaling() if fp8_recipe is None else fp8_recipe

    def region(self):
        """The ``fp8_autocast`` region of this policy's recipe."""
        return fp8_autocast(enabled=True, fp8_recipe=self.fp8_recipe)
