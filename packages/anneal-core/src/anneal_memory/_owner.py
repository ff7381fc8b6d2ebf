"""Which process holds an open wrap, and whether that process is provably gone.

A process is named by its pid, its host and a start mark. The host is the host name plus,
on Linux, the pid namespace, so two containers with one host name never judge each other's
pids. The start mark (Linux: boot id and the process's start time in clock ticks) tells a
live owner from a new process that reuses its pid. Gone means *provably* gone: on the same
host, no process has the pid, it is a zombie, or the pid now belongs to a process started at
another time. Everything uncertain (another host, no ``/proc``, Windows) counts as alive.
"""

from __future__ import annotations

import functools
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ProcessIdentity", "current_process", "process_gone"]

_PROC = Path("/proc")
_MAX_READ = 4096


@dataclass(frozen=True, slots=True, kw_only=True)
class ProcessIdentity:
    """A process as a wrap row records it.

    Attributes:
        pid: Its process id.
        host: Its host name (and pid namespace where known).
        start: Its start mark, or ``""`` when the platform offers none.
    """

    pid: int
    host: str
    start: str


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return handle.read(_MAX_READ).decode("ascii", "replace")
    except OSError:
        return None


def _stat_fields(pid: int) -> list[str] | None:
    text = _read(_PROC / str(pid) / "stat")
    if text is None or ")" not in text:
        return None
    # The command name may hold spaces and parentheses: fields start after the last ")".
    return text[text.rindex(")") + 1 :].split()


@functools.lru_cache(maxsize=1)
def _boot_id() -> str:
    return (_read(_PROC / "sys/kernel/random/boot_id") or "").strip()


def _start_mark(pid: int) -> str:
    fields = _stat_fields(pid)
    if fields is None or len(fields) < 20:
        return ""
    return f"{_boot_id()}:{fields[19]}"


@functools.lru_cache(maxsize=1)
def _host() -> str:
    name = socket.gethostname()
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except (OSError, AttributeError):
        return name
    return f"{name}/{namespace}"


def current_process() -> ProcessIdentity:
    """This process."""
    return _identity(os.getpid())


@functools.lru_cache(maxsize=4)
def _identity(pid: int) -> ProcessIdentity:
    # Keyed on the pid, so a forked child computes its own identity.
    return ProcessIdentity(pid=pid, host=_host(), start=_start_mark(pid))


def _alive_by_signal(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists under another user
        return True
    return True


def process_gone(owner: ProcessIdentity) -> bool:
    """True only when ``owner`` is provably not running (see the module docstring)."""
    me = current_process()
    if owner.host != me.host or owner.pid <= 0 or sys.platform == "win32":
        return False
    if owner.pid == me.pid:
        return bool(owner.start) and owner.start != me.start
    if not _alive_by_signal(owner.pid):
        return True
    fields = _stat_fields(owner.pid)
    if fields is not None and fields[:1] == ["Z"]:
        return True
    if owner.start:
        now = _start_mark(owner.pid)
        return bool(now) and now != owner.start
    return False
