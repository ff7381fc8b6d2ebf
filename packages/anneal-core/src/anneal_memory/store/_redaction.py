"""A store's redaction settings in ``meta``, and the redaction step of record and import.

Two ``meta`` keys hold the settings: ``redaction_policy`` (``redact``, ``refuse`` or ``off``;
absent means ``redact``) and ``redaction_personal`` (``1`` turns the personal-data rules
on). ``Store.record`` calls :func:`redact_episode` once, after validation and before its
transaction, so a secret never reaches the row, the full-text index, the audit trail or the
write-ahead log. An import applies the importing store's settings to each episode inside its
own transaction (:func:`redact_imported`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from anneal_memory.errors import ImportFormatError, InvalidEpisodeError, InvalidInputError
from anneal_memory.redaction._policy import (
    CleanedFields,
    RedactionPolicy,
    RedactionSettings,
    clean_fields,
)
from anneal_memory.store._validate import MAX_CONTENT_BYTES, MAX_METADATA_BYTES, EpisodeInput

if TYPE_CHECKING:
    import contextlib

    from anneal_memory.store._contract import Reader, SqlConnection, Tx

__all__ = [
    "PERSONAL_KEY",
    "POLICY_KEY",
    "Redacted",
    "RedactionOption",
    "Redactor",
    "SettingsCache",
    "audit_note",
    "count_kinds",
    "open_option",
    "read_settings",
    "redact_episode",
    "redact_imported",
    "redact_in",
    "redact_parsed",
    "write_settings",
]

POLICY_KEY = "redaction_policy"
PERSONAL_KEY = "redaction_personal"

RedactionOption = RedactionSettings | RedactionPolicy | str | None
"""What ``Store(..., redaction=...)`` takes: a policy name, a policy, full settings or None."""


def read_settings(conn: SqlConnection) -> RedactionSettings:
    """The settings stored in ``meta`` (the defaults when none are).

    A value this version does not know reads as ``redact``: never weaker than the default.
    """
    rows = dict(
        conn.execute(
            "SELECT key, value FROM meta WHERE key IN (?, ?)", (POLICY_KEY, PERSONAL_KEY)
        ).fetchall()
    )
    known = {p.value for p in RedactionPolicy}
    stored = str(rows.get(POLICY_KEY, RedactionPolicy.REDACT.value))
    policy = RedactionPolicy(stored) if stored in known else RedactionPolicy.REDACT
    return RedactionSettings(policy=policy, personal=str(rows.get(PERSONAL_KEY, "0")) == "1")


def write_settings(conn: SqlConnection, settings: RedactionSettings) -> None:
    """Store ``settings`` inside the caller's write transaction."""
    for key, value in (
        (POLICY_KEY, settings.policy.value),
        (PERSONAL_KEY, "1" if settings.personal else "0"),
    ):
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def open_option(value: RedactionOption, *, read_only: bool) -> RedactionSettings | None:
    """Check ``Store(..., redaction=value)`` before the store is opened.

    Returns what to apply once it is open: settings for a ``RedactionSettings``; a policy
    alone keeps the stored personal-data setting (``personal`` None, see ``set_redaction``).

    Raises:
        InvalidInputError: An unknown policy, or a redaction option on a read-only open.
    """
    if value is None:
        return None
    if read_only:
        raise InvalidInputError(
            "redaction changes the store; open it without read_only=True to set it"
        )
    if isinstance(value, RedactionSettings):
        return value
    return _PolicyOnly(policy=RedactionPolicy.parse(value))


class _PolicyOnly(RedactionSettings):
    """A policy given alone: the stored personal-data setting stays.

    A plain subclass: it inherits the dataclass's fields, ``__init__``, frozen ``__setattr__``,
    ``__eq__`` (same class only) and ``__repr__`` without building them again at import.
    """

    __slots__ = ()


def audit_note(kinds: tuple[str, ...]) -> dict[str, list[str]]:
    """The record audit entry's ``redacted`` field: the kinds replaced, never the secret."""
    return {"redacted": list(kinds)} if kinds else {}


class SettingsCache:
    """A store's redaction settings as last read, and when (issue #25: no read per record).

    A record redacts with :attr:`settings` before its transaction, then :meth:`current`
    checks them inside it: unchanged unless another connection has committed since they
    were read (``Dialect.data_version``) or this store changed them (:meth:`forget`).
    """

    __slots__ = ("_version", "settings")

    def __init__(self) -> None:
        self.settings: RedactionSettings | None = None
        self._version: object = None

    def current(self, tx: Tx) -> RedactionSettings:
        """The settings committed as of ``tx``'s snapshot, read again only when they may differ."""
        version = tx.dialect.data_version()
        if self.settings is None or version != self._version:
            self.settings = read_settings(tx.conn)
            self._version = version
        return self.settings

    def forget(self) -> None:
        """This store is changing the settings: the next record reads them again."""
        self.settings = None


class Redactor:
    """``Store.redaction_settings()`` and ``Store.set_redaction()``, on both backends."""

    if TYPE_CHECKING:
        _redaction_cache: SettingsCache

        def reading(self, operation: str) -> contextlib.AbstractContextManager[Reader]: ...
        def writing(
            self, operation: str, *, durable: bool = True
        ) -> contextlib.AbstractContextManager[Tx]: ...

    def redaction_settings(self) -> RedactionSettings:
        """This store's redaction settings (see ``docs/trust.md``)."""
        with self.reading("redaction settings") as reader:
            return read_settings(reader.conn)

    def set_redaction(
        self,
        policy: RedactionPolicy | str | None = None,
        *,
        personal: bool | None = None,
        actor: str = "operator",
    ) -> RedactionSettings:
        """Change what the store does with secrets in records; return the previous settings.

        ``policy`` is ``redact``, ``refuse`` or ``off`` (None keeps it); ``personal`` turns
        the e-mail, phone and card-number rules on or off (None keeps it). A change is
        logged to the audit trail as ``redaction_policy_set``. It applies to records and
        imports from now on; episodes already stored are not rewritten.

        Raises:
            InvalidInputError: ``policy`` is not a known policy.
        """
        wanted = None if policy is None else RedactionPolicy.parse(policy)
        with self.writing("set redaction") as tx:
            was = read_settings(tx.conn)
            new = RedactionSettings(
                policy=was.policy if wanted is None else wanted,
                personal=was.personal if personal is None else bool(personal),
            )
            if new != was:
                self._redaction_cache.forget()  # inside the transaction: no record between
                write_settings(tx.conn, new)
                data = {**new.to_dict(), "was": was.to_dict()}
                tx.audit("redaction_policy_set", actor=actor, data=data)
        return was

    def _open_redaction(self, wanted: RedactionSettings | None) -> None:
        """Apply what :func:`open_option` returned, once the store is open."""
        if wanted is not None:
            personal = None if isinstance(wanted, _PolicyOnly) else wanted.personal
            self.set_redaction(wanted.policy, personal=personal)


def _within_limits(cleaned: CleanedFields) -> None:
    """A marker is longer than some secrets: the redacted episode must still fit."""
    for what, text, limit in (
        ("content", cleaned.content, MAX_CONTENT_BYTES),
        ("metadata", cleaned.metadata_json or "", MAX_METADATA_BYTES),
    ):
        size = len(text.encode("utf-8"))
        if size > limit:
            raise InvalidEpisodeError(
                f"{what} is {size:,} bytes once its secrets are replaced by markers, over the "
                f"{limit:,}-byte limit; record less text. Nothing was written."
            )


def _cleaned(item: EpisodeInput, settings: RedactionSettings) -> EpisodeInput:
    cleaned = clean_fields(item.content, item.metadata_json, settings)
    if not cleaned.kinds:
        return item
    _within_limits(cleaned)
    return item._replace(
        content=cleaned.content,
        metadata_json=cleaned.metadata_json,
        redacted=cleaned.kinds,
    )


Redacted = tuple[EpisodeInput | None, RedactionSettings | None]
"""What :func:`redact_episode` hands to :func:`redact_in`: the item and the settings used."""


def redact_episode(store: Redactor, item: EpisodeInput) -> Redacted:
    """The record step before its transaction: ``item`` under the store's settings.

    Returns the redacted item (its ``redacted`` kinds set) and the settings used. With the
    store's cached settings (:func:`redact_in` checks them in the transaction) a refusal
    is not final: the item comes back as None, to be judged again there under the
    settings then current.

    Raises:
        SecretRefusedError: The policy, just read, is ``refuse`` and the episode holds a
            secret.
        InvalidEpisodeError: The redacted episode no longer fits the size limits.
    """
    cached = store._redaction_cache.settings
    if cached is None:
        settings = store.redaction_settings()
        return _redacted(item, settings), settings
    try:
        return _redacted(item, cached), cached
    except InvalidEpisodeError:  # SecretRefusedError included: decided in the transaction
        return None, None


def redact_in(tx: Tx, cache: SettingsCache, raw: EpisodeInput, done: Redacted) -> EpisodeInput:
    """The record step inside its transaction: ``done`` when its settings are still current.

    Otherwise ``raw`` (the validated item) is redacted again under the settings committed
    as of ``tx``; so a policy another process set just before this write applies to it.

    Raises:
        SecretRefusedError: See :func:`redact_episode` (the transaction then rolls back).
        InvalidEpisodeError: See :func:`redact_episode`.
    """
    item, used = done
    current = cache.current(tx)
    return item if item is not None and current == used else _redacted(raw, current)


def _redacted(item: EpisodeInput, settings: RedactionSettings) -> EpisodeInput:
    if settings.policy is RedactionPolicy.OFF:
        return item
    return _cleaned(item, settings)


def redact_imported(settings: RedactionSettings, item: EpisodeInput, place: str) -> EpisodeInput:
    """One imported episode under the importing store's ``settings`` (``place`` names it).

    Raises:
        ImportFormatError: The policy is ``refuse`` and the episode holds a secret (the
            message names ``place`` and the kinds), or the redacted episode is too large.
    """
    if settings.policy is RedactionPolicy.OFF:
        return item
    try:
        return _cleaned(item, settings)
    except InvalidEpisodeError as exc:  # SecretRefusedError included
        raise ImportFormatError(f"{place}: {exc}") from None


def redact_parsed(
    conn: SqlConnection, parsed: list[tuple[str, EpisodeInput]]
) -> list[tuple[str, EpisodeInput]]:
    """An export's parsed ``(id, episode)`` pairs under the store's settings.

    Run inside the import's transaction.

    Raises:
        ImportFormatError: See :func:`redact_imported`.
    """
    settings = read_settings(conn)
    return [
        (ident, redact_imported(settings, item, f"episode #{index} ({ident})"))
        for index, (ident, item) in enumerate(parsed)
    ]


def count_kinds(items: Iterable[EpisodeInput]) -> dict[str, int]:
    """How many of ``items`` had each kind redacted."""
    counts: dict[str, int] = {}
    for item in items:
        for kind in item.redacted:
            counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))
