"""Repair: rebuild a corrupt or missing manifest, set aside a corrupt sealed week.

Repair never rewrites entries. What it moves out of the chain stays on disk and is listed in
the manifest's ``set_aside``, so ``verify`` keeps reporting it. When nothing needs repair it
refuses, so an operator never "repairs" evidence of tampering in the active file away.
"""

from __future__ import annotations

import datetime as _dt
import errno
import gzip
import hashlib
import os
import zlib
from dataclasses import dataclass
from typing import Any

from anneal_memory._clock import Clock, SystemClock, format_timestamp
from anneal_memory._locks import file_lock
from anneal_memory.audit._chain import (
    GENESIS_HASH,
    ChainTip,
    line_info,
    period_of,
    split_complete,
)
from anneal_memory.audit._files import (
    ACTIVE_MAX_BYTES,
    SEALED_MAX_BYTES,
    AuditPaths,
    Manifest,
    SealedFile,
    SetAside,
    load_manifest,
    read_trail_file,
    write_manifest,
)
from anneal_memory.audit._walk import ChainBreakError, Walk, walk_lines
from anneal_memory.errors import AuditRepairRefusedError, UnsafeFileError

__all__ = ["AuditRepairResult", "repair_trail"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditRepairResult:
    """What a repair did.

    Attributes:
        repaired: Always True (a repair that does nothing raises instead).
        actions: One line per step taken, in order.
        manifest_rebuilt: The manifest was rebuilt from the files on disk.
        quarantined: Where the corrupt manifest was moved, if it was.
        set_aside: Sealed weeks set aside in this repair.
        files: Sealed weeks the manifest lists afterwards.
    """

    repaired: bool
    actions: tuple[str, ...]
    manifest_rebuilt: bool
    quarantined: str | None
    set_aside: tuple[str, ...]
    files: int

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "repaired": self.repaired,
            "actions": list(self.actions),
            "manifest_rebuilt": self.manifest_rebuilt,
            "quarantined": self.quarantined,
            "set_aside": list(self.set_aside),
            "files": self.files,
        }


class _Unusable(Exception):  # noqa: N818 - internal signal, never escapes
    def __init__(self, reason: str, *, unreadable: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unreadable = unreadable


def _load_sealed_lines(
    paths: AuditPaths, filename: str, sha256: str | None
) -> tuple[list[bytes], str]:
    """The complete lines of a sealed week and the file's SHA-256."""
    try:
        raw = read_trail_file(paths.beside(filename), limit=SEALED_MAX_BYTES)
        if raw is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory")
    except OSError as exc:
        raise _Unusable(f"unreadable: {exc.strerror or exc}", unreadable=True) from None
    except UnsafeFileError as exc:
        raise _Unusable(f"{exc.found}, not a regular file", unreadable=True) from None
    digest = hashlib.sha256(raw).hexdigest()
    if sha256 is not None and digest != sha256:
        raise _Unusable("its sha256 does not match the manifest", unreadable=False)
    try:
        lines, torn = split_complete(gzip.decompress(raw))
    except (OSError, EOFError, zlib.error) as exc:
        raise _Unusable(f"not valid gzip ({exc})", unreadable=False) from None
    if torn or not lines:
        raise _Unusable("no complete entries", unreadable=False)
    return lines, digest


@dataclass(slots=True)
class _Plan:
    actions: list[str]
    set_aside: list[str]
    stamp: str
    now: str


def _first_active_anchor(paths: AuditPaths) -> ChainTip | None:
    try:
        data = read_trail_file(paths.active, limit=ACTIVE_MAX_BYTES)
    except UnsafeFileError as exc:
        raise AuditRepairRefusedError(
            f"Audit repair refused: {exc}; repair never reads through it"
        ) from None
    if data is None:
        return None
    lines, _torn = split_complete(data)
    if not lines:
        return None
    info = line_info(lines[0])
    return ChainTip(next_seq=info.seq, prev_hash=info.prev_hash)


def _bridge(
    name: str, period: str, tip: ChainTip, after: ChainTip | None, reason: str
) -> SealedFile:
    """A set-aside week: the chain continues from ``tip`` to whatever follows it."""
    end = after or tip
    return SealedFile(
        filename=name,
        period=period,
        entries=0,
        first_seq=tip.next_seq,
        last_seq=end.next_seq - 1,
        first_ts="",
        last_ts="",
        first_prev_hash=tip.prev_hash,
        last_hash=end.prev_hash,
        sha256="",
        set_aside=reason,
    )


def _rebuild(
    paths: AuditPaths, plan: _Plan, set_aside_unreadable: bool, now: _dt.datetime
) -> Manifest:
    sealed_paths = paths.sealed_on_disk()
    readable: list[tuple[str, str, list[bytes] | None, str]] = []
    for path in sealed_paths:
        period = path.name.rsplit(".", 3)[-3]
        try:
            found, sha = _load_sealed_lines(paths, path.name, None)
            readable.append((path.name, period, found, sha))
        except _Unusable as bad:
            if bad.unreadable and not set_aside_unreadable:
                raise AuditRepairRefusedError(
                    f"Audit repair refused: sealed week {path.name} is {bad.reason}; fix it "
                    "(its permissions, or what is at its name), or pass --set-aside-unreadable "
                    "to set it aside"
                ) from None
            readable.append((path.name, period, None, bad.reason))
    files: list[SealedFile] = []
    tip = ChainTip(next_seq=0, prev_hash=GENESIS_HASH)
    for index, (name, period, maybe_lines, sha_or_reason) in enumerate(readable):
        if maybe_lines is None:
            after = _next_anchor(readable, index, paths)
            files.append(_bridge(name, period, tip, after, sha_or_reason))
            plan.set_aside.append(name)
            plan.actions.append(f"set aside sealed week {name}: {sha_or_reason}")
        else:
            files.append(SealedFile.describe(name, period, maybe_lines, sha_or_reason))
        tip = ChainTip(next_seq=files[-1].last_seq + 1, prev_hash=files[-1].last_hash)
    active = _first_active_anchor(paths)
    last_period = files[-1].period if files else period_of(now)
    return Manifest(
        active_file=paths.active.name,
        active_period=max(last_period, period_of(now)) if active is None else last_period,
        active_first_seq=tip.next_seq,
        active_first_prev_hash=tip.prev_hash,
        files=tuple(files),
    )


def _next_anchor(
    readable: list[tuple[str, str, list[bytes] | None, str]], index: int, paths: AuditPaths
) -> ChainTip | None:
    for _name, _period, lines, _ in readable[index + 1 :]:
        if lines is not None:
            info = line_info(lines[0])
            return ChainTip(next_seq=info.seq, prev_hash=info.prev_hash)
    return _first_active_anchor(paths)


def _check_sealed(
    paths: AuditPaths, manifest: Manifest, plan: _Plan, set_aside_unreadable: bool
) -> Manifest:
    files = list(manifest.files)
    for index, sealed in enumerate(files):
        if sealed.set_aside is not None:
            continue
        try:
            lines, _sha = _load_sealed_lines(paths, sealed.filename, sealed.sha256)
            start = ChainTip(next_seq=sealed.first_seq, prev_hash=sealed.first_prev_hash)
            walk_lines(lines, start, sealed.filename, Walk())
        except ChainBreakError as broken:
            reason = broken.error
        except _Unusable as bad:
            if bad.unreadable and not set_aside_unreadable:
                raise AuditRepairRefusedError(
                    f"Audit repair refused: sealed week {sealed.filename} is {bad.reason}; fix "
                    "it (its permissions, or what is at its name), or pass "
                    "--set-aside-unreadable to set it aside"
                ) from None
            reason = bad.reason
        else:
            continue
        files[index] = sealed._replace(set_aside=reason)
        plan.set_aside.append(sealed.filename)
        plan.actions.append(f"set aside sealed week {sealed.filename}: {reason}")
    return manifest._replace(files=tuple(files))


def _stamp(moment: _dt.datetime) -> str:
    return moment.astimezone(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def repair_trail(
    db_path: str | os.PathLike[str],
    *,
    set_aside_unreadable: bool = False,
    clock: Clock | None = None,
) -> AuditRepairResult:
    """Repair the audit trail's manifest and sealed weeks (never the entries themselves).

    Raises:
        AuditRepairRefusedError: Nothing needs repair, or a week is unreadable and
            ``set_aside_unreadable`` is False.
    """
    paths = AuditPaths.for_db(db_path)
    now = (clock or SystemClock()).now()
    plan = _Plan(actions=[], set_aside=[], stamp=_stamp(now), now=format_timestamp(now))
    with file_lock(paths.append_lock):
        manifest, quarantined = _manifest_or_rebuild(paths, plan, set_aside_unreadable, now)
        rebuilt = quarantined is not None or bool(plan.actions)
        manifest = _check_sealed(paths, manifest, plan, set_aside_unreadable)
        if not plan.actions:
            raise AuditRepairRefusedError(
                "Audit repair refused: The manifest is valid; there is nothing to repair."
            )
        for name in plan.set_aside:
            manifest = manifest.with_set_aside(
                SetAside(
                    kind="sealed-week",
                    filename=name,
                    moved_to=name,
                    reason="set aside by audit-repair (kept on disk, not walked)",
                    at=plan.now,
                )
            )
        write_manifest(paths.manifest, manifest)
    return AuditRepairResult(
        repaired=True,
        actions=tuple(plan.actions),
        manifest_rebuilt=rebuilt,
        quarantined=quarantined,
        set_aside=tuple(plan.set_aside),
        files=len(manifest.files),
    )


def _manifest_or_rebuild(
    paths: AuditPaths, plan: _Plan, set_aside_unreadable: bool, now: _dt.datetime
) -> tuple[Manifest, str | None]:
    try:
        manifest = load_manifest(paths.manifest)
    except (OSError, ValueError, UnsafeFileError) as exc:
        target = paths.set_aside_name(paths.manifest, plan.stamp, "corrupt")
        os.replace(paths.manifest, target)
        plan.actions.append(f"quarantined the corrupt manifest ({exc}) as {target.name}")
        rebuilt = _rebuild(paths, plan, set_aside_unreadable, now)
        plan.actions.append(f"rebuilt the manifest from {len(rebuilt.files)} sealed week(s)")
        return rebuilt, target.name
    if manifest is not None:
        return manifest, None
    if not paths.sealed_on_disk():
        raise AuditRepairRefusedError(
            "Audit repair refused: there is no manifest and no sealed week; the trail "
            "creates its manifest on the next append, so there is nothing to repair."
        )
    rebuilt = _rebuild(paths, plan, set_aside_unreadable, now)
    plan.actions.append(f"rebuilt the missing manifest from {len(rebuilt.files)} sealed week(s)")
    return rebuilt, None
