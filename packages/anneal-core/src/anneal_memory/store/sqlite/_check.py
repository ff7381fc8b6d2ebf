"""``Store.check()``: every way a store can be damaged, each named, nothing written.

Checks, in order: SQLite's own ``integrity_check`` (or ``quick_check``), the schema (our
application id, version and core tables and triggers), the full-text index against the
episodes, the audit trail (chain, gaps, entries still staged), the continuity file (readable,
within the hard size bound, the text the last wrap saved), the files beside the database
(each a regular file, not a link, FIFO or folder), orphaned temp files and the staging
folders of killed imports.
"""

from __future__ import annotations

import enum
import hashlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anneal_memory._locks import file_lock
from anneal_memory._scope_files import (
    CONTINUITY_SUFFIX,
    LOCK_SUFFIX,
    continuity_suffix,
    in_flight,
    interrupted_save_files,
)
from anneal_memory._sidefile import read_bytes
from anneal_memory._staging import orphaned_staging
from anneal_memory.errors import LockUnavailableError, UnsafeFileError
from anneal_memory.store.sqlite._identity import StoreKind, identify
from anneal_memory.store.sqlite._open import orphaned_temp_files
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION
from anneal_memory.store.sqlite._sidecars import unsafe_sidecars

__all__ = ["CONTINUITY_CHECK_MAX_BYTES", "CheckProblem", "CheckReport", "Severity", "run_checks"]

CONTINUITY_CHECK_MAX_BYTES = 4 * 1024 * 1024
_TRIGGERS = ("episodes_after_insert", "episodes_after_delete", "episodes_content_immutable")
_MAX_SQLITE_MESSAGES = 20


class Severity(str, enum.Enum):
    """How bad a problem is: an ERROR fails the check, a WARNING is reported only."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckProblem:
    """One thing wrong with the store.

    Attributes:
        code: A stable identifier, e.g. ``sqlite-integrity`` or ``audit-gap``.
        message: What is wrong and what to do, in words.
        severity: ``ERROR`` or ``WARNING``.
    """

    code: str
    message: str
    severity: Severity = Severity.ERROR


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckReport:
    """The outcome of ``Store.check()``.

    Attributes:
        path: The database checked.
        checks: The names of the checks that ran, in order.
        problems: Everything found (errors and warnings).
    """

    path: str
    checks: tuple[str, ...]
    problems: tuple[CheckProblem, ...] = ()

    @property
    def ok(self) -> bool:
        """True when no problem is an error."""
        return not any(p.severity is Severity.ERROR for p in self.problems)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict."""
        return {
            "path": self.path,
            "ok": self.ok,
            "checks": list(self.checks),
            "problems": [
                {"code": p.code, "severity": p.severity.value, "message": p.message}
                for p in self.problems
            ],
        }

    def summary(self) -> str:
        """Lines for people: a verdict, then one line per problem."""
        head = (
            f"Store OK: {self.path} ({len(self.checks)} checks)"
            if self.ok
            else f"Store DAMAGED: {self.path}"
        )
        return "\n".join(
            [head, *(f"- {p.severity.value}: {p.code}: {p.message}" for p in self.problems)]
        )


def _sqlite(conn: sqlite3.Connection, *, full: bool) -> list[CheckProblem]:
    pragma = "integrity_check" if full else "quick_check"
    try:
        rows = conn.execute(f"PRAGMA {pragma}({_MAX_SQLITE_MESSAGES})").fetchall()
    except sqlite3.DatabaseError as exc:
        return [CheckProblem(code="sqlite-unreadable", message=f"SQLite cannot read it: {exc}")]
    found = [
        " ".join(line.split())
        for r in rows
        if str(r[0]) != "ok"
        for line in str(r[0]).split("\n")
        if line.strip() and "*** in database" not in line
    ]
    return [
        CheckProblem(
            code="sqlite-integrity",
            message=f"SQLite {pragma}: {line}; restore a backup or export what still reads",
        )
        for line in found
    ]


def _schema(conn: sqlite3.Connection, path: Path) -> list[CheckProblem]:
    try:
        found = identify(conn, path, schema_version=SCHEMA_VERSION)
        triggers = {
            str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")
        }
    except Exception as exc:
        return [CheckProblem(code="schema-unreadable", message=f"the schema cannot be read: {exc}")]
    problems: list[CheckProblem] = []
    if found.kind not in {StoreKind.OURS, StoreKind.OURS_UNMARKED}:
        missing = ", ".join(found.missing) or "-"
        problems.append(
            CheckProblem(
                code="schema-foreign",
                message=f"not an intact anneal-memory store ({found.kind.value}; missing: "
                f"{missing})",
            )
        )
    if found.user_version > SCHEMA_VERSION:
        problems.append(
            CheckProblem(
                code="schema-newer",
                message=f"schema version {found.user_version}, newer than this anneal-memory "
                f"supports ({SCHEMA_VERSION}); upgrade anneal-memory to open it",
            )
        )
    elif found.user_version != SCHEMA_VERSION:
        problems.append(
            CheckProblem(
                code="schema-version",
                message=f"schema version {found.user_version}, this anneal-memory uses "
                f"{SCHEMA_VERSION}; run 'anneal-memory migrate'",
                severity=Severity.WARNING,
            )
        )
    problems.extend(
        CheckProblem(code="schema-trigger", message=f"the trigger {name} is missing")
        for name in _TRIGGERS
        if name not in triggers
    )
    return problems


def _fts(conn: sqlite3.Connection) -> list[CheckProblem]:
    try:
        unindexed = conn.execute(
            "SELECT count(*) FROM episodes e LEFT JOIN episodes_fts_docsize d ON d.id = e.seq "
            "WHERE d.id IS NULL"
        ).fetchone()[0]
        stale = conn.execute(
            "SELECT count(*) FROM episodes_fts_docsize d LEFT JOIN episodes e ON e.seq = d.id "
            "WHERE e.seq IS NULL"
        ).fetchone()[0]
    except sqlite3.Error as exc:
        return [CheckProblem(code="fts-unreadable", message=f"the search index fails: {exc}")]
    problems = []
    if unindexed:
        problems.append(
            CheckProblem(
                code="fts-missing",
                message=f"{unindexed} episode(s) are missing from the search index",
            )
        )
    if stale:
        problems.append(
            CheckProblem(
                code="fts-stale",
                message=f"the search index holds {stale} entr(ies) of deleted episodes",
            )
        )
    return problems


def _audit(path: Path) -> list[CheckProblem]:
    from anneal_memory.audit._verify import verify_trail

    result = verify_trail(path)
    problems: list[CheckProblem] = []
    if not result.valid:
        problems.append(CheckProblem(code="audit-chain", message=str(result.error)))
    if result.missing_tail:
        problems.append(
            CheckProblem(
                code="audit-tail",
                message=f"the trail's last {result.missing_tail} entr(ies) are missing: the "
                "database recorded them as appended and the trail ends before them (cut from "
                "its end, or an older copy put back); restore the trail from a backup",
            )
        )
    if result.missing_entries:
        problems.append(
            CheckProblem(
                code="audit-gap",
                message=f"{result.missing_entries} audited change(s) have no entry in the trail",
            )
        )
    if result.repeated_entries:
        problems.append(
            CheckProblem(
                code="audit-repeated",
                message=f"{result.repeated_entries} entr(ies) were appended twice",
                severity=Severity.WARNING,
            )
        )
    if result.pending_entries:
        problems.append(
            CheckProblem(
                code="audit-pending",
                message=f"{result.pending_entries} entr(ies) staged, not appended yet (the "
                "next write-capable open appends them)",
                severity=Severity.WARNING,
            )
        )
    return problems


def _continuity(target: Path, conn: sqlite3.Connection) -> list[CheckProblem]:
    try:
        row = conn.execute(
            "SELECT continuity_sha256 FROM wraps WHERE scope = '' AND status = 'completed'"
            " ORDER BY id DESC "
            "LIMIT 1"
        ).fetchone()
    except sqlite3.Error as exc:
        return [CheckProblem(code="continuity-unknown", message=f"wraps unreadable: {exc}")]
    if not os.path.lexists(target):
        missing = CheckProblem(code="continuity-missing", message=f"{target.name} is missing")
        return [] if row is None else [missing]
    problem = _continuity_text(target, None if row is None else row[0])
    return [] if problem is None else [problem]


_SCOPED_SAVES = (
    "SELECT w.scope, w.continuity_sha256 FROM wraps w WHERE w.scope != ''"
    " AND w.status = 'completed' AND w.id = (SELECT max(x.id) FROM wraps x"
    " WHERE x.scope = w.scope AND x.status = 'completed') ORDER BY w.scope"
)


def _scoped_continuities(target: Path, conn: sqlite3.Connection) -> list[CheckProblem]:
    """Each other scope's continuity file against the last wrap of that scope."""
    try:
        rows = conn.execute(_SCOPED_SAVES).fetchall()
    except sqlite3.Error as exc:
        return [CheckProblem(code="continuity-unknown", message=f"wraps unreadable: {exc}")]
    stem = target.name.removesuffix(CONTINUITY_SUFFIX)
    problems: list[CheckProblem] = []
    for scope, sha256 in rows:
        path = target.with_name(stem + continuity_suffix(str(scope)))
        if not os.path.lexists(path):
            problem: CheckProblem | None = CheckProblem(
                code="continuity-missing", message=f"{path.name} is missing"
            )
        else:
            problem = _continuity_text(path, sha256)
        if problem is not None:
            problems.append(problem)
    return problems


def _continuity_text(target: Path, saved_sha256: object) -> CheckProblem | None:
    try:
        raw = read_bytes(target, limit=CONTINUITY_CHECK_MAX_BYTES, what="the continuity file")
        if raw is None:
            return CheckProblem(code="continuity-missing", message=f"{target.name} is missing")
        raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return CheckProblem(code="continuity-unreadable", message=f"{target.name}: {exc}")
    except UnsafeFileError as exc:
        if exc.found.startswith("larger"):
            return CheckProblem(code="continuity-size", message=f"{target.name} is too large")
        return None  # the files check names it
    if saved_sha256 and hashlib.sha256(raw).hexdigest() != str(saved_sha256):
        return CheckProblem(
            code="continuity-changed",
            message=f"{target.name} is not the text the last wrap saved (edited by hand, "
            "or damaged)",
            severity=Severity.WARNING,
        )
    return None


def _interrupted(path: Path) -> list[CheckProblem]:
    """Continuity files a killed save left holding text its transaction never committed."""
    found: list[CheckProblem] = []
    for file in interrupted_save_files(path):
        try:
            with file_lock(file.with_name(file.name + LOCK_SUFFIX), timeout=0.2):
                still = in_flight(file)
        except LockUnavailableError:  # a save is under way right now: not damage
            continue
        except UnsafeFileError:  # the files check names it
            continue
        if still:
            found.append(
                CheckProblem(
                    code="continuity-interrupted",
                    message=f"{file.name} holds the text of a save that was killed after "
                    "writing the file and before its commit: the store never took that text "
                    "and its wrap is still open. The next write-capable open (any write, or "
                    "'anneal-memory migrate') puts back the last committed text",
                )
            )
    return found


def _without_changed(
    problems: list[CheckProblem], interrupted: list[CheckProblem]
) -> list[CheckProblem]:
    """An interrupted save explains its file's difference: no "edited by hand" beside it."""
    names = {p.message.split(" ", 1)[0] for p in interrupted}
    return [
        p
        for p in problems
        if not (p.code == "continuity-changed" and p.message.split(" ", 1)[0] in names)
    ]


def _files(path: Path) -> list[CheckProblem]:
    return [
        CheckProblem(
            code="file-not-regular",
            message=f"{sidecar.name} is {found}, not a regular file: the store neither reads nor "
            "writes through it. Remove it (if it stands for the real file, put that file in "
            "its place)",
        )
        for sidecar, found in unsafe_sidecars(path)
    ]


def _orphans(code: str, found: list[Path], what: str) -> list[CheckProblem]:
    return [
        CheckProblem(
            code=code,
            message=f"orphaned {what} {orphan.name} ({_ORPHANS[code]} removes it)",
            severity=Severity.WARNING,
        )
        for orphan in found
    ]


_ORPHANS = {
    "temp-orphan": "a crash mid-write; the next write-capable open",
    "import-orphan": "an import was killed; the next write-capable open or import",
}


def _temp_files(path: Path) -> list[CheckProblem]:
    return [
        *_orphans("temp-orphan", orphaned_temp_files(path), "temp file"),
        *_orphans("import-orphan", orphaned_staging(path), "import staging folder"),
    ]


def run_checks(
    conn: sqlite3.Connection, path: Path, *, continuity: Path, full: bool = True
) -> CheckReport:
    """Run every check on the store at ``path`` (open on ``conn``); write nothing."""
    interrupted = _interrupted(path)
    continuity_problems = _without_changed(
        [*_continuity(continuity, conn), *_scoped_continuities(continuity, conn)], interrupted
    )
    problems = [
        *_sqlite(conn, full=full),
        *_schema(conn, path),
        *_fts(conn),
        *_audit(path),
        *continuity_problems,
        *interrupted,
        *_files(path),
        *_temp_files(path),
    ]
    return CheckReport(
        path=str(path),
        checks=("sqlite", "schema", "fts", "audit", "continuity", "files", "temp-files"),
        problems=tuple(problems),
    )
