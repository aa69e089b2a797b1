"""Input generation for the op catalogue (``tests/op_specs.py``).

An op spec describes its inputs once, as a function ``sample(d) -> Sample`` written against a
*drawer* ``d``. Three drawers implement the same small API, so one description serves every test:

- ``HypDrawer``: hypothesis strategies reaching the hard corners (size-0/size-1 dims,
  broadcastable shape pairs, values near fp16's max, subnormals of the format, +-0, inf/nan,
  Python scalars); used by the differential tests against torch.
- ``RngDrawer``: a seeded NumPy generator giving smooth, continuous float64 values away from
  kinks and ties, non-empty shapes; used by gradcheck.
- ``DTypeDrawer``: small positive integers (1..3) representable in every dtype, bool included;
  used by the output-dtype tests over every mix of input dtypes and scalars.

Drawer API: ``shape``, ``bshapes``, ``floats`` (-> ``FloatIn``), ``ints`` (-> ``IntIn``),
``integer``, ``choice``, ``scalar``. ``FloatIn`` marks a tensor input whose dtype is the one under
test (and that requires grad); ``IntIn`` an int64 index/target tensor.
"""
from __future__ import annotations

import dataclasses
import math

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

__all__ = ["FloatIn", "IntIn", "OperandScalar", "Sample", "HypDrawer", "RngDrawer", "DTypeDrawer", "specials",
           "grad_arrays", "storage", "FLOAT_DTYPES", "ALL_DTYPES"]

FLOAT_DTYPES = ("float64", "float32", "float16", "bfloat16")
ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64")
_NP = {"float64": np.float64, "float32": np.float32, "float16": np.float16,
       "bfloat16": ml_dtypes.bfloat16, "int64": np.int64, "int32": np.int32, "int16": np.int16,
       "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}


@dataclasses.dataclass
class FloatIn:
    """A tensor input in the dtype under test (values as float64 before conversion)."""
    values: np.ndarray


@dataclasses.dataclass
class IntIn:
    """An integer (index or class-target) tensor input, int64 unless a test varies it."""
    values: np.ndarray


class OperandScalar(float):
    """A Python-scalar *operand* placeholder from ``DTypeDrawer.scalar`` (the dtype tests
    replace it by each scalar kind; dims and other int arguments are left alone)."""


@dataclasses.dataclass
class Sample:
    """Positional ``args`` (FloatIn / IntIn / Python values) and ``kwargs`` for a spec's ``fn``."""
    args: list
    kwargs: dict = dataclasses.field(default_factory=dict)

    def describe(self) -> str:
        def one(a):
            if isinstance(a, (FloatIn, IntIn)):
                v = a.values
                kind = "T" if isinstance(a, FloatIn) else "I"
                body = np.array2string(v, precision=8, threshold=40, separator=",")
                return f"{kind}{list(v.shape)}={body}"
            return repr(a)
        args = ", ".join(one(a) for a in self.args)
        kw = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"args=({args}) kwargs={{{kw}}}"


def storage(values, dtype: str) -> np.ndarray:
    """``values`` (float64) in ``dtype``'s storage format: one round-to-nearest-even for
    floats, truncation for ints, ``!= 0`` for bool."""
    v = np.asarray(values)
    if dtype == "bool":
        return v != 0
    with np.errstate(over="ignore", invalid="ignore"):
        return v.astype(_NP[dtype])


def _finfo(dtype):
    return ml_dtypes.finfo(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.finfo(_NP[dtype])


def specials(dtype: str, extreme: bool) -> list:
    """Corner values (float64) for a format: +-0, subnormals, the smallest normal, values near
    fp16's max (65504 is its max, 65520 rounds to inf in fp16); with ``extreme`` also the
    format's own max and +-inf/nan."""
    fi = _finfo(dtype)
    sub = float(fi.smallest_subnormal)
    vals = [0.0, -0.0, sub, -sub, 3 * sub, float(fi.smallest_normal), -float(fi.smallest_normal),
            1.0, -1.0, 0.5, 1.0 + float(fi.eps), 60000.0, 65504.0, -65504.0, 65520.0, 1e-5]
    if extreme:
        vals += [float(fi.max), -float(fi.max), math.inf, -math.inf, math.nan]
    return vals


_DOMAINS = ("real", "positive", "nonneg", "nonzero", "unit")


def _apply_domain(x, domain):
    if domain == "real":
        return x
    if domain == "positive":
        return x if x > 0 else (-x if x < 0 else 0.75)
    if domain == "nonneg":
        return abs(x) if not math.isnan(x) else x
    if domain == "nonzero":
        return x if x != 0 else 1.5
    if domain == "unit":
        return min(abs(x), 1.0) if not math.isnan(x) else 0.5
    raise ValueError(f"unknown domain {domain!r}")


def _elements(dtype, domain, values):
    """Float64 element strategy for a value profile: "extreme", "finite" or "smooth"."""
    base = st.floats(-6, 6, allow_nan=False, width=32)
    if values == "smooth":
        strat = base
    else:
        strat = st.one_of(base, base, st.sampled_from(specials(dtype, values == "extreme")))
    return strat.map(lambda x: _apply_domain(float(x), domain))


def grad_arrays(shape, dtype: str):
    """Upstream-gradient arrays: mostly moderate values, with zeros, +-1, tiny and large ones."""
    el = st.one_of(st.floats(-4, 4, allow_nan=False, width=32),
                   st.sampled_from([0.0, 1.0, -1.0, 0.5, 1e-4, 3000.0,
                                    float(_finfo(dtype).smallest_normal)]))
    return hnp.arrays(np.float64, shape, elements=el)


class HypDrawer:
    """Draws through hypothesis (``data.draw``) for the dtype under test."""

    smooth = False     # specs may avoid nan-producing domains when True (gradcheck)

    def __init__(self, draw, dtype):
        self.draw, self.dtype = draw, dtype

    def shape(self, min_dims=0, max_dims=3, min_side=0, max_side=4):
        return self.draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims,
                                          min_side=min_side, max_side=max_side))

    def bshapes(self, n, min_dims=0, max_dims=3, min_side=0, max_side=4):
        r = self.draw(hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=min_dims,
                                                        max_dims=max_dims, min_side=min_side,
                                                        max_side=max_side))
        return list(r.input_shapes)

    def floats(self, shape, domain="real", values="extreme"):
        return FloatIn(self.draw(hnp.arrays(np.float64, tuple(shape),
                                            elements=_elements(self.dtype, domain, values))))

    def ints(self, shape, lo, hi):
        """int64 values in [lo, hi) (hi > lo)."""
        return IntIn(self.draw(hnp.arrays(np.int64, tuple(shape),
                                          elements=st.integers(lo, hi - 1))))

    def integer(self, lo, hi):
        """A Python int in [lo, hi]."""
        return self.draw(st.integers(lo, hi))

    def choice(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def scalar(self, domain="real", kinds=("float", "int")):
        """A Python scalar operand, drawn among floats and ints (and bools if asked)."""
        fl = [2.5, 0.5, -3.0, 1e-3, 0.0, 1.0, 65504.0, 70000.0, 1e-8, math.inf, math.nan]
        it = [2, -3, 0, 1, 7, 70000]
        pool = []
        if "float" in kinds:
            pool += fl
        if "int" in kinds:
            pool += it
        if "bool" in kinds:
            pool += [True, False]
        pool = [p for p in pool if _ok(p, domain)]
        return self.choice(pool)


def _ok(p, domain):
    if isinstance(p, float) and math.isnan(p):
        return domain == "real"
    return {"real": True, "positive": p > 0, "nonneg": p >= 0, "nonzero": p != 0,
            "unit": 0 <= p <= 1}[domain]


class RngDrawer:
    """Seeded, smooth values for gradcheck: no size-0 dims, no specials, no kinks or ties."""

    smooth = True

    def __init__(self, seed, dtype="float64"):
        self.rng = np.random.default_rng(seed)
        self.dtype = dtype

    def shape(self, min_dims=0, max_dims=3, min_side=0, max_side=4):
        nd = int(self.rng.integers(min_dims, max_dims + 1))
        return tuple(int(self.rng.integers(max(min_side, 1), min(max_side, 3) + 1))
                     for _ in range(nd))

    def bshapes(self, n, min_dims=0, max_dims=3, min_side=0, max_side=4):
        full = self.shape(min_dims, max_dims, min_side, max_side)
        out = []
        for _ in range(n):
            k = int(self.rng.integers(0, len(full) + 1)) if min_dims == 0 else len(full)
            s = list(full[len(full) - k:])
            for i in range(len(s)):
                if self.rng.random() < 0.3:
                    s[i] = 1
            out.append(tuple(s))
        return out

    def floats(self, shape, domain="real", values="extreme"):
        shape = tuple(shape)
        if domain in ("positive", "nonneg"):
            v = self.rng.uniform(0.5, 2.0, shape)
        elif domain == "unit":
            v = self.rng.uniform(0.1, 0.9, shape)
        else:
            v = self.rng.normal(0, 1, shape)
            v = np.where(np.abs(v) < 0.05, v + 0.3, v)
        return FloatIn(np.asarray(v, np.float64))

    def ints(self, shape, lo, hi):
        return IntIn(self.rng.integers(lo, hi, tuple(shape)).astype(np.int64))

    def integer(self, lo, hi):
        return int(self.rng.integers(lo, hi + 1))

    def choice(self, seq):
        seq = list(seq)
        return seq[int(self.rng.integers(0, len(seq)))]

    def scalar(self, domain="real", kinds=("float", "int")):
        pool = [p for p in ([2.5, 0.5, -1.5] if "float" in kinds else []) +
                ([2, 3, -2] if "int" in kinds else []) if _ok(p, domain)]
        return self.choice(pool or [1.5])


class DTypeDrawer(RngDrawer):
    """Values 1..3 (exact in every dtype) for the output-dtype tests; scalars get replaced by
    each scalar kind by the test itself."""

    def floats(self, shape, domain="real", values="extreme"):
        return FloatIn(self.rng.integers(1, 4, tuple(shape)).astype(np.float64))

    def scalar(self, domain="real", kinds=("float", "int")):
        return OperandScalar(2.0)
