"""``LRScheduler``: the base class of every learning-rate schedule (``torch.optim.lr_scheduler``).

What every schedule shares, as PyTorch 2.13 does it:

* construction records ``group["initial_lr"]`` and ``base_lrs``, then takes the *initial step*
  (``last_epoch`` -1 -> 0) in "initial mode", so ``get_lr`` can tell it from a real step;
* ``step()`` advances ``last_epoch`` and asks the subclass's ``get_lr`` (the "chainable" form:
  new lr from the groups' current lr) for the next learning rates; ``step(epoch)`` is deprecated
  (a UserWarning) and uses the subclass's ``_get_closed_form_lr`` where it has one;
* the order check: the optimizer's ``step`` is wrapped (once, per optimizer instance) so that a
  call sets ``optimizer._opt_called``; the first ``scheduler.step()`` after construction warns
  "Detected call of `lr_scheduler.step()` before `optimizer.step()`" when that flag is unset.
  A ``GradScaler`` that skips the first ``optimizer.step()`` (inf/nan grads) therefore triggers
  it too, exactly as in PyTorch;
* ``state_dict`` is every attribute but the optimizer.

Learning rates are plain Python floats here (PyTorch also allows Tensor learning rates; not
supported).
"""
from __future__ import annotations

import warnings
import weakref
from functools import wraps

from .optimizer import Optimizer

__all__ = ["LRScheduler", "EPOCH_DEPRECATION_WARNING"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")

_HOW_TO_ADJUST = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


def _format_param(name: str, optimizer, param) -> list:
    """One value per param group: a list/tuple is checked for length, a scalar repeated.

    Raises:
        ValueError: a list whose length differs from the number of param groups.
    """
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


def _group_values(optimizer, key: str = "lr") -> list:
    """``[group[key] for group in optimizer.param_groups]`` (KeyError when a group lacks it)."""
    return [g[key] for g in optimizer.param_groups]


def _check_optimizer(optimizer) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _track_optimizer_step(optimizer) -> None:
    """Wrap ``optimizer.step`` (an instance attribute) so each call sets ``_opt_called``.

    Done once per optimizer: a second scheduler on it finds ``_wrapped_by_lr_sched`` and leaves
    the wrapper alone. The wrapper holds the optimizer weakly (no reference cycle).
    """
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = weakref.ref(optimizer)
    func = optimizer.step.__func__

    @wraps(func)
    def wrapper(*args, **kwargs):
        opt = opt_ref()
        opt._opt_called = True
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


class LRScheduler:
    """Base class of learning-rate schedules (``torch.optim.lr_scheduler.LRScheduler``).

    Subclasses implement ``get_lr`` (and optionally ``_get_closed_form_lr``, used by the
    deprecated ``step(epoch)``). Construction sets ``group["initial_lr"]`` (when
    ``last_epoch == -1``), records ``base_lrs``, wraps ``optimizer.step`` for the order check
    and takes the initial step (``last_epoch`` becomes ``last_epoch + 1``).

    Args:
        optimizer: the ``optim.Optimizer`` whose groups' ``lr`` it sets.
        last_epoch: index of the last epoch; -1 starts fresh (other values resume a run and
            need ``initial_lr`` in every group).

    Raises:
        TypeError: "{type} is not an Optimizer".
        KeyError: resuming (``last_epoch != -1``) without ``initial_lr`` in a group.
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch: int = -1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. "
                        "You're trying to resume training from a checkpoint but haven't properly "
                        "loaded the optimizer state\n2. You're using last_epoch >= 0 for a fresh "
                        "training run (not recommended)")
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_step(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Reset the step count and take one step in initial mode (``_is_initial`` set)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict:
        """Every attribute except the optimizer (``LRScheduler.state_dict``)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes saved by ``state_dict`` (``LRScheduler.load_state_dict``)."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """The learning rates set by the last ``step`` (one float per param group)."""
        return self._last_lr

    def get_lr(self) -> list:
        """The next learning rates (chainable form); implemented by subclasses.

        Raises:
            NotImplementedError: on the base class.
        """
        raise NotImplementedError

    def step(self, epoch=None) -> None:
        """Advance one epoch and set the groups' ``lr`` (``LRScheduler.step``).

        Args:
            epoch: deprecated (UserWarning): jump ``last_epoch`` to ``epoch`` and use the
                closed form where the schedule has one.

        Warns (UserWarning, as PyTorch) on the first step after construction when
        ``optimizer.step()`` has not been called since (or was replaced after construction).
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                              "rate scheduler initialization. Please, make sure to call "
                              "`optimizer.step()` before `lr_scheduler.step()`. See more details "
                              f"at {_HOW_TO_ADJUST}", UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                              "In PyTorch 1.1.0 and later, you should call them in the opposite "
                              "order: `optimizer.step()` before `lr_scheduler.step()`.  Failure "
                              "to do this will result in PyTorch skipping the first value of the "
                              f"learning rate schedule. See more details at {_HOW_TO_ADJUST}",
                              UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None) -> None:
        """Compute and set the next learning rates: chainable ``get_lr`` after
        ``last_epoch += 1``, or, given ``epoch``, ``last_epoch = epoch`` and the closed form
        (``SequentialLR`` calls ``_update_lr(0)`` to restart a schedule at a milestone)."""
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
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = _group_values(self.optimizer)

    def _warn_outside_step(self) -> None:
        """PyTorch's hint when ``get_lr`` is called by the user rather than by ``step``."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)


class _LRScheduler(LRScheduler):
    """Backward-compatible name of ``LRScheduler`` (as ``torch.optim.lr_scheduler``)."""
