"""The wrap package is bounded: the oldest episodes that fit, the rest wait, nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store, prepare_wrap, validated_save_continuity
from anneal_memory.cli import main
from anneal_memory.continuity._package import EPISODE_SHOWN_CHARS
from anneal_memory.continuity._prepare import DEFAULT_PACKAGE_CHARS
from anneal_memory.errors import InvalidInputError
from test_save import build_text

TOOL_RESULT = "tool result {i}: " + "the upload service answered with a long JSON body " * 80


def _fill(store: Store, count: int, text: str = TOOL_RESULT) -> list[str]:
    return [store.record(text.format(i=i), "observation").id for i in range(count)]


def test_300_tool_results_make_a_package_within_the_default_budget(store: Store) -> None:
    ids = _fill(store, 300)
    prep = prepare_wrap(store)
    assert DEFAULT_PACKAGE_CHARS == 60_000
    assert prep.text is not None
    assert prep.package is not None
    assert len(prep.text) <= DEFAULT_PACKAGE_CHARS
    assert 0 < prep.episode_count < 300
    assert prep.episode_count + prep.episodes_left == 300
    assert [e.id for e in prep.package.episodes] == ids[: prep.episode_count]  # oldest first
    assert prep.package.episodes_left == prep.episodes_left
    assert f"{prep.episodes_left} more episode(s)" in prep.text
    assert f"{prep.episodes_left} more episode(s)" in prep.message
    assert json.loads(json.dumps(prep.to_dict()))["package"]["max_package_chars"] == 60_000


def test_every_episode_is_wrapped_exactly_once_across_partial_wraps(store: Store) -> None:
    _fill(store, 120)
    seen: list[str] = []
    for _ in range(60):
        prep = prepare_wrap(store, max_package_chars=20_000)
        if prep.status == "empty":
            break
        assert prep.package is not None
        assert len(prep.text or "") <= 20_000
        seen += [e.id for e in prep.package.episodes]
        if len(seen) < 60:
            store.record(f"recorded during wrap {len(seen)}", "context")  # a later wrap's
        saved = validated_save_continuity(store, build_text(), wrap_token=prep.wrap_token)
        assert saved.episodes_compressed == prep.episode_count
    assert prep.status == "empty"
    assert len(seen) == len(set(seen))
    assert store.status().episodes_since_wrap == 0
    assert len(seen) == store.status().total_episodes


def test_a_long_episode_is_cut_in_the_package_but_grounds_in_full(store: Store) -> None:
    long = store.record("x " * EPISODE_SHOWN_CHARS + "the zebra migration stalled", "outcome")
    prep = prepare_wrap(store)
    assert "the zebra migration stalled" not in (prep.text or "")
    assert f"[+{len(long.content.strip()) - EPISODE_SHOWN_CHARS} chars]" in (prep.text or "")
    line = f'- zebra | 1x (2026-03-02) [evidence: {long.id} "zebra migration stalled"]'
    saved = validated_save_continuity(store, build_text([line]), wrap_token=prep.wrap_token)
    assert "(ungrounded)" not in (store.load_continuity() or "")
    assert saved.episodes_compressed == 1


def test_at_least_one_episode_is_taken_whatever_the_budget(store: Store) -> None:
    _fill(store, 3)
    prep = prepare_wrap(store, max_package_chars=5_000)
    assert prep.episode_count == 1
    assert prep.episodes_left == 2


@pytest.mark.parametrize("bad", [4_999, 0, True, "60000", None])
def test_the_budget_is_checked(store: Store, bad: object) -> None:
    store.record("x", "observation")
    with pytest.raises(InvalidInputError, match="max_package_chars"):
        prepare_wrap(store, max_package_chars=bad)  # type: ignore[arg-type]


def test_the_retry_prompt_stays_within_the_budget_and_shows_code_values(store: Store) -> None:
    _fill(store, 300)
    prompts: list[str] = []

    def compress(package: str) -> str:
        prompts.append(package)
        return "# no sections at all\n"

    outcome = AgentMemory(store).wrap(compress)
    assert outcome.status == "refused"
    assert len(prompts) == 2
    assert all(len(p) <= DEFAULT_PACKAGE_CHARS for p in prompts)
    assert "- missing-section: " in prompts[1]
    assert "FindingCode." not in prompts[1]


def test_the_cli_takes_a_package_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cli.db")
    assert main(["--db", db, "init", "--no-baton"]) == 0
    for i in range(40):
        assert main(["--db", db, "record", TOOL_RESULT.format(i=i)]) == 0
    capsys.readouterr()
    assert main(["--db", db, "--json", "prepare-wrap", "--max-package-chars", "8000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["episodes_left"] == 40 - data["episode_count"]
    assert len(data["text"]) <= 8000


def test_agent_memory_says_how_many_episodes_wait(store: Store) -> None:
    from anneal_memory.testing import demo_compress

    _fill(store, 300)
    outcome = AgentMemory(store).wrap(demo_compress)
    assert outcome.status == "saved", outcome.message
    left = 300 - outcome.episodes_compressed
    assert left > 0
    assert f"{left} more episode(s) did not fit" in outcome.message
    assert store.status().episodes_since_wrap == left
