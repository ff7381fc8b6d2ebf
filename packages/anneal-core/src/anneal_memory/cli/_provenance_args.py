"""The provenance flags of ``record``: supersedes, state key, trust, sources, operator."""

from __future__ import annotations

from anneal_memory.cli._args import add_operator_flag

TYPE_CHECKING = False  # typing's constant without importing typing
if TYPE_CHECKING:
    import argparse
    from typing import Any

__all__ = ["add_provenance_flags", "provenance_kwargs"]


def add_provenance_flags(parser: argparse.ArgumentParser) -> None:
    """Add the provenance flags to ``record``."""
    parser.add_argument(
        "--supersedes",
        action="append",
        metavar="ID",
        help="an older episode this one replaces (repeatable)",
    )
    parser.add_argument(
        "--state-key",
        metavar="KEY",
        help="the single-valued fact this sets (e.g. user.home_city); the newest value wins",
    )
    parser.add_argument(
        "--trust",
        choices=("external", "tool", "agent", "operator"),
        default="agent",
        help="where it came from (default: agent; operator needs --operator)",
    )
    parser.add_argument(
        "--derived-from",
        action="append",
        metavar="ID",
        help="an episode this one was derived from; caps its effective trust (repeatable)",
    )
    add_operator_flag(parser)


def provenance_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The ``Store.record`` keyword arguments of the parsed flags."""
    return {
        "trust": args.trust,
        "supersedes": args.supersedes,
        "state_key": args.state_key,
        "derived_from": args.derived_from,
    }
