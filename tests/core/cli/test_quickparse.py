"""The light parser gives argparse's namespace for every command line it accepts (#25).

``cli._quickparse`` parses the plain command lines without importing argparse; anything else
(help, errors, forms it does not model) it declines and argparse parses. These tests hold it
to argparse: the docs' command lines, hand-picked edge cases and generated command lines,
each parsed both ways.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
from anneal_memory.cli import _quickparse
from anneal_memory.cli._parser import COMMAND_MODULES, build_parser
from anneal_memory.cli._quickparse import quick_parse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[3]
COMMANDS = sorted({name for entry in COMMAND_MODULES for name in entry[1:]})


def _argparse(argv: list[str]) -> dict | None:
    """argparse's namespace for ``argv`` as a dict, or None when it refuses or exits."""
    sink = io.StringIO()
    try:
        with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
            return vars(build_parser(argv).parse_args(argv))
    except SystemExit:
        return None


def _agrees(argv: list[str]) -> bool:
    """True when the light parser declined ``argv`` or gave argparse's exact namespace."""
    quick = quick_parse(argv)
    if quick is None:
        return True
    assert _argparse(argv) == vars(quick), argv
    return True


def test_the_marker_is_argparses():
    assert argparse.SUPPRESS == _quickparse.SUPPRESS


@pytest.mark.parametrize(
    "argv",
    [
        ["--db", "d", "record", "a note", "--type", "observation"],
        ["--db=d", "--json", "record", "-", "-t", "decision", "--metadata", '{"k": 1}'],
        ["record", "x", "--supersedes", "0123abcd", "--supersedes", "89abcdef", "--operator"],
        ["record", "x", "--trust=tool", "--state-key", "user.city", "--session-id", "s1"],
        ["record", "", "--json"],
        ["--db", "d", "search", "what did we decide"],
        ["search", "q", "-n", "5", "--offset", "2", "--since", "7d", "--no-exposure"],
        ["recall", "q", "--type", "decision", "--include-superseded", "--json"],
        ["--db", "d", "serve", "--session-id", "bench"],
        ["serve", "--scope", "team", "--allow-origin", "a", "--allow-origin", "b"],
        ["serve", "--max-body", "1024", "--skip-integrity"],
        ["get", "0123abcd"],
        ["state", "--set", "0123abcd", "user.city"],
        ["state", "user.city", "--unset", "0123abcd"],
        ["trust", "0123abcd", "agent"],
        ["trust", "0123abcd"],
        ["prune", "--older-than", "1.5", "--dry-run"],
        ["status"],
        ["episodes", "-k", "word", "--limit", "3"],
    ],
)
def test_the_common_command_lines_are_parsed_lightly_and_as_argparse_does(argv):
    assert quick_parse(argv) is not None, argv
    assert _agrees(argv)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["--version"],
        ["record", "--help"],
        ["record", "-h"],
        ["record"],  # TEXT is required: argparse's usage error
        ["record", "x", "--typ", "decision"],  # an abbreviation
        ["record", "x", "--type", "nonsense"],  # a refused choice
        ["record", "x", "--metadata", "[1]"],  # a refused type
        ["record", "x", "y"],  # one positional too many
        ["record", "--", "-x"],
        ["record", "-x"],
        ["record", "x", "-tdecision"],
        ["record", "x", "--source", "-"],
        ["search", "q", "--limit", "-1"],
        ["search", "q", "--limit", "0"],
        ["trust", "0123abcd", "--operator", "agent"],  # argparse fills LEVEL from the first run
        ["state", "--set", "a", "--unset", "b"],  # one exclusive group
        ["supersede", "--old", "a"],  # a required option missing
        ["no-such-command"],
        ["--db"],
        ["--json=1", "status"],
        ["baton", "status"],  # nested subcommands are argparse's
    ],
)
def test_help_errors_and_unmodelled_forms_are_left_to_argparse(argv):
    assert quick_parse(argv) is None, argv


def _doc_command_lines() -> list[list[str]]:
    lines = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for match in re.finditer(r"^\s*(?:\$ )?anneal-memory (.+)$", doc.read_text(), re.M):
            text = match.group(1).split(" #")[0].split(" |")[0].split(" >")[0].split(" <")[0]
            with contextlib.suppress(ValueError):
                argv = shlex.split(text.rstrip("\\ "))
                if argv and not any(t.startswith("$") or "`" in t for t in argv):
                    lines.append(argv)
    return lines


def test_every_command_line_of_the_docs_parses_as_argparse_parses_it():
    lines = _doc_command_lines()
    assert len(lines) > 20  # the docs are read (many examples)
    accepted = [argv for argv in lines if _agrees(argv) and quick_parse(argv) is not None]
    assert len(accepted) > len(lines) // 2  # and most of them take the light path


def _options_of(command: str) -> list[str]:
    parser = build_parser([command])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [s for a in sub.choices[command]._actions for s in a.option_strings]


_VALUES = [
    "x",
    "a b",
    "",
    "-",
    "--",
    "-1",
    "0",
    "3",
    "1.5",
    "7d",
    "observation",
    "decision",
    "agent",
    "operator",
    "0123abcd",
    '{"k": 1}',
    "[1]",
    "-h",
    "--help",
    "--ty",
    "--type=decision",
    "--limit=3",
    "--json",
    "-tdecision",
]


@st.composite
def _command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(COMMANDS))
    plain = ["x", "3", "agent", "decision", "0123abcd"]  # most lines should parse
    pool = _options_of(command) * 3 + plain * 3 + _VALUES
    head = draw(st.lists(st.sampled_from(["--json", "--db", "d", "--project-name", "P"])))
    tail = draw(st.lists(st.sampled_from(pool), max_size=8))
    return [*head, command, *tail]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_command_lines())
def test_generated_command_lines_parse_as_argparse_parses_them_or_are_declined(argv):
    assert _agrees(argv)


def test_a_command_module_using_more_of_argparse_is_left_to_argparse(monkeypatch):
    from anneal_memory.cli import _cmd_episodes

    def add_commands(subparsers, parents):
        record = subparsers.add_parser("record", parents=parents)
        record.add_argument("text")
        record.convert_arg_line_to_args("x")  # not recorded by the light parser

    monkeypatch.setattr(_cmd_episodes, "add_commands", add_commands)
    assert quick_parse(["record", "x"]) is None
