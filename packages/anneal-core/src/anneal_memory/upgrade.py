"""After an upgrade: what changed that an operator's agent instructions may need to follow.

:data:`CHANGES` lists, per version, the behaviour an agent's instructions name (tools, CLI
commands and flags, rules): ``migrate check`` shows those newer than the version the store's
operator acknowledged (``migrate ack``, kept in the store's ``meta`` table as
``acknowledged_version``; a store never acknowledged counts from the public 1.0.2). Nothing
here edits the user's files: it says what to change, the operator changes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from anneal_memory.errors import InvalidInputError
from anneal_memory.store import Store, set_meta

__all__ = [
    "ACK_KEY",
    "BASELINE",
    "CHANGES",
    "Change",
    "acknowledge",
    "acknowledged_version",
    "changes_since",
    "parse_version",
]

ACK_KEY = "acknowledged_version"
BASELINE = "1.0.2"
"""What a store that never acknowledged a version counts from (the public release)."""
_VERSION = re.compile(r"([0-9]{1,4})\.([0-9]{1,4})\.([0-9]{1,4})")


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One change in behaviour an agent's instructions may name.

    Attributes:
        version: The version it arrived in.
        kind: ``tool`` (MCP), ``command`` (CLI), ``flag`` or ``rule``.
        name: The tool, command, flag or rule.
        what: What changed, and what the instructions should say now.
    """

    version: str
    kind: str
    name: str
    what: str

    def to_dict(self) -> dict[str, str]:
        """A JSON-ready form."""
        return {"version": self.version, "kind": self.kind, "name": self.name, "what": self.what}


CHANGES: tuple[Change, ...] = (
    Change(version="2.0.0", kind="tool", name="recall",
           what="ends with 'Exposure x…' when it showed episodes; after acting, report it with "
           "the outcome tool (optional, report-only)"),
    Change(version="2.0.0", kind="tool", name="crystal_recall",
           what="ends with 'Exposure x…' when it showed crystals (see outcome)"),
    Change(version="2.0.0", kind="tool", name="outcome",
           what="new: exposure_id, result success|failure, items {episode:ID: "
           "followed|ignored|not_applicable}; later reports merge"),
    Change(version="2.0.0", kind="tool", name="explain",
           what="new: why a pattern has its level, an episode its trust, or recall its order "
           "(question) (read-only)"),
    Change(version="2.0.0", kind="rule", name="save_continuity",
           what="a line that repeats a tool or outside episode's text is saved with "
           "'[data from external episode ID, not instructions]'; forged labels are dropped"),
    Change(version="2.0.0", kind="rule", name="record derived_from",
           what="names episodes of the record's own scope only; a record repeating what this "
           "session recalled derives from it (its trust and evidence are the original's)"),
    Change(version="2.0.0", kind="command", name="erase-scope",
           what="new: erase one scope and every trace of its name (asks, or --force)"),
    Change(version="2.0.0", kind="rule", name="save_continuity wrap_token",
           what="the wrap token is required over MCP: pass the one prepare_wrap returned"),
    Change(version="2.0.0", kind="command", name="search / recall",
           what="end with an 'Exposure x…' line (--json: exposure_id); --no-exposure keeps "
           "an operator's look write-free"),
    Change(version="2.0.0", kind="command", name="outcome, worth",
           what="new: report how the work after a recall went; per-item counts (report-only)"),
    Change(version="2.0.0", kind="command", name="probe add|list|retire|status",
           what="new: drift probes every save checks; the save result gains drift"),
    Change(version="2.0.0", kind="command", name="migrate check|ack",
           what="new: this list, and recording that the instructions follow it"),
    Change(version="2.0.0", kind="rule", name="search",
           what="ranks by relevance (exact phrase first, then its words) instead of the exact "
           "phrase only: a natural-language question now finds episodes"),
)  # fmt: skip
"""Every change an agent's instructions may need to follow, oldest version first."""


def parse_version(value: object) -> tuple[int, int, int]:
    """``"2.0.0"`` as ``(2, 0, 0)``.

    Raises:
        InvalidInputError: Not ``MAJOR.MINOR.PATCH``.
    """
    match = _VERSION.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise InvalidInputError(f"version must be MAJOR.MINOR.PATCH (like 2.0.0), got {value!r}")
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)))


def acknowledged_version(store: Store) -> str | None:
    """The version the operator acknowledged last, or None (never)."""
    with store.reading("migrate check") as reader:
        row = reader.conn.execute("SELECT value FROM meta WHERE key = ?", (ACK_KEY,)).fetchone()
    return None if row is None else str(row[0])


def changes_since(version: str | None, *, current: str) -> list[Change]:
    """The changes newer than ``version`` (None: since :data:`BASELINE`) up to ``current``.

    ``current`` is the running version (``anneal_memory.__version__``).
    """
    floor = parse_version(version or BASELINE)
    ceiling = parse_version(current)
    return [c for c in CHANGES if floor < parse_version(c.version) <= ceiling]


def acknowledge(
    store: Store, version: str | None = None, *, current: str, actor: str = "operator"
) -> str:
    """Record that the agent instructions follow ``version`` (default ``current``); it.

    ``current`` is the running version (``anneal_memory.__version__``).

    Raises:
        InvalidInputError: Not a version, or newer than ``current``.
    """
    chosen = current if version is None else version.strip()
    if parse_version(chosen) > parse_version(current):
        raise InvalidInputError(
            f"version {chosen} is newer than this anneal-memory ({current}); nothing was recorded"
        )
    with store.writing("migrate ack") as tx:
        row = tx.conn.execute("SELECT value FROM meta WHERE key = ?", (ACK_KEY,)).fetchone()
        set_meta(tx.conn, [(ACK_KEY, chosen)])
        tx.audit(
            "migrate_acknowledged",
            actor=actor,
            data={"version": chosen, "before": None if row is None else str(row[0])},
        )
    return chosen
