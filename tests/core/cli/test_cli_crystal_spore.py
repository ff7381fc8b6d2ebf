"""``crystal ...`` and ``spore ...`` through the CLI: output, JSON, exit codes."""

from __future__ import annotations

POOL = "Size the connection pool to the worker count; an undersized pool throttles throughput."


def _init(run_cli) -> str:
    run_cli("init").assert_ok()
    return run_cli("record", "connection pool exhausted at ten workers", "--json").json()["id"]


def test_crystal_verbs_round_trip(run_cli) -> None:
    ep = _init(run_cli)
    made = run_cli(
        "crystal", "crystallize", "--name", "pool_sizing", "--level", "3",
        "--explanation", POOL, "--evidence", ep, "--tags", "db", "perf",
    ).assert_ok()  # fmt: skip
    assert made.out.startswith("Crystallized: pool_sizing (3x/hot) Size the connection pool")
    got = run_cli("crystal", "get", "pool_sizing", "--json").assert_ok().json()
    assert got["evidence"] == [ep]
    assert got["tags"] == ["db", "perf"]
    assert got["revision"] == 1
    index = run_cli("crystal", "index").assert_ok().out.strip()
    assert index.startswith("pool_sizing: Size the connection pool")
    assert run_cli("--json", "crystal", "index").json()["index"][0]["name"] == "pool_sizing"
    hit = run_cli("crystal", "recall", "why does the connection pool throttle throughput?")
    assert hit.assert_ok().out.startswith("pool_sizing (3x, hot, score=")
    thin = run_cli("crystal", "recall", "pool").assert_ok().out
    assert "No crystallized patterns matched (query too thin" in thin
    assert run_cli("crystal", "recall", "pool", "--mode", "query", "--json").json()["hits"]
    run_cli("crystal", "touch", "pool_sizing").assert_ok()
    up = run_cli("crystal", "update", "pool_sizing", "--add-note", "seen in prod",
                 "--expect-revision", "2", "--json").assert_ok().json()  # fmt: skip
    assert up["notes"][0].endswith("seen in prod")
    stale = run_cli("crystal", "update", "pool_sizing", "--level", "4", "--expect-revision", "2")
    assert "revision 3, not 2" in stale.assert_error(1)
    run_cli("crystal", "retire", "pool_sizing", "--kind", "superseded", "--reason", "r").assert_ok()
    assert run_cli("crystal", "list").out.strip() == "No crystallized patterns."
    retired = run_cli("crystal", "list", "--status", "retired", "-v").assert_ok().out
    assert "retired:superseded" in retired
    assert run_cli("crystal", "index").out.strip() == "No crystallized patterns."


def test_crystal_refusals_and_exit_codes(run_cli) -> None:
    _init(run_cli)
    low = run_cli("crystal", "crystallize", "--name", "x", "--level", "1", "--explanation", "e")
    assert "level must be 2 or more" in low.assert_error(2)
    bad_kind = run_cli("crystal", "retire", "x", "--kind", "bogus")
    assert "invalid choice" in bad_kind.assert_error(2)
    missing = run_cli("crystal", "get", "nosuch")
    assert "no crystal named 'nosuch'" in missing.assert_error(1)
    ghost = run_cli("crystal", "crystallize", "--name", "x", "--level", "2",
                    "--explanation", "e", "--evidence", "0badc0de")  # fmt: skip
    assert "do not exist" in ghost.assert_error(1)
    big = run_cli("crystal", "crystallize", "--name", "x", "--level", "2",
                  "--explanation", "y" * 5000)  # fmt: skip
    assert "limit is 4000" in big.assert_error(1)
    assert run_cli("crystal", "list", "--json").json() == {"crystals": []}
    assert run_cli("crystal").assert_error(2)


def test_spore_verbs_round_trip(run_cli) -> None:
    run_cli("init").assert_ok()
    first = run_cli(
        "spore", "add", "--type", "task", "--text", "bump the pool in staging",
        "--tier", "hot", "--salience", "2", "--domain", "infra",
    ).assert_ok()  # fmt: skip
    expected = "Planted: [spore-001] \u25b8 hot/growing !! bump the pool in staging"
    assert first.out.strip() == expected
    run_cli("spore", "add", "--type", "question", "--text", "why p99?").assert_ok()
    got = run_cli("spore", "get", "spore-001", "--json").assert_ok().json()
    assert (got["id"], got["germination"], got["domain"]) == ("spore-001", "growing", "infra")
    listed = run_cli("spore", "list", "--json").json()["spores"]
    assert [s["id"] for s in listed] == ["spore-001", "spore-002"]
    top = run_cli("spore", "surface", "--top-of-mind").assert_ok().out
    assert "[spore-001]" in top
    run_cli("spore", "touch", "spore-002").assert_ok()
    up = run_cli("spore", "update", "spore-002", "--next", "2031-01-01", "--add-note", "asked",
                 "--json").assert_ok().json()  # fmt: skip
    assert up["next"] == "2031-01-01"
    assert up["notes"][0].endswith("asked")
    wrong = run_cli("spore", "descend", "spore-001", "--kind", "answered")
    assert wrong.assert_error(1).strip() == (
        "Error: descend kind 'answered' is invalid for a 'task' spore. "
        "Valid: ['composted', 'done', 'dropped']."
    )
    run_cli("spore", "descend", "spore-001", "--kind", "done").assert_ok()
    run_cli("spore", "ascend", "spore-002", "--kind", "episode", "--ref", "0a1b2c3d").assert_ok()
    assert run_cli("spore", "list").out.strip() == "No spores."
    resolved = run_cli("spore", "list", "--status", "resolved", "-v").assert_ok().out
    assert "ascend episode 0a1b2c3d" in resolved
    run_cli("spore", "delete", "spore-002").assert_ok()
    assert "no spore spore-002" in run_cli("spore", "get", "spore-002").assert_error(1)


def test_spore_refusals_and_exit_codes(run_cli) -> None:
    run_cli("init").assert_ok()
    bad_date = run_cli("spore", "add", "--type", "task", "--text", "x", "--next", "2026-13-01")
    assert "next must be a date written YYYY-MM-DD" in bad_date.assert_error(1)
    assert run_cli("spore", "add", "--type", "task", "--text", "x", "--salience", "5").code == 2
    assert run_cli("spore", "add", "--type", "idea", "--text", "x").code == 2
    assert "spore id must look like" in run_cli("spore", "get", "42").assert_error(1)
    assert run_cli("spore", "list", "--json").json() == {"spores": []}


def test_delete_and_prune_name_the_crystals_that_lose_evidence(run_cli) -> None:
    ep = _init(run_cli)
    run_cli("crystal", "crystallize", "--name", "pool_sizing", "--level", "2",
            "--explanation", POOL, "--evidence", ep).assert_ok()  # fmt: skip
    dry = run_cli("prune", "--older-than", "0", "--dry-run", "--json").assert_ok().json()
    assert dry["crystals_losing_evidence"] == ["pool_sizing"]
    gone = run_cli("delete", ep, "--force").assert_ok().out.strip()
    assert gone == f"Deleted {ep}; crystals that lose this evidence: pool_sizing"
    got = run_cli("crystal", "get", "pool_sizing", "--json").json()
    assert got["evidence_missing"] == [ep]


def test_rewarm_lists_what_the_next_wrap_would_propose(run_cli, cli_db) -> None:
    import datetime as dt

    from anneal_memory import Store
    from anneal_memory.crystal import crystallize
    from anneal_memory.testing import FrozenClock

    now = dt.datetime.now(dt.timezone.utc)
    with Store(cli_db, clock=FrozenClock(now - dt.timedelta(days=20))) as store:
        away = "Run the nightly batch export away from the serving database."
        crystallize(store, "batch_off_primary", level=2, explanation=away)
    old = (now - dt.timedelta(days=60)).date().isoformat()
    cli_db.with_name("memory.continuity.md").write_text(
        f"# Agent \u2014 Memory (v1)\n\n## State\n- x\n\n## Patterns\n"
        f'- pool_sizing | 3x ({old}) [evidence: 0a1b2c3d "pool sized to workers"]\n\n'
        "## Decisions\n- x\n\n## Context\n- x\n",
        encoding="utf-8",
    )
    assert run_cli("crystal", "rewarm").assert_ok().out.strip().startswith("## Crystal tier")
    run_cli("record", "The nightly batch export saturated the serving database again").assert_ok()
    data = run_cli("crystal", "rewarm", "--json").assert_ok().json()
    assert [r["name"] for r in data["rewarm"]] == ["batch_off_primary"]
    assert [c["name"] for c in data["crystallize"]] == ["pool_sizing"]
    assert data["crystallize"][0]["days_cold"] == 60
    assert run_cli("crystal", "get", "batch_off_primary", "--json").json()["activation"] == "warm"
