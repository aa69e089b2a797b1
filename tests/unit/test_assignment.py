"""The teaching kit: every op it knows can be blanked (the copy still compiles and says TODO),
the generated grading tests fail on the blank copy and pass on the reference solution."""
from __future__ import annotations

import os
import py_compile
import subprocess
import sys

import pytest

from minigrad.assignment import OPS, new_assignment


def test_every_known_op_is_blanked_and_the_copy_compiles(tmp_path):
    new_assignment(str(tmp_path), list(OPS))
    todo = 0
    for root, _, files in os.walk(tmp_path / "minigrad"):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                py_compile.compile(path, doraise=True)
                with open(path) as fh:
                    todo += fh.read().count('raise NotImplementedError("TODO (')
    assert todo == len(OPS)
    with pytest.raises(FileExistsError):
        new_assignment(str(tmp_path), ["mul"])
    with pytest.raises(ValueError, match="unknown op"):
        new_assignment(str(tmp_path / "x"), ["nope"])


def _grade(directory, *extra):
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:xdist", str(directory), *extra], capture_output=True,
                         text=True, timeout=300, cwd=str(directory))
    return res.returncode, res.stdout


def test_grading_fails_the_blank_copy_and_passes_the_solution(tmp_path):
    res = subprocess.run([sys.executable, "-m", "minigrad.assignment", "new", str(tmp_path),
                          "--ops", "mul,tanh,softmax", "--reveal"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    # a student's mul that assumes both inputs require grad (it breaks on w * data): graded FAIL
    path = tmp_path / "minigrad" / "ops" / "elementwise.py"
    src = path.read_text()
    todo = src[src.index('raise NotImplementedError("TODO (mul backward)'):]
    todo = todo[:todo.index("\n")]
    path.write_text(src.replace(todo, "a, b = ctx.saved_tensors; return grad * b, grad * a"))
    rc, out = _grade(tmp_path)
    assert rc != 0 and "score: 0/3" in out, out[-2000:]
    assert "TODO (softmax backward)" in out
    assert any(line.split() == ["mul", "FAIL"] for line in out.splitlines())
    rc, out = _grade(tmp_path, "--solution")
    assert rc == 0 and "score: 3/3" in out, out[-2000:]
    for op in ("mul", "tanh", "softmax"):
        assert any(line.split() == [op, "PASS"] for line in out.splitlines())


def test_a_mul_that_forgets_the_python_number_fails(tmp_path):
    # right for two tensors, wrong for x * 2.5 (the gradient is not scaled): graded FAIL (the
    # reference solution passes these programs: the test above)
    new_assignment(str(tmp_path), ["mul"])
    path = tmp_path / "minigrad" / "ops" / "elementwise.py"
    src = path.read_text()
    todo = src[src.index('raise NotImplementedError("TODO (mul backward)'):]
    todo = todo[:todo.index("\n")]
    body = ("if ctx.scalar is not None: return grad, None\n"
            "        a, b = ctx.saved_tensors\n"
            "        return (None if b is None else grad * b), (None if a is None else grad * a)")
    path.write_text(src.replace(todo, body))
    rc, out = _grade(tmp_path)
    assert rc != 0 and "score: 0/1" in out, out[-2000:]
    assert "FAILED test_assignment.py::test_op_properties[mul]" in out   # test_op passed
