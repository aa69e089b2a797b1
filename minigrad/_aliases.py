"""Drop-in package names: ``minigrad.optim`` *is* the ``optim`` package and ``minigrad.amp`` the
``amp_emu`` package, so that ``import minigrad as torch`` carries a script's ``torch.optim.SGD``,
``torch.optim.lr_scheduler``, ``import torch.optim``, ``torch.amp.GradScaler``.

A meta-path finder answers imports of those names (and their submodules) with the real modules,
imported on first use only: minigrad's core never imports ``optim`` or ``amp_emu`` at import time
(the layering rule of DESIGN.md), and no module is ever loaded twice under two names.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["ALIASES", "install"]

ALIASES = {"minigrad.optim": "optim", "minigrad.amp": "amp_emu"}


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``minigrad.optim[.x]`` / ``minigrad.amp[.x]`` and loads them as ``optim[.x]`` /
    ``amp_emu[.x]`` (the very same module objects)."""

    @staticmethod
    def _real_name(fullname):
        for alias, real in ALIASES.items():
            if fullname == alias or fullname.startswith(alias + "."):
                return real + fullname[len(alias):]
        return None

    def find_spec(self, fullname, path=None, target=None):
        """A spec for an aliased name (None for every other name)."""
        if self._real_name(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        """The real module, imported now (its own attributes are left as they are)."""
        return importlib.import_module(self._real_name(spec.name))

    def exec_module(self, module):
        """Nothing to run: the real module was executed by its own import."""


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
