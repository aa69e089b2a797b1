"""``minigrad.version`` (``torch.version``): the PyTorch API level minigrad mirrors.

Scripts and libraries gate features on ``torch.__version__`` (``if torch.__version__ >= "2.0"``:
``scaled_dot_product_attention``, ``weights_only``, ``torch.compile``...) and read
``torch.version.cuda`` to learn about the build. minigrad mirrors PyTorch 2.13's behaviour, so
``minigrad.__version__`` is ``"2.13.0+minigrad"``, a :class:`TorchVersion` that compares with
strings and tuples as a version (``"2.13.0+minigrad" >= "2.4"`` is True), as PyTorch's does.

Deliberate difference: minigrad's own release number (setup.cfg) is :data:`minigrad_version`, not
``__version__``; the local label ``+minigrad`` tells the two projects apart in a log
(PyTorch's CPU wheel says ``2.13.0+cpu``).

``cuda`` is ``"12.8"`` while the emulated cuda device is on (``minigrad.cuda.is_available()``),
and None with ``MINIGRAD_EMULATE_CUDA=0``, as in a CPU-only PyTorch build. ``hip``, ``rocm`` and
``xpu`` are None; ``git_version`` names no commit (``"unknown"``).
"""
from __future__ import annotations

import operator
import re

from .devices import emulation_enabled

__all__ = ["__version__", "TorchVersion", "cuda", "debug", "git_version", "hip", "rocm", "xpu",
           "minigrad_version"]

# release, pre-release (a/b/rc), post, dev, local: the parts of a PEP 440 version compared
_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|rc|alpha|beta|c)[-_.]?(\d*))?"
                      r"(?:[-_.]?post[-_.]?(\d*))?(?:[-_.]?dev[-_.]?(\d*))?(?:\+([a-z0-9.]+))?\s*$",
                      re.IGNORECASE)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2}


def _key(text: str) -> tuple:
    """A sort key of a PEP 440 version string: releases compare numerically with trailing
    zeros ignored (``2.13 == 2.13.0``), a dev release sorts before its pre-releases, which sort
    before the release, which sorts before its post-releases; a local label (``+cpu``) sorts
    after the same version without one. Raises ValueError ("Invalid version") otherwise."""
    m = _VERSION.match(text)
    if m is None:
        raise ValueError(f"Invalid version: {text!r}")
    rel, pre, pre_n, post, dev, local = m.groups()
    release = [int(p) for p in rel.split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    if pre is None and post is None and dev is not None:
        pre_key = (-1, 0)                      # 2.13.0.dev1 < 2.13.0a0
    elif pre is None:
        pre_key = (3, 0)                       # a final release after its pre-releases
    else:
        pre_key = (_PRE[pre.lower()], int(pre_n or 0))
    post_key = -1 if post is None else int(post or 0)
    dev_key = float("inf") if dev is None else int(dev or 0)
    local_key = () if local is None else tuple(
        (1, int(p), "") if p.isdigit() else (0, 0, p.lower()) for p in local.split("."))
    return tuple(release), pre_key, post_key, dev_key, local_key


def _as_text(other) -> str:
    if isinstance(other, tuple):
        return ".".join(str(p) for p in other)
    if isinstance(other, str):
        return other
    raise TypeError(f"'{type(other).__name__}' is not a version (a str or a tuple)")


class TorchVersion(str):
    """A version string that compares as a version (mirrors ``torch.torch_version.TorchVersion``).

    ``TorchVersion("2.13.0+minigrad") >= "2.4"``, ``> (2, 0)``, ``< "2.14"`` are all True; it is
    still a ``str`` (``split``, formatting, ``+``). Comparing with anything other than a ``str``
    or a ``tuple`` raises TypeError, as PyTorch's does; an unparsable string raises ValueError.
    """

    def _cmp(self, other, op):
        try:
            text = _as_text(other)
        except TypeError:
            return NotImplemented
        return op(_key(str(self)), _key(text))

    def __lt__(self, other):
        return self._cmp(other, operator.lt)

    def __le__(self, other):
        return self._cmp(other, operator.le)

    def __gt__(self, other):
        return self._cmp(other, operator.gt)

    def __ge__(self, other):
        return self._cmp(other, operator.ge)

    def __eq__(self, other):
        try:
            text = _as_text(other)
            return _key(str(self)) == _key(text)
        except (TypeError, ValueError):
            return str.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = str.__hash__


__version__ = TorchVersion("2.13.0+minigrad")
minigrad_version = "0.1.0"        # minigrad's own release (setup.cfg)
cuda = "12.8" if emulation_enabled() else None
hip = None
rocm = None
xpu = None
debug = False
git_version = "unknown"
