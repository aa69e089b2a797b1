"""Learning-rate schedules (mirror ``torch.optim.lr_scheduler``): the module users import.

This module holds the schedules that are a function of the epoch count (each multiplies the
groups' current ``lr`` by a factor, or recomputes it from ``base_lrs``): ``LambdaLR``,
``MultiplicativeLR``, ``StepLR``, ``MultiStepLR``, ``ConstantLR``, ``LinearLR``,
``ExponentialLR``, ``PolynomialLR`` and ``CosineAnnealingLR``. It also re-exports the rest of
``torch.optim.lr_scheduler``'s names, which live in one module per idea:

* ``lr_scheduler_base``: ``LRScheduler`` (initial step, the step-order warning, ``step(epoch)``
  deprecation, ``state_dict``);
* ``cyclic_lr``: ``CyclicLR``, ``OneCycleLR``, ``CosineAnnealingWarmRestarts`` (periodic
  schedules; the first two also cycle momentum);
* ``plateau``: ``ReduceLROnPlateau`` (driven by a metric, not by the epoch);
* ``scheduler_composition``: ``SequentialLR``, ``ChainedScheduler`` (schedules of schedules).

Each schedule uses PyTorch 2.13's own recursive ("chainable") formula on the groups' current
``lr`` in the same Python float order, so the learning rates equal PyTorch's exactly;
``step(epoch)`` (deprecated in PyTorch too) uses the closed forms where PyTorch has them.
"""
from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections import Counter

from .cyclic_lr import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from .lr_scheduler_base import (  # noqa: F401
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    _group_values,
    _LRScheduler,
)
from .plateau import ReduceLROnPlateau
from .scheduler_composition import ChainedScheduler, SequentialLR

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR", "LRScheduler"]

_lrs = _group_values


def _save_callables(sched, attr: str) -> dict:
    """``state_dict`` for schedules holding per-group callables (PyTorch's rule): plain
    functions and lambdas are saved as None, callable objects as a copy of their ``__dict__``."""
    sd = {k: v for k, v in sched.__dict__.items() if k not in ("optimizer", attr)}
    sd[attr] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                for fn in getattr(sched, attr)]
    return sd


def _load_callables(sched, attr: str, state_dict: dict) -> None:
    """Inverse of ``_save_callables``: attributes restored, objects' ``__dict__`` updated."""
    state_dict = dict(state_dict)
    saved = state_dict.pop(attr)
    sched.__dict__.update(state_dict)
    for fn, d in zip(getattr(sched, attr), saved):
        if d is not None:
            fn.__dict__.update(d)


def _lambdas(optimizer, lr_lambda) -> list:
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                         f"{len(lr_lambda)}")
    return list(lr_lambda)


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch) (``torch.optim.lr_scheduler.LambdaLR``).

    Args:
        optimizer: the wrapped optimizer.
        lr_lambda: a function of the epoch (int) giving the factor, or one per param group.
        last_epoch: index of the last epoch (-1 starts fresh).

    Raises:
        ValueError: a list of lambdas whose length differs from the number of groups.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        """As the base, with callable objects' ``__dict__`` saved (plain functions as None)."""
        return _save_callables(self, "lr_lambdas")

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes; lambdas' saved ``__dict__`` entries are applied back."""
        _load_callables(self, "lr_lambdas", state_dict)

    def get_lr(self):
        """``base_lr * lr_lambda(last_epoch)`` per group."""
        self._warn_outside_step()
        return [base * lmbda(self.last_epoch)
                for lmbda, base in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(LRScheduler):
    """Multiply each group's lr by ``lr_lambda(epoch)`` every epoch after the first
    (``torch.optim.lr_scheduler.MultiplicativeLR``).

    Args:
        optimizer: the wrapped optimizer.
        lr_lambda: a function of the epoch (int) giving the factor, or one per param group.
        last_epoch: index of the last epoch (-1 starts fresh).

    Raises:
        ValueError: a list of lambdas whose length differs from the number of groups.
        TypeError: "lr_lambda should be a function, but got {type}" for a non-callable.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        """As the base, with callable objects' ``__dict__`` saved (plain functions as None)."""
        return _save_callables(self, "lr_lambdas")

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes; lambdas' saved ``__dict__`` entries are applied back."""
        _load_callables(self, "lr_lambdas", state_dict)

    def get_lr(self):
        """The current lr times ``lr_lambda(last_epoch)`` (unchanged on the initial step)."""
        self._warn_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [g["lr"] * lmbda(self.last_epoch)
                for lmbda, g in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


class StepLR(LRScheduler):
    """Multiply lr by ``gamma`` every ``step_size`` epochs (``lr_scheduler.StepLR``).

    Args:
        optimizer: the wrapped optimizer.
        step_size: period of the decay, in epochs.
        gamma: the multiplicative factor (default 0.1).
        last_epoch: index of the last epoch (-1 starts fresh).
    """

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lr, times ``gamma`` at each non-zero multiple of ``step_size``."""
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply lr by ``gamma`` at each milestone epoch (``lr_scheduler.MultiStepLR``).

    Args:
        optimizer: the wrapped optimizer.
        milestones: epoch indices; a milestone given n times decays by ``gamma ** n``.
        gamma: the multiplicative factor (default 0.1).
        last_epoch: index of the last epoch (-1 starts fresh).
    """

    def __init__(self, optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lr, times ``gamma ** count`` at a milestone."""
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiply lr by ``factor`` for the first ``total_iters`` epochs, then restore it
    (``torch.optim.lr_scheduler.ConstantLR``).

    Args:
        optimizer: the wrapped optimizer.
        factor: the multiplier while active (default 1/3).
        total_iters: the number of epochs it is active (default 5).
        last_epoch: index of the last epoch (-1 starts fresh).

    Raises:
        ValueError: factor outside [0, 1] ("Constant multiplicative factor expected to be
            between 0 and 1.").
    """

    def __init__(self, optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """lr * factor at epoch 0, lr / factor (as ``lr * (1.0 / factor)``) at ``total_iters``,
        unchanged otherwise."""
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale lr linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs
    (``lr_scheduler.LinearLR``).

    Args:
        optimizer: the wrapped optimizer.
        start_factor: the factor at epoch 0 (default 1/3), in (0, 1].
        end_factor: the factor from ``total_iters`` on (default 1.0), in [0, 1].
        total_iters: the number of epochs of the ramp (default 5).
        last_epoch: index of the last epoch (-1 starts fresh).

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
        """The current lr times the ratio of this epoch's factor to the last one's."""
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


class ExponentialLR(LRScheduler):
    """Multiply lr by ``gamma`` every epoch (``lr_scheduler.ExponentialLR``).

    Args:
        optimizer: the wrapped optimizer.
        gamma: the multiplicative factor.
        last_epoch: index of the last epoch (-1 starts fresh).
    """

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lr times ``gamma`` (unchanged on the initial step)."""
        self._warn_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay lr as ``(1 - epoch / total_iters) ** power`` until ``total_iters``, then hold it
    (``torch.optim.lr_scheduler.PolynomialLR``).

    Args:
        optimizer: the wrapped optimizer.
        total_iters: the number of epochs of the decay (default 5).
        power: the polynomial's power (default 1.0).
        last_epoch: index of the last epoch (-1 starts fresh).
    """

    def __init__(self, optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current lr times ((1 - e/T) / (1 - (e-1)/T)) ** power."""
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        decay = ((1.0 - self.last_epoch / self.total_iters) /
                 (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [g["lr"] * decay for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [b * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial lr to ``eta_min`` over ``T_max`` epochs
    (``lr_scheduler.CosineAnnealingLR``; recursive form, continues periodically past T_max).

    Args:
        optimizer: the wrapped optimizer.
        T_max: half the period, in epochs.
        eta_min: the minimum learning rate (default 0).
        last_epoch: index of the last epoch (-1 starts fresh).
    """

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """PyTorch's recursive cosine step (closed form on the first step of a resumed run)."""
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
                    for b, g in zip(self.base_lrs, groups, strict=True)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max)) /
                (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)) *
                (g["lr"] - self.eta_min) + self.eta_min for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (b - self.eta_min) *
                (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]

