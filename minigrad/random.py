"""The global random generator (``torch.manual_seed``, ``get_rng_state``, ``fork_rng``).

Deliberate difference: minigrad draws from NumPy's PCG64, not PyTorch's mt19937/Philox, so the
same seed gives different numbers than PyTorch. Comparisons with PyTorch copy the initial weights
across instead of relying on equal seeds.
"""
from __future__ import annotations

import contextlib
import copy

import numpy as np

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng",
           "Generator", "default_generator"]

_DEFAULT_SEED = 67280421310721   # PyTorch's default CPU seed


class Generator:
    """A random generator (``torch.Generator``): ``manual_seed``, ``initial_seed``,
    ``get_state``/``set_state``. Wraps ``np.random.Generator(PCG64)``."""

    def __init__(self, device="cpu"):
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Reseed; returns self.

        Raises:
            TypeError: for a non-integer seed.
        """
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}")
        self._seed = int(seed)
        self.np = np.random.Generator(np.random.PCG64(self._seed & ((1 << 64) - 1)))
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        s = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def get_state(self):
        return copy.deepcopy(self.np.bit_generator.state)

    def set_state(self, state):
        self.np.bit_generator.state = copy.deepcopy(state)


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seed the global generator (``torch.manual_seed``); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the global generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed of the default generator (``torch.initial_seed``): the last ``manual_seed``
    value, or the seed drawn at import / by ``seed()``."""
    return default_generator.initial_seed()


def get_rng_state():
    """A copy of the global generator's state (an opaque dict, not a ByteTensor as in torch)."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    """Restore a state returned by ``get_rng_state``."""
    default_generator.set_state(state)


@contextlib.contextmanager
def fork_rng(enabled: bool = True):
    """Restore the global RNG state on exit (``torch.random.fork_rng``)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def _gen(generator):
    return (generator or default_generator).np
