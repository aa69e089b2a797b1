"""minigrad.utils.benchmark against torch.utils.benchmark: Measurement statistics, reprs and
Compare tables on the same raw times (exact: no clock involved); Timer semantics on trivial
statements (block sizes, run counts, namespaces, errors; no timed assertions)."""
import dataclasses
import re

import pytest
import torch.utils.benchmark as tb

import minigrad
from minigrad import numerics
from minigrad.utils import benchmark as mb

_TIMES = [
    [1.0e-4, 1.1e-4, 0.9e-4, 1.05e-4, 1.02e-4, 0.98e-4, 1.01e-4, 1.0e-4],   # quiet
    [2.0e-6, 2.1e-6, 1.9e-6, 2.05e-6, 2.5e-6, 1.7e-6],                      # > 10% IQR
    [3.0e-3, 9.0e-3, 1.0e-3, 4.0e-3, 6.5e-3],                                 # > 25% IQR
    [5.0e-9, 5.2e-9, 4.9e-9],                                                 # < 4 points
    [7.5e-2],                                                                 # one point
]


def _pair(times, number=10, **spec):
    kw = dict(stmt="x + 1", setup="x = torch.ones(3)", label="add", sub_label=None,
              description=None, env=None, num_threads=1)
    kw.update(spec)
    return (mb.Measurement(number, list(times), mb.TaskSpec(**kw)),
            tb.Measurement(number, list(times), tb.utils.common.TaskSpec(**kw)))


def _body(m):
    return repr(m).split("\n", 1)[1]    # drop "<... object at 0x...>"


@pytest.mark.parametrize("times", _TIMES)
def test_measurement_statistics_and_repr_match_torch(times):
    ours, theirs = _pair(times, description="n=3")
    assert ours.times == pytest.approx(theirs.times, rel=1e-15)
    for attr in ("median", "mean", "iqr"):
        assert getattr(ours, attr) == pytest.approx(getattr(theirs, attr), rel=1e-12), attr
    assert ours.has_warnings == theirs.has_warnings
    assert ours.meets_confidence(0.2) == theirs.meets_confidence(0.2)
    if len(times) > 1:
        assert ours.significant_figures == theirs.significant_figures
    assert _body(ours) == _body(theirs)
    assert (ours.title, ours.env, ours.as_row_name, ours.stmt, ours.num_threads) == \
        (theirs.title, theirs.env, theirs.as_row_name, theirs.stmt, theirs.num_threads)


def test_merge_select_unit_trim_sigfig_match_torch():
    a, ta = _pair(_TIMES[0], number=10)
    b, tb_ = _pair(_TIMES[1], number=100)
    merged, tmerged = mb.Measurement.merge([a, b]), tb.Measurement.merge([ta, tb_])
    assert len(merged) == len(tmerged) == 1
    assert merged[0].times == pytest.approx(tmerged[0].times) and merged[0].number_per_run == 1
    for t in (3e-10, 4.2e-8, 7e-6, 0.5, 12.0):
        assert mb.select_unit(t) == tb.utils.common.select_unit(t)
    ours, theirs = _pair(_TIMES[0], stmt="a = 1\nb = a + 1", setup="import math\nx = 2",
                         sub_label="multi")
    assert _body(ours) == _body(theirs)
    for x, n in ((3.14159, 2), (123456.0, 3), (0.000123456, 4)):
        assert mb.trim_sigfig(x, n) == pytest.approx(tb.utils.common.trim_sigfig(x, n))


def _grid(lib_pair_index):
    out = []
    specs = [("fp32", "n=1", 1), ("bf16", "n=1", 1), ("fp32", "n=8", 1), ("bf16", "n=8", 1),
             ("fp32", "n=1", 4), ("bf16", "n=8", 4)]
    for k, (sub, desc, threads) in enumerate(specs):
        times = [t * (k + 1) for t in _TIMES[k % 3]]
        out.append(_pair(times, sub_label=sub, description=desc,
                         num_threads=threads)[lib_pair_index])
    out.append(_pair(_TIMES[0], label="mul", description="n=1")[lib_pair_index])
    return out


@pytest.mark.parametrize("options", [(), ("trim_significant_figures",), ("colorize",),
                                     ("trim_significant_figures", "highlight_warnings",
                                      "colorize_rowwise")])
def test_compare_tables_match_torch(options):
    ours, theirs = mb.Compare(_grid(0)), tb.Compare(_grid(1))
    for c in (ours, theirs):
        for opt in options:
            if opt == "colorize_rowwise":
                c.colorize(rowwise=True)
            else:
                getattr(c, opt)()
    assert str(ours) == str(theirs)
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        mb.Compare([1.0])


def test_timer_timeit_and_autorange_semantics():
    calls = []
    t = mb.Timer("f()", setup="calls.append('setup')", globals={"f": lambda: calls.append(1),
                                                               "calls": calls})
    m = t.timeit(number=50)
    # warm-up of max(50 // 100, 2) runs, then 50 timed runs, as PyTorch's Timer.timeit
    assert calls.count(1) == 52 and m.number_per_run == 50 and len(m.raw_times) == 1
    m = mb.Timer("pass").blocked_autorange(min_run_time=0.01)
    assert re.fullmatch(r"10*", str(m.number_per_run)) and sum(m.raw_times) >= 0.01
    m = mb.Timer("x.sum()", setup="x = torch.ones(4)").adaptive_autorange(max_run_time=0.2)
    assert m.stmt == "x.sum()" and m.setup == "x = torch.ones(4)" and len(m.raw_times) >= 1
    code = "\n    y = 1\n    "
    assert mb.Timer(code).timeit(2).stmt == tb.Timer(code).timeit(2).stmt == "y = 1"


def test_timer_num_threads_and_torch_binding():
    seen = []
    mb.Timer("seen.append((numerics.get_num_threads(), torch is minigrad))",
             globals={"seen": seen, "numerics": numerics, "minigrad": minigrad},
             num_threads=3).timeit(1)
    assert set(seen) == {(3, True)}
    before = numerics.get_num_threads()
    mb.Timer("pass", num_threads=2).timeit(3)
    assert numerics.get_num_threads() == before


def test_timer_errors_as_torch():
    with pytest.raises(ValueError, match="Currently only a `str` stmt is supported"):
        mb.Timer(lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        mb.Timer("pass", global_setup="#include <x>")
    for name in ("repeat", "autorange"):
        with pytest.raises(NotImplementedError, match="See `Timer.blocked_autorange.`"):
            getattr(mb.Timer(), name)()
    assert dataclasses.fields(mb.TaskSpec)[0].name == "stmt"
    assert minigrad.utils.benchmark.Timer is mb.Timer
