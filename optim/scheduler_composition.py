"""Schedules made of schedules (mirror ``torch.optim.lr_scheduler``): ``SequentialLR`` runs
one scheduler after another, switching at milestone epochs; ``ChainedScheduler`` steps several
at once, so their multiplicative effects compose (e.g. ``ConstantLR`` warm-up with
``ExponentialLR`` decay).

Both hold the sub-schedulers' state in their own ``state_dict`` (under ``"_schedulers"``) and
refuse ``ReduceLROnPlateau``, whose ``step`` needs a metric. As in PyTorch 2.13 neither calls
the base constructor: the sub-schedulers do the stepping (and give the step-order warning).
"""
from __future__ import annotations

from bisect import bisect_right

from .lr_scheduler_base import LRScheduler, _group_values
from .plateau import ReduceLROnPlateau

__all__ = ["SequentialLR", "ChainedScheduler"]


def _check_schedulers(owner: str, optimizer, schedulers, what: str = "") -> None:
    """PyTorch's checks on the sub-schedulers: at least one, each with an ``optimizer`` (the
    same one), none a ``ReduceLROnPlateau``."""
    if len(schedulers) < 1:
        raise ValueError(f"{owner} expects at least one scheduler{what}, but got no scheduler.")
    for idx, sched in enumerate(schedulers):
        if not hasattr(sched, "optimizer"):
            raise TypeError(f"{owner} at index {idx} should have `optimizer` as its attribute.")
        if isinstance(sched, ReduceLROnPlateau):
            raise ValueError(f"{owner} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {idx} in the given schedulers sequence.")
        if optimizer != sched.optimizer:
            raise ValueError(f"{owner} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {sched.__class__.__name__} at index {idx} has "
                             f"{sched.optimizer}, which is different from "
                             f"{optimizer.__class__.__name__}.")


def _save_with_schedulers(sched) -> dict:
    sd = {k: v for k, v in sched.__dict__.items() if k not in ("optimizer", "_schedulers")}
    sd["_schedulers"] = [s.state_dict() for s in sched._schedulers]
    return sd


def _load_with_schedulers(sched, state_dict: dict) -> None:
    state_dict = dict(state_dict)
    saved = state_dict.pop("_schedulers")
    sched.__dict__.update(state_dict)
    for s, sd in zip(sched._schedulers, saved):
        s.load_state_dict(sd)


class SequentialLR(LRScheduler):
    """Run ``schedulers[i]`` between ``milestones[i-1]`` and ``milestones[i]``
    (``torch.optim.lr_scheduler.SequentialLR``).

    At construction the groups' lr go back to ``initial_lr``, every sub-scheduler's initial
    step is undone (``last_epoch -= 1``) and only the first scheduler's initial step is taken
    again. At a milestone the next scheduler restarts from epoch 0 with its closed form
    (``_update_lr(0)``) when it has one.

    Args:
        optimizer: the optimizer all the schedulers belong to.
        schedulers: the schedulers, in order.
        milestones: ``len(schedulers) - 1`` epochs at which to switch.
        last_epoch: index of the last epoch (-1 starts fresh).

    Raises:
        ValueError: no scheduler, a ``ReduceLROnPlateau``, a scheduler of another optimizer,
            or a milestone count that is not ``len(schedulers) - 1`` (PyTorch's messages).
        TypeError: a scheduler without an ``optimizer`` attribute.
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch: int = -1):
        _check_schedulers(self.__class__.__name__, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None) -> None:
        """Undo the initial step of every (nested) sub-scheduler: ``last_epoch -= 1``."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:
        """Advance one epoch: step the scheduler in charge, or restart the next one at 0."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        """Every attribute but the optimizer, the sub-schedulers as their ``state_dict``s."""
        return _save_with_schedulers(self)

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes and each sub-scheduler's state (the given dict is not changed)."""
        _load_with_schedulers(self, state_dict)


class ChainedScheduler(LRScheduler):
    """Step every scheduler in ``schedulers`` at each ``step()``
    (``torch.optim.lr_scheduler.ChainedScheduler``).

    Args:
        schedulers: the schedulers to chain (all on one optimizer).
        optimizer: that optimizer (default: ``schedulers[0].optimizer``).

    Raises:
        ValueError: no scheduler, a ``ReduceLROnPlateau`` or a scheduler of another optimizer
            (PyTorch's messages).
        TypeError: a scheduler without an ``optimizer`` attribute.
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            _check_schedulers(self.__class__.__name__, None, schedulers, " to be chained")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self.__class__.__name__, optimizer, schedulers, " to be chained")
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer)

    def step(self) -> None:
        """Step each scheduler in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer)

    def state_dict(self) -> dict:
        """Every attribute but the optimizer, the sub-schedulers as their ``state_dict``s."""
        return _save_with_schedulers(self)

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore attributes and each sub-scheduler's state (the given dict is not changed)."""
        _load_with_schedulers(self, state_dict)
