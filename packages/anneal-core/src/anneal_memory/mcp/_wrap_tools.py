"""Handlers of the wrap tools: thin calls into the library's wrap API.

The session id passed to the library is always the server's own (``ctx.session_id``); the
tools take no session argument. The library is imported inside each handler so the server
starts without loading the wrap pipeline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import AnnealMemoryError, ContinuityRejectedError
from anneal_memory.mcp._toolkit import ToolReply

if TYPE_CHECKING:
    from anneal_memory.mcp._toolkit import ToolContext

__all__ = ["mcp_wording", "prepare_wrap", "save_continuity", "wrap_cancel"]

# The library words its refusals for the command line; through MCP the model passes tool
# arguments and calls tools, so each CLI spelling is replaced by the MCP one.
_MCP_WORDS = (
    (
        "(validated_save_continuity, or `anneal-memory save-continuity FILE --wrap-token TOKEN`)",
        "(the save_continuity tool with its wrap_token)",
    ),
    ("(wrap_cancel, or `anneal-memory wrap-cancel`)", "(the wrap_cancel tool)"),
    (
        "Cancel it (wrap-cancel) and prepare again with --session-id.",
        "Cancel it (the wrap_cancel tool); the operator gives the server a session id "
        "(serve --session-id NAME) before the next prepare_wrap.",
    ),
    (
        "and pass --session-id NAME (or set ANNEAL_MEMORY_SESSION_ID) to the wrap",
        "and start this server with serve --session-id NAME (or ANNEAL_MEMORY_SESSION_ID)",
    ),
    ("allow_shrink=True (--allow-shrink)", "allow_shrink: true"),
    ("(--wrap-token)", "(the wrap_token argument)"),
    ("--wrap-token", "wrap_token"),
    ("--allow-shrink", "allow_shrink: true"),
    (
        "(--session-id or ANNEAL_MEMORY_SESSION_ID)",
        "(set by the operator: serve --session-id or ANNEAL_MEMORY_SESSION_ID)",
    ),
    ("cancel the wrap (wrap-cancel)", "cancel the wrap (the wrap_cancel tool)"),
)


def mcp_wording(message: str) -> str:
    """A library message with its command-line flags replaced by MCP tool arguments."""
    for cli, mcp in _MCP_WORDS:
        message = message.replace(cli, mcp)
    return message


def _findings_lines(findings: Iterable[Any]) -> list[str]:
    lines = []
    for finding in findings:
        code = getattr(finding.code, "value", finding.code)
        pattern = getattr(finding, "pattern", None)
        where = f" [{pattern}]" if pattern else ""
        lines.append(f"- {code}{where}: {finding.message}")
    return lines


def _reworded(exc: AnnealMemoryError) -> AnnealMemoryError:
    exc.args = (mcp_wording(str(exc)), *exc.args[1:])
    return exc


def prepare_wrap(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
    """Open a wrap and return the package to compress, with its token."""
    from anneal_memory import prepare_wrap as library_prepare
    from anneal_memory.continuity import DEFAULT_PACKAGE_CHARS

    try:
        result = library_prepare(
            ctx.store,
            session_id=ctx.session_id,
            max_chars=args.get("max_chars"),
            staleness_days=args.get("staleness_days", 7),
            max_package_chars=args.get("max_package_chars", DEFAULT_PACKAGE_CHARS),
            scope=ctx.scope,
        )
    except AnnealMemoryError as exc:
        raise _reworded(exc) from None
    fields: dict[str, Any] = {
        "status": result.status.value,
        "episode_count": result.episode_count,
    }
    if result.wrap_token is None or result.text is None:
        return ToolReply(mcp_wording(result.message), fields)
    fields["wrap_token"] = result.wrap_token
    return ToolReply(f"{result.text}\n\nWrap token: {result.wrap_token}", fields)


def save_continuity(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
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
            scope=ctx.scope,
        )
    except ContinuityRejectedError as exc:
        repeated = str(exc)
        detail = "\n".join(
            _findings_lines(f for f in exc.findings if getattr(f, "message", "") != repeated)
        )
        message = f"{exc}\n{detail}" if detail else str(exc)
        raise ContinuityRejectedError(mcp_wording(message), findings=exc.findings) from None
    except AnnealMemoryError as exc:
        raise _reworded(exc) from None
    lines = [
        f"Saved continuity: {result.chars:,} characters to {result.path}",
        f"Wrap id: {result.wrap_id}",
        f"Episodes compressed: {result.episodes_compressed}",
        f"Graduations validated: {result.graduations_validated}; demotions: {result.demotions}",
    ]
    sections = getattr(result, "sections", None)
    if sections:
        lines.append("Sections: " + ", ".join(f"{k} {v:,}" for k, v in sections.items()))
    if result.drift:
        from anneal_memory.probes._render import drift_line

        lines.append(drift_line(result.drift))
    findings = _findings_lines(result.findings)
    lines.extend(["Findings:", *findings] if findings else ["Findings: none"])
    fields = {
        "wrap_id": result.wrap_id,
        "chars": result.chars,
        "episodes_compressed": result.episodes_compressed,
        "graduations_validated": result.graduations_validated,
        "demotions": result.demotions,
        "findings": len(findings),
    }
    return ToolReply("\n".join(lines), fields)


def wrap_cancel(ctx: ToolContext, args: Mapping[str, Any]) -> ToolReply:
    """Close the open wrap without saving; its episodes wait for the next wrap."""
    from anneal_memory import wrap_cancel as library_cancel

    try:
        result = library_cancel(
            ctx.store, wrap_token=args.get("wrap_token"), session_id=ctx.session_id, scope=ctx.scope
        )
    except AnnealMemoryError as exc:
        raise _reworded(exc) from None
    text = (
        f"Cancelled wrap {result.wrap_id} (prepared {result.started_at}); its "
        f"{result.episode_count} episode(s) stay and go into the next wrap."
    )
    return ToolReply(text, {"wrap_id": result.wrap_id, "episode_count": result.episode_count})
