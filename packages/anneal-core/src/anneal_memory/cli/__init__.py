"""The ``anneal-memory`` command line.

``main(argv)`` parses the arguments, runs one command and returns its exit code (with no
command on the real command line and a piped stdin, the command is ``serve``: MCP clients
start it that way):

* ``0`` ok;
* ``1`` refused or failed: one line on stderr starting ``Error:``, never a traceback;
* ``2`` usage error (argparse);
* ``3`` nothing was done and that is the answer (e.g. a downgraded wrap).

Adding a command group (the plug-in convention):

1. Create ``cli/_cmd_<group>.py`` with ``add_commands(subparsers, parents)``. For each command
   call ``subparsers.add_parser(name, parents=parents, help=..., description=...)`` (the
   ``parents`` give every command the trailing ``--json``), add its arguments and set its
   handler with ``parser.set_defaults(handler=run_x)``. Command groups with sub-subcommands
   (``baton claim``) add their own subparsers and pass ``parents`` down.
2. Register the module with one line in ``COMMAND_MODULES`` in ``cli/_parser.py``: the
   module name followed by the command names it adds, e.g.
   ``("anneal_memory.cli._cmd_gate", "baton"),``. A run of one command imports only the
   module that declares it, so keep the names complete (aliases too).

A handler is ``def run_x(ctx: Context, args: argparse.Namespace) -> int``. It takes the store
from ``ctx.store()`` (opened lazily; ``ctx.store(create=False)`` when it needs an existing
store, ``ctx.store(read_only=True)`` for commands that only read: they never write),
prints through ``ctx.emit(data, text)`` / ``ctx.out`` (see ``_render.py``), and either returns
an exit code (``ExitCode`` in ``_context.py``) or raises: ``CommandError`` for a refusal
(exit 1, or its ``exit_code``), any ``AnnealMemoryError`` (exit 1, its message), ``OSError``
(exit 1). ``main`` turns those into one ``Error:`` line.

Keep startup fast: a ``_cmd_`` module imports only the light ``cli`` helpers at module level
(``argparse`` for annotations only, under ``TYPE_CHECKING``: the plain command lines are
parsed by ``_quickparse`` without it, and argparse runs for help, errors and the rest);
everything a handler needs (json, the wrap engine, ...) is imported inside the handler.
``python -X importtime -m anneal_memory record x`` shows what loads, and
``tests/core/cli/test_startup_imports.py`` keeps it so.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["console_main", "main"]


def _utf8_stdio() -> None:
    """Make stdin/stdout/stderr UTF-8 on every platform (Windows consoles default elsewhere)."""
    for name, errors in (("stdin", "strict"), ("stdout", "replace"), ("stderr", "replace")):
        stream = getattr(sys, name, None)
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            reconfigure(encoding="utf-8", errors=errors)
        except (ValueError, OSError, AttributeError, TypeError):  # pragma: no cover - odd streams
            continue


_NO_COMMAND_FLAGS = frozenset({"-h", "--help", "--version"})


def _implicit_serve(arguments: list[str]) -> list[str]:
    """``serve`` appended when no command is given and stdin is a pipe (an MCP client).

    Only for the real command line (``main()`` without ``argv``): a caller passing ``argv``
    gets the usage, whatever its stdin is.
    """
    from anneal_memory.cli._parser import _command_token

    if _command_token(arguments) is not None or _NO_COMMAND_FLAGS & set(arguments):
        return arguments
    stdin = sys.stdin
    try:
        piped = stdin is not None and not stdin.isatty()
    except (ValueError, OSError):  # a closed stdin: nothing to serve
        piped = False
    return [*arguments, "serve"] if piped else arguments


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``anneal-memory`` command line.

    Args:
        argv: The arguments after the program name (defaults to ``sys.argv[1:]``).

    Returns:
        The process exit code: 0 ok, 1 refused or failed, 2 usage, 3 downgraded.
    """
    _utf8_stdio()
    from anneal_memory.cli._quickparse import quick_parse
    from anneal_memory.cli._run import run

    arguments = _implicit_serve(sys.argv[1:]) if argv is None else list(argv)
    args = quick_parse(arguments)  # the plain forms, without argparse (start-up, #25)
    if args is not None:
        return run(None, args, env=os.environ)
    from anneal_memory.cli._parser import build_parser

    parser = build_parser(arguments)
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:  # --help, --version (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    return run(parser, args, env=os.environ)


def console_main() -> int:
    """Run the command line as a process of its own: ``main()``, then leave at once.

    The ``anneal-memory`` script and ``python -m anneal_memory`` call this. Once the command
    has run (its store closed, its output written), the process ends with ``os._exit`` after
    flushing stdout and stderr, without the interpreter's teardown: clearing a hundred-odd
    modules and their objects cost about a fifth of a ``record``'s start-to-exit time
    (issue #25). It falls back to a normal return (so ``sys.exit`` and the teardown run)
    whenever that teardown could still do something: an ``atexit`` callback is registered
    (coverage, a caller's hook), another non-daemon thread is alive, or a flush fails
    (a closed pipe: Python reports that as it always did). Callers in a process of their own
    that must go on running call ``main()``.
    """
    code = main()
    if not _nothing_left_to_run():
        return code
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a closed pipe or stream: let the interpreter report it
        return code
    os._exit(code)


def _nothing_left_to_run() -> bool:
    """True when the interpreter's exit would run no one's code.

    That is: no ``atexit`` callback is registered and no other non-daemon thread is alive.
    """
    import atexit  # built in: no file to load

    if atexit._ncallbacks():  # the only way to ask
        return False
    threading = sys.modules.get("threading")
    if threading is None:
        return True
    main_thread = threading.main_thread()
    return not any(
        t is not main_thread and not t.daemon and t.is_alive() for t in threading.enumerate()
    )
