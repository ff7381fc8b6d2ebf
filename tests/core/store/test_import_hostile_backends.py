"""Hostile import text gets ``ImportFormatError`` on both backends, and nothing is written."""

from __future__ import annotations

import json

import pytest
from anneal_memory import ImportFormatError, Store
from backends import pg_url, target  # noqa: F401 - fixtures


def _export_with(content: str) -> str:
    return json.dumps(
        {
            "format": "anneal-memory-export",
            "format_version": 1,
            "episodes": [
                {
                    "id": "0123abcd",
                    "timestamp": "2026-03-02T09:00:00.000Z",
                    "type": "observation",
                    "content": content,
                    "source": "agent",
                }
            ],
        }
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("{not json", "not JSON"),
    ],
    ids=["deeply-nested", "not-json"],
)
def test_unreadable_import_text_is_refused(target: str, text: str, says: str) -> None:  # noqa: F811
    with Store(target) as store:
        with pytest.raises(ImportFormatError, match=says):
            store.import_json(text)
        assert store.status().total_episodes == 0


def test_a_lone_surrogate_in_an_import_is_refused(target: str) -> None:  # noqa: F811
    with Store(target) as store:
        with pytest.raises(ImportFormatError):
            store.import_json(_export_with("half a pair \ud800 here"))
        assert store.status().total_episodes == 0
