"""In-process tests of the command line: parsing, rendering, exit codes (``main([...])``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from anneal_memory.cli import main
from anneal_memory.cli._context import CommandError, ExitCode, default_home, resolve_db_path
from anneal_memory.cli._parser import COMMAND_MODULES, build_parser, command_modules_for
from anneal_memory.cli._render import human_bytes, one_line, safe

MY_COMMANDS = (
    "init",
    "status",
    "stats",
    "record",
    "get",
    "delete",
    "prune",
    "search",
    "recall",
    "episodes",
    "export",
    "import",
    "demo",
)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cli" / "memory.db")


def _json(capsys: pytest.CaptureFixture[str]) -> dict:
    return json.loads(capsys.readouterr().out)


def test_exit_codes_are_public_numbers():
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3]


def test_version_help_and_usage_return_codes_instead_of_exiting(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("anneal-memory ")
    assert main([]) == 2
    assert "usage: anneal-memory" in capsys.readouterr().err
    assert main(["--no-such-flag"]) == 2
    assert main(["record"]) == 2
    assert "the following arguments are required: TEXT" in capsys.readouterr().err


@pytest.mark.parametrize("command", MY_COMMANDS)
def test_every_command_has_help(command, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    shown = "search" if command == "recall" else command  # argparse names an alias's parent
    assert f"usage: anneal-memory {shown}" in out
    assert "--json" in out


def test_fast_path_loads_only_the_module_of_the_command():
    declared = {entry[0]: entry[1:] for entry in COMMAND_MODULES if not isinstance(entry, str)}
    for module, names in declared.items():
        for name in names:
            assert command_modules_for([name, "x"]) == [module]
            assert command_modules_for(["--json", "--db", "search", name]) == [module]
            assert command_modules_for(["--db=x", "--project-name", "P", name]) == [module]
    everything = len(COMMAND_MODULES)
    assert len(command_modules_for(None)) == everything
    assert len(command_modules_for(["--help", "record"])) == everything
    assert len(command_modules_for(["nonsense"])) == everything
    assert len(command_modules_for(["--db"])) == everything


def test_fast_and_full_parsers_agree():
    argv = ["--db", "x.db", "--json", "search", "q", "--type", "decision", "--limit", "3"]
    fast = vars(build_parser(argv).parse_args(argv))
    full = vars(build_parser().parse_args(argv))
    assert fast == full
    assert fast["json"] is True
    assert fast["limit"] == 3


def test_json_flag_after_the_command_and_default_off():
    parser = build_parser()
    assert parser.parse_args(["status", "--json"]).json is True
    assert parser.parse_args(["--json", "status"]).json is True
    assert parser.parse_args(["status"]).json is False


def test_db_path_precedence(tmp_path: Path):
    env = {"ANNEAL_MEMORY_DB": str(tmp_path / "env.db"), "HOME": str(tmp_path / "home")}
    assert resolve_db_path(str(tmp_path / "flag.db"), env) == tmp_path / "flag.db"
    assert resolve_db_path(None, env) == tmp_path / "env.db"
    home_only = {"HOME": str(tmp_path / "home")}
    assert resolve_db_path(None, home_only) == tmp_path / "home" / ".anneal-memory" / "memory.db"
    with pytest.raises(CommandError, match=r"--db PATH or set ANNEAL_MEMORY_DB"):
        resolve_db_path(None, {})
    with pytest.raises(CommandError):
        resolve_db_path(None, {"HOME": "x"}, home=lambda env: None)
    assert default_home({}) is None
    assert default_home({"HOME": ""}) is None


def test_record_search_get_in_process(db, capsys):
    assert main(["--db", db, "record", "the cache TTL is 300 seconds", "--json"]) == 0
    recorded = _json(capsys)
    assert main(["--db", db, "search", "what is the cache ttl?", "--json"]) == 0
    found = _json(capsys)
    assert [e["id"] for e in found["episodes"]] == [recorded["id"]]
    assert main(["--db", db, "get", recorded["id"]]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"id:        {recorded['id']}\n")
    assert shown.rstrip().endswith("the cache TTL is 300 seconds")


def test_refusals_are_one_error_line(db, capsys):
    assert main(["--db", db, "init"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "get", "nope"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "Error: no episode with id 'nope'\n"
    assert main(["--db", db, "record", "x"]) == 0
    episode_id = capsys.readouterr().out.split()[-1]
    assert main(["--db", db, "delete", episode_id]) == 1  # pytest's stdin is no terminal
    assert "pass --force" in capsys.readouterr().err
    assert main(["--db", db, "search", "x", "--until", "someday"]) == 1
    assert capsys.readouterr().err.startswith("Error: until: ")


@pytest.mark.parametrize(
    "query",
    ['"', "NEAR(", "a\x00b", "*", "-", "x" * 65536, 'title:foo OR "bar', "\ud800", "  "],
)
def test_hostile_queries_in_process(db, capsys, query):
    assert main(["--db", db, "record", "a b x title foo bar"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "search", query, "--json"]) == 0
    keys = {"query", "total_matching", "count", "offset", "episodes", "facts", "exposure_id"}
    assert set(_json(capsys)) == keys


def test_text_renderers():
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("x" * 200, 10) == "x" * 9 + "…"
    assert human_bytes(0) == "0 B"
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(3 * 1024**3) == "3.0 GiB"


def test_safe_neutralises_terminal_control_sequences():
    assert safe("plain 記憶 🦀 e\u0301") == "plain 記憶 🦀 e\u0301"
    assert safe("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert safe("x\x9by\x7f") == "x\\x9by\\x7f"
    assert safe("rtl \u202e override") == "rtl \\u202e override"
    assert safe("l1\nl2\tx\r", keep="\n\t") == "l1\nl2\tx\\x0d"
    assert safe("👩\u200d💻") == "👩\u200d💻"  # a joiner inside an emoji stays


def test_control_characters_never_reach_the_terminal_raw(db, capsys):
    hostile = "before \x1b]0;pwned\x07 \x1b[2J after\rover"
    assert main(["--db", db, "record", hostile, "--json"]) == 0
    episode = _json(capsys)
    assert episode["content"] == hostile  # stored and exported verbatim
    for argv in (["get", episode["id"]], ["episodes"], ["search", "before after"]):
        assert main(["--db", db, *argv]) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out
        assert "\r" not in out
        assert "\\x1b" in out  # shown, escaped


def test_db_that_is_a_directory_is_a_clean_error(tmp_path, capsys):
    assert main(["--db", str(tmp_path), "record", "x"]) == 1
    assert (
        capsys.readouterr().err
        == f"Error: {tmp_path} is a directory; --db takes the database file's path\n"
    )


def test_error_lines_escape_control_characters(db, tmp_path, capsys):
    missing = tmp_path / "evil\x1b[2Jname.json"
    assert main(["--db", db, "import", str(missing)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: No such file or directory: ")
    assert "\x1b" not in err
    assert "evil\\x1b[2Jname.json" in err
