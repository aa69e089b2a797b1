"""``minigrad.utils.tensorboard`` (mirrors ``torch.utils.tensorboard``): a ``SummaryWriter`` that
writes scalar curves as TensorBoard event files, in pure Python.

An event file is a sequence of TFRecords: ``uint64 length``, ``uint32 masked CRC-32C of the
length``, the payload, ``uint32 masked CRC-32C of the payload`` (little-endian). Each payload is a
protobuf ``Event`` message; this module encodes the few fields a scalar needs by hand (field
numbers from TensorBoard's ``event.proto`` / ``summary.proto``), so neither ``tensorboard`` nor
``protobuf`` is needed to *write* the files (PyTorch's writer imports both; deliberate difference:
where PyTorch raises ``ModuleNotFoundError: No module named 'tensorboard'``, this works). Open
the ``log_dir`` with TensorBoard as usual.

Only scalars are written (``add_scalar``, ``add_scalars``); the other ``add_*`` methods of
PyTorch's writer (images, histograms, graphs...) write nothing and warn once per writer
(deliberate difference: a logging call must not end a training run).
"""
from __future__ import annotations

import os
import socket
import struct
import time
import warnings

__all__ = ["SummaryWriter", "crc32c"]


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli polynomial, reflected), the checksum of TFRecord framing."""
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked_crc(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _record(payload: bytes) -> bytes:
    length = struct.pack("<Q", len(payload))
    return (length + struct.pack("<I", _masked_crc(length)) + payload +
            struct.pack("<I", _masked_crc(payload)))


def _varint(n: int) -> bytes:
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field_bytes(number: int, data: bytes) -> bytes:          # wire type 2
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _event(wall_time: float, step: int = 0, *, file_version=None, summary=None) -> bytes:
    """An ``Event``: wall_time (1, double), step (2, int64), file_version (3), summary (5),
    and, with the file version, source_metadata (10: writer name) as PyTorch writes it."""
    out = bytes([1 << 3 | 1]) + struct.pack("<d", wall_time)
    if step:
        out += _varint(2 << 3) + _varint(step)
    if file_version is not None:
        out += _field_bytes(3, file_version.encode())
        out += _field_bytes(10, _field_bytes(1, b"tensorboard.summary.writer.event_file_writer"))
    if summary is not None:
        out += _field_bytes(5, summary)
    return out


def _scalar_summary(tag: str, value: float, double_precision: bool) -> bytes:
    """A ``Summary`` with one ``Value``: tag (1) and simple_value (2, float). PyTorch's
    ``double_precision`` only matters for ``new_style`` tensors; the float is kept here."""
    v = _field_bytes(1, tag.encode()) + bytes([2 << 3 | 5]) + struct.pack("<f", float(value))
    return _field_bytes(1, v)


_counter = [0]


class SummaryWriter:
    """Mirrors ``torch.utils.tensorboard.SummaryWriter`` for scalars.

    Args:
        log_dir: the directory of the event file (created); default
            ``runs/<Mon DD_HH-MM-SS>_<hostname><comment>``, as PyTorch.
        comment: appended to the default ``log_dir``.
        purge_step, max_queue: accepted and ignored.
        flush_secs: events are flushed when ``flush_secs`` have passed since the last flush
            (default 120), at ``flush()`` and at ``close()``.
        filename_suffix: appended to the event file's name.

    The file is named ``events.out.tfevents.<unix time>.<hostname>.<pid>.<n>`` and begins with
    the ``brain.Event:2`` version event, as TensorBoard's writer makes it.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            from datetime import datetime
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" +
                                   socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self._file = None
        self._pending = []
        self._last_flush = time.time()
        self._children = {}

    def get_logdir(self) -> str:
        """The directory the event file is written to."""
        return self.log_dir

    def _open(self):
        if self._file is None:
            os.makedirs(self.log_dir, exist_ok=True)
            now = time.time()
            name = (f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}."
                    f"{os.getpid()}.{_counter[0]}{self.filename_suffix}")
            _counter[0] += 1
            self._file = open(os.path.join(self.log_dir, name), "wb")
            self._file.write(_record(_event(now, file_version="brain.Event:2")))
            self._file.flush()
        return self._file

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Record ``scalar_value`` (a number or a one-element Tensor) under ``tag`` at step
        ``global_step`` (default 0) and ``walltime`` (default now).

        Raises:
            NotImplementedError: ``new_style=True`` (tensor summaries are not written).
        """
        if new_style:
            raise NotImplementedError("SummaryWriter.add_scalar(new_style=True) is not "
                                      "supported by minigrad: scalars are written old-style")
        if hasattr(scalar_value, "item"):
            scalar_value = scalar_value.item()
        self._open()
        wall = time.time() if walltime is None else float(walltime)
        self._pending.append(_record(_event(wall, int(global_step or 0),
                                            summary=_scalar_summary(tag, scalar_value,
                                                                    double_precision))))
        if time.time() - self._last_flush >= self.flush_secs:
            self.flush()

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """One curve per key, each in its own ``<log_dir>/<main_tag>_<key>`` writer, as
        PyTorch's ``add_scalars``."""
        wall = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(self.log_dir, f"{main_tag}_{tag}".replace("/", "_"))
            if path not in self._children:
                self._children[path] = SummaryWriter(path, flush_secs=self.flush_secs,
                                                     filename_suffix=self.filename_suffix)
            self._children[path].add_scalar(main_tag, value, global_step, wall)

    def flush(self):
        """Write the pending events to disk."""
        if self._file is not None:
            self._file.write(b"".join(self._pending))
            self._file.flush()
        self._pending = []
        self._last_flush = time.time()
        for child in self._children.values():
            child.flush()

    def close(self):
        """Flush and close the event file(s)."""
        self.flush()
        if self._file is not None:
            self._file.close()
            self._file = None
        for child in self._children.values():
            child.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getattr__(self, name):
        # PyTorch's other add_* methods: skipped with a warning (once per method and writer),
        # so that a logging call does not end a training run
        if name in _SKIPPED_ADDS:
            def skipped(*args, **kwargs):
                warned = self.__dict__.setdefault("_warned", set())
                if name not in warned:
                    warned.add(name)
                    warnings.warn(f"SummaryWriter.{name}: minigrad's writer records scalars "
                                  "only (add_scalar, add_scalars); this call writes nothing",
                                  UserWarning, stacklevel=2)
            skipped.__name__ = name
            return skipped
        raise AttributeError(f"'SummaryWriter' object has no attribute {name!r}")


# torch.utils.tensorboard.SummaryWriter's add_* methods that write anything but scalars
_SKIPPED_ADDS = frozenset("""add_histogram add_histogram_raw add_image add_images
    add_image_with_boxes add_figure add_video add_audio add_text add_onnx_graph add_graph
    add_embedding add_pr_curve add_pr_curve_raw add_custom_scalars_multilinechart
    add_custom_scalars_marginchart add_custom_scalars add_mesh add_hparams add_tensor""".split())
