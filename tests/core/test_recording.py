"""The shared recording policy and the text blocks AgentMemory renders (pure functions)."""

from __future__ import annotations

import pytest
from anneal_memory import Episode, EpisodeType, InvalidInputError, RecordingPolicy
from anneal_memory.agent._recording import (
    CONTEXT_HEADER,
    STARTUP_HEADER,
    has_content_words,
    render_context,
    render_startup,
    render_tool_result,
    shape_text,
    truncate,
)
from hypothesis import given
from hypothesis import strategies as st


def episode(eid: str, content: str, kind: EpisodeType = EpisodeType.OBSERVATION) -> Episode:
    return Episode(id=eid, timestamp="2026-03-02T09:00:00.000000Z", type=kind, content=content)


def test_truncate_keeps_short_text_and_marks_what_it_cuts() -> None:
    assert truncate("short", 10) == "short"
    cut = truncate("x" * 1000, 100)
    assert len(cut) <= 100
    assert cut.endswith(f" … [truncated {1000 - cut.index(' …'):,} chars]")


@given(st.text(max_size=3000), st.integers(min_value=40, max_value=2000))
def test_truncate_never_exceeds_its_limit(text: str, limit: int) -> None:
    out = truncate(text, limit)
    assert len(out) <= limit
    assert out == text or "[truncated" in out


def test_shape_text_strips_blank_nul_and_surrogates() -> None:
    assert shape_text("   \n\t ", 100) is None
    assert shape_text("a\x00b", 100) == "a\ufffdb"
    assert shape_text("bad \ud800 half", 100) == "bad ? half"
    assert shape_text("  padded  ", 100) == "padded"


def test_tool_results_render_as_name_arrow_result() -> None:
    assert render_tool_result("search", "three hits") == "search -> three hits"
    assert render_tool_result("calc", {"b": 2, "a": 1}) == 'calc -> {"a": 1, "b": 2}'
    assert render_tool_result("raw", b"bytes \xff") == "raw -> bytes \ufffd"
    loop: list[object] = []
    loop.append(loop)
    assert render_tool_result(" ", loop) == "tool -> [[...]]"


def test_content_words_ignore_stopwords() -> None:
    assert not has_content_words("what is it, and how?")
    assert not has_content_words("?!  ...")
    assert has_content_words("what is pgbouncer?")


def test_context_block_lists_id_type_and_one_line_content() -> None:
    block = render_context(
        [episode("0a1b2c3d", "line one\nline two"), episode("4e5f6a7b", "x", EpisodeType.DECISION)],
        500,
    )
    assert block.splitlines() == [
        CONTEXT_HEADER,
        "- (0a1b2c3d) [observation] line one line two",
        "- (4e5f6a7b) [decision] x",
    ]
    assert render_context([], 500) == ""


def test_context_block_respects_its_bound_and_says_what_it_left_out() -> None:
    many = [episode(f"{i:08x}", "word " * 200) for i in range(10)]
    block = render_context(many, 1000)
    assert len(block) <= 1000
    assert block.splitlines()[-1].startswith("(+")
    assert "more not shown" in block
    assert render_context(many, 30) == ""


@given(st.lists(st.text(min_size=1, max_size=500), max_size=8), st.integers(20, 3000))
def test_context_block_is_always_bounded(contents: list[str], bound: int) -> None:
    block = render_context([episode(f"{i:08x}", c) for i, c in enumerate(contents)], bound)
    assert len(block) <= bound
    assert block == "" or block.startswith(CONTEXT_HEADER)


def test_startup_block_is_empty_without_continuity_and_bounded_with_it() -> None:
    assert render_startup(None, 1000) == ""
    assert render_startup("  \n", 1000) == ""
    block = render_startup("# Agent\n\n## State\n" + "s" * 5000, 1000)
    assert block.startswith(STARTUP_HEADER)
    assert len(block) <= 1000
    assert "[truncated" in block


def test_policy_defaults_map_tools_to_observations_and_answers_to_outcomes() -> None:
    policy = RecordingPolicy()
    assert policy.tool_result_type is EpisodeType.OBSERVATION
    assert policy.answer_type is EpisodeType.OUTCOME
    assert policy.tool_source == "tool"
    custom = RecordingPolicy(answer_type="decision", ignore_tools={"noisy"})  # type: ignore[arg-type]
    assert custom.answer_type is EpisodeType.DECISION
    assert custom.ignore_tools == frozenset({"noisy"})


@pytest.mark.parametrize(
    "kwargs", [{"max_chars": 0}, {"max_chars": 10**6}, {"query_chars": True}, {"query_chars": -1}]
)
def test_policy_rejects_bad_bounds(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError):
        RecordingPolicy(**kwargs)  # type: ignore[arg-type]


def test_policy_rejects_unknown_episode_types() -> None:
    with pytest.raises(ValueError, match="unknown episode type"):
        RecordingPolicy(tool_result_type="note")  # type: ignore[arg-type]


def test_render_value_handles_structured_outputs() -> None:
    from anneal_memory.agent._recording import render_value

    class Model:
        def model_dump(self, *, mode: str) -> dict[str, object]:
            assert mode == "json"
            return {"answer": 42, "why": "dumped"}

    class Broken:
        def model_dump(self, *, mode: str) -> dict[str, object]:
            raise RuntimeError("cannot dump")

        def __repr__(self) -> str:
            return "<Broken>"

    assert render_value("plain") == "plain"
    assert render_value(b"bytes \xff") == "bytes \ufffd"
    assert render_value({"b": 1, "a": [1, 2]}) == '{"a": [1, 2], "b": 1}'
    assert render_value(Model()) == '{"answer": 42, "why": "dumped"}'
    assert render_value(Broken()) == "<Broken>"


def test_record_answer_records_structured_output_as_json(store) -> None:  # type: ignore[no-untyped-def]
    from anneal_memory import AgentMemory

    memory = AgentMemory(store)
    episode = memory.record_answer({"city": "Lisbon", "days": 3})
    assert episode is not None
    assert episode.content == '{"city": "Lisbon", "days": 3}'
    assert episode.type.value == "outcome"
