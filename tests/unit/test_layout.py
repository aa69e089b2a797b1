"""The package layout rules of DESIGN.md, checked: no import cycle between minigrad's modules at
import time, each module importable on its own, ``minigrad.dispatch`` is the module.

Two checks of the same rule, one static and one dynamic:

- ``test_import_time_module_graph_has_no_cycle`` reads every module with ``ast``, takes the imports
  that run at import time (module and class bodies, not function bodies) and looks for a cycle in
  the graph they form. Importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` and ``a``: those
  are edges too, except for the importer's own ancestor packages (already being imported).
- ``test_each_module_imports_in_isolation`` imports every module in a fresh interpreter as the
  *first* minigrad module, with ``minigrad/__init__.py`` replaced by an empty package, so no module
  can lean on the package having imported its dependencies in a lucky order.
"""
from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import minigrad

ROOT = pathlib.Path(minigrad.__file__).resolve().parent.parent
PKG = ROOT / "minigrad"


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _modules() -> dict:
    """Module name -> source path, for every minigrad module."""
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _import_time_nodes(tree):
    """Import statements executed at import time: module level, inside if/try/with/class
    bodies, not inside function bodies."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        else:
            todo.extend(ast.iter_child_nodes(node))


def _resolve(module: str, is_pkg: bool, node, known: set) -> list:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".") if is_pkg else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module
    out = []
    for a in node.names:
        sub = f"{target}.{a.name}"
        out.append(sub if sub in known else target)
    return out


def import_graph() -> dict:
    """minigrad module -> set of minigrad modules whose import it triggers at import time."""
    mods = _modules()
    known = set(mods)
    graph = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        is_pkg = path.name == "__init__.py"
        own_ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        if is_pkg:
            own_ancestors.add(name)
        edges = set()
        for node in _import_time_nodes(tree):
            for target in _resolve(name, is_pkg, node, known):
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    t = ".".join(parts[:i])
                    if t in known and t not in own_ancestors and t != name:
                        edges.add(t)
        graph[name] = edges
    return graph


def find_cycle(graph: dict):
    """A list of modules forming a cycle (first == last), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {n: WHITE for n in graph}
    for root in sorted(graph):
        if color[root] != WHITE:
            continue
        stack = [(root, iter(sorted(graph[root])))]
        path = [root]
        color[root] = GREY
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = BLACK
                stack.pop()
                path.pop()
                continue
            if color.get(nxt) == GREY:
                return path[path.index(nxt):] + [nxt]
            if color.get(nxt) == WHITE:
                color[nxt] = GREY
                stack.append((nxt, iter(sorted(graph[nxt]))))
                path.append(nxt)
    return None


def test_cycle_finder_finds_a_planted_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_graph_sees_relative_and_package_imports():
    g = import_graph()
    assert "minigrad.tensor" in g["minigrad.autograd.function"]
    assert "minigrad.dispatch" in g["minigrad.tensor"]
    # importing minigrad.ops.kernel (``from ..autograd.function import Function``) runs
    # minigrad/autograd/__init__.py first
    assert "minigrad.autograd" in g["minigrad.ops.kernel"]


def test_import_time_module_graph_has_no_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle at import time: " + " -> ".join(cycle)


_ISOLATED = r"""
import importlib, json, sys, traceback, types
root, names = sys.argv[1], json.loads(sys.argv[2])
failures = {}
loaded_by = {}      # package -> the minigrad modules a fresh import of it loads


def fresh(name):
    for m in [m for m in sys.modules if m == "minigrad" or m.startswith("minigrad.")]:
        del sys.modules[m]
    stub = types.ModuleType("minigrad")
    stub.__path__ = [root + "/minigrad"]
    sys.modules["minigrad"] = stub           # minigrad/__init__.py does not run
    try:
        importlib.import_module(name)
    except Exception:
        failures[name] = traceback.format_exc(limit=-4)
    return {m for m in sys.modules if m.startswith("minigrad.")}


for name in names:
    parent = name.rpartition(".")[0]
    if parent != "minigrad":
        if parent not in loaded_by:
            loaded_by[parent] = fresh(parent)
        if name in loaded_by[parent]:
            # a fresh import of name runs its package's __init__ first, which imports name:
            # the same sequence as the package's own fresh import, already checked
            continue
    loaded_by.setdefault(name, fresh(name))     # (a package: its children look it up)
print(json.dumps(failures))
"""


def test_each_module_imports_in_isolation():
    names = [n for n in _modules() if n != "minigrad"]
    procs = [subprocess.Popen([sys.executable, "-c", _ISOLATED, str(ROOT),
                               json.dumps(names[k::2])], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT) for k in range(2)]
    failures = {}
    for proc in procs:         # two interpreters at once: each module still imports alone
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        failures.update(json.loads(out.strip().splitlines()[-1]))
    assert not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())


def test_import_minigrad_in_a_fresh_interpreter():
    code = ("import minigrad, sys; import minigrad.dispatch as D; "
            "assert D is sys.modules['minigrad.dispatch']; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('optim', 'amp_emu')))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"       # the layering rule: the core imports neither


def test_dispatch_is_the_module_and_the_function_is_reachable():
    import minigrad.dispatch as D
    assert D is sys.modules["minigrad.dispatch"]
    assert minigrad.dispatch is D
    x = minigrad.tensor([1.0, 2.0])
    assert D.dispatch("add", x, x).tolist() == [2.0, 4.0]


def test_no_module_split_by_size():
    by_size = [str(p.relative_to(ROOT)) for p in PKG.rglob("*.py")
               if p.stem.endswith(("_extra", "_more"))]
    assert not by_size


def _is_str(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _dtype_name_tables(path):
    """Dict literals in ``path`` mapping three or more dtype names to strings (or tuples of
    strings)."""
    names = set(minigrad.dtypes.NAMES)
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            strs = [v for v in node.values if _is_str(v)
                    or isinstance(v, ast.Tuple) and all(_is_str(e) for e in v.elts)]
            if len(names.intersection(keys)) >= 3 and len(strs) == len(node.values):
                found.append(node.lineno)
    return found


def test_one_table_of_dtype_names():
    assert _dtype_name_tables(PKG / "dtypes.py")          # the check sees the table itself
    others = {}
    for top in ("minigrad", "optim", "amp_emu"):
        for p in sorted((ROOT / top).rglob("*.py")):
            if p != PKG / "dtypes.py" and _dtype_name_tables(p):
                others[str(p.relative_to(ROOT))] = _dtype_name_tables(p)
    assert not others, f"dtype name tables outside minigrad/dtypes.py (use DType.scalar_name...): " \
                       f"{others}"


def test_dtype_names_match_torch_messages():
    import torch
    from minigrad.testing import to_torch
    for d in minigrad.dtypes.all_dtypes:
        td = getattr(torch, d.name)
        assert d.legacy_name == torch.tensor([], dtype=td).type().split(".")[-1]
    for lo in (minigrad.float16, minigrad.bfloat16, minigrad.float64):
        a, b = minigrad.zeros((1, 1)), minigrad.zeros((1, 1), dtype=lo)
        msgs = []
        for f, x, y in ((minigrad.mm, a, b), (torch.mm, to_torch(a), to_torch(b)),
                        (minigrad.mv, b, a[0]), (torch.mv, to_torch(b), to_torch(a)[0])):
            try:
                f(x, y)
            except RuntimeError as exc:
                msgs.append(str(exc))
        assert msgs[0] == msgs[1] and msgs[2] == msgs[3], msgs
