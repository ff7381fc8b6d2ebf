"""Importing the reference MCP memory server's ``memory.json`` (JSON Lines of a graph)."""

from __future__ import annotations

import json
from pathlib import Path

from anneal_memory import Store

ENTITIES = [
    {"name": "Alice", "entityType": "person", "observations": ["Prefers tea", "Lives in Köln"]},
    {"name": "Acme", "entityType": "organization", "observations": []},
]
RELATIONS = [{"from": "Alice", "to": "Acme", "relationType": "works_at"}]


def write_like_the_server(path: Path, entities=ENTITIES, relations=RELATIONS) -> None:
    """What ``saveGraph`` writes: JSON.stringify per line, joined by newlines, none at the end."""
    lines = [
        json.dumps(
            {"type": "entity", "name": e["name"], "entityType": e["entityType"],
             "observations": e["observations"]},
            ensure_ascii=False, separators=(",", ":"),
        )
        for e in entities
    ] + [
        json.dumps(
            {"type": "relation", "from": r["from"], "to": r["to"],
             "relationType": r["relationType"]},
            ensure_ascii=False, separators=(",", ":"),
        )
        for r in relations
    ]  # fmt: skip
    path.write_bytes("\n".join(lines).encode("utf-8"))


def test_each_observation_and_relation_becomes_an_episode(tmp_path: Path, store: Store):
    source = tmp_path / "memory.json"
    write_like_the_server(source)
    report = store.import_from(source)
    assert report.format == "server-memory-jsonl"
    kinds = {c.kind: (c.found, c.imported) for c in report.counts}
    assert kinds == {"episodes": (4, 4), "entities": (2, 0), "relations": (1, 0)}
    episodes = {e.content: e for e in store.recall(limit=10).episodes}
    assert set(episodes) == {
        "Alice (person): Prefers tea",
        "Alice (person): Lives in Köln",
        "Acme (organization)",
        "Alice works_at Acme",
    }
    tea = episodes["Alice (person): Prefers tea"]
    assert (tea.type.value, tea.source) == ("observation", "server-memory")
    assert tea.metadata == {"imported_from": "server-memory", "entity": "Alice",
                            "entity_type": "person"}  # fmt: skip
    relation = episodes["Alice works_at Acme"]
    assert relation.type.value == "context"
    assert relation.metadata["relation_type"] == "works_at"
    assert store.recall("tea").episodes[0].id == tea.id


def test_a_second_import_skips_what_came_before_and_adds_what_is_new(tmp_path: Path, store: Store):
    source = tmp_path / "memory.json"
    write_like_the_server(source)
    store.import_from(source)
    grown = [{**ENTITIES[0], "observations": [*ENTITIES[0]["observations"], "Plays chess"]}]
    write_like_the_server(source, grown + ENTITIES[1:])
    again = store.import_from(source)
    assert (again.count("episodes").imported, again.count("episodes").skipped) == (1, 4)
    assert store.status().total_episodes == 5


def test_the_legacy_memory_jsonl_name_and_a_trailing_newline_work(tmp_path: Path, store: Store):
    source = tmp_path / "memory.jsonl"
    write_like_the_server(source)
    source.write_bytes(source.read_bytes() + b"\n\n")
    assert store.import_from(source).count("episodes").imported == 4


def test_empty_types_are_left_out_of_the_text(tmp_path: Path, store: Store):
    source = tmp_path / "memory.json"
    write_like_the_server(source, [{"name": "Bob", "entityType": "", "observations": ["Hi"]}], [])
    store.import_from(source)
    assert [e.content for e in store.recall(limit=5).episodes] == ["Bob: Hi"]
