"""Where the trail lives beside the database, and the manifest that links its files.

Files for a database ``memory.db``:

- ``memory.audit.jsonl``: the active file, appended to;
- ``memory.audit.YYYY-Www.jsonl.gz``: sealed weeks;
- ``memory.audit.manifest.json``: the sealed weeks in chain order and the active file's anchor;
- ``memory.audit-append.lock``: the cross-process lock every append and rotation holds.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from anneal_memory._fsio import atomic_write_text
from anneal_memory._sidefile import read_bytes
from anneal_memory.audit._chain import line_info, link_hash

__all__ = [
    "ACTIVE_MAX_BYTES",
    "MANIFEST_MAX_BYTES",
    "MANIFEST_VERSION",
    "SEALED_MAX_BYTES",
    "AuditPaths",
    "Manifest",
    "SealedFile",
    "SetAside",
    "load_manifest",
    "read_trail_file",
    "write_manifest",
]

MANIFEST_VERSION = 1
# Bounds on what is read back (far above what a trail writes: a manifest lists one line per
# week; an active file holds one week of entries; a sealed week is that, gzipped).
MANIFEST_MAX_BYTES = 16 * 1024 * 1024
ACTIVE_MAX_BYTES = 2 * 1024 * 1024 * 1024
SEALED_MAX_BYTES = 512 * 1024 * 1024
_SEALED = re.compile(r"^(?P<stem>.+)\.audit\.(?P<period>\d{4}-W\d{2})\.jsonl\.gz$")


@dataclass(frozen=True, slots=True)
class AuditPaths:
    """The trail's files for one database."""

    db_path: Path

    @classmethod
    def for_db(cls, db_path: str | os.PathLike[str]) -> AuditPaths:
        """Paths for the database at ``db_path`` (made absolute)."""
        return cls(Path(db_path).expanduser().absolute())

    def _beside(self, suffix: str) -> Path:
        return self.db_path.with_name(self.db_path.stem + suffix)

    @property
    def active(self) -> Path:
        """The file new entries are appended to."""
        return self._beside(".audit.jsonl")

    @property
    def manifest(self) -> Path:
        """The manifest that carries the chain across files."""
        return self._beside(".audit.manifest.json")

    @property
    def append_lock(self) -> Path:
        """The lock file held by every append, rotation and repair."""
        return self._beside(".audit-append.lock")

    def beside(self, filename: str) -> Path:
        """A file named ``filename`` in the database's folder."""
        return self.db_path.with_name(filename)

    def sealed(self, period: str) -> Path:
        """The sealed file of one ISO week."""
        return self._beside(f".audit.{period}.jsonl.gz")

    def sealed_on_disk(self) -> list[Path]:
        """Every sealed week file beside the database, oldest period first."""
        stem = self.db_path.stem
        found = []
        for path in self.db_path.parent.glob(f"{glob_escape(stem)}.audit.*.jsonl.gz"):
            match = _SEALED.match(path.name)
            if match and match["stem"] == stem:
                found.append(path)
        return sorted(found, key=lambda p: p.name)

    def set_aside_name(self, original: Path, stamp: str, kind: str) -> Path:
        """Where a file (or a torn tail of one) is moved when it is set aside."""
        return original.with_name(f"{original.name}.{kind}-{stamp}")


def glob_escape(text: str) -> str:
    """Escape glob metacharacters in a file-name fragment."""
    return re.sub(r"([*?\[])", r"[\1]", text)


# The manifest's value types are named tuples, not frozen dataclasses: immutable all the
# same, and about a tenth of the cost to define at import (every record loads them, #25).
# They are built by keyword; ``Manifest.to_json`` writes the same JSON ``asdict`` did.
class SealedFile(NamedTuple):
    """A sealed week as the manifest lists it."""

    filename: str
    period: str
    entries: int
    first_seq: int
    last_seq: int
    first_ts: str
    last_ts: str
    first_prev_hash: str
    last_hash: str
    sha256: str
    set_aside: str | None = None

    @classmethod
    def describe(cls, filename: str, period: str, lines: list[bytes], sha256: str) -> SealedFile:
        """The manifest entry for a sealed week holding the complete entry ``lines``."""
        first, last = line_info(lines[0]), line_info(lines[-1])
        return cls(
            filename=filename,
            period=period,
            entries=len(lines),
            first_seq=first.seq,
            last_seq=last.seq,
            first_ts=first.ts,
            last_ts=last.ts,
            first_prev_hash=first.prev_hash,
            last_hash=link_hash(lines[-1]),
            sha256=sha256,
        )


class SetAside(NamedTuple):
    """Something repair or recovery moved out of the chain, kept on disk for inspection."""

    kind: str
    filename: str
    moved_to: str
    reason: str
    at: str


class Manifest(NamedTuple):
    """The chain across files: sealed weeks in order and the active file's anchor."""

    active_file: str
    active_period: str
    active_first_seq: int = 0
    active_first_prev_hash: str = "sha256:GENESIS"
    files: tuple[SealedFile, ...] = ()
    set_aside: tuple[SetAside, ...] = ()

    def to_json(self) -> str:
        """Render as stable, indented JSON."""
        body: dict[str, Any] = {
            "version": MANIFEST_VERSION,
            **self._asdict(),
            "files": [item._asdict() for item in self.files],
            "set_aside": [item._asdict() for item in self.set_aside],
        }
        return json.dumps(body, sort_keys=True, indent=1) + "\n"

    def with_set_aside(self, item: SetAside) -> Manifest:
        """A copy that also records ``item``."""
        return self._replace(set_aside=(*self.set_aside, item))

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        """Parse a manifest.

        Raises:
            ValueError: It is not a well-formed manifest of a known version.
        """
        body = json.loads(text)
        if not isinstance(body, dict) or body.get("version") != MANIFEST_VERSION:
            raise ValueError("not a version-1 audit manifest")
        try:
            files = tuple(SealedFile(**item) for item in body["files"])
            set_aside = tuple(SetAside(**item) for item in body.get("set_aside", ()))
            manifest = cls(
                active_file=str(body["active_file"]),
                active_period=str(body["active_period"]),
                active_first_seq=int(body["active_first_seq"]),
                active_first_prev_hash=str(body["active_first_prev_hash"]),
                files=files,
                set_aside=set_aside,
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed audit manifest: {exc}") from None
        return manifest


def load_manifest(path: Path) -> Manifest | None:
    """Read the manifest; None when there is none.

    Raises:
        ValueError: It exists but cannot be parsed.
        OSError: It exists but cannot be read.
        UnsafeFileError: It is a link, folder, FIFO or device, or absurdly large.
    """
    data = read_bytes(path, limit=MANIFEST_MAX_BYTES, what="the audit manifest")
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"manifest is not UTF-8: {exc}") from None
    return Manifest.from_json(text)


def read_trail_file(path: Path, *, limit: int) -> bytes | None:
    """The bytes of the active file or a sealed week (None when missing), at most ``limit``.

    Raises:
        OSError: It cannot be read.
        UnsafeFileError: It is a link, folder, FIFO or device, or larger than ``limit``.
    """
    return read_bytes(path, limit=limit, what="the audit file")


def write_manifest(path: Path, manifest: Manifest) -> None:
    """Replace the manifest atomically."""
    atomic_write_text(path, manifest.to_json())
