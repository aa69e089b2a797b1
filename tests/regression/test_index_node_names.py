"""The graph node of a basic index, as PyTorch 2.13 names it. In an index tuple, PyTorch's
``applySlicing`` skips a slice that covers its dim from 0 with step 1 (it returns the tensor
itself), so ``t[:, :]``, ``t[..., :]`` and ``t[:, 0:4]`` (a 4-wide dim) are ``AliasBackward0``
and ``t[0, :]`` is ``SelectBackward0``; a lone slice ``t[:]`` is always ``SliceBackward0``.
minigrad named every index with a slice ``SliceBackward0`` (373 of 20,000 random basic indexes
differed from torch). minigrad keeps one node per index where torch chains one per component
(``t[0, 1:]``: ``SliceBackward0`` after ``SelectBackward0``): the names of ``grad_fn`` agree,
its ``next_functions`` do not."""
from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402

FORMS = {
    ":": slice(None), "0:3": slice(0, 3), "0:10": slice(0, 10), "::1": slice(None, None, 1),
    "-3:": slice(-3, None), "...": Ellipsis, "None": None, "0": 0, "()": (),
    "(:,)": (slice(None),), ":, :": (slice(None),) * 2, ":, :, :": (slice(None),) * 3,
    ":, ::1": (slice(None), slice(None, None, 1)), ":, 0:4": (slice(None), slice(0, 4)),
    ":, 0:3": (slice(None), slice(0, 3)), ":, 1:": (slice(None), slice(1, None)),
    "..., :": (Ellipsis, slice(None)), "0, :": (0, slice(None)), ":, 0": (slice(None), 0),
    "None, :": (None, slice(None)), ":, None": (slice(None), None),
    "0:3, None, :": (slice(0, 3), None, slice(None)), ":, -10:10": (slice(None), slice(-10, 10)),
    ":, ::2": (slice(None), slice(None, None, 2)), "list [:, :]": [slice(None), slice(None)],
    "list [0, :]": [0, slice(None)], "True": True,
}


def _name(lib, shape, index):
    t = lib.zeros(shape, requires_grad=True) * 1
    return type(t[index].grad_fn).__name__, tuple(t[index].shape)


@pytest.mark.parametrize("form", FORMS)
def test_basic_index_node_name_as_torch(form):
    index = FORMS[form]
    assert _name(mg, (3, 4, 5), index) == _name(torch, (3, 4, 5), index)


def test_zero_size_dim_full_slice_is_alias():
    """``0:0`` covers a 0-size dim (its stop is not below the size): no slice in a tuple."""
    for index in [(slice(None), slice(0, 0)), (0, slice(0, 0)), slice(0, 0)]:
        assert _name(mg, (2, 0, 3), index) == _name(torch, (2, 0, 3), index)


def test_random_basic_indexes_as_torch():
    """2,000 random basic indexes (ints, slices, None, at most one Ellipsis) of random shapes:
    same node name and shape as torch, or both raise the same exception type."""
    r = random.Random(23)
    vals = [None, 0, 1, -1, 2, 3, 4, 10, -10]

    def comp():
        k = r.random()
        if k < 0.15:
            return None
        if k < 0.35:
            return r.randint(-2, 1)
        return slice(r.choice(vals), r.choice(vals), r.choice([None, 1, 2]))

    for _ in range(2000):
        shape = tuple(r.randint(0, 4) for _ in range(r.randint(1, 3)))
        index = [comp() for _ in range(r.randint(1, 4))]
        if r.random() < 0.2:
            index.insert(r.randint(0, len(index)), Ellipsis)
        index = tuple(index) if len(index) > 1 or r.random() < 0.5 else index[0]
        try:
            want = _name(torch, shape, index)
        except Exception as e:      # noqa: BLE001 - the oracle's exception type, compared below
            with pytest.raises(type(e)):
                _name(mg, shape, index)
            continue
        assert _name(mg, shape, index) == want, (shape, index)


def test_alias_node_backward_and_view():
    """The renamed nodes are the same views: writes show through, gradients flow."""
    x = mg.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 1
    v = y[:, :]
    assert v._base is y and v.grad_fn.name() == "AliasBackward0"
    (v * mg.arange(12.0).reshape(3, 4)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(12.0).reshape(3, 4))
