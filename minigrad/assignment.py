"""The teaching kit: ``python -m minigrad.assignment new DIR --ops mul,exp,softmax,layer_norm``.

``new`` writes a student copy of minigrad into ``DIR/minigrad`` in which the chosen ops'
backward formulas are removed: each ``backward`` body becomes ``raise NotImplementedError("TODO:
...")`` with a hint of the formula. Beside it go the grading tests (``DIR/test_assignment.py``,
``DIR/conftest.py``): per op, ``gradcheck`` in float64 against finite differences, and the
gradient compared with PyTorch's (or, where PyTorch is not installed, with the reference
solution's gradients, stored at generation time in ``DIR/reference_grads.npz``), also with only
one input requiring grad at a time (as data and constants do in real use), and the op's
properties: gradcheck again on the shapes where the engine's rules bite (broadcasting, size-1
and 0-dim inputs: ``PROPERTY_SHAPES``; a Python number as the other operand of add, mul and
div: ``SCALAR_PROGRAMS``). ``pytest DIR`` grades: one line per op and a score.

``reveal DIR`` writes the reference solution (the original backward bodies) into
``DIR/solution/minigrad``; ``pytest DIR --solution`` grades it (every op passes).

Ops the kit knows (``--ops`` names): ``add``, ``mul``, ``div``, ``exp``, ``log``, ``sin``, ``cos``,
``tanh``, ``sigmoid``, ``relu``, ``sqrt``, ``pow``, ``mm``, ``softmax``, ``log_softmax``,
``layer_norm``. Our own tool (PyTorch has none).
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import shutil
import sys
import textwrap

__all__ = ["main", "OPS", "PROPERTY_SHAPES", "SCALAR_PROGRAMS", "new_assignment", "reveal"]

# --ops name -> (registered op, hint, the program: Python source of a function of (torch, *xs),
#                input shapes)
OPS = {
    "add": ("add", "d(a + alpha*b)/da = 1, d/db = alpha (sum over broadcast dims: the engine "
                   "does that)", "lambda torch, a, b: a + b", [(3, 4), (3, 4)]),
    "mul": ("mul", "d(a*b)/da = grad * b, d(a*b)/db = grad * a", "lambda torch, a, b: a * b",
            [(3, 4), (3, 4)]),
    "div": ("div.Tensor", "d(a/b)/da = grad / b, d(a/b)/db = -grad * a / b**2",
            "lambda torch, a, b: a / b", [(3, 4), (3, 4)]),
    "exp": ("exp", "d exp(x)/dx = exp(x): reuse the saved result", "lambda torch, a: a.exp()",
            [(3, 4)]),
    "log": ("log", "d log(x)/dx = 1/x", "lambda torch, a: a.log()", [(3, 4)]),
    "sin": ("sin", "d sin(x)/dx = cos(x)", "lambda torch, a: a.sin()", [(3, 4)]),
    "cos": ("cos", "d cos(x)/dx = -sin(x)", "lambda torch, a: a.cos()", [(3, 4)]),
    "tanh": ("tanh", "d tanh(x)/dx = 1 - tanh(x)**2 (the saved result y: 1 - y*y)",
             "lambda torch, a: a.tanh()", [(3, 4)]),
    "sigmoid": ("sigmoid", "d sigmoid(x)/dx = y * (1 - y) with y = sigmoid(x)",
                "lambda torch, a: a.sigmoid()", [(3, 4)]),
    "relu": ("relu", "d relu(x)/dx = 1 where x > 0, else 0 (threshold_backward)",
             "lambda torch, a: a.relu()", [(3, 4)]),
    "sqrt": ("sqrt", "d sqrt(x)/dx = 1 / (2 sqrt(x))", "lambda torch, a: a.sqrt()",
             [(3, 4)]),
    "pow": ("pow.Tensor_Scalar", "d x**p/dx = p * x**(p-1)", "lambda torch, a: a ** 3",
            [(3, 4)]),
    "mm": ("mm", "C = A @ B: dA = grad @ B.T, dB = A.T @ grad", "lambda torch, a, b: a @ b",
           [(3, 4), (4, 2)]),
    "softmax": ("_softmax", "y = softmax(x): dx = y * (grad - sum(grad * y, dim, keepdim))",
                "lambda torch, a: torch.softmax(a, -1)", [(3, 5)]),
    "log_softmax": ("_log_softmax", "y = log_softmax(x): dx = grad - exp(y) * sum(grad, dim, "
                                    "keepdim)", "lambda torch, a: torch.log_softmax(a, -1)",
                    [(3, 5)]),
    "layer_norm": ("native_layer_norm", "x_hat = (x - mean) * rstd: dx = rstd * (g - mean(g) - "
                                        "x_hat * mean(g * x_hat)) with g = grad * weight; "
                                        "dweight = sum(grad * x_hat), dbias = sum(grad)",
                   "lambda torch, a, w, b: torch.nn.functional.layer_norm(a, (5,), w, b)",
                   [(3, 5), (5,), (5,)]),
}


def _package_dir():
    return os.path.dirname(os.path.abspath(__file__))


def _backward_span(op_name):
    """(file path relative to the package, first body line, last line (1-based), indent) of
    the registered op's ``backward``."""
    from .dispatch import get_op
    cls = get_op(op_name)
    fn = cls.__dict__.get("backward")
    if fn is None:
        raise ValueError(f"op {op_name!r} has no backward of its own to blank")
    fn = fn.__func__ if isinstance(fn, staticmethod) else fn
    lines, start = inspect.getsourcelines(fn)
    k = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("def backward"))
    while not lines[k].rstrip().endswith(":"):     # a signature over several lines
        k += 1
    body = k + 1
    indent = len(lines[body]) - len(lines[body].lstrip())
    path = os.path.relpath(inspect.getsourcefile(fn), _package_dir())
    return path, start + body, start + len(lines) - 1, indent


def new_assignment(directory: str, ops, force: bool = False) -> None:
    """Write the student copy and the grading tests for ``ops`` into ``directory``.

    Raises:
        ValueError: an unknown op name; FileExistsError: ``directory/minigrad`` exists and
            ``force`` is False.
    """
    import numpy as np
    unknown = [o for o in ops if o not in OPS]
    if unknown:
        raise ValueError(f"unknown op(s) {unknown}; the kit knows: {', '.join(OPS)}")
    dest = os.path.join(directory, "minigrad")
    if os.path.exists(dest):
        if not force:
            raise FileExistsError(f"{dest} exists (use --force to overwrite)")
        shutil.rmtree(dest)
    os.makedirs(directory, exist_ok=True)
    shutil.copytree(_package_dir(), dest, ignore=shutil.ignore_patterns("__pycache__"))
    # blank the backward bodies, bottom-up within each file so that line numbers hold
    spans = {}
    for o in ops:
        path, first, last, indent = _backward_span(OPS[o][0])
        spans.setdefault(path, []).append((first, last, indent, o))
    for path, items in spans.items():
        full = os.path.join(dest, path)
        with open(full) as f:
            lines = f.readlines()
        for first, last, indent, o in sorted(items, reverse=True):
            hint = OPS[o][1].replace('"', "'")
            lines[first - 1:last] = [" " * indent + f'raise NotImplementedError("TODO ({o} '
                                     f'backward): {hint}")\n']
        with open(full, "w") as f:
            f.writelines(lines)
    # the reference gradients (for graders without PyTorch), from the full minigrad
    ref = {}
    for o in ops:
        for i, g in enumerate(_reference_grads(o)):
            ref[f"{o}:{i}"] = g
    np.savez(os.path.join(directory, "reference_grads.npz"), **ref)
    with open(os.path.join(directory, "assignment.json"), "w") as f:
        json.dump({"ops": list(ops)}, f)
    with open(os.path.join(directory, "test_assignment.py"), "w") as f:
        f.write(_TEST_TEMPLATE)
    with open(os.path.join(directory, "conftest.py"), "w") as f:
        f.write(_CONFTEST)


# inputs kept away from a pole or a branch cut (|x| + 0.5): each program is then the op alone,
# so that grading one op never runs another op's (possibly blank) backward
_POSITIVE = {"log": (0,), "sqrt": (0,), "div": (1,)}


# the op's properties: more input shapes per op, where the engine's rules matter (a gradient
# summed over broadcast dims, size-1 and 0-dim tensors, a softmax over a middle-sized batch)
_BINARY = [[(3, 1), (1, 4)], [(4,), (2, 3, 4)], [(), (2, 3)]]
_UNARY = [[()], [(1, 5)], [(2, 1, 3)]]
PROPERTY_SHAPES = {
    **{o: _BINARY for o in ("add", "mul", "div")},
    **{o: _UNARY for o in ("exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt",
                           "pow")},
    "mm": [[(1, 4), (4, 1)], [(5, 1), (1, 3)]],
    "softmax": [[(1, 5)], [(2, 3, 5)]],
    "log_softmax": [[(1, 5)], [(2, 3, 5)]],
    "layer_norm": [[(2, 3, 5), (5,), (5,)], [(1, 5), (5,), (5,)]],
}


# the binary ops with a Python number for an operand (``x * 2.5``, ``x + 2.5``, the ``alpha`` of
# ``add``): PyTorch wraps the number as a 0-dim tensor that needs no gradient, and the backward
# has its own branch for it (mul and div scale the gradient by the number)
SCALAR_PROGRAMS = {
    "add": ["lambda torch, a: a + 2.5", "lambda torch, a: torch.add(a, a, alpha=3.0)"],
    "mul": ["lambda torch, a: a * 2.5", "lambda torch, a: -1.5 * a"],
    "div": ["lambda torch, a: a / 2.5"],
}


def _inputs(o, shapes=None):
    import numpy as np
    rng = np.random.default_rng(sum(map(ord, o)) + (0 if shapes is None else len(shapes)))
    xs = [rng.standard_normal(s) for s in (OPS[o][3] if shapes is None else shapes)]
    for i in _POSITIVE.get(o, ()):
        xs[i] = np.abs(xs[i]) + 0.5
    return xs


def _reference_grads(o):
    import minigrad
    xs = [minigrad.tensor(a, dtype=minigrad.float64, requires_grad=True) for a in _inputs(o)]
    out = eval(OPS[o][2])(minigrad, *xs)
    out.backward(minigrad.tensor(_weights(tuple(out.shape)), dtype=minigrad.float64))
    return [x.grad.numpy().copy() for x in xs]


def _weights(shape):
    import numpy as np
    return np.random.default_rng(7).standard_normal(shape)


def reveal(directory: str) -> None:
    """Write the reference solution (an unblanked copy of minigrad) into
    ``directory/solution/minigrad``."""
    dest = os.path.join(directory, "solution", "minigrad")
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(_package_dir(), dest, ignore=shutil.ignore_patterns("__pycache__"))


_CONFTEST = '''"""Grading: the student's minigrad (or, with --solution, the reference) is the one imported,
and the summary prints one line per op and the score."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GRADES = {}


def pytest_addoption(parser):
    parser.addoption("--solution", action="store_true", help="grade the reference solution")


def pytest_configure(config):
    root = os.path.join(HERE, "solution") if config.getoption("--solution") else HERE
    sys.path.insert(0, root)
    for m in [m for m in sys.modules if m == "minigrad" or m.startswith("minigrad.")]:
        del sys.modules[m]
    import minigrad  # noqa: F401  (cached now: the test module's import gets this copy)
    sys.path.remove(root)


def pytest_runtest_logreport(report):
    if report.when == "call" or report.failed:
        op = report.nodeid.split("[")[-1].rstrip("]")
        GRADES[op] = GRADES.get(op, True) and report.passed


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    terminalreporter.write_line("")
    for op, ok in GRADES.items():
        terminalreporter.write_line(f"{op:<14} {'PASS' if ok else 'FAIL'}")
    terminalreporter.write_line(f"score: {sum(GRADES.values())}/{len(GRADES)}")
'''

_TEST_TEMPLATE = '''"""Grades each op of the assignment: gradcheck in float64 against finite differences, and the
gradient against PyTorch's (or the reference gradients when PyTorch is absent)."""
import json
import os

import numpy as np
import pytest

import minigrad
from minigrad.assignment import OPS, PROPERTY_SHAPES, SCALAR_PROGRAMS, _inputs, _weights

HERE = os.path.dirname(os.path.abspath(__file__))
ASSIGNED = json.load(open(os.path.join(HERE, "assignment.json")))["ops"]
REF = np.load(os.path.join(HERE, "reference_grads.npz"))


def _student_copy_is_imported():
    return os.path.abspath(minigrad.__file__).startswith(HERE + os.sep)


@pytest.mark.parametrize("op", ASSIGNED)
def test_op(op):
    assert _student_copy_is_imported(), minigrad.__file__
    fn = eval(OPS[op][2])
    arrays = _inputs(op)
    xs = [minigrad.tensor(a, dtype=minigrad.float64, requires_grad=True) for a in arrays]
    assert minigrad.autograd.gradcheck(lambda *t: fn(minigrad, *t), tuple(xs))
    out = fn(minigrad, *xs)
    w = _weights(tuple(out.shape))
    out.backward(minigrad.tensor(w, dtype=minigrad.float64))   # grad = w: no other op's backward
    try:
        import torch
        ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
        fn(torch, *ts).backward(torch.tensor(w))
        want = [t.grad.numpy() for t in ts]
    except ImportError:
        want = [REF[f"{op}:{i}"] for i in range(len(xs))]
    for x, g in zip(xs, want):
        np.testing.assert_allclose(x.grad.numpy(), g, rtol=1e-10, atol=1e-12)
    # as in real use, inputs that do not require grad (data, constants): one input at a time
    if len(arrays) > 1:
        for i in range(len(arrays)):
            xs = [minigrad.tensor(a, dtype=minigrad.float64, requires_grad=(j == i))
                  for j, a in enumerate(arrays)]
            fn(minigrad, *xs).backward(minigrad.tensor(w, dtype=minigrad.float64))
            np.testing.assert_allclose(xs[i].grad.numpy(), want[i], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("op", ASSIGNED)
def test_op_properties(op):
    """The same op on the shapes where the rules bite: broadcasting, size-1 dims, 0-dim."""
    fn = eval(OPS[op][2])
    for shapes in PROPERTY_SHAPES[op]:
        xs = [minigrad.tensor(a, dtype=minigrad.float64, requires_grad=True)
              for a in _inputs(op, shapes)]
        assert minigrad.autograd.gradcheck(lambda *t: fn(minigrad, *t), tuple(xs)), shapes
    for src in SCALAR_PROGRAMS.get(op, ()):          # a Python number as the other operand
        x = minigrad.tensor(_inputs(op, [(2, 3)])[0], dtype=minigrad.float64,
                            requires_grad=True)
        assert minigrad.autograd.gradcheck(lambda t: eval(src)(minigrad, t), (x,)), src
'''


def main(argv=None) -> int:
    """The command line: ``new DIR --ops a,b,c [--force]``, ``reveal DIR``."""
    p = argparse.ArgumentParser(prog="python -m minigrad.assignment",
                                description=textwrap.dedent(__doc__).split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("new", help="write a student copy and its grading tests")
    n.add_argument("directory")
    n.add_argument("--ops", required=True, help="comma-separated: " + ",".join(OPS))
    n.add_argument("--force", action="store_true")
    n.add_argument("--reveal", action="store_true", help="also write the reference solution")
    r = sub.add_parser("reveal", help="write the reference solution into DIR/solution")
    r.add_argument("directory")
    a = p.parse_args(argv)
    if a.cmd == "new":
        ops = [o.strip() for o in a.ops.split(",") if o.strip()]
        if not ops:
            p.error("--ops names no op; the kit knows: " + ",".join(OPS))
        try:
            new_assignment(a.directory, ops, force=a.force)
        except (ValueError, FileExistsError) as e:
            p.error(str(e))
        print(f"wrote {a.directory}: minigrad with {len(ops)} backward(s) to write "
              f"({', '.join(ops)}); grade with: pytest {a.directory}")
        if a.reveal:
            reveal(a.directory)
            print(f"reference solution in {os.path.join(a.directory, 'solution')}; grade it "
                  f"with: pytest {a.directory} --solution")
    else:
        reveal(a.directory)
        print(f"reference solution in {os.path.join(a.directory, 'solution')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
