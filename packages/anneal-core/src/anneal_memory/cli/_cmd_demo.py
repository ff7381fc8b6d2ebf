"""``anneal-memory demo``: a short scripted agent session, recorded and recalled.

The session is a list of :class:`DemoStep` in ``DEMO_STEPS``; each step gets the shared
:class:`DemoSession`, prints what it did through ``session.say`` and returns a JSON-ready
dict for ``--json``. Later features extend the tour by appending a step (e.g. a wrap).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from anneal_memory.cli._context import Context, ExitCode
from anneal_memory.cli._demo_session import DEMO_SOURCE, DemoSession, DemoStep

__all__ = ["DEMO_EPISODES", "DEMO_STEPS", "DemoSession", "DemoStep", "add_commands"]

# (type, text): an agent chasing a flaky test, in the order it would record them.
DEMO_EPISODES: tuple[tuple[str, str], ...] = (
    (
        "context",
        "Repository payments-api: Python 3.12, pytest with xdist (-n 4), Postgres 16 "
        "started by docker-compose for the test suite.",
    ),
    (
        "observation",
        "test_checkout_total fails about one run in five, and only when the suite runs in "
        "parallel; alone it always passes.",
    ),
    (
        "question",
        "Do the parallel pytest workers share one Postgres database and see each other's rows?",
    ),
    (
        "observation",
        "Every xdist worker connects to the same database payments_test, so a cart created by "
        "one worker shows up in another worker's checkout total.",
    ),
    (
        "tension",
        "A retry decorator would make the flaky test green today, but it would also hide real "
        "race conditions in checkout.",
    ),
    (
        "decision",
        "Give each pytest worker its own database (payments_test_gw0, gw1, ...) created from "
        "a template, instead of retrying the flaky test.",
    ),
    (
        "decision",
        "Keep the template database migrated once per session so per-worker setup stays "
        "under a second.",
    ),
    (
        "outcome",
        "With per-worker databases the checkout suite passed 50 of 50 parallel runs; setup "
        "grew by 0.8 s.",
    ),
)

DEMO_QUESTION = "why does the checkout test fail when the tests run in parallel?"


def _step_record(session: DemoSession) -> dict[str, Any]:
    from anneal_memory.cli._render import one_line

    session.say("1. While it works, the agent records what happens, one typed episode each:")
    recorded = []
    for kind, text in DEMO_EPISODES:
        episode = session.store.record(text, kind, source=DEMO_SOURCE)
        session.episode_ids.append(episode.id)
        recorded.append({"id": episode.id, "type": kind})
        session.say(f"   {episode.id}  {kind:<11}  {one_line(text, 72)}")
    session.say()
    return {"recorded": recorded}


def _step_recall(session: DemoSession) -> dict[str, Any]:
    from anneal_memory.cli._render import one_line

    session.say("2. Before its next move it asks its memory a plain question:")
    session.say(f"   recall({DEMO_QUESTION!r})")
    result = session.store.recall(DEMO_QUESTION, limit=3)
    for rank, episode in enumerate(result.episodes, 1):
        session.say(f"   {rank}. {episode.type.value:<11}  {one_line(episode.content, 72)}")
    session.say(
        f"   ({result.total_matching} episodes share words with the question; the best come first)"
    )
    session.say()
    return {
        "query": DEMO_QUESTION,
        "total_matching": result.total_matching,
        "top_ids": [e.id for e in result.episodes],
    }


def _step_filter(session: DemoSession) -> dict[str, Any]:
    from anneal_memory.cli._render import one_line

    session.say("3. And it lists what it decided (a filter, no keyword; newest first):")
    result = session.store.recall(episode_type="decision", source=DEMO_SOURCE, limit=10)
    for episode in result.episodes:
        session.say(f"   {episode.id}  {one_line(episode.content, 80)}")
    session.say()
    return {"filter": {"type": "decision"}, "ids": [e.id for e in result.episodes]}


def _step_wrap(session: DemoSession) -> dict[str, Any]:
    from anneal_memory.cli._demo_wrap import step_wrap

    return step_wrap(session)


def _step_memory(session: DemoSession) -> dict[str, Any]:
    from anneal_memory.cli._demo_memory import step_memory

    return step_memory(session)


DEMO_STEPS: list[DemoStep] = [
    DemoStep(name="record", run=_step_record),
    DemoStep(name="recall", run=_step_recall),
    DemoStep(name="filter", run=_step_filter),
    DemoStep(name="wrap", run=_step_wrap),
    DemoStep(name="memory", run=_step_memory),
]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``demo``."""
    demo = subparsers.add_parser(
        "demo",
        parents=parents,
        help="run a short scripted agent session and show what it remembers",
        description="Record a short, realistic agent session, recall from it by question and "
        "by filter, and print where the files are. Uses a new temporary folder unless --db "
        "is given (the environment's ANNEAL_MEMORY_DB is never touched).",
    )
    demo.set_defaults(handler=run_demo)


# What the files beside the database are, by the end of their name (lock files are omitted).
_FILE_ROLES = (
    (".db", "the episodes (SQLite)"),
    (".continuity.md", "the continuity file the agent loads at session start"),
    (".audit.jsonl", "the hash-chained audit trail"),
    (".audit.manifest.json", "the audit trail's manifest"),
)


def _store_files(db: Path) -> list[Path]:
    return sorted(
        p
        for p in db.parent.iterdir()
        if p.name.startswith(db.stem) and p.is_file() and not p.name.endswith(".lock")
    )


def _role(path: Path) -> str:
    return next((role for end, role in _FILE_ROLES if path.name.endswith(end)), "")


def _epilogue(session: DemoSession, files: list[Path]) -> None:
    import shlex

    db = session.store.path
    where = " (a new temporary folder; delete it when you are done)" if session.temporary else ""
    session.say(f"Files{where}:")
    width = max((len(str(path)) for path in files), default=0)
    for path in files:
        session.say(f"   {path!s:<{width}}  {_role(path)}".rstrip())
    session.say()
    session.say("Look around:")
    prefix = f"anneal-memory --db {shlex.quote(str(db))}"
    session.say(f"   {prefix} episodes")
    session.say(f"   {prefix} search {shlex.quote('parallel database')}")
    session.say(f"   {prefix} stats")


def run_demo(ctx: Context, args: argparse.Namespace) -> int:
    """Run every step of ``DEMO_STEPS`` on a temporary store (or ``--db``)."""
    temporary = not args.db
    if temporary:
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="anneal-memory-demo-"))
        ctx.args.db = str(folder / "memory.db")
    store = ctx.store()
    session = DemoSession(ctx, store, temporary=temporary)
    session.say(f"anneal-memory demo: an agent fixes a flaky test. Store: {store.path}")
    session.say()
    steps = [{"name": step.name, **step.run(session)} for step in DEMO_STEPS]
    ctx.close()  # checkpoint and close, so the files listed are the ones that stay
    files = _store_files(store.path)
    _epilogue(session, files)
    ctx.emit(
        {
            "db": str(store.path),
            "temporary": temporary,
            "steps": steps,
            "files": [str(p) for p in files],
        }
    )
    return ExitCode.OK
