"""fp16/bf16 unary ops bit for bit against PyTorch: a sample of every 11th bit pattern plus the
known hard inputs and the special values, for every case of ``tests/unary16_catalogue.py`` (the
exhaustive run over all 65,536 inputs is ``bench/check_16bit_unary_exhaustive.py``); and a check
that the catalogue covers every registered unary op."""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
from tests.unary16_catalogue import (FORMATS, HARD_INPUTS, NOT_ELEMENTWISE_MATH,  # noqa: E402
                                     UNARY, all_inputs, mismatches, run_both)

D = importlib.import_module("minigrad.dispatch")     # the module (not the function it exports)
NX = importlib.import_module("minigrad.numerics")

# Where PyTorch hands 16-bit gelu / gelu_backward to oneDNN (``numerics.onednn_takes``: a CPU
# with the AVX-512 / AVX512-FP16 flags), oneDNN's JIT evaluates them in fp32 with exp and erf
# polynomials of its own, which minigrad models but does not reproduce bit for bit. Measured
# over every finite input on such a CPU: bf16 99.96% / fp16 99.4% of gelu and 99.7% / 99.8%
# of gelu_backward bit-exact, the rest within 1 ulp of the 16-bit type except where 1 + erf
# cancels (x < -3.4), with absolute error below 2**-20. That machine case only is held to
# this bound; everywhere else gelu is bit-exact.
_ONEDNN_GELU_ABS = 2.0 ** -20


def _onednn_bound(case, fmt):
    return case in ("gelu", "gelu_backward") and NX.onednn_takes(getattr(mg, fmt))


def _beyond_onednn_bound(got, ref, bad):
    """The mismatches ``bad`` that are neither within 1 ulp of ``ref`` nor within
    ``_ONEDNN_GELU_ABS`` of it (a NaN/inf against a finite value always counts)."""
    g, r = got[bad].astype(np.float64), ref[bad].astype(np.float64)
    ulp = np.abs(np.spacing(np.abs(ref[bad]))).astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.abs(g - r)
        ok = np.isfinite(g) & np.isfinite(r) & ((err <= ulp) | (err <= _ONEDNN_GELU_ABS))
    return bad[~ok]

_SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.0, 0.5, 2.0]


def _sample(fmt):
    x = all_inputs(fmt)[3::11]
    extra = np.array(HARD_INPUTS[fmt] + _SPECIALS, dtype=np.float64).astype(FORMATS[fmt])
    tiny = np.array([1, 2, 0x3FF, 0x400, 0x7BFF, 0x8001], np.uint16).view(FORMATS[fmt])
    return np.concatenate([x, extra, tiny])


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("case", list(UNARY))
def test_unary_16bit_bits_match_torch(case, fmt):
    x = _sample(fmt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref, got = run_both(case, fmt, x)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    bad = mismatches(got, ref)
    if _onednn_bound(case, fmt):
        bad = _beyond_onednn_bound(got, ref, bad)
    assert bad.size == 0, (f"{bad.size} mismatches, x={x[bad[:4]].astype(float).tolist()} "
                           f"torch={ref[bad[:4]].astype(float).tolist()} "
                           f"minigrad={got[bad[:4]].astype(float).tolist()}")


@pytest.mark.parametrize("fmt,value", [(f, v) for f, vs in HARD_INPUTS.items() for v in vs])
def test_known_double_rounding_inputs(fmt, value):
    """The inputs where NumPy's fp32 exp/log/sigmoid land next to a 16-bit midpoint."""
    x = np.array([value]).astype(FORMATS[fmt])
    for case in ("exp", "log", "sigmoid"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref, got = run_both(case, fmt, x)
        assert mismatches(got, ref).size == 0, (case, value, ref, got)


def test_catalogue_covers_every_registered_unary_op():
    """An op that maps one fp16 tensor to a tensor of its shape must be in the catalogue (or be
    a view/copy named in NOT_ELEMENTWISE_MATH)."""
    covered = {op for op, _ in UNARY.values()} | NOT_ELEMENTWISE_MATH
    x = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float16)
    missing = []
    for name in D.registered_ops():
        if name in covered or "." in name or name.endswith("_backward") or \
                name.endswith("_backward_data"):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = D.dispatch(name, x)
        except Exception:                            # noqa: BLE001 - not a unary op
            continue
        if isinstance(out, mg.Tensor) and tuple(out.shape) == (3,):
            missing.append(name)
    assert not missing, f"unary ops missing from tests/unary16_catalogue.py: {missing}"
