"""The agent-instruction snippets in examples/ name only tools and commands that exist.

A tool, parameter or command a snippet names that is renamed or removed fails here, so the
snippets an operator pastes cannot drift from the server and the CLI (issue 28). The
``migrate check`` list (``anneal_memory.upgrade.CHANGES``) is held to the same rule.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from anneal_memory.cli._parser import COMMAND_MODULES, build_parser
from anneal_memory.mcp._resources import RESOURCES
from anneal_memory.mcp._tools import TOOLS
from anneal_memory.upgrade import CHANGES

ROOT = Path(__file__).resolve().parents[2]
MCP_SNIPPETS = ["agent-instructions.md", "instructions-mcp-lean.md"]
CLI_SNIPPETS = ["instructions-cli-lean.md", "instructions-cli-full.md"]
CORE_TOOLS = {"record", "recall", "prepare_wrap", "save_continuity", "wrap_cancel", "outcome"}
CORE_COMMANDS = {"search", "record", "outcome", "prepare-wrap", "save-continuity", "wrap-cancel"}
_NAME = re.compile(r"[a-z][a-z_]*")


def _pasted(name: str) -> str:
    """The part an operator pastes: everything after the ``---`` line."""
    text = (ROOT / "examples" / name).read_text(encoding="utf-8")
    return text.split("\n---\n", 1)[1]


def _vocabulary(schema: Any, out: set[str]) -> None:
    if isinstance(schema, dict):
        for key, value in schema.get("properties", {}).items():
            out.add(key)
            _vocabulary(value, out)
        for value in schema.get("enum", []):
            out.add(str(value))
        for key in ("items", "additionalProperties"):
            _vocabulary(schema.get(key), out)


def _mcp_words() -> tuple[set[str], set[str]]:
    tools = {t.name for t in TOOLS}
    words = set(tools)
    for tool in TOOLS:
        _vocabulary(tool.input_schema, words)
    return tools, words


def _commands() -> set[str]:
    return {name for entry in COMMAND_MODULES if isinstance(entry, tuple) for name in entry[1:]}


@pytest.mark.parametrize("name", MCP_SNIPPETS)
def test_mcp_snippets_name_only_tools_parameters_and_values_that_exist(name: str) -> None:
    tools, words = _mcp_words()
    pasted = _pasted(name)
    named = re.findall(r"`([^`]+)`", pasted)
    unknown = [w for w in named if _NAME.fullmatch(w) and w not in words]
    assert unknown == [], f"{name} names {unknown}: not a tool, parameter or value any more"
    uris = {r["uri"] for r in RESOURCES}
    for uri in (w for w in named if w.startswith("anneal://")):
        assert uri in uris, f"{name} names the resource {uri}, which is gone"
    assert tools >= CORE_TOOLS, CORE_TOOLS - tools
    assert set(named) >= CORE_TOOLS, f"{name} must teach {CORE_TOOLS - set(named)}"


def _cli_examples(name: str) -> list[list[str]]:
    found = []
    for snippet in re.findall(r"`(anneal-memory [^`]+)`", _pasted(name)):
        argv = shlex.split(snippet)[1:]
        found.append(argv)
    return found


@pytest.mark.parametrize("name", CLI_SNIPPETS)
def test_cli_snippets_parse_with_the_current_command_line(name: str) -> None:
    examples = _cli_examples(name)
    for argv in examples:
        try:
            build_parser(argv).parse_args(argv)
        except SystemExit:
            pytest.fail(f"{name}: `anneal-memory {shlex.join(argv)}` no longer parses")
    used = {argv[0] for argv in examples}
    assert _commands() >= CORE_COMMANDS, CORE_COMMANDS - _commands()
    assert used >= CORE_COMMANDS, f"{name} must show {CORE_COMMANDS - used}"


def test_a_removed_command_fails_the_check() -> None:
    """The check above can fail: an unknown command does not parse."""
    with pytest.raises(SystemExit):
        build_parser(["no-such-command"]).parse_args(["no-such-command"])


def test_migrate_check_names_only_tools_and_commands_that_exist() -> None:
    tools, commands = {t.name for t in TOOLS}, _commands()
    for change in CHANGES:
        if change.kind == "tool":
            assert change.name in tools, change
        elif change.kind == "command":
            names = re.split(r"[,/]\s*|\s+", change.name)
            assert names[0] in commands, change
