"""Learning-rate schedules (mirror ``torch.optim.lr_scheduler``).

``LRScheduler`` (base), ``LambdaLR``, ``StepLR``, ``MultiStepLR``, ``ExponentialLR``,
``LinearLR``, ``CosineAnnealingLR`` and ``OneCycleLR``. Each uses PyTorch's own recursive
("chainable") formulas on the groups' current ``lr`` in the same Python float order, so the
learning rates equal PyTorch's exactly; ``step(epoch)`` (deprecated in PyTorch too) uses the
closed forms. Learning rates are plain Python floats (Tensor learning rates are not supported).
"""
from __future__ import annotations

import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from functools import wraps

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "LinearLR",
           "CosineAnnealingLR", "OneCycleLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")


def _format_param(name, optimizer, param):
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


def _lrs(optimizer):
    return [g["lr"] for g in optimizer.param_groups]


class LRScheduler:
    """Base class of learning-rate schedules (``torch.optim.lr_scheduler.LRScheduler``).

    Construction sets ``group["initial_lr"]`` (when ``last_epoch == -1``), records
    ``base_lrs`` and takes the initial step (``last_epoch`` becomes 0).

    Args:
        optimizer: the ``optim.Optimizer`` whose groups' ``lr`` it sets.
        last_epoch: index of the last epoch; -1 starts fresh.

    Raises:
        TypeError: "{type} is not an Optimizer".
        KeyError: resuming (``last_epoch != -1``) without ``initial_lr`` in a group.
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch: int = -1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0.")
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._patch_optimizer_step()
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def _patch_optimizer_step(self):
        opt = self.optimizer
        if hasattr(opt.step, "_wrapped_by_lr_sched"):
            return
        opt_ref = weakref.ref(opt)
        func = opt.step.__func__

        @wraps(func)
        def wrapper(*args, **kwargs):
            o = opt_ref()
            o._opt_called = True
            return func.__get__(o, o.__class__)(*args, **kwargs)

        wrapper._wrapped_by_lr_sched = True
        opt.step = wrapper

    def state_dict(self) -> dict:
        """Every attribute except the optimizer (``LRScheduler.state_dict``)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes saved by ``state_dict``."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """The learning rates set by the last ``step`` (one per group)."""
        return self._last_lr

    def get_lr(self) -> list:
        """The next learning rates (chainable form); implemented by subclasses."""
        raise NotImplementedError

    def step(self, epoch=None) -> None:
        """Advance one epoch (or jump to ``epoch``, deprecated) and set the groups' ``lr``.

        Warns (UserWarning) as PyTorch does when called before ``optimizer.step()``.
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                              "rate scheduler initialization. Please, make sure to call "
                              "`optimizer.step()` before `lr_scheduler.step()`.", UserWarning,
                              stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                              "In PyTorch 1.1.0 and later, you should call them in the opposite "
                              "order: `optimizer.step()` before `lr_scheduler.step()`.  Failure "
                              "to do this will result in PyTorch skipping the first value of the "
                              "learning rate schedule.", UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                values = (self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr")
                          else self.get_lr())
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch) (``torch.optim.lr_scheduler.LambdaLR``).

    Raises:
        ValueError: a list of lambdas whose length differs from the number of groups.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        """As the base, with callable objects' ``__dict__`` saved (plain functions as None)."""
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                            for fn in self.lr_lambdas]
        return sd

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes; lambdas' saved ``__dict__`` entries are applied back."""
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for idx, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)

    def get_lr(self):
        self._warn_outside_step()
        return [base * lmbda(self.last_epoch)
                for lmbda, base in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiply lr by ``gamma`` every ``step_size`` epochs (``lr_scheduler.StepLR``)."""

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply lr by ``gamma`` at each milestone epoch (``lr_scheduler.MultiStepLR``)."""

    def __init__(self, optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply lr by ``gamma`` every epoch (``lr_scheduler.ExponentialLR``)."""

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale lr linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs
    (``lr_scheduler.LinearLR``).

    Raises:
        ValueError: start_factor not in (0, 1] or end_factor not in [0, 1] (PyTorch's messages).
    """

    def __init__(self, optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        d = self.end_factor - self.start_factor
        return [g["lr"] * (1.0 + d / (self.total_iters * self.start_factor +
                                      (self.last_epoch - 1) * d))
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (self.start_factor + (self.end_factor - self.start_factor) *
                     min(self.total_iters, self.last_epoch) / self.total_iters)
                for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial lr to ``eta_min`` over ``T_max`` epochs
    (``lr_scheduler.CosineAnnealingLR``; recursive form, continues periodically past T_max)."""

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _lrs(self.optimizer)
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (b - self.eta_min) *
                    (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for b in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [g["lr"] + (b - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for b, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max)) /
                (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)) *
                (g["lr"] - self.eta_min) + self.eta_min for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (b - self.eta_min) *
                (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (``lr_scheduler.OneCycleLR``): warm up to ``max_lr`` then anneal to
    ``initial_lr / final_div_factor``, cycling momentum (or Adam's beta1) inversely.

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
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
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
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            max_ms = _format_param("max_momentum", optimizer, max_momentum)
            base_ms = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for m_m, b_m, group in zip(max_ms, base_ms, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m_m, *group["betas"][1:])
                    else:
                        group["momentum"] = m_m
                    group["max_momentum"] = m_m
                    group["base_momentum"] = b_m
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
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
                if self.use_beta1:
                    group["betas"] = (mom, *group["betas"][1:])
                else:
                    group["momentum"] = mom
        return lrs
