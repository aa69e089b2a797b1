"""Streams and events on minigrad's devices (``torch.cuda.Stream`` / ``Event``, ``torch.cpu``'s).

On a GPU, kernels run asynchronously on streams, and events mark points on a stream (to order two
streams, or to time the work between two points). minigrad runs every op synchronously, on one
host thread, for both of its devices, so every stream is in effect the default stream: work is
finished when the call returns. The classes keep PyTorch's API so that scripts run unchanged:

- ``Stream.synchronize()``, ``wait_stream``, ``wait_event`` return at once; ``query()`` is True;
- ``Event.record()`` takes the host clock (``time.perf_counter``); ``elapsed_time(end)`` is the
  milliseconds between two recorded events, as ``torch.cuda.Event.elapsed_time``: with
  synchronous kernels that is the time the work between them took;
- ``stream(s)`` / ``StreamContext`` make ``s`` the current stream for the block.

Raises (as PyTorch): ``elapsed_time`` raises RuntimeError when either event was created without
``enable_timing=True`` or has not been recorded.
"""
from __future__ import annotations

import time

__all__ = ["Stream", "Event", "StreamContext", "current_stream", "default_stream", "set_stream",
           "stream"]


class Stream:
    """A stream on ``device`` (``torch.cuda.Stream`` / ``torch.cpu.Stream``): every op minigrad
    runs is finished when it returns, so waiting and synchronising return at once.

    Args:
        device: the device the stream belongs to (default: the device type's current one).
        priority: recorded only (``torch.cuda.Stream(priority=...)``).
    """

    def __init__(self, device=None, priority: int = 0, *, _type: str = "cuda", **kwargs):
        from .devices import device as _device
        if device is None or isinstance(device, int):      # an ordinal of the device type
            device = f"{_type}:{device or 0}" if _type == "cuda" else _type
        self.device = _device(device)
        self.priority = int(priority)

    def synchronize(self) -> None:
        """Wait until the stream's work is done: it always is."""

    def query(self) -> bool:
        """True: all work on the stream is finished."""
        return True

    def wait_event(self, event) -> None:
        """Make later work wait for ``event``: a no-op, work is synchronous."""

    def wait_stream(self, stream) -> None:
        """Make later work wait for ``stream``'s: a no-op, work is synchronous."""

    def record_event(self, event=None):
        """Record ``event`` (a new one if None) on this stream and return it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and other.device == self.device

    def __hash__(self):
        return hash(("stream", str(self.device)))

    def __repr__(self):
        return f"<minigrad.streams.Stream device={self.device} priority={self.priority}>"


class Event:
    """A point on a stream (``torch.cuda.Event``): ``record()`` takes the host clock,
    ``elapsed_time(end)`` gives the milliseconds from this event to ``end``.

    Args:
        enable_timing: needed by ``elapsed_time`` (PyTorch's default False).
        blocking, interprocess, external: recorded only.
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False, external: bool = False):
        self.enable_timing = bool(enable_timing)
        self.blocking, self.interprocess = bool(blocking), bool(interprocess)
        self._t = None

    def record(self, stream=None) -> None:
        """Mark this point: the host clock now (all earlier work is finished)."""
        self._t = time.perf_counter()

    def wait(self, stream=None) -> None:
        """Make ``stream`` wait for this event: a no-op, work is synchronous."""

    def query(self) -> bool:
        """True: the work before the event is finished."""
        return True

    def synchronize(self) -> None:
        """Wait for the event: it has already happened."""

    def elapsed_time(self, end_event) -> float:
        """Milliseconds from this event's record to ``end_event``'s.

        Raises:
            RuntimeError: either event was created without ``enable_timing=True``, or was not
                recorded.
        """
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._t is None or end_event._t is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._t - self._t) * 1000.0

    def __repr__(self):
        return f"<minigrad.streams.Event recorded={self._t is not None}>"


_current: dict = {}


def current_stream(device=None, *, _type: str = "cuda") -> Stream:
    """The current stream of ``device`` (``torch.cuda.current_stream``)."""
    s = _current.get(_type)
    return s if s is not None else default_stream(device, _type=_type)


def default_stream(device=None, *, _type: str = "cuda") -> Stream:
    """The device's default stream (``torch.cuda.default_stream``)."""
    return Stream(device, _type=_type)


def set_stream(stream_, *, _type: str = "cuda") -> None:
    """Make ``stream_`` current (``torch.cuda.set_stream``)."""
    _current[_type] = stream_


class StreamContext:
    """``with StreamContext(s):`` makes ``s`` the current stream for the block
    (``torch.cuda.StreamContext``); ``None`` changes nothing."""

    def __init__(self, stream_, *, _type: str = "cuda"):
        self.stream, self._type, self._prev = stream_, _type, None

    def __enter__(self):
        self._prev = _current.get(self._type)
        if self.stream is not None:
            _current[self._type] = self.stream
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _current[self._type] = self._prev
        return False


def stream(stream_, *, _type: str = "cuda") -> StreamContext:
    """``with stream(s):`` (``torch.cuda.stream``): see :class:`StreamContext`."""
    return StreamContext(stream_, _type=_type)
