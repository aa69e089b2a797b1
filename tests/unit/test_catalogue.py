"""The catalogue rule: every registered op is exercised by a spec of ``tests/op_specs.py`` or has a
named exemption in ``op_specs.EXEMPT``.

"Exercised" is measured, not declared: each spec runs on a few seeded samples (forward, then
backward for differentiable specs) under a recording dispatch mode, and the ops it dispatched
are the ones it covers (backward kernels such as ``threshold_backward`` are covered by the forward
op whose gradient uses them). An op another helper registers without adding a spec or an
exemption fails ``test_every_registered_op_has_a_spec_or_an_exemption``.
"""
from __future__ import annotations

import functools
import warnings

import amp_emu.grad_scaler  # noqa: F401  (registers GradScaler's kernels)
import optim  # noqa: F401  (any op the optimizers register)

import minigrad
import minigrad.dispatch as D
from tests.harness import make_inputs, mg_F
from tests.op_specs import EXEMPT, SPECS
from tests.strategies import RngDrawer

SEEDS = range(12)


class _Record(D.DispatchMode):
    def __init__(self):
        self.names = set()

    def __minigrad_dispatch__(self, op_name, args, kwargs, call_next):
        self.names.add(op_name)
        return call_next(args, kwargs)


def _run(spec, seed, rec):
    sample = spec.sample(RngDrawer(seed, spec.dtypes[0]))
    args, _, gi = make_inputs(sample, spec.dtypes[0], spec.differentiable)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with rec:
            try:
                out = spec.fn(minigrad, mg_F(), *args, **sample.kwargs)
            except Exception:  # noqa: BLE001 - a sample the op rejects covers its checks only
                return
            outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
                    if isinstance(o, minigrad.Tensor) and o.requires_grad]
            if outs and gi:
                minigrad.autograd.grad(outs, [args[i] for i in gi],
                                       [minigrad.ones_like(o) for o in outs], allow_unused=True)


@functools.lru_cache(maxsize=1)
def covered() -> frozenset:
    rec = _Record()
    for spec in SPECS:
        for seed in SEEDS:
            _run(spec, seed, rec)
    return frozenset(rec.names)


def test_every_registered_op_has_a_spec_or_an_exemption():
    missing = sorted(set(D.registered_ops()) - covered() - set(EXEMPT))
    assert not missing, ("registered ops with no spec in tests/op_specs.py and no entry in its "
                         f"EXEMPT: {missing}")


def test_exemptions_are_registered_uncovered_and_give_a_reason():
    ops = set(D.registered_ops())
    assert not sorted(set(EXEMPT) - ops), "exemptions for ops that are not registered"
    assert not sorted(set(EXEMPT) & covered()), "exempt ops a spec covers: drop the exemption"
    assert all(isinstance(r, str) and len(r) > 10 for r in EXEMPT.values())


def test_spec_names_are_unique():
    names = [s.name for s in SPECS]
    assert len(names) == len(set(names))


def test_the_rule_sees_a_new_op():
    name = "_test_only_uncatalogued_op"
    D.register_op(name, lambda x: x)
    try:
        assert name in set(D.registered_ops()) - covered() - set(EXEMPT)
    finally:
        D._unregister_op(name)
