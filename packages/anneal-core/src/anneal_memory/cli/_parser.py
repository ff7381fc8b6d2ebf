"""The argparse tree: global flags, then one subcommand per registered command module.

To add a command group, append its module to ``COMMAND_MODULES`` (one line); the module
exposes ``add_commands(subparsers, parents)`` (see the ``anneal_memory.cli`` docstring).
"""

from __future__ import annotations

import argparse
import importlib

from anneal_memory import __version__

__all__ = ["COMMAND_MODULES", "build_parser"]

# Order here is the order of ``anneal-memory --help``.
COMMAND_MODULES: tuple[str, ...] = (
    "anneal_memory.cli._cmd_store",
    "anneal_memory.cli._cmd_episodes",
    "anneal_memory.cli._cmd_recall",
    "anneal_memory.cli._cmd_transfer",
    "anneal_memory.cli._cmd_demo",
)

_DESCRIPTION = (
    "Living memory for AI agents: record typed episodes, recall them by meaning or filter, "
    "and keep the store healthy."
)
_EPILOG = (
    "The database is --db, else $ANNEAL_MEMORY_DB, else ~/.anneal-memory/memory.db. "
    "Exit codes: 0 ok, 1 refused or failed, 2 usage, 3 nothing done (downgraded). "
    "Run 'anneal-memory demo' for a tour."
)


def _json_parent() -> argparse.ArgumentParser:
    # SUPPRESS keeps a global ``--json`` given before the subcommand from being reset.
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print machine-readable JSON (keys are stable)",
    )
    return parent


def build_parser() -> argparse.ArgumentParser:
    """Build the full parser with every registered command group."""
    parser = argparse.ArgumentParser(
        prog="anneal-memory",
        description=_DESCRIPTION,
        epilog=_EPILOG,
    )
    parser.add_argument(
        "--db",
        metavar="PATH",
        help="database file (default: $ANNEAL_MEMORY_DB, else ~/.anneal-memory/memory.db)",
    )
    parser.add_argument(
        "--project-name",
        metavar="NAME",
        default="Agent",
        help="the agent's name, used in the continuity header (default: Agent; not stored)",
    )
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--version", action="version", version=f"anneal-memory {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", dest="command")
    parents = [_json_parent()]
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_commands(subparsers, parents)
    return parser
