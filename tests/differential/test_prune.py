"""torch.nn.utils.prune (l1/random/global unstructured, custom_from_mask, iterative pruning,
remove, is_pruned) against PyTorch 2.13: masks, state_dict keys, gradients, errors."""
import numpy as np
import pytest
import torch
import torch.nn.utils.prune  # noqa: F401  (torch does not import it with torch.nn.utils)

import minigrad as mg


def _prune_run(lib):
    lib.manual_seed(0)
    m = lib.nn.Linear(5, 4)
    m2 = lib.nn.Linear(3, 3)
    P = lib.nn.utils.prune
    P.l1_unstructured(m, "weight", 0.3)
    P.l1_unstructured(m, "weight", 5)           # iterative: a PruningContainer
    P.random_unstructured(m, "bias", 2)
    P.global_unstructured([(m, "weight"), (m2, "weight")], pruning_method=P.L1Unstructured,
                          amount=0.5)
    P.custom_from_mask(m2, "bias", lib.tensor([1.0, 0.0, 1.0]))
    out = (m(lib.ones(2, 5)).sum() + m2(lib.ones(1, 3)).sum())
    out.backward()
    res = {"keys": list(m.state_dict()) + list(m2.state_dict()), "pruned": P.is_pruned(m),
           "w_mask": m.weight_mask.tolist(), "b_mask": m.bias_mask.tolist(),
           "m2_mask": m2.weight_mask.tolist(), "grad": m.weight_orig.grad.tolist(),
           "hooks": type(m._forward_pre_hooks[next(iter(m._forward_pre_hooks))]).__name__}
    P.remove(m, "weight")
    P.remove(m, "bias")
    res.update(after=list(m.state_dict()), still=P.is_pruned(m), weight=m.weight.tolist(),
               param=isinstance(m.weight, lib.nn.Parameter))
    return res


def test_prune_matches_torch():
    a, b = _prune_run(mg), _prune_run(torch)
    assert a.keys() == b.keys()
    for k in a:
        if k in ("grad", "weight"):
            np.testing.assert_allclose(np.array(a[k]), np.array(b[k]), rtol=1e-6, atol=1e-7)
        else:
            assert a[k] == b[k], k


@pytest.mark.parametrize("case", [
    lambda P, lib, m: P.l1_unstructured(m, "weight", 1.5),
    lambda P, lib, m: P.l1_unstructured(m, "weight", -1),
    lambda P, lib, m: P.l1_unstructured(m, "weight", "a"),
    lambda P, lib, m: P.l1_unstructured(m, "weight", 10),
    lambda P, lib, m: P.remove(m, "weight"),
    lambda P, lib, m: P.global_unstructured(3, P.L1Unstructured, amount=1),
    lambda P, lib, m: P.global_unstructured([(m, "weight")], P.L1Unstructured, [], amount=1),
])
def test_errors_match_torch(case):
    errs = []
    for lib in (mg, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(Exception) as info:
            case(lib.nn.utils.prune, lib, m)
        msg = str(info.value)
        errs.append((type(info.value).__name__, msg.split(" of module")[0]))
        assert "weight_orig" not in dict(m.named_parameters())
    assert errs[0] == errs[1]


def _structured_run(lib):
    lib.manual_seed(0)
    m = lib.nn.Conv2d(3, 6, 2)
    P = lib.nn.utils.prune
    P.ln_structured(m, "weight", 0.34, 2, 0)
    P.random_structured(m, "weight", 2, 1)        # a container with a structured method
    P.ln_structured(m, "weight", 1, float("inf"), 0)
    m(lib.ones(1, 3, 3, 3)).sum().backward()
    return m.weight_mask.tolist(), (m.weight_orig.grad != 0).tolist()


def test_structured_matches_torch():
    assert _structured_run(mg) == _structured_run(torch)


@pytest.mark.parametrize("case", [
    lambda P, m: P.ln_structured(m, "bias", 1, 2, 0),
    lambda P, m: P.random_structured(m, "weight", 1, 4),
])
def test_structured_errors(case):
    errs = []
    for lib in (mg, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(Exception) as info:
            case(lib.nn.utils.prune, m)
        errs.append((type(info.value).__name__, str(info.value).replace("minigrad", "torch")))
    assert errs[0] == errs[1]
