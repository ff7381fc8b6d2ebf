"""The provenance commands through the CLI: record flags, supersede, unsupersede, state,
trust (with and without the operator flag), init --schema, set-schema and status."""

from __future__ import annotations

from pathlib import Path

from clirun import CliRunner, clean_env

OLD = "The user lives in Porto and works remotely"
NEW = "The user now lives in Lisbon and works remotely"


def _record(run_cli: CliRunner, *args: str) -> str:
    return str(run_cli("record", *args, "--json").assert_ok().json()["id"])


def test_record_supersedes_and_recall_include_superseded(run_cli: CliRunner) -> None:
    old = _record(run_cli, OLD)
    data = run_cli("record", NEW, "--supersedes", old, "--json").assert_ok().json()
    assert data["superseded_by"] is None
    hits = run_cli("search", "lives remotely", "--json").assert_ok().json()
    assert [e["id"] for e in hits["episodes"]] == [data["id"]]
    every = run_cli("search", "lives remotely", "--include-superseded", "--json").assert_ok()
    assert {e["id"]: e["superseded_by"] for e in every.json()["episodes"]}[old] == data["id"]
    assert f"superseded_by: {data['id']}" in run_cli("get", old).assert_ok().out


def test_supersede_unsupersede_and_refusals(run_cli: CliRunner) -> None:
    old = _record(run_cli, OLD)
    new = _record(run_cli, NEW)
    other = _record(run_cli, "Cats like warm windowsills")
    out = run_cli("supersede", "--old", old, "--new", new, "--json").assert_ok().json()
    assert out == {"old_id": old, "new_id": new, "superseded": True, "added": True}
    err = run_cli("supersede", "--old", new, "--new", other).assert_error()
    assert "needs 25% of the shorter episode's meaningful words" in err
    assert run_cli("unsupersede", "--old", old, "--new", new).assert_ok()
    err = run_cli("unsupersede", "--old", old, "--new", new).assert_error()
    assert "nothing to remove" in err
    err = run_cli("record", "text", "--supersedes", "zz").assert_error()
    assert "not an episode id" in err


def test_state_keys(run_cli: CliRunner) -> None:
    first = _record(run_cli, "home city Porto", "--state-key", "user.home_city")
    second = _record(run_cli, "home city Lisbon", "--state-key", "user.home_city")
    report = run_cli("state", "--json").assert_ok().json()
    assert report == {"keys": [{"key": "user.home_city", "current": [second], "replaced": [first]}]}
    assert "user.home_city: " in run_cli("state", "user.home_city").assert_ok().out
    run_cli("state", "--unset", second).assert_ok()
    assert run_cli("state", "user.home_city", "--json").assert_ok().json()["keys"][0][
        "current"
    ] == [first]
    run_cli("state", "user.home_city", "--set", second).assert_ok()
    err = run_cli("state", "--set", second).assert_error()
    assert "needs the KEY" in err


def test_trust_lowering_is_open_raising_needs_the_operator(
    run_cli: CliRunner, tmp_path: Path
) -> None:
    ident = _record(run_cli, "the tool said hello", "--trust", "tool")
    assert run_cli("trust", ident, "--json").assert_ok().json()["trust"] == "tool"
    run_cli("trust", ident, "external").assert_ok()
    err = run_cli("trust", ident, "agent").assert_error()
    assert "needs an operator" in err
    data = run_cli("trust", ident, "agent", "--operator", "--json").assert_ok().json()
    assert data == {"id": ident, "trust": "agent", "effective_trust": "agent"}
    err = run_cli("record", "ops", "--trust", "operator").assert_error()
    assert "above this store's ceiling" in err
    env = clean_env(tmp_path, ANNEAL_OPERATOR="1")
    assert (
        run_cli("record", "ops", "--trust", "operator", "--json", env=env)
        .assert_ok()
        .json()["trust"]
        == "operator"
    )
    derived = _record(run_cli, "derived note", "--derived-from", ident)
    run_cli("trust", ident, "tool").assert_ok()
    assert run_cli("trust", derived, "--json").assert_ok().json()["effective_trust"] == "tool"


def test_init_schema_set_schema_and_status(run_cli: CliRunner) -> None:
    data = run_cli("init", "--schema", "project", "--json").assert_ok().json()
    assert data["section_schema"] == "project"
    assert run_cli("status", "--json").assert_ok().json()["section_schema"] == "project"
    run_cli("set-schema", "partnership").assert_ok()
    assert "Section schema:   partnership" in run_cli("status").assert_ok().out
    assert run_cli("set-schema", "fancy").code == 2
