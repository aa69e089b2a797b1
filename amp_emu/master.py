"""fp32 master weights for fp16/bf16 models (the apex "O2" recipe, in PyTorch-style API).

Pure low-precision training (``model.half()`` then an optimizer on the fp16 params) loses small
updates: ``w + lr*g`` rounds back to ``w`` when ``lr*g`` is below half an ulp of ``w``, and Adam's
state underflows. The remedy keeps an fp32 copy of every parameter ("master weights") and the
optimizer state in fp32:

1. forward/backward run on the fp16/bf16 model (its grads are fp16/bf16);
2. each model grad is copied to its master param as fp32 (done by a post-accumulate-grad hook
   right after backward, so ``GradScaler.unscale_`` sees fp32 grads). From then on the masters'
   grads are the ones that count: clip them, ``clip_grad_norm_(opt.master_params, max_norm)``.
   Clipping ``model.parameters()`` after backward changes grads nobody reads (they are also
   still multiplied by the loss scale);
3. the optimizer steps the fp32 masters;
4. the masters are rounded back into the model params (one rounding per step), by the
   dispatched ``copy_``: every write is a dispatched op, as everywhere in amp_emu and optim.

Usage::

    model.half()
    opt = MasterWeightOptimizer(optim.Adam, model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    scaler.scale(loss).backward()
    scaler.unscale_(opt)                    # works: master grads are fp32
    clip_grad_norm_(opt.master_params, 1.0) # clip the masters, not model.parameters()
    scaler.step(opt); scaler.update()
    opt.zero_grad()

No PyTorch counterpart in ``torch.amp`` (apex.amp O2 / ``FP16_Optimizer`` did this).
"""
from __future__ import annotations

from collections import OrderedDict

from minigrad import dtypes as _dt
from minigrad.autograd.grad_mode import no_grad
from minigrad.dispatch import dispatch
from minigrad.nn.module import zero_grads_
from minigrad.tensor import Tensor
from optim.optimizer import Optimizer

__all__ = ["master_params", "MasterWeightOptimizer"]


def master_params(params) -> list:
    """fp32 leaf copies (``requires_grad=True``) of ``params`` (Tensors or a Module's
    ``parameters()``), in order. float64 params are copied as float64.

    Raises:
        TypeError: an element that is not a floating Tensor.
    """
    out = []
    for p in params:
        if not isinstance(p, Tensor) or not p.dtype.is_floating_point:
            raise TypeError(f"master_params expects floating Tensors, got "
                            f"{getattr(p, 'dtype', type(p).__name__)}")
        dt = _dt.float64 if p.dtype is _dt.float64 else _dt.float32
        with no_grad():
            m = dispatch("_to_copy", p.detach(), dtype=dt)
        m = m.detach()
        m.requires_grad_(True)
        out.append(m)
    return out


class MasterWeightOptimizer(Optimizer):
    """Wrap an optimizer class so that it steps fp32 copies of low-precision model params.

    Args:
        optimizer_cls: an ``optim.Optimizer`` subclass (``optim.SGD``, ``optim.Adam``...).
        model_params: the model's (fp16/bf16) parameters, or a list of param-group dicts.
        **kw: the optimizer's arguments (lr, momentum, ...).

    Attributes:
        optimizer: the inner optimizer over the fp32 masters (its ``state`` is fp32).
        model_params / master_params: aligned lists.
        param_groups, state, defaults: the inner optimizer's (shared, not copied), so
            ``GradScaler`` and LR schedulers (``StepLR(opt, 5)``...) act on the masters.

    An ``optim.Optimizer`` subclass (so ``isinstance(opt, Optimizer)`` holds and step hooks
    work), but it does not run ``Optimizer.__init__``: everything is delegated to ``optimizer``.

    Raises:
        TypeError: as ``master_params``.
    """

    def __init__(self, optimizer_cls, model_params, **kw):
        params = list(model_params)
        if params and isinstance(params[0], dict):
            groups = []
            self.model_params = []
            for g in params:
                ps = list(g["params"])
                self.model_params += ps
                groups.append({**g, "params": master_params(ps)})
            self.master_params = [m for g in groups for m in g["params"]]
            self.optimizer = optimizer_cls(groups, **kw)
        else:
            self.model_params = params
            self.master_params = master_params(params)
            self.optimizer = optimizer_cls(self.master_params, **kw)
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._handles = []
        self._add_hooks(self.model_params, self.master_params)

    def _add_hooks(self, model_params, masters):
        for p, m in zip(model_params, masters):
            if p._requires_grad and hasattr(p, "register_post_accumulate_grad_hook"):
                self._handles.append(p.register_post_accumulate_grad_hook(self._hook(m)))

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of model params: fp32 masters are made for them and added to the inner
        optimizer (``Optimizer.add_param_group``)."""
        ps = param_group["params"]
        ps = [ps] if isinstance(ps, Tensor) else list(ps)
        masters = master_params(ps)
        self.optimizer.add_param_group({**param_group, "params": masters})
        self.model_params += ps
        self.master_params += masters
        self._add_hooks(ps, masters)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_handles", None)        # the grad-copy hooks are re-made on unpickling
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._handles = []
        self._add_hooks(self.model_params, self.master_params)

    def __repr__(self) -> str:
        return f"MasterWeightOptimizer({self.optimizer!r})"

    @staticmethod
    def _hook(master):
        def copy_grad(p):
            master.grad = None if p.grad is None else _to_master_grad(p.grad, master.dtype)
        return copy_grad

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    @property
    def state(self):
        return self.optimizer.state

    @property
    def defaults(self):
        return self.optimizer.defaults

    def sync_grads(self):
        """Copy every model grad into its master as fp32 (only needed when grads were set by
        hand rather than by ``backward``)."""
        for p, m in zip(self.model_params, self.master_params):
            m.grad = None if p.grad is None else _to_master_grad(p.grad, m.dtype)

    def zero_grad(self, set_to_none: bool = True):
        """Clear model and master grads (``None`` by default, as ``Optimizer.zero_grad``)."""
        zero_grads_(self.model_params + self.master_params, set_to_none)

    def step(self, closure=None):
        """Step the fp32 masters, then write them back, rounded, into the model params."""
        ret = self.optimizer.step() if closure is None else self.optimizer.step(closure)
        with no_grad():
            for p, m in zip(self.model_params, self.master_params):
                dispatch("copy_", p, m)     # cast to the model's dtype: one rounding
        return ret

    def state_dict(self):
        """The inner optimizer's state dict (fp32 state)."""
        return self.optimizer.state_dict()

    def load_state_dict(self, sd):
        """Load an inner-optimizer state dict (as saved by ``state_dict``)."""
        self.optimizer.load_state_dict(sd)


def _to_master_grad(g, dtype):
    with no_grad():
        return dispatch("_to_copy", g.detach(), dtype=dtype).detach()
