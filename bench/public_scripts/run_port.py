"""Run a public PyTorch script unchanged (torch) or with only its import lines renamed (minigrad).

python run_port.py LIB SCRIPT WORKDIR [script args...]
- minigrad: every `import torch...` / `from torch... import` line is rewritten to minigrad's name.
- the first forward call of each root module syncs its state_dict: the torch run saves it,
  the minigrad run loads torch's (and records whether its own init already equalled torch's).
- every backward() of a one-element tensor records the loss; written to WORKDIR/LIB.json.
"""
import json, os, re, sys, runpy, random
import numpy as np

LIB, SCRIPT, WORK = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
os.environ["PORT_LIB"] = LIB
os.makedirs(WORK, exist_ok=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubs"))

IMPORT_RE = [
    (re.compile(r"^(\s*)import torch(\s*(#.*)?)$"), r"\1import minigrad as torch\2"),
    (re.compile(r"^(\s*)import torch\.([\w.]+) as (\w+)"), r"\1import minigrad.\2 as \3"),
    (re.compile(r"^(\s*)import torch\.([\w.]+)\s*$"), r"\1import minigrad.\2"),
    (re.compile(r"^(\s*)from torch(\.[\w.]+)? import "), r"\1from minigrad\2 import "),
]

def rename(src):
    out, changed = [], []
    for i, line in enumerate(src.splitlines()):
        new = line
        for rx, rep in IMPORT_RE:
            new = rx.sub(rep, new)
        if new != line:
            changed.append((i + 1, line.strip(), new.strip()))
        out.append(new)
    return "\n".join(out) + "\n", changed

def main():
    args = sys.argv[4:]
    if LIB == "minigrad":
        d = os.path.join(WORK, "ported")
        os.makedirs(d, exist_ok=True)
        srcdir = os.path.dirname(SCRIPT)
        for fn in os.listdir(srcdir):
            if fn.endswith(".py"):
                new, ch = rename(open(os.path.join(srcdir, fn)).read())
                open(os.path.join(d, fn), "w").write(new)
                if fn == os.path.basename(SCRIPT) or ch:
                    for c in ch:
                        print(f"[port] {fn}:{c[0]}: {c[1]!r} -> {c[2]!r}", file=sys.stderr)
        script = os.path.join(d, os.path.basename(SCRIPT))
    else:
        script = SCRIPT
    import importlib
    lib = importlib.import_module(LIB)
    losses, synced = [], {"n": 0, "same_init": []}
    orig_backward = lib.Tensor.backward

    class StopPort(Exception):
        pass
    maxs = int(os.environ.get("PORT_MAX_STEPS", "0"))

    def backward(self, *a, **k):
        if maxs and len(losses) >= maxs:
            raise StopPort(f"stopped after {maxs} backward calls")
        if self.numel() == 1:
            losses.append(float(self.detach().double().item()))
        return orig_backward(self, *a, **k)
    lib.Tensor.backward = backward

    Module = lib.nn.Module
    orig_call = Module.__call__
    depth = {"d": 0}
    seen = set()

    def call(self, *a, **k):
        if depth["d"] == 0 and id(self) not in seen:
            seen.add(id(self))
            n = synced["n"]; synced["n"] += 1
            f = os.path.join(WORK, f"init_{n}.npz")
            sd = self.state_dict()
            if LIB == "torch":
                np.savez(f, **{k_: v.detach().cpu().numpy() for k_, v in sd.items()})
            elif os.path.exists(f):
                ref = np.load(f)
                same = all(np.array_equal(ref[k_], sd[k_].detach().cpu().numpy()) for k_ in ref.files)
                synced["same_init"].append(same)
                self.load_state_dict({k_: lib.tensor(ref[k_]) for k_ in ref.files})
        depth["d"] += 1
        try:
            return orig_call(self, *a, **k)
        finally:
            depth["d"] -= 1
    Module.__call__ = call
    if os.environ.get("PORT_SAFE_NUMPY"):     # a harness choice, for scripts that torch.load numpy
        from numpy._core.multiarray import _reconstruct
        lib.serialization.add_safe_globals([_reconstruct, np.ndarray, np.dtype,
                                            type(np.dtype("float64"))])
    random.seed(0); np.random.seed(0); lib.manual_seed(0)   # scripts that never seed
    sys.argv = [script] + args
    sys.path.insert(0, os.path.dirname(script))
    os.chdir(WORK)
    err = None
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit:
        pass
    except StopPort:
        pass
    except BaseException as e:
        import traceback; traceback.print_exc()
        err = f"{type(e).__name__}: {e}"
    json.dump({"losses": losses, "same_init": synced["same_init"], "error": err},
              open(os.path.join(WORK, f"{LIB}.json"), "w"))

main()
