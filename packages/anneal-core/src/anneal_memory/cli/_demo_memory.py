"""The demo's long-term step: a crystallization, a recall on cue, a surfaced spore.

The operator crystallizes the Proven pattern of the wrap, a new question recalls it on cue,
and a spore planted for later surfaces at the top of mind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anneal_memory.cli._demo_session import DemoSession

__all__ = ["SPORE_TEXT", "step_memory"]

CUE = "the parallel pytest workers of the billing suite share one postgres database"
SPORE_TEXT = "Move the integration suite to per-worker Postgres databases too."


def _proven(session: DemoSession) -> tuple[str, int, str, tuple[str, ...]] | None:
    from anneal_memory.document._markers import parse_pattern_line

    for raw in (session.store.load_continuity() or "").splitlines():
        line = parse_pattern_line(raw)
        if line is not None and line.level >= 2 and line.evidence_ids:
            return line.name, line.level, line.explanation, line.evidence_ids
    return None


def _crystallize(session: DemoSession) -> dict[str, Any]:
    from anneal_memory.crystal import crystal_recall, crystallize

    found = _proven(session)
    if found is None:
        return {}
    name, level, explanation, evidence = found
    crystal = crystallize(
        session.store,
        name,
        level=level,
        explanation=f"Give each parallel test worker its own state: {explanation}.",
        evidence=evidence,
        source="demo operator",
    )
    session.say(
        f"   crystallized {crystal.name} ({crystal.level}x, evidence {', '.join(evidence)})"
    )
    session.say("   A later prompt recalls it on cue (crystal_recall):")
    session.say(f"   {CUE!r}")
    hits = crystal_recall(session.store, CUE).hits
    for hit in hits:
        session.say(f"   -> {hit.crystal.name} (score {hit.score:.1f}, via {hit.via})")
    return {"crystallized": crystal.name, "recalled": [h.crystal.name for h in hits]}


def step_memory(session: DemoSession) -> dict[str, Any]:
    """Crystallize the Proven pattern, recall it, plant a spore and surface it."""
    from anneal_memory.spores import add_spore, surface_spores
    from anneal_memory.spores._render import spore_line

    session.say("5. The operator crystallizes the Proven pattern into the long-term tier")
    session.say("   (the wrap only proposes; `anneal-memory crystal crystallize ...` decides):")
    result = _crystallize(session)
    session.say("   And the agent plants a spore for later, which surfaces at the next start:")
    spore = add_spore(session.store, type="task", text=SPORE_TEXT, tier="hot", salience=2)
    surfaced = surface_spores(session.store, top_of_mind=True)
    for item in surfaced:
        session.say(f"   {spore_line(item)}")
    session.say()
    return {**result, "spore": spore.id, "surfaced": [s.id for s in surfaced]}
