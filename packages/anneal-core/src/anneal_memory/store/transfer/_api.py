"""The export and import half of ``Store``: JSON and markdown dumps, imports of every format."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from anneal_memory.errors import ImportFormatError
from anneal_memory.store._episodes import set_meta
from anneal_memory.types import Trust

if TYPE_CHECKING:
    from anneal_memory._clock import Clock
    from anneal_memory.store._contract import Backend, ContinuityPlace, LocalFiles, Tx
    from anneal_memory.types import ImportReport, ImportResult

__all__ = ["TransferMixin"]


class TransferMixin:
    """Export and import methods ``Store`` inherits (one transaction each)."""

    if TYPE_CHECKING:
        _backend: Backend
        _clock: Clock
        _trust_ceiling: Trust
        project_name: str

        def _now(self) -> str: ...
        def _local(self, operation: str) -> LocalFiles: ...
        def writing(
            self, operation: str, *, durable: bool = True
        ) -> contextlib.AbstractContextManager[Tx]: ...

    def export_json(self, out: IO[str]) -> int:
        """Write every episode and tombstone as one JSON document; return the episode count.

        One consistent snapshot; both backends write the same format, so a store of either
        imports what the other exported.
        """
        return self._backend.export_json(out, exported_at=self._now())

    def import_json(self, document: str | Mapping[str, Any]) -> ImportResult:
        """Import an export (its text or parsed object) in one transaction.

        Episodes keep their ids, provenance, links and scopes; crystals and spores come
        along. Trust above the store's ceiling is written at the ceiling (an import never
        creates more trust than its importer has; ``ImportResult.trust_capped`` counts it).
        An ``agent`` text shaped like an instruction is written at ``external`` trust, as
        ``record`` writes it (``ImportResult.held_as_data`` counts it).
        It takes the store's exclusive write lock.

        Raises:
            ImportFormatError: Not a valid export, or an id clash; nothing was written.
        """
        from anneal_memory.store.transfer._episodes import import_document, parse_export

        parsed = parse_export(document)
        written: list[tuple[ContinuityPlace, str]] = []
        try:
            with contextlib.ExitStack() as locks, self.writing("import") as tx:
                result, restored = import_document(
                    tx.conn, tx.dialect, parsed, clock=self._clock, ceiling=self._trust_ceiling
                )
                set_meta(tx.conn, [("last_write", self._now())])
                data: dict[str, Any] = {
                    "imported": result.imported,
                    "tombstones_added": result.tombstones_added,
                }
                if result.redacted:  # issue 30: episodes redacted per kind, never the secrets
                    data["redacted"] = dict(result.redacted)
                if result.trust_capped:
                    data["trust_capped"] = result.trust_capped
                if result.held_as_data:
                    data["held_as_data"] = result.held_as_data
                if restored.wraps or restored.continuity or restored.policy:
                    data["restored"] = {
                        "wraps": restored.wraps,
                        "patterns": restored.patterns,
                        "associations": restored.associations,
                        "continuity_files": len(restored.continuity),
                        "policy": restored.policy,
                    }
                tx.audit("import", actor="operator", data=data)
                for scope, text in sorted(restored.continuity.items()):  # last: before COMMIT
                    place = self._backend.continuity_place(scope)
                    locks.enter_context(place.lock())
                    if place.read(tx.conn) is not None:  # never over a text already here
                        continue
                    written.append((place, text))
                    place.write(tx.conn, text, now=self._now())
        except BaseException as exc:
            for place, text in written:
                place.undo(None, text)
            if isinstance(exc, UnicodeError):  # a lone surrogate SQLite cannot store
                raise ImportFormatError(
                    f"import file holds text that is not valid Unicode ({exc}); nothing was written"
                ) from None
            raise
        for place, _text in written:
            place.committed()
        return result

    def export_markdown(self, out: IO[str]) -> int:
        """Write a readable dump (continuity, then episodes by day); return the episode count.

        Raises:
            BackendNotSupportedError: On PostgreSQL (use ``export_json``).
        """
        local = self._local("Store.export_markdown")
        return local.export_markdown(out, project_name=self.project_name, exported_at=self._now())

    def import_from(self, path: str | os.PathLike[str], *, dry_run: bool = False) -> ImportReport:
        """Import a file, detecting its format, in one transaction (all or nothing).

        Reads our own export, the public anneal-memory 1.0.2 JSON export, a 1.0.2 database
        with the files beside it (opened read-only, never modified), and the MCP memory
        server's ``memory.json``. Records already here are skipped, so a second run imports
        nothing. Trust above the store's ceiling is written at the ceiling and a continuity's
        pattern levels are capped at their saved levels, as a save caps them (the report's
        ``capped`` counts say how many). ``dry_run`` does all the work, reports it and
        writes nothing.

        Raises:
            ImportFormatError: The file is not importable or clashes with this store; the
                message names the place. Nothing was written.
            BackendNotSupportedError: On PostgreSQL (use ``import_json``).
        """
        local = self._local("Store.import_from")
        return local.import_from(
            Path(path).expanduser().absolute(), dry_run=dry_run, trust_ceiling=self._trust_ceiling
        )
