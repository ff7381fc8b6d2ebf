"""Updated facts, trust, crystals and spores from the CLI on a PostgreSQL ``--db`` URL."""

from __future__ import annotations

from backends import pg_url  # noqa: F401 - fixture

OLD = "The user lives in Porto and works remotely for the bank"
NEW = "The user moved: now lives in Lisbon and works remotely for the bank"
POOL = "Size the connection pool to the worker count; an undersized pool throttles throughput."


def test_supersession_state_keys_and_trust_on_postgresql(pg_url: str, run_cli) -> None:  # noqa: F811
    def pg(*args: str):
        return run_cli("--db", pg_url, *args, db=False)

    old = pg("--json", "record", OLD, "--trust", "tool").assert_ok().json()["id"]
    new = pg("--json", "record", NEW, "--supersedes", old).assert_ok().json()["id"]
    found = pg("--json", "search", "lives remotely").assert_ok().json()
    assert [e["id"] for e in found["episodes"]] == [new]
    every = pg("--json", "search", "lives remotely", "--include-superseded").assert_ok().json()
    assert {e["id"]: e["superseded_by"] for e in every["episodes"]} == {old: new, new: None}
    assert (
        pg("--json", "unsupersede", "--old", old, "--new", new).assert_ok().json()["superseded"]
        is False
    )
    assert pg("--json", "supersede", "--old", old, "--new", new).assert_ok().json()["added"]
    err = pg("supersede", "--old", new, "--new", old).assert_error(1)
    assert "is newer than" in err or "cycle" in err

    porto = pg("--json", "record", "home: Porto", "--state-key", "user.home_city").assert_ok()
    lisbon = pg("--json", "record", "home: Lisbon", "--state-key", "user.home_city").assert_ok()
    [slot] = pg("--json", "state", "user.home_city").assert_ok().json()["keys"]
    assert (slot["current"], slot["replaced"]) == ([lisbon.json()["id"]], [porto.json()["id"]])

    derived = pg("--json", "record", "summary", "--derived-from", old).assert_ok().json()["id"]
    shown = pg("--json", "trust", derived).assert_ok().json()
    assert (shown["trust"], shown["effective_trust"]) == ("agent", "tool")
    pg("trust", old, "external").assert_ok()
    assert "needs an operator" in pg("trust", old, "agent").assert_error(1)
    assert pg("--json", "trust", old, "agent", "--operator").assert_ok().json()["trust"] == "agent"
    ops = pg("--json", "record", "ops note", "--trust", "operator", "--operator").assert_ok()
    assert ops.json()["trust"] == "operator"
    assert "ceiling" in pg("record", "not ops", "--trust", "operator").assert_error(1)

    verified = pg("--json", "verify").assert_ok().json()
    assert verified["valid"] is True
    events = [e["event"] for e in pg("--json", "audit").assert_ok().json()["entries"]]
    assert events.count("supersede") == 2
    assert events.count("unsupersede") == 1
    assert events.count("trust_set") == 2


def test_crystals_and_spores_on_postgresql(pg_url: str, run_cli) -> None:  # noqa: F811
    def pg(*args: str):
        return run_cli("--db", pg_url, *args, db=False)

    ep = pg("--json", "record", "the connection pool throttled throughput at ten workers")
    ident = ep.assert_ok().json()["id"]
    made = pg(
        "--json", "crystal", "crystallize", "--name", "pool_sizing", "--level", "3",
        "--explanation", POOL, "--evidence", ident, "--tags", "db",
    ).assert_ok().json()  # fmt: skip
    assert (made["name"], made["evidence"], made["revision"]) == ("pool_sizing", [ident], 1)
    hits = pg("--json", "crystal", "recall", "why does the connection pool throttle throughput?")
    assert [h["name"] for h in hits.assert_ok().json()["hits"]] == ["pool_sizing"]
    stale = pg("crystal", "update", "pool_sizing", "--level", "4", "--expect-revision", "9")
    assert "is at revision 1, not 9" in stale.assert_error(1)
    pg("crystal", "retire", "pool_sizing", "--kind", "obsolete").assert_ok()
    listed = pg("--json", "crystal", "list", "--status", "retired").assert_ok().json()
    assert [c["name"] for c in listed["crystals"]] == ["pool_sizing"]

    spore = pg("--json", "spore", "add", "--type", "task", "--text", "Bump it", "--tier", "hot")
    assert spore.assert_ok().json()["id"] == "spore-001"
    top = pg("--json", "spore", "surface", "--top-of-mind").assert_ok().json()
    assert [s["id"] for s in top["spores"]] == ["spore-001"]
    pg("spore", "descend", "spore-001", "--kind", "done").assert_ok()
    assert pg("--json", "spore", "surface").assert_ok().json()["spores"] == []
    assert pg("--json", "verify").assert_ok().json()["valid"] is True
