"""``serve``: run the MCP server on stdin/stdout."""

from __future__ import annotations

from collections.abc import Sequence

from anneal_memory.cli._args import MAX_SESSION_ID, SESSION_ENV, check_session_id
from anneal_memory.cli._context import CommandError, Context

TYPE_CHECKING = False  # typing's constant without importing typing (start-up, #25)
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from anneal_memory.mcp._tools import Tool

__all__ = ["MAX_SESSION_ID", "SESSION_ENV", "add_commands", "check_session_id"]

MAX_SCOPE = 64


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``serve``."""
    serve = subparsers.add_parser(
        "serve",
        parents=parents,
        help="run the MCP server over stdio",
        description="Serve the store to an MCP client (Claude Code, Cursor, Codex, Gemini CLI) "
        "as newline-delimited JSON-RPC 2.0 on stdin/stdout. Diagnostics go to stderr. "
        "The tool descriptions are checked against the shipped integrity manifest first.",
    )
    serve.add_argument(
        "--session-id",
        metavar="NAME",
        help=f"this session's id for the wrap gate (default: ${SESSION_ENV})",
    )
    serve.add_argument(
        "--scope",
        metavar="S",
        default="",
        help="record into, recall from and wrap scope S only (a user, a thread, an agent; "
        "default: the shared scope, recall across every scope)",
    )
    serve.add_argument(
        "--skip-integrity",
        action="store_true",
        help="serve even when the tool descriptions differ from the shipped manifest",
    )
    from anneal_memory.cli._cmd_http import add_serve_options

    add_serve_options(serve)
    serve.set_defaults(handler=run_serve)


def _scope(value: str) -> str:
    # The rule of ``anneal_memory.store.validate_scope``, checked without importing
    # the store so the server starts fast.
    if len(value) > MAX_SCOPE or not value.isprintable():
        raise CommandError(f"scope must be up to {MAX_SCOPE} printable characters, got {value!r}")
    return value


def _check_integrity(tools: Sequence[Tool]) -> None:
    from anneal_memory.errors import ToolIntegrityError
    from anneal_memory.mcp._integrity import build_manifest, check_manifest, load_manifest

    try:
        shipped = load_manifest()
    except ToolIntegrityError as exc:
        raise CommandError(f"{exc}; refusing to serve (--skip-integrity overrides)") from None
    report = check_manifest(build_manifest(t.to_dict() for t in tools), shipped)
    if not report.ok:
        raise CommandError(
            "tool descriptions do not match the integrity manifest "
            f"({report.describe()}); refusing to serve (--skip-integrity overrides)"
        )


def _refuse_newer_schema(db_path: Path) -> None:
    """Refuse, before serving, an existing store whose schema is newer than this code.

    The server opens its store on the first call; without this a client would be told so
    only on every call.
    """
    if not db_path.is_file():
        return  # nothing to refuse, nothing imported (start-up speed, #25)
    # Only the version check of a read-only open, without loading the Store (#25); an older
    # schema (the write-capable open migrates it) or damage is reported by the first call.
    from anneal_memory.store import refuse_newer_schema

    refuse_newer_schema(db_path)


def run_serve(ctx: Context, args: argparse.Namespace) -> int:
    """Check the tool table, then serve until the client closes stdin."""
    from anneal_memory.cli._cmd_http import database_url_of, run_http
    from anneal_memory.mcp import _tools

    url = database_url_of(ctx)
    if url is None and ctx.db_path.is_dir():
        raise CommandError(
            f"the database {ctx.db_path} is a directory; pass --db the path of a database "
            f"file, e.g. {ctx.db_path / 'memory.db'}"
        )
    if url is None:
        _refuse_newer_schema(ctx.db_path)
    tools = _tools.TOOLS  # one lookup: the table checked is the table served
    if not args.skip_integrity:
        _check_integrity(tools)
    if args.http is not None:
        if args.scope:
            raise CommandError(
                "--scope is for the stdio server; over HTTP each token is bound to its scope "
                "(http-token add NAME --scope S)"
            )
        return run_http(ctx, args, tools)
    from anneal_memory.mcp._server import McpServer, ServerConfig, serve_stdio

    session_id = check_session_id(args.session_id or ctx.env.get(SESSION_ENV) or None)
    config = ServerConfig(
        db_path=ctx.db_path,
        project_name=ctx.project_name,
        session_id=session_id,
        tools=tools,
        scope=_scope(args.scope),
        url=url,
    )
    server = McpServer(config)
    if url is not None:
        server.store  # noqa: B018 - a bad URL or a missing driver fails now, not on a call
    return serve_stdio(server)
