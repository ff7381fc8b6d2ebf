"""``anneal-memory explain recall|pattern|episode`` in process: text, ``--json``, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.cli import main
from anneal_memory.testing import DEMO_GROUNDED, DEMO_INVENTED


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("explain") / "memory.db")
    assert main(["--db", db, "demo"]) == 0
    return db


def test_explain_pattern_prints_each_step_and_the_chain(
    demo_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--db", demo_db, "explain", "pattern", DEMO_INVENTED]) == 0
    out = capsys.readouterr().out
    assert "wrap 2 on" in out
    assert "1x (claimed 2x)  demoted" in out
    assert "ungrounded:" in out
    assert "Chain: Audit trail valid" in out


def test_explain_pattern_json_and_no_verify(
    demo_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert (
        main(["--db", demo_db, "explain", "pattern", DEMO_GROUNDED, "--json", "--no-verify"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["found"] is True
    assert data["steps"][0]["outcome"] == "validated"
    assert data["crystal"]["status"] == "crystallized"
    assert data["audit"]["verdict"] is None


def test_explain_episode_text_and_json(demo_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Store(demo_db, read_only=True) as store:
        cited = store.load_continuity() or ""
    episode_id = cited.split("[evidence: ", 1)[1][:8]
    capsys.readouterr()
    assert main(["--db", demo_db, "explain", "episode", episode_id, "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert f"episode {episode_id}:" in out
    assert f"cited by patterns: {DEMO_GROUNDED} (2x)" in out
    assert main(["--db", demo_db, "--json", "explain", "episode", episode_id]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["crystals"] == [DEMO_GROUNDED]
    assert len(data["audit"]["entries"]) <= 20


def test_not_found_exits_1_and_bad_input_is_one_error_line(
    demo_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--db", demo_db, "explain", "pattern", "never_written"]) == 1
    assert "no save ever wrote" in capsys.readouterr().out
    assert main(["--db", demo_db, "explain", "episode", "nothex!"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: an episode id is eight hex characters")
    assert main(["--db", demo_db, "explain", "pattern", DEMO_GROUNDED, "--limit", "0"]) == 2


def test_explain_never_writes(demo_db: str, tmp_path: Path) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in Path(demo_db).parent.iterdir()}
    assert main(["--db", demo_db, "explain", "pattern", DEMO_GROUNDED]) == 0
    after = {p.name: p.stat().st_mtime_ns for p in Path(demo_db).parent.iterdir()}
    assert before == after


def test_a_missing_store_is_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "none.db"
    assert main(["--db", str(db), "explain", "pattern", "x"]) == 1
    assert "database not found" in capsys.readouterr().err
    assert not db.exists()


def test_explain_recall_text_json_and_filters(
    demo_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "why does the checkout test fail in parallel"
    capsys.readouterr()
    assert main(["--db", demo_db, "explain", "recall", question, "-n", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Recall {question!r} (sqlite): stage words")
    assert "found by" in out
    assert "words: " in out
    assert main(["--db", demo_db, "explain", "recall", question, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    with Store(demo_db, read_only=True) as store:
        expected = [e.id for e in store.recall(question, limit=10).episodes]
    assert [r["id"] for r in data["results"]] == expected
    assert main(["--db", demo_db, "explain", "recall", question, "--json", "-t", "decision"]) == 0
    decisions = json.loads(capsys.readouterr().out)
    assert {r["type"] for r in decisions["results"]} == {"decision"}


def test_explain_recall_refuses_bad_filters(
    demo_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--db", demo_db, "explain", "recall", "x", "--since", "yesterdayish"]) != 0
    assert "since" in capsys.readouterr().err


def test_explain_shows_worth_counts_and_probes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from anneal_memory.probes import add_probe
    from anneal_memory.worth import record_exposure, record_outcome

    db = str(tmp_path / "memory.db")
    assert main(["--db", db, "demo"]) == 0
    with Store(db) as store:
        episode_id = (store.load_continuity() or "").split("[evidence: ", 1)[1][:8]
        shown = [f"e:{episode_id}", f"p:{DEMO_GROUNDED}"]
        ident = record_exposure(store, "test", shown)
        assert ident is not None
        record_outcome(store, ident, result="success", items=dict.fromkeys(shown, "followed"))
        probe = add_probe(store, pattern=DEMO_GROUNDED, min_level=2, note="\u202eflipped \x9b")
    capsys.readouterr()
    assert main(["--db", db, "explain", "episode", episode_id]) == 0
    out = capsys.readouterr().out
    assert "worth: surfaced 1; followed 1 (1 success, 0 failure)" in out
    assert main(["--db", db, "explain", "pattern", DEMO_GROUNDED, "--no-verify"]) == 0
    out = capsys.readouterr().out
    assert "worth: surfaced 1; followed 1 (1 success, 0 failure)" in out
    assert f"{probe.id} (at least 2x): not checked yet" in out
    assert "\u202e" not in out  # a probe's note cannot drive the terminal
    assert "\x9b" not in out
    assert "\\u202eflipped \\x9b" in out
    assert main(["--db", db, "--json", "explain", "pattern", DEMO_GROUNDED, "--no-verify"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["worth"]["followed_success"] == 1
    assert [p["id"] for p in data["probes"]] == [probe.id]
    assert data["probes_total"] == 1
