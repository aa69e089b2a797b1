"""``ReduceLROnPlateau``: cut the learning rate when a metric stops improving (mirrors
``torch.optim.lr_scheduler.ReduceLROnPlateau``).

The one schedule driven by a measured quantity rather than by the epoch count: ``step(metrics)``
compares the metric with the best seen so far (relative or absolute ``threshold``, ``"min"`` or
``"max"`` mode); after more than ``patience`` epochs without improvement every group's lr is
multiplied by ``factor`` (never below its ``min_lr``, and only when the change exceeds ``eps``),
then ``cooldown`` epochs pass before bad epochs count again.

As in PyTorch 2.13 it is an ``LRScheduler`` that skips the base constructor: it takes no
initial step, does not record ``initial_lr`` / ``base_lrs`` and does not wrap
``optimizer.step`` (so it never gives the step-order warning).
"""
from __future__ import annotations

import math
import warnings

from .lr_scheduler_base import (
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    _check_optimizer,
    _group_values,
)

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(LRScheduler):
    """Reduce each group's lr by ``factor`` once a metric has plateaued
    (``torch.optim.lr_scheduler.ReduceLROnPlateau``).

    Args:
        optimizer: the wrapped optimizer.
        mode: ``"min"`` (lower is better, default) or ``"max"``.
        factor: the lr multiplier on a plateau (default 0.1; must be < 1).
        patience: the number of bad epochs tolerated before reducing (default 10): the lr drops
            on the ``patience + 1``-th consecutive bad epoch.
        threshold: the least change that counts as an improvement (default 1e-4).
        threshold_mode: ``"rel"`` (``best * (1 -/+ threshold)``, default) or ``"abs"``
            (``best -/+ threshold``).
        cooldown: epochs to wait after a reduction before counting bad epochs again (default 0).
        min_lr: the lower bound of the lr, one float or one per group (default 0).
        eps: reductions smaller than this are skipped (default 1e-8).

    Raises:
        ValueError: "Factor should be < 1.0.", "expected {n} min_lrs, got {m}", "mode ... is
            unknown!", "threshold mode ... is unknown!".
        TypeError: not an Optimizer.
    """

    def __init__(self, optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr=0, eps: float = 1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer)
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        """Forget the best value, the bad-epoch count and the cooldown."""
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None) -> None:
        """Record one epoch's metric and reduce the learning rates if it has plateaued.

        Args:
            metrics: the metric (anything ``float()`` accepts, e.g. a 0-dim Tensor).
            epoch: deprecated (UserWarning): sets ``last_epoch`` instead of incrementing it.
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0      # bad epochs during a cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer)

    def _reduce_lr(self, epoch) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    "The number of param groups in the `optimizer` "
                    f"({len(self.optimizer.param_groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to "
                    "a new param group being added to the optimizer. Please modify the "
                    "`min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        """Whether a cooldown after the last reduction is still running."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes saved by ``state_dict`` (and re-check mode/threshold_mode)."""
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold,
                             threshold_mode=self.threshold_mode)
