"""The read-only ``explain`` tool: a recall's order, a pattern's level, or what an episode is.

One tool with one subject per call (``question``, ``pattern`` or ``episode_id``), so later
subjects join as one more property. A question is recalled as the ``recall`` tool recalls it
(the server's scope, or every scope on an unscoped server) and never shows another scope's
episodes. The explanation's text is what the CLI prints (``explain`` room); the
structured reply carries its ``to_dict()``. The audit chain is walked only when asked
(``verify``): on a large trail that walk is the slow part.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anneal_memory.mcp._toolkit import Tool, ToolReply, hints, object_schema

if TYPE_CHECKING:
    from anneal_memory.mcp._toolkit import ToolContext

__all__ = ["EXPLAIN"]

_STEPS = 10


def _explain(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
    subjects = [key for key in ("question", "pattern", "episode_id") if args.get(key) is not None]
    if len(subjects) != 1:
        raise ValueError("give exactly one of question, pattern or episode_id")
    verify = bool(args.get("verify", False))
    if subjects == ["question"]:
        from anneal_memory.explain import explain_recall, render_recall

        recalled = explain_recall(
            ctx.store, args["question"], scope=ctx.scope or None, limit=_STEPS, other_scopes=False
        )
        fields = {"kind": "recall", "found": bool(recalled.results), **recalled.to_dict()}
        return ToolReply(render_recall(recalled), fields)
    if subjects == ["pattern"]:
        from anneal_memory.explain import explain_pattern, render_pattern

        found = explain_pattern(
            ctx.store, args["pattern"], scope=ctx.scope, limit=_STEPS, verify=verify
        )
        return ToolReply(render_pattern(found), {"kind": "pattern", **found.to_dict()})
    from anneal_memory.explain import explain_episode, render_episode

    episode = explain_episode(ctx.store, args["episode_id"], limit=_STEPS, verify=verify)
    return ToolReply(render_episode(episode), {"kind": "episode", **episode.to_dict()})


EXPLAIN = Tool(
    name="explain",
    title="Explain a recall, a pattern or an episode",
    description=(
        "Why recall ranks its results (stage, matched words, score, lifts, what was left "
        "out), a pattern's level wrap by wrap (rule, cited episodes, shared words), or an "
        "episode's trust, replacements and uses. Give one."
    ),
    input_schema=object_schema(
        {
            "question": {"type": "string", "description": "A recall question"},
            "pattern": {"type": "string", "description": "A pattern name"},
            "episode_id": {"type": "string", "description": "An episode id"},
            "verify": {"type": "boolean", "description": "Also check the audit chain"},
        }
    ),
    annotations=hints(read_only=True, destructive=False, idempotent=True),
    output_schema=object_schema(
        {"kind": {"type": "string"}, "found": {"type": "boolean"}},
        "kind",
        "found",
        closed=False,
    ),
    handler=_explain,
)
"""The ``explain`` tool row."""
