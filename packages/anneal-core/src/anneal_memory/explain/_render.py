"""Plain text of an explanation, for people (the CLI and the MCP ``explain`` tool).

Stored text (episode content, pattern lines, names) comes from agents and tools: control
characters are escaped so a line cannot rewrite a terminal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from anneal_memory.explain._types import (
    AuditSlice,
    CitedEpisode,
    EpisodeExplanation,
    PatternExplanation,
    PatternStep,
    RecallExplanation,
    RecallHit,
)

__all__ = ["clean", "render_episode", "render_pattern", "render_recall"]

_PREVIEW = 160


def clean(text: str) -> str:
    r"""``text`` with control characters (but not spaces) written as ``\xNN`` / ``\uNNNN``."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
        for c in text
    )


def _short(text: str, limit: int = _PREVIEW) -> str:
    flat = clean(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def _cited(item: CitedEpisode, measured: bool = True) -> str:
    if not item.exists:
        return f"      {item.id}  deleted since"
    words = ", ".join(item.shared_words) or "no shared words"
    if not measured:
        words = "its explanation is kept only when validated"
    flags = [
        "grounds" if item.grounds else "does not ground",
        "in the wrap" if item.in_snapshot else "not of this wrap",
        f"trust {item.effective_trust}"
        + ("" if item.effective_trust == item.trust else f" (recorded {item.trust})"),
    ]
    if item.superseded_by:
        flags.append(f"superseded by {item.superseded_by}")
    if item.validated is not None:
        flags.insert(0, "validated" if item.validated else "rejected")
    return f"      {item.id}  {'; '.join(flags)}  [{words}]"


_SOURCES = {
    "continuity": "cited on the line",
    "history": "cited on the line that wrap",
    "recomputed": "grounding (recomputed)",
}


def _step(step: PatternStep) -> list[str]:
    claimed = "" if step.claimed_level == step.level else f" (claimed {step.claimed_level}x)"
    lines = [
        f"  wrap {step.wrap_id} on {step.day}: {step.level}x{claimed}  {step.outcome}",
        *(f"    {rule['code']}: {rule['rule']}" for rule in step.rules),
    ]
    if step.explanation:
        lines.append(f'    explanation: "{_short(step.explanation)}"')
    if step.citations is not None:
        source = _SOURCES.get(step.citations, step.citations)
        lines.append(f"    episodes {source}:" + ("" if step.cited else " none"))
        lines += [
            _cited(c, bool(step.explanation) or step.citations == "continuity") for c in step.cited
        ]
        if step.snapshot_truncated:
            lines.append("      (the wrap's snapshot was larger than the part read)")
    if step.corroborated is not None:
        lines.append(
            "    corroborated by an agent or operator episode"
            if step.corroborated
            else "    not corroborated: only tool or external episodes ground it"
        )
    return lines


def _audit(audit: AuditSlice) -> list[str]:
    lines = [f"Audit entries ({len(audit.entries)} of {audit.matched}, newest first):"]
    for entry in audit.entries:
        data = json.dumps(entry.get("data"), sort_keys=True, ensure_ascii=False)
        lines.append(
            clean(f"  {entry.get('seq')}  {entry.get('ts')}  {entry.get('event')}  {_short(data)}")
        )
    if audit.verdict is not None:
        lines.append(f"Chain: {clean(str(audit.verdict['summary']))}")
    return lines


def _worth(counts: dict[str, int] | None) -> list[str]:
    if counts is None:
        return []
    if not counts.get("surfaced"):
        return ["worth: never shown in a recorded exposure"]

    def after(prefix: str) -> str:
        return (
            f"{prefix} {counts[prefix]} ({counts[prefix + '_success']} success, "
            f"{counts[prefix + '_failure']} failure)"
        )

    return [
        f"worth: surfaced {counts['surfaced']}; {after('followed')}; {after('ignored')}; "
        f"not applicable {counts['not_applicable']}; {after('unlabelled')} (report-only)"
    ]


def _probe(probe: dict[str, Any]) -> str:
    status = probe.get("last_status") or "not checked yet"
    wrap = probe.get("last_wrap_id")
    line = f"  {probe['id']} (at least {probe.get('min_level')}x): {status}"
    if wrap is not None:
        line += f" at wrap {wrap}"
    if probe.get("last_line"):
        line += f" \u2014 {_short(str(probe['last_line']), 120)}"
    if probe.get("note"):
        line += f" [note: {_short(str(probe['note']), 80)}]"
    return line


def _probes(found: PatternExplanation) -> list[str]:
    if not found.probes_total:
        return ["probes: none"]
    lines = [f"probes ({len(found.probes)} of {found.probes_total}):"]
    lines += [_probe(p) for p in found.probes]
    return lines


def render_pattern(found: PatternExplanation) -> str:
    """The text of a pattern explanation."""
    head = f"pattern {clean(found.name)}" + (
        f" (scope {clean(found.scope)!r})" if found.scope else ""
    )
    if not found.found:
        return f"{head}: no save ever wrote a pattern of that name."
    lines = [
        f"{head}: {found.level}x now, highest {found.max_level}x; first written by wrap "
        f"{found.first_wrap_id}, last by wrap {found.last_wrap_id}; last grounded "
        f"{found.last_grounded or 'never'}",
        f"  line: {clean(found.line)}"
        if found.line
        else "  (the current continuity no longer holds it)",
    ]
    if found.crystal is not None:
        crystal = found.crystal
        lines.append(
            f"  crystal: {crystal['status']} at {crystal['level']}x on "
            f"{crystal['crystallized_on']}, evidence {', '.join(crystal['evidence']) or 'none'}"
        )
    lines += _worth(found.worth)
    lines += _probes(found)
    lines.append("Steps, newest first:")
    for step in found.steps:
        lines += _step(step)
    if found.more_steps:
        lines.append("  (older steps left out: raise --limit)")
    return "\n".join([*lines, *_audit(found.audit)])


def _pairs(links: Iterable[dict[str, Any]], key: str) -> str:
    return ", ".join(f"{link[key]} ({link['via']})" for link in links) or "none"


def render_episode(found: EpisodeExplanation) -> str:
    """The text of an episode explanation."""
    if not found.found:
        gone = found.deleted
        head = (
            f"episode {found.id}: deleted on {gone['deleted_at']} ({gone['reason']})"
            if gone
            else f"episode {found.id}: no such episode"
        )
        return "\n".join([head, *_audit(found.audit)])
    episode, trust = found.episode or {}, found.trust
    assert trust is not None
    lines = [
        f"episode {found.id}: {episode.get('type')} at {episode.get('timestamp')}, "
        f"source {clean(str(episode.get('source')))}, scope {clean(found.scope or '')!r}",
        f"  {_short(str(episode.get('content', '')))}",
        f"trust: {trust.effective}"
        + (
            f" (recorded {trust.recorded}, capped by {', '.join(trust.capped_by)})"
            if trust.capped_by
            else ""
        ),
        f"replaced by: {found.superseded_by or 'nothing (current)'}",
        f"replaces: {_pairs(found.replaces, 'old_id')}",
    ]
    if found.state_key is not None:
        lines.append(
            f"state key {clean(found.state_key)}: {found.slot_size} episode(s), newest first "
            + ", ".join(found.slot)
        )
    uses = ", ".join(f"{clean(u.name)} ({u.level}x)" for u in found.patterns)
    lines.append(f"cited by patterns: {uses or 'none'}")
    lines.append(f"crystals citing it: {', '.join(found.crystals) or 'none'}")
    links = [
        f"{a['a'] if a['b'] == found.id else a['b']} {a['strength']:.2f}"
        for a in found.associations
    ]
    lines.append(f"associations: {', '.join(links) or 'none'}")
    lines += _worth(found.worth)
    return "\n".join([*lines, *_audit(found.audit)])


def _lift_text(lift: dict[str, Any]) -> str:
    if lift["by"] == "intent":
        return f"x{lift['factor']} for the question's intent"
    if lift["by"] == "neighbour":
        return f"lifted as the neighbour of {lift['from']}"
    return "lifted by the citation links of " + ", ".join(lift["from"])


def _hit_lines(hit: RecallHit) -> list[str]:
    head = f"{hit.rank:>3}. {hit.id} [{hit.type}, {hit.trust}] found by {hit.found_by}"
    if hit.score is not None:
        head += f", score {hit.score:.6g}"
    lines = [head, f"     {_short(hit.content, 120)}"]
    if hit.matched:
        words = ", ".join(f"{clean(m['word'])} {m['weight']:.3g}" for m in hit.matched)
        lines.append(f"     words: {words}")
    lines.extend(f"     {_lift_text(lift)}" for lift in hit.lifts)
    return lines


def _hidden_reason(reason: dict[str, Any]) -> str:
    if reason["why"] == "superseded":
        return f"superseded by {reason['by']}"
    if reason["why"] == "state key":
        return f"keyed under {clean(reason['key'])} (current: {reason['current']})"
    return f"recorded in scope {clean(reason['scope'])!r}"


def render_recall(found: RecallExplanation) -> str:
    """The text of a recall's explanation: the page in recall's order with its reasons."""
    where = f" ({found.backend})"
    if found.stage is None:
        return f"Nothing matches {clean(found.question)!r}{where}."
    lines = [f"Recall {clean(found.question)!r}{where}: stage {found.stage}"]
    if found.terms:
        lines[0] += ", terms " + ", ".join(clean(t) for t in found.terms)
    for term, others in found.searched.items():
        lines.append(f"Searched {clean(term)} as: " + ", ".join(clean(t) for t in (term, *others)))
    if found.intent is not None:
        intent = found.intent
        said = [f"favours {', '.join(intent['types'])}"] if intent["types"] else []
        if intent["since"] or intent["until"]:
            said.append(f"time {intent['since'] or '...'} to {intent['until'] or '...'}")
        lines.append("Intent: " + "; ".join(said))
    shown = len(found.results)
    lines.append(f"{shown} of {found.total_matching} matching, best first:")
    for hit in found.results:
        lines.extend(_hit_lines(hit))
    if found.hidden:
        lines.append("Left out:")
        for gone in found.hidden:
            why = "; ".join(_hidden_reason(r) for r in gone.reasons)
            lines.append(f"  {gone.id} (would rank {gone.rank}): {why}")
            lines.append(f"     {_short(gone.content, 120)}")
    return "\n".join(lines)
