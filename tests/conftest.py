"""Shared test set-up: hypothesis profiles and a guard that fails tests leaking global state.

Profiles (select with the ``HYPOTHESIS_PROFILE`` environment variable, default ``ci``):
- ``ci``: derandomized (the same examples on every run), no deadline, a modest number of
  examples so that the whole suite stays under 10 minutes on 2 cores.
- ``dev``: random, many more examples, for hunting corners locally.

The autouse fixture ``_clean_global_state`` fails any test that leaves grad mode disabled, the
dispatch mode stack non-empty, the default dtype changed, or amp_emu's autocast state changed.
"""
from __future__ import annotations

import importlib
import os
import sys

# The README's command runs the suite on pytest-xdist, one worker per core. Each worker computes
# on one thread: PyTorch's OpenMP pool and OpenBLAS would otherwise start a thread per core in
# every worker, and the workers' threads would spin against each other. This runs before NumPy
# and PyTorch are first imported; minigrad's emulated thread count (``numerics.get_num_threads``)
# reads the same variable, so emulation and oracle agree.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import pytest
from hypothesis import HealthCheck, Phase, settings

import minigrad
import minigrad.dispatch as _dispatch

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=25,
                          database=None, suppress_health_check=_SUPPRESS, print_blob=True,
                          phases=[Phase.explicit, Phase.generate, Phase.shrink])
settings.register_profile("dev", deadline=None, max_examples=300,
                          suppress_health_check=_SUPPRESS, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _amp_state():
    """A snapshot of amp_emu's autocast state, or None when amp_emu is absent.

    Only functions amp_emu actually provides are queried (its API grows issue by issue).
    """
    try:
        import amp_emu
    except ImportError:
        return None
    mods = [amp_emu]
    for sub in ("autocast", "policy"):
        try:
            mods.append(__import__(f"amp_emu.{sub}", fromlist=["_"]))
        except ImportError:
            pass
    state = {}
    for mod in mods:
        for fname in ("is_autocast_enabled", "get_autocast_dtype"):
            f = getattr(mod, fname, None)
            if callable(f):
                for dev in ("cpu", "cuda"):
                    try:
                        state[(mod.__name__, fname, dev)] = repr(f(dev))
                    except Exception as exc:  # noqa: BLE001 - record, compare later
                        state[(mod.__name__, fname, dev)] = type(exc).__name__
        for fname in ("is_autocast_cache_enabled", "current_policy", "autocast_state"):
            f = getattr(mod, fname, None)
            if callable(f):
                try:
                    state[(mod.__name__, fname)] = repr(f())
                except Exception as exc:  # noqa: BLE001
                    state[(mod.__name__, fname)] = type(exc).__name__
    return state


_AMP_BASELINE = _amp_state()


def _torch_state():
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    return (torch.is_grad_enabled(), torch.get_default_dtype())


@pytest.fixture(autouse=True)
def _clean_global_state():
    """Fail a test that leaves grad mode, the mode stack, the default dtype or autocast changed.

    The state is restored before failing, so one leaking test does not break the next ones.
    """
    yield
    problems = []
    if not minigrad.is_grad_enabled():
        problems.append("grad mode left disabled")
        minigrad.set_grad_enabled(True)
    modes = _dispatch.current_modes()
    if modes:
        problems.append(f"dispatch mode stack left non-empty: {modes!r}")
        for m in reversed(modes):
            _dispatch.pop_mode(m)
    if minigrad.get_default_dtype() is not minigrad.float32:
        problems.append(f"default dtype left as {minigrad.get_default_dtype()!r}")
        minigrad.set_default_dtype(minigrad.float32)
    amp = _amp_state()
    if amp != _AMP_BASELINE and _AMP_BASELINE is not None and amp is not None:
        problems.append(f"amp_emu autocast state changed: {_AMP_BASELINE} -> {amp}")
    torch_after = _torch_state()
    if torch_after is not None:
        torch = sys.modules["torch"]
        if torch_after[0] is not True:
            problems.append("torch grad mode left disabled")
            torch.set_grad_enabled(True)
        if torch_after[1] is not torch.float32:
            problems.append(f"torch default dtype left as {torch_after[1]}")
            torch.set_default_dtype(torch.float32)
    if problems:
        pytest.fail("test leaked global state: " + "; ".join(problems), pytrace=False)


def pytest_terminal_summary(terminalreporter):
    """Print the OpInfo run/filter counts when the OpInfo tests ran."""
    mod = sys.modules.get("tests.differential.test_opinfo")
    report = getattr(mod, "summary_lines", None)
    if callable(report):
        lines = report()
        if lines:
            terminalreporter.section("OpInfo samples: run / filtered")
            for line in lines:
                terminalreporter.write_line(line)
