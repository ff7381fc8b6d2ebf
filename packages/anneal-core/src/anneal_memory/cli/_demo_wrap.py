"""The demo's last step: two session-end wraps through the real immune system.

The first wrap compresses the recorded session; a short second session adds two episodes
and the second wrap shows a pattern climbing to 2x on grounded evidence while an invented
one is demoted with its reason. The compressor is ``anneal_memory.testing.demo_compress``,
a deterministic stand-in for the agent's model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anneal_memory.cli._demo_session import DemoSession
    from anneal_memory.continuity import SaveResult

__all__ = ["FOLLOW_UP_EPISODES", "step_wrap"]

FOLLOW_UP_EPISODES: tuple[tuple[str, str], ...] = (
    (
        "outcome",
        "With per-worker Postgres databases the parallel pytest workers no longer "
        "see each other's rows; checkout totals stayed correct in 30 of 30 runs.",
    ),
    (
        "observation",
        "The template database keeps per-worker Postgres setup fast for parallel pytest "
        "workers, even on the 8-core CI runner.",
    ),
)


def _one_wrap(session: DemoSession, label: str) -> dict[str, Any]:
    from anneal_memory.continuity import prepare_wrap, validated_save_continuity
    from anneal_memory.continuity._scripted import demo_compress

    store = session.store
    prepared = prepare_wrap(store)
    text = demo_compress(prepared.text or "")
    result = validated_save_continuity(store, text, wrap_token=prepared.wrap_token)
    _narrate(session, label, result)
    return {
        "wrap_id": result.wrap_id,
        "episodes_compressed": result.episodes_compressed,
        "graduations_validated": result.graduations_validated,
        "demotions": result.demotions,
        "associations_formed": result.associations_formed,
        "findings": [f.to_dict() for f in result.findings],
    }


def _narrate(session: DemoSession, label: str, result: SaveResult) -> None:
    session.say(
        f"   {label}: wrap {result.wrap_id} compressed {result.episodes_compressed} episode(s); "
        f"{result.graduations_validated} graduation(s) validated, {result.demotions} demoted"
    )
    for finding in result.findings:
        if finding.code.value in {"graduated", "ungrounded", "level-capped"}:
            session.say(f"     [{finding.code.value}] {finding.message}")


def step_wrap(session: DemoSession) -> dict[str, Any]:
    """Wrap the session, run a short second session, wrap again, show the patterns."""
    session.say(
        "4. At session end the agent wraps: prepare -> its model compresses -> checked save."
    )
    first = _one_wrap(session, "session 1")
    for kind, text in FOLLOW_UP_EPISODES:
        episode = session.store.record(text, kind, source="demo")
        session.episode_ids.append(episode.id)
    session.say("   ... a second session records two more episodes, then wraps:")
    second = _one_wrap(session, "session 2")
    continuity = session.store.load_continuity() or ""
    patterns = [line for line in continuity.splitlines() if " | " in line and "x (" in line]
    session.say("   The continuity's patterns now read:")
    for line in patterns:
        session.say(f"     {line}")
    session.say()
    return {
        "wraps": [first, second],
        "continuity": str(session.store.sidecar(".continuity.md")),
        "patterns": patterns,
    }
