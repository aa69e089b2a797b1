"""``nn.Module``'s state-dict hooks, metadata and extra state against PyTorch 2.13: the same
script runs in both libraries and logs what each hook saw (arguments, keys, order), what was
returned and what was raised."""
from __future__ import annotations

import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402


def _net(L):
    return L.nn.Sequential(L.nn.Linear(2, 3), L.nn.BatchNorm1d(3), L.nn.Linear(3, 1))


def _run(L, script):
    """``script(L, log)`` with ``log`` collecting events; returns the log, or the exception's
    type and message appended where it stopped."""
    L.manual_seed(0)
    log = []
    try:
        script(L, log)
    except Exception as e:      # noqa: BLE001 - compared with torch's
        log.append(("raised", type(e).__name__, str(e)))
    return log


def _same(script):
    assert _run(mg, script) == _run(torch, script)


def test_state_dict_metadata_and_key_order():
    def script(L, log):
        sd = _net(L).state_dict()
        log.append(list(sd))
        log.append(type(sd).__name__)
        log.append(dict(sd._metadata))
        sd2 = _net(L).state_dict(destination={}, prefix="m.")
        log.append((type(sd2).__name__, list(sd2), hasattr(sd2, "_metadata")))
    _same(script)


def test_state_dict_pre_and_post_hooks_order_and_arguments():
    def script(L, log):
        net = _net(L)
        for name, m in net.named_modules():
            m.register_state_dict_pre_hook(
                lambda mod, prefix, keep_vars, name=name: log.append(
                    ("pre", name, prefix, keep_vars)))
            m.register_state_dict_post_hook(
                lambda mod, sd, prefix, meta, name=name: log.append(
                    ("post", name, prefix, sorted(sd), dict(meta))))
        net.state_dict(keep_vars=True)
    _same(script)


def test_post_hook_edits_in_place_and_must_return_none():
    def script(L, log):
        net = _net(L)

        def drop_bias(mod, sd, prefix, meta):
            del sd[prefix + "bias"]
        h = net[0].register_state_dict_post_hook(drop_bias)
        log.append(list(net.state_dict()))
        h.remove()
        log.append(list(net.state_dict()))
        net[2].register_state_dict_post_hook(lambda *a: {})
        net.state_dict()
    _same(script)


def test_private_state_dict_hook_return_replaces_only_at_the_root():
    def script(L, log):
        net = _net(L)
        net[0]._register_state_dict_hook(lambda mod, sd, prefix, meta: OrderedDict(a=1))
        log.append(list(net.state_dict()))          # ignored for a child
        net._register_state_dict_hook(lambda mod, sd, prefix, meta: OrderedDict(root=2))
        log.append(dict(net.state_dict()))          # the root's return is the result

        def public(mod, sd, prefix, meta):
            pass
        net.register_state_dict_post_hook(public)
        net._register_state_dict_hook(public)       # the same function: refused
    _same(script)


def test_load_state_dict_pre_hooks_see_metadata_and_may_edit():
    def script(L, log):
        src, dst = _net(L), _net(L)

        def rename(mod, sd, prefix, meta, strict, missing, unexpected, errors):
            log.append(("pre", type(mod).__name__, prefix, dict(meta), strict))
            if prefix + "old_weight" in sd:
                sd[prefix + "weight"] = sd.pop(prefix + "old_weight")
        for m in dst.modules():
            m.register_load_state_dict_pre_hook(rename)
        sd = src.state_dict()
        sd["0.old_weight"] = sd.pop("0.weight")
        log.append(repr(dst.load_state_dict(sd)))
        log.append(np.array_equal(dst[0].weight.detach().numpy(), src[0].weight.detach().numpy()))
        log.append(list(sd))                        # the caller's dict is not edited

        def private(sd, prefix, meta, strict, missing, unexpected, errors):
            log.append(("private", prefix, sorted(sd)))
        dst[2]._register_load_state_dict_pre_hook(private)
        dst.load_state_dict(src.state_dict(), assign=True)
    _same(script)


def test_load_state_dict_post_hooks_edit_incompatible_keys():
    def script(L, log):
        src, dst = _net(L), _net(L)
        sd = src.state_dict()
        del sd["2.bias"]
        sd["extra"] = src[0].weight.detach()

        def forgive(mod, keys):
            log.append(("post", type(mod).__name__, list(keys.missing_keys),
                        list(keys.unexpected_keys)))
            keys.missing_keys.clear()
            keys.unexpected_keys.clear()
        h = dst.register_load_state_dict_post_hook(forgive)
        dst[2].register_load_state_dict_post_hook(
            lambda mod, keys: log.append(("child", list(keys.missing_keys))))
        log.append(repr(dst.load_state_dict(sd)))
        h.remove()
        log.append(repr(dst.load_state_dict(sd, strict=False)))
        dst.register_load_state_dict_post_hook(lambda mod, keys: 1)
        dst.load_state_dict(src.state_dict())
    _same(script)


def test_extra_state_saved_loaded_and_required():
    def script(L, log):
        class WithExtra(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = L.nn.Linear(2, 2)
                self.count = 3

            def get_extra_state(self):
                return {"count": self.count}

            def set_extra_state(self, state):
                self.count = state["count"]

        a, b = WithExtra(), WithExtra()
        a.count = 7
        sd = a.state_dict()
        log.append(list(sd))
        b.load_state_dict(sd)
        log.append(b.count)
        del sd["_extra_state"]
        log.append(repr(b.load_state_dict(sd, strict=False)))
        plain = L.nn.Linear(2, 2)
        psd = plain.state_dict()
        psd["_extra_state"] = 1
        log.append(repr(plain.load_state_dict(psd, strict=False)))
        plain.load_state_dict(psd)
    _same(script)


def test_get_extra_state_default_raises():
    def script(L, log):
        L.nn.Linear(1, 1).get_extra_state()
    _same(script)


def test_batchnorm_old_checkpoint_without_num_batches_tracked():
    """A plain dict (no ``_metadata``: version None) without ``num_batches_tracked`` loads;
    with version-2 metadata the key is missing."""
    def script(L, log):
        bn = L.nn.BatchNorm1d(3)
        sd = dict(bn.state_dict())
        del sd["num_batches_tracked"]
        log.append(repr(bn.load_state_dict(sd)))
        sd2 = bn.state_dict()
        del sd2["num_batches_tracked"]
        bn.load_state_dict(sd2)
    _same(script)


def test_instancenorm_pre_0_4_running_stats_error():
    def script(L, log):
        m = L.nn.InstanceNorm1d(3)
        m.load_state_dict({"running_mean": L.zeros(3), "running_var": L.ones(3)})
    _same(script)


def test_positional_state_dict_args_warn():
    def script(L, log):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sd = L.nn.Linear(1, 1).state_dict(None, "p.")
        log.append((list(sd), [(x.category.__name__, str(x.message)) for x in w]))
    _same(script)


def test_hook_tables_and_pickling():
    """The hook tables are OrderedDicts keyed by the handles' ids; a module with a with-module
    load pre-hook pickles and the hook still gets the (new) module."""
    def script(L, log):
        m = L.nn.Linear(1, 1)
        h = m.register_load_state_dict_pre_hook(_pickled_hook)
        log.append((type(m._load_state_dict_pre_hooks).__name__,
                    list(m._load_state_dict_pre_hooks) == [h.id], len(m._state_dict_hooks)))
        m2 = pickle.loads(pickle.dumps(m))
        m2.load_state_dict(m2.state_dict())
        log.append(_SEEN.pop() is m2)
    _same(script)


_SEEN = []


def _pickled_hook(mod, *args):
    _SEEN.append(mod)
