"""``anneal-memory inspect``: the memory inspector, a read-only web page on the loopback.

The store is opened read-only; the server binds ``127.0.0.1`` only, answers only requests
whose ``Host`` is its own address, and serves data only to the random token in the URL it
prints (in the URL's fragment, which browsers never send to a server). Needs the ``[http]``
extra (uvicorn).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from anneal_memory.cli._args import non_negative_int
from anneal_memory.cli._context import CommandError, Context, ExitCode

__all__ = ["add_commands"]


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``inspect``."""
    inspect = subparsers.add_parser(
        "inspect",
        parents=parents,
        help="open the memory inspector: a read-only web page on the loopback",
        description="Serve a read-only web page over the store on 127.0.0.1: overview, "
        "episodes (searched with the real recall), the continuity with each pattern's "
        "evidence and level history, wraps, crystals and spores, the association graph and "
        "the audit trail. Prints a URL holding a random token; stop with Ctrl-C. Needs the "
        "[http] extra.",
    )
    inspect.add_argument(
        "--port",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="listen on port N of 127.0.0.1 (default: a free port)",
    )
    inspect.add_argument(
        "--no-open", action="store_true", help="print the URL without opening a browser"
    )
    inspect.set_defaults(handler=run_inspect)


def run_inspect(ctx: Context, args: argparse.Namespace) -> int:
    """Serve the inspector until interrupted."""
    import secrets

    from anneal_memory.inspect import InspectorApp, InspectSettings, SingleStore
    from anneal_memory.inspect._serve import bind_loopback, serve_socket

    store = ctx.store(read_only=True)
    try:
        sock = bind_loopback(args.port)
    except OSError as exc:
        raise CommandError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}") from None
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(24)
    hosts = (f"127.0.0.1:{port}", f"localhost:{port}")
    settings = InspectSettings(
        allowed_hosts=frozenset(hosts),
        allowed_origins=frozenset(f"http://{host}" for host in hosts),
    )
    app = InspectorApp(SingleStore(store, token), settings)
    url = f"http://127.0.0.1:{port}/#token={token}"
    ctx.emit({"url": url, "port": port}, f"anneal-memory inspector (read-only): {url}")
    ctx.out.flush()
    ctx.warn("Stop it with Ctrl-C.")
    if not args.no_open:
        import webbrowser

        webbrowser.open(url)
    try:
        serve_socket(app, sock)
    except ModuleNotFoundError as exc:
        raise CommandError(str(exc)) from None
    finally:
        sock.close()
    return ExitCode.OK
