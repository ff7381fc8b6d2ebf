"""``migrate check`` / ``migrate ack``: what agent instructions may need to follow (issue 28)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import Store, __version__
from anneal_memory.errors import InvalidInputError
from anneal_memory.testing import FrozenClock
from anneal_memory.upgrade import CHANGES, acknowledge, acknowledged_version, changes_since

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def both(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def test_ack_records_the_version_and_check_lists_what_is_newer(both: Store) -> None:
    assert acknowledged_version(both) is None
    assert changes_since(None, current=__version__) == list(CHANGES)  # counted from 1.0.2
    assert acknowledge(both, "1.0.2", current=__version__) == "1.0.2"
    assert acknowledged_version(both) == "1.0.2"
    assert acknowledge(both, current=__version__) == __version__
    assert changes_since(acknowledged_version(both), current=__version__) == []
    with pytest.raises(InvalidInputError, match="newer than this"):
        acknowledge(both, "99.0.0", current=__version__)
    with pytest.raises(InvalidInputError, match=r"MAJOR\.MINOR\.PATCH"):
        acknowledge(both, "latest", current=__version__)
    entries = [e["data"] for e in audit_entries(both, "migrate_acknowledged")]
    assert entries == [
        {"version": "1.0.2", "before": None},
        {"version": __version__, "before": "1.0.2"},
    ]


def test_cli_migrate_check_and_ack(run_cli: Any, cli_db: Path) -> None:
    run_cli("init").assert_ok()
    before = cli_db.read_bytes()
    data = run_cli("migrate", "check", "--json").assert_ok().json()
    assert data["acknowledged"] is None
    assert len(data["changes"]) == len(CHANGES)
    assert cli_db.read_bytes() == before  # check writes nothing
    text = run_cli("migrate", "check").assert_ok().out
    assert text.startswith("Changed since 1.0.2 (never acknowledged)")
    assert "- [2.0.0 tool] outcome:" in text
    assert "Acknowledged" in run_cli("migrate", "ack").assert_ok().out
    assert "Nothing changed since" in run_cli("migrate", "check").assert_ok().out
    assert "newer than" in run_cli("migrate", "ack", "9.9.9").assert_error(1)
    assert run_cli("migrate", "bogus").code == 2
    assert "schema version" in run_cli("migrate").assert_ok().out  # alone: still upgrades
