"""Every wrap step leaves its audit event, with ids and counts but never episode text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity, wrap_cancel
from anneal_memory.errors import ContinuityRejectedError
from anneal_memory.testing import FrozenClock

SECRET = "the launch code is swordfish"
TEXT = "## State\n## Patterns\n## Decisions\n## Context\n"


def test_wrap_events_carry_no_episode_text(db_path: Path, clock: FrozenClock) -> None:
    seen: list[dict[str, Any]] = []
    with Store(db_path, clock=clock, on_audit_event=seen.append) as store:
        store.record(SECRET, "observation")
        prep = prepare_wrap(store)
        wrap_cancel(store)
        prep = prepare_wrap(store)
        with pytest.raises(ContinuityRejectedError):
            validated_save_continuity(store, "## State\n")
        validated_save_continuity(store, TEXT + f"- {SECRET}\n", wrap_token=prep.wrap_token)
    events = [e["event"] for e in seen if e["event"] != "record"]
    assert events == [
        "wrap_started",
        "wrap_cancelled",
        "wrap_started",
        "continuity_refused",
        "wrap_completed",
        "continuity_saved",
        "associations_updated",
    ]
    wrap_entries = [e for e in seen if e["event"] != "record"]
    dumped = json.dumps(wrap_entries)
    assert "swordfish" not in dumped
    assert prep.wrap_token not in dumped  # only an 8-character prefix is logged
    saved = next(e for e in seen if e["event"] == "continuity_saved")
    assert saved["data"]["content_hash"].startswith("sha256:")
