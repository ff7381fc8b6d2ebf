"""Files the operator names: bounded reads, refused non-regular files, no silent overwrite.

Every read of a user-named file or stdin stops at a documented size (:data:`IMPORT_MAX_BYTES`
for ``import``, :data:`CONTINUITY_MAX_BYTES` for ``save-continuity``, the episode size limit
for ``record -``); a named file that is not a regular file (a FIFO, ``/dev/zero``, a
directory) is refused before it is read, and so is a symbolic link named to ``import``.
Every write to a user-named file is atomic, refuses an existing file unless ``--force``, and
never writes into a non-regular file.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from anneal_memory._sidefile import IMPORT_HINT, open_file, read_at_most
from anneal_memory.cli._context import CommandError

__all__ = [
    "CONTINUITY_MAX_BYTES",
    "IMPORT_MAX_BYTES",
    "RECORD_STDIN_MAX_BYTES",
    "output_target",
    "read_bounded",
    "read_user_text",
]

IMPORT_MAX_BYTES = 256 * 1024 * 1024
CONTINUITY_MAX_BYTES = 8 * 1024 * 1024  # above the largest hard max (1.25M chars) in UTF-8
RECORD_STDIN_MAX_BYTES = 65_536 + 2  # the episode limit, plus the newline a pipe adds


def read_bounded(fd: int, limit: int, what: str) -> bytes:
    """Read at most ``limit`` bytes from ``fd``; refuse when there is more.

    Raises:
        CommandError: The input is larger than ``limit``.
    """
    data = read_at_most(fd, limit)
    if len(data) > limit:
        raise CommandError(
            f"{what} is larger than {limit:,} bytes, the limit for it; nothing was written"
        )
    return data


def _open_unlinked(path: Path) -> int:
    """Open an import input as every file beside a store is opened: never through a link."""
    from anneal_memory.errors import UnsafeFileError

    try:
        fd = open_file(path, what="the file", hint=IMPORT_HINT)
    except UnsafeFileError as exc:
        raise CommandError(str(exc)) from None
    if fd is None:
        raise CommandError(f"No such file or directory: {path}")
    return fd


def _open_regular(path: Path, *, links: bool = True) -> int:
    if not links:
        return _open_unlinked(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise CommandError(f"No such file or directory: {path}") from None
    except IsADirectoryError:
        raise CommandError(f"{path} is a directory, not a file") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise CommandError(
            f"{path} is not a regular file (a FIFO, device or socket); pass a file, or - for stdin"
        )
    return fd


def require_regular_file(path: Path, *, links: bool = True) -> None:
    """Refuse a user-named input that is missing, a folder, a FIFO, device or socket.

    ``links=False`` refuses a symbolic link too (an import input).

    Raises:
        CommandError: It is not a regular file.
    """
    os.close(_open_regular(path, links=links))


def read_user_text(name: str, *, limit: int, what: str, links: bool = True) -> str:
    """The UTF-8 text of a user-named file (``-`` = stdin), at most ``limit`` bytes.

    ``links=False`` refuses a symbolic link at ``name`` (an import input).

    Raises:
        CommandError: Missing, not a regular file (or a link, with ``links=False``), too
            large, or not UTF-8.
    """
    if name == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text-only stdin (embedding, tests)
            text = sys.stdin.read(limit + 1)
            if len(text.encode("utf-8")) > limit:
                raise CommandError(f"{what} from stdin is larger than {limit:,} bytes")
            return text
        raw = read_bounded(stream.fileno(), limit, f"{what} from stdin")
        origin = "stdin"
    else:
        path = Path(name).expanduser()
        fd = _open_regular(path, links=links)
        try:
            raw = read_bounded(fd, limit, f"{what} {path}")
        finally:
            os.close(fd)
        origin = str(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"{origin} is not UTF-8 text; nothing was written") from None


def output_target(name: str, *, force: bool) -> Path:
    """Check a user-named output path before anything is written to it.

    Raises:
        CommandError: It is a directory or another non-regular file (never written, even
            with ``force``), it exists and ``force`` is False, or its folder is missing.
    """
    target = Path(name).expanduser()
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise CommandError(f"cannot use {target}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise CommandError(f"{target} is a directory; -o takes a file path")
    if mode is not None and not stat.S_ISREG(mode):
        raise CommandError(f"{target} is not a regular file (a FIFO, device or socket); refusing")
    if mode is not None and not force:
        raise CommandError(f"{target} already exists; pass --force to overwrite it")
    if not target.parent.is_dir():
        raise CommandError(f"folder {target.parent} does not exist")
    return target
