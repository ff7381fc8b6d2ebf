"""The argparse tree: global flags, then one subcommand per registered command module.

To add a command group, add one line to ``COMMAND_MODULES``: the module, then the command
names it registers (aliases included), e.g. ``("anneal_memory.cli._cmd_gate", "baton")``.
The module exposes ``add_commands(subparsers, parents)`` (see the ``anneal_memory.cli``
docstring). The names let a run of one command import only its own module (fast start);
they are an optimisation only: a bare module string works too, it is just loaded for every
run that is not one of the named commands, and a name missing here still works.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from anneal_memory import __version__

TYPE_CHECKING = False  # typing's constant without importing typing (start-up, #25)
if TYPE_CHECKING:
    import argparse

__all__ = [
    "COMMAND_MODULES",
    "add_global_options",
    "add_json_flag",
    "build_parser",
    "command_modules_for",
]

# One entry per command group: "module" or ("module", "command", "alias", ...).
# Order here is the order of ``anneal-memory --help``.
COMMAND_MODULES: tuple[str | tuple[str, ...], ...] = (
    ("anneal_memory.cli._cmd_store", "init", "status", "stats"),
    ("anneal_memory.cli._cmd_episodes", "record", "get", "delete", "prune"),
    ("anneal_memory.cli._cmd_scope", "erase-scope"),
    ("anneal_memory.cli._cmd_recall", "search", "recall", "episodes"),
    ("anneal_memory.cli._cmd_transfer", "export", "import"),
    (
        "anneal_memory.cli._cmd_provenance",
        "supersede",
        "unsupersede",
        "state",
        "trust",
        "set-schema",
    ),
    (
        "anneal_memory.cli._cmd_wrap",
        "prepare-wrap",
        "save-continuity",
        "wrap-cancel",
        "wrap-status",
    ),
    (
        "anneal_memory.cli._cmd_wrapinfo",
        "continuity",
        "history",
        "diff",
        "associations",
        "graph",
    ),
    ("anneal_memory.cli._cmd_baton", "baton"),
    ("anneal_memory.cli._cmd_redaction", "redaction"),
    ("anneal_memory.cli._cmd_audit", "verify", "audit", "audit-repair"),
    ("anneal_memory.cli._cmd_explain", "explain"),
    ("anneal_memory.cli._cmd_inspect", "inspect"),
    ("anneal_memory.cli._cmd_crystal", "crystal"),
    ("anneal_memory.cli._cmd_spore", "spore"),
    ("anneal_memory.cli._cmd_worth", "outcome", "worth"),
    ("anneal_memory.cli._cmd_probe", "probe"),
    ("anneal_memory.cli._cmd_health", "check", "migrate"),
    ("anneal_memory.cli._cmd_demo", "demo"),
    ("anneal_memory.cli._cmd_serve", "serve"),
    ("anneal_memory.cli._cmd_http", "http-token"),
)

_GLOBAL_OPTIONS_WITH_VALUE = frozenset({"--db", "--project-name"})

_DESCRIPTION = (
    "Living memory for AI agents: record typed episodes, recall them by meaning or filter, "
    "and keep the store healthy."
)
_EPILOG = (
    "The database is --db, else $ANNEAL_MEMORY_DB, else ~/.anneal-memory/memory.db. "
    "Exit codes: 0 ok, 1 refused or failed, 2 usage, 3 nothing done (downgraded). "
    "Run 'anneal-memory demo' for a tour."
)


def add_json_flag(parser: argparse.ArgumentParser, suppress: str) -> None:
    """Every command's trailing ``--json`` (``suppress``: the parser's SUPPRESS marker).

    The marker keeps a global ``--json`` given before the subcommand from being reset.
    """
    parser.add_argument(
        "--json",
        action="store_true",
        default=suppress,
        help="print machine-readable JSON (keys are stable)",
    )


def add_global_options(parser: argparse.ArgumentParser) -> None:
    """The options before the command: ``--db``, ``--project-name``, ``--json`` (not ``--version``).

    One declaration for argparse and for the light parser of ``cli._quickparse``.
    """
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


def _json_parent() -> argparse.ArgumentParser:
    import argparse

    parent = argparse.ArgumentParser(add_help=False)
    add_json_flag(parent, argparse.SUPPRESS)
    return parent


def _command_token(argv: Sequence[str]) -> str | None:
    """The first token that is not a global option: the command, if any."""
    tokens = iter(argv)
    for token in tokens:
        if token in _GLOBAL_OPTIONS_WITH_VALUE:
            next(tokens, None)
        elif token in {"-h", "--help", "--version"}:
            return None
        elif not token.startswith("-") or token == "-":
            return token
    return None


def command_modules_for(argv: Sequence[str] | None) -> list[str]:
    """The command modules to load for ``argv``.

    Only the module that declares the command in ``argv`` when ``COMMAND_MODULES`` names it;
    else all of them (help, an unknown or a missing command).
    """
    everything = [entry if isinstance(entry, str) else entry[0] for entry in COMMAND_MODULES]
    wanted = None if argv is None else _command_token(argv)
    if wanted is not None:
        for entry in COMMAND_MODULES:
            if not isinstance(entry, str) and wanted in entry[1:]:
                return [entry[0]]
    return everything


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Build the parser.

    Args:
        argv: The arguments about to be parsed. When given, only the command group that
            handles them is loaded (faster start); None loads every group.
    """
    import argparse

    parser = argparse.ArgumentParser(
        prog="anneal-memory",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        allow_abbrev=False,  # so the command token found in argv is the one argparse sees
    )
    add_global_options(parser)
    parser.add_argument("--version", action="version", version=f"anneal-memory {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", dest="command")
    parents = [_json_parent()]
    for name in command_modules_for(argv):
        importlib.import_module(name).add_commands(subparsers, parents)
    return parser
