"""``AuditTrail``: append chained entries under a cross-process lock, rotate weekly.

Every append takes ``<stem>.audit-append.lock``, then checks whether the active file or the
manifest changed since this object last wrote (inode and size). If they did, another process
appended or rotated, and the chain tip is re-read from disk; so any number of processes keep
one chain. A tail without a line end (a crash mid-write) is moved to a side file and counted
as ``dropped_before`` on the next entry, never silently dropped.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory._clock import Clock, SystemClock, format_timestamp
from anneal_memory._fsio import atomic_write_bytes
from anneal_memory._locks import DEFAULT_LOCK_TIMEOUT, HeldFileLock
from anneal_memory._sidefile import open_file
from anneal_memory.audit._chain import (
    ChainTip,
    line_info,
    link_hash,
    period_of,
    period_of_timestamp,
    split_complete,
)
from anneal_memory.audit._events import AuditEvent, encode_entry, parse_event
from anneal_memory.audit._fileio import read_all, read_first_line, read_last_line, write_all
from anneal_memory.audit._files import (
    AuditPaths,
    Manifest,
    SetAside,
    load_manifest,
    write_manifest,
)
from anneal_memory.audit._intents import StagedEntry, newest_intent
from anneal_memory.audit._rotation import seal_week
from anneal_memory.errors import AuditError, LockUnavailableError, UnsafeFileError

if TYPE_CHECKING:
    import logging

    from anneal_memory.audit._repair import AuditRepairResult
    from anneal_memory.audit._verify import AuditVerifyResult

__all__ = ["AuditTrail", "EventCallback"]

EventCallback = Callable[[dict[str, Any]], None]


def _log() -> logging.Logger:
    # logging costs milliseconds to import; only failures need it.
    import logging

    return logging.getLogger("anneal_memory.audit")


_fdatasync = getattr(os, "fdatasync", os.fsync)
# What an append or recovery turns into an ``AuditError`` (a file that is not the trail's own
# is an ``UnsafeFileError``).
_FAILURES = (OSError, ValueError, AuditError, LockUnavailableError, UnsafeFileError)


class _State:
    """What this object knows about the files, valid while ``key`` matches the disk.

    Mutable: each append moves ``key`` and ``tip`` forward in place. A plain class with
    slots, not a dataclass: cheaper to define at start-up (#25).
    """

    __slots__ = ("has_entries", "intent", "key", "manifest", "tip")

    def __init__(
        self,
        *,
        key: tuple[int, int, tuple[int, int, int] | None],
        tip: ChainTip,
        has_entries: bool,
        manifest: Manifest,
        intent: int | None = None,
    ) -> None:
        self.key = key
        self.tip = tip
        self.has_entries = has_entries
        self.manifest = manifest
        self.intent = intent


def _stamp(moment: _dt.datetime) -> str:
    return moment.astimezone(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + os.urandom(2).hex()


class AuditTrail:
    """The hash-chained audit trail beside one database.

    Args:
        db_path: The database the trail belongs to (files are created beside it).
        clock: Stamps entries and decides rotation (tests inject a frozen clock).
        on_event: Called with each entry dict after it is on disk; its errors are logged.
        lock_timeout: Seconds to wait for the append lock before an append fails.
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        on_event: EventCallback | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self._paths = AuditPaths.for_db(db_path)
        # The hot path names these on every append; compute them once.
        self._active_path = self._paths.active
        self._manifest_path = self._paths.manifest
        # os.stat takes a str fastest
        self._active_name = os.fspath(self._active_path)
        self._manifest_name = os.fspath(self._manifest_path)
        self._lock = HeldFileLock(self._paths.append_lock, timeout=lock_timeout)
        self._week: tuple[_dt.datetime, _dt.datetime, str] | None = None
        self._clock: Clock = clock or SystemClock()
        self._on_event = on_event
        self._fd: int | None = None
        self._fd_ino = -1
        self._state: _State | None = None
        self._pending_drops = 0

    @property
    def paths(self) -> AuditPaths:
        """The trail's files."""
        return self._paths

    @property
    def pending_drops(self) -> int:
        """Entries lost since the last successful append; the next entry reports them."""
        return self._pending_drops

    def close(self) -> None:
        """Release the file handles. The trail reopens them on the next append."""
        self._close_active()
        self._lock.close()

    def _close_active(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = None
        self._state = None

    def _period(self, now: _dt.datetime) -> str:
        """The ISO week of ``now``, cached for the rest of that week."""
        cached = self._week
        if cached is not None and cached[0] <= now < cached[1]:
            return cached[2]
        day = now.astimezone(_dt.timezone.utc)
        start = _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.timezone.utc)
        start -= _dt.timedelta(days=day.weekday())
        self._week = (start, start + _dt.timedelta(days=7), period_of(day))
        return self._week[2]

    @staticmethod
    def verify(db_path: str | os.PathLike[str]) -> AuditVerifyResult:
        """Check the whole chain (sealed weeks, manifest, active file); see ``_verify``."""
        from anneal_memory.audit._verify import verify_trail

        return verify_trail(db_path)

    @staticmethod
    def repair(
        db_path: str | os.PathLike[str], *, set_aside_unreadable: bool = False
    ) -> AuditRepairResult:
        """Rebuild a corrupt manifest or set aside a corrupt sealed week; see ``_repair``.

        Raises:
            AuditRepairRefusedError: Nothing needs (or may receive) repair.
        """
        from anneal_memory.audit._repair import repair_trail

        return repair_trail(db_path, set_aside_unreadable=set_aside_unreadable)

    def recover(self) -> None:
        """Bring the files to a clean state now: set aside a torn tail, finish a rotation.

        Appends do this on their own; a store calls it when it opens, so a crash is tidied
        up even when no entry follows. Files that do not exist yet are left alone.

        Raises:
            AuditError: The trail cannot be read (a corrupt manifest, for instance).
        """
        if not os.path.lexists(self._paths.active):
            return
        try:
            with self._lock:
                self._sync(self._clock.now())
        except AuditError:
            self._state = None
            raise
        except _FAILURES as exc:
            self._state = None
            raise AuditError(f"audit recovery of {self._paths.active} failed: {exc}") from exc

    # -- append ------------------------------------------------------------------------------

    def note_drop(self) -> None:
        """Count an entry that was lost before reaching the trail (reported on the next one)."""
        self._pending_drops += 1

    def append(
        self, event: AuditEvent | str, *, actor: str, data: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Append one entry, fsynced, and return it.

        Raises:
            InvalidInputError: ``event`` is not in the vocabulary (nothing is counted).
            AuditError: The entry could not be written; it is counted as dropped.
        """
        kind = parse_event(event)
        try:
            entry = self._append_locked(kind, actor, data)
        except _FAILURES as exc:
            self._state = None
            self._pending_drops += 1
            raise AuditError(f"audit append to {self._paths.active} failed: {exc}") from exc
        if self._on_event is not None:
            try:
                self._on_event(entry)
            except Exception:
                _log().exception("audit on_event callback failed (entry seq %s)", entry["seq"])
        return entry

    def _append_locked(
        self, kind: AuditEvent, actor: str, data: Mapping[str, Any]
    ) -> dict[str, Any]:
        now = self._clock.now()
        with self._lock:
            entry = self._write(self._sync(now), now, kind, actor, data, None)
            _fdatasync(self._require_fd())
            return entry

    def _write(  # noqa: PLR0917 - one entry's fields plus where it goes
        self,
        state: _State,
        now: _dt.datetime,
        kind: AuditEvent,
        actor: str,
        data: Mapping[str, Any],
        intent: int | None,
    ) -> dict[str, Any]:
        period = self._period(now)
        if state.has_entries and period > state.manifest.active_period:
            state = self._rotate(state, period)
        entry, line = encode_entry(
            seq=state.tip.next_seq,
            ts=format_timestamp(now),
            event=kind,
            actor=actor,
            data=data,
            prev_hash=state.tip.prev_hash,
            dropped_before=self._pending_drops,
            intent=intent,
        )
        write_all(self._require_fd(), line + b"\n")  # the caller syncs, once per batch
        self._pending_drops = 0
        ino, size, msig = state.key
        state.key = (ino, size + len(line) + 1, msig)
        state.tip = ChainTip(next_seq=state.tip.next_seq + 1, prev_hash=link_hash(line))
        state.has_entries = True
        if intent is not None:
            state.intent = intent
        self._state = state
        return entry

    def append_staged(self, load: Callable[[int], Sequence[StagedEntry]]) -> int:
        """Append the staged entries the trail does not hold yet; return the newest intent.

        ``load(after)`` returns the staged entries with an intent above ``after``, oldest
        first; it runs under the append lock, so two processes never append one twice.
        Entries that already reached the trail before a crash are recognised by their
        ``intent`` and not appended again.

        Raises:
            AuditError: The trail could not be read or written (the entries stay staged).
        """
        appended: list[dict[str, Any]] = []
        try:
            with self._lock:
                now = self._clock.now()
                state = self._sync(now)
                mark = self._intent_mark(state)
                for staged in load(mark):
                    entry = self._write(
                        state, now, staged.event, staged.actor, staged.data, staged.intent
                    )
                    state = self._state or state
                    appended.append(entry)
                    mark = staged.intent
                if appended:
                    # One flush to disk for the batch: an entry counts as appended (and its
                    # outbox row may go) only once this returns, so a crash before it leaves
                    # every entry of the batch staged (appended again, by intent, at most once).
                    _fdatasync(self._require_fd())
        except _FAILURES as exc:
            self._state = None
            raise AuditError(f"audit append to {self._paths.active} failed: {exc}") from exc
        finally:
            self._notify(appended)
        return mark

    def _notify(self, entries: list[dict[str, Any]]) -> None:
        if self._on_event is None:
            return
        for entry in entries:
            try:
                self._on_event(entry)
            except Exception:
                _log().exception("audit on_event callback failed (entry seq %s)", entry["seq"])

    def _intent_mark(self, state: _State) -> int:
        """The newest outbox intent the trail holds (0 when it holds none)."""
        if state.intent is None:
            state.intent = newest_intent(self._paths, read_all(self._require_fd()), state.manifest)
        return state.intent

    # -- syncing with the disk ---------------------------------------------------------------

    def _require_fd(self) -> int:
        if self._fd is None:
            raise AuditError("the active audit file is not open")
        return self._fd

    def _open_active(self) -> os.stat_result:
        """Make ``self._fd`` point at the current active file; return its stat.

        The path is examined itself (``lstat``): a link put there makes the inode differ, and
        the reopen refuses it (``_sidefile``), so no entry is ever appended through a link.
        """
        try:
            st = os.lstat(self._active_name)
        except FileNotFoundError:
            st = None
        if self._fd is None or st is None or self._fd_ino != st.st_ino:
            self._close_active()
            fd = open_file(self._active_path, what="the audit trail", append=True, create=True)
            if fd is None:  # pragma: no cover - create=True never answers "missing"
                raise FileNotFoundError(self._active_path)
            self._fd = fd
            st = os.fstat(fd)
            self._fd_ino = st.st_ino
        return st

    def _manifest_signature(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self._manifest_name)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _sync(self, now: _dt.datetime) -> _State:
        st = self._open_active()
        key = (st.st_ino, st.st_size, self._manifest_signature())
        if self._state is not None and self._state.key == key:
            return self._state
        fd = self._require_fd()
        manifest = self._load_manifest(fd, now)
        last, torn = read_last_line(fd, st.st_size)
        if torn:
            manifest = self._set_aside_torn(fd, torn, manifest, now)
        tip, has_entries = self._tip_from(last, manifest)
        st = os.fstat(fd)
        key = (st.st_ino, st.st_size, self._manifest_signature())
        intent = _line_intent(last) if last is not None else None
        self._state = _State(
            key=key, tip=tip, has_entries=has_entries, manifest=manifest, intent=intent
        )
        return self._state

    def _load_manifest(self, fd: int, now: _dt.datetime) -> Manifest:
        try:
            manifest = load_manifest(self._paths.manifest)
        except ValueError as exc:
            raise AuditError(
                f"the audit manifest {self._paths.manifest.name} is corrupt ({exc}); "
                "run 'anneal-memory audit-repair'"
            ) from None
        if manifest is not None:
            return manifest
        if self._paths.sealed_on_disk():
            raise AuditError(
                f"the audit manifest {self._paths.manifest.name} is missing while sealed weeks "
                "exist; run 'anneal-memory audit-repair'"
            )
        manifest = self._fresh_manifest(fd, now)
        write_manifest(self._paths.manifest, manifest)
        return manifest

    def _fresh_manifest(self, fd: int, now: _dt.datetime) -> Manifest:
        first = read_first_line(fd)
        if first is None:
            return Manifest(active_file=self._paths.active.name, active_period=period_of(now))
        info = line_info(first)
        return Manifest(
            active_file=self._paths.active.name,
            active_period=period_of_timestamp(info.ts),
            active_first_seq=info.seq,
            active_first_prev_hash=info.prev_hash,
        )

    def _tip_from(self, last: bytes | None, manifest: Manifest) -> tuple[ChainTip, bool]:
        anchor = ChainTip(
            next_seq=manifest.active_first_seq, prev_hash=manifest.active_first_prev_hash
        )
        if last is None:
            return anchor, False
        try:
            info = line_info(last)
        except ValueError:
            return self._tip_past_garbage(manifest), True
        if info.seq < manifest.active_first_seq:
            # A rotation sealed this content and died before emptying the active file.
            self._replace_active_empty()
            return anchor, False
        return ChainTip(next_seq=info.seq + 1, prev_hash=link_hash(last)), True

    def _tip_past_garbage(self, manifest: Manifest) -> ChainTip:
        """Chain onto a last line that does not parse, so appends go on and verify flags it.

        Its ``seq`` is counted from the last line that does parse (or the file's anchor).
        """
        lines, _torn = split_complete(read_all(self._require_fd()))
        _log().warning("audit: the last line of %s is not an entry", self._paths.active.name)
        next_seq = manifest.active_first_seq + len(lines)
        for back, raw in enumerate(reversed(lines)):
            try:
                next_seq = line_info(raw).seq + back + 1
                break
            except ValueError:
                continue
        return ChainTip(next_seq=next_seq, prev_hash=link_hash(lines[-1]))

    def _replace_active_empty(self) -> None:
        atomic_write_bytes(self._paths.active, b"")
        self._open_active()

    def _set_aside_torn(
        self, fd: int, torn: bytes, manifest: Manifest, now: _dt.datetime
    ) -> Manifest:
        active = self._paths.active
        target = self._paths.set_aside_name(active, _stamp(now), "torn")
        atomic_write_bytes(target, torn)
        os.ftruncate(fd, os.fstat(fd).st_size - len(torn))
        os.fsync(fd)
        self._pending_drops += 1
        _log().warning("audit: set aside a torn last line of %s to %s", active.name, target.name)
        updated = manifest.with_set_aside(
            SetAside(
                kind="torn-tail",
                filename=active.name,
                moved_to=target.name,
                reason=f"{len(torn)} bytes without a line end (an append interrupted by a crash)",
                at=format_timestamp(now),
            )
        )
        write_manifest(self._paths.manifest, updated)
        return updated

    # -- rotation ----------------------------------------------------------------------------

    def _rotate(self, state: _State, period: str) -> _State:
        rotated = seal_week(self._paths, read_all(self._require_fd()), state.manifest, period)
        if rotated is None:
            return state
        self._replace_active_empty()
        st = os.fstat(self._require_fd())
        return _State(
            key=(st.st_ino, st.st_size, self._manifest_signature()),
            tip=state.tip,
            has_entries=False,
            manifest=rotated,
            intent=state.intent,
        )


def _line_intent(raw: bytes) -> int | None:
    try:
        return line_info(raw).intent
    except ValueError:
        return None
