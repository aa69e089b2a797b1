"""Periodic learning-rate schedules (mirror ``torch.optim.lr_scheduler``): ``CyclicLR``,
``OneCycleLR`` and ``CosineAnnealingWarmRestarts``.

Unlike the epoch-factor schedules of ``lr_scheduler.py``, these recompute each learning rate
from where the step falls in a cycle (not from the groups' current lr), and are meant to be
stepped once per *batch*:

* ``CyclicLR`` (Smith, "Cyclical Learning Rates", 2017) runs triangles between ``base_lr`` and
  ``max_lr``, their height scaled per cycle (``triangular2``) or per iteration (``exp_range``),
  and moves momentum (SGD's ``momentum`` or Adam's ``beta1``) the opposite way;
* ``OneCycleLR`` (Smith & Topin, "Super-Convergence", 2018) is a single warm-up/anneal cycle,
  also cycling momentum;
* ``CosineAnnealingWarmRestarts`` (Loshchilov & Hutter, "SGDR", 2017) restarts a cosine
  annealing every ``T_i`` epochs, ``T_i`` growing by ``T_mult``; ``step(epoch)`` takes
  fractional epochs, which is its documented use, so it does not warn.

The float expressions are PyTorch 2.13's, in its order, so the values are identical.
"""
from __future__ import annotations

import math
import types
from functools import partial

from .lr_scheduler_base import (
    LRScheduler,
    _check_optimizer,
    _format_param,
    _group_values,
)

__all__ = ["CyclicLR", "OneCycleLR", "CosineAnnealingWarmRestarts"]


def _set_momentum(group: dict, use_beta1: bool, value: float) -> None:
    """Write ``value`` as the group's ``betas[0]`` (Adam family) or ``momentum`` (SGD family)."""
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _init_momentum_cycle(sched, optimizer, base_momentum, max_momentum, last_epoch,
                         max_first: bool = False) -> tuple:
    """Shared by CyclicLR and OneCycleLR: check the optimizer has a momentum to cycle, record
    ``use_beta1`` and, on a fresh start, set each group's momentum to its max and remember
    ``max_momentum`` / ``base_momentum`` in the group. Returns the per-group lists
    ``(base, max)``; ``max_first`` checks ``max_momentum``'s length first (OneCycleLR's order,
    which decides the error message when both are wrong)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    sched.use_beta1 = "betas" in optimizer.defaults
    if max_first:
        max_ms = _format_param("max_momentum", optimizer, max_momentum)
    base_ms = _format_param("base_momentum", optimizer, base_momentum)
    if not max_first:
        max_ms = _format_param("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for m_m, b_m, group in zip(max_ms, base_ms, optimizer.param_groups, strict=True):
            _set_momentum(group, sched.use_beta1, m_m)
            group["max_momentum"] = m_m
            group["base_momentum"] = b_m
    return base_ms, max_ms


class CyclicLR(LRScheduler):
    """Cyclical learning rate between ``base_lr`` and ``max_lr``
    (``torch.optim.lr_scheduler.CyclicLR``); step it after every batch.

    Args:
        optimizer: the wrapped optimizer (its groups' ``lr`` are set to ``base_lr`` on a fresh
            start).
        base_lr: lower boundary, one float or one per group.
        max_lr: upper boundary, one float or one per group.
        step_size_up: iterations in the rising half of a cycle (default 2000).
        step_size_down: iterations in the falling half (default: ``step_size_up``).
        mode: ``"triangular"``, ``"triangular2"`` (height halved every cycle) or
            ``"exp_range"`` (height times ``gamma ** iteration``); ignored when ``scale_fn``
            is given.
        gamma: the ``exp_range`` base (default 1.0).
        scale_fn: a custom height scaling of one argument (overrides ``mode``).
        scale_mode: whether ``scale_fn`` gets the cycle number (``"cycle"``) or the iteration
            (``"iterations"``); the built-in modes set it themselves.
        cycle_momentum: cycle momentum/beta1 inversely between ``base_momentum`` and
            ``max_momentum`` (default True).
        base_momentum: lower momentum boundary (default 0.8), float or per group.
        max_momentum: upper momentum boundary (default 0.9), float or per group.
        last_epoch: the index of the last batch (-1 starts fresh).

    Raises:
        TypeError: not an Optimizer.
        ValueError: "mode is invalid and scale_fn is None"; cycle_momentum with an optimizer
            having neither ``momentum`` nor ``betas``; list lengths not matching the groups.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up: int = 2000,
                 step_size_down=None, mode: str = "triangular", gamma: float = 1.0,
                 scale_fn=None, scale_mode: str = "cycle", cycle_momentum: bool = True,
                 base_momentum=0.8, max_momentum=0.9, last_epoch: int = -1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                group["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _init_momentum_cycle(
                self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        # as PyTorch: the initial step above used the groups' initial_lr; from now on base_lr
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x) -> float:
        """The height scaling at ``x`` (a cycle number or an iteration, per ``scale_mode``)."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma ** x

    def get_lr(self):
        """The learning rates at ``last_epoch`` (iterations); sets the momenta as a side effect
        when ``cycle_momentum``."""
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [b + (m - b) * scale_factor * self.scale_fn(at)
               for b, m in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            for group, b_m, m_m in zip(self.optimizer.param_groups, self.base_momentums,
                                       self.max_momentums, strict=True):
                _set_momentum(group, self.use_beta1,
                              m_m - (m_m - b_m) * scale_factor * self.scale_fn(at))
        return lrs

    def state_dict(self) -> dict:
        """As the base, without the built-in scale function; a custom ``scale_fn`` is saved
        as its ``__dict__`` when it is a callable object, as None when a function/lambda."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = (fn.__dict__.copy() if fn is not None and
                                     not isinstance(fn, types.FunctionType) else None)
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes (the custom ``scale_fn`` object's ``__dict__`` included) and
        rebuild the built-in scale function. Unlike PyTorch, the given dict is not modified."""
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy (``lr_scheduler.OneCycleLR``): warm up to ``max_lr`` then anneal to
    ``initial_lr / final_div_factor``, cycling momentum (or Adam's beta1) inversely; step it
    after every batch, ``total_steps`` times at most.

    Args:
        optimizer: the wrapped optimizer.
        max_lr: the peak learning rate, float or one per group.
        total_steps: the number of steps of the cycle; or give ``epochs`` and
            ``steps_per_epoch``.
        epochs, steps_per_epoch: ``total_steps = epochs * steps_per_epoch``.
        pct_start: the fraction of the cycle spent warming up (default 0.3).
        anneal_strategy: ``"cos"`` (default) or ``"linear"``.
        cycle_momentum: move momentum/beta1 between ``max_momentum`` and ``base_momentum``.
        base_momentum, max_momentum: the momentum bounds (defaults 0.85, 0.95).
        div_factor: ``initial_lr = max_lr / div_factor`` (default 25).
        final_div_factor: ``min_lr = initial_lr / final_div_factor`` (default 1e4).
        three_phase: warm up, come back down to ``initial_lr``, then anneal to ``min_lr``
            (instead of warm up then anneal).
        last_epoch: the index of the last batch (-1 starts fresh).

    Raises:
        TypeError: not an Optimizer.
        ValueError: PyTorch's messages for bad total_steps/epochs/steps_per_epoch, pct_start,
            anneal_strategy, list lengths, an optimizer without momentum/betas when
            cycle_momentum, and stepping past total_steps.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start: float = 0.3, anneal_strategy: str = "cos",
                 cycle_momentum: bool = True, base_momentum=0.85, max_momentum=0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        n = self.total_steps
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * n) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum",
                 "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * n) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum",
                 "end_momentum": "max_momentum"},
                {"end_step": n - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"}]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * n) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum",
                 "end_momentum": "base_momentum"},
                {"end_step": n - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"}]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _init_momentum_cycle(self, optimizer, base_momentum, max_momentum, last_epoch,
                                 max_first=True)
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        """The learning rates at step ``last_epoch`` (annealed within the current phase);
        sets the momenta as a side effect when ``cycle_momentum``.

        Raises:
            ValueError: stepped past ``total_steps`` (PyTorch's message).
        """
        self._warn_outside_step()
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]],
                                           pct)
                    if self.cycle_momentum:
                        mom = self._anneal_func(group[phase["start_momentum"]],
                                                group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(group, self.use_beta1, mom)
        return lrs


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing with warm restarts, SGDR (``lr_scheduler.CosineAnnealingWarmRestarts``).

    ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``, where ``T_cur``
    counts epochs since the last restart and the ``i``-th period lasts ``T_i = T_0 * T_mult**i``.

    Args:
        optimizer: the wrapped optimizer.
        T_0: the length of the first period (a positive int).
        T_mult: the growth factor of the period after each restart (an int >= 1, default 1).
        eta_min: the minimum learning rate (default 0).
        last_epoch: index of the last epoch (-1 starts fresh).

    Raises:
        ValueError: "Expected positive integer T_0, but got ...", "Expected integer T_mult >= 1,
            but got ...", "Expected float or int eta_min, but got ... of type ..." (PyTorch's).
    """

    def __init__(self, optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The closed-form cosine at ``T_cur`` within the current period ``T_i``."""
        self._warn_outside_step()
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i))
                / 2 for b in self.base_lrs]

    def step(self, epoch=None) -> None:
        """Advance one epoch, or go to ``epoch`` (may be fractional: ``epoch + i / iters`` per
        batch; not deprecated here, so no warning). As in PyTorch 2.13 this step does not count
        ``_step_count``, so it never gives the step-order warning.

        Raises:
            ValueError: "Expected non-negative epoch, but got {epoch}".
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = _group_values(self.optimizer)
