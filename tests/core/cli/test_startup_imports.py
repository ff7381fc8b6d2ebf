"""The CLI starts fast: a command imports only the rooms it runs (issue #25).

Each test runs the real command in a fresh interpreter and lists the ``anneal_memory``
modules it loaded; a later eager import of a room a command does not need (the wrap
pipeline, import/export, explain, the inspector, the ranking for a ``record``) fails here
(the e2e tier: real processes). The standard library modules the plain command lines no
longer load (argparse and its gettext and locale, shutil with bz2 and lzma; threading, string
and glob) are held out the same way, and so are the dataclasses a ``record`` no longer builds
at import: only the public value types are dataclasses on that path.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e  # each test starts a fresh interpreter (docs/testing.md)

_DRIVER = """
import json, sys
import pathlib  # every command uses it: what it loads itself (glob, on 3.13) is not ours
ambient = set(sys.modules)
from anneal_memory.cli import main
code = main(sys.argv[1:-2])
watched = ("anneal_memory",) + tuple(sys.argv[-1].split(","))
loaded = sorted(m for m in sys.modules if m.split(".")[0] in watched and m not in ambient)
built = sorted(  # classes the dataclass decorator processed, in the modules of ours loaded
    f"{name}.{value.__qualname__}"
    for name, module in list(sys.modules.items())
    if name.split(".")[0] == "anneal_memory"
    for value in vars(module).values()
    if isinstance(value, type) and value.__module__ == name
    and "__dataclass_fields__" in vars(value)
)
print("\\n" + json.dumps({"code": code, "loaded": loaded, "dataclasses": built}))
"""

# Rooms no search needs (it does read the continuity's durable facts and write an exposure;
# with no continuity file, as here, it does not parse a document).
# The standard library a plain ``record``, ``search`` or ``serve`` command line does without:
# ``cli._quickparse`` parses it (argparse only for help, errors and the forms it declines),
# and shutil is imported by the code that removes folders, not by an open. The store's locks
# are ``_thread``'s own (what ``threading.Lock``/``RLock`` return), the secret rules spell out
# ``string``'s letters, and an open escapes a glob pattern itself (issue #25, second pass).
STDLIB_NOT_AT_START = (
    "argparse",
    "gettext",
    "locale",
    "shutil",
    "bz2",
    "lzma",
    "threading",
    "string",
    "glob",
)
# The only dataclasses a record builds: public value types (their equality, repr,
# ``dataclasses.replace`` and ``asdict`` are part of the API). The store's and the audit
# manifest's internal types are named tuples, which cost about a tenth to define.
RECORD_DATACLASSES = [
    "anneal_memory.audit._files.AuditPaths",
    "anneal_memory.redaction._policy.CleanedFields",
    "anneal_memory.redaction._policy.RedactionSettings",
    "anneal_memory.redaction._scan.Detection",
    "anneal_memory.redaction._scan.Redaction",
    "anneal_memory.types.Episode",
    "anneal_memory.types.RecallResult",
]
# The command modules of other commands (their shared flags live in ``cli._args``).
OTHER_COMMANDS = tuple(
    f"anneal_memory.cli._cmd_{name}"
    for name in ("audit", "crystal", "http", "provenance", "transfer", "wrap", "wrapinfo")
)
NOT_FOR_SEARCH = (
    *STDLIB_NOT_AT_START,
    *OTHER_COMMANDS,
    "anneal_memory.cli._cmd_episodes",
    "anneal_memory.cli._cmd_serve",
    "anneal_memory.cli._files",  # bounded reads of named files and stdin: ``record -`` and up
    "anneal_memory._result_types",
    "anneal_memory.agent",
    "anneal_memory.crystal",
    "anneal_memory.document",
    "anneal_memory.explain",
    "anneal_memory.immune",
    "anneal_memory.inspect",
    "anneal_memory.mcp",
    "anneal_memory.spores",
    "anneal_memory.store.recall._trace",
    "anneal_memory.store.sqlite._check",
    "anneal_memory.store.transfer._apply",
    "anneal_memory.store.transfer._episodes",
    "anneal_memory.store.transfer._restore",
    "anneal_memory.store.wraps._rows",
)
# A record loads none of the above, nor the ranking or the wrap pipeline; of the worth room only
# the bounded look at recent exposures (``worth._echoes``, the self-feeding loop, issue 30).
NOT_FOR_RECORD = (
    *(m for m in NOT_FOR_SEARCH if m != "anneal_memory.cli._cmd_episodes"),
    "anneal_memory.cli._cmd_recall",
    "anneal_memory._hebbian",
    "anneal_memory.continuity",
    "anneal_memory.store.recall",
    "anneal_memory.store._scope_erase",
    "anneal_memory.store.provenance._evidence",
    "anneal_memory.store.provenance._supersession",
    "anneal_memory.store.wraps",
    "anneal_memory.worth._exposures",
    "anneal_memory.worth._item",
    "anneal_memory.worth._items",
    "anneal_memory.worth._outcomes",
    "anneal_memory.worth._report",
    "anneal_memory.worth._tally",
    "anneal_memory.worth._types",
)


def _report(tmp_path: Path, *argv: str, stdin: str | None = None) -> dict[str, Any]:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _DRIVER,
            "--db",
            str(tmp_path / "memory.db"),
            *argv,
            "--",  # the driver's own arguments follow: the standard library modules watched
            ",".join(sorted({m.split(".")[0] for m in STDLIB_NOT_AT_START})),
        ],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    report: dict[str, Any] = json.loads(proc.stdout.rstrip().rsplit("\n", 1)[-1])
    assert report["code"] == 0, proc.stderr
    return report


def _loaded(tmp_path: Path, *argv: str, stdin: str | None = None) -> list[str]:
    return list(_report(tmp_path, *argv, stdin=stdin)["loaded"])


def _offending(loaded: list[str], rooms: tuple[str, ...]) -> list[str]:
    return [m for m in loaded if any(m == r or m.startswith(r + ".") for r in rooms)]


def test_record_imports_neither_recall_nor_the_wrap_import_or_explain_rooms(
    tmp_path: Path,
) -> None:
    loaded = _loaded(tmp_path, "record", "a plain note", "--type", "observation")
    assert "anneal_memory.store._store" in loaded  # the check sees what the command loads
    assert _offending(loaded, NOT_FOR_RECORD) == []


def test_search_imports_the_ranking_but_not_the_wrap_import_or_explain_rooms(
    tmp_path: Path,
) -> None:
    _loaded(tmp_path, "record", "a plain note", "--type", "observation")
    loaded = _loaded(tmp_path, "search", "note")
    assert "anneal_memory.store.recall._fts5" in loaded
    assert _offending(loaded, NOT_FOR_SEARCH) == []


def test_serve_answers_tools_list_without_importing_the_store_when_there_is_none(
    tmp_path: Path,
) -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) + "\n"
    loaded = _loaded(tmp_path, "serve", stdin=line)
    assert "anneal_memory.mcp._server" in loaded
    assert _offending(loaded, ("anneal_memory.store._store", "anneal_memory.audit._trail")) == []
    not_for_serve = [m for m in OTHER_COMMANDS if not m.endswith("_http")]  # serve --http's
    assert _offending(loaded, (*STDLIB_NOT_AT_START, *not_for_serve)) == []


def test_serve_checks_an_existing_store_without_loading_the_store_facade(tmp_path: Path) -> None:
    _loaded(tmp_path, "record", "a plain note", "--type", "observation")
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) + "\n"
    loaded = _loaded(tmp_path, "serve", stdin=line)
    assert "anneal_memory.store.sqlite._open" in loaded  # the version was checked
    assert _offending(loaded, ("anneal_memory.store._store", "anneal_memory.audit._trail")) == []
    assert _offending(loaded, STDLIB_NOT_AT_START) == []


def test_help_still_comes_from_argparse(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path, "record", "--help")
    assert "argparse" in loaded  # the check sees the standard library it watches


def test_record_builds_no_dataclass_but_the_public_value_types(tmp_path: Path) -> None:
    report = _report(tmp_path, "record", "a plain note", "--type", "observation")
    assert "anneal_memory.store._validate" in report["loaded"]  # EpisodeInput's module ran
    assert report["dataclasses"] == RECORD_DATACLASSES
