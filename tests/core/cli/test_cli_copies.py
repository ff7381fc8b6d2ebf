"""The self-feeding loop across processes: CLI ``search`` then CLI ``record`` (issue 30).

A ``record`` in a process of its own asks the recent exposures what was shown; a text that
repeats a shown episode is recorded ``derived_from`` it (its effective trust capped at the
original's). ``search`` lists one row per recalled text; ``--json`` keeps every row.
"""

from __future__ import annotations

import datetime as dt

import pytest
from anneal_memory import Store
from anneal_memory._clock import format_timestamp
from anneal_memory.worth._echoes import LOOKBACK_MINUTES
from backends import pg_url, target  # noqa: F401 - fixtures

NOTE = "the deploy script needs the VPN up before it can reach the registry"


@pytest.fixture
def cli(run_cli, target):  # noqa: F811
    def run(*args: str, env: dict[str, str] | None = None):
        extra = {} if env is None else {"env": env}
        return run_cli("--db", target, *args, db=False, **extra).assert_ok()

    return run


def _record(cli, text: str, *args: str) -> dict:
    return cli("--json", "record", text, *args).json()


def test_a_shown_text_recorded_again_derives_from_it_and_its_trust_is_capped(cli, target):  # noqa: F811
    original = _record(cli, NOTE, "--trust", "tool")
    shown = cli("--json", "search", "deploy script VPN").json()
    assert [e["id"] for e in shown["episodes"]] == [original["id"]]
    copy = _record(cli, NOTE)
    wrapped = _record(cli, f"I recall that {NOTE}")
    assert copy["derived_from"] == [original["id"]]
    assert wrapped["derived_from"] == [original["id"]]
    with Store(target) as store:
        trusts = store.effective_trusts([copy["id"], wrapped["id"]])
    assert {str(t) for t in trusts.values()} == {"tool"}  # not the copy's own "agent"


def test_a_different_text_is_not_derived(cli):
    _record(cli, NOTE)
    cli("search", "deploy script VPN")
    other = _record(cli, "the registry rejects pushes without a signed manifest")
    assert other["derived_from"] == []


def test_an_exposure_older_than_the_window_is_not_looked_at(cli, target):  # noqa: F811
    _record(cli, NOTE)
    cli("search", "deploy script VPN")
    with Store(target) as store, store.writing("test: age the exposures") as tx:
        old = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=LOOKBACK_MINUTES + 5)
        tx.conn.execute("UPDATE exposures SET at = ?", (format_timestamp(old),))
    assert _record(cli, NOTE)["derived_from"] == []


def test_a_session_id_only_matches_its_own_sessions_exposures(cli):
    original = _record(cli, NOTE)
    cli("search", "deploy script VPN", "--session-id", "alpha")
    assert _record(cli, NOTE, "--session-id", "beta")["derived_from"] == []
    assert _record(cli, NOTE, "--session-id", "alpha")["derived_from"] == [original["id"]]


def test_a_search_with_no_exposure_lets_a_record_through_underived(cli):
    _record(cli, NOTE)
    cli("search", "deploy script VPN", "--no-exposure")
    assert _record(cli, NOTE)["derived_from"] == []


def test_search_lists_one_row_per_recalled_text_and_json_keeps_every_row(cli):
    original = _record(cli, NOTE)
    cli("search", "deploy script VPN")
    copy = _record(cli, NOTE)
    text = cli("search", "deploy script VPN").out
    listed = [line for line in text.splitlines() if NOTE in line]
    assert len(listed) == 1
    assert "1 recalled copies of the episodes above not listed" in text
    rows = cli("--json", "search", "deploy script VPN").json()["episodes"]
    assert {e["id"] for e in rows} == {original["id"], copy["id"]}


def test_an_explicit_derived_from_is_kept(cli):
    first = _record(cli, NOTE)
    other = _record(cli, "the VPN profile lives in the ops vault")
    cli("search", "deploy script VPN")
    again = _record(cli, NOTE, "--derived-from", other["id"])
    assert again["derived_from"] == [other["id"]]
    assert first["id"] != again["id"]
