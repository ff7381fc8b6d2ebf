"""1.0.2 crystal and spore entries, turned into the shape of our own export's entries.

The 1.0.2 crystal file keeps ``retirement`` as an object, ``source`` and ``pointer`` may be
null, and spore notes are ``"[YYYY-MM-DD] text"`` strings; our export keeps retirement in
four fields, text where 1.0.2 has null and notes as ``{on, text}``. Entries are then written
by the same code as our export's (``_transfer_memory``), with its checks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from anneal_memory.errors import ImportFormatError

__all__ = ["crystal_item", "spore_item"]

_NOTE = re.compile(r"\[([0-9]{4}-[0-9]{2}-[0-9]{2})\] ?(.*)", re.DOTALL)


def _midnight(day: object) -> str:
    return f"{day}T00:00:00Z"


def crystal_item(entry: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A 1.0.2 crystal (or retired crystal) as our export's crystal entry."""
    retirement = entry.get("retirement")
    if retirement is not None and not isinstance(retirement, Mapping):
        raise ImportFormatError(f"{where} has an invalid 'retirement': expected an object")
    retired = retirement or {}
    evidence = entry.get("evidence") or []
    if not isinstance(evidence, list) or not all(isinstance(i, str) for i in evidence):
        raise ImportFormatError(f"{where} has an invalid 'evidence': expected a list of ids")
    return {
        "name": entry.get("name"),
        "level": entry.get("level"),
        "explanation": entry.get("explanation"),
        "permanence": entry.get("permanence") or "timeless",
        "activation_mode": entry.get("activation_mode") or "just-in-time",
        "tags": entry.get("tags") or [],
        "crystallized_on": entry.get("crystallized_on"),
        "last_activated_on": entry.get("last_activated_on") or entry.get("crystallized_on"),
        "source": str(entry.get("source") or ""),
        "notes": [str(n) for n in entry.get("notes") or []],
        "revision": 1,
        "updated_at": str(retired.get("at") or _midnight(entry.get("crystallized_on"))),
        "retired_kind": retired.get("kind"),
        "retired_reason": retired.get("reason"),
        "retired_on": retired.get("on"),
        "retired_at": retired.get("at"),
        "evidence": evidence,
    }


def _note(note: object, created: object) -> dict[str, str]:
    text = str(note)
    found = _NOTE.fullmatch(text)
    if found is None:
        return {"on": str(created), "text": text}
    return {"on": found.group(1), "text": found.group(2)}


def _resolution(value: object, where: str) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ImportFormatError(f"{where} has an invalid 'resolution': expected an object")
    keys = ("direction", "kind", "ref", "on", "at")
    return {k: "" if value.get(k) is None else str(value.get(k)) for k in keys}


def spore_item(entry: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A 1.0.2 open or resolved spore as our export's spore entry."""
    notes = entry.get("notes") or []
    if not isinstance(notes, list):
        raise ImportFormatError(f"{where} has an invalid 'notes': expected a list")
    created = entry.get("created")
    return {
        "id": entry.get("id"),
        "type": entry.get("type"),
        "text": entry.get("text"),
        "domain": str(entry.get("domain") or ""),
        "tier": entry.get("tier"),
        "salience": entry.get("salience"),
        "seen": entry.get("seen"),
        "next": entry.get("next"),
        "created": created,
        "created_at": _midnight(created),
        "status": entry.get("status") or "open",
        "resolution": _resolution(entry.get("resolution"), where),
        "pointer": str(entry.get("pointer") or ""),
        "origin_key": entry.get("origin_key"),
        "revision": 1,
        "notes": [_note(n, created) for n in notes],
    }
