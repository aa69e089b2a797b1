"""Every op of the catalogue against PyTorch CPU: values, dtypes and gradients.

- ``test_forward_backward[op-dtype]``: hypothesis draws inputs reaching the corners (size-0 and
  size-1 dims, broadcastable shapes, fp16's max and overflow, subnormals, +-0, inf/nan, Python
  scalars); forward values must meet the spec's ULP bound in the output's own format, output
  dtypes/shapes/requires_grad must equal PyTorch's, and gradients for the same upstream gradient
  must meet the backward bound. 16-bit dtypes get the hypothesis profile's full number of
  examples, fp32 60% and the others 40% (``EXAMPLE_SHARE``).
- ``test_output_dtypes[op]``: the output dtype (or the exception type) for every mix of input
  dtypes (all ten) and Python-scalar kinds (bool, int, float), with 0-dim and dimensioned tensors.
"""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.harness import check_case, run_forward
from tests.op_specs import SPECS
from tests.strategies import (ALL_DTYPES, DTypeDrawer, FloatIn, HypDrawer, IntIn, OperandScalar,
                              grad_arrays)

CASES = [pytest.param(s, d, id=f"{s.name}-{d}") for s in SPECS for d in s.dtypes]

# The share of the profile's examples each dtype gets: 16-bit formats are where rounding and
# overflow bugs live and get all of them; fp32 and fp64 (also covered by gradcheck) and the
# integer dtypes get fewer, which keeps the suite inside its 10 minutes as the catalogue grows.
EXAMPLE_SHARE = {"float16": 1.0, "bfloat16": 1.0, "float32": 0.6}
OTHER_SHARE = 0.4


@pytest.mark.parametrize("spec,dtype", CASES)
def test_forward_backward(spec, dtype):
    n = max(1, round(settings().max_examples * EXAMPLE_SHARE.get(dtype, OTHER_SHARE)))

    @settings(max_examples=n)
    @given(data=st.data())
    def check(data):
        sample = spec.sample(HypDrawer(data.draw, dtype))
        check_case(spec, sample, dtype,
                   lambda shape, od: data.draw(grad_arrays(shape, od), label="upstream grad"))
    check()


# ------------------------------------------------------------------------------ dtype mixes
SCALAR_KINDS = (True, 2, 2.5)
INT_TARGET_DTYPES = ("int64", "int32", "float32")


def _templates(spec, n=8):
    """Distinct input structures (ndim-0 or not, scalar positions) from seeded draws."""
    seen, out = set(), []
    for seed in range(n * 4):
        s = spec.sample(DTypeDrawer(seed))
        key = tuple((type(a).__name__, getattr(getattr(a, "values", None), "ndim", None))
                    for a in s.args) + tuple(sorted((k, repr(v)) for k, v in s.kwargs.items()))
        if key not in seen:
            seen.add(key)
            out.append(s)
        if len(out) >= n:
            break
    return out


@pytest.mark.parametrize("spec", [s for s in SPECS if s.dtype_test], ids=lambda s: s.name)
def test_output_dtypes(spec):
    mismatches, runs = [], 0
    for k, sample in enumerate(_templates(spec)):
        nf = sum(isinstance(a, FloatIn) for a in sample.args)
        if nf >= 3 and k >= 2:
            continue        # ternary ops: 1000 dtype mixes per template, two templates suffice
        ns = sum(isinstance(a, OperandScalar) for a in sample.args)
        has_int = any(isinstance(a, IntIn) for a in sample.args)
        for fds in itertools.product(ALL_DTYPES, repeat=nf):
            for scs in itertools.product(SCALAR_KINDS, repeat=ns):
                # index/target dtypes vary only with floating inputs (one error at a time)
                vary = has_int and all(d.startswith(("float", "bfloat")) for d in fds)
                for idt in (INT_TARGET_DTYPES if vary else ("int64",)):
                    runs += 1
                    why = run_forward(spec, sample, list(fds), list(scs), idt)
                    if why:
                        mismatches.append(f"inputs={list(fds)} scalars={list(scs)}"
                                          f"{' int=' + idt if has_int else ''} "
                                          f"{sample.describe()}: {why}")
    if mismatches:
        head = "\n".join(mismatches[:15])
        pytest.fail(f"{spec.name}: {len(mismatches)}/{runs} dtype combinations differ from "
                    f"PyTorch:\n{head}", pytrace=False)
