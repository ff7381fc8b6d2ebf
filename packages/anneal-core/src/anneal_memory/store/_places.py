"""Where a store's things live: its file and the files beside it, continuity places.

A mixin of :class:`~anneal_memory.store.Store`. Members that only a store with files beside
its database has (SQLite: ``path``, ``sidecar``, ``audit_trail``, ``check``,
``continuity_file``) raise ``BackendNotSupportedError`` on PostgreSQL, naming the operation.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from anneal_memory._scope_files import continuity_suffix
from anneal_memory.errors import BackendNotSupportedError, InvalidInputError, LockUnavailableError
from anneal_memory.store._validate import validate_scope

if TYPE_CHECKING:
    from anneal_memory.audit._trail import AuditTrail
    from anneal_memory.store._contract import Backend, ContinuityPlace, LocalFiles
    from anneal_memory.store.sqlite._check import CheckReport

__all__ = ["PlacesMixin"]


def _scope(scope: str) -> str:
    return validate_scope(scope, error=InvalidInputError)


class PlacesMixin:
    """The file-and-place members of ``Store`` (``_backend`` is its backend)."""

    if TYPE_CHECKING:
        _backend: Backend
        _read_only: bool

    def _local(self, operation: str) -> LocalFiles:
        local = self._backend.local
        if local is None:
            raise BackendNotSupportedError(operation)
        return local

    @property
    def path(self) -> Path:
        """The database file (SQLite).

        Raises:
            BackendNotSupportedError: On PostgreSQL (no file; use :attr:`url`).
        """
        return self._local("Store.path (a PostgreSQL store has no file; use .url)").path

    @property
    def created_dirs(self) -> tuple[Path, ...]:
        """Folders this ``Store`` created for the database (outermost first); none on a server."""
        local = self._backend.local
        return () if local is None else local.created_dirs

    @property
    def audit_trail(self) -> AuditTrail | None:
        """The audit trail file this store appends to (None when opened with ``audit=False``).

        Raises:
            BackendNotSupportedError: On PostgreSQL, whose trail is rows of the database (use
                ``verify_audit``, ``read_audit`` and ``export_audit``).
        """
        return self._local("Store.audit_trail (use verify_audit / export_audit)").audit_trail

    def sidecar(self, suffix: str) -> Path:
        """Path of a file beside the database, e.g. ``sidecar(".continuity.md")``.

        Raises:
            BackendNotSupportedError: On PostgreSQL (no files beside a database server).
        """
        return self._local(f"sidecar files ({suffix})").sidecar(suffix)

    def check(self, *, full: bool = True) -> CheckReport:
        """Look for damage without writing anything; see ``CheckReport.ok``.

        Runs SQLite's ``integrity_check`` (``quick_check`` with ``full=False``), then checks
        the schema, the search index, the audit trail, the continuity file and orphaned
        temp files. Each problem is named with what to do.

        Raises:
            BackendNotSupportedError: On PostgreSQL (the server checks its own pages).
        """
        return self._local("Store.check").check(full=full)

    def _restore_interrupted_saves(self) -> int:
        """On a write-capable open: undo each continuity write whose save never committed.

        A save killed between replacing its file and its ``COMMIT`` left the file holding
        text the database never took; the last committed text goes back (audited as
        ``continuity_restored``). Returns how many files were put back.
        """
        from anneal_memory._scope_files import interrupted_save_files

        local = self._backend.local
        if local is None or self._read_only:
            return 0
        files = set(interrupted_save_files(local.path))
        if not files:
            return 0  # the common case: the wraps room is not even imported (#25)
        from anneal_memory.store.wraps._place import restore_interrupted

        with self._backend.reading("continuity scopes") as reader:
            rows = reader.conn.execute("SELECT DISTINCT scope FROM wraps").fetchall()
        restored = 0
        for scope in sorted({""} | {str(row[0]) for row in rows}):
            if local.sidecar(continuity_suffix(scope)) not in files:
                continue
            place = self._backend.continuity_place(scope)
            try:
                with place.lock(), self._backend.writing("continuity_restore") as tx:
                    restored += restore_interrupted(tx, place)
            except LockUnavailableError:  # a save holds it: that save, or the next, repairs
                continue
        return restored

    def continuity_place(self, scope: str = "") -> ContinuityPlace:
        """Where wraps keep ``scope``'s continuity text: a file beside SQLite, a row on PostgreSQL.

        For the library's own modules (not a public API); read it with :meth:`load_continuity`.
        Raises ``InvalidInputError`` when ``scope`` is not up to 64 printable characters.
        """
        return self._backend.continuity_place(_scope(scope))

    def load_continuity(self, scope: str = "") -> str | None:
        """The continuity of ``scope`` (``""``: ``<stem>.continuity.md``), None before a save.

        Raises ``InvalidInputError`` when ``scope`` is not up to 64 printable characters.
        """
        return self._backend.load_continuity(_scope(scope))

    def continuity_file(self, scope: str = "") -> Path:
        """The path of ``scope``'s continuity file beside the database.

        Raises ``InvalidInputError`` when ``scope`` is not up to 64 printable characters, and
        ``BackendNotSupportedError`` on a store without files beside it (PostgreSQL).
        """
        return self.sidecar(continuity_suffix(_scope(scope)))
