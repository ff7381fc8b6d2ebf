"""The MCP tools of the crystal tier and of spores: rows for the tool table, and handlers.

``ROWS`` holds the fields of ``Tool`` rows in order (name, description, input schema, handler,
title, hints, output schema); ``_tools`` turns them into ``Tool`` rows (this module never
imports it). No tool here crystallizes or retires:
those are operator acts (CLI and library only). Libraries are imported inside handlers so
the server starts without loading them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from anneal_memory.mcp._toolkit import hints

if TYPE_CHECKING:
    from anneal_memory.spores import Spore
    from anneal_memory.store import Store

__all__ = ["ROWS"]


class _Context(Protocol):
    @property
    def store(self) -> Store: ...

    @property
    def source(self) -> str: ...

    @property
    def scope(self) -> str: ...

    @property
    def session_id(self) -> str | None: ...


_Handler = Callable[[Any, Mapping[str, Any]], str]
_TYPES = ["task", "question", "thought"]
_TIERS = ["hot", "warm", "cold", "parked"]
_ID = {"type": "string", "description": "e.g. spore-001"}
_DAY = {"type": "string", "description": "YYYY-MM-DD to re-surface"}
_DOMAIN = {"type": "string", "description": "free label"}
_SALIENCE = {"type": "integer", "minimum": 0, "maximum": 3, "description": "0-3"}
_TYPE = {"type": "string", "enum": _TYPES, "description": "kind of spore"}
_TIER = {"type": "string", "enum": _TIERS, "description": "urgency"}
_READ = hints(read_only=True, destructive=False, idempotent=True)
_WRITE = hints(read_only=False, destructive=False, idempotent=False)
_SET = hints(read_only=False, destructive=False, idempotent=True)
_POINTER = {"type": "string", "description": "where more is"}
_KIND = {"type": "string", "description": "one of the kinds above for its type"}


def _object(properties: Mapping[str, Any], *required: str) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": dict(properties),
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


def _crystal_recall(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.crystal._recall import crystal_recall
    from anneal_memory.crystal._render import recall_lines

    found = crystal_recall(
        ctx.store,
        args["query"],
        max_patterns=args.get("max_patterns", 3),
        associative=args.get("associative", True),
        mode=args.get("mode", "prompt"),
    )
    lines = recall_lines(found)
    if not lines:
        return f"No crystallized patterns matched ({found.reason})."
    from anneal_memory.mcp._worth_tools import exposure_note

    shown = [f"c:{hit.crystal.name}" for hit in found.hits]
    return "\n".join(lines) + exposure_note(ctx, "mcp crystal_recall", shown)[0]


def _crystal_index(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.crystal._read import crystal_index

    lines = [f"{i.name}: {i.clause}" for i in crystal_index(ctx.store)]
    return "\n".join(lines) or "No crystallized patterns."


def _spore_text(spore: Spore, verb: str = "") -> str:
    from anneal_memory.spores._render import spore_line

    return f"{verb} {spore_line(spore)}".strip()


def _spore_list(spores: list[Spore]) -> str:
    from anneal_memory.spores._render import labelled_lines

    return "\n".join(labelled_lines(spores)) or "No spores."


def _spore_add(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.spores._ops import add_spore

    spore = add_spore(
        ctx.store,
        type=args["type"],
        text=args["text"],
        domain=args.get("domain", ""),
        tier=args.get("tier", "warm"),
        salience=args.get("salience", 0),
        next=args.get("next"),
        pointer=args.get("pointer", ""),
        actor=ctx.source,
    )
    return _spore_text(spore, "Planted")


def _spore_get(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.spores._ops import get_spore
    from anneal_memory.spores._render import DATA_HEADER, spore_block
    from anneal_memory.types import Trust

    spore = get_spore(ctx.store, args["spore_id"])
    if spore.trust is Trust.OPERATOR:
        return spore_block(spore)
    return f"{DATA_HEADER}\n{spore_block(spore)}"


def _spore_list_tool(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.spores._ops import list_spores

    return _spore_list(
        list_spores(
            ctx.store,
            type=args.get("type"),
            tier=args.get("tier"),
            germination=args.get("germination"),
            domain=args.get("domain"),
        )
    )


def _spore_touch(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.spores._ops import touch_spore

    return _spore_text(touch_spore(ctx.store, args["spore_id"], actor=ctx.source), "Touched")


def _spore_update(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.spores._ops import update_spore

    spore = update_spore(
        ctx.store,
        args["spore_id"],
        tier=args.get("tier"),
        next=args.get("next"),
        text=args.get("text"),
        salience=args.get("salience"),
        domain=args.get("domain"),
        pointer=args.get("pointer"),
        add_note=args.get("add_note"),
        actor=ctx.source,
    )
    return _spore_text(spore, "Updated")


def _spore_descend(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.spores._ops import descend_spore

    spore = descend_spore(ctx.store, args["spore_id"], args["kind"], actor=ctx.source)
    return _spore_text(spore, "Descended")


def _spore_ascend(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.spores._ops import ascend_spore

    spore = ascend_spore(ctx.store, args["spore_id"], args["kind"], args["ref"], actor=ctx.source)
    return _spore_text(spore, "Ascended")


def _spore_surface(ctx: _Context, args: Mapping[str, Any]) -> str:
    from anneal_memory.spores._ops import surface_spores

    return _spore_list(surface_spores(ctx.store, top_of_mind=args.get("top_of_mind", False)))


ROWS: tuple[tuple[str, str, Mapping[str, Any], _Handler, str, Mapping[str, bool], None], ...] = (
    (
        "crystal_recall",
        "Crystallized patterns (proven long-term lessons) relevant to a question; says why "
        "when none match.",
        _object(
            {
                "query": {"type": "string", "minLength": 1, "description": "question or prompt"},
                "max_patterns": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 20,
                    "description": "default 3",
                },
                "associative": {
                    "type": "boolean",
                    "description": "also via evidence (default true)",
                },
                "mode": {
                    "type": "string",
                    "enum": ["prompt", "query"],
                    "description": "prompt (default) needs 2+ distinctive words; query, 1",
                },
            },
            "query",
        ),
        _crystal_recall,
        "Recall crystallized patterns",
        _READ,
        None,
    ),
    (
        "crystal_index",
        "One line per live crystallized pattern: 'name: first clause', sorted.",
        _object({}),
        _crystal_index,
        "Index of crystallized patterns",
        _READ,
        None,
    ),
    (
        "spore_add",
        "Plant a spore: a task, question or thought to come back to.",
        _object(
            {
                "type": _TYPE,
                "text": {
                    "type": "string",
                    "minLength": 1,
                    "description": "what to do, ask or think",
                },
                "domain": _DOMAIN,
                "tier": _TIER,
                "salience": _SALIENCE,
                "next": _DAY,
                "pointer": _POINTER,
            },
            "type",
            "text",
        ),
        _spore_add,
        "Plant a spore",
        _WRITE,
        None,
    ),
    (
        "spore_get",
        "Show one spore (open or resolved) with its dates, pointer and notes.",
        _object({"spore_id": _ID}, "spore_id"),
        _spore_get,
        "Get a spore",
        _READ,
        None,
    ),
    (
        "spore_list",
        "List open spores, ranked (tier, salience, germination).",
        _object(
            {
                "type": _TYPE,
                "tier": _TIER,
                "germination": {
                    "type": "string",
                    "enum": ["growing", "resting", "dormant", "parked"],
                    "description": "freshness",
                },
                "domain": _DOMAIN,
            }
        ),
        _spore_list_tool,
        "List spores",
        _READ,
        None,
    ),
    (
        "spore_touch",
        "Mark a spore seen today (clears a re-surface day that has come).",
        _object({"spore_id": _ID}, "spore_id"),
        _spore_touch,
        "Touch a spore",
        _SET,
        None,
    ),
    (
        "spore_update",
        "Change the fields given ('' clears next, domain, pointer); add_note adds a note.",
        _object(
            {
                "spore_id": _ID,
                "tier": _TIER,
                "next": _DAY,
                "text": {"type": "string", "description": "new text"},
                "salience": _SALIENCE,
                "domain": _DOMAIN,
                "pointer": _POINTER,
                "add_note": {"type": "string", "description": "dated note"},
            },
            "spore_id",
        ),
        _spore_update,
        "Update a spore",
        _SET,
        None,
    ),
    (
        "spore_descend",
        "Resolve a spore by letting it go. Kinds: task done|dropped|composted; question "
        "answered|mooted|composted; thought explored|dropped|composted.",
        _object({"spore_id": _ID, "kind": _KIND}, "spore_id", "kind"),
        _spore_descend,
        "Resolve a spore (let go)",
        _SET,
        None,
    ),
    (
        "spore_ascend",
        "Resolve a spore by what it became, at ref. Kinds: task project|thread; question "
        "episode|pattern; thought essay|pattern|project.",
        _object(
            {
                "spore_id": _ID,
                "kind": _KIND,
                "ref": {"type": "string", "minLength": 1, "description": "path, URL or id"},
            },
            "spore_id",
            "kind",
            "ref",
        ),
        _spore_ascend,
        "Resolve a spore (became)",
        _SET,
        None,
    ),
    (
        "spore_surface",
        "The open spores worth attention now, ranked; top_of_mind keeps only hot or growing.",
        _object({"top_of_mind": {"type": "boolean", "description": "hot or growing only"}}),
        _spore_surface,
        "Surface spores",
        _READ,
        None,
    ),
)
