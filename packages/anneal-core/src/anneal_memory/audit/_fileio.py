"""Low-level reads and writes on the active trail file (positional, no buffering)."""

from __future__ import annotations

import os

__all__ = ["read_all", "read_first_line", "read_last_line", "write_all"]

_CHUNK = 65536


def read_all(fd: int) -> bytes:
    """Read the whole file behind ``fd`` without moving its offset."""
    size = os.fstat(fd).st_size
    parts = []
    pos = 0
    while pos < size:
        part = os.pread(fd, min(size - pos, 1 << 24), pos)
        if not part:
            break
        parts.append(part)
        pos += len(part)
    return b"".join(parts)


def read_last_line(fd: int, size: int) -> tuple[bytes | None, bytes]:
    """Return the last complete line and the torn tail after it.

    The line comes without its newline (None if the file has no complete line); the tail is
    whatever follows the final newline (empty when the file ends cleanly).
    """
    buf = b""
    pos = size
    while pos > 0:
        step = min(_CHUNK, pos)
        pos -= step
        buf = os.pread(fd, step, pos) + buf
        last_nl = buf.rfind(b"\n")
        if last_nl == -1:
            continue
        prev_nl = buf.rfind(b"\n", 0, last_nl)
        if prev_nl != -1 or pos == 0:
            return buf[prev_nl + 1 : last_nl], buf[last_nl + 1 :]
    return None, buf


def read_first_line(fd: int) -> bytes | None:
    """Return the first complete line (without its newline), or None."""
    buf = b""
    pos = 0
    while True:
        part = os.pread(fd, _CHUNK, pos)
        if not part:
            return None
        buf += part
        pos += len(part)
        nl = buf.find(b"\n")
        if nl != -1:
            return buf[:nl]


def write_all(fd: int, payload: bytes) -> None:
    """Write every byte of ``payload`` (looping over short writes)."""
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]
