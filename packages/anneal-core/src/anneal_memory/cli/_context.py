"""What a command runs with: the resolved database path, the lazily opened store, output."""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from anneal_memory.errors import AnnealMemoryError

if TYPE_CHECKING:
    import argparse

    from anneal_memory.store import Store

__all__ = [
    "DB_ENV",
    "DEFAULT_DB_RELATIVE",
    "SOURCE_ENV",
    "CommandError",
    "Context",
    "ExitCode",
    "default_home",
    "resolve_db_path",
]

DB_ENV = "ANNEAL_MEMORY_DB"
SOURCE_ENV = "ANNEAL_MEMORY_SOURCE"
DEFAULT_DB_RELATIVE = Path(".anneal-memory") / "memory.db"


class ExitCode(enum.IntEnum):
    """Process exit codes of the command line (public API)."""

    OK = 0
    FAILED = 1
    USAGE = 2
    DOWNGRADED = 3


class CommandError(AnnealMemoryError):
    """A command refused or failed; ``main`` prints ``Error: <message>`` and exits.

    Attributes:
        exit_code: The process exit code (1 unless a command says otherwise).
    """

    def __init__(self, message: str, *, exit_code: int = ExitCode.FAILED) -> None:
        super().__init__(message)
        self.exit_code = int(exit_code)


def default_home(env: Mapping[str, str]) -> Path | None:
    """The user's home directory from the environment, or None when there is none.

    ``HOME`` (on Windows ``USERPROFILE``, then ``HOME``). The account database is not asked on
    purpose: a process run without ``HOME`` (a service, a sandbox) gets a clear error asking
    for ``--db`` instead of a store in a directory nobody chose.
    """
    names = ("USERPROFILE", "HOME") if os.name == "nt" else ("HOME",)
    for name in names:
        value = env.get(name, "")
        if value:
            return Path(value)
    return None


def resolve_db_path(
    db_arg: str | None,
    env: Mapping[str, str],
    *,
    home: Callable[[Mapping[str, str]], Path | None] = default_home,
) -> Path:
    """The database path: ``--db``, else ``$ANNEAL_MEMORY_DB``, else ``~/.anneal-memory/memory.db``.

    Raises:
        CommandError: No ``--db``, no ``ANNEAL_MEMORY_DB`` and no home directory.
    """
    if db_arg:
        return Path(db_arg).expanduser()
    from_env = env.get(DB_ENV, "")
    if from_env:
        return Path(from_env).expanduser()
    base = home(env)
    if base is None:
        raise CommandError(
            f"no home directory to hold the default database; pass --db PATH or set {DB_ENV}=PATH"
        )
    return base / DEFAULT_DB_RELATIVE


class Context:
    """Per-invocation state handed to every command handler.

    Args:
        args: The parsed arguments (global flags included).
        env: The environment (``os.environ`` in the real CLI).
        out: Where results go (stdout).
        err: Where diagnostics go (stderr).
    """

    def __init__(
        self,
        args: argparse.Namespace,
        *,
        env: Mapping[str, str],
        out: TextIO | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.args = args
        self.env = env
        self.out: TextIO = out if out is not None else sys.stdout
        self.err: TextIO = err if err is not None else sys.stderr
        self.json: bool = bool(getattr(args, "json", False))
        self.project_name: str = getattr(args, "project_name", None) or "Agent"
        self._db_path: Path | None = None
        self._store: Store | None = None

    @property
    def db_path(self) -> Path:
        """The database path (resolved on first use; see :func:`resolve_db_path`)."""
        if self._db_path is None:
            self._db_path = resolve_db_path(getattr(self.args, "db", None), self.env)
        return self._db_path

    def store(
        self,
        *,
        create: bool = True,
        read_only: bool = False,
        gate_on_create: bool = False,
        trust_ceiling: str = "agent",
    ) -> Store:
        """Open the store on first use.

        Args:
            create: Create the database when it does not exist. Commands that need an
                existing store pass False and get a clear error instead of a new empty file.
            read_only: Open with ``Store(read_only=True)``: the command never writes,
                migrates or creates anything (implies ``create=False``).
            gate_on_create: A store this call creates gets the baton policy on, in the
                same transaction as its schema.
            trust_ceiling: The highest trust this command may write (``operator`` only
                behind the operator flag).

        Raises:
            CommandError: ``create`` is False and there is no database at the path.
        """
        if self._store is not None and self._store.read_only and not read_only:
            self._store.close()
            self._store = None
        if self._store is None:
            from anneal_memory.store import database_url

            url = database_url(getattr(self.args, "db", None), self.env.get(DB_ENV))
            if url is not None:  # a PostgreSQL store (what it does not support raises)
                from anneal_memory.store import Store

                self._store = Store(
                    url,
                    project_name=self.project_name,
                    read_only=read_only,
                    trust_ceiling=trust_ceiling,
                )
                return self._store
            path = self.db_path
            if path.is_dir():
                raise CommandError(f"{path} is a directory; --db takes the database file's path")
            if (read_only or not create) and not path.exists():
                raise CommandError(
                    f"database not found: {path}. Run 'anneal-memory init' (or record an "
                    f"episode) first, or point --db / {DB_ENV} at an existing store"
                )
            from anneal_memory.store import Store

            self._store = Store(
                path,
                project_name=self.project_name,
                read_only=read_only,
                consolidate_requires_baton_on_create=gate_on_create,
                trust_ceiling=trust_ceiling,
            )
        return self._store

    def discard_new_store(self) -> None:
        """Remove the store this command created (a create that failed leaves nothing)."""
        store = self._store
        if store is None or not store.created:
            return
        from anneal_memory.store import discard_created

        self.close()
        discard_created(store.path, store.created_dirs)

    def emit(self, data: Any, text: str | None = None) -> None:
        """Print ``data`` as JSON under ``--json`` (readable UTF-8, indented), else ``text``."""
        if self.json:
            import json

            print(json.dumps(data, ensure_ascii=False, indent=2), file=self.out)
        elif text is not None:
            print(text, file=self.out)

    def warn(self, message: str) -> None:
        """Print a diagnostic line on stderr (not part of the result)."""
        print(message, file=self.err)

    def confirm(self, prompt: str) -> bool:
        """Ask ``prompt`` on a terminal; True only for y/yes (no terminal: False, never asks)."""
        stdin = sys.stdin
        if stdin is None or not stdin.isatty():
            return False
        print(prompt, end="", file=self.err, flush=True)
        try:
            answer = stdin.readline()
        except (EOFError, OSError):
            return False
        return answer.strip().lower() in {"y", "yes"}

    def close(self) -> None:
        """Close the store if a command opened it."""
        if self._store is not None:
            self._store.close()
            self._store = None
