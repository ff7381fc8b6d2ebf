"""``http-token add|revoke|list`` and the ``serve --http`` runner.

Tokens live in a 0600 file (``--tokens``, default ``<db>.http-tokens``), hashed; ``add``
prints the new token once. Each token is bound to a scope and a gate session id: a remote
client can neither choose its store nor its session, and no token can claim the baton.
"""

from __future__ import annotations

from collections.abc import Sequence

from anneal_memory.cli._context import CommandError, Context, ExitCode

TYPE_CHECKING = False  # typing's constant without importing typing (serve's start-up, #25)
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from anneal_memory.mcp._http._tokens import TokenFile
    from anneal_memory.mcp._tools import Tool

__all__ = ["add_commands", "add_serve_options", "database_url_of", "run_http"]


def _tokens_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tokens",
        metavar="FILE",
        help="the bearer token file (default: the database path + '.http-tokens')",
    )


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``http-token`` and its subcommands."""
    group = subparsers.add_parser(
        "http-token",
        parents=parents,
        help="bearer tokens of the HTTP MCP server: add, revoke, list",
        description="Manage the bearer tokens 'serve --http' accepts. Each token is bound to "
        "a scope (the store it reaches) and a session id (its identity for the wrap gate).",
    )
    actions = group.add_subparsers(title="http-token commands", metavar="ACTION")
    actions.required = True
    add = actions.add_parser(
        "add",
        parents=parents,
        help="create a token and print it once",
        description="Create token NAME bound to --scope and --session-id; the token is "
        "printed once and only its hash is kept.",
    )
    add.add_argument("name", metavar="NAME", help="a name for the token (e.g. the agent's)")
    add.add_argument("--scope", default="default", help="the store it reaches (default: default)")
    add.add_argument("--session-id", required=True, help="its session id for the wrap gate")
    _tokens_option(add)
    add.set_defaults(handler=run_add)
    revoke = actions.add_parser(
        "revoke", parents=parents, help="remove a token", description="Remove token NAME."
    )
    revoke.add_argument("name", metavar="NAME")
    _tokens_option(revoke)
    revoke.set_defaults(handler=run_revoke)
    listing = actions.add_parser(
        "list", parents=parents, help="list tokens", description="List the tokens (not secrets)."
    )
    _tokens_option(listing)
    listing.set_defaults(handler=run_list)


def add_serve_options(serve: argparse.ArgumentParser) -> None:
    """The ``serve`` options of the HTTP transport."""
    serve.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve MCP Streamable HTTP on HOST:PORT instead of stdio (needs the [http] extra)",
    )
    _tokens_option(serve)
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also accept this Origin header (repeatable; loopback pages are accepted)",
    )
    serve.add_argument(
        "--max-body",
        type=int,
        default=None,
        metavar="BYTES",
        help="the largest request body accepted (default: 1 MiB)",
    )


def _database_url(ctx: Context) -> str | None:
    from anneal_memory.cli._context import DB_ENV
    from anneal_memory.store import database_url

    return database_url(getattr(ctx.args, "db", None), ctx.env.get(DB_ENV))


def database_url_of(ctx: Context) -> str | None:
    """The PostgreSQL URL ``--db`` (or ``$ANNEAL_MEMORY_DB``) names, None for a SQLite file."""
    return _database_url(ctx)


def _token_file(ctx: Context, args: argparse.Namespace) -> TokenFile:
    from anneal_memory.mcp._http._serve import default_token_path
    from anneal_memory.mcp._http._tokens import TokenFile

    if args.tokens:
        from pathlib import Path

        return TokenFile(Path(args.tokens).expanduser().absolute())
    if _database_url(ctx) is not None:
        raise CommandError("--db is a PostgreSQL URL: pass --tokens FILE for the token file")
    return TokenFile(default_token_path(ctx.db_path).absolute())


def run_add(ctx: Context, args: argparse.Namespace) -> int:
    """Create a token."""
    tokens = _token_file(ctx, args)
    secret = tokens.add(args.name, scope=args.scope, session_id=args.session_id)
    ctx.emit(
        {"name": args.name, "scope": args.scope, "token": secret, "file": str(tokens.path)},
        f"{secret}\n(token {args.name!r}, scope {args.scope}; shown once, keep it secret)",
    )
    return ExitCode.OK


def run_revoke(ctx: Context, args: argparse.Namespace) -> int:
    """Remove a token."""
    tokens = _token_file(ctx, args)
    if not tokens.revoke(args.name):
        raise CommandError(f"no token named {args.name!r} in {tokens.path}")
    ctx.emit({"revoked": args.name}, f"revoked {args.name}")
    return ExitCode.OK


def run_list(ctx: Context, args: argparse.Namespace) -> int:
    """List the tokens."""
    from anneal_memory.cli._render import safe

    tokens = _token_file(ctx, args)
    rows = [
        {"name": t.name, "scope": t.scope, "session_id": t.session_id} for t in tokens.entries()
    ]
    lines = [
        f"{safe(r['name'])}  scope={r['scope']}  session={safe(r['session_id'])}" for r in rows
    ]
    ctx.emit(rows, "\n".join(lines) if lines else "no tokens")
    return ExitCode.OK


def run_http(ctx: Context, args: argparse.Namespace, tools: tuple[Tool, ...]) -> int:
    """Serve MCP over HTTP until interrupted."""
    from anneal_memory.cli._http_inspect import INSPECT_PREFIX, http_inspector
    from anneal_memory.inspect import Mount
    from anneal_memory.mcp._http import _serve as hs
    from anneal_memory.mcp._http._app import MAX_BODY_BYTES, HttpSettings, McpHttpApp
    from anneal_memory.mcp._http._scopes import ScopeServers

    if args.session_id is not None:
        raise CommandError("--session-id does not apply to --http: each token has its own")
    host, port = hs.parse_address(args.http)
    tokens = _token_file(ctx, args)
    if not tokens.entries():
        raise CommandError(
            f"no tokens in {tokens.path}; add one first: anneal-memory http-token add NAME "
            "--session-id ID"
        )
    max_body = MAX_BODY_BYTES if args.max_body is None else args.max_body
    if max_body < 1024:
        raise CommandError(f"--max-body must be at least 1024 bytes, got {max_body}")
    settings = HttpSettings(
        allowed_origins=hs.loopback_origins(port) | frozenset(args.allow_origin),
        max_body_bytes=max_body,
    )
    target: Path | str = _database_url(ctx) or ctx.db_path
    servers = ScopeServers(target, project_name=ctx.project_name, tools=tools)
    if not hs.is_loopback(host):
        ctx.warn(
            f"warning: serving on {host}, not the loopback; put a TLS reverse proxy in front "
            "(tokens travel in clear HTTP)"
        )
    ctx.warn(f"anneal-memory MCP over HTTP on http://{host}:{port}/mcp (tokens: {tokens.path})")
    if isinstance(target, str):
        servers.open_default()  # a bad URL or missing driver fails now, not on the first call
    inspector = http_inspector(tokens, target, ctx.project_name, settings.allowed_origins)
    ctx.warn(f"memory inspector (read-only, per token scope): http://{host}:{port}/inspect/")
    try:
        hs.serve_http(
            Mount(McpHttpApp(tokens, servers, settings), inspector, INSPECT_PREFIX), host, port
        )
    except ModuleNotFoundError as exc:
        raise CommandError(str(exc)) from None
    finally:
        servers.close()
        inspector.close()
    return ExitCode.OK
