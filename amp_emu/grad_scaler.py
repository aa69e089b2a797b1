"""``GradScaler``: dynamic loss scaling (mirrors ``torch.amp.GradScaler``).

Same API, defaults, per-optimizer state machine, arithmetic and error messages as PyTorch 2.13
(facts §3). Every read and write of the scale, the growth tracker, the found-inf flags and the
gradients is a dispatched op, as in PyTorch, so a mode sees the whole of it: the two aten
kernels of ``minigrad/ops/amp_kernels.py`` (``_amp_foreach_non_finite_check_and_unscale_``:
found_inf from the values *before* scaling, every grad multiplied by ``inv_scale`` in fp32 and
rounded back to its dtype; ``_amp_update_scale_``: backoff / growth of the float32 scale, int32
growth tracker), ``full`` / ``fill_`` / ``copy_`` / ``add_`` / ``reciprocal`` / ``_to_copy``, and
``.item()`` (``_local_scalar_dense``). An optimizer with ``_step_supports_amp_scaling`` (``fused=
True``) gets ``grad_scale`` / ``found_inf`` and unscales and skips inside its kernel, as in
PyTorch.

Devices as PyTorch's: the scale and growth tracker live on the device of the first output passed
to ``scale`` and are copied to other devices where needed, found-inf flags are kept per device,
``update(new_scale=tensor)`` asserts that the tensor is on the scaler's device type, and
``GradScaler("cuda")`` warns and disables itself when the cuda emulation is off
(``MINIGRAD_EMULATE_CUDA=0``), as PyTorch without CUDA. For plots it keeps ``scale_history``
(the scale after every ``update``),
``found_inf_history`` and ``skipped_steps`` (optimizer steps skipped for inf/nan).
"""
from __future__ import annotations

from collections import abc, defaultdict
from enum import Enum
import warnings

from minigrad import dtypes as _dt
from minigrad.devices import CPU, emulation_enabled
from minigrad.dispatch import dispatch
from minigrad.tensor import Tensor

__all__ = ["GradScaler", "OptState"]

class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _full(value, dtype, device=CPU):
    """``torch.full((), value, dtype=dtype, device=device)``: a dispatched 0-dim tensor."""
    return dispatch("full", (), value, dtype=dtype, device=device)


class GradScaler:
    """Loss scaling for fp16 training (``torch.amp.GradScaler``).

    Args:
        device: "cuda" or "cpu": the device type ``update(new_scale=tensor)`` expects; "cuda"
            disables the scaler (with PyTorch's warning) when the cuda emulation is off.
        init_scale: the initial scale (float32 storage).
        growth_factor: multiplier after ``growth_interval`` finite steps (must be > 1).
        backoff_factor: multiplier after an inf/nan step (must be < 1).
        growth_interval: consecutive finite steps before growing.
        enabled: False makes every method a no-op (``scale`` returns its input, ``step`` steps).

    Raises:
        AssertionError: "The growth factor must be > 1.0." / "The backoff factor must be < 1.0."

    Typical use (the lecture's order)::

        scaler.scale(loss).backward()
        scaler.unscale_(opt); clip_grad_norm_(params, 1.0)
        scaler.step(opt); scaler.update()
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not emulation_enabled():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        self.scale_history = []
        self.found_inf_history = []
        self.skipped_steps = 0
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier "
               "in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = _full(self._init_scale, _dt.float32, dev)
        self._growth_tracker = _full(self._init_growth_tracker, _dt.int32, dev)

    def _scale_on(self, dev):
        """The scale on ``dev`` (a copy when the scale lives elsewhere, as PyTorch's)."""
        return self._scale if self._scale._device is dev else self._scale.to(dev)

    # ------------------------------------------------------------------ scale
    def scale(self, outputs):
        """Multiply ``outputs`` by the scale (a dispatched ``mul``: differentiable).

        Args:
            outputs: a Tensor, or a (nested) list/tuple/iterable of Tensors. The result dtype
                is ``mul``'s: the 1-element fp32 scale tensor promotes a 0-dim fp16/bf16 loss
                to fp32 (as PyTorch), while a loss with dimensions keeps its 16-bit dtype and
                may overflow to inf.

        Returns:
            the same structure: lists and tuples keep their type, other iterables come back as a
            lazy ``map``; the input itself when disabled.

        Raises:
            ValueError: "outputs must be a Tensor or an iterable of Tensors".
        """
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs._device)
            return dispatch("mul", outputs, self._scale_on(outputs._device))

        def apply_scale(val):
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val._device)
                return dispatch("mul", val, self._scale_on(val._device))
            if isinstance(val, abc.Iterable):
                it = map(apply_scale, val)
                return type(val)(it) if isinstance(val, (list, tuple)) else it
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply_scale(outputs)

    # ------------------------------------------------------------------ unscale_
    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        per_device = defaultdict(lambda: defaultdict(list))
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, Tensor):
                    raise AssertionError(f"expected param to be Tensor, got "
                                         f"{type(param).__name__}")
                g = param.grad
                if g is None:
                    continue
                if not allow_fp16 and g.dtype is _dt.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                per_device[g._device][g.dtype].append(g)
        out = {}
        for dev, per_dtype in per_device.items():
            # one found_inf / inv_scale per device, copied from the scale's (PyTorch's
            # _MultiDeviceReplicator)
            f = out[dev] = found_inf if found_inf._device is dev else found_inf.to(dev, copy=True)
            inv = inv_scale if inv_scale._device is dev else inv_scale.to(dev, copy=True)
            for grads in per_dtype.values():
                dispatch("_amp_foreach_non_finite_check_and_unscale_", grads, f, inv)
        return out

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s grads by the scale in place and record inf/nan.

        ``inv = float32(1 / float64(scale))``; params with ``grad=None`` are skipped.

        Raises:
            AssertionError: ``scale()`` never called.
            RuntimeError: "unscale_() has already been called on this optimizer since the last
                update()." / "unscale_() is being called after step()."
            ValueError: "Attempting to unscale FP16 gradients." (bf16 grads are allowed).
        """
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        scale64 = dispatch("_to_copy", self._scale, dtype=_dt.float64)
        inv = dispatch("_to_copy", dispatch("reciprocal", scale64), dtype=_dt.float32)
        found_inf = _full(0.0, _dt.float32, self._scale._device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv, found_inf, False)
        state["stage"] = OptState.UNSCALED

    # ------------------------------------------------------------------ step / update
    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done) and call ``optimizer.step(*args, **kwargs)`` unless an inf/nan
        was found, in which case the step is skipped (params and optimizer state untouched).

        Returns:
            ``optimizer.step``'s return value, or None when skipped.

        Raises:
            RuntimeError: ``closure=`` given ("Closure use is not currently supported if
                GradScaler is enabled."), or "step() has already been called since the last
                update()."
            AssertionError: "No inf checks were recorded for this optimizer." (no grads).
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            return self._step_in_kernel(optimizer, state, args, kwargs)
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        else:
            self.skipped_steps += 1
        state["stage"] = OptState.STEPPED
        return retval

    def _check_inf_per_device(self, optimizer):
        """Record found_inf for ``optimizer``'s grads without unscaling them (inv_scale 1)."""
        self._check_scale_growth_tracker("_check_inf_per_device")
        dummy_inv_scale = _full(1.0, _dt.float32, self._scale._device)
        found_inf = _full(0.0, _dt.float32, self._scale._device)
        state = self._per_optimizer_states[id(optimizer)]
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, dummy_inv_scale,
                                                             found_inf, True)
        return state["found_inf_per_device"]

    def _step_in_kernel(self, optimizer, state, args, kwargs):
        """PyTorch's branch for optimizers that unscale and skip inside their step kernel
        (``fused=True``): they get ``optimizer.grad_scale`` (None when already unscaled) and
        ``optimizer.found_inf`` for the duration of the step."""
        if state["stage"] is OptState.READY:
            self._check_inf_per_device(optimizer)
        found_inf = sum(state["found_inf_per_device"].values())
        optimizer.grad_scale = (getattr(optimizer, "grad_scale", None)
                                if state["stage"] is OptState.UNSCALED
                                else dispatch("mul", self._scale,
                                              getattr(optimizer, "grad_scale", 1)))
        optimizer.found_inf = found_inf
        try:
            retval = optimizer.step(*args, **kwargs)
        finally:
            del optimizer.grad_scale
            del optimizer.found_inf
        state["stage"] = OptState.STEPPED
        if found_inf.item():
            self.skipped_steps += 1
        return retval

    def update(self, new_scale=None):
        """Update the scale: back off if any optimizer saw inf/nan this iteration, grow after
        ``growth_interval`` clean iterations; or set it to ``new_scale`` (float or 1-element
        tensor without grad; the tracker is then unchanged). Resets per-optimizer states.

        Raises:
            AssertionError: before any ``scale()``; "No inf checks were recorded prior to
                update." without ``step``/``unscale_``; a bad ``new_scale`` tensor.
            AttributeError: a Python int ``new_scale`` (as PyTorch).
        """
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        found = False
        if new_scale is not None:
            if isinstance(new_scale, float):
                dispatch("fill_", scale, new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device:   # a Python int: AttributeError
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                dispatch("copy_", scale, new_scale)   # a 1-D one-element tensor fails here
        else:
            found_infs = [f.to(scale._device) for s in self._per_optimizer_states.values()
                          for f in s["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]      # summed in place into the first flag, as PyTorch
            for f in found_infs[1:]:
                dispatch("add_", combined, f)
            found = bool(combined.item())
            dispatch("_amp_update_scale_", scale, tracker, combined, self._growth_factor,
                     self._backoff_factor, self._growth_interval)
        self.scale_history.append(scale.item())
        self.found_inf_history.append(found)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)
        self._warn_if_stuck(found)

    # consecutive skipped steps after which a warning (once) says so, while a NumericsMonitor
    # is active: not in PyTorch (a diagnostic of this emulator, silent otherwise so that a
    # ported script prints what it prints under PyTorch); 0 turns it off
    skip_warning_steps = 10

    def _warn_if_stuck(self, found):
        """Inside an active NumericsMonitor, warn once when ``skip_warning_steps`` consecutive
        updates found inf/nan gradients, naming the first op whose gradient went non-finite."""
        self._consecutive_skips = getattr(self, "_consecutive_skips", 0) + 1 if found else 0
        n = self.skip_warning_steps
        if not n or self._consecutive_skips != n or getattr(self, "_stuck_warned", False):
            return
        from .numerics import last_monitor
        mon = last_monitor()
        if mon is None:
            return
        self._stuck_warned = True
        where = ""
        if mon.first_nonfinite_gradient is not None:
            op, fmt = mon.first_nonfinite_gradient
            where = f"; the first op whose gradient went non-finite: {op} ({fmt})"
        warnings.warn(f"GradScaler skipped {n} consecutive optimizer steps because gradients "
                      f"held inf/nan (scale now {self.get_scale():g}){where}", UserWarning,
                      stacklevel=3)

    # ------------------------------------------------------------------ getters / setters
    def get_scale(self) -> float:
        """The current scale as a Python float (``init_scale`` before the first ``scale()``;
        1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        """The growth factor (a Python float)."""
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Set the growth factor used by later ``update`` calls."""
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        """The backoff factor (a Python float)."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Set the backoff factor used by later ``update`` calls."""
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        """The growth interval (an int)."""
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Set the growth interval used by later ``update`` calls."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None \
                else self._growth_tracker.item()
        return 0

    def is_enabled(self) -> bool:
        """Whether the scaler is enabled (it never disables itself for lack of a GPU)."""
        return self._enabled

    def state_dict(self) -> dict:
        """``{scale, growth_factor, backoff_factor, growth_interval, _growth_tracker}``; ``{}``
        when disabled."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict) -> None:
        """Load a ``state_dict()``; ignored when disabled.

        Raises:
            RuntimeError: an empty dict on an enabled scaler.
        """
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            dispatch("fill_", self._scale, state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            dispatch("fill_", self._growth_tracker, state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)
