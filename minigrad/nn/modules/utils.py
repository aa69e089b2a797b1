"""``torch.nn.modules.utils``: the argument normalisers custom layers import
(``from torch.nn.modules.utils import _pair``) and ``consume_prefix_in_state_dict_if_present``.

``_ntuple(n)`` makes a parser that turns a scalar into an ``n``-tuple of it and any iterable into
a tuple (its length unchecked, as in PyTorch): ``_pair(3) == (3, 3)``, ``_pair([1, 2]) == (1, 2)``.
"""
from __future__ import annotations

import collections.abc
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n, name="parse"):
    """A parser: an iterable -> ``tuple(x)``; anything else -> ``(x,) * n``
    (``torch.nn.modules.utils._ntuple``); the parser's ``__name__`` is ``name``."""
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """``t`` reversed, each element repeated ``n`` times: Conv's ``padding`` -> ``F.pad``'s
    (``torch.nn.modules.utils._reverse_repeat_tuple``): ``((1, 2), 2) -> (2, 2, 1, 1)``."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """``out_size`` with each None replaced by the matching trailing entry of ``defaults``
    (adaptive pooling's ``output_size``; ``torch.nn.modules.utils._list_with_default``); an int
    is returned as it is.

    Raises:
        ValueError: ``defaults`` not longer than ``out_size`` ("Input dimension should be at
            least N").
    """
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip ``prefix`` from the keys of ``state_dict`` (and of its ``_metadata``) in place
    (mirrors ``torch.nn.modules.utils.consume_prefix_in_state_dict_if_present``): a DDP /
    DataParallel checkpoint's ``"module."`` keys, or a compiled model's ``"_orig_mod."`` ones.

    Args:
        state_dict: an (Ordered)dict of name -> tensor, changed in place.
        prefix: the string to remove from the start of each key that has it.
    """
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    if hasattr(state_dict, "_metadata"):
        for key in list(state_dict._metadata.keys()):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                state_dict._metadata[key[len(prefix):]] = state_dict._metadata.pop(key)
