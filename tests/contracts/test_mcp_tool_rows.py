"""Every MCP tool row says what it is, how it behaves, and stays within its token budget.

Other tool rows join the table over time; each must pass these checks as it is added.

Token estimate (documented in docs/mcp.md): ``ceil(len(compact JSON) / 4)`` of what a model
is given for a tool, ``{"name", "description", "inputSchema"}`` as ``tools/list`` serialises
them (compact separators, UTF-8). Real BPE tokenizers count about 4.2-4.4 characters per token
on these rows, so the estimate is a little high, never low.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from anneal_memory.mcp import TOOLS, Tool

TOKEN_BUDGET = 150
"""The most estimated tokens a tool may cost a model."""

OVER_BUDGET: dict[str, int] = {
    "recall": 215,
    "record": 240,
    "save_continuity": 200,
    "spore_add": 185,
    "spore_update": 185,
}
"""Tools allowed more, with their ceiling: recall has eight filters, record five provenance
fields, save_continuity a nested affective state, spore_add and spore_update seven fields;
each parameter is described. Shrink these, never add to them."""

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def estimated_tokens(tool: Tool) -> int:
    """The documented estimate of what a tool costs a model."""
    entry = tool.to_dict()
    seen = {key: entry[key] for key in ("name", "description", "inputSchema")}
    text = json.dumps(seen, separators=(",", ":"), ensure_ascii=False)
    return math.ceil(len(text) / 4)


def _properties(schema: Any) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for name, spec in schema.get("properties", {}).items():
        found.append((name, spec))
        if spec.get("type") == "object":
            found.extend((f"{name}.{child}", s) for child, s in _properties(spec))
    return found


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_every_row_has_a_title_and_all_four_hints(tool: Tool) -> None:
    assert tool.title.strip()
    assert tool.title != tool.name
    assert set(tool.annotations) == set(HINTS)
    assert all(isinstance(tool.annotations[h], bool) for h in HINTS)
    if tool.annotations["readOnlyHint"]:
        assert not tool.annotations["destructiveHint"]
    entry = tool.to_dict()
    assert entry["title"] == tool.title
    assert entry["annotations"] == dict(tool.annotations)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_every_parameter_is_described(tool: Tool) -> None:
    for name, spec in _properties(tool.input_schema):
        assert spec.get("description", "").strip(), f"{tool.name}.{name} has no description"


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_every_row_is_within_its_token_budget(tool: Tool) -> None:
    budget = OVER_BUDGET.get(tool.name, TOKEN_BUDGET)
    assert estimated_tokens(tool) <= budget, (tool.name, estimated_tokens(tool), budget)


def test_the_whole_list_averages_within_the_budget() -> None:
    average = sum(estimated_tokens(tool) for tool in TOOLS) / len(TOOLS)
    assert average <= TOKEN_BUDGET, average


def test_output_schemas_are_object_schemas() -> None:
    for tool in TOOLS:
        if tool.output_schema is not None:
            assert tool.output_schema["type"] == "object", tool.name
            assert set(tool.output_schema.get("required", ())) <= set(
                tool.output_schema["properties"]
            )


def test_the_documented_read_only_tools() -> None:
    read_only = {t.name for t in TOOLS if t.annotations["readOnlyHint"]}
    assert {"recall", "status", "get", "read_continuity"} <= read_only
    assert _hint("delete_episode", "destructiveHint")


def _hint(name: str, hint: str) -> bool:
    return next(t for t in TOOLS if t.name == name).annotations[hint]


def test_a_row_without_the_new_fields_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        Tool(  # type: ignore[call-arg]
            name="x", description="x", input_schema={"type": "object"}, handler=lambda c, a: ""
        )
