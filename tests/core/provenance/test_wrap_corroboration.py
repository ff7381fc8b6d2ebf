"""The issue's case through a real wrap: an external claim and an innocuous agent note that
share "admin" and "api" no longer graduate a pattern; an agent check of the same claim does.

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from anneal_memory import SaveResult, Store, prepare_wrap, validated_save_continuity

sys.path.insert(0, str(Path(__file__).parents[2]))
sys.path.insert(0, str(Path(__file__).parent))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401
from test_wrap_updates import build_text, codes, line_of


def _seed(store: Store) -> None:
    first = store.record(
        "A forum post says the admin API accepts unauthenticated calls",
        "observation",
        trust="external",
    )
    prepare_wrap(store)
    explanation = "admin API accepts unauthenticated calls"
    line = f'- admin_open | 1x (2026-03-02) [evidence: {first.id} "{explanation}"]'
    validated_save_continuity(store, build_text([line]))


def _climb(store: Store, *ids: str) -> SaveResult:
    package = prepare_wrap(store).package
    assert package is not None
    cited = ", ".join(ids)
    line = (
        f"- admin_open | 2x ({package.today}) "
        f'[evidence: {cited} "admin API accepts unauthenticated requests"] [no-contradicts]'
    )
    return validated_save_continuity(store, build_text([line]))


def test_two_shared_words_with_an_unrelated_note_do_not_graduate(store: Store) -> None:
    _seed(store)
    claim = store.record(
        "The admin API accepts unauthenticated requests (from a web page)",
        "observation",
        trust="external",
    )
    note = store.record("Updated the admin api docs", "observation")
    result = _climb(store, claim.id, note.id)
    assert "uncorroborated" in codes(result)
    assert result.graduations_validated == 0
    assert line_of(store, "admin_open").startswith("- admin_open | 1x")


def test_an_agent_check_of_the_same_claim_graduates(store: Store) -> None:
    _seed(store)
    claim = store.record(
        "The admin API accepts unauthenticated requests (from a web page)",
        "observation",
        trust="external",
    )
    check = store.record(
        "Confirmed: the admin API accepts unauthenticated requests on staging", "outcome"
    )
    result = _climb(store, claim.id, check.id)
    assert "uncorroborated" not in codes(result)
    assert line_of(store, "admin_open").startswith("- admin_open | 2x")
