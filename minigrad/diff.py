"""``python -m minigrad.diff SCRIPT [args...]``: run a PyTorch script in PyTorch and in minigrad
and print where the two runs part, op by op.

The script runs twice, each time in a fresh interpreter: once as it is, under a trace of
PyTorch's ATen ops (a ``TorchDispatchMode``), and once with its ``torch`` imports resolved to
minigrad (``import torch`` gives ``minigrad``, ``torch.nn`` gives ``minigrad.nn``...), under
``minigrad.testing.TraceMode``. Each op is tagged forward, backward (while the autograd engine
runs) or step (inside ``Optimizer.step``). The two traces are lined up and measured as by
``minigrad.testing.compare_with_torch``, an op beyond the contract is replayed in PyTorch on
minigrad's own inputs to it (an op that agrees there only inherited the difference), and the
table plus the first op beyond the numerics contract (with a one-line repro) is printed.

The runs start from the same weights and batches when the script seeds the generator
(``torch.manual_seed``): minigrad draws PyTorch's CPU random numbers. Only the first
``--max-ops`` ops (default 3000) of each run are traced, so a long training script is compared
over its first steps.

Options: ``--max-ops N``, ``--ulp N`` (the bound for every floating dtype), ``--all`` (also the
ops only one side ran), ``--timeout S`` per run (default 600).

Exit status: 0 when no op diverges, 1 when one does, 2 when a run failed.
"""
from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import types

__all__ = ["main", "alias_torch_to_minigrad"]

from .run import alias_torch_to_minigrad, run_script  # noqa: E402  (the alias lived here first)


def _child(lib, out_path, script, args, max_ops):
    if lib == "minigrad":
        alias_torch_to_minigrad()
        from minigrad.testing.replay import TraceMode
        mode = TraceMode(values=True, auto_phase=True, max_ops=max_ops)
        records = mode.records
    else:
        from minigrad.testing.replay import _torch_ok_dtypes, _torch_trace_mode
        _torch_ok_dtypes()
        records = []
        mode = _torch_trace_mode(records, ["forward"], auto_phase=True, max_ops=max_ops,
                                 keep_args=False)
    status = 0
    try:
        with mode:
            run_script(script, args)
    except SystemExit as e:
        status = 0 if e.code in (None, 0) else 2
    with open(out_path, "wb") as f:        # (OpRecord pickles without its arguments)
        pickle.dump((status, records), f)


def main(argv=None) -> int:
    """The command line (see the module docstring); returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m minigrad.diff",
                                description="Run a PyTorch script in PyTorch and in minigrad "
                                            "and print the first op where they part.")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.add_argument("--max-ops", type=int, default=3000)
    p.add_argument("--ulp", type=float, default=None)
    p.add_argument("--all", action="store_true")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        _child(a.child[0], a.child[1], a.script, a.args, a.max_ops)
        return 0
    from minigrad.testing.replay import Comparison, _align, _measure, replay_divergences
    traces = {}
    with tempfile.TemporaryDirectory() as tmp:
        for lib in ("torch", "minigrad"):
            out = os.path.join(tmp, lib + ".pkl")
            cmd = [sys.executable, "-m", "minigrad.diff", "--child", lib, out,
                   "--max-ops", str(a.max_ops), a.script] + a.args
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
            if res.returncode != 0 or not os.path.exists(out):
                sys.stderr.write(f"the {lib} run failed:\n{res.stderr[-4000:]}")
                return 2
            with open(out, "rb") as f:
                status, records = pickle.load(f)
            traces[lib] = records
            print(f"{lib}: {len(records)} ops traced" +
                  ("" if status == 0 else " (the script exited with an error)"))
    rows = _align(traces["minigrad"], traces["torch"])
    for r in rows:
        if r.ours is not None and r.theirs is not None:
            _measure(r, a.ulp, 4.0)
    replay_divergences(rows, a.ulp, 4.0)
    c = Comparison(rows, traces["minigrad"], traces["torch"])
    print(c.table(all_rows=a.all))
    print("\n".join(str(c).split("\n")[len(c.table().split("\n")):]))   # the verdict
    return 1 if c.first is not None else 0


class _DiffModule(types.ModuleType):
    """This module's type: ``minigrad.diff`` is also ``torch.diff`` (the function), and an
    ``import minigrad.diff`` sets the package's attribute to the module, so the module itself
    is callable as that function (``minigrad.diff(x, n=1, dim=-1)`` works either way)."""

    def __call__(self, *args, **kwargs):
        from ._functional.scans import diff
        return diff(*args, **kwargs)


sys.modules[__name__].__class__ = _DiffModule

if __name__ == "__main__":
    sys.exit(main())
