"""The seam between ``Store`` and its backends, declared once as typed ``Protocol``s.

- :class:`SqlConnection`: what the rooms run their SQL on. Statements use ``?`` placeholders
  and the subset of SQL SQLite and PostgreSQL share; rows come back as tuples. A
  ``sqlite3.Connection`` is one; so is the PostgreSQL backend's connection view.
- :class:`Dialect`: the few statements whose text or effect differs between the engines,
  bound to one connection. Each backend has one; a room that needs one of them gets it from
  its :class:`Reader` or :class:`Tx`, never by asking which engine runs.
- :class:`Reader` / :class:`Tx`: a read, and one unit of work (``store.writing(op)``): the
  connection, its dialect and, for a ``Tx``, ``audit(...)`` staged in the same transaction.
- :class:`Backend`: what ``Store`` delegates to after validating (``store/sqlite``,
  ``store/postgres``; siblings that never import each other). :class:`LocalFiles` is what
  only a store with files beside it has (SQLite): ``Store`` raises
  ``BackendNotSupportedError`` for it on the others.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from anneal_memory.audit._search import TrailPage
    from anneal_memory.audit._trail import AuditTrail
    from anneal_memory.audit._verify import AuditVerifyResult
    from anneal_memory.store.recall._recall import Ranker
    from anneal_memory.store.sqlite._check import CheckReport
    from anneal_memory.types import ImportReport, StoreStatus, Trust

__all__ = [
    "Backend",
    "ContinuityPlace",
    "Cursor",
    "Dialect",
    "LocalFiles",
    "Reader",
    "SqlConnection",
    "Tx",
]


class Cursor(Protocol):
    """The result of one statement."""

    @property
    def rowcount(self) -> int:
        """Rows the statement changed (-1 for a ``SELECT``)."""
        ...

    def fetchone(self) -> Any:
        """The next row (a tuple), or None."""
        ...

    def fetchall(self) -> list[Any]:
        """Every remaining row."""
        ...

    def __iter__(self) -> Iterator[Any]: ...

    def close(self) -> None:
        """Release the cursor."""
        ...


class SqlConnection(Protocol):
    """The connection the rooms run SQL on (``?`` placeholders, the engines' shared SQL)."""

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        """Run one statement with ``?`` placeholders bound to ``parameters``."""
        ...

    def executemany(self, sql: str, seq_of_parameters: Iterable[Sequence[Any]], /) -> Cursor:
        """Run one statement once per parameter row."""
        ...


class Dialect(Protocol):
    """What differs between the engines, bound to one connection (a backend's own methods)."""

    def indexed_by(self, index: str) -> str:
        """An index hint to put after a table name (``" INDEXED BY x"``), or ``""``."""
        ...

    def episode_total(self) -> int:
        """How many live episodes the store holds."""
        ...

    def word_match_count(self, word: str, cap: int) -> int:
        """How many episodes hold ``word`` (stemmed as the full-text index stems), up to ``cap``.

        ``word`` must be letters and digits only: it becomes one literal full-text term.
        """
        ...

    def inserted_id(self, sql: str, params: Sequence[object], column: str) -> int:
        """Run one ``INSERT`` and return the new row's integer key ``column``."""
        ...

    def content_bytes(self) -> tuple[int, int]:
        """UTF-8 bytes of every live episode's text together, and of the longest one."""
        ...

    def keep_identity_ahead(self, table: str, column: str) -> None:
        """After inserts with explicit keys: the next generated key is above them all."""
        ...

    def insert_episode_row(self, values: Sequence[object]) -> bool:
        """Insert one episode row (``_episodes`` column order); False when its id is taken.

        Taken means a live or a deleted (tombstoned) episode has it, or, on a backend whose
        records run side by side, a concurrent writer just used the idempotency key.
        """
        ...

    def prune_before(self, cutoff: str, now: str) -> int:
        """Delete every episode stamped before ``cutoff``, leaving tombstones; the count."""
        ...

    def episodes_deleted(self) -> None:
        """Inside the deleting transaction: tidy what the engine keeps of deleted rows."""
        ...

    def after_bulk_write(self, rows: int) -> None:
        """After an import wrote ``rows`` episodes: let the planner know."""
        ...

    def data_version(self) -> object:
        """Inside a transaction: a token that changes when another connection commits.

        Equal to an earlier token of this connection only while no other connection has
        committed since, so values read then are still current. An engine that cannot tell
        returns a new token on every call.
        """
        ...


class Reader(Protocol):
    """Reads inside ``store.reading(operation)``."""

    @property
    def conn(self) -> SqlConnection:
        """The connection to run reads on."""
        ...

    @property
    def dialect(self) -> Dialect:
        """The engine's own statements on :attr:`conn`."""
        ...

    @property
    def operation(self) -> str:
        """What the reads are for (in error messages)."""
        ...

    def episode_total(self) -> int:
        """How many live episodes the store holds."""
        ...

    def word_match_count(self, word: str, cap: int) -> int:
        """How many episodes hold ``word``, up to ``cap`` (see :class:`Dialect`)."""
        ...


class Tx(Reader, Protocol):
    """One unit of work inside ``store.writing(operation)``."""

    def inserted_id(self, sql: str, params: Sequence[object], column: str) -> int:
        """Run one ``INSERT`` and return the new row's integer key ``column``."""
        ...

    def audit(self, event: str, *, actor: str, data: Mapping[str, Any]) -> None:
        """Stage one audit entry: appended when this transaction commits, never otherwise."""
        ...


class ContinuityPlace(Protocol):
    """Where wraps keep one scope's continuity text: a file beside SQLite, a row on PostgreSQL."""

    @property
    def label(self) -> Path | str:
        """What to show as where the text went (the file, or the database and table)."""
        ...  # pragma: no cover - protocol

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """Held around a save (a file lock, or nothing where the transaction suffices)."""
        ...  # pragma: no cover - protocol

    def read(self, conn: SqlConnection) -> str | None:
        """The current text, or None before the first save."""
        ...  # pragma: no cover - protocol

    def write(self, conn: SqlConnection, text: str, *, now: str) -> None:
        """Replace the text, inside ``conn``'s open write transaction.

        Raises:
            OSError: The file could not be written (the caller rolls back).
        """
        ...  # pragma: no cover - protocol

    def undo(self, previous: str | None, written: str) -> None:
        """After a failed commit: put back what :meth:`write` replaced, if it outlived it."""
        ...  # pragma: no cover - protocol

    def committed(self) -> None:
        """After the save's commit: drop what :meth:`write` kept to undo it."""
        ...  # pragma: no cover - protocol

    def erase(self, conn: SqlConnection) -> None:
        """Inside a write transaction: remove the text where it is a row (``erase_scope``)."""
        ...  # pragma: no cover - protocol

    def erased(self) -> None:
        """After that transaction committed: remove the text where it is a file."""
        ...  # pragma: no cover - protocol

    def recover(self, conn: SqlConnection) -> dict[str, Any] | None:
        """Undo a write whose save was killed before its commit; what was done (or None).

        Runs inside a write transaction, holding :meth:`lock`.
        """
        ...  # pragma: no cover - protocol


class LocalFiles(Protocol):
    """What only a store with files beside its database has (SQLite)."""

    @property
    def path(self) -> Path:
        """The database file."""
        ...

    @property
    def created_dirs(self) -> tuple[Path, ...]:
        """Folders this open created for the database (outermost first)."""
        ...

    @property
    def audit_trail(self) -> AuditTrail | None:
        """The trail file's writer (None without an audit trail)."""
        ...

    def sidecar(self, suffix: str) -> Path:
        """Path of a file beside the database."""
        ...

    def check(self, *, full: bool) -> CheckReport:
        """Look for damage without writing anything."""
        ...

    def export_markdown(self, out: IO[str], *, project_name: str, exported_at: str) -> int:
        """Write a readable dump; the episode count."""
        ...

    def import_from(self, source: Path, *, dry_run: bool, trust_ceiling: Trust) -> ImportReport:
        """Import a file of any known format in one transaction (trust at most the ceiling)."""
        ...


class Backend(Protocol):
    """One engine behind ``Store``: transactions, the audit chain and engine-only reads."""

    @property
    def location(self) -> str:
        """What ``--db`` names: the file, or the URL without its password."""
        ...

    @property
    def url(self) -> str | None:
        """The connection URL without its password; None for a file."""
        ...

    @property
    def created(self) -> bool:
        """True when this open created the store."""
        ...

    @property
    def local(self) -> LocalFiles | None:
        """The files beside the database, or None (a database server)."""
        ...

    def writing(
        self, operation: str, *, durable: bool = True, shared: bool = False
    ) -> contextlib.AbstractContextManager[Tx]:
        """One write transaction; audit staged in it is appended after it commits.

        ``shared`` marks a write that only adds or removes episodes (record, delete, prune):
        a backend may run those side by side.
        """
        ...

    def reading(self, operation: str) -> contextlib.AbstractContextManager[Reader]:
        """Reads on the shared connection (this process's threads one at a time)."""
        ...

    def recalling(
        self, operation: str
    ) -> contextlib.AbstractContextManager[tuple[Reader, Ranker[Any]]]:
        """One consistent snapshot for a recall, and this engine's ranker on it."""
        ...

    def after_erase(self) -> None:
        """After a committed delete or prune: let deleted text leave the engine's logs."""
        ...

    def status(self) -> StoreStatus:
        """Counts, sizes and the last write."""
        ...

    def export_json(self, out: IO[str], *, exported_at: str) -> int:
        """Write the export document; the episode count."""
        ...

    def continuity_place(self, scope: str) -> ContinuityPlace:
        """Where wraps keep ``scope``'s continuity text (``scope`` already checked)."""
        ...

    def load_continuity(self, scope: str) -> str | None:
        """``scope``'s continuity text, None before a save (``scope`` already checked)."""
        ...

    def verify_audit(self) -> AuditVerifyResult:
        """Verify the audit chain."""
        ...

    def read_audit(
        self, *, since: str | None, event: str | None, limit: int | None
    ) -> list[dict[str, Any]]:
        """The newest ``limit`` entries matching the filters, oldest first."""
        ...

    def audit_page(
        self,
        *,
        limit: int,
        offset: int,
        event: str | None,
        needles: Sequence[bytes],
        since: str | None,
    ) -> TrailPage:
        """Entries newest first, filtered on their canonical lines (see ``Store.audit_page``)."""
        ...

    def export_audit(self, out: IO[str]) -> int:
        """Write the trail as JSONL; the line count."""
        ...

    def close(self) -> None:
        """Release connections and files. Safe to call twice."""
        ...
