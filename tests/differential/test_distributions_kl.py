"""LogNormal, Independent, OneHotCategorical, MultivariateNormal and ``kl_divergence`` against
torch.distributions: samples after the same seed, log_prob / entropy / mean / variance / cdf,
the divergences of every registered pair, gradients through ``rsample``, ``log_prob`` and
``kl_divergence``, shapes, reprs and the errors.

Samples bit for bit (MultivariateNormal's ``rsample`` ``loc + L @ eps`` where ``L`` is
diagonal: its ``eps`` are PyTorch's); values and gradients within ``ULPS`` of each (the
underlying ops' last-bit differences: ``erfinv``, ``logsumexp``...; gradients: of their
largest entry); MultivariateNormal's
(values, its pair's divergence, gradients) within ``MVN_ULPS`` of the largest (matmul's
summation order; LAPACK's Cholesky, ``potri`` and ``trsm`` against minigrad's substitution)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

ULPS = 4
MVN_ULPS = 16


def _strip(s):
    return s.replace("torch.", "").replace("minigrad.", "")


def _run(L, dt):
    D = L.distributions

    def t(v, grad=False):
        return L.tensor(v, dtype=getattr(L, dt), requires_grad=grad)

    out, leaves = {}, {}
    eye = L.eye(3, dtype=getattr(L, dt))
    L.manual_seed(5)
    loc, scale = t([0.2, -1.0, 0.5], True), t([1.0, 0.5, 2.0], True)
    leaves.update(ln_loc=loc, ln_scale=scale)
    ln = D.LogNormal(loc, scale)
    v = t([0.5, 1.5, 3.0])
    out.update({"ln.sample": ln.sample((4,)), "ln.rsample": ln.rsample((2,)),
                "ln.lp": ln.log_prob(v), "ln.ent": ln.entropy(), "ln.mean": ln.mean,
                "ln.var": ln.variance, "ln.mode": ln.mode, "ln.cdf": ln.cdf(v),
                "ln.icdf": ln.icdf(t([0.1, 0.5, 0.9]))})
    iloc = t([[0., 1., 2.], [1., 1., 1.]], True)
    leaves["ind_loc"] = iloc
    ind = D.Independent(D.Normal(iloc, t([[1., 2., .5], [1., 1., 3.]])), 1)
    out.update({"ind.sample": ind.sample((3,)), "ind.rsample": ind.rsample(),
                "ind.lp": ind.log_prob(t([[0.1, 0.2, 0.3], [1., 2., 3.]])),
                "ind.ent": ind.entropy(), "ind.mean": ind.mean, "ind.var": ind.variance})
    logits = t([[0.2, -1.0, 0.5], [1.5, 0.1, -0.3]], True)
    leaves["oh_logits"] = logits
    oh = D.OneHotCategorical(logits=logits)
    s = oh.sample((5,))
    out.update({"oh.sample": s, "oh.lp": oh.log_prob(s), "oh.ent": oh.entropy(),
                "oh.mode": oh.mode, "oh.mean": oh.mean, "oh.var": oh.variance,
                "oh.es": oh.enumerate_support(), "oh.es1": oh.enumerate_support(False)})
    mloc = t([1., 2., -1.], True)
    A = t([[2., 0., 0.], [0.5, 1., 0.], [-.3, .2, 1.5]], True)
    leaves.update(mvn_loc=mloc, mvn_L=A)
    cov = A.detach() @ A.detach().T
    for nm, kw in [("tril", dict(scale_tril=A)), ("cov", dict(covariance_matrix=cov)),
                   ("prec", dict(precision_matrix=L.linalg.inv(cov)))]:
        m = D.MultivariateNormal(mloc, **kw)
        out.update({f"mvn.{nm}.rs": m.rsample((4,)), f"mvn.{nm}.ent": m.entropy(),
                    f"mvn.{nm}.lp": m.log_prob(t([[0., 1., 2.], [1., 1., 1.]])),
                    f"mvn.{nm}.var": m.variance, f"mvn.{nm}.L": m.scale_tril,
                    f"mvn.{nm}.cov": m.covariance_matrix, f"mvn.{nm}.prec": m.precision_matrix})
    mb = D.MultivariateNormal(t([[0., 0., 0.], [1., 1., 1.]]), scale_tril=eye * 2)
    out.update({"mvnb.rs": mb.rsample((2,)), "mvnb.ent": mb.entropy(),
                "mvnb.lp": mb.log_prob(t([[[0., 1., 2.]], [[1., 1., 1.]]]))})
    N1, N2 = D.Normal(loc[:2], scale[:2]), D.Normal(t([0.5, -1.]), t([2., 0.5]))
    pairs = {
        "NN": (N1, N2),
        "BB": (D.Bernoulli(t([0.2, 0., 1.])), D.Bernoulli(t([0.5, 0.3, 0.]))),
        "CC": (D.Categorical(t([0.2, 0.8, 0.])), D.Categorical(t([0.5, 0., 0.5]))),
        "OO": (oh, D.OneHotCategorical(t([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]]))),
        "EE": (D.Exponential(t([1., 2.])), D.Exponential(t([0.5, 3.]))),
        "LL": (D.Laplace(t([0., 1.]), t([1., 2.])), D.Laplace(t([1., 0.]), t([0.5, 1.]))),
        "UU": (D.Uniform(t([0., 0.]), t([1., 2.])), D.Uniform(t([-1., 0.5]), t([2., 3.]))),
        "LNLN": (ln, D.LogNormal(t([1., 0., 0.]), t([0.5, 1., 3.]))),
        "II": (ind, D.Independent(D.Normal(t([[1., 1., 2.], [0., 1., 1.]]),
                                           t([[2., 2., .5], [1., 3., 3.]])), 1)),
        "MM": (D.MultivariateNormal(mloc, scale_tril=A),
               D.MultivariateNormal(t([0., 0., 1.]), covariance_matrix=cov + eye)),
        "EU": (D.Exponential(t([1.])), D.Uniform(t([0.]), t([1.]))),
        "EN": (D.Exponential(t([1., 2.])), N2),
        "LN": (D.Laplace(t([0., 1.]), t([1., 2.])), N2),
        "NL": (N1, D.Laplace(t([1., 0.]), t([0.5, 1.]))),
        "UN": (D.Uniform(t([0., 0.]), t([1., 2.])), N2),
        "UE": (D.Uniform(t([0., -1.]), t([1., 2.])), D.Exponential(t([1., 2.]))),
        "NE": (N1, D.Exponential(t([1., 2.]))),
        "NU": (N1, D.Uniform(t([0., 0.]), t([1., 2.]))),
        "LE": (D.Laplace(t([0.]), t([1.])), D.Exponential(t([1.]))),
        "LU": (D.Laplace(t([0.]), t([1.])), D.Uniform(t([0.]), t([1.])))}
    for k, (p, q) in pairs.items():
        out["kl." + k] = D.kl_divergence(p, q)
    total = sum((o * (i + 1)).sum() for i, o in enumerate(out.values())
                if o.requires_grad and bool(o.isfinite().all()))
    total.backward()
    for k, leaf in leaves.items():
        out["grad." + k] = leaf.grad
    return out


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_values_samples_and_gradients_match_torch(dt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        T, M = _run(torch, dt), _run(mg, dt)
    assert T.keys() == M.keys()
    eps = np.finfo(np.float32 if dt == "float32" else np.float64).eps
    for k in T:
        a, b = T[k].detach().numpy(), M[k].detach().numpy()
        assert a.shape == b.shape and str(a.dtype) == str(b.dtype), k
        if k.endswith(("sample", ".es", ".es1")) or k == "mvnb.rs":
            assert np.array_equal(a, b, equal_nan=True), k
        elif k.startswith(("mvn.", "kl.MM", "grad.mvn")):
            tol = MVN_ULPS * eps * max(np.abs(a).max(), 1.0)
            np.testing.assert_allclose(b, a, rtol=0, atol=tol, err_msg=k)
        elif k.startswith("grad."):          # sums of many terms: ULPS of the largest
            tol = ULPS * eps * np.abs(a).max()
            np.testing.assert_allclose(b, a, rtol=0, atol=tol, err_msg=k)
        else:
            np.testing.assert_allclose(b, a, rtol=ULPS * eps, atol=0, err_msg=k)


def _errors(L):
    D, t = L.distributions, L.tensor
    calls = [
        lambda: D.LogNormal(0., -1.),
        lambda: D.LogNormal(t([0.]), t([1.])).log_prob(t([-1.])),
        lambda: D.LogNormal(t([0.]), t([1.])).cdf(t([0.])),
        lambda: D.Independent(D.Normal(t([0.]), t([1.])), 2),
        lambda: D.Independent(D.Categorical(t([0.5, 0.5])), 0).enumerate_support(),
        lambda: D.Independent(D.Bernoulli(t([0.5, 0.5])), 1).enumerate_support(),
        lambda: D.OneHotCategorical(t([0.5, 0.5])).log_prob(t([1., 1.])),
        lambda: D.OneHotCategorical(t([0.5, 0.5])).log_prob(t([0., 2.])),
        lambda: D.OneHotCategorical(t([-0.5, 0.5])),
        lambda: D.OneHotCategorical(),
        lambda: D.MultivariateNormal(t(0.), L.eye(2)),
        lambda: D.MultivariateNormal(t([0., 0.])),
        lambda: D.MultivariateNormal(t([0., 0.]), L.eye(2), scale_tril=L.eye(2)),
        lambda: D.MultivariateNormal(t([0., 0.]), t([1., 1.])),
        lambda: D.MultivariateNormal(t([0., 0.]), scale_tril=t([1., 1.])),
        lambda: D.MultivariateNormal(t([0., 0.]), precision_matrix=t([1., 1.])),
        lambda: D.MultivariateNormal(t([0., 0.]), t([[1., 2.], [2., 1.]])),
        lambda: D.MultivariateNormal(t([0., 0.]), t([[1., 2.], [0., 1.]])),
        lambda: D.MultivariateNormal(t([0., 0.]), scale_tril=t([[1., 2.], [0., 1.]])),
        lambda: D.MultivariateNormal(t([0., 0.]), scale_tril=t([[-1., 0.], [0., 1.]])),
        lambda: D.MultivariateNormal(t([0., 0.]), scale_tril=L.eye(2)).log_prob(t([0., 0., 0.])),
        lambda: D.MultivariateNormal(t([[0., 0.], [1, 1]]), scale_tril=L.eye(2).expand(3, 2, 2)),
        lambda: D.kl_divergence(D.Normal(0., 1.), D.Categorical(t([0.5, 0.5]))),
        lambda: D.kl_divergence(D.Uniform(0., 1.), D.Laplace(0., 1.)),
        lambda: D.kl_divergence(D.MultivariateNormal(t([0., 0.]), L.eye(2)),
                                D.MultivariateNormal(t([0.]), L.eye(1))),
        lambda: D.kl_divergence(D.Independent(D.Normal(t([[0.]]), t([[1.]])), 1),
                                D.Independent(D.Normal(t([[0.]]), t([[1.]])), 2))]
    out = []
    for c in calls:
        try:
            c()
            out.append(None)
        except Exception as e:            # noqa: BLE001 - the point is which exception
            out.append((type(e).__name__, _strip(str(e))))
    return out


@pytest.fixture
def torch_validation():
    """Validation on in torch (a ``torch.compile`` call, as in tests/unit/test_dropin_api.py,
    turns PyTorch's default off for the rest of the process); restored afterwards."""
    before = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    try:
        yield
    finally:
        torch.distributions.Distribution.set_default_validate_args(before)


def test_errors_match_torch(torch_validation):
    assert _errors(mg) == _errors(torch)


def _meta(L):
    D, t = L.distributions, L.tensor
    reps = [D.LogNormal(0., 1.), D.Independent(D.Normal(t([0., 1.]), t([1., 1.])), 1),
            D.OneHotCategorical(t([0.5, 0.5])), D.MultivariateNormal(t([0., 0.]), L.eye(2)),
            D.constraints.one_hot, D.constraints.lower_cholesky,
            D.constraints.positive_definite,
            D.Independent(D.Normal(t([0., 1.]), t([1., 1.])), 1).support]
    dists = [D.LogNormal(t([0., 1.]), 1.), D.Independent(D.Normal(L.zeros(2, 3, 4), 1.), 2),
             D.OneHotCategorical(L.ones(2, 3) / 3),
             D.MultivariateNormal(L.zeros(4, 1, 3), scale_tril=L.eye(3).expand(2, 3, 3)),
             D.Independent(D.Bernoulli(L.ones(2) / 2), 0)]
    return ([_strip(repr(r)) for r in reps],
            [(tuple(d.batch_shape), tuple(d.event_shape), d.has_rsample,
              d.has_enumerate_support) for d in dists])


def test_shapes_flags_and_reprs_match_torch():
    assert _meta(mg) == _meta(torch)


def test_register_kl_most_specific_match_and_ambiguity():
    D = mg.distributions

    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0., 1.), D.Normal(1., 2.)
    before = D.kl_divergence(p, q)
    assert float(before) == float(D.kl_divergence(D.Normal(0., 1.), q))
    try:
        D.register_kl(MyNormal, D.Normal)(lambda p, q: mg.tensor(-1.))
        assert float(D.kl_divergence(p, q)) == -1.0       # the more specific pair wins
        D.register_kl(D.Normal, MyNormal)(lambda p, q: mg.tensor(-2.))
        with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence"):
            D.kl_divergence(MyNormal(0., 1.), MyNormal(0., 1.))
    finally:
        for key in [(MyNormal, D.Normal), (D.Normal, MyNormal)]:
            D.kl._KL_REGISTRY.pop(key, None)
        D.kl._KL_MEMOIZE.clear()
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)
