"""Run one parsed command and turn every failure into an exit code and one ``Error:`` line."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from anneal_memory.cli._context import CommandError, Context, ExitCode
from anneal_memory.errors import AnnealMemoryError, StoreDatabaseError

TYPE_CHECKING = False  # typing's constant without importing typing (start-up, #25)
if TYPE_CHECKING:
    import argparse

__all__ = ["DEBUG_ENV", "error_message", "exit_code_for", "run"]

DEBUG_ENV = "ANNEAL_MEMORY_DEBUG"


def error_message(exc: BaseException) -> str:
    """The one-line explanation printed after ``Error:``."""
    if isinstance(exc, StoreDatabaseError) and exc.retryable:
        return f"{exc} (the database is busy; try again)"
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}"
    if isinstance(exc, UnicodeError):
        return f"input is not valid UTF-8 ({exc})"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _fail(ctx: Context, exc: BaseException, code: int = ExitCode.FAILED) -> int:
    from anneal_memory.cli._render import safe  # messages may quote stored or given text

    print(f"Error: {safe(error_message(exc))}", file=ctx.err)
    return code


def _quiet_broken_pipe() -> int:
    # The reader went away (``| head``): point stdout at devnull so the final flush is silent.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real stdout
        pass
    return ExitCode.FAILED


_EXPECTED = (AnnealMemoryError, OSError, UnicodeError, ValueError)


def exit_code_for(ctx: Context, exc: BaseException) -> int:
    """Report ``exc`` (one ``Error:`` line, or silence for a closed pipe); return the code."""
    if isinstance(exc, CommandError):
        return _fail(ctx, exc, exc.exit_code)
    if isinstance(exc, BrokenPipeError):
        return _quiet_broken_pipe()
    if isinstance(exc, KeyboardInterrupt):
        print("Error: interrupted", file=ctx.err)
        return 130
    if isinstance(exc, _EXPECTED):
        return _fail(ctx, exc)
    return _fail(ctx, RuntimeError(f"unexpected {type(exc).__name__}: {exc}"))


def run(
    parser: argparse.ArgumentParser | None, args: argparse.Namespace, *, env: Mapping[str, str]
) -> int:
    """Run the handler chosen by ``args`` and return the exit code.

    ``parser`` prints the usage when ``args`` names no command (None: build it then).
    """
    handler = getattr(args, "handler", None)
    if handler is None:
        if parser is None:
            from anneal_memory.cli._parser import build_parser

            parser = build_parser()
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    ctx = Context(args, env=env)
    try:
        return int(handler(ctx, args))
    except KeyboardInterrupt as exc:
        return exit_code_for(ctx, exc)
    except Exception as exc:  # never a traceback for the operator; opt in to one for debugging
        if env.get(DEBUG_ENV) and not isinstance(exc, _EXPECTED):
            raise
        return exit_code_for(ctx, exc)
    finally:
        try:
            ctx.close()
        except AnnealMemoryError as exc:  # pragma: no cover - close failures are rare
            print(f"Error: {error_message(exc)}", file=ctx.err)
