"""Verification: walk sealed weeks in manifest order, then the active file, checking every link.

The walk hashes each raw line as read (no re-serialisation), so it costs one JSON parse and
one SHA-256 per entry. A failed walk is repeated once under the append lock, so a rotation
or append in flight is not mistaken for tampering.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import sqlite3
import zlib
from dataclasses import dataclass
from typing import Any

from anneal_memory._locks import file_lock
from anneal_memory.audit._chain import GENESIS_HASH, ChainTip, split_complete
from anneal_memory.audit._files import (
    ACTIVE_MAX_BYTES,
    SEALED_MAX_BYTES,
    AuditPaths,
    Manifest,
    SealedFile,
    load_manifest,
    read_trail_file,
)
from anneal_memory.audit._walk import ChainBreakError, Walk, walk_lines
from anneal_memory.errors import LockUnavailableError, UnsafeFileError

__all__ = ["AuditVerifyResult", "verify_trail"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditVerifyResult:
    """The outcome of verifying a trail.

    Attributes:
        valid: True when every link, sequence number and sealed-file hash checks out.
        total_entries: Entries walked (up to the break when invalid).
        files_verified: Files walked completely.
        chain_break_at: Sequence number of the first entry whose check failed.
        chain_break_file: The file holding it (or the manifest, when that is at fault).
        chain_break_line: Its 1-based line number in that file.
        skipped_lines: Torn tails (a crash mid-append) left out of the walk.
        dropped_entries: Entries the trail itself reports as lost (sum of ``dropped_before``).
        error: What failed, in words; None when valid.
        set_aside: Files repair or recovery set aside (kept on disk, not walked).
        untracked: Sealed-looking files the manifest does not list.
        missing_entries: Audited changes whose entry never reached the trail: gaps in the
            ``intent`` numbers the store gives each entry it stages.
        repeated_entries: Entries whose ``intent`` was already in the trail (appended twice).
        pending_entries: Entries staged in the database and not appended yet (delayed by a
            crash or a failed append; the store's next open or write appends them).
        missing_tail: Entries the database recorded as appended that the trail no longer
            ends with: cut from its end, or an older copy of the trail put back.
    """

    valid: bool
    total_entries: int
    files_verified: int
    chain_break_at: int | None = None
    chain_break_file: str | None = None
    chain_break_line: int | None = None
    skipped_lines: int = 0
    dropped_entries: int = 0
    error: str | None = None
    set_aside: tuple[str, ...] = ()
    untracked: tuple[str, ...] = ()
    missing_entries: int = 0
    repeated_entries: int = 0
    pending_entries: int = 0
    missing_tail: int = 0

    @property
    def complete(self) -> bool:
        """True when no audited change lacks its entry and none was appended twice."""
        return self.missing_entries == 0 and self.repeated_entries == 0 and not self.missing_tail

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {name: _plain(getattr(self, name)) for name in self.__dataclass_fields__}

    def summary(self) -> str:
        """One or two lines for people."""
        if self.valid:
            text = (
                f"Audit trail valid: {self.total_entries} entries across "
                f"{self.files_verified} file(s)"
            )
            if self.missing_tail:
                text = (
                    f"Audit trail INCOMPLETE: its last {self.missing_tail} entr(ies) are "
                    "missing (the database recorded them as appended; the trail now ends "
                    "before them: cut from its end, or an older copy put back). The "
                    f"{self.total_entries} entries present link correctly across "
                    f"{self.files_verified} file(s)"
                )
            if self.skipped_lines:
                text += f"; {self.skipped_lines} torn line(s) skipped"
            if self.dropped_entries:
                text += f"; the trail reports {self.dropped_entries} dropped entr(ies)"
            if self.missing_entries:
                text += f"; GAP: {self.missing_entries} audited change(s) have no entry"
            if self.repeated_entries:
                text += f"; {self.repeated_entries} entr(ies) appended twice"
            if self.pending_entries:
                text += (
                    f"; {self.pending_entries} entr(ies) staged in the database, not appended "
                    "yet (the store's next open appends them)"
                )
            return text
        text = f"Audit trail INVALID: {self.error}"
        if self.chain_break_file is not None:
            where = "" if self.chain_break_at is None else f" at seq {self.chain_break_at}"
            line = "" if self.chain_break_line is None else f" (line {self.chain_break_line})"
            text += f"\nChain broke{where} in {self.chain_break_file}{line}"
        return text


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def _read_sealed(paths: AuditPaths, sealed: SealedFile) -> bytes:
    path = paths.beside(sealed.filename)
    try:
        raw = read_trail_file(path, limit=SEALED_MAX_BYTES)
        if raw is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory")
    except OSError as exc:
        raise ChainBreakError(
            f"sealed week {sealed.filename} cannot be read: {exc.strerror or exc}",
            seq=sealed.first_seq,
            file=sealed.filename,
        ) from None
    except UnsafeFileError as exc:
        raise ChainBreakError(str(exc), seq=sealed.first_seq, file=sealed.filename) from None
    if hashlib.sha256(raw).hexdigest() != sealed.sha256:
        raise ChainBreakError(
            f"sealed week {sealed.filename} does not match the sha256 in the manifest",
            seq=sealed.first_seq,
            file=sealed.filename,
        )
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise ChainBreakError(
            f"sealed week {sealed.filename} is not valid gzip: {exc}",
            seq=sealed.first_seq,
            file=sealed.filename,
        ) from None


def _check_anchor(expected: ChainTip, seq: int, prev_hash: str, what: str, file: str) -> None:
    if seq != expected.next_seq or prev_hash != expected.prev_hash:
        raise ChainBreakError(
            f"the manifest's anchor for {what} does not continue the chain (expected seq "
            f"{expected.next_seq} after {expected.prev_hash[:20]}...): a week is missing or the "
            "manifest was edited",
            seq=seq,
            file=file,
        )


def _verify_sealed(paths: AuditPaths, sealed: SealedFile, tip: ChainTip, walk: Walk) -> ChainTip:
    _check_anchor(tip, sealed.first_seq, sealed.first_prev_hash, sealed.filename, sealed.filename)
    if sealed.set_aside is not None:
        return ChainTip(next_seq=sealed.last_seq + 1, prev_hash=sealed.last_hash)
    data = _read_sealed(paths, sealed)
    lines, torn = split_complete(data)
    if torn:
        raise ChainBreakError(
            f"sealed week {sealed.filename} ends without a line end",
            seq=None,
            file=sealed.filename,
        )
    after = walk_lines(lines, tip, sealed.filename, walk, data)
    described = (
        len(lines),
        after.prev_hash,
        after.next_seq - 1,
        _ts(lines[0]) if lines else "",
        _ts(lines[-1]) if lines else "",
    )
    recorded = (sealed.entries, sealed.last_hash, sealed.last_seq, sealed.first_ts, sealed.last_ts)
    if described != recorded:
        raise ChainBreakError(
            f"the manifest's record of {sealed.filename} (entries, last hash, seqs or times) "
            "does not match the file: the manifest was edited",
            seq=sealed.first_seq,
            file=paths.manifest.name,
        )
    walk.files += 1
    return after


def _ts(raw: bytes) -> str:
    return str(json.loads(raw)["ts"])


def _verify_active(paths: AuditPaths, manifest: Manifest, tip: ChainTip, walk: Walk) -> None:
    name = paths.active.name
    _check_anchor(
        tip, manifest.active_first_seq, manifest.active_first_prev_hash, "the active file", name
    )
    try:
        data = read_trail_file(paths.active, limit=ACTIVE_MAX_BYTES)
    except (OSError, UnsafeFileError) as exc:
        raise ChainBreakError(
            f"the active file cannot be read: {getattr(exc, 'strerror', None) or exc}",
            seq=manifest.active_first_seq,
            file=name,
        ) from None
    if data is None:
        return
    lines, torn = split_complete(data)
    if torn:
        walk.skipped += 1
    if lines and manifest.files and _already_sealed(paths, manifest, lines, data):
        walk.files += 1
        return
    walk_lines(lines, tip, name, walk, data)
    walk.files += 1


def _already_sealed(paths: AuditPaths, manifest: Manifest, lines: list[bytes], data: bytes) -> bool:
    """True when a rotation sealed the active content but died before emptying the file."""
    try:
        last_seq = json.loads(lines[-1])["seq"]
    except (ValueError, KeyError, TypeError):
        return False
    if not isinstance(last_seq, int) or last_seq >= manifest.active_first_seq:
        return False
    try:
        raw = read_trail_file(paths.beside(manifest.files[-1].filename), limit=SEALED_MAX_BYTES)
        sealed = gzip.decompress(raw or b"")
    except (OSError, EOFError, zlib.error, UnsafeFileError):
        return False
    return sealed == data


def _load(paths: AuditPaths) -> Manifest | None:
    try:
        manifest = load_manifest(paths.manifest)
    except (OSError, ValueError, UnsafeFileError) as exc:
        raise ChainBreakError(
            f"the audit manifest is unreadable or corrupt ({exc}); "
            "run 'anneal-memory audit-repair'",
            seq=None,
            file=paths.manifest.name,
        ) from None
    if manifest is None and paths.sealed_on_disk():
        raise ChainBreakError(
            "the audit manifest is missing while sealed weeks exist; run "
            "'anneal-memory audit-repair'",
            seq=None,
            file=paths.manifest.name,
        )
    return manifest


def _verify_once(paths: AuditPaths) -> AuditVerifyResult:
    walk = Walk()
    set_aside: tuple[str, ...] = ()
    untracked: tuple[str, ...] = ()
    try:
        manifest = _load(paths) or Manifest(active_file=paths.active.name, active_period="")
        set_aside = tuple(item.moved_to for item in manifest.set_aside)
        listed = {f.filename for f in manifest.files}
        untracked = tuple(p.name for p in paths.sealed_on_disk() if p.name not in listed)
        tip = ChainTip(next_seq=0, prev_hash=GENESIS_HASH)
        for sealed in manifest.files:
            tip = _verify_sealed(paths, sealed, tip, walk)
        _verify_active(paths, manifest, tip, walk)
        staged = _staged(paths, walk.last_intent or 0)
    except ChainBreakError as broken:
        return AuditVerifyResult(
            valid=False,
            total_entries=walk.entries,
            files_verified=walk.files,
            chain_break_at=broken.seq,
            chain_break_file=broken.file,
            chain_break_line=broken.line,
            skipped_lines=walk.skipped,
            dropped_entries=walk.dropped,
            error=broken.error,
            set_aside=set_aside,
            untracked=untracked,
        )
    return AuditVerifyResult(
        valid=True,
        total_entries=walk.entries,
        files_verified=walk.files,
        skipped_lines=walk.skipped,
        dropped_entries=walk.dropped,
        set_aside=set_aside,
        untracked=untracked,
        missing_entries=walk.missing,
        repeated_entries=walk.repeated,
        pending_entries=staged.pending,
        missing_tail=staged.lost,
    )


@dataclass(frozen=True, slots=True)
class _Staged:
    pending: int = 0
    lost: int = 0


def _staged(paths: AuditPaths, newest: int) -> _Staged:
    """What the database says about the intents above the trail's newest one (``newest``).

    The outbox holds every staged entry until it has been appended, and drops appended ones
    (always keeping the newest id). So an id above ``newest`` that is still there is pending
    (the next open appends it), and an id above ``newest`` that is gone was appended and is
    no longer in the trail: its tail was lost. One query on a read-only connection of its
    own: ``audit/`` sits below ``store/`` and never imports it.
    """
    db = paths.db_path
    if not db.is_file():
        return _Staged()
    try:
        conn = sqlite3.connect(str(db), timeout=5.0, isolation_level=None)  # noqa: TID251
    except sqlite3.Error:
        return _Staged()
    try:
        conn.execute("PRAGMA query_only=ON")
        count, top = conn.execute(
            "SELECT count(*), max(id) FROM audit_outbox WHERE id > ?", (newest,)
        ).fetchone()
    except sqlite3.Error:
        return _Staged()
    finally:
        conn.close()
    if not count:
        return _Staged()
    return _Staged(pending=int(count), lost=int(top) - newest - int(count))


def verify_trail(db_path: str | os.PathLike[str]) -> AuditVerifyResult:
    """Verify the audit trail of the database at ``db_path``.

    A store without any audit files verifies as valid with zero entries. Entries the
    database recorded as appended and the trail no longer ends with are ``missing_tail``.
    """
    paths = AuditPaths.for_db(db_path)
    result = _verify_once(paths)
    # A second walk under the append lock, which appends and rotations hold: a rotation in
    # flight is not tampering, and a tail appended (and dropped from the outbox) by another
    # process between reading the trail and the database is not a lost one.
    if (result.valid and not result.missing_tail) or not paths.append_lock.exists():
        return result
    try:
        with file_lock(paths.append_lock, timeout=5.0):
            return _verify_once(paths)
    except (LockUnavailableError, UnsafeFileError):
        return result
