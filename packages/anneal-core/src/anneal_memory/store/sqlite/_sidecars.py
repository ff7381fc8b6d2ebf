"""The files a SQLite store keeps beside its database, found by name, and which are not files.

For ``memory.db``: ``memory.continuity.md`` and each scope's ``memory.continuity.<slug>-<hash>.md``
with their ``.lock`` files, and the audit trail's ``memory.audit.jsonl``,
``memory.audit.manifest.json``, ``memory.audit-append.lock`` and sealed weeks
``memory.audit.YYYY-Www.jsonl.gz``, and the HTTP server's default token file
``memory.db.http-tokens``. Every one of them must be a regular file: a link, FIFO,
folder or device at one of these names is damage (``check`` names it), and the store never
reads or appends through it (``_sidefile``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from anneal_memory._scope_files import CONTINUITY_SUFFIX, LOCK_SUFFIX
from anneal_memory._sidefile import non_regular

__all__ = ["sidecar_paths", "unsafe_sidecars"]

_FIXED = (
    CONTINUITY_SUFFIX,
    CONTINUITY_SUFFIX + LOCK_SUFFIX,
    ".audit.jsonl",
    ".audit.manifest.json",
    ".audit-append.lock",
)
# mcp/_http/_serve.default_token_path (the store cannot import the transports above it).
_TOKENS = ".http-tokens"
_PATTERN = (
    r"\.continuity(?:\.[a-z0-9-]{1,24}-[0-9a-f]{16})?\.md(?:\.lock|\.prev|\.none)?"
    r"|\.audit\.jsonl|\.audit\.manifest\.json|\.audit-append\.lock"
    r"|\.audit\.\d{4}-W\d{2}\.jsonl\.gz"
)


def sidecar_paths(db_path: Path) -> list[Path]:
    """Every path of the store's own files that exists beside ``db_path`` (links too)."""
    stem = db_path.stem
    ours = re.compile(re.escape(stem) + f"(?:{_PATTERN})")
    found = {db_path.with_name(stem + suffix) for suffix in _FIXED}
    found.add(db_path.with_name(db_path.name + _TOKENS))
    try:
        names = [entry.name for entry in os.scandir(db_path.parent)]
    except OSError:
        names = []
    found.update(db_path.with_name(name) for name in names if ours.fullmatch(name))
    return sorted(p for p in found if os.path.lexists(p))


def unsafe_sidecars(db_path: Path) -> list[tuple[Path, str]]:
    """The store's own files that are not regular files, with what each is (``"a FIFO"``)."""
    unsafe: list[tuple[Path, str]] = []
    for path in sidecar_paths(db_path):
        found = non_regular(path)
        if found is not None:
            unsafe.append((path, found))
    return unsafe
