"""Every entry point that reads or appends one file beside a store, run against what is there.

``probe(db, place)`` calls the library, the CLI (``main(argv)`` in process) and the MCP
handler on the store at ``db`` and returns what each answered, as text. The tests plant a
symbolic link, a FIFO or a folder at the place first. Run as a script (``python
_sidefile_probe.py DB PLACE``) it prints the answers as JSON: a FIFO must never hang, so the
tests run that case in a child process under a timeout, where hanging is the failure.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anneal_memory.audit import AuditVerifyResult

SECRET = "root:x:0:0:SECRET-OUTSIDE-THE-STORE"
SCOPE = "team-a"

__all__ = [
    "CHECKED",
    "PLACES",
    "REFUSED",
    "SECRET",
    "judge",
    "place_path",
    "plant",
    "probe",
    "seed",
]

# Where each probed file lives, relative to ``memory.db``.
PLACES = {
    "continuity": "memory.continuity.md",
    "scoped-continuity": "",  # the scope's hashed name, from the store
    "continuity-lock": "memory.continuity.md.lock",
    "audit-trail": "memory.audit.jsonl",
    "audit-manifest": "memory.audit.manifest.json",
    "audit-lock": "memory.audit-append.lock",
    "token-file": "memory.db.http-tokens",
    "import-input": "export.json",
}


# The answers that must be refusals naming the file, per place.
REFUSED = {
    "continuity": [
        "lib load_continuity", "lib prepare_wrap", "lib start", "lib save", "cli continuity",
        "cli prepare-wrap", "mcp read_continuity", "mcp prepare_wrap", "mcp resource",
    ],
    "scoped-continuity": [
        "lib load_continuity", "lib prepare_wrap", "lib start", "lib save", "cli continuity",
        "cli prepare-wrap",
    ],
    "continuity-lock": ["lib save"],
    "audit-trail": ["lib verify", "lib read_entries", "cli verify", "cli audit"],
    "audit-manifest": ["lib verify", "lib read_entries", "cli verify", "cli audit"],
    "audit-lock": [],
    "token-file": ["lib tokens", "lib token_add", "cli http-token add"],
    "import-input": ["lib import_from", "cli import"],
}  # fmt: skip
# Beside the store: ``check`` names them (an import input is the operator's own file).
CHECKED = set(PLACES) - {"import-input"}


def _refused(answer: str, name: str) -> bool:
    if answer.startswith("ok:"):
        return False
    if answer.startswith("exit "):
        failed = not answer.startswith("exit 0")
    elif answer.startswith("{"):
        reply = json.loads(answer)
        failed = "error" in reply or reply.get("result", {}).get("isError") is True
    else:
        failed = True
    return failed and name in answer


def judge(answers: dict[str, str], place: str, name: str, secret: str) -> dict[str, list[str]]:
    """What went wrong in ``answers`` for the file ``name`` at ``place`` (empty lists: nothing).

    ``leaked``: answers holding the outside file's text; ``not_refused``: answers that should
    refuse the file, naming it, and did not; ``check_missed``: ``check`` did not name it;
    ``tracebacks``: answers with a Python traceback.
    """
    missed = []
    if place in CHECKED:
        if not _refused(answers["cli check"], name):
            missed.append("cli check")
        if "file-not-regular" not in answers["lib check"]:
            missed.append("lib check")
    return {
        "leaked": [n for n, answer in answers.items() if secret in answer],
        "not_refused": [n for n in REFUSED[place] if not _refused(answers[n], name)],
        "check_missed": missed,
        "tracebacks": [n for n, answer in answers.items() if "Traceback" in answer],
    }


def place_path(db: Path, place: str) -> Path:
    """The path of ``place`` beside the store at ``db``."""
    if place == "scoped-continuity":
        from anneal_memory import Store

        with Store(db, read_only=True) as store:
            return store.continuity_file(SCOPE)
    return db.with_name(PLACES[place])


def seed(db: Path) -> Path:
    """A store with episodes and a trail at ``db``; an export beside it; the outside file."""
    from anneal_memory import Store

    with Store(db) as store:
        for n in range(3):
            store.record(f"episode {n} about sockets", "observation")
        with db.with_name("export.json").open("w", encoding="utf-8") as out:
            store.export_json(out)
    outside = db.parent.parent / "outside" / "passwd"
    outside.parent.mkdir(exist_ok=True)
    outside.write_text(SECRET + "\n", encoding="utf-8")
    return outside


def plant(path: Path, kind: str, outside: Path) -> None:
    """Replace ``path`` with a symbolic link to ``outside``, a FIFO or a folder."""
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "symlink":
        os.symlink(outside, path)
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()


def _answer(call: Callable[[], object]) -> str:
    try:
        return f"ok: {call()}"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def _cli(db: Path, *args: str) -> str:
    from anneal_memory.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--db", str(db), *args])
    return f"exit {code}: {out.getvalue()} {err.getvalue()}"


def _mcp(db: Path, method: str, params: dict[str, object]) -> str:
    from anneal_memory.mcp import McpServer, ServerConfig

    server = McpServer(ServerConfig(db_path=db, session_id="probe"))
    try:
        reply = server.handle(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, **params}))
    finally:
        server.close()
    return json.dumps(reply)


def _tool(db: Path, name: str, **arguments: object) -> str:
    return _mcp(db, "tools/call", {"params": {"name": name, "arguments": arguments}})


def _verified(result: AuditVerifyResult) -> str:
    if not (result.valid and result.complete):
        raise AssertionError(result.summary())  # an answer, like the CLI's exit 1
    return result.summary()


def _save(db: Path, scope: str) -> object:
    from anneal_memory import Store, prepare_wrap, validated_save_continuity, wrap_cancel
    from anneal_memory.continuity import wrap_status

    text = "## State\n- probed\n## Patterns\n## Decisions\n## Context\n- probe\n"
    with Store(db) as store:
        if wrap_status(store, scope) is not None:  # opened by an earlier probe
            wrap_cancel(store, scope=scope, force=True)
        token = prepare_wrap(store, scope=scope).wrap_token
        return validated_save_continuity(store, text, wrap_token=token, scope=scope).path


def _library(db: Path, place: str) -> dict[str, Callable[[], object]]:
    from anneal_memory import AgentMemory, Store, prepare_wrap
    from anneal_memory.audit import AuditTrail, read_entries
    from anneal_memory.mcp._http._tokens import TokenFile

    def with_store(call: Callable[[Store], object]) -> Callable[[], object]:
        def run() -> object:
            with Store(db) as store:
                return call(store)

        return run

    scope = SCOPE if place == "scoped-continuity" else ""
    return {
        "load_continuity": with_store(lambda s: s.load_continuity(scope)),
        "prepare_wrap": with_store(lambda s: prepare_wrap(s, scope=scope).package.text),
        "start": lambda: AgentMemory(db, scope=scope or None, strict=True).start(),
        "check": with_store(lambda s: s.check(full=False).summary()),
        "record": with_store(lambda s: s.record("probe", "observation").id),
        "verify": lambda: _verified(AuditTrail.verify(db)),
        "read_entries": lambda: len(read_entries(db)),
        "tokens": lambda: TokenFile(db.with_name("memory.db.http-tokens")).entries(),
        "token_add": lambda: TokenFile(db.with_name("memory.db.http-tokens")).add(
            "probe", scope="default", session_id="probe"
        ),
        "import_from": with_store(lambda s: s.import_from(db.with_name("export.json")).format),
    }


def probe(db: Path, place: str) -> dict[str, str]:
    """What every entry point answers about the store at ``db`` (see the module docstring)."""
    scope = ["--scope", SCOPE] if place == "scoped-continuity" else []
    answers = {f"lib {name}": _answer(call) for name, call in _library(db, place).items()}
    cli = {
        "continuity": ["continuity", *scope],
        "check": ["check"],
        "prepare-wrap": ["prepare-wrap", *scope],
        "verify": ["verify"],
        "audit": ["audit"],
        "http-token add": ["http-token", "add", "probe2", "--session-id", "probe"],
        "import": ["import", str(db.with_name("export.json"))],
    }
    answers.update({f"cli {name}": _cli(db, *args) for name, args in cli.items()})
    answers["mcp read_continuity"] = _tool(db, "read_continuity")
    answers["mcp prepare_wrap"] = _tool(db, "prepare_wrap")
    answers["mcp record"] = _tool(db, "record", content="over mcp", episode_type="observation")
    answers["mcp resource"] = _mcp(db, "resources/read", {"params": {"uri": "anneal://continuity"}})
    # Last: a save that goes through replaces what is at the path, hiding it from the rest.
    answers["lib save"] = _answer(lambda: _save(db, SCOPE if place == "scoped-continuity" else ""))
    return answers


if __name__ == "__main__":
    print(json.dumps(probe(Path(sys.argv[1]), sys.argv[2])))
