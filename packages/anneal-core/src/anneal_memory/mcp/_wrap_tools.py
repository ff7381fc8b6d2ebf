"""Handlers of the wrap tools: thin calls into the library's wrap API.

The session id passed to the library is always the server's own (``ctx.session_id``); the
tools take no session argument. The library is imported inside each handler so the server
starts without loading the wrap pipeline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import ContinuityRejectedError

if TYPE_CHECKING:
    from anneal_memory.mcp._tools import ToolContext

__all__ = ["prepare_wrap", "save_continuity", "wrap_cancel"]


def _findings_lines(findings: Iterable[Any]) -> list[str]:
    lines = []
    for finding in findings:
        code = getattr(finding.code, "value", finding.code)
        pattern = getattr(finding, "pattern", None)
        where = f" [{pattern}]" if pattern else ""
        lines.append(f"- {code}{where}: {finding.message}")
    return lines


def prepare_wrap(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    """Open a wrap and return the package to compress, with its token."""
    from anneal_memory import prepare_wrap as library_prepare

    result = library_prepare(
        ctx.store,
        session_id=ctx.session_id,
        max_chars=args.get("max_chars"),
        staleness_days=args.get("staleness_days", 7),
    )
    if result.wrap_token is None or result.text is None:
        return result.message
    return f"{result.text}\n\nWrap token: {result.wrap_token}"


def save_continuity(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    """Validate and save the compressed continuity; report what the immune system decided."""
    from anneal_memory import Affect, validated_save_continuity

    state = args.get("affective_state")
    affect = None if state is None else Affect(tag=state["tag"], intensity=state["intensity"])
    try:
        result = validated_save_continuity(
            ctx.store,
            args["text"],
            wrap_token=args.get("wrap_token"),
            session_id=ctx.session_id,
            allow_shrink=bool(args.get("allow_shrink", False)),
            affect=affect,
        )
    except ContinuityRejectedError as exc:
        repeated = str(exc)
        detail = "\n".join(
            _findings_lines(f for f in exc.findings if getattr(f, "message", "") != repeated)
        )
        message = f"{exc}\n{detail}" if detail else str(exc)
        raise ContinuityRejectedError(message, findings=exc.findings) from None
    lines = [
        f"Saved continuity: {result.chars:,} characters to {result.path}",
        f"Wrap id: {result.wrap_id}",
        f"Episodes compressed: {result.episodes_compressed}",
        f"Graduations validated: {result.graduations_validated}; demotions: {result.demotions}",
    ]
    sections = getattr(result, "sections", None)
    if sections:
        lines.append("Sections: " + ", ".join(f"{k} {v:,}" for k, v in sections.items()))
    findings = _findings_lines(result.findings)
    lines.extend(["Findings:", *findings] if findings else ["Findings: none"])
    return "\n".join(lines)


def wrap_cancel(ctx: ToolContext, args: Mapping[str, Any]) -> str:
    """Close the open wrap without saving; its episodes wait for the next wrap."""
    from anneal_memory import wrap_cancel as library_cancel

    result = library_cancel(ctx.store, wrap_token=args.get("wrap_token"), session_id=ctx.session_id)
    return (
        f"Cancelled wrap {result.wrap_id} (prepared {result.started_at}); its "
        f"{result.episode_count} episode(s) stay and go into the next wrap."
    )
