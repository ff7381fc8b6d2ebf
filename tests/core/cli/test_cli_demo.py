"""``anneal-memory demo``: the scripted tour runs anywhere and tells where its files are."""

from __future__ import annotations

from pathlib import Path


def test_demo_in_a_temporary_store(run_cli, tmp_path: Path):
    result = run_cli("demo", db=False).assert_ok()
    out = result.out
    for needle in ("recall(", "Files", "anneal-memory --db", "decision"):
        assert needle in out
    created = [p for p in tmp_path.iterdir() if p.name.startswith("anneal-memory-demo-")]
    assert len(created) == 1  # under TMPDIR, never the user's own store
    assert str(created[0] / "memory.db") in out
    assert not (tmp_path / "home" / ".anneal-memory").exists()


def test_demo_json_keys_and_an_explicit_db(run_cli, cli_db: Path):
    data = run_cli("demo", "--json").assert_ok().json()
    assert set(data) == {"db", "temporary", "steps", "files"}
    assert data["db"] == str(cli_db.absolute())
    assert data["temporary"] is False
    names = [step["name"] for step in data["steps"]]
    assert names[:3] == ["record", "recall", "filter"]
    recall = data["steps"][1]
    assert recall["top_ids"]
    assert str(cli_db.absolute()) in data["files"]
    recorded = data["steps"][0]["recorded"]
    status = run_cli("status", "--json").json()
    assert len(recorded) >= 6
    assert status["total_episodes"] >= len(recorded)  # later steps may record more
    assert {r["type"] for r in recorded} == {
        "observation",
        "decision",
        "tension",
        "question",
        "outcome",
        "context",
    }


def test_demo_shows_a_crystallization_and_a_surfaced_spore(run_cli):
    data = run_cli("demo", "--json").assert_ok().json()
    memory = next(step for step in data["steps"] if step["name"] == "memory")
    assert memory["crystallized"] == "shared_state_breaks_parallel_tests"
    assert memory["recalled"] == ["shared_state_breaks_parallel_tests"]
    assert memory["surfaced"] == [memory["spore"]] == ["spore-001"]
    text = run_cli("demo", db=False).assert_ok().out
    assert "crystallized shared_state_breaks_parallel_tests (2x" in text
    assert "[spore-001] \u25b8 hot/growing !! Move the integration suite" in text
