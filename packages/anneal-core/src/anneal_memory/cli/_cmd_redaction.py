"""``redaction [--set POLICY] [--personal on|off]``: what the store does with secrets.

An operator command: it shows or changes the store's redaction settings (``docs/trust.md``).
The MCP server only reports them (in ``status``); an agent cannot turn redaction off.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anneal_memory.cli._context import Context, ExitCode

if TYPE_CHECKING:
    from anneal_memory.redaction import RedactionSettings

__all__ = ["add_commands", "settings_text"]

_POLICIES = ("redact", "refuse", "off")
_MEANING = {
    "redact": "secrets are replaced by [redacted:<kind>] before a record is written",
    "refuse": "a record holding a secret is refused; nothing is written",
    "off": "records are written as given (secrets included)",
}


def add_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: Sequence[argparse.ArgumentParser],
) -> None:
    """Register ``redaction``."""
    command = subparsers.add_parser(
        "redaction",
        parents=parents,
        help="show or set what the store does with secrets in records (redact, refuse, off)",
        description="Show the store's redaction settings, or change them. 'redact' (the "
        "default) replaces API keys, tokens, passwords and private keys by "
        "[redacted:<kind>] before a record or an import is written; 'refuse' refuses such a "
        "record; 'off' keeps the text as given. --personal on adds e-mail addresses, phone "
        "numbers and card numbers. Episodes already stored are not rewritten.",
    )
    command.add_argument("--set", dest="policy", choices=_POLICIES, help="the new policy")
    command.add_argument(
        "--personal",
        choices=("on", "off"),
        help="also treat e-mail addresses, phone numbers and card numbers as secrets",
    )
    command.set_defaults(handler=run_redaction)


def settings_text(settings: RedactionSettings) -> str:
    """Two lines naming the policy and the personal-data setting, with what they mean."""
    personal = (
        "on (e-mail addresses, phone numbers and card numbers are redacted too)"
        if settings.personal
        else "off (e-mail addresses, phone numbers and card numbers are kept)"
    )
    policy = settings.policy.value
    return f"Redaction policy: {policy} ({_MEANING[policy]})\nPersonal data:    {personal}"


def run_redaction(ctx: Context, args: argparse.Namespace) -> int:
    """Show the settings, or set them and show what they were."""
    if args.policy is None and args.personal is None:
        settings = ctx.store(read_only=True).redaction_settings()
        ctx.emit(settings.to_dict(), settings_text(settings))
        return ExitCode.OK
    store = ctx.store(create=False)
    personal = None if args.personal is None else args.personal == "on"
    was = store.set_redaction(args.policy, personal=personal)
    now = store.redaction_settings()
    text = settings_text(now)
    if now != was:
        text += f"\n(was: {was.policy.value}, personal data {'on' if was.personal else 'off'})"
    ctx.emit({**now.to_dict(), "was": was.to_dict()}, text)
    return ExitCode.OK
