"""Stochastic weight averaging and EMA (``torch.optim.swa_utils``): ``AveragedModel``,
``SWALR``, ``update_bn`` and the averaging functions.

``AveragedModel(model)`` keeps a deep copy of ``model`` whose parameters are the running
average of the model's (``update_parameters`` after each step or epoch; the first call copies),
with ``n_averaged`` a long buffer. ``SWALR`` anneals each group's lr towards ``swa_lr`` over
``anneal_epochs`` steps. ``update_bn`` recomputes BatchNorm running statistics for the averaged
weights with one pass over the data (cumulative average: ``momentum=None``).

Every write is a dispatched op (``copy_``, ``_foreach_lerp_``, ``+=``), as in PyTorch.
Deliberate difference: with the default averaging PyTorch uses ``_foreach_lerp_`` on CUDA and
the per-tensor ``avg_fn`` formula on CPU; here both devices use the CPU formula (the emulated
cuda device therefore rounds like PyTorch's CPU, not its CUDA kernel).
"""
from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

import minigrad
from minigrad.dispatch import dispatch
from minigrad.nn import Module
from minigrad.nn.modules.batchnorm import _BatchNorm

from .lr_scheduler_base import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] "
                         "range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An EMA update over lists of tensors, in place:
    ``ema = lerp(ema, current, 1 - decay)`` (``_foreach_lerp_``) for floating tensors.

    Raises:
        ValueError: ``decay`` outside [0, 1].
    """
    _check_decay(decay)

    @minigrad.no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point():
            dispatch("_foreach_lerp_", list(ema_param_list), list(current_param_list),
                     1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """An equal-weight running average over lists of tensors, in place:
    ``avg = lerp(avg, current, 1 / (n + 1))`` for floating tensors."""
    @minigrad.no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        n = num_averaged.item() if isinstance(num_averaged, minigrad.Tensor) else num_averaged
        if averaged_param_list[0].is_floating_point():
            dispatch("_foreach_lerp_", list(averaged_param_list), list(current_param_list),
                     1 / (n + 1))
        else:
            diffs = [c - a for a, c in zip(averaged_param_list, current_param_list)]
            dispatch("_foreach_add_", list(averaged_param_list), diffs, alpha=1.0 / (n + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The per-tensor EMA: returns ``decay * ema + (1 - decay) * current``.

    Raises:
        ValueError: ``decay`` outside [0, 1].
    """
    _check_decay(decay)

    @minigrad.no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The per-tensor running average: returns ``avg + (current - avg) / (n + 1)``."""
    @minigrad.no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A running average of a model's parameters (``torch.optim.swa_utils.AveragedModel``).

    Args:
        model: the model to average (deep-copied into ``self.module``).
        device: move the copy there.
        avg_fn: ``(averaged, current, n_averaged) -> new averaged`` per tensor.
        multi_avg_fn: ``(averaged_list, current_list, n_averaged)``, updating in place.
        use_buffers: average the buffers too (else they are copied from ``model``).

    ``forward`` calls the averaged copy; ``state_dict`` keys are ``n_averaged`` and
    ``module.*`` as in PyTorch.

    Raises:
        AssertionError: both ``avg_fn`` and ``multi_avg_fn`` given.
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", minigrad.tensor(0, dtype=minigrad.long,
                                                           device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged model's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold ``model``'s current parameters into the average (the first call copies them),
        then copy its buffers (unless ``use_buffers``) and increment ``n_averaged``."""
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        averaged, current = [], []
        copy_param = bool(self.n_averaged == 0)
        with minigrad.no_grad():
            for p_averaged, p_model in zip(self_param, model_param):
                p_model_ = p_model.detach().to(p_averaged.device)
                averaged.append(p_averaged.detach())
                current.append(p_model_)
                if copy_param:
                    p_averaged.detach().copy_(p_model_)
            if self.n_averaged > 0:
                if self.multi_avg_fn is not None:
                    # grouped by (device, dtype) in first-seen order, as PyTorch's
                    # _group_tensors_by_device_and_dtype (an int64 num_batches_tracked buffer
                    # gets its own call, which the multi_avg_fns copy)
                    groups = {}
                    for a, c in zip(averaged, current):
                        groups.setdefault((a.device, a.dtype), ([], []))
                        groups[(a.device, a.dtype)][0].append(a)
                        groups[(a.device, a.dtype)][1].append(c)
                    for (dev, _), (avgs, curs) in groups.items():
                        self.multi_avg_fn(avgs, curs, self.n_averaged.to(dev))
                else:
                    avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                    for p_averaged, p_model in zip(averaged, current):
                        p_averaged.copy_(avg_fn(p_averaged, p_model,
                                                self.n_averaged.to(p_averaged.device)))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recompute the running mean / var of every BatchNorm of ``model`` with one pass over
    ``loader`` (``torch.optim.swa_utils.update_bn``): statistics reset, ``momentum=None``
    (cumulative average) during the pass, then restored; the model's train/eval mode is
    restored too. A batch that is a list or tuple contributes its first element."""
    with minigrad.no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` (``torch.optim.swa_utils.SWALR``), then hold it.

    Args:
        optimizer: the optimizer.
        swa_lr: the target lr (one per group, or one for all).
        anneal_epochs: steps of annealing (0: jump at once).
        anneal_strategy: "cos" or "linear".
        last_epoch: as ``LRScheduler``.

    Raises:
        ValueError: an unknown ``anneal_strategy`` or a negative / non-int ``anneal_epochs``
            (PyTorch's messages).
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The lrs of this step: the previous step's lr is un-annealed back to the starting
        lr, then annealed to this step's fraction ``t = step / anneal_epochs``."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else \
            self._linear_anneal

    def state_dict(self):
        """The scheduler's attributes except the optimizer and the anneal function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        """Restore ``state_dict`` (the anneal function follows ``_anneal_strategy``)."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
