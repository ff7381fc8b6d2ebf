"""Every exception anneal-memory raises, in one tree.

Catch :class:`AnnealMemoryError` to handle anything this library raises on purpose.
Errors about bad input also subclass :class:`ValueError`, so code that already
guards against ``ValueError`` keeps working.

::

    AnnealMemoryError
    ├── InvalidInputError (ValueError)
    │   ├── InvalidEpisodeError         content, type, size, encoding, metadata, timestamp
    │   │   └── SecretRefusedError      a secret in a record on a store whose policy is refuse
    │   ├── InvalidQueryError           a recall filter (not the keyword: any keyword is valid)
    │   ├── IdempotencyConflictError    same idempotency key, different episode
    │   ├── ImportFormatError           a file given to import is not an export
    │   ├── InvalidSchemaError          a continuity section schema is malformed
    │   ├── SupersessionError           a supersession link or state key was refused
    │   ├── TrustError                  a trust level above the ceiling, or a raise without operator
    │   ├── InvalidCrystalError         a crystal field (name, level, kind, date, size)
    │   └── InvalidSporeError           a spore field (type, tier, kind, date, size)
    ├── StoreError                      .operation, .path
    │   ├── StoreDatabaseError          SQLite failed; .retryable when it was busy/locked
    │   │   └── StoreVersionError       the schema is newer than this code (.found, .supported)
    │   ├── StoreClosedError            the store was used after close()
    │   ├── EpisodeNotFoundError        no episode with that id (LookupError too)
    │   ├── StoreExistsError            init on a store that already exists
    │   ├── CrystalNotFoundError        no crystal with that name (LookupError too)
    │   ├── SporeNotFoundError          no spore with that id (LookupError too)
    │   ├── RevisionConflictError       compare-and-set on a stale revision (.current)
    │   ├── BackendNotSupportedError    not available on this backend (PostgreSQL) yet
    │   └── UnsafeFileError             a file read is a link, FIFO, folder, too large (.found)
    ├── LockUnavailableError            a cross-process lock was not acquired in time
    ├── WrapError                       the wrap lifecycle
    │   ├── WrapInProgressError         prepare while a wrap is open (.started_at)
    │   ├── NoWrapInProgressError       save/cancel with nothing open
    │   ├── WrapTokenMismatchError      a token that is not the open wrap's
    │   └── ContinuityRejectedError     a save refused (.findings), nothing written
    ├── AuditError                      the hash-chained audit trail
    │   ├── AuditChainBrokenError       verification failed (.seq, .file)
    │   └── AuditRepairRefusedError     repair found nothing it may repair
    ├── GateError                       the single-consolidator gate
    │   ├── BatonHeldError              another session holds the baton (.holder)
    │   └── SaveAuthorityError          this session may not save this wrap
    └── ToolIntegrityError              MCP tool descriptions differ from the shipped manifest
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AnnealMemoryError",
    "AuditChainBrokenError",
    "AuditError",
    "AuditRepairRefusedError",
    "BackendNotSupportedError",
    "BatonHeldError",
    "ContinuityRejectedError",
    "CrystalNotFoundError",
    "EpisodeNotFoundError",
    "ExposureNotFoundError",
    "GateError",
    "IdempotencyConflictError",
    "ImportFormatError",
    "InvalidCrystalError",
    "InvalidEpisodeError",
    "InvalidInputError",
    "InvalidOutcomeError",
    "InvalidProbeError",
    "InvalidQueryError",
    "InvalidSchemaError",
    "InvalidSporeError",
    "LockUnavailableError",
    "NoWrapInProgressError",
    "ProbeNotFoundError",
    "RevisionConflictError",
    "SaveAuthorityError",
    "SecretRefusedError",
    "SporeNotFoundError",
    "StoreClosedError",
    "StoreDatabaseError",
    "StoreError",
    "StoreExistsError",
    "StoreVersionError",
    "SupersessionError",
    "ToolIntegrityError",
    "TrustError",
    "UnsafeFileError",
    "WrapError",
    "WrapInProgressError",
    "WrapTokenMismatchError",
]


class AnnealMemoryError(Exception):
    """Base class of every error anneal-memory raises on purpose."""


class InvalidInputError(AnnealMemoryError, ValueError):
    """An argument was rejected before anything was written."""


class InvalidEpisodeError(InvalidInputError):
    """An episode was rejected: empty, unknown type, too large, bad encoding or metadata."""


class SecretRefusedError(InvalidEpisodeError):
    """A record held a secret and the store's redaction policy is ``refuse``; nothing written.

    The message names the kinds found (``aws-access-key``), never the secret itself.

    Attributes:
        kinds: The kinds of secret (or personal data) found, sorted.
    """

    def __init__(self, message: str, *, kinds: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.kinds = kinds


class InvalidQueryError(InvalidInputError):
    """A recall filter (type, time bound, limit, offset) was rejected."""


class IdempotencyConflictError(InvalidInputError):
    """An idempotency key was reused for a different episode."""


class ImportFormatError(InvalidInputError):
    """A file given to import is not an anneal-memory export."""


class InvalidSchemaError(InvalidInputError):
    """A continuity section schema is malformed."""


class SupersessionError(InvalidInputError):
    """A supersession (``supersedes``, ``supersede``, a state key) was refused; nothing written."""


class TrustError(InvalidInputError):
    """A trust level was refused: unknown, above the store's ceiling, or raised without operator."""


class InvalidCrystalError(InvalidInputError):
    """A crystal was rejected: bad name, level under 2, unknown kind, bad date, too large."""


class InvalidOutcomeError(InvalidInputError):
    """An outcome was rejected: unknown label or result, or an item its exposure did not show."""


class InvalidProbeError(InvalidInputError):
    """A drift probe was rejected: neither or both of pattern and fact, a bad level or text."""


class InvalidSporeError(InvalidInputError):
    """A spore was rejected: unknown type or tier, a kind that does not fit, bad date, too large."""


class StoreError(AnnealMemoryError):
    """An operation on the store failed.

    Attributes:
        operation: The store operation that failed, e.g. ``"record"``.
        path: The database file involved, when known.
    """

    def __init__(self, message: str, *, operation: str = "", path: Path | None = None) -> None:
        super().__init__(message)
        self.operation = operation
        self.path = path


class StoreDatabaseError(StoreError):
    """SQLite reported an error.

    Attributes:
        retryable: True when the database was busy or locked and the call may succeed later.
    """

    def __init__(
        self,
        message: str,
        *,
        operation: str = "",
        path: Path | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message, operation=operation, path=path)
        self.retryable = retryable


class StoreVersionError(StoreDatabaseError):
    """The store's schema version is newer than this anneal-memory knows; nothing was read.

    Every open (read-only or not, SQLite or PostgreSQL) refuses such a store with one message
    naming both versions.

    Attributes:
        found: The store's schema version.
        supported: The newest schema version this anneal-memory knows.
    """

    def __init__(self, where: str, *, found: int, supported: int, path: Path | None = None) -> None:
        super().__init__(
            f"{where} has schema version {found}, newer than this anneal-memory supports "
            f"({supported}); upgrade anneal-memory to open it (nothing was read or written)",
            operation="open",
            path=path,
        )
        self.found = found
        self.supported = supported


class StoreClosedError(StoreError):
    """The store was used after ``close()``."""


class EpisodeNotFoundError(StoreError, LookupError):
    """No episode has the given id (it never existed, or was deleted)."""


class StoreExistsError(StoreError):
    """``init`` was asked to create a store that already exists."""


class CrystalNotFoundError(StoreError, LookupError):
    """No crystal has the given name."""


class ExposureNotFoundError(StoreError, LookupError):
    """No exposure has this id (never recorded, or pruned by the retention)."""


class ProbeNotFoundError(StoreError, LookupError):
    """No live drift probe has this id."""


class SporeNotFoundError(StoreError, LookupError):
    """No spore has the given id."""


class RevisionConflictError(StoreError):
    """A compare-and-set update named a revision that is no longer current.

    Attributes:
        current: The revision the record has now.
    """

    def __init__(self, message: str, *, current: int, operation: str = "") -> None:
        super().__init__(message, operation=operation)
        self.current = current


class BackendNotSupportedError(StoreError, NotImplementedError):
    """The operation exists on SQLite but is not available on this backend (PostgreSQL) yet.

    Attributes:
        backend: The backend's name, e.g. ``"postgresql"``.
    """

    def __init__(self, operation: str, *, backend: str = "postgresql") -> None:
        super().__init__(
            f"{operation} is not supported on PostgreSQL yet; use a SQLite store for it "
            "(see docs/teams.md for what the PostgreSQL backend supports)",
            operation=operation,
        )
        self.backend = backend


class UnsafeFileError(StoreError):
    """A file beside the store, a token file or an import file is not one to read or append.

    Raised for a symbolic link at the path (its target is never opened), a FIFO, a folder, a
    device or socket, or a file larger than the bound for it. Nothing was read or written
    through it.

    Attributes:
        found: What is at the path, e.g. ``"a symbolic link"`` or ``"a FIFO"``.
    """

    def __init__(self, message: str, *, path: Path, found: str, operation: str = "") -> None:
        super().__init__(message, operation=operation, path=path)
        self.found = found


class LockUnavailableError(AnnealMemoryError):
    """A cross-process lock could not be acquired within its timeout."""


class WrapError(AnnealMemoryError):
    """A wrap lifecycle step was refused."""


class WrapInProgressError(WrapError):
    """A wrap is already open: finish it with a save or cancel it first.

    Attributes:
        started_at: When the open wrap was prepared (ISO-8601 UTC).
    """

    def __init__(self, message: str, *, started_at: str = "") -> None:
        super().__init__(message)
        self.started_at = started_at


class NoWrapInProgressError(WrapError, ValueError):
    """A save or cancel found no open wrap."""


class WrapTokenMismatchError(WrapError, ValueError):
    """The wrap token given does not belong to the open wrap."""


class ContinuityRejectedError(WrapError, ValueError):
    """A continuity save was refused; nothing was written and the wrap stays open.

    Attributes:
        findings: The immune-system findings that explain the refusal.
    """

    def __init__(self, message: str, *, findings: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.findings = findings


class AuditError(AnnealMemoryError):
    """The audit trail could not be read, verified or repaired."""


class AuditChainBrokenError(AuditError):
    """The audit chain does not verify.

    Attributes:
        seq: Sequence number of the first bad entry, when known.
        file: Name of the file holding it, when known.
    """

    def __init__(self, message: str, *, seq: int | None = None, file: str | None = None) -> None:
        super().__init__(message)
        self.seq = seq
        self.file = file


class AuditRepairRefusedError(AuditError):
    """Repair found nothing it is allowed to repair."""


class GateError(AnnealMemoryError):
    """The single-consolidator gate refused an action."""


class BatonHeldError(GateError):
    """Another session holds the baton; claim it with ``take=True`` to move it.

    Attributes:
        holder: The session id that holds the baton.
    """

    def __init__(self, message: str, *, holder: str = "") -> None:
        super().__init__(message)
        self.holder = holder


class SaveAuthorityError(GateError, ValueError):
    """This session may not save the open wrap (not its preparer, or not the baton holder)."""


class ToolIntegrityError(AnnealMemoryError):
    """The MCP server's tool descriptions do not match its integrity manifest (or it is missing)."""
