"""``Compare``: many Measurements as tables, one per label (``torch.utils.benchmark.Compare``).

Mirrors ``torch.utils.benchmark.utils.compare``. Replicates (same TaskSpec) are merged first.
Each label gets a table: rows are ``(num_threads, env, sub_label or stmt)`` (grouped under a
"N threads:" line), columns are descriptions, cells are medians in one unit chosen from the
smallest median. ``trim_significant_figures()`` rounds each cell to what its spread supports;
``colorize()`` marks the best cell per column (or row) green and slow ones red;
``highlight_warnings()`` appends ``(! XX%)`` to noisy cells.
"""
from __future__ import annotations

import collections
import enum
import itertools
import math
import operator

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    """How ``Compare`` colours cells."""
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(x):
    return int(math.ceil(math.log10(x)))


class _Column:
    """One column's number format: enough integer digits for its largest cell, and (when
    trimming) the decimals its least precise cell supports."""

    def __init__(self, grouped_results, time_scale, time_unit, trim_significant_figures,
                 highlight_warnings):
        self._grouped_results = grouped_results
        flat = list(itertools.chain.from_iterable(grouped_results))
        self._time_scale = time_scale
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings and any(r.has_warnings for r in flat if r)
        leading = [_leading_digits(r.median / time_scale) if r else None for r in flat]
        unit_digits = max(d for d in leading if d is not None)
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(leading, flat)
                       if m is not None and d is not None) if self._trim else 1
        length = unit_digits + decimals + (1 if decimals else 0)
        self._template = f"{{:>{length}.{decimals}f}}{{:>{7 if self._highlight else 0}}}"

    def get_results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, estimated_sigfigs, spread):
        if value is None:
            return " " * len(self.num_to_str(1, estimated_sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, estimated_sigfigs)
        return self._template.format(
            value, f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else "")


class _Row:
    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize,
                 num_threads=None):
        self._results = results
        self._row_group = row_group
        self._render_env = render_env
        self._env_str_len = env_str_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._columns = ()
        self._num_threads = num_threads

    def register_columns(self, columns):
        self._columns = columns

    def as_column_strings(self):
        concrete = [r for r in self._results if r is not None]
        env = f"({concrete[0].env})" if self._render_env else ""
        out = ["  " + env.ljust(self._env_str_len + 4) + concrete[0].as_row_name]
        for m, col in zip(self._results, self._columns):
            if m is None:
                out.append(col.num_to_str(None, 1, None))
            else:
                out.append(col.num_to_str(m.median / self._time_scale, m.significant_figures,
                                          m.iqr / m.median if m.has_warnings else None))
        return out

    @staticmethod
    def color_segment(segment, value, best_value):
        if value <= best_value * 1.01 or value <= best_value + 100e-9:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best_value * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best_value * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best_value * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def row_separator(self, overall_width):
        if self._num_threads is None:
            return []
        return [f"{self._num_threads} threads: ".ljust(overall_width, "-")]

    def finalize_column_strings(self, column_strings, col_widths):
        best = [-1 for _ in column_strings]
        if self._colorize == Colorize.ROWWISE:
            row_min = min(r.median for r in self._results if r is not None)
            best = [row_min for _ in column_strings]
        elif self._colorize == Colorize.COLUMNWISE:
            best = [min((r.median for r in c.get_results_for(self._row_group) if r is not None),
                        default=None) for c in self._columns]
        out = [column_strings[0].ljust(col_widths[0])]
        for s, w, result, b in zip(column_strings[1:], col_widths[1:], self._results, best):
            s = s.center(w)
            if self._colorize != Colorize.NONE and result is not None and b is not None:
                s = self.color_segment(s, result.median, b)
            out.append(s)
        return out


class Table:
    """One label's table (all ``results`` share the label).

    Raises:
        AssertionError: the results have different labels.
    """

    def __init__(self, results, colorize, trim_significant_figures, highlight_warnings):
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self._colorize = colorize
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings
        self.label = results[0].label
        self.time_unit, self.time_scale = common.select_unit(min(r.median for r in results))
        self.row_keys = common.ordered_unique([self.row_fn(r) for r in results])
        self.row_keys.sort(key=operator.itemgetter(slice(2)))   # by threads, env; stmt order kept
        self.column_keys = common.ordered_unique([self.col_fn(r) for r in results])
        self.rows, self.columns = self.populate_rows_and_columns()

    @staticmethod
    def row_fn(m):
        return m.num_threads, m.env, m.as_row_name

    @staticmethod
    def col_fn(m):
        return m.description

    def populate_rows_and_columns(self):
        ordered = [[None for _ in self.column_keys] for _ in self.row_keys]
        row_pos = {k: i for i, k in enumerate(self.row_keys)}
        col_pos = {k: i for i, k in enumerate(self.column_keys)}
        for r in self.results:
            ordered[row_pos[self.row_fn(r)]][col_pos[self.col_fn(r)]] = r
        envs = {r.env for r in self.results}
        render_env = len(envs) > 1
        env_len = max(len(e) for e in envs) if render_env else 0
        rows, groups = [], []
        prior_threads, prior_env, group = -1, "", -1
        for (threads, env, _), row in zip(self.row_keys, ordered):
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env = threads, ""
                group += 1
                groups.append([])
            rows.append(_Row(row, group, render_env and env != prior_env, env_len,
                             self.time_scale, self._colorize,
                             threads if new_group else None))
            groups[-1].append(row)
            prior_env = env
        columns = tuple(_Column([tuple(row[i] for row in g) for g in groups], self.time_scale,
                                self.time_unit, self._trim, self._highlight)
                        for i in range(len(self.column_keys)))
        for r in rows:
            r.register_columns(columns)
        return tuple(rows), columns

    def render(self) -> str:
        string_rows = [[""] + self.column_keys]
        string_rows.extend(r.as_column_strings() for r in self.rows)
        n = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend("" for _ in range(n - len(r)))
        widths = [max(len(c) for c in col) for col in zip(*string_rows)]
        lines = ["  |  ".join(c.center(w) for c, w in zip(string_rows[0], widths))]
        overall = len(lines[0])
        for srow, row in zip(string_rows[1:], self.rows):
            lines.extend(row.row_separator(overall))
            lines.append("  |  ".join(row.finalize_column_strings(srow, widths)))
        warn = self._highlight and any(r.has_warnings for r in self.results)
        nl = "\n"
        return (f"[{(' ' + (self.label or '') + ' ').center(overall - 2, '-')}]\n"
                f"{nl.join(lines)}\n\n"
                f"Times are in {common.unit_to_english(self.time_unit)}s ({self.time_unit}).\n"
                + ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
                   if warn else ""))


class Compare:
    """Tables of Measurements (``torch.utils.benchmark.Compare``); ``print()`` or ``str()``.

    Args:
        results: a list of Measurements.

    Raises:
        ValueError: an element is not a Measurement ("Expected an instance of `Measurement`,
            got <class ...> instead.").
    """

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        """Add more Measurements."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        """Round cells to their estimated significant figures."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Colour cells against the best of their column (or row, with ``rowwise``)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        """Mark noisy cells with ``(! XX%)``."""
        self._highlight_warnings = True

    def print(self):
        """Print the tables."""
        print(str(self))

    def _render(self):
        groups = collections.defaultdict(list)
        for r in common.Measurement.merge(self._results):
            groups[r.label].append(r)
        return [Table(g, self._colorize, self._trim_significant_figures,
                      self._highlight_warnings).render() for g in groups.values()]
