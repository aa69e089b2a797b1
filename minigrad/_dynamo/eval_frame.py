"""``OptimizedModule`` (mirrors ``torch._dynamo.eval_frame.OptimizedModule``): what
``minigrad.compile(module)`` returns.

PyTorch's wrapper holds the original module as its only child, ``_orig_mod``, and runs the
compiled forward in its place. minigrad compiles nothing, so the wrapper's ``forward`` simply
calls the original module; everything else is PyTorch's: ``state_dict`` / ``named_parameters``
keys start with ``"_orig_mod."``, ``repr`` shows ``OptimizedModule((_orig_mod): ...)``, and any
other attribute is read from, written to and deleted on the original module (``compiled.weight``,
``compiled.training``).
"""
from __future__ import annotations

from ..nn.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A compiled module's wrapper: ``OptimizedModule(mod)`` (``torch.compile(mod)`` makes it).

    Calling it calls ``mod`` (with the wrapper's own hooks, if any, around it); ``_orig_mod``
    is ``mod``; attributes other than the wrapper's own go to ``mod``.
    """

    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "forward", "__dict__"}

    def __init__(self, mod, dynamo_ctx=None):
        super().__init__()
        self._orig_mod = mod          # Module.__setattr__ registers it as the only child
        self.dynamo_ctx = dynamo_ctx

    def forward(self, *args, **kwargs):
        """``self._orig_mod(*args, **kwargs)``: the original module, hooks and all."""
        return self._orig_mod(*args, **kwargs)

    def __len__(self):
        try:
            return len(self._orig_mod)
        except TypeError:
            raise TypeError(f"{type(self._orig_mod).__name__} does not support len()") from None

    @property
    def training(self):
        """The original module's ``training`` flag (set through it too)."""
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        if "_modules" in self.__dict__ and "_orig_mod" in self._modules:
            self._orig_mod.training = value

    def __getattr__(self, name):
        if name == "_orig_mod":
            modules = self.__dict__.get("_modules")
            if modules is None or "_orig_mod" not in modules:
                raise AttributeError("'OptimizedModule' object has no attribute '_orig_mod'")
            return modules["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __reduce__(self):
        return (self.__class__, (self._orig_mod, self.dynamo_ctx))

    def __dir__(self):
        orig = self._orig_mod.__dir__()
        return orig + [a for a in super().__dir__() if a not in orig]
