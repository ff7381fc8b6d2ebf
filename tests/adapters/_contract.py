"""The adapter contract: what every framework adapter must do, checked against the real framework.

Each adapter's test module implements :class:`AdapterHarness` for its framework (an agent
with the adapter installed, the tool :func:`lookup_fact`, and the framework's own offline fake
model driven by a list of :data:`Step` callables) as the fixture ``harness`` (next to a
``memory`` fixture), and imports the ``test_*`` functions below, which pytest then collects
there. ``tests/adapters/conftest.py`` blocks sockets and switches telemetry off for all of them.

Usage in ``tests/adapters/<framework>/test_contract.py``::

    from _contract import (  # noqa: F401 - pytest collects the shared tests here
        test_a_failing_wrap_model_never_fails_the_run,
        test_a_locked_store_never_fails_the_run,
        test_an_unparseable_wrap_reply_is_refused,
        test_an_unwritable_continuity_never_fails_the_run,
        test_baton_store_downgrades,
        test_concurrent_runs_never_echo_their_own_tool_result,
        test_empty_wrap_calls_no_model,
        test_records_tool_result_and_answer,
        test_second_run_recalls,
        test_session_two_in_a_new_process_gets_session_one,
        test_wrap_saves_one_graduation,
    )

The harness contract:

* ``run(memory, prompt, steps, wrap=...)`` runs ONE agent session through the adapter with
  ``prompt`` as the user message. Model call number ``i`` (counting every call the fake model
  receives, including the wrap's compression call) is answered with ``steps[i](input_text)``,
  where ``input_text`` is everything the model received flattened to text (system prompt /
  instructions and every message, tool results included). A :class:`ToolCall` reply must make
  the framework call that tool; a :class:`Reply` is plain text.
* The adapter records tool results and the final answer into ``memory``; with ``wrap=True``
  the adapter's session-end wrap runs with the same fake model, and ``RunResult.wrap`` is its
  ``WrapOutcome`` (``None`` when ``wrap=False``).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest
from anneal_memory import AgentMemory, EpisodeType, Store, WrapOutcome, gate

TOOL_NAME = "lookup_fact"
TOOL_OUTPUT = "The staging database listens on port 6543 behind pgbouncer."
FIRST_PROMPT = "Which port does the staging database use?"
ANSWER = "Staging uses port 6543, reached through pgbouncer."
SECOND_PROMPT = "Remind me how to reach the staging database."
SECOND_ANSWER = "Go through pgbouncer on port 6543."
PATTERN_NAME = "staging_db_via_pgbouncer"
SESSION_ID = "contract-session"

# Environment that switches every framework's telemetry off (set by conftest.py).
TELEMETRY_OFF = {
    "LANGCHAIN_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    "LANGSMITH_TRACING": "false",
    "LANGSMITH_TRACING_V2": "false",
    "LANGCHAIN_CALLBACKS_BACKGROUND": "false",
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
    "OTEL_SDK_DISABLED": "true",
    "OTEL_TRACES_EXPORTER": "none",
    "OTEL_METRICS_EXPORTER": "none",
    "OTEL_LOGS_EXPORTER": "none",
    "LOGFIRE_SEND_TO_LOGFIRE": "false",
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "ANONYMIZED_TELEMETRY": "false",
    # LiteLLM (used by CrewAI and DSPy) fetches its cost map over the network unless told not to.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
}


class NetworkBlockedError(RuntimeError):
    """A test tried to reach the network."""


def lookup_fact(topic: str) -> str:
    """Look up a fact about the project's infrastructure."""
    return TOOL_OUTPUT


@dataclass(frozen=True)
class ToolCall:
    """The model asks for a tool call."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    """The model answers with text."""

    text: str


Step = Callable[[str], "ToolCall | Reply"]


@dataclass
class RunResult:
    """What one session did: each model call's input text, in order, and the wrap outcome."""

    model_inputs: list[str]
    wrap: WrapOutcome | None = None


class AdapterHarness(Protocol):
    """One framework, with its adapter and offline fake model (see the module docstring)."""

    def run(
        self, memory: AgentMemory, prompt: str, steps: Sequence[Step], *, wrap: bool
    ) -> RunResult: ...


def call_tool(_: str) -> ToolCall:
    return ToolCall(TOOL_NAME, {"topic": "staging database"})


def answer(text: str) -> Step:
    return lambda _: Reply(text)


_EPISODE_LINE = re.compile(r"\(([0-9a-f]{8})\)[^\n]*?(\S[^\n]*)")


def ids_in(text: str, containing: str) -> list[str]:
    """Episode ids listed in ``text`` as ``(id) ...`` on a line that contains ``containing``."""
    return [m.group(1) for m in _EPISODE_LINE.finditer(text) if containing in m.group(0)]


def today_of(store: Store) -> str:
    return store.clock.now().date().isoformat()  # the wrap dates lines by the UTC day


def continuity_citing(store: Store, package: str, *, level: int) -> str:
    """A well-formed continuity with one pattern about the staging database.

    At ``level`` 1 the pattern is a bare first sighting. At 2 it cites the episodes of the
    package that mention port 6543 (the tool result and the agent's answer: tool output alone
    cannot make a pattern Proven), with an explanation that repeats their words, so the immune
    system validates the climb.
    """
    cited = ids_in(package, "6543")
    assert cited, f"the wrap package lists no episode about port 6543:\n{package[:2000]}"
    day = today_of(store)
    pattern = f"- {PATTERN_NAME} | {level}x ({day})"
    if level > 1:
        pattern += (
            f" [evidence: {', '.join(cited)} "
            '"staging database listens on port 6543 behind pgbouncer"]'
            " [no-contradicts]"
        )
    return "\n".join(
        [
            f"# {store.project_name} — Memory (v1)",
            "",
            "## State",
            "- The staging database is reachable; its port is known.",
            "",
            "## Patterns",
            pattern,
            "",
            "## Decisions",
            "- Reach staging through pgbouncer.",
            "",
            "## Context",
            "- Sessions looked up the staging database port.",
            "",
        ]
    )


def compress_step(store: Store, seen: list[str], *, level: int = 1) -> Step:
    """The wrap's compression call: keep the package it received, answer with a continuity."""

    def step(text: str) -> Reply:
        seen.append(text)
        return Reply(continuity_citing(store, text, level=level))

    return step


def _episodes(store: Store, kind: EpisodeType) -> list[Any]:
    return list(store.recall(episode_type=kind, limit=100).episodes)


# -- the checks ------------------------------------------------------------------------------


def test_records_tool_result_and_answer(harness: AdapterHarness, memory: AgentMemory) -> None:
    """(1) One run with a tool call records the tool result and the final answer."""
    result = harness.run(memory, FIRST_PROMPT, [call_tool, answer(ANSWER)], wrap=False)
    assert len(result.model_inputs) == 2
    assert TOOL_OUTPUT in result.model_inputs[1]  # the framework really ran the tool
    observations = _episodes(memory.store, EpisodeType.OBSERVATION)
    assert [TOOL_NAME in e.content and TOOL_OUTPUT in e.content for e in observations] == [True]
    assert observations[0].source == memory.policy.tool_source
    outcomes = _episodes(memory.store, EpisodeType.OUTCOME)
    assert [e.content for e in outcomes] == [ANSWER]
    assert result.wrap is None


def test_second_run_recalls(harness: AdapterHarness, memory: AgentMemory) -> None:
    """(2) A second run's model input contains the episode recalled from the first run."""
    harness.run(memory, FIRST_PROMPT, [call_tool, answer(ANSWER)], wrap=False)
    (tool_episode,) = _episodes(memory.store, EpisodeType.OBSERVATION)
    second = harness.run(memory, SECOND_PROMPT, [answer(SECOND_ANSWER)], wrap=False)
    assert len(second.model_inputs) == 1
    received = second.model_inputs[0]
    assert "Relevant memory:" in received
    assert f"({tool_episode.id}) [observation]" in received
    assert TOOL_OUTPUT in received


def test_wrap_saves_one_graduation(harness: AdapterHarness, memory: AgentMemory) -> None:
    """(3) The wrap hands the package to the framework model; its reply citing a real episode is
    saved with one validated graduation, and the next session starts with that continuity.

    A pattern climbs one rung per wrap, so a first session introduces it at 1x and a second
    session (a new ``AgentMemory`` on the same store) raises it to 2x on fresh evidence.
    """
    packages: list[str] = []
    steps = [call_tool, answer(ANSWER), compress_step(memory.store, packages, level=1)]
    first = harness.run(memory, FIRST_PROMPT, steps, wrap=True)
    assert len(packages) == 1, "the framework model did not receive the wrap package"
    assert first.wrap is not None
    assert first.wrap.status == "saved", first.wrap.message
    assert (first.wrap.graduations_validated, first.wrap.episodes_compressed) == (0, 2)

    session = AgentMemory(memory.store, session_id=memory.session_id, policy=memory.policy)
    # Fresh evidence: an answer in new words. The tool's output is the same text the turn's
    # recall showed, so it is a recalled copy and no new evidence (#30, the self-feeding loop).
    steps = [call_tool, answer(SECOND_ANSWER), compress_step(memory.store, packages, level=2)]
    second = harness.run(session, FIRST_PROMPT, steps, wrap=True)
    assert PATTERN_NAME in second.model_inputs[0]  # the startup context reached the model
    assert len(packages) == 2
    newest_tool_episode = _episodes(memory.store, EpisodeType.OBSERVATION)[0]
    assert f"({newest_tool_episode.id})" in packages[1]
    outcome = second.wrap
    assert outcome is not None
    assert outcome.status == "saved", outcome.message
    assert outcome.attempts == 1
    assert outcome.graduations_validated == 1
    assert outcome.episodes_compressed == 2
    saved = memory.store.load_continuity()
    assert saved is not None
    assert f"{PATTERN_NAME} | 2x" in saved
    assert newest_tool_episode.id in saved


def test_empty_wrap_calls_no_model(harness: AdapterHarness, memory: AgentMemory) -> None:
    """A wrap with nothing new to compress reports ``empty`` and never calls the model."""
    packages: list[str] = []
    steps = [answer(ANSWER), compress_step(memory.store, packages)]
    first = harness.run(memory, FIRST_PROMPT, steps, wrap=True)
    assert first.wrap is not None
    assert first.wrap.status == "saved", first.wrap.message
    again = harness.run(memory, FIRST_PROMPT, [answer(ANSWER)], wrap=True)
    assert again.wrap is not None
    assert again.wrap.status == "empty"  # the same answer again is a duplicate: nothing new
    assert len(again.model_inputs) == 1
    assert len(packages) == 1


def test_baton_store_downgrades(harness: AdapterHarness, memory: AgentMemory) -> None:
    """(4) On a baton-protected store a session without the baton downgrades cleanly: no model
    call for the wrap, nothing raised, recording unaffected; once the operator gives this
    session the baton, its next wrap saves."""
    gate.set_consolidate_policy(memory.store, True)
    result = harness.run(memory, FIRST_PROMPT, [call_tool, answer(ANSWER)], wrap=True)
    assert result.wrap is not None
    assert result.wrap.status == "downgraded", result.wrap.message
    assert "baton claim" in result.wrap.message
    assert len(result.model_inputs) == 2  # no compression call was made
    assert len(_episodes(memory.store, EpisodeType.OBSERVATION)) == 1  # capture still works

    assert memory.session_id is not None
    gate.claim_baton(memory.store, memory.session_id)
    packages: list[str] = []
    steps = [answer(SECOND_ANSWER), compress_step(memory.store, packages)]
    again = harness.run(memory, SECOND_PROMPT, steps, wrap=True)
    assert again.wrap is not None
    assert again.wrap.status == "saved", again.wrap.message
    assert again.wrap.episodes_compressed == 3


def test_concurrent_runs_never_echo_their_own_tool_result(
    harness: AdapterHarness, memory: AgentMemory
) -> None:
    """Four runs on one ``AgentMemory`` at once, each calling the tool: no run's model call
    after its tool call gets "Relevant memory" back (the store was empty when the turns
    began, so anything recalled there would be what the turns themselves just recorded)."""
    runs = 4
    started, tools_done = (threading.Barrier(runs, timeout=120) for _ in range(2))

    def first(text: str) -> ToolCall:
        started.wait()  # every run has its turn's memory block before any tool runs
        return call_tool(text)

    def after_tool(_: str) -> Reply:
        tools_done.wait()  # every run has run (and recorded) its tool
        return Reply(ANSWER)

    with concurrent.futures.ThreadPoolExecutor(runs) as pool:
        futures = [
            pool.submit(harness.run, memory, FIRST_PROMPT, [first, after_tool], wrap=False)
            for _ in range(runs)
        ]
        results = [f.result(timeout=300) for f in futures]
    for result in results:
        assert len(result.model_inputs) == 2
        assert TOOL_OUTPUT in result.model_inputs[1]
        assert "Relevant memory:" not in result.model_inputs[1]


def test_session_two_in_a_new_process_gets_session_one(
    harness: AdapterHarness, tmp_path: Path
) -> None:
    """Session 1 (a tool call, the answer, the wrap) and session 2 each run in a new process on
    one database: what the tool returned in session 1 is in session 2's first model input,
    as a recalled episode and through the continuity file."""
    import json
    import subprocess
    import sys

    if getattr(harness, "use_async", False) or getattr(harness, "kickoff", "kickoff") != "kickoff":
        pytest.skip("one mode per framework is enough across processes (each costs seconds)")
    conftest = sys.modules[type(harness).__module__].__file__
    child = Path(__file__).parent / "_session_child.py"
    db = tmp_path / "cross-process.db"

    def session(number: str) -> list[str]:
        done = subprocess.run(
            [
                sys.executable,
                str(child),
                str(conftest),
                type(harness).__name__,
                json.dumps(vars(harness)),
                str(db),
                number,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]

    session("1")
    first_input = session("2")[0]
    assert TOOL_OUTPUT in first_input
    assert "Relevant memory:" in first_input
    assert PATTERN_NAME in first_input  # the continuity session 1 saved


# -- failures: memory never takes the run or the answer down ---------------------------------


def _busy_timeout(store: Store, ms: int) -> None:
    with store.reading("test") as reader:
        reader.conn.execute(f"PRAGMA busy_timeout = {int(ms)}")


@contextlib.contextmanager
def write_locked(store: Store) -> Iterator[None]:
    """Hold the store's write lock from a second, real connection (the store waits briefly)."""
    _busy_timeout(store, 20)
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()
        _busy_timeout(store, 5000)


def _logged(caplog: Any) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "anneal_memory"]


def test_a_locked_store_never_fails_the_run(
    harness: AdapterHarness, memory: AgentMemory, caplog: Any
) -> None:
    """A store another process holds locked: the tool result still reaches the model, the run
    ends with its answer, and both episodes are queued, not lost: once the lock is gone the
    writer thread writes them."""
    memory.offloop.wait = 1.0  # one short bounded wait, then the record is queued
    with write_locked(memory.store), caplog.at_level(logging.WARNING, logger="anneal_memory"):
        result = harness.run(memory, FIRST_PROMPT, [call_tool, answer(ANSWER)], wrap=False)
        assert len(result.model_inputs) == 2
        assert TOOL_OUTPUT in result.model_inputs[1]
        assert _episodes(memory.store, EpisodeType.OBSERVATION) == []
    assert memory.failures.record == 0, memory.failures
    assert memory.offloop.drain(60)
    observations = _episodes(memory.store, EpisodeType.OBSERVATION)
    assert [TOOL_OUTPUT in e.content for e in observations] == [True]
    assert [e.content for e in _episodes(memory.store, EpisodeType.OUTCOME)] == [ANSWER]


class AsyncAdapterHarness(Protocol):
    """A harness whose framework runs the adapter's hooks on an asyncio event loop."""

    async def arun(
        self, memory: AgentMemory, prompt: str, steps: Sequence[Step], *, wrap: bool
    ) -> RunResult: ...


_HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


@contextlib.contextmanager
def process_holding_write_lock(path: Path) -> Iterator[Any]:
    """Another process holds the store's write lock until the block ends."""
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        holder.communicate("done\n", timeout=60)


async def _ticking(run: Any) -> tuple[RunResult, float]:
    """Run ``run`` with a ticker task on the same loop; the ticker's longest gap, in seconds."""
    import asyncio
    import time

    gaps: list[float] = [0.0]
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    task = asyncio.ensure_future(ticker())
    try:
        result = await run
    finally:
        done.set()
        await task
    return result, max(gaps)


def test_a_locked_store_never_stalls_the_event_loop(
    async_harness: AsyncAdapterHarness, memory: AgentMemory
) -> None:
    """Another process holds the store's write lock through the whole run: the run ends while
    it still holds it, a ticker task on the loop never waits longer than about one bounded
    wait (a store write on the loop would stall it 5 s and more), and nothing is lost: the
    tool result and the answer are written once the lock is gone."""
    import asyncio

    from anneal_memory.agent._offloop import DEFAULT_WAIT

    memory.offloop.wait = DEFAULT_WAIT
    path = memory.store.path
    with process_holding_write_lock(path) as holder:
        run = async_harness.arun(memory, FIRST_PROMPT, [call_tool, answer(ANSWER)], wrap=True)
        result, longest = asyncio.run(_ticking(run))
        assert holder.poll() is None  # the run ended while the lock was still held
        assert len(result.model_inputs) == 2  # no wrap was attempted against the locked store
        assert TOOL_OUTPUT in result.model_inputs[1]
    assert longest < memory.offloop.wait + 2.0, f"the event loop stalled {longest:.1f} s"
    assert memory.offloop.drain(60)
    observations = _episodes(memory.store, EpisodeType.OBSERVATION)
    assert [TOOL_OUTPUT in e.content for e in observations] == [True]
    assert [e.content for e in _episodes(memory.store, EpisodeType.OUTCOME)] == [ANSWER]
    assert memory.failures.record == 0


def test_a_failing_wrap_model_never_fails_the_run(
    harness: AdapterHarness, memory: AgentMemory, caplog: Any
) -> None:
    """The wrap's model call raises: the run still ends, the wrap is ``failed`` (logged and
    counted), and its episodes wait for the next wrap."""

    def broken(_: str) -> Reply:
        raise RuntimeError("the provider is down")

    with caplog.at_level(logging.WARNING, logger="anneal_memory"):
        result = harness.run(memory, FIRST_PROMPT, [call_tool, answer(ANSWER), broken], wrap=True)
    assert result.wrap is not None
    assert result.wrap.status == "failed", result.wrap.message
    assert "the provider is down" in result.wrap.message
    assert memory.failures.wrap == 1
    assert _logged(caplog)
    assert len(_episodes(memory.store, EpisodeType.OUTCOME)) == 1
    packages: list[str] = []
    again = AgentMemory(memory.store, session_id=memory.session_id)
    second = harness.run(
        again,
        SECOND_PROMPT,
        [answer(SECOND_ANSWER), compress_step(memory.store, packages)],
        wrap=True,
    )
    assert second.wrap is not None
    assert second.wrap.status == "saved", second.wrap.message
    assert second.wrap.episodes_compressed == 3


def test_an_unparseable_wrap_reply_is_refused(harness: AdapterHarness, memory: AgentMemory) -> None:
    """A wrap reply that is no continuity at all is refused twice, not raised."""
    nonsense = answer("Sorry, I can't help with that.")
    result = harness.run(memory, FIRST_PROMPT, [answer(ANSWER), nonsense, nonsense], wrap=True)
    assert result.wrap is not None
    assert result.wrap.status == "refused", result.wrap.message
    assert result.wrap.attempts == 2
    assert memory.failures.total == 0


def test_an_unwritable_continuity_never_fails_the_run(
    harness: AdapterHarness, memory: AgentMemory
) -> None:
    """The continuity file cannot be read or written: no startup context, the run answers,
    the wrap is ``failed``; recall and recording keep working."""
    memory.store.sidecar(".continuity.md").mkdir()
    packages: list[str] = []
    steps = [call_tool, answer(ANSWER), compress_step(memory.store, packages)]
    result = harness.run(memory, FIRST_PROMPT, steps, wrap=True)
    assert result.wrap is not None
    assert result.wrap.status == "failed", result.wrap.message
    assert memory.failures.recall >= 1
    assert memory.failures.wrap == 1
    assert len(_episodes(memory.store, EpisodeType.OBSERVATION)) == 1


README_MAX_LINES = 20


def readme_example(package: str) -> str:
    """The one ``python`` code block of ``packages/<package>/README.md``."""
    readme = Path(__file__).parents[2] / "packages" / package / "README.md"
    (code,) = re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
    return code


@contextlib.contextmanager
def default_event_loop_closed() -> Iterator[None]:
    """Run a framework's ``run_sync`` in the block, then close the event loop it left open.

    A later ``asyncio.run()`` would drop that loop unclosed: a ResourceWarning, an error
    under ``filterwarnings = error``.
    """
    import asyncio

    try:
        yield
    finally:
        policy = asyncio.get_event_loop_policy()
        with contextlib.suppress(RuntimeError):  # a later asyncio.run() already unset it
            policy.get_event_loop().close()
        policy.set_event_loop(None)


def assert_continuity_saved(folder: Path, continuity: str) -> None:
    """The README's wrap wrote ``continuity`` to ``memory.continuity.md`` in ``folder``."""
    saved = (folder / "memory.continuity.md").read_text(encoding="utf-8")
    assert saved.strip() == continuity.strip()


README_CONTINUITY = """# {project} \u2014 Memory (v1)

## State
- Billing is deployed and green.

## Patterns

## Decisions
- Check deploy status with the tool before answering.

## Context
- One session checked the billing deploy.
"""


def readme_continuity(project: str = "Ops") -> str:
    """The continuity the fake model writes at the end of every adapter's README example."""
    return README_CONTINUITY.format(project=project)


def readme_steps(packages: list[str], continuity: str) -> list[Step]:
    """The README session every adapter example runs: a ``deploy_status`` tool call, the
    answer "Billing is green.", then the wrap's compression (its package text is appended
    to ``packages``) answered with ``continuity``."""

    def compress(text: str) -> Reply:
        packages.append(text)
        return Reply(continuity)

    return [
        lambda _: ToolCall("deploy_status", {"service": "billing"}),
        answer("Billing is green."),
        compress,
    ]


def scoped_continuity(store: Store, who: str) -> str:
    """A continuity file that only ``who``'s sessions may see (``WHO-WORD`` marks it)."""
    return "\n".join(
        [
            f"# {store.project_name} \u2014 Memory (v1)",
            "",
            "## State",
            f"- Only {who} was told the secret word {who.upper()}-WORD.",
            "",
            "## Patterns",
            "",
            "## Decisions",
            "- none yet",
            "",
            "## Context",
            f"- {who} asked about the staging database.",
            "",
        ]
    )


def scoped_compress(store: Store, who: str, packages: dict[str, str]) -> Step:
    """A wrap step that keeps the package ``who``'s wrap got and saves :func:`scoped_continuity`."""

    def step(text: str) -> Reply:
        packages[who] = text
        return Reply(scoped_continuity(store, who))

    return step
