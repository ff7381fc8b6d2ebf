"""Argument types shared by command modules; a bad value is a usage error (exit 2)."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = [
    "EPISODE_TYPES",
    "add_scope_arg",
    "json_object",
    "non_negative_float",
    "non_negative_int",
    "positive_int",
]

# The values of ``EpisodeType``, spelled out so parsing needs no import of the store.
EPISODE_TYPES = ("observation", "decision", "tension", "question", "outcome", "context")


def _whole_number(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {value}")
    return value


def add_scope_arg(parser: argparse.ArgumentParser, what: str, default: str | None = "") -> None:
    """Add ``--scope S``: the scope (a user, a thread, an agent) whose wrap ``what`` concerns."""
    parser.add_argument(
        "--scope",
        metavar="S",
        default=default,
        help=f"{what} of scope S (up to 64 printable characters; default: "
        + ("the shared scope" if default == "" else "see below")
        + ")",
    )


def positive_int(text: str) -> int:
    """An integer of 1 or more."""
    return _whole_number(text, 1)


def non_negative_int(text: str) -> int:
    """An integer of 0 or more."""
    return _whole_number(text, 0)


def non_negative_float(text: str) -> float:
    """A finite number of 0 or more (``1.5`` days is fine)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number of 0 or more, got {text}")
    return value


def json_object(text: str) -> dict[str, Any]:
    """A JSON object given on the command line (``'{"ticket": "PAY-12"}'``)."""
    import json

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError('must be a JSON object like \'{"key": "value"}\'')
    return value
