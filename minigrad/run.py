"""``python -m minigrad.run SCRIPT [args...]``: run an unmodified PyTorch script on minigrad.

Porting a script by renaming ``import torch`` to ``import minigrad as torch`` leaves its other
import lines (``import torch.nn as nn``, ``from torch.utils.data import DataLoader``) loading the
real PyTorch, whose tensors minigrad's do not mix with. This runs the script with every
``torch`` import resolved to minigrad instead (``import torch`` gives ``minigrad``, ``torch.nn``
gives ``minigrad.nn``, ``from torch.optim import AdamW`` gives optim's...), with ``sys.argv``
and ``__name__ == "__main__"`` as ``python SCRIPT args`` would give it, so no line of the script
changes. ``python -m minigrad.diff`` uses the same aliasing for its minigrad run.

``alias_torch_to_minigrad()`` does the aliasing in the running interpreter (call it before
anything imports torch; a library imported afterwards that imports torch gets minigrad too).

Exit status: the script's own (``SystemExit``); an exception propagates with its traceback.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys

__all__ = ["alias_torch_to_minigrad", "run_script", "main"]

_SUBMODULES = ("nn", "nn.functional", "nn.init", "nn.utils", "optim", "optim.lr_scheduler",
               "utils", "utils.data", "utils.checkpoint", "autograd", "cuda", "amp", "testing",
               "profiler", "backends")


def alias_torch_to_minigrad() -> None:
    """Make ``import torch`` / ``import torch.X`` / ``from torch.X import Y`` give minigrad's
    modules in this interpreter (a finder on ``sys.meta_path`` plus the common submodules
    registered up front)."""
    import importlib
    import importlib.abc
    import importlib.util

    import minigrad
    from minigrad._namespace import set_display_name

    set_display_name("torch")       # reprs say torch.float32 / torch.Size, as the script expects

    def target(name):
        tname = "minigrad" + name[len("torch"):]
        try:
            return importlib.import_module(tname)
        except ImportError:
            parent, _, attr = tname.rpartition(".")
            return getattr(importlib.import_module(parent), attr)    # lazy (minigrad.optim)

    class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path=None, target_=None):
            if name == "torch" or name.startswith("torch."):
                return importlib.util.spec_from_loader(name, self)
            return None

        def create_module(self, spec):
            return target(spec.name)

        def exec_module(self, module):
            pass

    sys.modules["torch"] = minigrad
    for sub in _SUBMODULES:
        try:
            sys.modules["torch." + sub] = target("torch." + sub)
        except (ImportError, AttributeError):
            pass
    sys.meta_path.insert(0, _Alias())


def run_script(script: str, args=()) -> None:
    """Run ``script`` as ``python script args...`` would in this interpreter: its ``sys.argv``,
    its folder first on ``sys.path``, ``__name__ == "__main__"``. Its ``SystemExit`` and
    exceptions propagate."""
    sys.argv = [script] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    # (``__file__`` absolute, as ``python script`` sets it since Python 3.9)
    runpy.run_path(os.path.abspath(script), run_name="__main__")


def main(argv=None) -> int:
    """The command line (see the module docstring); returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m minigrad.run",
                                description="Run a PyTorch script unmodified on minigrad "
                                            "(its torch imports resolve to minigrad).")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if "torch" in sys.modules and sys.modules["torch"].__name__ != "minigrad":
        raise RuntimeError("PyTorch is already imported in this interpreter; run the script "
                           "with python -m minigrad.run in a fresh one")
    alias_torch_to_minigrad()
    try:
        run_script(a.script, a.args)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
