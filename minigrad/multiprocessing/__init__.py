"""``minigrad.multiprocessing`` (``torch.multiprocessing``): Python's ``multiprocessing`` API
(``Process``, ``Queue``, ``Pool``, ``get_context``, ``set_start_method``, ``cpu_count``...,
re-exported as is) with minigrad's tensor sharing registered (``reductions``), plus
``spawn`` / ``start_processes`` and the sharing-strategy functions.

Hogwild training (PyTorch's ``mnist_hogwild`` example) runs unchanged::

    model.share_memory()            # parameters into shared memory
    p = mp.Process(target=train, args=(model,)); p.start(); p.join()

With "fork" the child inherits the shared mappings; with "spawn" / "forkserver" the model is
pickled and each shared storage sends its memory file's descriptor (Linux ``memfd_create``),
so the child's optimizer steps land in the parent's parameters either way. Tensors not in
shared memory reach the child as copies (PyTorch would move them into shared memory when
pickling them; see ``reductions``). Only the "file_descriptor" strategy exists here:
``set_sharing_strategy("file_system")`` is accepted and changes nothing (deliberate
difference). Emulated cuda tensors report ``is_shared()`` True, as PyTorch's, but live in
host memory that is not shared.
"""
from __future__ import annotations

import multiprocessing as _mp
import sys as _sys
from multiprocessing import *  # noqa: F401,F403 - torch.multiprocessing re-exports it all

from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                    SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "init_reductions", "spawn", "start_processes", "ProcessContext",
           "ProcessRaisedException", "ProcessExitedException", "SpawnContext"] + list(_mp.__all__)

if _sys.platform in ("darwin", "win32"):
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Set the strategy name (``torch.multiprocessing.set_sharing_strategy``); minigrad always
    shares by file descriptor, the name is only recorded.

    Raises:
        AssertionError: a name not in ``get_all_sharing_strategies()``.
    """
    global _sharing_strategy
    assert new_strategy in _all_sharing_strategies
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy name (``"file_descriptor"`` on Linux)."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The strategy names this platform accepts (a set)."""
    return _all_sharing_strategies


init_reductions()
