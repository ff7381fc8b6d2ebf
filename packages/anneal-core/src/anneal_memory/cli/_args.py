"""Argument types and flags shared by command modules; a bad value is a usage error (exit 2).

Light on purpose (start-up, #25): ``argparse`` is imported only to raise its type error.
"""

from __future__ import annotations

from collections.abc import Mapping

from anneal_memory.cli._context import CommandError

TYPE_CHECKING = False  # typing's constant without importing typing
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from anneal_memory.cli._context import Context

__all__ = [
    "EPISODE_TYPES",
    "MAX_SESSION_ID",
    "OPERATOR_ENV",
    "SESSION_ENV",
    "add_operator_flag",
    "add_scope_arg",
    "add_session_id",
    "check_session_id",
    "is_operator",
    "json_object",
    "non_negative_float",
    "non_negative_int",
    "positive_int",
    "session_id",
]

OPERATOR_ENV = "ANNEAL_OPERATOR"
SESSION_ENV = "ANNEAL_MEMORY_SESSION_ID"
MAX_SESSION_ID = 128

# The values of ``EpisodeType``, spelled out so parsing needs no import of the store.
EPISODE_TYPES = ("observation", "decision", "tension", "question", "outcome", "context")


def _type_error(message: str) -> Exception:
    """The error argparse prints as a usage error for a refused value."""
    import argparse

    return argparse.ArgumentTypeError(message)


def _whole_number(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _type_error(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise _type_error(f"must be {minimum} or more, got {value}")
    return value


def add_operator_flag(parser: argparse.ArgumentParser) -> None:
    """The explicit operator flag (``--operator``; or ``ANNEAL_OPERATOR=1``)."""
    parser.add_argument(
        "--operator",
        action="store_true",
        help=f"act as the operator: allows operator trust and raising trust (or {OPERATOR_ENV}=1)",
    )


def is_operator(args: argparse.Namespace, env: Mapping[str, str]) -> bool:
    """True when the operator flag or ``ANNEAL_OPERATOR=1`` was given."""
    return bool(getattr(args, "operator", False)) or env.get(OPERATOR_ENV, "") == "1"


def add_session_id(parser: argparse.ArgumentParser, what: str) -> None:
    """The ``--session-id`` flag of ``search`` and ``record`` (default: the environment)."""
    parser.add_argument(
        "--session-id", metavar="NAME", help=f"{what} (default: ${SESSION_ENV}, else none)"
    )


def check_session_id(value: str | None) -> str | None:
    """``value`` as a session id (None stays None).

    Raises:
        CommandError: Not 1-128 printable characters.
    """
    # The same rule as ``anneal_memory.gate.validate_session_id`` (a test keeps them equal),
    # checked here without importing the gate so the server starts fast.
    if value is not None and (
        not value.strip() or len(value) > MAX_SESSION_ID or not value.isprintable()
    ):
        raise CommandError(
            f"session id must be 1-{MAX_SESSION_ID} printable characters, got {value!r}"
        )
    return value


def session_id(ctx: Context, args: argparse.Namespace) -> str | None:
    """The session id of ``--session-id`` or the environment (None: not given).

    Raises:
        CommandError: Not 1-128 printable characters.
    """
    return check_session_id(args.session_id or ctx.env.get(SESSION_ENV) or None)


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
        raise _type_error(f"expected a number, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise _type_error(f"must be a finite number of 0 or more, got {text}")
    return value


def json_object(text: str) -> dict[str, Any]:
    """A JSON object given on the command line (``'{"ticket": "PAY-12"}'``)."""
    import json

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise _type_error(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise _type_error('must be a JSON object like \'{"key": "value"}\'')
    return value
