"""AgentMemory: the lifecycle every adapter drives. No framework is imported here."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import anneal_memory
import pytest
from anneal_memory import (
    AgentMemory,
    EpisodeType,
    InvalidInputError,
    RecordingPolicy,
    Store,
    StoreClosedError,
    WrapOutcomeStatus,
    gate,
)
from anneal_memory.testing import FrozenClock
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import backend_store, pg_url, put_continuity, target  # noqa: F401 - fixtures


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    """Every test here runs on SQLite and on PostgreSQL (one test body)."""
    return backend_store


SESSION = "core-session"


@pytest.fixture
def memory(store: Store) -> AgentMemory:
    return AgentMemory(store, session_id=SESSION)


# -- construction ------------------------------------------------------------------------------


def test_a_path_opens_a_store_that_close_closes(tmp_path: Path, clock: FrozenClock) -> None:
    with AgentMemory(tmp_path / "m.db", project_name="Bot", clock=clock) as mem:
        assert mem.store.project_name == "Bot"
        assert mem.record("opened from a path") is not None
    with pytest.raises(StoreClosedError):
        mem.store.recall()


def test_a_given_store_stays_open(store: Store) -> None:
    AgentMemory(store).close()
    assert store.recall().total_matching == 0


@pytest.mark.parametrize("name", ["recall_limit", "context_chars", "startup_chars"])
@pytest.mark.parametrize("value", [0, -1, True, 2.5])
def test_bounds_must_be_positive_ints(store: Store, name: str, value: object) -> None:
    with pytest.raises(InvalidInputError, match=name):
        AgentMemory(store, **{name: value})  # type: ignore[arg-type]


# -- recording ---------------------------------------------------------------------------------


def test_record_writes_an_episode(memory: AgentMemory) -> None:
    episode = memory.record("chose sqlite", EpisodeType.DECISION, metadata={"k": 1})
    assert episode is not None
    assert memory.store.get(episode.id) == episode
    assert episode.type is EpisodeType.DECISION
    assert dict(episode.metadata) == {"k": 1}


def test_blank_text_is_skipped(memory: AgentMemory) -> None:
    assert memory.record("  \n ") is None
    assert memory.record_answer("") is None
    assert memory.store.status().total_episodes == 0


def test_exact_duplicates_of_one_type_are_skipped(memory: AgentMemory) -> None:
    assert memory.record("same text") is not None
    assert memory.record("  same text ") is None
    assert memory.record("same text", "decision") is not None
    assert memory.store.status().total_episodes == 2


def test_duplicates_are_per_session(store: Store) -> None:
    assert AgentMemory(store).record("same text") is not None
    assert AgentMemory(store).record("same text") is not None


def test_duplicates_can_be_kept(store: Store) -> None:
    mem = AgentMemory(store, policy=RecordingPolicy(skip_duplicates=False))
    assert mem.record("again") is not None
    assert mem.record("again") is not None


def test_long_text_is_cut_with_an_explicit_marker(store: Store) -> None:
    mem = AgentMemory(store, policy=RecordingPolicy(max_chars=100))
    episode = mem.record("y" * 5000)
    assert episode is not None
    assert len(episode.content) <= 100
    assert re.search(r" … \[truncated [\d,]+ chars\]$", episode.content)


def test_the_largest_policy_cap_always_fits_the_store(store: Store) -> None:
    big = RecordingPolicy().__class__(max_chars=16_000)
    mem = AgentMemory(store, policy=big)
    assert mem.record("\U0001f600" * 20_000) is not None  # 4 bytes each in UTF-8


def test_text_the_store_would_refuse_is_repaired(memory: AgentMemory) -> None:
    episode = memory.record("nul\x00 and \udc80 surrogate")
    assert episode is not None
    assert episode.content == "nul\ufffd and ? surrogate"


def test_record_refuses_non_text(memory: AgentMemory) -> None:
    with pytest.raises(InvalidInputError, match="text must be str"):
        memory.record(b"bytes")  # type: ignore[arg-type]


def test_tool_results_become_tool_observations(memory: AgentMemory) -> None:
    episode = memory.record_tool_result("weather", {"city": "Oslo", "c": -3}, metadata={"x": 1})
    assert episode is not None
    assert episode.type is EpisodeType.OBSERVATION
    assert episode.source == "tool"
    assert episode.content == 'weather -> {"c": -3, "city": "Oslo"}'
    assert dict(episode.metadata) == {"tool": "weather", "x": 1}


def test_ignored_tools_and_switched_off_events_record_nothing(store: Store) -> None:
    policy = RecordingPolicy(
        ignore_tools=frozenset({"noisy"}), record_answers=False, record_tool_results=True
    )
    mem = AgentMemory(store, policy=policy)
    assert mem.record_tool_result("noisy", "x") is None
    assert mem.record_answer("the answer") is None
    off = AgentMemory(store, policy=RecordingPolicy(record_tool_results=False))
    assert off.record_tool_result("weather", "sunny") is None
    assert store.status().total_episodes == 0


def test_answers_become_outcomes(memory: AgentMemory) -> None:
    episode = memory.record_answer("Oslo is at -3 C.")
    assert episode is not None
    assert (episode.type, episode.source) == (EpisodeType.OUTCOME, "agent")


# -- recall ------------------------------------------------------------------------------------


def test_context_for_lists_relevant_episodes(memory: AgentMemory) -> None:
    hit = memory.record("The staging database listens on port 6543.")
    memory.record("Lunch was pasta.")
    assert hit is not None
    block = memory.context_for("which port does staging use?")
    assert block.splitlines() == [
        "Relevant memory:",
        f"- ({hit.id}) [observation] The staging database listens on port 6543.",
    ]


def test_context_for_is_empty_when_nothing_is_relevant(memory: AgentMemory) -> None:
    assert memory.context_for("anything at all") == ""  # empty store
    memory.record("The staging database listens on port 6543.")
    assert memory.context_for("quantum gardening") == ""
    assert memory.context_for("   ") == ""  # not "the newest episodes"
    assert memory.context_for("what is it?") == ""  # only stopwords


def test_context_for_respects_its_limits(store: Store) -> None:
    mem = AgentMemory(store, recall_limit=3, context_chars=600)
    for i in range(20):
        mem.record(f"deploy note {i}: " + "detail " * 80)
    block = mem.context_for("deploy detail")
    assert len(block) <= 600
    assert 1 <= block.count("\n- (") <= 3


def test_context_for_only_searches_the_start_of_a_huge_prompt(store: Store) -> None:
    mem = AgentMemory(store, policy=RecordingPolicy(query_chars=50))
    mem.record("pgbouncer fronts the staging database")
    assert mem.context_for("pgbouncer " + "x" * 100_000) != ""
    assert mem.context_for("x" * 100 + " pgbouncer") == ""


def test_context_for_never_raises_on_any_prompt(store: Store) -> None:
    mem = AgentMemory(store, context_chars=300)
    mem.record('NEAR(a b) "quoted" col:value * ^start OR AND NOT -- ; DROP TABLE episodes')
    hostile = ['"', "NEAR(", "a* OR b*", "\x00", "\ud800", "🙂" * 50, "-- ;", "ß" * 10_000]
    for prompt in hostile:
        assert len(mem.context_for(prompt)) <= 300

    @settings(max_examples=examples(150), deadline=None)
    @given(st.text(max_size=400))
    def check(prompt: str) -> None:
        assert len(mem.context_for(prompt)) <= 300

    check()


# -- start -------------------------------------------------------------------------------------


def test_start_is_empty_without_a_continuity(memory: AgentMemory) -> None:
    assert memory.start() == ""


def test_start_loads_the_continuity_bounded(store: Store) -> None:
    put_continuity(store, "# Agent — Memory (v1)\n\n## State\n" + "- busy\n" * 2000)
    block = AgentMemory(store, startup_chars=500).start()
    assert block.startswith("Memory from earlier sessions")
    assert "## State" in block
    assert len(block) <= 500


# -- turn_context ------------------------------------------------------------------------------

STAGING = "The staging database listens on port 6543."
QUESTION = "which port does staging use?"


def write_continuity(store: Store, state: str) -> None:
    put_continuity(store, f"# Agent — Memory (v1)\n\n## State\n- {state}\n")


def test_turn_context_joins_startup_and_recall_with_one_blank_line(memory: AgentMemory) -> None:
    assert memory.turn_context(QUESTION, turn=1) == ""  # no continuity, nothing recalled
    memory.record(STAGING)
    assert memory.turn_context(QUESTION, turn=2) == memory.context_for(QUESTION)
    write_continuity(memory.store, "Staging is being migrated.")
    block = memory.turn_context(QUESTION, turn=3)
    assert block == f"{memory.start().strip()}\n\n{memory.context_for(QUESTION).strip()}"
    assert "\n\n\n" not in block
    assert block == block.strip()
    assert memory.turn_context("quantum gardening", turn=4) == memory.start().strip()


def test_turn_context_is_cached_while_the_turn_is_unchanged(memory: AgentMemory) -> None:
    memory.record(STAGING)
    first = memory.turn_context(QUESTION, turn="run-1")
    # A tool result recorded mid-turn, a new continuity, even another prompt: same block.
    memory.record("Staging port 6543 was confirmed by the tool.")
    write_continuity(memory.store, "Staging is being migrated.")
    assert memory.turn_context(QUESTION, turn="run-1") == first
    assert memory.turn_context("what about staging ports?", turn="run-1") == first
    fresh = memory.turn_context(QUESTION, turn="run-2")
    assert "confirmed by the tool" in fresh
    assert "being migrated" in fresh
    assert "confirmed by the tool" not in first


def test_turn_context_without_a_turn_is_keyed_by_the_prompt(memory: AgentMemory) -> None:
    memory.record(STAGING)
    first = memory.turn_context(QUESTION)
    memory.record("Staging port 6543 was confirmed by the tool.")
    assert memory.turn_context(QUESTION) == first
    assert "confirmed" in memory.turn_context("staging port confirmed?")
    assert "confirmed" in memory.turn_context(QUESTION)  # the key changed in between


def test_a_turn_key_never_matches_a_prompt_key(memory: AgentMemory) -> None:
    memory.record(STAGING)
    assert memory.turn_context(QUESTION, turn=QUESTION) != ""
    memory.record("Staging port 6543 was confirmed by the tool.")
    assert "confirmed" in memory.turn_context(QUESTION)


def test_fresh_objects_as_turns_recall_every_time(memory: AgentMemory) -> None:
    memory.record(STAGING)
    assert "confirmed" not in memory.turn_context(QUESTION, turn=object())
    memory.record("Staging port 6543 was confirmed by the tool.")
    assert "confirmed" in memory.turn_context(QUESTION, turn=object())


def test_turn_context_never_raises_on_any_prompt(store: Store) -> None:
    mem = AgentMemory(store, context_chars=300)
    mem.record('NEAR(a b) "quoted" col:value * ^start OR AND NOT -- ; DROP TABLE episodes')
    for turn, prompt in enumerate(['"', "NEAR(", "\x00", "\ud800", "", "   ", "-- ;"]):
        assert len(mem.turn_context(prompt, turn=turn)) <= 300


# -- wrap --------------------------------------------------------------------------------------

_LINE = re.compile(r"- \(([0-9a-f]{8})\) ([^\n]*)")


def continuity(store: Store, package: str, *, level: int = 1, cite: str = "6543") -> str:
    """A valid continuity with one pattern; at 2x it cites the package episode with ``cite``."""
    ids = [m.group(1) for m in _LINE.finditer(package) if cite in m.group(2)]
    assert ids, package
    day = store.clock.now().date().isoformat()
    pattern = f"- staging_port | {level}x ({day})"
    if level > 1:
        pattern += f' [evidence: {ids[0]} "staging database listens on port 6543"] [no-contradicts]'
    return (
        f"# {store.project_name} — Memory (v1)\n\n## State\n- Staging is known.\n\n"
        f"## Patterns\n{pattern}\n\n"
        "## Decisions\n- Use pgbouncer.\n\n## Context\n- One session.\n"
    )


class Compressor:
    """Answers with ``replies`` in order (a callable reply gets the package); keeps prompts."""

    def __init__(self, store: Store, *replies: object) -> None:
        self.store = store
        self.replies = list(replies) or ["valid"]
        self.prompts: list[str] = []

    def __call__(self, package: str) -> str:
        self.prompts.append(package)
        reply = self.replies[min(len(self.prompts), len(self.replies)) - 1]
        return continuity(self.store, package) if reply == "valid" else str(reply)


def seed(memory: AgentMemory) -> None:
    memory.record("The staging database listens on port 6543 behind pgbouncer.")


def test_wrap_of_an_empty_store_reports_empty_without_calling_the_model(
    memory: AgentMemory,
) -> None:
    compress = Compressor(memory.store)
    outcome = memory.wrap(compress)
    assert outcome.status is WrapOutcomeStatus.EMPTY
    assert (outcome.attempts, compress.prompts) == (0, [])
    assert not outcome.saved


def test_wrap_saves_and_a_second_session_graduates_the_pattern(memory: AgentMemory) -> None:
    seed(memory)
    compress = Compressor(memory.store)
    outcome = memory.wrap(compress)
    assert outcome.status == "saved", outcome.message
    assert outcome.saved
    assert (outcome.attempts, outcome.episodes_compressed, outcome.graduations_validated) == (
        1,
        1,
        0,
    )
    assert outcome.wrap_id is not None
    assert outcome.save is not None
    assert "staging_port | 1x" in memory.start()
    assert memory.wrap(compress).status == "empty"

    later = AgentMemory(memory.store, session_id=SESSION)
    seed(later)
    graduated = later.wrap(lambda p: continuity(memory.store, p, level=2))
    assert graduated.status == "saved", graduated.message
    assert graduated.graduations_validated == 1
    assert "staging_port | 2x" in later.start()


def test_a_fenced_reply_is_unwrapped(memory: AgentMemory) -> None:
    seed(memory)
    outcome = memory.wrap(lambda p: "```markdown\n" + continuity(memory.store, p) + "```")
    assert outcome.status == "saved", outcome.message


def test_a_refused_save_is_retried_once_with_the_reason(memory: AgentMemory) -> None:
    seed(memory)
    compress = Compressor(memory.store, "no sections at all", "valid")
    outcome = memory.wrap(compress)
    assert outcome.status == "saved", outcome.message
    assert outcome.attempts == 2
    first, retry = compress.prompts
    assert retry.startswith(first)
    assert "## Your previous continuity was refused" in retry[len(first) :]


def test_two_refusals_report_refused_and_free_the_wrap(memory: AgentMemory) -> None:
    seed(memory)
    compress = Compressor(memory.store, "still no sections")
    outcome = memory.wrap(compress)
    assert outcome.status is WrapOutcomeStatus.REFUSED
    assert outcome.attempts == 2
    assert "refused twice" in outcome.message
    assert memory.wrap(Compressor(memory.store)).status == "saved"  # the wrap was cancelled


def test_a_failing_model_is_a_failed_outcome_and_frees_the_wrap(memory: AgentMemory) -> None:
    seed(memory)

    def broken(package: str) -> str:
        raise TimeoutError("model timed out")

    outcome = memory.wrap(broken)
    assert outcome.status is WrapOutcomeStatus.FAILED
    assert "TimeoutError: model timed out" in outcome.message
    assert memory.failures.wrap == 1
    assert memory.wrap(Compressor(memory.store)).status == "saved"


def test_a_failing_model_raises_when_strict(store: Store) -> None:
    memory = AgentMemory(store, session_id=SESSION, strict=True)
    seed(memory)

    def broken(package: str) -> str:
        raise TimeoutError("model timed out")

    with pytest.raises(TimeoutError):
        memory.wrap(broken)
    assert memory.wrap(Compressor(memory.store)).status == "saved"


def test_a_non_text_reply_is_an_input_error(memory: AgentMemory) -> None:
    seed(memory)
    with pytest.raises(InvalidInputError, match="got int"):
        memory.wrap(lambda package: 42)  # type: ignore[arg-type,return-value]
    assert memory.wrap(Compressor(memory.store)).status == "saved"


def test_an_open_wrap_is_reported_not_raised(memory: AgentMemory) -> None:
    seed(memory)
    anneal_memory.prepare_wrap(memory.store, session_id=SESSION)
    compress = Compressor(memory.store)
    outcome = memory.wrap(compress)
    assert outcome.status is WrapOutcomeStatus.REFUSED
    assert compress.prompts == []


def test_sync_wrap_runs_an_async_compressor(memory: AgentMemory) -> None:
    seed(memory)

    async def compress(package: str) -> str:
        await asyncio.sleep(0)
        return continuity(memory.store, package)

    assert memory.wrap(compress).status == "saved"


def test_awrap_takes_sync_and_async_callables(store: Store) -> None:
    first, second = AgentMemory(store), AgentMemory(store)

    async def acompress(package: str) -> str:
        return continuity(store, package)

    async def main() -> tuple[str, str]:
        first.record("port 6543 is the staging database port")
        a = await first.awrap(acompress)
        second.record("staging database on 6543 again today")
        b = await second.awrap(lambda p: continuity(store, p))
        return a.status, b.status

    assert asyncio.run(main()) == ("saved", "saved")


def test_sync_wrap_inside_a_running_loop_asks_for_awrap(memory: AgentMemory) -> None:
    seed(memory)

    async def acompress(package: str) -> str:
        return continuity(memory.store, package)

    async def main() -> None:
        with pytest.raises(InvalidInputError, match="awrap"):
            memory.wrap(acompress)

    asyncio.run(main())
    assert memory.wrap(Compressor(memory.store)).status == "saved"


def test_affect_self_report_sees_the_compressed_text(memory: AgentMemory) -> None:
    seed(memory)
    seen: list[str] = []

    def report(text: str) -> anneal_memory.Affect:
        seen.append(text)
        return anneal_memory.Affect(tag="satisfied", intensity=0.6)

    outcome = memory.wrap(Compressor(memory.store), affect=report)
    assert outcome.status == "saved", outcome.message
    assert len(seen) == 1
    assert "staging_port" in seen[0]


def test_a_fixed_affect_is_passed_to_the_save(memory: AgentMemory) -> None:
    seed(memory)
    feeling = anneal_memory.Affect(tag="calm", intensity=0.2)
    assert memory.wrap(Compressor(memory.store), affect=feeling).status == "saved"


# -- the gate ----------------------------------------------------------------------------------


def test_a_baton_store_downgrades_without_calling_the_model(memory: AgentMemory) -> None:
    gate.set_consolidate_policy(memory.store, True)
    seed(memory)
    compress = Compressor(memory.store)
    outcome = memory.wrap(compress)
    assert outcome.status is WrapOutcomeStatus.DOWNGRADED
    assert "baton claim" in outcome.message
    assert compress.prompts == []
    assert memory.record("capture still works") is not None
    gate.claim_baton(memory.store, SESSION)
    assert memory.wrap(compress).status == "saved"


def test_losing_the_baton_mid_wrap_is_a_refusal(memory: AgentMemory) -> None:
    gate.set_consolidate_policy(memory.store, True)
    gate.claim_baton(memory.store, SESSION)
    seed(memory)

    def compress_while_the_operator_moves_the_baton(package: str) -> str:
        gate.claim_baton(memory.store, "other-session", take=True)
        return continuity(memory.store, package)

    outcome = memory.wrap(compress_while_the_operator_moves_the_baton)
    assert outcome.status is WrapOutcomeStatus.REFUSED
    assert outcome.attempts == 1
    assert memory.store.load_continuity() is None


def test_a_cancelled_async_wrap_frees_the_wrap(memory: AgentMemory) -> None:
    seed(memory)

    async def hangs(package: str) -> str:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async def main() -> None:
        task = asyncio.ensure_future(memory.awrap(hangs))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert memory.wrap(Compressor(memory.store)).status == "saved"


def test_of_returns_the_same_memory_or_builds_one(store) -> None:  # type: ignore[no-untyped-def]
    from anneal_memory import AgentMemory, RecordingPolicy

    built = AgentMemory.of(store, session_id="s1", policy=RecordingPolicy(max_chars=50))
    assert built.store is store
    assert built.session_id == "s1"
    assert built.policy.max_chars == 50
    assert AgentMemory.of(built, session_id="other") is built


def test_wrap_due_counts_the_episodes_waiting(memory: AgentMemory) -> None:
    assert memory.wrap_due(None) is False
    assert memory.wrap_due(1) is False
    seed(memory)
    assert memory.wrap_due(1) is True
    assert memory.wrap_due(2) is False
    with pytest.raises(InvalidInputError, match="every"):
        memory.wrap_due(0)
